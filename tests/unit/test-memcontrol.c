// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-memcontrol.c - the model's memory cgroups (mm/memcontrol.c): what
 * a charge costs the page counter, what the limit does, where reclaim for
 * a limit is counted, and what comes back. Each expectation follows from
 * the 6.18 rule it names:
 *
 *   - a charge takes MEMCG_CHARGE_BATCH (64) pages from the counter and
 *     keeps the rest in the CPU's stock, so memory.current counts stocked
 *     pages until the stock drains;
 *   - the counter never goes over memory.max: at the limit the charging
 *     task reclaims from the memcg (memory.events max), and that reclaim
 *     counts in memory.stat but not in /proc/vmstat's pgscan_* and
 *     pgsteal_* or allocstall (pgscan_anon and pswpout are global);
 *   - an mTHP charge that may not block (defrag=madvise, a VMA without
 *     MADV_HUGEPAGE) fails at once at the limit: anon_fault_fallback_charge,
 *     and the fault falls back to order 0, which may reclaim;
 *   - with nothing to reclaim the charge ends in a memcg OOM (memory.events
 *     oom and oom_kill, /proc/vmstat oom_kill) and the fault fails;
 *   - swapped-out pages charge memory.swap.current, and a swap-in charges
 *     the memcg recorded for the slot again;
 *   - a memcg's partially mapped large folio waits on the memcg's own
 *     deferred split queue;
 *   - over memory.high the task reclaims on its way back to user space;
 *   - reclaim reads the memcg's LRU sizes as of the last stats flush.
 *
 * Conventions in this file: one node, one CPU; tags are (case << 16) + page.
 */
#include "mm_harness.h"
#include "../src/mm/swap.h"

static struct mem_cgroup *memcg;

static bool up(unsigned long swap_mb, long max_pages, long high_pages)
{
	mm_swap_mb = swap_mb;
	if (!mm_up(64, 1, 1))
		return false;
	memcg = fl__mem_cgroup_create("test", max_pages, high_pages);
	if (!memcg)
		return false;
	fl__run_memcg = memcg;
	mm = mm_alloc(1);
	return mm != NULL;
}

static long usage(void)
{
	return fl_atomic_load(&memcg->memory.usage, __ATOMIC_RELAXED);
}

static long swap_usage(void)
{
	return fl_atomic_load(&memcg->swap.usage, __ATOMIC_RELAXED);
}

static int64_t stat(const char *name)
{
	struct fl_counters c = { 0 };
	char full[FL_NAME_MAX];
	int64_t v;

	snprintf(full, sizeof(full), "memory.%s", name);
	fl__memcg_snapshot(memcg, &c);
	v = fl_counters_get(&c, full);
	fl_counters_free(&c);
	return v;
}

/*
 * 100 pages faulted: the first charge takes a batch of 64 (63 stocked),
 * the next 63 come from the stock, the 65th takes another 64: 128 on the
 * counter, 100 of them used (drain_all_stock() gives back the 28). All
 * are in the memcg's lruvec, none in the node's; every counter of the
 * faults is the memcg's too. Unmapped, nothing stays charged.
 */
static bool test_charge_batches_and_stock(void)
{
	uint64_t tag = 1ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(0, 1024, PAGE_COUNTER_MAX));
	a = map(100 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 100, tag));
	ASSERT_EQ(usage(), 128);
	ASSERT_EQ(stat("peak"), 128 * PAGE_SIZE);
	drain_all_stock();
	ASSERT_EQ(usage(), 100);
	ASSERT_EQ(stat("current"), 100 * PAGE_SIZE);
	lru_add_drain();
	ASSERT_EQ(memcg->nodeinfo[0].nr_pages[LRU_INACTIVE_ANON], 100);
	ASSERT_EQ(NODE_DATA(0)->__lruvec.nr_pages[LRU_INACTIVE_ANON], 0);
	ASSERT_EQ(stat("stat.inactive_anon"), 100 * PAGE_SIZE);
	ASSERT_EQ(stat("stat.anon"), 100 * PAGE_SIZE);
	ASSERT_EQ(stat("stat.pgfault"), counter("pgfault"));
	ASSERT_EQ(stat("stat.pgfault"), 100);
	/* the global LRU gauges count the memcg's lists too */
	ASSERT_EQ(counter("nr_inactive_anon"), 100);
	ASSERT_EQ(stat("events.max"), 0);
	ASSERT_EQ(do_munmap(mm, a, 100 * PAGE_SIZE), 0);
	drain_all_stock();
	ASSERT_EQ(usage(), 0);
	ASSERT_EQ(stat("stat.anon"), 0);
	return mm_down_with_mm();
}

/*
 * 1024 pages written into a memcg of 256 with swap: the counter stays at
 * or under the limit, at least 768 pages go to swap, and every tag comes
 * back. The reclaim is the memcg's: memory.stat counts pgscan_direct and
 * pgsteal_direct, /proc/vmstat's pgscan_direct, pgsteal_direct and
 * allocstall stay 0, while pgscan_anon, pgsteal_anon and pswpout, which
 * 6.18 counts for every reclaim, equal the memcg's.
 */
static bool test_limit_reclaims_from_the_memcg(void)
{
	uint64_t tag = 2ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 256, PAGE_COUNTER_MAX));
	a = map(1024 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 1024, tag));
	ASSERT_TRUE(stat("peak") <= 256 * (int64_t)PAGE_SIZE);
	ASSERT_TRUE(stat("events.max") > 0);
	ASSERT_EQ(stat("events.oom"), 0);
	ASSERT_TRUE(stat("stat.pswpout") >= 1024 - 256);
	ASSERT_EQ(stat("stat.pswpout"), counter("pswpout"));
	ASSERT_EQ(stat("stat.pgsteal_direct"), counter("pgsteal_anon"));
	ASSERT_EQ(stat("stat.pgscan_direct"), counter("pgscan_anon"));
	ASSERT_EQ(stat("stat.pgscan"), stat("stat.pgscan_direct"));
	ASSERT_EQ(counter("pgscan_direct") + counter("pgsteal_direct"), 0);
	ASSERT_EQ(counter("pgscan_kswapd") + counter("pgsteal_kswapd"), 0);
	ASSERT_EQ(counter("allocstall_normal") + counter("allocstall_movable"), 0);
	/* each page is resident or in swap */
	drain_all_stock();
	ASSERT_EQ(usage() + swap_usage(), 1024);
	ASSERT_EQ(stat("swap.current"), swap_usage() * PAGE_SIZE);
	ASSERT_EQ(wrong_tags(a, 1024, tag), 0);
	ASSERT_TRUE(stat("peak") <= 256 * (int64_t)PAGE_SIZE);
	ASSERT_EQ(stat("stat.pswpin"), counter("pswpin"));
	ASSERT_TRUE(stat("stat.pswpin") > 0);
	return mm_down_with_mm();
}

/*
 * 16K mTHP, defrag=madvise, a VMA without MADV_HUGEPAGE: the charge may
 * not block. 32 folios charge 128 pages, a batch of 64 at a time, which
 * fills the limit of 128 with nothing left in the stock; the 33rd fault's
 * 16K charge fails at once (anon_fault_fallback_charge, and the fallback
 * it also is, with no memory.events max), and the order-0 charge it falls
 * back to reclaims (max 1).
 */
static bool test_mthp_charge_fails_at_once(void)
{
	uint64_t tag = 3ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 128, PAGE_COUNTER_MAX));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	a = map(256 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 128, tag));
	ASSERT_EQ(mthp(16, "anon_fault_alloc"), 32);
	ASSERT_EQ(usage(), 128);
	ASSERT_EQ(mthp(16, "anon_fault_fallback_charge"), 0);
	ASSERT_EQ(stat("events.max"), 0);
	ASSERT_EQ(touch(mm, a + 128 * PAGE_SIZE, tag + 128), 0);
	ASSERT_EQ(mthp(16, "anon_fault_fallback_charge"), 1);
	ASSERT_EQ(mthp(16, "anon_fault_fallback"), 1);
	ASSERT_EQ(mapped_order(mm, a + 128 * PAGE_SIZE), 0);
	ASSERT_EQ(stat("events.max"), 1);
	ASSERT_TRUE(stat("stat.pgscan_direct") > 0);
	ASSERT_TRUE(stat("peak") <= 128 * (int64_t)PAGE_SIZE);
	ASSERT_EQ(wrong_tags(a, 129, tag), 0);
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "never"));
	return mm_down_with_mm();
}

/*
 * No swap, a limit of 64: the first charge takes exactly the limit, so
 * the 65th page cannot be charged. With nothing reclaimable the charge
 * reclaims (memory.events max, counted before each reclaim), drains the
 * stocks and reclaims again, retries MAX_RECLAIM_RETRIES (16) times: 18
 * in all; then it declares a memcg OOM (oom, oom_kill, /proc/vmstat's
 * oom_kill, the run's OOM report) and the fault fails.
 */
static bool test_oom_in_the_memcg(void)
{
	uint64_t tag = 4ull << 16;
	char report[512];
	unsigned long a;

	ASSERT_TRUE(up(0, 64, PAGE_COUNTER_MAX));
	a = map(128 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	ASSERT_TRUE(touch(mm, a + 64 * PAGE_SIZE, tag + 64) != 0);
	ASSERT_EQ(stat("events.max"), 1 + 1 + MAX_RECLAIM_RETRIES);
	ASSERT_EQ(stat("events.oom"), 1);
	ASSERT_EQ(stat("events.oom_kill"), 1);
	ASSERT_EQ(counter("oom_kill"), 1);
	ASSERT_EQ(counter("allocstall_normal") + counter("allocstall_movable"), 0);
	ASSERT_EQ(fl__oom_report(report, sizeof(report)), 1);
	ASSERT_TRUE(strstr(report, "memory cgroup out of memory") != NULL);
	ASSERT_EQ(usage(), 64);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	return mm_down_with_mm();
}

/*
 * memory.reclaim of 64 pages of a memcg of 64 written pages: the reclaim
 * is proactive and the memcg's (memory.stat pgscan_proactive and
 * pgsteal_proactive; /proc/vmstat's stay 0 but pgscan_anon, pgsteal_anon
 * and pswpout count it). What went out charges memory.swap.current; read
 * back, the pages charge the memcg again (the swap_cgroup record) and
 * leave swap.
 */
static bool test_memory_reclaim_and_swapin_charge(void)
{
	uint64_t tag = 5ull << 16;
	unsigned long a;
	long out;

	ASSERT_TRUE(up(64, 1024, PAGE_COUNTER_MAX));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	mem_cgroup_reclaim(memcg, 64, SWAPPINESS_ANON_ONLY);
	ASSERT_EQ(counter("pgscan_proactive") + counter("pgsteal_proactive"), 0);
	ASSERT_TRUE(stat("stat.pgsteal_proactive") > 0);
	ASSERT_EQ(stat("stat.pgscan_proactive"), counter("pgscan_anon"));
	ASSERT_EQ(stat("stat.pgsteal_proactive"), counter("pgsteal_anon"));
	ASSERT_EQ(stat("stat.pswpout"), stat("stat.pgsteal_proactive"));
	out = swap_usage();
	ASSERT_EQ(out, stat("stat.pswpout"));
	drain_all_stock();
	ASSERT_EQ(usage(), 64 - out);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(stat("stat.pswpin"), out);
	ASSERT_EQ(stat("stat.pgmajfault"), out);
	drain_all_stock();
	ASSERT_EQ(usage(), 64);
	ASSERT_EQ(swap_usage(), 0);
	return mm_down_with_mm();
}

/*
 * A 64K folio of the memcg, one page unmapped: it waits on the memcg's
 * deferred split queue, not the node's; the shrinker for the memcg splits
 * it, and the memcg's charge does not change (the after-split folios keep it).
 */
static bool test_deferred_split_queue_per_memcg(void)
{
	uint64_t tag = 6ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(0, 1024, PAGE_COUNTER_MAX));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "always"));
	a = map(16 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 16, tag));
	ASSERT_EQ(mapped_order(mm, a), 4);
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, MADV_DONTNEED), 0);
	ASSERT_EQ(deferred_split_count(0, memcg), 1);
	ASSERT_EQ(deferred_split_count(0, NULL), 0);
	drain_all_stock();
	ASSERT_EQ(usage(), 16);
	ASSERT_EQ(deferred_split_scan(0, memcg, 1), 1);
	ASSERT_EQ(deferred_split_count(0, memcg), 0);
	ASSERT_EQ(mapped_order(mm, a + PAGE_SIZE), 0);
	drain_all_stock();
	ASSERT_EQ(usage(), 15); /* the unmapped page, now a folio of its own, was freed */
	ASSERT_EQ(wrong_tags(a + PAGE_SIZE, 15, tag + 1), 0);
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "never"));
	return mm_down_with_mm();
}

/*
 * memory.high of 128 and no max, 512 pages written with swap: each fault
 * that charged over high reclaims what it charged before it returns, so
 * the memcg never holds more than high plus one batch; memory.events
 * counts high, never max.
 */
static bool test_high_reclaims_on_return(void)
{
	uint64_t tag = 7ull << 16;
	unsigned long a, i;
	long worst = 0;

	ASSERT_TRUE(up(64, PAGE_COUNTER_MAX, 128));
	a = map(512 * PAGE_SIZE);
	ASSERT_TRUE(a);
	for (i = 0; i < 512; i++) {
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, tag + i), 0);
		if (usage() > worst)
			worst = usage();
	}
	ASSERT_TRUE(worst <= 128 + MEMCG_CHARGE_BATCH);
	ASSERT_TRUE(stat("events.high") > 0);
	ASSERT_EQ(stat("events.max"), 0);
	ASSERT_TRUE(stat("stat.pgsteal_direct") >= 512 - 128 - MEMCG_CHARGE_BATCH);
	ASSERT_EQ(counter("pgscan_direct"), 0);
	ASSERT_EQ(wrong_tags(a, 512, tag), 0);
	return mm_down_with_mm();
}

/*
 * The stats flush (6.18's rstat): reclaim reads a memcg's LRU sizes as
 * last flushed. 256 pages written, then read through memory.stat, which
 * flushes (far over 64 updates on this one CPU): inactive anon 256,
 * active 0. MADV_FREE moves them to the file LRU, and all are written
 * again. memory.reclaim finds them dirty and activates all 256, but its
 * retries read the flushed sizes (inactive 256, active 0: the inactive
 * list is not low), so nothing is deactivated and nothing swapped. Read
 * memory.stat again (a flush: active 256, inactive 0) and the next
 * memory.reclaim deactivates them and swaps them out. Not so if the 2 s
 * periodic flush came between (a machine that slow skips the first
 * half's checks).
 */
static bool test_reclaim_reads_flushed_sizes(void)
{
	uint64_t tag = 8ull << 16, t0;
	unsigned long a;

	ASSERT_TRUE(up(64, 1024, PAGE_COUNTER_MAX));
	t0 = fl_clock_ns();
	a = map(256 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 256, tag));
	lru_add_drain();
	ASSERT_EQ(stat("stat.pgactivate"), 0); /* a read of memory.stat: the flush */
	ASSERT_EQ(memcg->nodeinfo[0].nr_flushed[LRU_INACTIVE_ANON], 256);
	ASSERT_EQ(do_madvise(mm, a, 256 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_TRUE(write_tags(a, 256, tag));
	mem_cgroup_reclaim(memcg, 256, -1);
	ASSERT_EQ(counter("pgactivate"), 256);
	if (fl_clock_ns() - t0 < 1900000000ull) {
		ASSERT_EQ(counter("pgdeactivate"), 0);
		ASSERT_EQ(counter("pswpout"), 0);
	} else {
		printf("# the periodic flush may have come between: first half not checked\n");
	}
	ASSERT_EQ(stat("stat.pgactivate"), 256); /* the flush: active 256 */
	ASSERT_EQ(memcg->nodeinfo[0].nr_flushed[LRU_ACTIVE_ANON], 256);
	ASSERT_EQ(memcg->nodeinfo[0].nr_flushed[LRU_INACTIVE_ANON], 0);
	mem_cgroup_reclaim(memcg, 256, -1);
	ASSERT_EQ(counter("pgdeactivate"), 256);
	ASSERT_EQ(counter("pswpout"), 256);
	ASSERT_EQ(wrong_tags(a, 256, tag), 0);
	return mm_down_with_mm();
}

/*
 * vm.swappiness 0: for a memcg it means no swap at all (6.18's
 * get_scan_count(): cgroup reclaim at swappiness 0 scans file only). A
 * memcg of 64 pages full of anon, with swap: the 65th page's charge finds
 * nothing to reclaim and ends in the memcg OOM; nothing was swapped.
 */
static bool test_swappiness_zero_never_swaps(void)
{
	uint64_t tag = 9ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64, 64, PAGE_COUNTER_MAX));
	ASSERT_TRUE(knob("vm/swappiness", "0"));
	a = map(128 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	ASSERT_TRUE(touch(mm, a + 64 * PAGE_SIZE, tag + 64) != 0);
	ASSERT_EQ(stat("events.oom"), 1);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(counter("pgscan_anon"), 0);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	return mm_down_with_mm();
}

/*
 * Swap present but full (every slot marked in use): 6.18 still ages the
 * active anon list (can_age_anon_pages(): total_swap_pages > 0, not free
 * slots), while get_scan_count() scans no anon (can_reclaim_anon_pages():
 * free slots). 64 pages of the memcg activated, memory.stat read (the
 * flush: active 64, inactive 0), then memory.reclaim: shrink_lruvec()
 * finds the inactive list low and shrink_active_list() deactivates a
 * batch of SWAP_CLUSTER_MAX at least (memory.stat's pgrefill =
 * pgdeactivate, each marked workingset); no anon page is scanned from the inactive list or
 * swapped. Each such aging notes a cost of 0 (anon rotates nothing):
 * 6.18's lru_note_cost_unlock_irq() only unlocks, so the root lruvec's
 * lock is never taken for it.
 */
static bool test_swap_full_still_ages_anon(void)
{
	uint64_t tag = 10ull << 16, locks0;
	unsigned long a, i, inuse, ws = 0;

	ASSERT_TRUE(up(4, 1024, PAGE_COUNTER_MAX));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, tag));
	lru_add_drain();
	for (i = 0; i < 64; i++)
		folio_activate(mapped_folio(mm, a + i * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(stat("stat.pgactivate"), 64); /* and the flush */
	ASSERT_EQ(memcg->nodeinfo[0].nr_flushed[LRU_ACTIVE_ANON], 64);
	inuse = fl__swap_info->inuse_pages;
	fl__swap_info->inuse_pages = fl__swap_info->pages; /* full */
	locks0 = lock_stat("lruvec->lru_lock", "lru_note_cost_unlock", false);
	mem_cgroup_reclaim(memcg, 32, -1);
	fl__swap_info->inuse_pages = inuse;
	ASSERT_GE(counter("pgdeactivate"), SWAP_CLUSTER_MAX);
	/* a memcg's reclaim: pgrefill in its memory.stat only, pgdeactivate in both */
	ASSERT_EQ(stat("stat.pgrefill"), counter("pgdeactivate"));
	ASSERT_EQ(counter("pgrefill"), 0);
	ASSERT_EQ(counter("pgscan_anon"), 0);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(lock_stat("lruvec->lru_lock", "lru_note_cost_unlock", false), locks0);
	for (i = 0; i < 64; i++)
		ws += folio_test_workingset(mapped_folio(mm, a + i * PAGE_SIZE));
	ASSERT_EQ(ws, (unsigned long)counter("pgdeactivate"));
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	return mm_down_with_mm();
}

/*
 * Reclaim on khugepaged's thread counts as khugepaged's (6.18's
 * reclaimer_offset(): current_is_khugepaged()). A memcg of 1024 pages
 * with swap; 512 pages written in a 2 MiB range at 4K, MADV_HUGEPAGE, and
 * 448 more elsewhere: 960 charged. khugepaged's thread (CPU 1) collapses
 * the range: the THP's charge of 512 goes over the limit and reclaims from
 * the memcg in khugepaged's name: memory.stat's pgscan_khugepaged and
 * pgsteal_khugepaged grow, pgscan_direct and pgsteal_direct do not (the
 * test thread reclaims nothing meanwhile), and /proc/vmstat counts none
 * of it (a memcg's limit). Every tag reads back.
 */
static bool test_khugepaged_reclaims_as_itself(void)
{
	uint64_t tag = 11ull << 16;
	unsigned long a, b;
	int64_t direct0;
	int i;

	mm_swap_mb = 64;
	ASSERT_TRUE(mm_up(64, 1, 2));
	memcg = fl__mem_cgroup_create("test", 1024, PAGE_COUNTER_MAX);
	ASSERT_TRUE(memcg != NULL);
	fl__run_memcg = memcg;
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-2048kB/enabled", "never"));
	a = map(4ul << 20);
	ASSERT_TRUE(a != 0);
	a = (a + (2ul << 20) - 1) & ~((2ul << 20) - 1); /* a 2 MiB range inside */
	ASSERT_TRUE(write_tags(a, 512, tag));
	b = map(448 * PAGE_SIZE);
	ASSERT_TRUE(b && write_tags(b, 448, tag + 512));
	lru_add_drain();
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-2048kB/enabled", "madvise"));
	ASSERT_EQ(do_madvise(mm, a, 2ul << 20, MADV_HUGEPAGE), 0);
	direct0 = stat("stat.pgscan_direct") + stat("stat.pgsteal_direct");
	fl__khugepaged_cpu = 1;
	ASSERT_EQ(fl__khugepaged_start(1), 0);
	for (i = 0; i < 5000 && !counter("khugepaged/full_scans"); i++)
		fl_cpu_work(1000000); /* up to 5 s of this thread's CPU time */
	fl__khugepaged_task_done();
	fl__khugepaged_join();
	fl__khugepaged_cpu = -1;
	ASSERT_GT(counter("khugepaged/full_scans"), 0);
	ASSERT_EQ(counter("thp_collapse_alloc"), 1);
	ASSERT_GT(stat("stat.pgscan_khugepaged"), 0);
	ASSERT_GT(stat("stat.pgsteal_khugepaged"), 0);
	ASSERT_EQ(stat("stat.pgscan_direct") + stat("stat.pgsteal_direct"), direct0);
	ASSERT_EQ(counter("pgscan_khugepaged") + counter("pgsteal_khugepaged"), 0);
	ASSERT_EQ(wrong_tags(a, 512, tag), 0);
	ASSERT_EQ(wrong_tags(b, 448, tag + 512), 0);
	return mm_down_with_mm();
}

/*
 * workingset (6.18's workingset_eviction() and workingset_test_recent()):
 * an eviction ages the lruvec of the reclaim's target and its ancestors,
 * and the refault distance is read there. MADV_PAGEOUT reclaims for no
 * memcg: the root's lruvec. 16 pages of the memcg out: the root's age is
 * 16, the memcg's 0. Then 128 pages of a process in the root out: 144.
 * The 16 read back: each distance is at least 144 - 15, more than the
 * workingset (the node's 32 active anon pages, none on the file lists),
 * so none is activated; all 16 are refaults.
 */
static bool test_workingset_ages_the_target(void)
{
	uint64_t tag = 12ull << 16;
	struct mm_struct *in_memcg, *in_root;
	struct lruvec *root;
	unsigned long x, y, r, i;

	ASSERT_TRUE(up(64, PAGE_COUNTER_MAX, PAGE_COUNTER_MAX));
	root = &NODE_DATA(0)->__lruvec;
	x = map(16 * PAGE_SIZE);
	y = map(32 * PAGE_SIZE);
	ASSERT_TRUE(x && y && write_tags(x, 16, tag) && write_tags(y, 32, tag + 100));
	lru_add_drain();
	for (i = 0; i < 32; i++)
		folio_activate(mapped_folio(mm, y + i * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(memcg->nodeinfo[0].nr_pages[LRU_ACTIVE_ANON], 32);
	ASSERT_EQ(do_madvise(mm, x, 16 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(root->nonresident_age, 16);
	ASSERT_EQ(memcg->nodeinfo[0].nonresident_age, 0);
	in_memcg = mm;
	fl__run_memcg = NULL;
	in_root = mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	r = map(128 * PAGE_SIZE);
	ASSERT_TRUE(r && write_tags(r, 128, tag + 200));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, r, 128 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(root->nonresident_age, 144);
	mm = in_memcg;
	fl__run_memcg = memcg;
	ASSERT_EQ(wrong_tags(x, 16, tag), 0);
	ASSERT_EQ(counter("workingset_refault_anon"), 16);
	ASSERT_EQ(counter("workingset_activate_anon"), 0);
	mmput(in_root);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_charge_batches_and_stock), TEST(test_limit_reclaims_from_the_memcg),
	  TEST(test_mthp_charge_fails_at_once), TEST(test_oom_in_the_memcg),
	  TEST(test_memory_reclaim_and_swapin_charge), TEST(test_deferred_split_queue_per_memcg),
	  TEST(test_high_reclaims_on_return), TEST(test_reclaim_reads_flushed_sizes),
	  TEST(test_swappiness_zero_never_swaps), TEST(test_swap_full_still_ages_anon),
	  TEST(test_khugepaged_reclaims_as_itself), TEST(test_workingset_ages_the_target))
