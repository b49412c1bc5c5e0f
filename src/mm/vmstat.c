// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmstat.c - the counters a user reads from /proc/vmstat and
 * /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/stats (mm/vmstat.c,
 * mm/huge_memory.c in the kernel), summed over the per-CPU slots.
 *
 * Conventions in this file: names are the kernel's strings; mTHP stats are
 * listed as "hugepages-<N>kB/stats/<item>" for orders 2..PMD_ORDER; the
 * slot at index nr_cpu_ids collects updates from unbound threads.
 */
#include <stdio.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "internal.h"
#include "swap.h"

struct vm_cpu_stats *fl__vm_stats;

static const char *const vm_event_names[NR_VM_EVENT_ITEMS] = {
	[PGALLOC_NORMAL] = "pgalloc_normal",
	[PGFREE] = "pgfree",
	[PGACTIVATE] = "pgactivate",
	[PGDEACTIVATE] = "pgdeactivate",
	[PGLAZYFREE] = "pglazyfree",
	[PGFAULT] = "pgfault",
	[PGMAJFAULT] = "pgmajfault",
	[PGLAZYFREED] = "pglazyfreed",
	[PGREUSE] = "pgreuse",
	[PGROTATED] = "pgrotated",
	[PGPGIN] = "pgpgin",
	[PGPGOUT] = "pgpgout",
	[PSWPIN] = "pswpin",
	[PSWPOUT] = "pswpout",
	[SWAP_RA] = "swap_ra",
	[SWAP_RA_HIT] = "swap_ra_hit",
	[SWPIN_ZERO] = "swpin_zero",
	[SWPOUT_ZERO] = "swpout_zero",
	[UNEVICTABLE_PGCULLED] = "unevictable_pgs_culled",
	[UNEVICTABLE_PGRESCUED] = "unevictable_pgs_rescued",
	[THP_FAULT_ALLOC] = "thp_fault_alloc",
	[THP_FAULT_FALLBACK] = "thp_fault_fallback",
	[THP_FAULT_FALLBACK_CHARGE] = "thp_fault_fallback_charge",
	[THP_SPLIT_PAGE] = "thp_split_page",
	[THP_SPLIT_PAGE_FAILED] = "thp_split_page_failed",
	[THP_DEFERRED_SPLIT_PAGE] = "thp_deferred_split_page",
	[THP_SPLIT_PMD] = "thp_split_pmd",
	[THP_ZERO_PAGE_ALLOC] = "thp_zero_page_alloc",
	[THP_ZERO_PAGE_ALLOC_FAILED] = "thp_zero_page_alloc_failed",
	[THP_FILE_ALLOC] = "thp_file_alloc",
	[THP_FILE_FALLBACK] = "thp_file_fallback",
	[THP_FILE_FALLBACK_CHARGE] = "thp_file_fallback_charge",
	[THP_FILE_MAPPED] = "thp_file_mapped",
	[THP_UNDERUSED_SPLIT_PAGE] = "thp_underused_split_page",
	[THP_SWPOUT] = "thp_swpout",
	[THP_SWPOUT_FALLBACK] = "thp_swpout_fallback",
	[THP_COLLAPSE_ALLOC] = "thp_collapse_alloc",
	[THP_COLLAPSE_ALLOC_FAILED] = "thp_collapse_alloc_failed",
	[THP_SCAN_EXCEED_NONE_PTE] = "thp_scan_exceed_none_pte",
	[THP_SCAN_EXCEED_SWAP_PTE] = "thp_scan_exceed_swap_pte",
	[THP_SCAN_EXCEED_SHARED_PTE] = "thp_scan_exceed_share_pte",
	[PGREFILL] = "pgrefill",
	[PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[PGSTEAL_DIRECT] = "pgsteal_direct",
	[PGSTEAL_KHUGEPAGED] = "pgsteal_khugepaged",
	[PGSTEAL_PROACTIVE] = "pgsteal_proactive",
	[PGSCAN_KSWAPD] = "pgscan_kswapd",
	[PGSCAN_DIRECT] = "pgscan_direct",
	[PGSCAN_KHUGEPAGED] = "pgscan_khugepaged",
	[PGSCAN_PROACTIVE] = "pgscan_proactive",
	[PGSCAN_DIRECT_THROTTLE] = "pgscan_direct_throttle",
	[PGSCAN_ANON] = "pgscan_anon",
	[PGSCAN_FILE] = "pgscan_file",
	[PGSTEAL_ANON] = "pgsteal_anon",
	[PGSTEAL_FILE] = "pgsteal_file",
	[SLABS_SCANNED] = "slabs_scanned",
	[KSWAPD_LOW_WMARK_HIT_QUICKLY] = "kswapd_low_wmark_hit_quickly",
	[KSWAPD_HIGH_WMARK_HIT_QUICKLY] = "kswapd_high_wmark_hit_quickly",
	[PAGEOUTRUN] = "pageoutrun",
	[ALLOCSTALL_NORMAL] = "allocstall_normal",
	[ALLOCSTALL_MOVABLE] = "allocstall_movable",
	[OOM_KILL] = "oom_kill",
	[PGMIGRATE_SUCCESS] = "pgmigrate_success",
	[PGMIGRATE_FAIL] = "pgmigrate_fail",
	[THP_MIGRATION_SUCCESS] = "thp_migration_success",
	[THP_MIGRATION_FAIL] = "thp_migration_fail",
	[THP_MIGRATION_SPLIT] = "thp_migration_split",
	[COMPACTMIGRATE_SCANNED] = "compact_migrate_scanned",
	[COMPACTFREE_SCANNED] = "compact_free_scanned",
	[COMPACTISOLATED] = "compact_isolated",
	[COMPACTSTALL] = "compact_stall",
	[COMPACTFAIL] = "compact_fail",
	[COMPACTSUCCESS] = "compact_success",
	[KCOMPACTD_WAKE] = "compact_daemon_wake",
	[KCOMPACTD_MIGRATE_SCANNED] = "compact_daemon_migrate_scanned",
	[KCOMPACTD_FREE_SCANNED] = "compact_daemon_free_scanned",
};

static const char *const mthp_stat_names[__MTHP_STAT_COUNT] = {
	[MTHP_STAT_ANON_FAULT_ALLOC] = "anon_fault_alloc",
	[MTHP_STAT_ANON_FAULT_FALLBACK] = "anon_fault_fallback",
	[MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE] = "anon_fault_fallback_charge",
	[MTHP_STAT_ZSWPOUT] = "zswpout",
	[MTHP_STAT_SWPIN] = "swpin",
	[MTHP_STAT_SWPIN_FALLBACK] = "swpin_fallback",
	[MTHP_STAT_SWPIN_FALLBACK_CHARGE] = "swpin_fallback_charge",
	[MTHP_STAT_SWPOUT] = "swpout",
	[MTHP_STAT_SWPOUT_FALLBACK] = "swpout_fallback",
	[MTHP_STAT_SHMEM_ALLOC] = "shmem_alloc",
	[MTHP_STAT_SHMEM_FALLBACK] = "shmem_fallback",
	[MTHP_STAT_SHMEM_FALLBACK_CHARGE] = "shmem_fallback_charge",
	[MTHP_STAT_SPLIT] = "split",
	[MTHP_STAT_SPLIT_FAILED] = "split_failed",
	[MTHP_STAT_SPLIT_DEFERRED] = "split_deferred",
	[MTHP_STAT_NR_ANON] = "nr_anon",
	[MTHP_STAT_NR_ANON_PARTIALLY_MAPPED] = "nr_anon_partially_mapped",
};

static const char *const fl_stat_names[NR_FL_STAT_ITEMS] = {
	[FL_LRU_ADD_FLUSH] = "fl_lru_add_flush",
	[FL_LRU_ADD_DEAD] = "fl_lru_add_dead",
	[FL_LRU_ADD_FREED_DEAD] = "fl_lru_add_freed_dead",
	[FL_TLB_FORCE_FLUSH] = "fl_tlb_force_flush",
	[FL_TLB_FLUSH] = "fl_tlb_flush",
	[FL_TLB_SHOOTDOWN_WAIT] = "fl_tlb_shootdown_wait",
	[FL_PCP_REFILL] = "fl_pcp_refill",
	[FL_PCP_FREE_BULK] = "fl_pcp_free_bulk",
	[FL_EXTFRAG_CLAIM] = "fl_extfrag_claim",
	[FL_EXTFRAG_STEAL] = "fl_extfrag_steal",
	[FL_LIVE_FOLIOS] = "fl_live_folios",
	[FL_PT_RECLAIM] = "fl_pt_reclaim",
	[FL_XA_VISIT] = "fl_xa_visit",
	[FL_XA_STORE] = "fl_xa_store",
	[FL_XA_NODE_ALLOC] = "fl_xa_node_alloc",
	[FL_SPLIT_WALK] = "fl_split_walk",
	[FL_MIGRATION_WAIT] = "fl_migration_entry_wait",
	[FL_VMA_LOCK_RETRY] = "fl_vma_lock_retry",
	[FL_PGFREE_RCU] = "fl_pgfree_rcu",
	[FL_PGFREE_ATOMIC] = "fl_pgfree_atomic",
	[FL_PGALLOC_UPPER] = "fl_pgalloc_upper",
	[FL_KSWAPD_NS] = "fl_kswapd_ns",
	[FL_DIRECT_RECLAIM_NS] = "fl_direct_reclaim_ns",
	[FL_KHUGEPAGED_NS] = "fl_khugepaged_ns",
	[FL_ACCESS_PTE] = "fl_access_pte",
	[FL_ACCESS_PMD] = "fl_access_pmd",
	[FL_DTLB_LOAD_MISSES] = "dTLB-load-misses",
	[FL_DTLB_STORE_MISSES] = "dTLB-store-misses",
};

/* Order 1 (8kB) exists for shmem and the page cache only: its stats are these. */
static bool mthp_stat_for_order1(enum mthp_stat_item i)
{
	switch (i) {
	case MTHP_STAT_ANON_FAULT_ALLOC:
	case MTHP_STAT_ANON_FAULT_FALLBACK:
	case MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE:
	case MTHP_STAT_SPLIT_DEFERRED:
	case MTHP_STAT_NR_ANON:
	case MTHP_STAT_NR_ANON_PARTIALLY_MAPPED:
		return false;
	default:
		return true;
	}
}

int fl__vmstat_init(void)
{
	fl__vm_stats = fl_aligned_alloc(FL_CACHELINE,
					sizeof(*fl__vm_stats) * (size_t)(nr_cpu_ids_get() + 1));
	if (!fl__vm_stats)
		return -ENOMEM;
	memset(fl__vm_stats, 0, sizeof(*fl__vm_stats) * (size_t)(nr_cpu_ids_get() + 1));
	fl_percpu_area_register(FL_PERCPU_VMSTAT, fl__vm_stats, sizeof(*fl__vm_stats));
	return 0;
}

void fl__vmstat_exit(void)
{
	fl_percpu_area_register(FL_PERCPU_VMSTAT, NULL, 0);
	fl_free(fl__vm_stats);
	fl__vm_stats = NULL;
}

static int64_t sum_event(int item)
{
	int64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= nr_cpu_ids_get(); cpu++)
		s += (int64_t)READ_ONCE(fl__vm_stats[cpu].events[item]);
	return s;
}

static int64_t sum_node(int nid, int item)
{
	int64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= nr_cpu_ids_get(); cpu++)
		s += READ_ONCE(fl__vm_stats[cpu].node[nid][item]);
	return s;
}

static int64_t mthp_stat_sum(int order, enum mthp_stat_item item)
{
	int64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= nr_cpu_ids_get(); cpu++)
		s += READ_ONCE(fl__vm_stats[cpu].mthp[order][item]);
	return s;
}

unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item)
{
	int64_t s = sum_node(pgdat->node_id, item);

	return s > 0 ? (unsigned long)s : 0;
}

int64_t fl__fl_stat_sum(enum fl_stat_item item)
{
	int64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= nr_cpu_ids_get(); cpu++)
		s += READ_ONCE(fl__vm_stats[cpu].fl[item]);
	return s;
}

static int64_t node_stat_sum(enum node_stat_item item)
{
	int64_t s = 0;
	int nid;

	for_each_online_node (nid)
		s += sum_node(nid, item);
	return s;
}

/**
 * fl__vmstat_snapshot() - every counter, by name, into @c.
 * Return: 0 or -ENOMEM.
 */
int fl__vmstat_snapshot(struct fl_counters *c)
{
	static const char *const lru_names[NR_LRU_LISTS] = {
		"nr_inactive_anon", "nr_active_anon", "nr_inactive_file",
		"nr_active_file",   "nr_unevictable",
	};
	long lru[NR_LRU_LISTS] = { 0 };
	int64_t free_pages = 0;
	char name[FL_NAME_MAX];
	int nid, i, order, ret = 0;

	for_each_online_node (nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		free_pages += READ_ONCE(pgdat->node_zones[0].free_pages);
		for (i = 0; i < NR_LRU_LISTS; i++)
			lru[i] += (long)node_lru_pages(pgdat, (enum lru_list)i);
	}
	ret |= fl_counters_set(c, "nr_free_pages", free_pages);
	for (i = 0; i < NR_LRU_LISTS; i++)
		ret |= fl_counters_set(c, lru_names[i], lru[i]);
	ret |= fl_counters_set(c, "nr_anon_pages", node_stat_sum(NR_ANON_MAPPED));
	ret |= fl_counters_set(c, "nr_anon_transparent_hugepages",
			       node_stat_sum(NR_ANON_THPS) / HPAGE_PMD_NR);
	ret |= fl_counters_set(c, "nr_page_table_pages", node_stat_sum(NR_PAGETABLE));
	ret |= fl_counters_set(c, "nr_file_pages", node_stat_sum(NR_FILE_PAGES));
	ret |= fl_counters_set(c, "nr_shmem", node_stat_sum(NR_SHMEM));
	ret |= fl_counters_set(c, "nr_shmem_hugepages",
			       node_stat_sum(NR_SHMEM_THPS) / HPAGE_PMD_NR);
	ret |= fl_counters_set(c, "nr_mapped", node_stat_sum(NR_FILE_MAPPED));
	ret |= fl_counters_set(c, "nr_shmem_pmdmapped",
			       node_stat_sum(NR_SHMEM_PMDMAPPED) / HPAGE_PMD_NR);
	ret |= fl_counters_set(c, "nr_swapcached", node_stat_sum(NR_SWAPCACHE));
	ret |= fl_counters_set(c, "nr_vmscan_write", node_stat_sum(NR_VMSCAN_WRITE));
	ret |= fl_counters_set(c, "nr_written", node_stat_sum(NR_WRITTEN));
	ret |= fl_counters_set(c, "workingset_refault_anon",
			       node_stat_sum(WORKINGSET_REFAULT_ANON));
	ret |= fl_counters_set(c, "workingset_activate_anon",
			       node_stat_sum(WORKINGSET_ACTIVATE_ANON));
	ret |= fl_counters_set(c, "workingset_restore_anon",
			       node_stat_sum(WORKINGSET_RESTORE_ANON));
	ret |= fl_counters_set(c, "nr_zspages", node_stat_sum(NR_ZSPAGES));
	ret |= fl_counters_set(c, "nr_isolated_anon", node_stat_sum(NR_ISOLATED_ANON));
	ret |= fl_counters_set(c, "nr_isolated_file", node_stat_sum(NR_ISOLATED_FILE));
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		ret |= fl_counters_set(c, vm_event_names[i], sum_event(i));
	ret |= fl__fraginfo_snapshot(c);
	if (fl__swap_info) {
		/* zram's mm_stat (bytes, pages), as the host reports /sys/block/zram0/mm_stat */
		const struct zram_stats *z = &fl__swap_info->zram;

		ret |= fl_counters_set(c, "zram_orig_data_size",
				       (int64_t)(READ_ONCE(z->pages_stored) * PAGE_SIZE));
		ret |= fl_counters_set(c, "zram_compr_data_size",
				       (int64_t)READ_ONCE(z->compr_data_size));
		ret |= fl_counters_set(c, "zram_mem_used_total",
				       (int64_t)(READ_ONCE(z->pool_pages) * PAGE_SIZE));
		ret |= fl_counters_set(c, "zram_same_pages", (int64_t)READ_ONCE(z->same_pages));
		ret |= fl_counters_set(c, "zram_huge_pages", 0);
	}
	for (order = 1; order <= PMD_ORDER; order++) {
		for (i = 0; i < __MTHP_STAT_COUNT; i++) {
			if (order == 1 && !mthp_stat_for_order1(i))
				continue;
			snprintf(name, sizeof(name), "hugepages-%lukB/stats/%s",
				 (PAGE_SIZE << order) / 1024, mthp_stat_names[i]);
			ret |= fl_counters_set(c, name, mthp_stat_sum(order, i));
		}
	}
	for (i = 0; i < NR_FL_STAT_ITEMS; i++)
		ret |= fl_counters_set(c, fl_stat_names[i], fl__fl_stat_sum(i));
	ret |= fl__khugepaged_counters(c);
	return ret ? -ENOMEM : 0;
}
