// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-khugepaged.c - khugepaged's scan and collapse, and MADV_COLLAPSE,
 * on shapes around each limit, the counts worked out from 6.18's rules
 * (mm/khugepaged.c; kernel-reclaim-memcg-swap.md section 16):
 *
 * - a PMD range collapses when its none or zero PTEs are at most
 *   max_ptes_none, its swap entries at most max_ptes_swap (then swapped in
 *   first, and half the range must be young), its PTEs of maybe-shared
 *   folios at most max_ptes_shared, and one PTE at least is young;
 *   one more than a limit fails with that limit's result and counter;
 * - seed 003 (--khugepaged-lazyfree=skip): a clean lazy-free folio stops
 *   the scan (page_lazyfree) outside VM_DROPPABLE; 6.18 collapses it;
 * - a range costs a pass 512 pages (6.18), or the PTEs its scan looked at
 *   (--khugepaged-progress=ptes: seed 003's series), which lets the
 *   lazy-free skip pass cold ranges almost for free;
 * - a pass scans pages_to_scan pages from the cursor, mm after mm in
 *   registration order, a full scan each time it passes the last;
 * - MADV_COLLAPSE ignores the limits and the young rule and the THP
 *   knobs (but VM_NOHUGEPAGE), returns 0 when every range ends PMD-mapped,
 *   EINVAL for a range never faulted, ENOMEM when the THP cannot be had.
 * Every collapse keeps every page's tag (0 where there was no page).
 *
 * Conventions in this file: the test thread is CPU 0 and runs the passes
 * itself (fl__khugepaged_do_scan()); the knobs make faults map 4K pages,
 * then MADV_HUGEPAGE lets khugepaged have the VMA.
 */
#include "../src/mm/pgtable.h"
#include "../src/mm/swap.h"
#include "mm_harness.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define KH THP "khugepaged/"

static bool pmd_mapped(unsigned long a)
{
	return pmd_huge_present(fl__pmd_entry(mm, a));
}

/* a fresh mm with a 2 MiB-aligned mapping of @pmds PMD ranges, 4K faults */
static unsigned long setup(unsigned long pmds)
{
	unsigned long a;

	if (!mm_up_with_mm(64) || !knob(THP "hugepages-2048kB/enabled", "never") ||
	    !knob("foliolab/lru_cache", "order0"))
		return 0;
	a = map(pmds * SZ_2M);
	return a && a % SZ_2M == 0 ? a : 0;
}

/* let khugepaged have the mapping: PMD THP by madvise, MADV_HUGEPAGE */
static bool hugepage(unsigned long a, unsigned long len)
{
	return knob(THP "hugepages-2048kB/enabled", "madvise") &&
	       do_madvise(mm, a, len, MADV_HUGEPAGE) == 0;
}

static int64_t scans(const char *result)
{
	char name[64];

	snprintf(name, sizeof(name), "fl_scan_%s", result);
	return counter(name);
}

/* one pass: returns pages collapsed by it */
static int64_t pass(void)
{
	int64_t before = counter("khugepaged/pages_collapsed");

	fl__khugepaged_do_scan(NULL);
	return counter("khugepaged/pages_collapsed") - before;
}

static bool test_collapse_full_range(void)
{
	unsigned long a = setup(1);

	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 512, 100));
	ASSERT_TRUE(hugepage(a, SZ_2M));
	ASSERT_EQ(pass(), 1);
	ASSERT_TRUE(pmd_mapped(a));
	ASSERT_EQ(counter("thp_collapse_alloc"), 1);
	ASSERT_EQ(scans("succeeded"), 1);
	ASSERT_EQ(counter("khugepaged/full_scans"), 1);
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 1);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 512);
	ASSERT_EQ(wrong_tags(a, 512, 100), 0);
	/* the next pass finds it PMD-mapped */
	ASSERT_EQ(pass(), 0);
	ASSERT_EQ(scans("page_pmd_mapped"), 1);
	return mm_down_with_mm();
}

/* @written of 512 pages written from the start; the rest are none PTEs */
static bool none_case(int max_none, unsigned long written, bool collapses)
{
	char v[16];
	unsigned long a = setup(1);

	if (!a || !write_tags(a, written, 100) || !hugepage(a, SZ_2M))
		return false;
	snprintf(v, sizeof(v), "%d", max_none);
	if (!knob(KH "max_ptes_none", v) || pass() != (collapses ? 1 : 0) ||
	    pmd_mapped(a) != collapses) {
		printf("# DBG succ %lld lru %lld count %lld lack %lld none %lld\n",
		       (long long)scans("succeeded"), (long long)scans("page_not_in_lru"),
		       (long long)scans("not_suitable_page_count"),
		       (long long)scans("lack_referenced_page"),
		       (long long)scans("exceed_none_pte"));
		return false;
	}
	if (!collapses &&
	    (scans("exceed_none_pte") != 1 || counter("thp_scan_exceed_none_pte") != 1 ||
	     counter("thp_collapse_alloc") != 0))
		return false;
	/* a collapse fills the none PTEs with zero pages' worth: MM_ANONPAGES 512 */
	if (collapses && (fl__mm_counter(mm, MM_ANONPAGES) != 512 || wrong_tags(a, written, 100) ||
			  (written < 512 && peek(mm, a + 511 * PAGE_SIZE) != 0)))
		return false;
	return mm_down_with_mm();
}

static bool test_max_ptes_none(void)
{
	ASSERT_TRUE(none_case(64, 448, true));	/* 64 none: at the limit */
	ASSERT_TRUE(none_case(64, 447, false)); /* 65: one over */
	ASSERT_TRUE(none_case(0, 512, true));
	ASSERT_TRUE(none_case(0, 511, false));
	return true;
}

/* the first @out pages swapped out (PAGEOUT), the rest young */
static bool swap_case(int out, bool collapses)
{
	unsigned long a;
	int64_t pswpin;

	mm_swap_mb = 16;
	a = setup(1);
	mm_swap_mb = 0;
	if (!a || !write_tags(a, 512, 100) ||
	    do_madvise(mm, a, (size_t)out * PAGE_SIZE, MADV_PAGEOUT) ||
	    fl__mm_counter(mm, MM_SWAPENTS) != out || !hugepage(a, SZ_2M))
		return false;
	pswpin = counter("pswpin");
	if (pass() != (collapses ? 1 : 0) || pmd_mapped(a) != collapses)
		return false;
	if (collapses && (counter("pswpin") - pswpin != out ||
			  fl__mm_counter(mm, MM_SWAPENTS) != 0 || wrong_tags(a, 512, 100)))
		return false;
	if (!collapses &&
	    (scans("exceed_swap_pte") != 1 || counter("thp_scan_exceed_swap_pte") != 1))
		return false;
	return mm_down_with_mm();
}

static bool test_max_ptes_swap(void)
{
	ASSERT_TRUE(swap_case(64, true));  /* max_ptes_swap 64: swapped in, collapsed */
	ASSERT_TRUE(swap_case(65, false)); /* one over */
	return true;
}

/*
 * After fork the child writes its first @copied pages (copies); the
 * parent's other PTEs map folios the child maps too (maybe shared).
 */
static bool shared_case(unsigned long copied, bool collapses)
{
	struct mm_struct *child;
	unsigned long a = setup(1), i;

	if (!a || !write_tags(a, 512, 100) || !hugepage(a, SZ_2M))
		return false;
	child = mm_alloc(2);
	if (!child || dup_mmap(child, mm))
		return false;
	for (i = 0; i < copied; i++) {
		uint64_t t = 900 + i;

		if (fl__mm_access(child, a + i * PAGE_SIZE, true, &t))
			return false;
	}
	/*
	 * Both mms are registered (khugepaged_fork()), the parent first, and
	 * one pass reaches both. Each maps 512 - copied pages the other maps
	 * too: the child's copied ones are its own.
	 */
	if (pass() != (collapses ? 2 : 0) || pmd_mapped(a) != collapses ||
	    pmd_huge_present(fl__pmd_entry(child, a)) != collapses)
		return false;
	if (!collapses &&
	    (scans("exceed_shared_pte") != 2 || counter("thp_scan_exceed_share_pte") != 2))
		return false;
	for (i = 0; i < 512; i++) {
		uint64_t got = ~0ull;

		fl__mm_access(child, a + i * PAGE_SIZE, false, &got);
		if (got != (i < copied ? 900 + i : 100 + i))
			return false;
	}
	if (wrong_tags(a, 512, 100))
		return false;
	mmput(child);
	return mm_down_with_mm();
}

static bool test_max_ptes_shared(void)
{
	ASSERT_TRUE(shared_case(256, true));  /* 256 shared in each: at the limit */
	ASSERT_TRUE(shared_case(255, false)); /* 257 in the parent, 257 in the child */
	return true;
}

/*
 * MADV_FREE, then every page read (young, clean): 6.18 collapses; with
 * seed 003 the scan stops at the first clean lazy-free page, unless the
 * VMA is droppable; a page written again (dirty) does not stop it.
 */
static bool lazyfree_case(const char *mode, bool droppable, unsigned long redirtied, bool collapses)
{
	unsigned long a = 0, i;

	if (!mm_up_with_mm(64) || !knob(THP "hugepages-2048kB/enabled", "never") ||
	    !knob("foliolab/lru_cache", "order0") || !knob("foliolab/khugepaged_lazyfree", mode))
		return false;
	if (do_mmap(mm, SZ_2M, VM_READ | VM_WRITE | (droppable ? VM_DROPPABLE | VM_WIPEONFORK : 0),
		    &a) ||
	    a % SZ_2M)
		return false;
	if (!write_tags(a, 512, 100) || do_madvise(mm, a, SZ_2M, MADV_FREE))
		return false;
	for (i = 0; i < 512; i++)
		if (peek(mm, a + i * PAGE_SIZE) != 100 + i)
			return false;
	if (redirtied && !write_tags(a, redirtied, 100))
		return false;
	if (!hugepage(a, SZ_2M) || pass() != (collapses ? 1 : 0) || pmd_mapped(a) != collapses)
		return false;
	if (!collapses && scans("page_lazyfree") != 1)
		return false;
	if (collapses) {
		struct folio *f = pfn_folio(pte_pfn(fl__pmd_entry(mm, a)));

		/* the THP is anon again, unless droppable */
		if (folio_test_swapbacked(f) == droppable || wrong_tags(a, 512, 100))
			return false;
	}
	return mm_down_with_mm();
}

static bool test_lazyfree(void)
{
	ASSERT_TRUE(lazyfree_case("collapse", false, 0, true));
	ASSERT_TRUE(lazyfree_case("skip", false, 0, false));
	ASSERT_TRUE(lazyfree_case("skip", false, 10, false)); /* stops at page 10 */
	ASSERT_TRUE(lazyfree_case("skip", true, 0, true));
	ASSERT_TRUE(lazyfree_case("collapse", true, 0, true));
	return true;
}

/* a range with no young PTE: khugepaged leaves it (MADV_COLLAPSE would not) */
static bool test_lack_referenced(void)
{
	unsigned long a = setup(1), i;
	pteval_t *pte;

	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 512, 100));
	for (i = 0; i < 512; i++) { /* as reclaim's look would leave them */
		pte = fl__pte_lookup(mm, a + i * PAGE_SIZE, NULL);
		__atomic_fetch_and(pte, ~_PAGE_ACCESSED, __ATOMIC_RELAXED);
		folio_clear_referenced(mapped_folio(mm, a + i * PAGE_SIZE));
	}
	ASSERT_TRUE(hugepage(a, SZ_2M));
	ASSERT_EQ(pass(), 0);
	ASSERT_EQ(scans("lack_referenced_page"), 1);
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_COLLAPSE), 0);
	ASSERT_TRUE(pmd_mapped(a));
	ASSERT_EQ(wrong_tags(a, 512, 100), 0);
	return mm_down_with_mm();
}

/*
 * What a range costs a pass (--khugepaged-progress): three MADV_FREE'd
 * ranges (old and clean) before a written one, pages_to_scan 512. By
 * 6.18's rule each range costs 512, so the written range is reached on
 * the fourth pass, whatever the verdict on the others; by the series'
 * rule a range costs the PTEs its scan looked at: seed 003's skip leaves
 * each lazy-free range at its first PTE (1 each, and 1 for entering the
 * mm), so the first pass reaches and collapses the fourth range, while
 * without the skip each range is looked at whole (lack_referenced_page,
 * 512) and the fourth waits as before.
 */
static bool progress_case(const char *rule, const char *lazyfree, int pass_collapsing)
{
	unsigned long a = setup(4);
	int i;

	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(knob("foliolab/khugepaged_progress", rule));
	ASSERT_TRUE(knob("foliolab/khugepaged_lazyfree", lazyfree));
	ASSERT_TRUE(write_tags(a, 4 * 512, 100));
	ASSERT_EQ(do_madvise(mm, a, 3 * SZ_2M, MADV_FREE), 0);
	ASSERT_TRUE(hugepage(a, 4 * SZ_2M));
	ASSERT_TRUE(knob(KH "pages_to_scan", "512"));
	for (i = 1; i < pass_collapsing; i++)
		ASSERT_EQ(pass(), 0);
	ASSERT_EQ(pass(), 1);
	ASSERT_TRUE(pmd_mapped(a + 3 * SZ_2M));
	ASSERT_EQ(scans(strcmp(lazyfree, "skip") ? "lack_referenced_page" : "page_lazyfree"), 3);
	ASSERT_EQ(wrong_tags(a + 3 * SZ_2M, 512, 100 + 3 * 512), 0);
	return mm_down_with_mm();
}

static bool test_progress_rule(void)
{
	ASSERT_TRUE(progress_case("range", "skip", 4));
	ASSERT_TRUE(progress_case("range", "collapse", 4));
	ASSERT_TRUE(progress_case("ptes", "skip", 1));
	ASSERT_TRUE(progress_case("ptes", "collapse", 4));
	return true;
}

/*
 * The cursor: mm A with two ranges, mm B with one, pages_to_scan 512. A
 * collapse ends a pass (it drops mmap_lock); a pass that leaves the last
 * mm counts a full scan and goes on from the first.
 */
static bool test_cursor_and_full_scans(void)
{
	struct mm_struct *a_mm, *b_mm;
	unsigned long a = setup(2), b = 0;

	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 1024, 100));
	a_mm = mm;
	b_mm = mm_alloc(2);
	ASSERT_TRUE(b_mm != NULL);
	ASSERT_EQ(do_mmap(b_mm, SZ_2M, VM_READ | VM_WRITE, &b), 0);
	mm = b_mm;
	ASSERT_TRUE(write_tags(b, 512, 5000));
	mm = a_mm;
	/* registered in this order: A, then B */
	ASSERT_TRUE(hugepage(a, 2 * SZ_2M));
	ASSERT_EQ(do_madvise(b_mm, b, SZ_2M, MADV_HUGEPAGE), 0);
	ASSERT_TRUE(knob(KH "pages_to_scan", "512"));
	ASSERT_EQ(pass(), 1); /* A's first range */
	ASSERT_TRUE(pmd_mapped(a) && !pmd_mapped(a + SZ_2M));
	ASSERT_EQ(pass(), 1); /* A's second */
	ASSERT_EQ(pass(), 1); /* A is done: on to B's range */
	ASSERT_TRUE(pmd_huge_present(fl__pmd_entry(b_mm, b)));
	ASSERT_EQ(counter("khugepaged/full_scans"), 0);
	ASSERT_EQ(pass(), 0); /* B done, the last: a full scan; A again */
	ASSERT_EQ(counter("khugepaged/full_scans"), 1);
	ASSERT_EQ(scans("page_pmd_mapped"), 1);
	ASSERT_EQ(counter("thp_collapse_alloc"), 3);
	mm = b_mm;
	ASSERT_EQ(wrong_tags(b, 512, 5000), 0);
	mm = a_mm;
	ASSERT_EQ(wrong_tags(a, 1024, 100), 0);
	mmput(b_mm);
	return mm_down_with_mm();
}

static bool test_madv_collapse(void)
{
	unsigned long a = setup(3);

	ASSERT_TRUE(a != 0);
	/* THP never everywhere: MADV_COLLAPSE goes by VM_NOHUGEPAGE only */
	ASSERT_TRUE(knob(THP "enabled", "never"));
	/* range 0: 3 pages written; range 1 never faulted; range 2 all written */
	ASSERT_TRUE(write_tags(a, 3, 100));
	ASSERT_TRUE(write_tags(a + 2 * SZ_2M, 512, 300));
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_COLLAPSE), 0);
	ASSERT_TRUE(pmd_mapped(a));
	ASSERT_EQ(wrong_tags(a, 3, 100), 0);
	ASSERT_EQ(peek(mm, a + 3 * PAGE_SIZE), 0);
	ASSERT_EQ(counter("thp_collapse_alloc"), 1);
	/* never faulted: no PMD entry (pmd_none) -> EINVAL, nothing allocated */
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_COLLAPSE), -EINVAL);
	ASSERT_EQ(counter("thp_collapse_alloc"), 1);
	/* already PMD-mapped counts as done; less than a range: nothing to do */
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_COLLAPSE), 0);
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, 64 * PAGE_SIZE, MADV_COLLAPSE), 0);
	/* no THP to be had: ENOMEM and thp_collapse_alloc_failed */
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "9"));
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, SZ_2M, MADV_COLLAPSE), -ENOMEM);
	ASSERT_EQ(counter("thp_collapse_alloc_failed"), 1);
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "none"));
	/* VM_NOHUGEPAGE: EINVAL */
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, SZ_2M, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, SZ_2M, MADV_COLLAPSE), -EINVAL);
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, SZ_2M, MADV_HUGEPAGE), 0);
	ASSERT_EQ(do_madvise(mm, a + 2 * SZ_2M, SZ_2M, MADV_COLLAPSE), 0);
	ASSERT_EQ(counter("thp_collapse_alloc"), 2);
	ASSERT_EQ(wrong_tags(a + 2 * SZ_2M, 512, 300), 0);
	/* khugepaged's count is its own */
	ASSERT_EQ(counter("khugepaged/pages_collapsed"), 0);
	return mm_down_with_mm();
}

/* 16K folios collapse too, each isolated once and unmapped in one batch; freed */
static bool test_collapse_mthp(void)
{
	unsigned long a = setup(1);
	int64_t live;

	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(write_tags(a, 512, 100));
	ASSERT_EQ(mapped_order(mm, a), 2);
	live = counter("fl_live_folios");
	ASSERT_TRUE(hugepage(a, SZ_2M));
	ASSERT_EQ(pass(), 1);
	lru_add_drain();
	/* 128 folios of 16K gone, one THP come */
	ASSERT_EQ(counter("fl_live_folios") - live, 1 - 128);
	ASSERT_EQ(counter("hugepages-16kB/stats/nr_anon"), 0);
	/* each folio's PTEs go in one batch: never partially mapped, never queued */
	ASSERT_EQ(counter("hugepages-16kB/stats/split_deferred"), 0);
	ASSERT_EQ(wrong_tags(a, 512, 100), 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_collapse_full_range), TEST(test_max_ptes_none), TEST(test_max_ptes_swap),
	  TEST(test_max_ptes_shared), TEST(test_lazyfree), TEST(test_lack_referenced),
	  TEST(test_progress_rule), TEST(test_cursor_and_full_scans), TEST(test_madv_collapse),
	  TEST(test_collapse_mthp))
