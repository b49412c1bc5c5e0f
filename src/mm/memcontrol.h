/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * memcontrol.h - memory cgroups with cgroup v2 semantics: page counters,
 * charging and uncharging, a lruvec per memcg per node, memory.stat,
 * memory.events (include/linux/memcontrol.h, page_counter.h).
 *
 * The model's hierarchy is the root and its children (no grandchildren):
 * a workload run with --memcg-max or --memcg-high runs in one child. The
 * root is never charged and has no struct here: its folios keep
 * memcg_data 0 and live on the node's own lruvec (pgdat->__lruvec), which
 * is what the kernel's root memcg lruvec is.
 *
 * Conventions in this file: sizes are pages; "memcg" is a child, NULL
 * stands for the root.
 */
#ifndef FL_MM_MEMCONTROL_H
#define FL_MM_MEMCONTROL_H

#include "mm_types.h"
#include "vmstat.h"
#include "swapops.h"
#include <limits.h>

#define MEMCG_CHARGE_BATCH 64 /* pages a CPU's stock charges ahead */
#define NR_MEMCG_STOCK 7      /* memcgs a CPU's stock may hold pages of */
#define MEMCG_MAX_CHILDREN 8
#define PAGE_COUNTER_MAX (LONG_MAX / (long)PAGE_SIZE)
#define MEMCG_RECLAIM_MAY_SWAP (1u << 1)
#define MEMCG_RECLAIM_PROACTIVE (1u << 2)

/* memory.events, in the file's order */
enum memcg_memory_event {
	MEMCG_LOW,
	MEMCG_HIGH,
	MEMCG_MAX,
	MEMCG_OOM,
	MEMCG_OOM_KILL,
	MEMCG_OOM_GROUP_KILL,
	MEMCG_SOCK_THROTTLED,
	MEMCG_SWAP_HIGH, /* memory.swap.events from here */
	MEMCG_SWAP_MAX,
	MEMCG_SWAP_FAIL,
	MEMCG_NR_MEMORY_EVENTS,
};

/* struct page_counter - a usage with a limit, charged up the hierarchy. */
struct page_counter {
	long usage; /* atomic */
	long max;
	long high;	/* memory.high: over it, the charging task reclaims */
	long watermark; /* memory.peak; atomic */
	struct page_counter *parent;
};

/* per-CPU counts, written by the owning CPU, summed when read */
struct memcg_vmstats_percpu {
	uint64_t events[NR_VM_EVENT_ITEMS];
	int64_t state[NR_VM_NODE_STAT_ITEMS];
	uint64_t stats_updates; /* this CPU's updates not yet added to the memcg's */
} __cacheline_aligned;

struct mem_cgroup {
	struct page_counter memory;
	struct page_counter swap; /* memory.swap.current (no swap.max in the model) */
	long memory_events[MEMCG_NR_MEMORY_EVENTS];  /* atomic */
	struct memcg_vmstats_percpu *vmstats_percpu; /* [nr_cpu_ids + 1] */
	struct lruvec *nodeinfo;		     /* [nr_node_ids]: its lruvec per node */
	struct deferred_split deferred_split_queue;  /* its large folios to split later */
	unsigned short id;			     /* 1..: the swap_cgroup record */
	long stats_updates;	  /* atomic: updates since the last stats flush, in batches */
	int64_t activate_flushed; /* WORKINGSET_ACTIVATE_ANON at the last flush */
	int oom_lock;		  /* atomic: one OOM report */
	char name[32];
};

extern struct mem_cgroup *fl__memcgs[MEMCG_MAX_CHILDREN + 1]; /* by id; [0] the root: NULL */
extern int fl__nr_memcgs;				      /* children made */
/* the memcg the model's processes are made in (the run's cgroup); NULL: the root */
extern struct mem_cgroup *fl__run_memcg;

static inline struct mem_cgroup *folio_memcg(const struct folio *folio)
{
	return (struct mem_cgroup *)READ_ONCE(folio->memcg_data);
}

/* mem_cgroup_lruvec() - @memcg's lruvec on @pgdat; the node's own for the root */
static inline struct lruvec *mem_cgroup_lruvec(struct mem_cgroup *memcg, struct pglist_data *pgdat)
{
	return memcg ? &memcg->nodeinfo[pgdat->node_id] : &pgdat->__lruvec;
}

static inline struct mem_cgroup *lruvec_memcg(const struct lruvec *lruvec)
{
	return lruvec->memcg;
}

/* this CPU's slot in a [nr_cpu_ids + 1] per-CPU array (the last: an unbound thread) */
static inline int memcg_cpu_slot(void)
{
	return fl__cpu < 0 ? fl__nr_cpu_ids : fl__cpu;
}

static inline struct memcg_vmstats_percpu *memcg_this_cpu(struct mem_cgroup *memcg)
{
	return &memcg->vmstats_percpu[memcg_cpu_slot()];
}

/*
 * The rstat flush of the memcg's statistics (6.18: mm/memcontrol.c).
 * Every update of a memcg stat or event adds its size to the CPU's
 * stats_updates; at MEMCG_CHARGE_BATCH the CPU adds its count to the
 * memcg's, and a memcg with more than MEMCG_CHARGE_BATCH x CPUs pending
 * "needs a flush". What the model reads flushed is what
 * lruvec_page_state() reads: a memcg lruvec's LRU sizes
 * (memcg_lruvec_flushed(): inactive_is_low(), lru_note_cost()). A flush
 * copies the exact sizes. Flushes happen every FLUSH_TIME (2 s) of the
 * run (the kernel's periodic work, forced), when memory.stat is read
 * (fl__memcg_snapshot(): if the memcg needs one), and from reclaim and
 * refault (mem_cgroup_flush_stats_ratelimited(): only when the periodic
 * flush is a whole period late). Knob foliolab/memcg_stats_flush=off reads
 * them exact instead.
 */
void memcg_rstat_spill(struct mem_cgroup *memcg, struct memcg_vmstats_percpu *statc);
void mem_cgroup_flush_stats(struct mem_cgroup *memcg);
void mem_cgroup_flush_stats_ratelimited(struct mem_cgroup *memcg);
unsigned long memcg_lruvec_flushed(struct lruvec *lruvec, enum lru_list lru);
int64_t memcg_activate_flushed(struct mem_cgroup *memcg); /* WORKINGSET_ACTIVATE_ANON */

static inline void memcg_rstat_updated(struct mem_cgroup *memcg, long val)
{
	struct memcg_vmstats_percpu *statc = memcg_this_cpu(memcg);
	uint64_t n = __atomic_load_n(&statc->stats_updates, __ATOMIC_RELAXED) +
		     (uint64_t)(val < 0 ? -val : val);

	__atomic_store_n(&statc->stats_updates, n, __ATOMIC_RELAXED);
	if (unlikely(n >= MEMCG_CHARGE_BATCH))
		memcg_rstat_spill(memcg, statc);
}

/* lruvec_page_state_lru() - @lruvec's own LRU size, a memcg's as last flushed */
static inline unsigned long lruvec_page_state_lru(struct lruvec *lruvec, enum lru_list lru)
{
	if (lruvec->memcg)
		return memcg_lruvec_flushed(lruvec, lru);
	return READ_ONCE(lruvec->nr_pages[lru]);
}

/* node_lru_pages() - an LRU list's pages on @pgdat: the root's lruvec and every memcg's */
static inline unsigned long node_lru_pages(struct pglist_data *pgdat, enum lru_list lru)
{
	unsigned long n = 0;
	int m;

	for (m = 0; m <= fl__nr_memcgs; m++)
		n += READ_ONCE(mem_cgroup_lruvec(fl__memcgs[m], pgdat)->nr_pages[lru]);
	return n;
}

/*
 * lruvec_tree_size() - an LRU size as lruvec_page_state() reads it:
 * hierarchical, so the root's lruvec counts the whole node; a memcg's as
 * of the last stats flush (memcontrol.h). The root's is read exact: the
 * kernel's root memcg lruvec reads flushed sizes too (not modelled)
 */
static inline unsigned long lruvec_tree_size(struct lruvec *lruvec, enum lru_list lru)
{
	if (lruvec->memcg)
		return memcg_lruvec_flushed(lruvec, lru);
	return node_lru_pages(lruvec->pgdat, lru);
}

/* count_memcg_events() - an event in memory.stat (no-op for the root) */
static inline void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item item,
				      unsigned long n)
{
	if (memcg) {
		fl_this_cpu_add_u64(&memcg_this_cpu(memcg)->events[item], n);
		memcg_rstat_updated(memcg, (long)n);
	}
}

static inline void count_memcg_folio_events(const struct folio *folio, enum vm_event_item item,
					    unsigned long n)
{
	count_memcg_events(folio_memcg(folio), item, n);
}

static inline void count_memcg_event_mm(const struct mm_struct *mm, enum vm_event_item item)
{
	count_memcg_events(mm->memcg, item, 1);
}

/* mod_lruvec_state() - a node stat and, for a memcg's lruvec, the memcg's copy */
static inline void mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item item, long delta)
{
	mod_node_page_state(lruvec->pgdat, item, delta);
	if (lruvec->memcg) {
		fl_this_cpu_add_s64(&memcg_this_cpu(lruvec->memcg)->state[item], delta);
		memcg_rstat_updated(lruvec->memcg, delta);
	}
}

/* lruvec_stat_mod_folio() - a node stat of @folio's node, and its memcg's */
static inline void lruvec_stat_mod_folio(const struct folio *folio, enum node_stat_item item,
					 long delta)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	mod_node_page_state(folio_pgdat(folio), item, delta);
	if (memcg) {
		fl_this_cpu_add_s64(&memcg_this_cpu(memcg)->state[item], delta);
		memcg_rstat_updated(memcg, delta);
	}
}

int fl__memcg_init(void);
void fl__memcg_exit(void);
struct mem_cgroup *fl__mem_cgroup_create(const char *name, long max, long high);
int mem_cgroup_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp);
int mem_cgroup_swapin_charge_folio(struct folio *folio, struct mm_struct *mm, gfp_t gfp,
				   swp_entry_t entry);
void __mem_cgroup_uncharge(struct folio *folio, unsigned long nr);
/* mem_cgroup_migrate() - @new takes over @old's charge (migration); @old is left uncharged */
void mem_cgroup_migrate(struct folio *old, struct folio *new);
int mem_cgroup_try_charge_swap(struct folio *folio, swp_entry_t entry);
void mem_cgroup_uncharge_swap(swp_entry_t entry, unsigned int nr);
void mem_cgroup_handle_over_high(void);
int mem_cgroup_reclaim(struct mem_cgroup *memcg, unsigned long nr_pages, int swappiness);
void drain_all_stock(void);
uint64_t memcg_events(struct mem_cgroup *memcg, enum vm_event_item item);
int64_t memcg_page_state(struct mem_cgroup *memcg, enum node_stat_item item);
unsigned long memcg_lru_pages(struct mem_cgroup *memcg, enum lru_list lru);
struct fl_counters;
int fl__memcg_snapshot(struct mem_cgroup *memcg, struct fl_counters *c);

/* vmscan.c */
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg, unsigned long nr_pages,
					   gfp_t gfp_mask, unsigned int reclaim_options,
					   int swappiness);

#endif /* FL_MM_MEMCONTROL_H */
