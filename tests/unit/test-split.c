// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-split.c - splitting mapped anonymous folios, and the deferred
 * split queue: split_huge_pages' pid form on PMD-mapped THPs and
 * PTE-mapped 64K folios, uniformly to orders 0 and 4 and non-uniformly at
 * a page; the rmap walk finding a folio that two VMAs map; the zero-page
 * remap of zero-filled order-0 pieces; every early return and its error
 * code, counted or not as 6.18 counts it; the deferred split queue filled
 * by partial unmaps and by PMD faults, emptied by its shrinker, and the
 * underused-THP split; a split of a folio that a per-CPU LRU batch still
 * holds, with the seed's drain and without.
 *
 * Conventions in this file: tags are written as BASE + page number from
 * the mapping's start, so a misplaced or lost page shows in check(); the
 * expected counts come from the rules in kernel-6.18-audit.md B and C
 * (worked out by hand in each case's comment), never from a run.
 */
/* before the harness: its static "mm" would shadow pgtable.h parameters */
#include "../src/mm/pgtable.h"
#include "mm_harness.h"
#include "../src/mm/fs.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define BASE 0x5000000000ull

static unsigned long a; /* the test mapping, PMD aligned */

static bool up(unsigned long len)
{
	ASSERT_TRUE(mm_up_with_mm(256));
	a = map(len);
	ASSERT_NE(a, 0ul);
	ASSERT_EQ(a % SZ_2M, 0ul);
	return true;
}

/* Write BASE + i into pages [first, first + n) of the mapping. */
static bool fill(unsigned long first, unsigned long n)
{
	unsigned long i;

	for (i = first; i < first + n; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, BASE + i), 0);
	return true;
}

/* Pages [first, first + n) read BASE + i, or 0 where @zero_from <= i. */
static bool check(unsigned long first, unsigned long n, unsigned long zero_from)
{
	unsigned long i;

	for (i = first; i < first + n; i++) {
		uint64_t t = 0;

		ASSERT_EQ(fl__mm_access(mm, a + i * PAGE_SIZE, false, &t), 0);
		ASSERT_EQ(t, i < zero_from ? BASE + i : 0);
	}
	return true;
}

static int split_range(unsigned long first, unsigned long n, int order, long offset)
{
	char in[128];

	if (offset >= 0)
		snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d,%ld", mm->id, a + first * PAGE_SIZE,
			 a + (first + n) * PAGE_SIZE, order, offset);
	else
		snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d", mm->id, a + first * PAGE_SIZE,
			 a + (first + n) * PAGE_SIZE, order);
	return fl__split_huge_pages_write(in);
}

/* The order of the folio each PTE of pages [first, first + n) maps must be @orders[i]. */
static bool orders_are(unsigned long first, unsigned long n, const int *orders)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (mapped_order(mm, a + (first + i) * PAGE_SIZE) != orders[i])
			printf("# page %lu: order %d, expected %d\n", first + i,
			       mapped_order(mm, a + (first + i) * PAGE_SIZE), orders[i]);
		ASSERT_EQ(mapped_order(mm, a + (first + i) * PAGE_SIZE), orders[i]);
	}
	return true;
}

static bool all_orders(unsigned long n, int order)
{
	static int o[512];
	unsigned long i;

	for (i = 0; i < n; i++)
		o[i] = order;
	return orders_are(0, n, o);
}

static bool thp_up(void)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(fill(0, 512));
	ASSERT_TRUE(pmd_trans_huge(fl__pmd_entry(mm, a)));
	return true;
}

/*
 * A PMD-mapped THP split to order 0: the PMD becomes 512 migration
 * entries at once (thp_split_pmd 1, no partial mapping on the way, so no
 * deferred split counted), the folio splits (thp_split_page 1, 2048kB
 * split 1, nr_anon 2048kB -1), every page is mapped again writable, and the
 * PMD fault's underused-candidate queue entry is gone with the folio.
 */
static bool test_pmd_thp_to_order0(void)
{
	ASSERT_TRUE(thp_up());
	ASSERT_EQ(deferred_split_count(0, NULL), 1ul); /* shrink_underused queues PMD faults */
	ASSERT_EQ(mthp(2048, "nr_anon"), 1);
	ASSERT_EQ(split_range(0, 512, 0, -1), 0);
	ASSERT_TRUE(!pmd_trans_huge(fl__pmd_entry(mm, a)));
	ASSERT_TRUE(all_orders(512, 0));
	ASSERT_TRUE(check(0, 512, 512));
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(counter("thp_split_page_failed"), 0);
	ASSERT_EQ(counter("thp_deferred_split_page"), 0);
	ASSERT_EQ(mthp(2048, "split"), 1);
	ASSERT_EQ(mthp(2048, "nr_anon"), 0);
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 512);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 512);
	ASSERT_EQ(deferred_split_count(0, NULL), 0ul);
	/* the PTEs came back writable: rewriting faults nowhere */
	{
		int64_t faults = counter("pgfault");

		ASSERT_TRUE(fill(0, 512));
		ASSERT_EQ(counter("pgfault"), faults);
	}
	return mm_down_with_mm();
}

/*
 * Zero-filled pages of a successful anon split to order 0 are not kept:
 * 100 pages written, the other 412 (still zero) are mapped to the shared
 * zero page and freed (rss 100). With the zero page forbidden (our hosts'
 * pvm_no_zero_page), all 512 stay.
 */
static bool zero_remap_case(bool forbid)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob("foliolab/no_zero_page", forbid ? "on" : "off"));
	ASSERT_TRUE(fill(0, 100));
	ASSERT_EQ(split_range(0, 512, 0, -1), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), forbid ? 512 : 100);
	ASSERT_EQ(counter("nr_anon_pages"), forbid ? 512 : 100);
	ASSERT_TRUE(check(0, 512, 100));
	ASSERT_EQ(mapped_folio(mm, a + 200 * PAGE_SIZE) == NULL, !forbid);
	return mm_down_with_mm();
}

static bool test_zero_filled_pieces_go(void)
{
	return zero_remap_case(false) && zero_remap_case(true);
}

/* To order 4: 32 pieces of 64K, still compound, so none goes to the zero page. */
static bool test_pmd_thp_to_order4(void)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(fill(0, 10));
	ASSERT_EQ(split_range(0, 512, 4, -1), 0);
	ASSERT_TRUE(all_orders(512, 4));
	ASSERT_EQ(mthp(64, "nr_anon"), 32);
	ASSERT_EQ(mthp(2048, "nr_anon"), 0);
	ASSERT_EQ(mthp(2048, "split"), 1);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 512);
	ASSERT_TRUE(check(0, 512, 10));
	return mm_down_with_mm();
}

/*
 * Non-uniform at page 100 to order 0, over the THP's first page only (the
 * pid walk goes on page by page, and a piece the offset no longer falls in
 * is split uniformly), halving toward page 100 and
 * skipping order 1 for anon: [0,256) keeps 100 so [256,512) is o8;
 * [128,256) o7; [0,64) o6; [64,96) o5; [112,128) o4; [104,112) o3;
 * [96,100) o2; [100,104) goes from o2 straight to four o0.
 */
static bool test_non_uniform_at_page(void)
{
	static int o[512];
	int i;

	ASSERT_TRUE(thp_up());
	for (i = 0; i < 512; i++)
		o[i] = i >= 256	  ? 8
		       : i >= 128 ? 7
		       : i >= 112 ? 4
		       : i >= 104 ? 3
		       : i >= 100 ? 0
		       : i >= 96  ? 2
		       : i >= 64  ? 5
				  : 6;
	ASSERT_EQ(split_range(0, 1, 0, 100), 0);
	ASSERT_TRUE(orders_are(0, 512, o));
	ASSERT_EQ(mthp(2048, "split"), 1);
	ASSERT_EQ(mthp(1024, "nr_anon"), 1);
	ASSERT_EQ(mthp(512, "nr_anon"), 1);
	ASSERT_EQ(mthp(256, "nr_anon"), 1);
	ASSERT_EQ(mthp(128, "nr_anon"), 1);
	ASSERT_EQ(mthp(64, "nr_anon"), 1);
	ASSERT_EQ(mthp(32, "nr_anon"), 1);
	ASSERT_EQ(mthp(16, "nr_anon"), 1);
	ASSERT_TRUE(check(0, 512, 512));
	return mm_down_with_mm();
}

/*
 * 64K folios mapped by PTEs, split to order 0 and to order 2. The unmap
 * takes one PTE at a time, so each folio is partially mapped on the way:
 * 6.18 counts split_deferred for each (our hosts' MADV_PAGEOUT run shows
 * split == split_deferred too), thp_deferred_split_page for none (not
 * PMD-sized), and the split takes it off the queue again.
 */
static bool mthp_case(int new_order)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 512));
	ASSERT_TRUE(all_orders(512, 4));
	ASSERT_EQ(mthp(64, "nr_anon"), 32);
	lru_add_drain(); /* the folios leave the per-CPU batch (pages31 keeps 64K out anyway) */
	ASSERT_EQ(split_range(0, 512, new_order, -1), 0);
	ASSERT_TRUE(all_orders(512, new_order));
	ASSERT_EQ(mthp(64, "split"), 32);
	ASSERT_EQ(mthp(64, "split_failed"), 0);
	ASSERT_EQ(mthp(64, "split_deferred"), 32);
	ASSERT_EQ(counter("thp_deferred_split_page"), 0);
	ASSERT_EQ(counter("thp_split_page"), 0);
	ASSERT_EQ(mthp(64, "nr_anon_partially_mapped"), 0);
	ASSERT_EQ(mthp(64, "nr_anon"), 0);
	ASSERT_EQ(mthp(16, "nr_anon"), new_order == 2 ? 128 : 0);
	ASSERT_EQ(deferred_split_count(0, NULL), 0ul);
	ASSERT_TRUE(check(0, 512, 512));
	return mm_down_with_mm();
}

static bool test_mthp_to_order0_and_2(void)
{
	return mthp_case(0) && mthp_case(2);
}

/*
 * A 64K folio that two VMAs map (NOHUGEPAGE over its second half splits
 * the VMA): the rmap walk finds it through the one anon_vma in both, so
 * the split unmaps and remaps all 16 pages.
 */
static bool test_folio_in_two_vmas(void)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 16));
	ASSERT_EQ(mapped_order(mm, a), 4);
	ASSERT_EQ(do_madvise(mm, a + 8 * PAGE_SIZE, SZ_2M - 8 * PAGE_SIZE, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 2);
	ASSERT_EQ(split_range(0, 16, 0, -1), 0);
	ASSERT_TRUE(all_orders(16, 0));
	ASSERT_EQ(mthp(64, "split"), 1);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 16);
	ASSERT_TRUE(check(0, 16, 16));
	return mm_down_with_mm();
}

/* Lock @folio with a reference, split it, and give both back (the piece at its head). */
static int split_direct(struct folio *folio, unsigned int order, struct page *at, bool uniform)
{
	int ret;

	folio_get(folio);
	folio_lock(folio);
	ret = uniform ? split_huge_page_to_list_to_order(at, NULL, order)
		      : folio_split(folio, order, at, NULL);
	folio_unlock(page_folio(uniform ? at : (struct page *)folio));
	folio_put(page_folio(uniform ? at : (struct page *)folio));
	return ret;
}

/*
 * The early returns, in 6.18's order: a split point outside the folio, an
 * order not below the folio's, an anon split to order 1 (non-uniform or
 * not), writeback: -EINVAL, -EINVAL, -EINVAL, -EBUSY, none counted. Then
 * the counted ones: an extra reference (-EAGAIN) and an anon folio no
 * longer mapped, so without an anon_vma to lock (-EBUSY).
 */
static bool test_early_returns(void)
{
	struct folio *f, *other;
	int64_t failed;

	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 32));
	lru_add_drain();
	f = mapped_folio(mm, a);
	other = mapped_folio(mm, a + 16 * PAGE_SIZE);
	ASSERT_EQ(folio_order(f), 4u);
	ASSERT_TRUE(f != other);
	ASSERT_EQ(split_direct(f, 0, (struct page *)other, false), -EINVAL);
	ASSERT_EQ(split_direct(f, 4, (struct page *)f, true), -EINVAL);
	ASSERT_EQ(split_direct(f, 5, (struct page *)f, true), -EINVAL);
	ASSERT_EQ(split_direct(f, 1, (struct page *)f, true), -EINVAL);
	ASSERT_EQ(split_direct(f, 1, folio_page(f, 3), false), -EINVAL);
	folio_set_writeback(f);
	ASSERT_EQ(split_direct(f, 0, (struct page *)f, true), -EBUSY);
	folio_clear_writeback(f);
	ASSERT_EQ(mthp(64, "split_failed"), 0);
	ASSERT_EQ(mthp(64, "split"), 0);
	/* an extra reference: counted, and the folio stays whole and mapped */
	folio_get(f);
	ASSERT_EQ(split_direct(f, 0, (struct page *)f, true), -EAGAIN);
	folio_put(f);
	ASSERT_EQ(mthp(64, "split_failed"), 1);
	ASSERT_EQ(mapped_order(mm, a), 4);
	ASSERT_TRUE(check(0, 32, 32));
	/* unmapped while we hold it: no anon_vma to lock */
	folio_get(other);
	ASSERT_EQ(do_madvise(mm, a + 16 * PAGE_SIZE, 16 * PAGE_SIZE, MADV_DONTNEED), 0);
	failed = mthp(64, "split_failed");
	ASSERT_EQ(split_direct(other, 0, (struct page *)other, true), -EBUSY);
	ASSERT_EQ(mthp(64, "split_failed"), failed + 1);
	folio_put(other);
	return mm_down_with_mm();
}

/* A PMD-sized failure counts thp_split_page_failed as well. */
static bool test_pmd_failure_counted(void)
{
	struct pgtable *pmdt;
	struct folio *f;

	ASSERT_TRUE(thp_up());
	pmdt = walk_pmd_table(mm, a);
	f = pfn_folio(pte_pfn(entry_load(&pmdt->e[pmd_index(a)])));
	folio_get(f);
	ASSERT_EQ(split_direct(f, 0, (struct page *)f, true), -EAGAIN);
	folio_put(f);
	ASSERT_EQ(counter("thp_split_page_failed"), 1);
	ASSERT_EQ(mthp(2048, "split_failed"), 1);
	ASSERT_TRUE(pmd_trans_huge(fl__pmd_entry(mm, a))); /* remapped as it was */
	ASSERT_TRUE(check(0, 512, 512));
	return mm_down_with_mm();
}

/*
 * The deferred split queue: DONTNEED of the first 4 KiB of each of 32
 * 64K folios makes them partially mapped (split_deferred 32, the gauge 32,
 * the queue 32). A scan of 10 splits 10; the rest splits the other 22 and
 * returns 22; an empty queue answers SHRINK_STOP. Each split frees the
 * unmapped page: 32 pages in all.
 */
static bool test_deferred_split_queue(void)
{
	unsigned long i;
	long before;

	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 512));
	lru_add_drain();
	for (i = 0; i < 32; i++)
		ASSERT_EQ(do_madvise(mm, a + i * 16 * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED), 0);
	ASSERT_EQ(mthp(64, "split_deferred"), 32);
	ASSERT_EQ(mthp(64, "nr_anon_partially_mapped"), 32);
	ASSERT_EQ(deferred_split_count(0, NULL), 32ul);
	drain_all_pages(NULL);
	before = (long)fl__nr_free_pages();
	ASSERT_EQ(deferred_split_scan(0, NULL, 10), 10ul);
	ASSERT_EQ(deferred_split_count(0, NULL), 22ul);
	ASSERT_EQ(deferred_split_scan(0, NULL, 100), 22ul);
	ASSERT_EQ(deferred_split_count(0, NULL), 0ul);
	ASSERT_EQ(deferred_split_scan(0, NULL, 100), SHRINK_STOP);
	ASSERT_EQ(mthp(64, "split"), 32);
	ASSERT_EQ(mthp(64, "nr_anon_partially_mapped"), 0);
	ASSERT_EQ(mthp(64, "nr_anon"), 0);
	lru_add_drain();
	drain_all_pages(NULL);
	ASSERT_EQ((long)fl__nr_free_pages(), before + 32);
	for (i = 0; i < 32; i++) {
		ASSERT_EQ(mapped_folio(mm, a + i * 16 * PAGE_SIZE) == NULL, true);
		ASSERT_TRUE(check(i * 16 + 1, 15, 512));
	}
	return mm_down_with_mm();
}

/*
 * Underused THPs: a PMD fault queues the THP (shrink_underused). With
 * 100 pages written, 412 are zero: over max_ptes_none 409, so the scan
 * splits it (thp_underused_split_page 1) and the zero pages go to the
 * zero page. At 412 the THP is not underused: it leaves the queue whole.
 * At the default 511 the check is off.
 */
static bool underused_case(const char *max_ptes_none, bool splits)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "khugepaged/max_ptes_none", max_ptes_none));
	ASSERT_TRUE(fill(0, 100));
	ASSERT_EQ(deferred_split_count(0, NULL), 1ul);
	ASSERT_EQ(deferred_split_scan(0, NULL, 128), splits ? 1ul : SHRINK_STOP);
	ASSERT_EQ(deferred_split_count(0, NULL), 0ul);
	ASSERT_EQ(counter("thp_underused_split_page"), splits ? 1 : 0);
	ASSERT_EQ(counter("thp_split_page"), splits ? 1 : 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), splits ? 100 : 512);
	ASSERT_EQ(pmd_trans_huge(fl__pmd_entry(mm, a)), !splits);
	ASSERT_TRUE(check(0, 512, 100));
	return mm_down_with_mm();
}

static bool test_underused_thp(void)
{
	return underused_case("409", true) && underused_case("412", false) &&
	       underused_case("511", false);
}

/*
 * Seed 000 3/4: under pages31 a fresh 16K folio sits in the CPU's
 * lru_add batch, one reference more than its mappings. Without the drain
 * the split fails with -EAGAIN (split_failed); with it, the batch is
 * drained first and the split succeeds. The pid form's precheck skips
 * such a folio silently unless the drain ran before the walk.
 */
static bool drain_case(const char *drain)
{
	bool on = !strcmp(drain, "on");
	struct folio *f;

	ASSERT_TRUE(up(SZ_2M));
	ASSERT_TRUE(knob("foliolab/lru_cache", "pages31"));
	ASSERT_TRUE(knob("foliolab/split_drain", drain));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 4));
	f = mapped_folio(mm, a);
	ASSERT_EQ(folio_order(f), 2u);
	ASSERT_EQ(folio_ref_count(f), 5); /* 4 PTEs + the batch */
	ASSERT_EQ(split_direct(f, 0, (struct page *)f, true), on ? 0 : -EAGAIN);
	ASSERT_EQ(mthp(16, on ? "split" : "split_failed"), 1);
	/* the pid form: a second 16K folio, still in the batch */
	ASSERT_TRUE(fill(4, 4));
	ASSERT_EQ(split_range(4, 4, 0, -1), 0);
	ASSERT_EQ(mapped_order(mm, a + 4 * PAGE_SIZE), on ? 0 : 2);
	ASSERT_EQ(mthp(16, "split"), on ? 2 : 0);
	ASSERT_EQ(mthp(16, "split_failed"), on ? 0 : 1);
	ASSERT_TRUE(check(0, 8, 8));
	return mm_down_with_mm();
}

static bool test_split_drain(void)
{
	return drain_case("off") && drain_case("on");
}

/*
 * The pid form's errors: no such process, malformed input. A new order no
 * folio is larger than is no error in 6.18 (it is read into an unsigned
 * int and every folio is skipped): 0, nothing split.
 */
static bool test_pid_form_errors(void)
{
	ASSERT_TRUE(up(SZ_2M));
	ASSERT_EQ(fl__split_huge_pages_write("4242,0x0,0x1000"), -ESRCH);
	ASSERT_EQ(fl__split_huge_pages_write("1,0x0"), -EINVAL);
	ASSERT_EQ(fl__split_huge_pages_write("1,0x0,0x1000,11"), 0);
	ASSERT_EQ(counter("thp_split_page"), 0);
	ASSERT_EQ(fl__split_huge_pages_write("x"), -EINVAL);
	return mm_down_with_mm();
}

/* "1" splits every large folio on an LRU to order 0. */
static bool test_split_all(void)
{
	ASSERT_TRUE(up(2 * SZ_2M));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(fill(0, 512));
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_NOHUGEPAGE), 0);
	ASSERT_TRUE(knob(THP "enabled", "never"));
	ASSERT_TRUE(fill(512, 512));
	lru_add_drain();
	ASSERT_EQ(fl__split_huge_pages_write("1"), 0);
	ASSERT_TRUE(all_orders(512, 0));
	ASSERT_EQ(mthp(2048, "split"), 1);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_TRUE(check(0, 1024, 1024));
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_pmd_thp_to_order0), TEST(test_zero_filled_pieces_go),
	  TEST(test_pmd_thp_to_order4), TEST(test_non_uniform_at_page),
	  TEST(test_mthp_to_order0_and_2), TEST(test_folio_in_two_vmas), TEST(test_early_returns),
	  TEST(test_pmd_failure_counted), TEST(test_deferred_split_queue), TEST(test_underused_thp),
	  TEST(test_split_drain), TEST(test_pid_form_errors), TEST(test_split_all))
