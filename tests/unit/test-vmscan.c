// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-vmscan.c - reclaim by scanning the LRU (shrink_node() and below),
 * proactive (the root cgroup's memory.reclaim: a node's reclaim file
 * shrinks an anon-only node not at all) and direct. Each expectation
 * follows from the 6.18 rule it names, for memory of known contents; the
 * one exception is where the root's memory.reclaim is counted: the model
 * reclaims it as global reclaim, in /proc/vmstat's pgscan_proactive and
 * pgsteal_proactive, where 6.18 counts it in the root's memory.stat only
 * (docs/kernel-facts.md):
 *
 *   - a scan at priority p looks at (list size >> p) pages, from the
 *     tail, SWAP_CLUSTER_MAX (32) at a time;
 *   - a fault leaves the accessed bit set, so an anon page found young
 *     the first time only gets PG_referenced and rotates (kept); the
 *     second look, with the bit cleared by the first, reclaims it: anon
 *     needs two looks (folio_check_references());
 *   - a page found young again on the second look is activated;
 *   - shrink_active_list() deactivates every anon folio it scans,
 *     referenced or not, and marks it workingset;
 *   - without swap no anon page is scanned at all (get_scan_count()), but
 *     lazy-free pages, on the file list, are, and dropped (pglazyfreed);
 *   - an allocation below the watermarks reclaims directly (allocstall,
 *     pgscan_direct), and the data comes back from swap intact;
 *     without swap it ends in the OOM report.
 *
 * Conventions in this file: one node, one CPU, order-0 anon memory;
 * tags are (case << 16) + page.
 */
#include "mm_harness.h"
#include "../src/mm/fs.h"
#include "../src/mm/swap.h"

static struct lruvec *lruvec0(void)
{
	return &NODE_DATA(0)->__lruvec;
}

static bool up(unsigned long mem_mb, unsigned long swap_mb)
{
	mm_swap_mb = swap_mb;
	return mm_up_with_mm(mem_mb);
}

/*
 * Look at the @pages pages from @a once, under each folio's lock: each is
 * young (1), and the look clears the bit (0 the second time). With
 * @referenced, PG_referenced is set too, as folio_check_references() sets it.
 */
static bool first_look(unsigned long a, unsigned long pages, bool referenced)
{
	unsigned long i, vm_flags;

	for (i = 0; i < pages; i++) {
		struct folio *f = mapped_folio(mm, a + i * PAGE_SIZE);

		folio_lock(f);
		ASSERT_EQ(folio_referenced(f, true, &vm_flags), 1);
		ASSERT_EQ(folio_referenced(f, true, &vm_flags), 0); /* the bit is cleared */
		folio_unlock(f);
		if (referenced)
			folio_set_referenced(f);
	}
	return true;
}

/*
 * 64 freshly faulted pages, the root's memory.reclaim of 64 with
 * swappiness=max (anon only). The first try (a batch of 16: at least
 * SWAP_CLUSTER_MAX, 32, asked) at priorities 6..1 looks at 1, 2, 4, 8, 16
 * and 32 pages from the tail (63 pages, each young: kept with
 * PG_referenced and rotated to the head); priority 0 looks at all 64 in
 * two batches: the one page not looked at yet is young and kept, the 63
 * others are reclaimed. The second try (a batch of 0, 32 asked) finds
 * nothing to scan until priority 0, where the last page, referenced but
 * no longer young, is reclaimed: 64, and the write succeeds.
 */
static bool test_anon_needs_two_looks(void)
{
	uint64_t tag = 1ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 64));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_ANON], 64);
	ASSERT_EQ(mem_cgroup_reclaim(NULL, 64, SWAPPINESS_ANON_ONLY), 0);
	ASSERT_EQ(counter("pgscan_proactive"), 1 + 2 + 4 + 8 + 16 + 32 + 64 + 1);
	ASSERT_EQ(counter("pgscan_anon"), 128);
	ASSERT_EQ(counter("pgsteal_proactive"), 64);
	ASSERT_EQ(counter("pgsteal_anon"), 64);
	ASSERT_EQ(counter("pswpout"), 64);
	ASSERT_EQ(counter("pgscan_direct") + counter("pgscan_kswapd"), 0);
	ASSERT_EQ(counter("allocstall_normal") + counter("allocstall_movable"), 0);
	ASSERT_EQ(counter("pgactivate"), 0);
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_ANON], 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	/* the data comes back from swap */
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(counter("pswpin"), 64);
	return mm_down_with_mm();
}

/*
 * 32 pages looked at once (each kept with PG_referenced), then all used
 * again, then the root's memory.reclaim of 32 at swappiness=max. Try 1 (a
 * batch of 8, 32 asked): priorities 5, 4, 3, 2, 1 look at 32 >> 5 = 1,
 * 31 >> 4 = 1... of the inactive list as it shrinks: 1, 2, 3, 6 and 10
 * pages, each young with PG_referenced: activated. With 10 inactive and
 * 22 active the inactive list is low, so shrink_active_list() deactivates
 * all 22 (their bits were cleared by the look that activated them;
 * PG_referenced was cleared too). Priority 0 looks at all 32 inactive: the
 * 10 never looked at are activated, the 22 reclaimed; the 10 then go back
 * the same way (pgrefill, pgdeactivate), keeping PG_referenced. Try 2 (a
 * batch of 2, 32 asked) goes down to priority 0 and reclaims all 10, no
 * longer young: the write succeeds, nothing is left.
 */
static bool test_referenced_twice_activates(void)
{
	uint64_t tag = 2ull << 16;
	unsigned long a, i, vm_flags;

	ASSERT_TRUE(up(64, 64));
	a = map(32 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 32, tag));
	lru_add_drain();
	/* the first look, as folio_check_references() takes it: young, so referenced */
	ASSERT_TRUE(first_look(a, 32, true));
	ASSERT_TRUE(write_tags(a, 32, tag)); /* used again: the accessed bits are set */
	ASSERT_EQ(mem_cgroup_reclaim(NULL, 32, SWAPPINESS_ANON_ONLY), 0);
	ASSERT_EQ(counter("pgactivate"), 1 + 2 + 3 + 6 + 10 + 10);
	ASSERT_EQ(counter("pgrefill"), 22 + 10);
	ASSERT_EQ(counter("pgdeactivate"), 22 + 10);
	ASSERT_EQ(counter("pgsteal_proactive"), 22 + 10);
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_ANON], 0);
	ASSERT_EQ(lruvec0()->nr_pages[LRU_ACTIVE_ANON], 0);
	for (i = 0, vm_flags = 0; i < 32; i++)
		vm_flags += mapped_folio(mm, a + i * PAGE_SIZE) != NULL;
	ASSERT_EQ(vm_flags, 0);
	ASSERT_EQ(wrong_tags(a, 32, tag), 0);
	return mm_down_with_mm();
}

/* Without swap, reclaim scans no anon page: nothing can go. */
static bool test_no_swap_no_anon_scan(void)
{
	uint64_t tag = 3ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 0));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(mem_cgroup_reclaim(NULL, 64, -1), -EAGAIN);
	ASSERT_EQ(counter("pgscan_proactive"), 0);
	ASSERT_EQ(counter("pgscan_anon"), 0);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	return mm_down_with_mm();
}

/*
 * A 16 MiB machine, 32 MiB of swap, 24 MiB of anon written twice:
 * allocation below the low watermark reclaims directly (allocstall,
 * pgscan_direct, pgsteal_direct = what was swapped out), and every page
 * reads back its tag. Free memory never goes below min for long: only
 * reclaim's own allocations may.
 */
static bool test_direct_reclaim(void)
{
	uint64_t tag = 4ull << 16;
	unsigned long pages = (24ul << 20) / PAGE_SIZE, a;

	ASSERT_TRUE(up(16, 32));
	a = map(pages * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, pages, tag));
	ASSERT_EQ(wrong_tags(a, pages, tag), 0);
	ASSERT_GT(counter("allocstall_movable"), 0);
	ASSERT_GT(counter("pgscan_direct"), 0);
	ASSERT_GT(counter("pgsteal_direct"), 0);
	ASSERT_EQ(counter("pgsteal_direct"), counter("pswpout") + counter("swpout_zero"));
	ASSERT_EQ(counter("pgscan_proactive") + counter("pgscan_kswapd"), 0);
	ASSERT_EQ(counter("oom_kill"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	return mm_down_with_mm();
}

/* Without swap the same machine runs out: the fault fails and the report says why. */
static bool test_oom_without_swap(void)
{
	unsigned long pages = (24ul << 20) / PAGE_SIZE, a, i;
	char report[512];
	int ret = 0;

	ASSERT_TRUE(up(16, 0));
	a = map(pages * PAGE_SIZE);
	ASSERT_TRUE(a != 0);
	for (i = 0; i < pages && !ret; i++)
		ret = touch(mm, a + i * PAGE_SIZE, i + 1);
	ASSERT_EQ(ret, -ENOMEM);
	ASSERT_EQ(counter("oom_kill"), 1);
	ASSERT_EQ(fl__oom_report(report, sizeof(report)), 1);
	ASSERT_TRUE(strstr(report, "out of memory: an order-0") != NULL);
	ASSERT_TRUE(strstr(report, "swap free 0 pages") != NULL);
	ASSERT_EQ(counter("pgscan_direct"), 0);
	return mm_down_with_mm();
}

/*
 * Lazy-free pages go to the inactive file list (MADV_FREE cleared their
 * accessed and dirty bits), so reclaim finds them without swap and drops
 * them on the first look (pglazyfreed). 64 such pages, the root's
 * memory.reclaim of 64 at the default swappiness: no swap, so file only.
 * Each try asks for at least 32 and goes down to priority 0 unless it has
 * them, where it looks at the whole list: every page is dropped, the
 * write succeeds.
 */
static bool test_lazyfree_dropped_by_the_scan(void)
{
	uint64_t tag = 5ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 0));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_FILE], 64);
	ASSERT_EQ(mem_cgroup_reclaim(NULL, 64, -1), 0);
	ASSERT_EQ(counter("pglazyfreed"), 64);
	ASSERT_EQ(counter("pgscan_file"), 64);
	ASSERT_EQ(counter("pgsteal_file"), 64);
	ASSERT_EQ(counter("pgscan_proactive"), 64);
	ASSERT_EQ(counter("pgscan_anon"), 0);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_FILE], 0);
	/* the dropped pages read zero now, the kept ones their tags */
	{
		unsigned long i, zero = 0, kept = 0;

		for (i = 0; i < 64; i++) {
			uint64_t got = peek(mm, a + i * PAGE_SIZE);

			zero += got == 0;
			kept += got == tag + i;
		}
		ASSERT_EQ(zero, 64);
		ASSERT_EQ(kept, 0);
	}
	return mm_down_with_mm();
}

/*
 * An exiting mm's memory is kept, not swapped (6.18's folio_referenced_one():
 * an unshared swap-backed folio of an mm with mm_users 0 answers -1, and
 * folio_check_references() keeps it): 64 pages written, their accessed
 * bits cleared, the mm's users at 0 as between mmput()'s last drop and
 * exit_mmap(); the root's memory.reclaim looks at every one (at least 64
 * scanned) and takes none: pgsteal and pswpout 0, nothing activated, all
 * 64 still inactive. With the user back, the same reclaim swaps them out (all but
 * the few its last tries of 0 pages leave, as in test_anon_needs_two_looks).
 */
static bool test_exiting_mm_kept(void)
{
	uint64_t tag = 6ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 64));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_TRUE(first_look(a, 64, false)); /* the accessed bits go */
	fl_atomic_store(&mm->mm_users, 0, __ATOMIC_RELEASE);
	ASSERT_EQ(mem_cgroup_reclaim(NULL, 64, SWAPPINESS_ANON_ONLY), -EAGAIN);
	fl_atomic_store(&mm->mm_users, 1, __ATOMIC_RELEASE);
	ASSERT_GE(counter("pgscan_anon"), 64); /* looked at, every one, and kept */
	ASSERT_EQ(counter("pgsteal_anon") + counter("pswpout") + counter("pgactivate"), 0);
	ASSERT_EQ(lruvec0()->nr_pages[LRU_INACTIVE_ANON], 64);
	(void)mem_cgroup_reclaim(NULL, 64, SWAPPINESS_ANON_ONLY);
	ASSERT_GT(counter("pswpout"), 0);
	ASSERT_EQ(counter("pgsteal_anon"), counter("pswpout"));
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	return mm_down_with_mm();
}

/*
 * Reclaim's frees go to the reclaiming CPU's pcp lists, which the
 * watermarks do not count. 6.18's __alloc_pages_direct_reclaim() drains
 * every CPU's lists after each reclaim try whose freelist retry failed, so
 * each try's frees reach the buddy before the next. 12 MiB of lazy-free
 * anon in a 16 MiB machine without swap (reclaim frees it with no
 * allocation of its own), the buddy taken down to 16 free pages (min is
 * 128) by __GFP_MEMALLOC allocations: one GFP_KERNEL page then needs
 * free > 128, at least 113 pages, and each try reclaims SWAP_CLUSTER_MAX
 * (32) or more, so at most 4 tries (allocstall_normal, once each: every
 * try frees something). Draining once per slow path instead leaves the
 * later tries' frees on the lists until pcp->high (512) is reached.
 */
static bool test_direct_reclaim_drains_each_try(void)
{
	uint64_t tag = 6ull << 16;
	unsigned long pages = (12ul << 20) / PAGE_SIZE, a, n = 0, i;
	static struct page *held[4096];
	struct zone *z;
	uint64_t drains;
	struct page *p;

	ASSERT_TRUE(up(16, 0));
	z = &NODE_DATA(0)->node_zones[0];
	ASSERT_EQ(min_wmark_pages(z), 128);
	a = map(pages * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, pages, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, pages * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	while (z->free_pages > 16 && (p = alloc_pages(__GFP_MEMALLOC, 0)) != NULL) {
		held[n++] = p;
		drain_all_pages(NULL);
	}
	ASSERT_EQ(z->free_pages, 16);
	ASSERT_EQ(counter("allocstall_normal"), 0);
	drains = lock_stat("pcp->lock", "drain_pages_zone", false);
	p = alloc_pages(GFP_KERNEL, 0);
	ASSERT_TRUE(p != NULL);
	ASSERT_GT(counter("allocstall_normal"), 0);
	ASSERT_LE(counter("allocstall_normal"), 4);
	ASSERT_GE(lock_stat("pcp->lock", "drain_pages_zone", false) - drains,
		  (uint64_t)counter("allocstall_normal") - 1);
	__free_pages(p, 0);
	for (i = 0; i < n; i++)
		__free_pages(held[i], 0);
	ASSERT_GE(counter("pglazyfreed"), 113);
	return mm_down_with_mm();
}

/*
 * A write to /sys/devices/system/node/nodeN/reclaim (6.18's
 * user_proactive_reclaim() into __node_reclaim()) shrinks the node only
 * while its unmapped page cache is above vm.min_unmapped_ratio (1%) of it:
 * 16384 pages here, so more than 163. An anon-only node gives nothing
 * (EAGAIN, nothing scanned), whatever its swap. Lazy-free pages are on the
 * file LRUs and not NR_FILE_MAPPED: (without swap) 64 of them do not open
 * the gate, 200 do, and so do the 64 with the ratio at 0. A write while
 * another is under way fails at once (EBUSY, which the file turns into
 * EAGAIN).
 */
static bool test_node_reclaim_gate(void)
{
	uint64_t tag = 7ull << 16;
	unsigned long a, b;
	int64_t freed;

	ASSERT_TRUE(up(64, 64));
	ASSERT_EQ(NODE_DATA(0)->node_zones[0].managed_pages * 1 / 100, 163);
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(node_reclaim_proactive(0, 64, SWAPPINESS_ANON_ONLY), -EAGAIN);
	ASSERT_EQ(counter("pgscan_proactive"), 0);
	ASSERT_TRUE(mm_down_with_mm());
	/* no swap from here: only the lazy-free pages can go */
	ASSERT_TRUE(up(64, 0));
	a = map(64 * PAGE_SIZE);
	b = map(200 * PAGE_SIZE);
	ASSERT_TRUE(a && b && write_tags(a, 64, tag) && write_tags(b, 200, tag + 100));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(node_reclaim_proactive(0, 64, -1), -EAGAIN);
	ASSERT_EQ(counter("pgscan_proactive"), 0);
	ASSERT_TRUE(knob("vm/min_unmapped_ratio", "0"));
	fl_atomic_fetch_or(&NODE_DATA(0)->flags, PGDAT_RECLAIM_LOCKED, __ATOMIC_RELAXED);
	ASSERT_EQ(node_reclaim_proactive(0, 64, -1), -EAGAIN);
	ASSERT_EQ(counter("pgscan_proactive"), 0);
	fl_atomic_fetch_and(&NODE_DATA(0)->flags, ~PGDAT_RECLAIM_LOCKED, __ATOMIC_RELAXED);
	(void)node_reclaim_proactive(0, 64, -1);
	ASSERT_GT(counter("pglazyfreed"), 0);
	ASSERT_TRUE(knob("vm/min_unmapped_ratio", "1"));
	ASSERT_EQ(do_madvise(mm, b, 200 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	freed = counter("pglazyfreed");
	/* the tries go on while more than 3 are missing (a try of a quarter of them) */
	ASSERT_EQ(node_reclaim_proactive(0, 32, -1), -EAGAIN);
	ASSERT_GE(counter("pglazyfreed") - freed, 32 - 3);
	ASSERT_EQ(NODE_DATA(0)->flags, 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_anon_needs_two_looks), TEST(test_referenced_twice_activates),
	  TEST(test_no_swap_no_anon_scan), TEST(test_direct_reclaim), TEST(test_oom_without_swap),
	  TEST(test_lazyfree_dropped_by_the_scan), TEST(test_exiting_mm_kept),
	  TEST(test_direct_reclaim_drains_each_try), TEST(test_node_reclaim_gate))
