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

TEST_MAIN(TEST(test_free_makes_lazyfree), TEST(test_cold_deactivates),
	  TEST(test_hugepage_splits_vmas_and_errors))
