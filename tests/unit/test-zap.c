// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-zap.c - zapping gives every frame back: MADV_DONTNEED and munmap of
 * base pages, mTHP and PMD folios; partial unmaps keep a large folio
 * allocated and mark it partially mapped; the mmu_gather allocates its
 * batch pages and force-flushes exactly as its constants say; freeing
 * goes through folios_put_refs() in batches of 31; empty PTE tables are
 * reclaimed after MADV_DONTNEED and every table goes with munmap.
 *
 * Conventions in this file: expected counts are simulated from the
 * gather's constants, never copied from a run.
 */
#include "mm_harness.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"

static bool up(void)
{
	return mm_up_with_mm(512);
}

static bool down(void)
{
	return mm_down_with_mm();
}

static long free_now(void)
{
	lru_add_drain_all();
	drain_all_pages(NULL);
	return (long)fl__nr_free_pages();
}

static bool fill(unsigned long a, unsigned long len)
{
	unsigned long off;

	for (off = 0; off < len; off += PAGE_SIZE)
		if (touch(mm, a + off, a + off))
			return false;
	return true;
}

/* The gather's rule: entries per item, a new batch when nr >= max - 1. */
struct gather_sim {
	int batches;   /* batch pages allocated */
	int forced;    /* flushes forced by running out of batches */
	int put_calls; /* folios_put_refs() calls at flush time */
};

static void sim_flush(int *nr, int nbatches_used, struct gather_sim *g)
{
	int b;

	for (b = 0; b < nbatches_used; b++) {
		int left = nr[b];

		while (left) {
			int chunk = left < MAX_NR_FOLIOS_PER_FREE ? left : MAX_NR_FOLIOS_PER_FREE;

			g->put_calls += DIV_ROUND_UP(chunk, FOLIO_BATCH_SIZE);
			left -= chunk;
		}
		nr[b] = 0;
	}
}

static struct gather_sim simulate(int items)
{
	struct gather_sim g = { 0, 0, 0 };
	int nr[1 + MAX_GATHER_BATCH_COUNT] = { 0 }, max[1 + MAX_GATHER_BATCH_COUNT];
	int active = 0, allocated = 0, i;

	max[0] = MMU_GATHER_BUNDLE;
	for (i = 1; i <= (int)MAX_GATHER_BATCH_COUNT; i++)
		max[i] = (int)MAX_GATHER_BATCH;
	for (i = 0; i < items; i++) {
		nr[active]++;
		if (nr[active] >= max[active] - 1) {
			if (active < allocated) {
				active++;
			} else if (allocated < (int)MAX_GATHER_BATCH_COUNT) {
				allocated++;
				active++;
			} else {
				g.forced++;
				sim_flush(nr, active + 1, &g);
				active = 0;
			}
		}
	}
	sim_flush(nr, active + 1, &g);
	g.batches = allocated;
	return g;
}

static bool test_dontneed_frees_every_frame(void)
{
	static const char *const sizes[] = { NULL, "16kB", "64kB", "2048kB" };
	unsigned long a, len = 8 * SZ_2M;
	long base;
	int s;

	ASSERT_TRUE(up());
	for (s = 0; s < 4; s++) {
		if (sizes[s]) {
			char k[96];

			snprintf(k, sizeof(k), THP "hugepages-%s/enabled", sizes[s]);
			ASSERT_TRUE(knob(k, "always"));
		}
		a = map(len);
		base = free_now();
		ASSERT_TRUE(fill(a, len));
		ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), a + 5 * PAGE_SIZE);
		ASSERT_LT(free_now(), base - (long)(len / PAGE_SIZE));
		ASSERT_EQ(do_madvise(mm, a, len, MADV_DONTNEED), 0);
		/* only the PUD and PMD tables stay until munmap */
		ASSERT_EQ(free_now(), base - 2);
		ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 0);
		ASSERT_EQ(counter("nr_anon_pages"), 0);
		ASSERT_EQ(do_munmap(mm, a, len), 0);
		ASSERT_EQ(free_now(), base);
	}
	return down();
}

/*
 * Unmap 4 pages of a 16-page folio. nr_anon_pages: with per-page
 * mapcounts (CONFIG_PAGE_MAPCOUNT, @page_mapcount) the 4 pages stop
 * counting; without, the folio counts whole until its last mapping goes.
 */
static bool partial_unmap(bool page_mapcount)
{
	struct folio *f;
	unsigned long a;
	long base;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob("foliolab/page_mapcount", page_mapcount ? "on" : "off"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(fill(a, 65536));
	f = mapped_folio(mm, a);
	ASSERT_EQ(folio_order(f), 4);
	base = free_now();
	ASSERT_EQ(do_madvise(mm, a + 16384, 16384, MADV_DONTNEED), 0);
	ASSERT_EQ(free_now(), base); /* 12 of 16 pages still mapped */
	ASSERT_EQ(folio_large_mapcount(f), 12);
	ASSERT_EQ(folio_ref_count(f), 12);
	ASSERT_EQ(mthp(64, "split_deferred"), 1);
	ASSERT_EQ(mthp(64, "nr_anon_partially_mapped"), 1);
	ASSERT_EQ(mthp(64, "nr_anon"), 1);
	ASSERT_EQ(counter("nr_anon_pages"), page_mapcount ? 12 : 16);
	if (page_mapcount)
		ASSERT_EQ(f->_nr_pages_mapped, 12);
	ASSERT_EQ(peek(mm, a + 32768), a + 32768); /* the rest keeps its data */
	ASSERT_EQ(do_madvise(mm, a, 65536, MADV_DONTNEED), 0);
	ASSERT_EQ(free_now(), base + 16); /* the PTE table stays: the zap was not 2M */
	ASSERT_EQ(mthp(64, "nr_anon_partially_mapped"), 0);
	ASSERT_EQ(mthp(64, "nr_anon"), 0);
	ASSERT_EQ(mthp(64, "split_deferred"), 1); /* an event count stays */
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	return down();
}

static bool test_partial_unmap_keeps_large_folio(void)
{
	return partial_unmap(true) && partial_unmap(false);
}

/*
 * DONTNEED one page of a PMD-mapped THP: the PMD is split into 512 PTEs
 * (their rmap added, then the PMD's removed: no change in mapped pages),
 * then one PTE goes. Per-page mapcounts: 511 pages count on; without:
 * 512. Either way the folio is partially mapped, and a PMD-sized one
 * counts thp_deferred_split_page.
 */
static bool pmd_partial_unmap(bool page_mapcount)
{
	struct folio *f;
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob("foliolab/page_mapcount", page_mapcount ? "on" : "off"));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(fill(a, SZ_2M));
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 1); /* in THPs, as /proc/vmstat */
	ASSERT_EQ(counter("nr_anon_pages"), 512);
	ASSERT_EQ(do_madvise(mm, a + 4096, 4096, MADV_DONTNEED), 0);
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), page_mapcount ? 511 : 512);
	ASSERT_EQ(counter("thp_deferred_split_page"), 1);
	ASSERT_EQ(mthp(2048, "split_deferred"), 1);
	f = mapped_folio(mm, a);
	ASSERT_EQ(folio_order(f), 9);
	ASSERT_EQ(folio_large_mapcount(f), 511);
	if (page_mapcount)
		ASSERT_EQ(f->_nr_pages_mapped, 511);
	ASSERT_EQ(peek(mm, a + 8192), a + 8192);
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_DONTNEED), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	return down();
}

static bool test_pmd_partial_unmap(void)
{
	return pmd_partial_unmap(true) && pmd_partial_unmap(false);
}

static bool test_gather_batches_and_put_chunks(void)
{
	unsigned long a, len = 16ul << 20;
	struct gather_sim g = simulate((int)(len / PAGE_SIZE));
	int64_t alloc0, rel0;

	ASSERT_TRUE(up());
	a = map(len);
	ASSERT_TRUE(fill(a, len));
	lru_add_drain(); /* every folio on the LRU: each free takes the lruvec */
	alloc0 = counter("pgalloc_normal");
	rel0 = (int64_t)lock_stat("lruvec->lru_lock", "__page_cache_release", false);
	ASSERT_EQ(do_madvise(mm, a, len, MADV_DONTNEED), 0);
	/* and one page for the 8 empty PTE tables it frees (struct mmu_table_batch) */
	ASSERT_EQ(counter("pgalloc_normal") - alloc0, g.batches + 1);
	ASSERT_EQ(g.batches, 9); /* (4096 - 7) / 509, rounded up */
	ASSERT_EQ((int64_t)lock_stat("lruvec->lru_lock", "__page_cache_release", false) - rel0,
		  g.put_calls);
	ASSERT_EQ(counter("fl_tlb_force_flush"), 0);
	ASSERT_EQ(counter("fl_pt_reclaim"), (int64_t)(len / SZ_2M));
	ASSERT_EQ(do_munmap(mm, a, len), 0);
	return down();
}

static bool test_gather_force_flush(void)
{
	unsigned long a, len = 96ul << 20; /* 24576 entries */
	struct gather_sim g = simulate((int)(len / PAGE_SIZE));
	int64_t alloc0;

	ASSERT_TRUE(up());
	a = map(len);
	ASSERT_TRUE(fill(a, len));
	alloc0 = counter("pgalloc_normal");
	ASSERT_EQ(do_madvise(mm, a, len, MADV_DONTNEED), 0);
	ASSERT_EQ(g.forced, (int)(len / PAGE_SIZE) /
				    (MMU_GATHER_BUNDLE - 1 +
				     (int)(MAX_GATHER_BATCH_COUNT * (MAX_GATHER_BATCH - 1))));
	ASSERT_EQ(counter("fl_tlb_force_flush"), g.forced);
	/*
	 * the gather's batch pages, and a page of table pointers for each
	 * flush that frees tables: every one here (each flushes after 19 x
	 * 509 pages, more than a 512-page table), the forced ones and the last
	 */
	ASSERT_EQ(counter("pgalloc_normal") - alloc0,
		  (int64_t)MAX_GATHER_BATCH_COUNT + g.forced + 1);
	/*
	 * A forced flush stops the zap inside a PTE table; the zap goes on in
	 * the same table (the kernel's retry in zap_pte_range()), so that
	 * table too is reclaimed: every 2 MiB table, none skipped.
	 */
	ASSERT_GE(g.forced, 1);
	ASSERT_EQ(counter("fl_pt_reclaim"), (int64_t)(len / SZ_2M));
	ASSERT_EQ(do_munmap(mm, a, len), 0);
	return down();
}

/*
 * PGFREE counts each page once, where it lands: the pcp list
 * (free_frozen_page_commit()) or the buddy lists (free_one_page()). Over
 * a fault, zap and unmap cycle that frees everything it allocated, pgfree
 * equals pgalloc_normal, for pcp orders (0, 2, 9) and others (4) alike.
 */
static bool test_pgfree_counts_each_page_once(void)
{
	static const char *const sizes[] = { NULL, "16kB", "64kB", "2048kB" };
	unsigned long a, len = 8 * SZ_2M;
	int s;

	ASSERT_TRUE(up());
	for (s = 0; s < 4; s++) {
		int64_t alloc0, free0, base;

		if (sizes[s]) {
			char k[96];

			snprintf(k, sizeof(k), THP "hugepages-%s/enabled", sizes[s]);
			ASSERT_TRUE(knob(k, "always"));
		}
		base = free_now();
		alloc0 = counter("pgalloc_normal");
		free0 = counter("pgfree");
		a = map(len);
		ASSERT_TRUE(fill(a, len));
		ASSERT_EQ(do_madvise(mm, a, len, MADV_DONTNEED), 0);
		ASSERT_TRUE(fill(a, len));
		ASSERT_EQ(do_munmap(mm, a, len), 0);
		ASSERT_EQ(free_now(), base); /* everything allocated came back */
		ASSERT_GE(counter("pgalloc_normal") - alloc0, 2 * (int64_t)(len / PAGE_SIZE));
		ASSERT_EQ(counter("pgfree") - free0, counter("pgalloc_normal") - alloc0);
	}
	return down();
}

/*
 * The mmu_gather flushes the TLB only when the zap cleared an entry or
 * freed a table (tlb->start/end and the cleared_* bits): a DONTNEED over
 * a range nothing was ever mapped in flushes nothing; one page does.
 */
static bool test_flush_only_when_something_was_cleared(void)
{
	unsigned long a;
	int64_t f0;

	ASSERT_TRUE(up());
	a = map(4 * SZ_2M);
	f0 = counter("fl_tlb_flush");
	ASSERT_EQ(do_madvise(mm, a, 4 * SZ_2M, MADV_DONTNEED), 0);
	ASSERT_EQ(counter("fl_tlb_flush") - f0, 0);
	ASSERT_EQ(touch(mm, a + SZ_2M, 1), 0);
	ASSERT_EQ(do_madvise(mm, a, 4 * SZ_2M, MADV_DONTNEED), 0);
	ASSERT_EQ(counter("fl_tlb_flush") - f0, 1);
	/* a FREE on clean, old entries has no bit to clear: no flush */
	ASSERT_EQ(touch(mm, a, 2), 0);
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, MADV_FREE), 0);
	ASSERT_EQ(counter("fl_tlb_flush") - f0, 2);
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, MADV_FREE), 0);
	ASSERT_EQ(counter("fl_tlb_flush") - f0, 2);
	ASSERT_EQ(do_munmap(mm, a, 4 * SZ_2M), 0);
	return down();
}

/* A large folio run takes two entries: 16K folios fill batches twice as fast. */
static bool test_large_folio_takes_two_entries(void)
{
	unsigned long a, len = 16ul << 20;
	int64_t alloc0;
	int items = (int)(len / (4 * PAGE_SIZE)), entries = 0, batches = 0, nr = 0, max = 8;
	int i;

	for (i = 0; i < items; i++) { /* two entries per item, same rule */
		nr += 2;
		entries += 2;
		if (nr >= max - 1) {
			batches++;
			nr = 0;
			max = (int)MAX_GATHER_BATCH;
		}
	}
	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	a = map(len);
	ASSERT_TRUE(fill(a, len));
	alloc0 = counter("pgalloc_normal");
	ASSERT_EQ(do_madvise(mm, a, len, MADV_DONTNEED), 0);
	/* and one page for the empty PTE tables it frees (struct mmu_table_batch) */
	ASSERT_EQ(counter("pgalloc_normal") - alloc0, batches + 1);
	ASSERT_EQ(do_munmap(mm, a, len), 0);
	return down();
}

static bool test_munmap_and_exit_free_tables(void)
{
	unsigned long a, b;
	int64_t tables;

	ASSERT_TRUE(up());
	tables = counter("nr_page_table_pages"); /* the PGD */
	a = map(4 * SZ_2M);
	b = map(4 * SZ_2M);
	ASSERT_TRUE(fill(a, 4 * SZ_2M) && fill(b, SZ_2M));
	ASSERT_EQ(counter("nr_page_table_pages"), tables + 2 + 5);
	ASSERT_EQ(do_munmap(mm, a, 4 * SZ_2M), 0);
	/* b still uses the PUD and PMD tables */
	ASSERT_EQ(counter("nr_page_table_pages"), tables + 2 + 1);
	ASSERT_EQ(do_munmap(mm, b, 4 * SZ_2M), 0);
	ASSERT_EQ(counter("nr_page_table_pages"), tables);
	/* exit without munmap frees the rest */
	a = map(4 * SZ_2M);
	ASSERT_TRUE(fill(a, 4 * SZ_2M));
	return down();
}

TEST_MAIN(TEST(test_dontneed_frees_every_frame), TEST(test_partial_unmap_keeps_large_folio),
	  TEST(test_pmd_partial_unmap), TEST(test_gather_batches_and_put_chunks),
	  TEST(test_gather_force_flush), TEST(test_large_folio_takes_two_entries),
	  TEST(test_munmap_and_exit_free_tables), TEST(test_pgfree_counts_each_page_once),
	  TEST(test_flush_only_when_something_was_cleared))
