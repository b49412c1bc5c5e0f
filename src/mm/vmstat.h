/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vmstat.h - /proc/vmstat-named event counters, node gauges and the per-size
 * mTHP stats (include/linux/vm_event_item.h, mmzone.h, huge_mm.h).
 *
 * Every counter is a per-CPU slot written by its owning CPU without
 * atomics and summed when read, so counting never shares a cache line.
 * Model-only counters are named fl_* so nobody takes them for the kernel's.
 *
 * Conventions in this file: "event" counters only grow; "node stat" and
 * mTHP gauges are signed per-CPU deltas.
 */
#ifndef FL_MM_VMSTAT_H
#define FL_MM_VMSTAT_H

#include "mm_types.h"

enum vm_event_item {
	PGALLOC_NORMAL,
	PGFREE,
	PGACTIVATE,
	PGDEACTIVATE,
	PGLAZYFREE,
	PGFAULT,
	PGMAJFAULT,
	PGLAZYFREED,
	PGREUSE,
	PGROTATED,
	PGPGIN,	 /* KiB read from block devices (the block layer counts sectors) */
	PGPGOUT, /* KiB written */
	PSWPIN,
	PSWPOUT,
	SWAP_RA,     /* pages swap readahead read beside the faulting one */
	SWAP_RA_HIT, /* swap faults that found a readahead page */
	SWPIN_ZERO,
	SWPOUT_ZERO,
	UNEVICTABLE_PGCULLED,
	UNEVICTABLE_PGRESCUED,
	THP_FAULT_ALLOC,
	THP_FAULT_FALLBACK,
	THP_FAULT_FALLBACK_CHARGE,
	THP_SPLIT_PAGE,
	THP_SPLIT_PAGE_FAILED,
	THP_DEFERRED_SPLIT_PAGE,
	THP_SPLIT_PMD,
	THP_ZERO_PAGE_ALLOC,
	THP_ZERO_PAGE_ALLOC_FAILED,
	THP_FILE_ALLOC,
	THP_FILE_FALLBACK,
	THP_FILE_FALLBACK_CHARGE,
	THP_FILE_MAPPED,
	THP_UNDERUSED_SPLIT_PAGE,
	THP_SWPOUT,
	THP_SWPOUT_FALLBACK,
	THP_COLLAPSE_ALLOC,
	THP_COLLAPSE_ALLOC_FAILED,
	THP_SCAN_EXCEED_NONE_PTE,
	THP_SCAN_EXCEED_SWAP_PTE,
	THP_SCAN_EXCEED_SHARED_PTE,
	PGREFILL,
	/* by reclaimer, in reclaimer_offset() order */
	PGSTEAL_KSWAPD,
	PGSTEAL_DIRECT,
	PGSTEAL_KHUGEPAGED,
	PGSTEAL_PROACTIVE,
	PGSCAN_KSWAPD,
	PGSCAN_DIRECT,
	PGSCAN_KHUGEPAGED,
	PGSCAN_PROACTIVE,
	PGSCAN_DIRECT_THROTTLE,
	PGSCAN_ANON,
	PGSCAN_FILE,
	PGSTEAL_ANON,
	PGSTEAL_FILE,
	SLABS_SCANNED,
	KSWAPD_LOW_WMARK_HIT_QUICKLY,
	KSWAPD_HIGH_WMARK_HIT_QUICKLY,
	PAGEOUTRUN,
	ALLOCSTALL_NORMAL,
	ALLOCSTALL_MOVABLE,
	OOM_KILL,
	PGMIGRATE_SUCCESS, /* pages migrated */
	PGMIGRATE_FAIL,	   /* pages that failed to */
	THP_MIGRATION_SUCCESS,
	THP_MIGRATION_FAIL,
	THP_MIGRATION_SPLIT,
	COMPACTMIGRATE_SCANNED, /* pages the migrate scanner looked at */
	COMPACTFREE_SCANNED,	/* pages the free scanner looked at */
	COMPACTISOLATED,	/* pages either scanner isolated */
	COMPACTSTALL,		/* direct compactions */
	COMPACTFAIL,		/* of those, that did not give the allocation its page */
	COMPACTSUCCESS,		/* and that did */
	KCOMPACTD_WAKE,
	KCOMPACTD_MIGRATE_SCANNED,
	KCOMPACTD_FREE_SCANNED,
	NR_VM_EVENT_ITEMS
};

enum node_stat_item {
	NR_ANON_MAPPED, /* "nr_anon_pages" */
	NR_ANON_THPS,	/* pages; printed in PMD units */
	NR_PAGETABLE,
	NR_FILE_PAGES,		  /* page cache pages */
	NR_SHMEM,		  /* of those, shmem and tmpfs */
	NR_SHMEM_THPS,		  /* pages of PMD-sized shmem folios; printed in PMD units */
	NR_FILE_MAPPED,		  /* "nr_mapped": mapped page-cache pages */
	NR_SHMEM_PMDMAPPED,	  /* pages of PMD-mapped shmem folios; printed in PMD units */
	NR_SWAPCACHE,		  /* "nr_swapcached": pages in the swap cache */
	NR_VMSCAN_WRITE,	  /* pages reclaim wrote out */
	NR_WRITTEN,		  /* pages whose writeback completed */
	WORKINGSET_REFAULT_ANON,  /* "workingset_refault_anon" (node stats in the kernel) */
	WORKINGSET_ACTIVATE_ANON, /* "workingset_activate_anon" */
	WORKINGSET_RESTORE_ANON,  /* "workingset_restore_anon" */
	NR_ZSPAGES,		  /* zsmalloc's pages (a zone stat in the kernel) */
	NR_ISOLATED_ANON,	  /* pages reclaim holds off the LRU now */
	NR_ISOLATED_FILE,
	NR_VM_NODE_STAT_ITEMS
};

enum mthp_stat_item {
	MTHP_STAT_ANON_FAULT_ALLOC,
	MTHP_STAT_ANON_FAULT_FALLBACK,
	MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE,
	MTHP_STAT_ZSWPOUT,
	MTHP_STAT_SWPIN,
	MTHP_STAT_SWPIN_FALLBACK,
	MTHP_STAT_SWPIN_FALLBACK_CHARGE,
	MTHP_STAT_SWPOUT,
	MTHP_STAT_SWPOUT_FALLBACK,
	MTHP_STAT_SHMEM_ALLOC,
	MTHP_STAT_SHMEM_FALLBACK,
	MTHP_STAT_SHMEM_FALLBACK_CHARGE,
	MTHP_STAT_SPLIT,
	MTHP_STAT_SPLIT_FAILED,
	MTHP_STAT_SPLIT_DEFERRED,
	MTHP_STAT_NR_ANON,
	MTHP_STAT_NR_ANON_PARTIALLY_MAPPED,
	__MTHP_STAT_COUNT
};

/* Counters the kernel does not have; the model can see them. */
enum fl_stat_item {
	FL_LRU_ADD_FLUSH,      /* folio_batch_move_lru() calls on lru_add */
	FL_LRU_ADD_DEAD,       /* folios only the lru_add batch still held */
	FL_LRU_ADD_FREED_DEAD, /* of those, freed by --lru-add-free-dead */
	FL_TLB_FORCE_FLUSH,    /* mmu_gather ran out of batches mid-zap */
	FL_TLB_FLUSH,	       /* TLB flushes: an mmu_gather with cleared entries */
	FL_TLB_SHOOTDOWN_WAIT, /* flush_tlb_mm() waited for a CPU mid-access */
	FL_PCP_REFILL,	       /* rmqueue_bulk() calls */
	FL_PCP_FREE_BULK,      /* free_pcppages_bulk() calls */
	FL_EXTFRAG_CLAIM,      /* fallbacks that claimed a block for their type */
	FL_EXTFRAG_STEAL,      /* fallbacks that took a block of another type as it is */
	FL_LIVE_FOLIOS,	       /* gauge: allocated blocks not yet freed */
	FL_PT_RECLAIM,	       /* empty PTE tables freed by MADV_DONTNEED */
	FL_XA_VISIT,	       /* page-cache XArray nodes a walk entered */
	FL_XA_STORE,	       /* page-cache XArray slots written */
	FL_XA_NODE_ALLOC,      /* page-cache XArray nodes allocated */
	FL_SPLIT_WALK,	       /* after-split folios published (either walk) */
	FL_MIGRATION_WAIT,     /* faults that found a migration entry and waited */
	FL_VMA_LOCK_RETRY,     /* faults under the VMA lock done again under mmap_lock */
	FL_PGFREE_RCU,	       /* of pgfree: page tables the kernel frees after RCU */
	FL_PGFREE_ATOMIC,      /* of pgfree: pages the kernel frees with preemption off */
	FL_PGALLOC_UPPER,     /* of pgalloc: PGD, PUD and PMD tables (a host process has its own) */
	FL_KSWAPD_NS,	      /* time kswapd spent reclaiming (balance_pgdat()) */
	FL_DIRECT_RECLAIM_NS, /* time allocations spent in direct reclaim */
	FL_KHUGEPAGED_NS,     /* time khugepaged's thread spent in its passes */
	FL_ACCESS_PTE,	      /* pages "hardware" reached through a PTE (a dTLB stand-in) */
	FL_ACCESS_PMD,	      /* ... through a huge PMD */
	FL_DTLB_LOAD_MISSES,  /* loads whose translation took a page walk (perf's name) */
	FL_DTLB_STORE_MISSES, /* stores whose translation took a page walk */
	NR_FL_STAT_ITEMS
};

struct vm_cpu_stats {
	uint64_t events[NR_VM_EVENT_ITEMS];
	int64_t node[MAX_NUMNODES][NR_VM_NODE_STAT_ITEMS];
	int64_t mthp[PMD_ORDER + 1][__MTHP_STAT_COUNT];
	int64_t fl[NR_FL_STAT_ITEMS];
} __cacheline_aligned;

extern struct vm_cpu_stats *fl__vm_stats; /* [nr_cpu_ids + 1] */

static inline struct vm_cpu_stats *this_cpu_vm_stats(void)
{
	return (struct vm_cpu_stats *)fl__this_cpu_area[FL_PERCPU_VMSTAT];
}

static inline void count_vm_events(enum vm_event_item item, unsigned long n)
{
	fl_this_cpu_add_u64(&this_cpu_vm_stats()->events[item], n);
}

static inline void count_vm_event(enum vm_event_item item)
{
	count_vm_events(item, 1);
}

static inline void mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item,
				       long delta)
{
	fl_this_cpu_add_s64(&this_cpu_vm_stats()->node[pgdat->node_id][item], delta);
}

/* node_page_state() - a node stat summed over the CPUs (racy, as the kernel's) */
unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item);

static inline void mod_mthp_stat(int order, enum mthp_stat_item item, long delta)
{
	/* like the kernel: order-0 and beyond-PMD folios have no mTHP stats */
	if (order <= 0 || order > PMD_ORDER)
		return;
	fl_this_cpu_add_s64(&this_cpu_vm_stats()->mthp[order][item], delta);
}

static inline void count_mthp_stat(int order, enum mthp_stat_item item)
{
	mod_mthp_stat(order, item, 1);
}

/* this CPU's own count of @item (per-task figures where each task has its CPU) */
static inline int64_t this_cpu_fl_stat(enum fl_stat_item item)
{
	return READ_ONCE(this_cpu_vm_stats()->fl[item]);
}

static inline void count_fl_stat(enum fl_stat_item item, long delta)
{
	fl_this_cpu_add_s64(&this_cpu_vm_stats()->fl[item], delta);
}

#endif /* FL_MM_VMSTAT_H */
