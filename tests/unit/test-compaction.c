// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-compaction.c - compaction makes the high-order blocks that
 * fragmented memory lacks, by 6.18's rules: the slow path compacts for a
 * THP that may reclaim, not for one that may not; folios move with their
 * contents; a pinned folio stays where it is; a sync compaction that
 * failed defers the next tries at that order; compact_memory compacts the
 * whole zone.
 *
 * Conventions in this file: each case boots a 16 MiB machine (4096 pages,
 * four max-order blocks) and fragments it with fragment(): 3850 pages of
 * anon written (the movable blocks full, and most of the page tables' one:
 * a movable allocation steals from it once the movable lists are empty),
 * every other page then zapped, so about 1900 pages are free
 * in order-0 pieces between anon pages on the LRU.
 */
#include <sys/mman.h>
#include "mm_harness.h"
#include "mm/migrate.h"

#define FILL 3850ul
#define TAG (0x35ull << 40)

static struct zone *zone0(void)
{
	return &NODE_DATA(0)->node_zones[0];
}

/* no free block of @order or more */
static bool no_free_block(unsigned int order)
{
	unsigned int o;

	for (o = order; o < NR_PAGE_ORDERS; o++)
		if (zone0()->free_area[o].nr_free)
			return false;
	return READ_ONCE(zone0()->frontier_pfn) == zone0()->zone_start_pfn + zone0()->spanned_pages;
}

static unsigned long keep_every = 2; /* fragment() keeps every this-many-th page */
static bool no_boost;		     /* fragment() sets vm/watermark_boost_factor to 0 */

static unsigned long fragment(void)
{
	unsigned long a, i;

	if (!mm_up_with_mm(16) || (no_boost && !knob("vm/watermark_boost_factor", "0")))
		return 0;
	a = map(FILL * PAGE_SIZE);
	if (!a || !write_tags(a, FILL, TAG))
		return 0;
	for (i = 0; i < FILL; i++)
		if (i % keep_every && do_madvise(mm, a + i * PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED))
			return 0;
	lru_add_drain();
	drain_all_pages(NULL);
	return a;
}

/* the pages fragment() kept read back their tags; the zapped ones read 0 */
static unsigned long wrong_after_fragment(unsigned long a)
{
	unsigned long i, wrong = 0;

	for (i = 0; i < FILL; i++)
		wrong += peek(mm, a + i * PAGE_SIZE) != (i % keep_every ? 0 : TAG + i);
	return wrong;
}

/*
 * A THP allocation that may reclaim (GFP_TRANSHUGE: defrag "always" or a
 * madvised VMA under "madvise") finds no free order-9 block, compacts
 * (a stall), and gets its block (a success): folios moved, their contents
 * with them.
 */
static bool test_direct_compaction_makes_a_thp(void)
{
	unsigned long a = fragment();
	struct page *p;

	ASSERT_NE(a, 0ul);
	ASSERT_TRUE(no_free_block(HPAGE_PMD_ORDER));
	p = alloc_pages(GFP_TRANSHUGE | __GFP_COMP, HPAGE_PMD_ORDER);
	ASSERT_TRUE(p != NULL);
	ASSERT_GE(counter("compact_stall"), 1);
	ASSERT_GE(counter("compact_success"), 1);
	ASSERT_GT(counter("compact_isolated"), 0);
	ASSERT_GT(counter("compact_migrate_scanned"), 0);
	ASSERT_GT(counter("compact_free_scanned"), 0);
	ASSERT_GT(counter("pgmigrate_success"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	ASSERT_EQ(wrong_after_fragment(a), 0);
	__free_pages(p, HPAGE_PMD_ORDER);
	return mm_down_with_mm();
}

/* One that may not reclaim (GFP_TRANSHUGE_LIGHT: defrag "never") does not compact. */
static bool test_no_compaction_without_direct_reclaim(void)
{
	unsigned long a = fragment();

	ASSERT_NE(a, 0ul);
	ASSERT_TRUE(alloc_pages(GFP_TRANSHUGE_LIGHT | __GFP_COMP, HPAGE_PMD_ORDER) == NULL);
	ASSERT_EQ(counter("compact_stall"), 0);
	ASSERT_EQ(counter("compact_migrate_scanned"), 0);
	ASSERT_EQ(counter("pgmigrate_success"), 0);
	ASSERT_EQ(wrong_after_fragment(a), 0);
	return mm_down_with_mm();
}

/*
 * Every kept folio pinned (a reference more than its mappings: 6.18's
 * isolate_migratepages_block() leaves such anon folios alone): compaction
 * moves nothing, the THP fails, and that sync compaction's failure defers
 * the next one: the second allocation compacts nothing (no page scanned)
 * yet counts a stall, as 6.18's COMPACT_DEFERRED does.
 */
static bool test_pinned_folios_stay_and_defer(void)
{
	unsigned long a = fragment(), i;
	int64_t scanned;

	ASSERT_NE(a, 0ul);
	for (i = 0; i < FILL; i += 2)
		folio_get(mapped_folio(mm, a + i * PAGE_SIZE));
	ASSERT_TRUE(alloc_pages(GFP_TRANSHUGE | __GFP_COMP, HPAGE_PMD_ORDER) == NULL);
	ASSERT_EQ(counter("pgmigrate_success"), 0);
	ASSERT_GE(counter("compact_fail"), 1);
	ASSERT_EQ(counter("compact_success"), 0);
	ASSERT_GE(zone0()->compact_defer_shift, 1u);
	scanned = counter("compact_migrate_scanned");
	ASSERT_TRUE(alloc_pages(GFP_TRANSHUGE | __GFP_COMP, HPAGE_PMD_ORDER) == NULL);
	ASSERT_EQ(counter("compact_migrate_scanned"), scanned);
	for (i = 0; i < FILL; i += 2)
		folio_put(mapped_folio(mm, a + i * PAGE_SIZE));
	ASSERT_EQ(wrong_after_fragment(a), 0);
	return mm_down_with_mm();
}

/*
 * compact_memory compacts the zone whole: with every fourth page kept
 * (about 960 pages in use, 2900 free), the migrate scanner empties the
 * blocks below the point where it meets the free scanner, which fills the
 * blocks above: free order-9 blocks appear where there were none, and the
 * folios keep their contents. (With every other page kept, the two halves
 * hold about as much, and the meeting point leaves no block empty.)
 */
static bool test_compact_memory(void)
{
	unsigned long a;

	keep_every = 4;
	a = fragment();

	ASSERT_NE(a, 0ul);
	ASSERT_TRUE(no_free_block(HPAGE_PMD_ORDER));
	fl__compact_memory();
	/* the sources' frames sit on the pcp lists (up to high, 512 here) until drained */
	drain_all_pages(NULL);
	ASSERT_TRUE(!no_free_block(HPAGE_PMD_ORDER));
	ASSERT_GT(counter("pgmigrate_success"), 0);
	ASSERT_EQ(counter("compact_stall"), 0);
	ASSERT_EQ(wrong_after_fragment(a), 0);
	keep_every = 2;
	return mm_down_with_mm();
}

/*
 * kcompactd, asked for an order-9 block (by kswapd going to sleep, or by
 * an allocation that may not reclaim on a balanced node), compacts
 * sync-light toward it on kswapd's thread: compact_daemon_wake, its own
 * scan counters, and the block. Asked again once the block is free, it
 * has nothing to do (compaction_suit_allocation_order() says success).
 */
static bool test_kcompactd(void)
{
	struct pglist_data *pgdat;
	unsigned long a;

	/* a kswapd CPU, its thread not started: no boost it would never take back */
	mm_kswapd = true;
	no_boost = true;
	a = fragment();
	no_boost = false;
	mm_kswapd = false;
	ASSERT_NE(a, 0ul);
	pgdat = NODE_DATA(0);
	ASSERT_TRUE(no_free_block(HPAGE_PMD_ORDER));
	wakeup_kcompactd(pgdat, HPAGE_PMD_ORDER);
	ASSERT_EQ(pgdat->kcompactd_max_order, HPAGE_PMD_ORDER);
	kcompactd_run(pgdat, 0);
	ASSERT_EQ(pgdat->kcompactd_max_order, 0);
	ASSERT_EQ(counter("compact_daemon_wake"), 1);
	ASSERT_GT(counter("compact_daemon_migrate_scanned"), 0);
	ASSERT_EQ(counter("compact_daemon_migrate_scanned"), counter("compact_migrate_scanned"));
	ASSERT_EQ(counter("compact_stall"), 0);
	drain_all_pages(NULL);
	ASSERT_TRUE(!no_free_block(HPAGE_PMD_ORDER));
	wakeup_kcompactd(pgdat, HPAGE_PMD_ORDER);
	kcompactd_run(pgdat, 0);
	ASSERT_EQ(counter("compact_daemon_wake"), 1);
	ASSERT_EQ(wrong_after_fragment(a), 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_direct_compaction_makes_a_thp), TEST(test_no_compaction_without_direct_reclaim),
	  TEST(test_pinned_folios_stay_and_defer), TEST(test_compact_memory), TEST(test_kcompactd))
