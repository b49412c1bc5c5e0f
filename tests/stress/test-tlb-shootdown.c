// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-tlb-shootdown.c - a "hardware" access in flight on one CPU while
 * another CPU's MADV_DONTNEED frees what it uses: the zap's TLB flush must
 * wait for it (flush_tlb_mm(), src/mm/tlbflush.h), as the kernel's
 * shootdown IPI does. A test hook holds the walker inside its access at a
 * chosen point while CPU 0 zaps the walker's 2 MiB block (freeing the page
 * and, by PT reclaim, the PTE table) and then writes another block's page
 * at the same PTE index, which takes the freed table (or, when only the
 * walker's page is zapped, the freed page) back from its pool. Without the wait, the walker then reads that other
 * address's translation, or stores its tag into the other address's page.
 *
 * Each case runs with membarrier(2) as the flush's IPI and again with the
 * fallback of full fences on both sides. A third case holds the walker in
 * another process's access: a zap's flush must not wait for it (the
 * kernel's IPI goes only to the CPUs of the zapping mm). The hook exists in FL_DEBUG >= 2
 * builds (ASan, TSan); elsewhere the test skips.
 *
 * Conventions in this file: X is the walker's page in block R1, Y the page
 * at the same index in block R2; the walker is model CPU 1.
 */
#include <pthread.h>
#include "mm_harness.h"

#define TAG_X 0x1111ull
#define TAG_Y 0x2222ull
#define TAG_W 0x3333ull
#define HOLD_NS (300ull * 1000 * 1000)

static int hold_at;    /* the hook point to stop at */
static int phase;      /* atomic: 1 walker held, 2 CPU 0 done */
static bool write_acc; /* the walker stores (else loads) */
static unsigned long x_addr;
static uint64_t got;
static struct mm_struct *walker_mm; /* the mm the walker accesses */
static bool released;		    /* atomic: the hold has ended */

/* Hold the walker (CPU 1) once, until CPU 0 is done or HOLD_NS pass. */
static void hold(int where)
{
	uint64_t t0;

	if (fl__cpu != 1 || where != hold_at || __atomic_load_n(&phase, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
	t0 = fl_clock_ns();
	while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) != 2 && fl_clock_ns() - t0 < HOLD_NS)
		fl_yield();
	__atomic_store_n(&released, true, __ATOMIC_RELEASE);
}

static void *walker(void *arg)
{
	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	if (write_acc)
		touch(walker_mm, x_addr, TAG_W);
	else
		got = peek(walker_mm, x_addr);
	fl_cpu_unbind();
	return NULL;
}

#if FL_DEBUG >= 2
static bool race(bool store, int where, bool fences)
{
	unsigned long base, r1, r2, y;
	int64_t waits0;
	pthread_t t;

	ASSERT_TRUE(mm_up(64, 1, 2));
	if (fences)
		fl__membarrier_ok = false; /* the fallback: a full fence on both sides */
	else if (!fl__membarrier_ok)
		printf("# membarrier(2) unavailable: both runs use fences\n");
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(8ul << 20);
	ASSERT_TRUE(base != 0);
	r1 = ALIGN_UP(base, PMD_SIZE);
	r2 = r1 + PMD_SIZE;
	x_addr = r1 + 5 * PAGE_SIZE;
	y = r2 + 5 * PAGE_SIZE;
	ASSERT_EQ(touch(mm, x_addr, TAG_X), 0);
	/* the store case frees X's page alone: R2's table exists, so Y takes that page */
	if (store)
		ASSERT_EQ(touch(mm, r2 + 100 * PAGE_SIZE, TAG_Y), 0);
	lru_add_drain(); /* else the lru_add batch's reference keeps X's page */
	waits0 = counter("fl_tlb_shootdown_wait");
	write_acc = store;
	walker_mm = mm;
	hold_at = where;
	got = ~0ull;
	__atomic_store_n(&phase, 0, __ATOMIC_RELEASE);
	fl__hw_access_hook = hold;
	ASSERT_EQ(pthread_create(&t, NULL, walker, NULL), 0);
	while (!__atomic_load_n(&phase, __ATOMIC_ACQUIRE))
		fl_yield();
	/* the walker is inside its access: zap its block, then reuse the pools */
	ASSERT_EQ(do_madvise(mm, store ? x_addr : r1, store ? PAGE_SIZE : PMD_SIZE, MADV_DONTNEED),
		  0);
	ASSERT_EQ(touch(mm, y, TAG_Y), 0);
	__atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	fl__hw_access_hook = NULL;
	if (store) {
		/* the walker's store went to X's page before it was freed */
		ASSERT_EQ(peek(mm, y), TAG_Y);
	} else {
		/* X's old tag (the access completed first) or a fresh zero page */
		ASSERT_TRUE(got == TAG_X || got == 0);
		ASSERT_GE(counter("fl_pt_reclaim"), 1); /* the table was freed */
	}
	ASSERT_GE(counter("fl_tlb_shootdown_wait") - waits0, 1);
	mmput(mm);
	ASSERT_TRUE(mm_down());
	return true;
}

/*
 * The walker is held inside a load from process B while process A, on
 * CPU 0, zaps a block of its own: the zap must return while the walker is
 * still held, and count no wait.
 */
static bool other_mm(bool fences)
{
	struct mm_struct *b;
	unsigned long base, r1;
	int64_t waits0;
	pthread_t t;

	ASSERT_TRUE(mm_up(64, 1, 2));
	if (fences)
		fl__membarrier_ok = false;
	mm = mm_alloc(1);
	b = mm_alloc(2);
	ASSERT_TRUE(mm != NULL && b != NULL);
	base = map(8ul << 20);
	ASSERT_TRUE(base != 0);
	r1 = ALIGN_UP(base, PMD_SIZE);
	ASSERT_EQ(touch(mm, r1, TAG_Y), 0);
	ASSERT_EQ(do_mmap(b, 4ul << 20, VM_READ | VM_WRITE, &x_addr), 0);
	ASSERT_EQ(touch(b, x_addr, TAG_X), 0);
	lru_add_drain();
	waits0 = counter("fl_tlb_shootdown_wait");
	write_acc = false;
	walker_mm = b;
	hold_at = 1;
	got = ~0ull;
	__atomic_store_n(&released, false, __ATOMIC_RELEASE);
	__atomic_store_n(&phase, 0, __ATOMIC_RELEASE);
	fl__hw_access_hook = hold;
	ASSERT_EQ(pthread_create(&t, NULL, walker, NULL), 0);
	while (!__atomic_load_n(&phase, __ATOMIC_ACQUIRE))
		fl_yield();
	ASSERT_EQ(do_madvise(mm, r1, PMD_SIZE, MADV_DONTNEED), 0);
	/* a flush that waited for B's walker would return only after its hold */
	ASSERT_TRUE(!__atomic_load_n(&released, __ATOMIC_ACQUIRE));
	__atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	fl__hw_access_hook = NULL;
	ASSERT_EQ(got, TAG_X);
	ASSERT_EQ(counter("fl_tlb_shootdown_wait") - waits0, 0);
	mmput(b);
	mmput(mm);
	ASSERT_TRUE(mm_down());
	return true;
}

static bool test_other_mm_not_waited_for(void)
{
	return other_mm(false) && other_mm(true);
}

/* held between reading the PMD entry and the PTE: the table must not be reused */
static bool test_load_while_table_freed(void)
{
	return race(false, 0, false) && race(false, 0, true);
}

/* held with the translation done: the page must not be reused */
static bool test_store_while_page_freed(void)
{
	return race(true, 1, false) && race(true, 1, true);
}
#endif

int main(int argc, char **argv)
{
#if FL_DEBUG >= 2
	static const struct fl_test tests[] = {
		TEST(test_load_while_table_freed),
		TEST(test_store_while_page_freed),
		TEST(test_other_mm_not_waited_for),
	};

	return fl_test_main(argc, argv, tests, 3);
#else
	(void)argc;
	(void)argv;
	(void)hold;
	(void)walker;
	fl_test_skip(
		"needs the access hook of FL_DEBUG >= 2 builds (make SAN=address,undefined check)");
	return 77;
#endif
}
