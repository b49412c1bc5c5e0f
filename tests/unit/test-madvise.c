// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-madvise.c - MADV_FREE makes exclusive anon folios lazy-free (clean
 * PTEs, PG_swapbacked cleared, on the inactive file list, pglazyfree per
 * page) through the lru_lazyfree batch; MADV_COLD deactivates active
 * folios through lru_deactivate; MADV_(NO)HUGEPAGE split VMAs at the range
 * ends; holes give -ENOMEM; COLLAPSE of less than a 2 MiB range does
 * nothing (test-khugepaged has the rest; PAGEOUT: test-swap).
 *
 * Conventions in this file: one node; every folio is drained to the LRU
 * before the advice so the feeders' PG_lru precondition holds.
 */
#include "mm_harness.h"
#include "../src/platform/sim/sim.h"
#include "../src/platform/cost.h"

#define SZ_2M (2ul << 20)

static bool fill(unsigned long a, unsigned long len)
{
	unsigned long off;

	for (off = 0; off < len; off += PAGE_SIZE)
		if (touch(mm, a + off, 7))
			return false;
	return true;
}

static bool test_free_makes_lazyfree(void)
{
	struct lruvec *lv;
	struct folio *f;
	unsigned long a;
	pteval_t *pte;

	ASSERT_TRUE(mm_up_with_mm(256));
	lv = &NODE_DATA(0)->__lruvec;
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(fill(a, 64 * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_ANON], 64);
	pte = fl__pte_lookup(mm, a, NULL);
	ASSERT_TRUE(*pte & _PAGE_DIRTY);
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	f = mapped_folio(mm, a);
	ASSERT_TRUE(folio_test_lazyfree(f));
	ASSERT_TRUE(!(*pte & (_PAGE_DIRTY | _PAGE_ACCESSED)));
	ASSERT_EQ(counter("pglazyfree"), 64);
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_ANON], 0);
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 64);
	/* the data is still there until reclaim drops it */
	ASSERT_EQ(peek(mm, a + PAGE_SIZE), 7);
	/*
	 * a 16K folio only half in the range is split (6.18's
	 * madvise_free_pte_range()): the two covered pages become lazy-free,
	 * the other two stay as they were
	 */
	ASSERT_TRUE(fill(a + 64 * PAGE_SIZE, 4 * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a + 66 * PAGE_SIZE, 2 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(mthp(16, "split"), 1);
	ASSERT_EQ(mapped_order(mm, a + 64 * PAGE_SIZE), 0);
	ASSERT_TRUE(!folio_test_lazyfree(mapped_folio(mm, a + 64 * PAGE_SIZE)));
	ASSERT_TRUE(!folio_test_lazyfree(mapped_folio(mm, a + 65 * PAGE_SIZE)));
	ASSERT_TRUE(folio_test_lazyfree(mapped_folio(mm, a + 66 * PAGE_SIZE)));
	ASSERT_TRUE(folio_test_lazyfree(mapped_folio(mm, a + 67 * PAGE_SIZE)));
	ASSERT_EQ(counter("pglazyfree"), 66);
	return mm_down_with_mm();
}

static bool test_cold_deactivates(void)
{
	struct lruvec *lv;
	unsigned long a;
	int i;

	ASSERT_TRUE(mm_up_with_mm(256));
	lv = &NODE_DATA(0)->__lruvec;
	a = map(SZ_2M);
	ASSERT_TRUE(fill(a, 8 * PAGE_SIZE));
	lru_add_drain();
	for (i = 0; i < 4; i++) /* make half of them active */
		folio_activate(mapped_folio(mm, a + (unsigned long)i * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 4);
	ASSERT_EQ(do_madvise(mm, a, 8 * PAGE_SIZE, MADV_COLD), 0);
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 0);
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_ANON], 8);
	ASSERT_EQ(counter("pgdeactivate"), 4);
	ASSERT_TRUE(!(*fl__pte_lookup(mm, a, NULL) & _PAGE_ACCESSED));
	return mm_down_with_mm();
}

static bool test_hugepage_splits_vmas_and_errors(void)
{
	unsigned long a;

	ASSERT_TRUE(mm_up_with_mm(256));
	a = map(4 * SZ_2M);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 1);
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_HUGEPAGE), 0);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 3);
	ASSERT_TRUE(fl__mm_vma(mm, 1)->vm_flags & VM_HUGEPAGE);
	ASSERT_TRUE(!(fl__mm_vma(mm, 0)->vm_flags & VM_HUGEPAGE));
	/* the default 2048kB=inherit now gives a PMD folio there only */
	ASSERT_EQ(touch(mm, a + SZ_2M, 1), 0);
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(touch(mm, a, 1), 0);
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_NOHUGEPAGE), 0);
	ASSERT_TRUE(fl__mm_vma(mm, 1)->vm_flags & VM_NOHUGEPAGE);
	ASSERT_EQ(do_madvise(mm, a + 1, PAGE_SIZE, MADV_DONTNEED), -EINVAL);
	ASSERT_EQ(do_madvise(mm, a, 8 * SZ_2M, MADV_DONTNEED), -ENOMEM); /* runs past the end */
	/* no whole 2 MiB range inside: nothing to collapse, success (6.18) */
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, MADV_COLLAPSE), 0);
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, 99), -EINVAL);
	return mm_down_with_mm();
}

/*
 * 6.18's lock choices on virtual CPUs (issue 38): munmap downgrades
 * mmap_lock to reading before its zap, and MADV_DONTNEED runs under the
 * per-VMA lock. Every cost 0 but zap_pte (1 us a page) and the wake-up
 * (fl_sim_init()'s hand-off, 0 here). Task A, on CPU 0, unmaps 512
 * faulted pages at 0: its zap runs 0..512 us. Task B, on CPU 1, at 10 us:
 * a fault in another VMA (per-VMA lock) and MADV_COLD of it (mmap_lock for
 * reading, which the zap's read hold shares) finish at 10 us; then an
 * mmap (mmap_lock for writing) waits for A's release, at 512 us. Task C,
 * on CPU 2, at 20 us: MADV_DONTNEED of one faulted page of a third VMA,
 * under that VMA's lock, done at 21 us while mmap_lock's writer waits (a
 * reader of mmap_lock would queue behind it).
 */
#define US 1000000ull /* ps */
static unsigned long lk_a, lk_b, lk_c;
static uint64_t lk_a_end, lk_b_fault, lk_b_cold, lk_b_mmap, lk_c_dontneed;
static int lk_err;

static void lk_task_a(void *arg)
{
	(void)arg;
	fl__mm_cpu_enter(mm);
	lk_err |= do_munmap(mm, lk_a, SZ_2M);
	lk_a_end = fl_sim_now();
	fl__mm_cpu_leave(mm);
}

static void lk_task_b(void *arg)
{
	unsigned long x = 0;

	(void)arg;
	fl__mm_cpu_enter(mm);
	fl_sim_charge(10 * US);
	lk_err |= touch(mm, lk_b, 3);
	lk_b_fault = fl_sim_now();
	lk_err |= do_madvise(mm, lk_b, PAGE_SIZE, MADV_COLD);
	lk_b_cold = fl_sim_now();
	lk_err |= do_mmap(mm, PAGE_SIZE, VM_READ | VM_WRITE, &x);
	lk_b_mmap = fl_sim_now();
	fl__mm_cpu_leave(mm);
}

static void lk_task_c(void *arg)
{
	(void)arg;
	fl__mm_cpu_enter(mm);
	fl_sim_charge(20 * US);
	lk_err |= do_madvise(mm, lk_c, PAGE_SIZE, MADV_DONTNEED);
	lk_c_dontneed = fl_sim_now();
	fl__mm_cpu_leave(mm);
}

static bool test_munmap_downgrades_and_dontneed_uses_the_vma_lock(void)
{
	void (*fn[3])(void *) = { lk_task_a, lk_task_b, lk_task_c };
	struct fl_thread_handle *h[3];
	uint64_t saved[FL_NR_COSTS];
	int i, err = 0;

	ASSERT_TRUE(mm_up(256, 1, 3));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	/* read-only guards between them: a VMA merges only with its own flags */
	lk_a = map(SZ_2M);
	ASSERT_EQ(do_mmap(mm, PAGE_SIZE, VM_READ, &lk_b), 0);
	lk_b = map(SZ_2M);
	ASSERT_EQ(do_mmap(mm, PAGE_SIZE, VM_READ, &lk_c), 0);
	lk_c = map(3 * PAGE_SIZE);
	ASSERT_TRUE(lk_a && lk_b && lk_c);
	ASSERT_TRUE(find_vma(mm, lk_b) != find_vma(mm, lk_a));
	ASSERT_TRUE(find_vma(mm, lk_c) != find_vma(mm, lk_b));
	ASSERT_TRUE(fill(lk_a, SZ_2M));
	ASSERT_TRUE(fill(lk_c, PAGE_SIZE));
	lru_add_drain();
	memcpy(saved, fl__cost_ps, sizeof(saved));
	memset(fl__cost_ps, 0, sizeof(fl__cost_ps));
	fl__cost_ps[FL_COST_ZAP_PTE] = US;
	ASSERT_EQ(fl__sim_platform_start(5), 0);
	lk_err = 0;
	fl_cpu_unbind(); /* the tasks are the CPUs now, as in a model target's run */
	for (i = 0; i < 3; i++) {
		h[i] = fl__thread_start(fn[i], NULL, i, -1, &err);
		ASSERT_TRUE(h[i] != NULL);
	}
	for (i = 0; i < 3; i++)
		fl__thread_join(h[i]);
	fl_cpu_bind(0);
	memcpy(fl__cost_ps, saved, sizeof(saved));
	ASSERT_EQ(lk_err, 0);
	ASSERT_EQ(lk_a_end, 512 * US);
	ASSERT_EQ(lk_b_fault, 10 * US);
	ASSERT_EQ(lk_b_cold, 10 * US);
	ASSERT_EQ(lk_b_mmap, 512 * US);
	ASSERT_EQ(lk_c_dontneed, 21 * US); /* its one page's zap */
	ASSERT_TRUE(mapped_folio(mm, lk_c) == NULL);
	mmput(mm); /* on sim still, as a model target ends */
	fl__sim_platform_stop();
	ASSERT_TRUE(mm_down());
	return true;
}

TEST_MAIN(TEST(test_free_makes_lazyfree), TEST(test_cold_deactivates),
	  TEST(test_hugepage_splits_vmas_and_errors),
	  TEST(test_munmap_downgrades_and_dontneed_uses_the_vma_lock))
