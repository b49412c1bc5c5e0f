/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * internal.h - what the mm/ files share among themselves (mm/internal.h
 * in the kernel). Nothing outside src/mm and src/target/model.c includes it.
 *
 * Conventions in this file: prototypes are grouped under the file that
 * defines them; lock ranks (outermost first) feed the debug witness.
 */
#ifndef FL_MM_INTERNAL_H
#define FL_MM_INTERNAL_H

#include <errno.h>
#include "mm_types.h"
#include "folio.h"
#include "folio_batch.h"
#include "vmstat.h"
#include "tlbflush.h"
#include "memcontrol.h"
#include <foliolab/foliolab.h>

/* Lock ranks: a lock may only be taken while holding lower-ranked ones. */
enum {
	FL_RANK_SPLIT_DEBUG = 10, /* split_debug_mutex: around a split_huge_pages write */
	FL_RANK_I_RWSEM = 15,
	FL_RANK_SHMEM_SB = 17,
	FL_RANK_MMAP_LOCK = 20,
	FL_RANK_I_MMAP = 24,
	FL_RANK_ANON_VMA = 26,
	/* a split drains the LRU caches under i_rwsem, mmap_lock, i_mmap or the anon_vma */
	FL_RANK_DRAIN_MUTEX = 28,
	FL_RANK_PAGE_TABLE_LOCK = 30,
	FL_RANK_PMD_PTL = 38,
	FL_RANK_PTE_PTL = 40,
	FL_RANK_LARGE_MAPCOUNT = 41, /* folio_lock_large_mapcount(), under a page-table lock */
	FL_RANK_SWAP_INFO = 42,	     /* swap_info_struct->lock: the cluster lists */
	FL_RANK_SWAP_CLUSTER = 43,   /* swap_cluster_info->lock: its slots and swap table */
	FL_RANK_ZS_POOL = 44,	     /* zsmalloc's size_class->lock */
	FL_RANK_I_PAGES = 45,
	FL_RANK_SHMEM_INODE = 46, /* shmem_inode_info->lock: the inode's charge */
	FL_RANK_MEMCG_STOCK = 49, /* memcg_stock_pcp.lock: a local lock in the kernel */
	FL_RANK_LOCAL_LOCK = 50,
	FL_RANK_LOCAL_LOCK_IRQ = 51,
	FL_RANK_LRU = 60,
	FL_RANK_SPLIT_QUEUE = 65, /* taken inside the lruvec lock by folios_put_refs() */
	FL_RANK_PCP = 70,
	FL_RANK_ZONE = 80,
	FL_RANK_KHUGEPAGED_MM = 86, /* khugepaged_mm_lock: the registered mms */
	FL_RANK_MMLIST = 87,
	FL_RANK_ANON_VMA_POOL = 88,
	FL_RANK_PGTABLE_POOL = 90,
};

/* page_alloc.c */
extern unsigned long fl__fail_page_alloc_orders;
/*
 * memory.c: read faults take a page of their own, as write faults do,
 * instead of the shared zero page (4 KiB or huge): the behaviour of a host
 * booted with pvm_no_zero_page=1 (a boot option of our hosts' PVM kernels
 * that stock kernels lack), emulated through mm_forbids_zeropage()
 */
extern bool fl__no_zero_page;

/*
 * mm_forbids_zeropage() - the arch hook that keeps the zero pages out of
 * @mm (0 on x86). The model's no_zero_page knob answers it, which is how
 * pvm_no_zero_page=1 behaves: every read fault allocates.
 */
static inline bool mm_forbids_zeropage(const struct mm_struct *mm)
{
	(void)mm;
	return READ_ONCE(fl__no_zero_page);
}
/* rmap.c: per-page mapcounts kept (CONFIG_PAGE_MAPCOUNT), foliolab/page_mapcount */
extern bool fl__page_mapcount;
/* huge_memory.c: publish after-split folios walking backwards (seed 002) */
extern bool fl__split_walk_reverse;
/* memory.c: test hook, every Nth store writes a wrong tag (0: off) */
extern unsigned long fl__corrupt_tag_every;
uint64_t fl__corrupt_tag(uint64_t tag);

/* The tag a store writes: the workload's, unless the test hook is on. */
static __always_inline uint64_t tag_to_store(uint64_t tag)
{
	return unlikely(fl__corrupt_tag_every) ? fl__corrupt_tag(tag) : tag;
}
int fl__page_alloc_init(unsigned long nr_pages, int nr_nodes, int nr_cpus);
/* the vm sysctls the model has (knobs vm/<name>) */
extern int min_free_kbytes;
extern int watermark_scale_factor;
extern unsigned long vm_swappiness;
/* vm.page-cluster: swap readahead reads up to 1 << page_cluster pages (at most 2^5) */
extern int page_cluster;
void fl__vm_sysctl_set(int *knob, int value);
void fl__page_alloc_exit(void);
struct page *__alloc_pages(gfp_t gfp, unsigned int order, int nid);
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct folio *folio_alloc(gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
void free_frozen_pages(struct page *page, unsigned int order);
unsigned long free_unref_folios(struct folio_batch *folios);
void drain_all_pages(struct zone *zone);
/* fl__oom_report() - 1 and the report if an allocation hit out_of_memory() */
int fl__oom_report(char *buf, size_t len);
/* fl__oom_record() - keep @report as the run's OOM report, unless one is kept already */
void fl__oom_record(const char *report);
long fl__page_alloc_check(char *msg, size_t len);
unsigned long fl__nr_free_pages(void);

/* vmscan.c */
void fl__lruvec_init(struct lruvec *lruvec, struct pglist_data *pgdat);
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio);
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio);
bool folio_isolate_lru(struct folio *folio);
unsigned long reclaim_pages(struct list_head *folio_list);
#define MAX_RECLAIM_RETRIES 16
#define SWAP_CLUSTER_MAX 32ul
/* wmark_pages(): a watermark plus the boost that fallbacks added (racy read) */
static inline unsigned long wmark_pages(const struct zone *z, enum zone_watermarks i)
{
	return READ_ONCE(z->wmark[i]);
}
static inline unsigned long min_wmark_pages(const struct zone *z)
{
	return wmark_pages(z, WMARK_MIN);
}
static inline unsigned long low_wmark_pages(const struct zone *z)
{
	return wmark_pages(z, WMARK_LOW);
}
static inline unsigned long high_wmark_pages(const struct zone *z)
{
	return wmark_pages(z, WMARK_HIGH);
}
#define SWAPPINESS_ANON_ONLY (MAX_SWAPPINESS + 1) /* memory.reclaim's swappiness=max */
#define MAX_SWAPPINESS 200
unsigned long try_to_free_pages(gfp_t gfp_mask, int order, int nid);
bool zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark);
void wakeup_kswapd(struct pglist_data *pgdat, gfp_t gfp, int order);
void zone_unboost(struct zone *zone, unsigned long boost);
int fl__fraginfo_snapshot(struct fl_counters *c);
bool free_area_empty(struct zone *zone, unsigned int order, int mt);
int find_suitable_fallback(struct zone *zone, unsigned int order, int mt, bool claimable);
unsigned long __isolate_free_page(struct page *page, unsigned int order);
void fl__prep_isolated_page(struct page *page, unsigned int order);
bool fl__free_pages_prepare(struct page *page, unsigned int order);
bool fl__zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark, long free_pages,
			   unsigned int alloc_flags);
void drain_pages_zone(int cpu, struct zone *zone);

/* zone_end_pfn(): the first pfn past @zone */
static inline unsigned long zone_end_pfn(const struct zone *zone)
{
	return zone->zone_start_pfn + zone->spanned_pages;
}

/* the never-touched max-order blocks past @zone's frontier: free, on no list (racy read) */
static inline unsigned long zone_frontier_blocks(const struct zone *zone)
{
	return (zone_end_pfn(zone) - READ_ONCE(zone->frontier_pfn)) >> MAX_PAGE_ORDER;
}

/* gfp_migratetype(): the mobility an allocation asks for */
static inline int gfp_migratetype(gfp_t gfp)
{
	if (gfp & __GFP_MOVABLE)
		return MIGRATE_MOVABLE;
	return (gfp & __GFP_RECLAIMABLE) ? MIGRATE_RECLAIMABLE : MIGRATE_UNMOVABLE;
}

/* ---- compaction.c (include/linux/compaction.h) ---- */

/* how hard direct compaction tries: sync-full, sync-light, async */
enum compact_priority {
	COMPACT_PRIO_SYNC_FULL,
	MIN_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_FULL,
	COMPACT_PRIO_SYNC_LIGHT,
	MIN_COMPACT_COSTLY_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	DEF_COMPACT_PRIORITY = COMPACT_PRIO_SYNC_LIGHT,
	COMPACT_PRIO_ASYNC,
	INIT_COMPACT_PRIORITY = COMPACT_PRIO_ASYNC
};

/* what a compaction ended with, worst to best as 6.18 orders them */
enum compact_result {
	COMPACT_NOT_SUITABLE_ZONE,
	COMPACT_SKIPPED,  /* not enough order-0 memory for targets, or not worth it */
	COMPACT_DEFERRED, /* failed at this order lately */
	COMPACT_NO_SUITABLE_PAGE,
	COMPACT_CONTINUE,
	COMPACT_COMPLETE,	 /* the whole zone scanned, nothing found */
	COMPACT_PARTIAL_SKIPPED, /* the scanners met on a partial scan */
	COMPACT_CONTENDED,
	COMPACT_SUCCESS /* a block of the order is free */
};

#define MAX_COMPACT_RETRIES 16

/* compact_gap(): the free pages compaction wants beside the block: targets for its moves */
static inline unsigned long compact_gap(unsigned int order)
{
	return 2ul << order;
}

extern int sysctl_compaction_proactiveness;
extern int sysctl_extfrag_threshold;
extern int watermark_boost_factor;
enum compact_result try_to_compact_pages(gfp_t gfp, unsigned int order, unsigned int alloc_flags,
					 int nid, enum compact_priority prio);
void compaction_alloc_succeeded(struct zone *zone, unsigned int order);
bool compaction_zonelist_suitable(int order, int nid, gfp_t gfp);
void wakeup_kcompactd(struct pglist_data *pgdat, int order);
void kcompactd_run(struct pglist_data *pgdat, int order);
void reset_isolation_suitable(struct pglist_data *pgdat);
void fl__compact_memory(void);
void fl__compaction_init(struct zone *zone);
/*
 * kswapd runs on a model CPU of its own per node (the last ones), which
 * the target's machine has when it was booted with room for them.
 */
int fl__kswapd_start(int nr_tasks);
void fl__kswapd_task_done(void);
void fl__kswapd_join(void);
int node_reclaim_proactive(int nid, unsigned long nr_pages, int swappiness);
extern int sysctl_min_unmapped_ratio; /* vm.min_unmapped_ratio, percent */
unsigned long zone_reclaimable_pages(struct zone *zone);
void lru_note_cost_refault(struct folio *folio);
/* workingset.c */
unsigned long workingset_eviction(struct folio *folio, struct mem_cgroup *target_memcg);
void workingset_activation(struct folio *folio);
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr);
void workingset_refault(struct folio *folio, unsigned long shadow);
/**
 * fl__lruvec_validate() - walk every list and compare with the counters.
 * Return: true when each list's pages equal its nr_pages and every folio
 * on a list has PG_lru and belongs there.
 * Context: nothing else runs (a check, not a lock user: it stays out of
 * the lock table).
 */
bool fl__lruvec_validate(struct lruvec *lruvec, char *msg, size_t len);

/* folio_lruvec() - the lruvec of @folio's memcg on its node (the node's own for the root) */
static inline struct lruvec *folio_lruvec(const struct folio *folio)
{
	return mem_cgroup_lruvec(folio_memcg(folio), folio_pgdat(folio));
}

static inline enum lru_list folio_lru_list(const struct folio *folio)
{
	unsigned long flags = READ_ONCE(folio->flags); /* one load for three bits */
	enum lru_list lru;

	if (flags & (1ul << PG_unevictable))
		return LRU_UNEVICTABLE;
	lru = (flags & (1ul << PG_swapbacked)) ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;
	if (flags & (1ul << PG_active))
		lru += LRU_ACTIVE;
	return lru;
}

/**
 * folio_lruvec_relock_irqsave() - hold @folio's lruvec lock, keeping the
 * one already held in *@lruvecp when it is the same lruvec.
 * @site: the caller's lock site, so the table names the real caller.
 */
static inline void folio_lruvec_relock_irqsave(struct folio *folio, struct lruvec **lruvecp,
					       struct fl_lock_site *site)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (*lruvecp == lruvec)
		return;
	if (*lruvecp)
		spin_unlock(&(*lruvecp)->lru_lock);
	fl_spin_lock_at(&lruvec->lru_lock, site);
	*lruvecp = lruvec;
}

static inline void lruvec_unlock_irqrestore(struct lruvec *lruvec)
{
	spin_unlock(&lruvec->lru_lock);
}

/* swap.c */
struct lru_cache_policy {
	unsigned int folio_pages; /* a folio may stay cached if nr_pages < this */
	unsigned int batch_pages; /* flush once a batch holds more; 0: no cap */
	unsigned int batch_slots; /* flush once a batch holds this many folios */
};
extern struct lru_cache_policy fl__lru_cache_policy;
extern bool fl__lru_add_free_dead;
int fl__swap_init(void);
void fl__swap_exit(void);

static inline bool folio_may_be_lru_cached(const struct folio *folio)
{
	return folio_nr_pages(folio) < fl__lru_cache_policy.folio_pages;
}

/**
 * folio_batch_add_lru_cache() - append @folio, of @nr_pages pages, and
 * count its pages (saturating at 255).
 * Return: 0 when the batch must be flushed now (the policy's slots full,
 * FOLIO_BATCH_SIZE at most, or more pages than its batch cap), else the
 * slots left.
 */
static inline unsigned int folio_batch_add_lru_cache(struct folio_batch *fb, struct folio *folio,
						     unsigned long nr_pages)
{
	unsigned long pages = fb->nr_pages + nr_pages;
	unsigned int cap = fl__lru_cache_policy.batch_pages;
	unsigned int slots = fl__lru_cache_policy.batch_slots;

	fb->nr_pages = (unsigned char)(pages > 255 ? 255 : pages);
	folio_batch_add(fb, folio);
	if (fb->nr >= slots)
		return 0;
	if (cap && pages > cap)
		return 0;
	return slots - fb->nr;
}

typedef void (*move_fn_t)(struct lruvec *lruvec, struct folio *folio);
void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn);
void folio_add_lru(struct folio *folio);
struct vm_area_struct;
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma);
void folio_rotate_reclaimable(struct folio *folio);
void folio_activate(struct folio *folio);
void deactivate_file_folio(struct folio *folio);
void folio_deactivate(struct folio *folio);
void folio_mark_lazyfree(struct folio *folio);
void folio_mark_accessed(struct folio *folio);
void lru_add_drain_cpu(int cpu);
void lru_add_drain(void);
void lru_add_drain_all(void);
/* seed 000: how far a batch of work has drained the LRU caches */
enum lru_cache_drained { LRU_CACHE_NOT_DRAINED, LRU_CACHE_DRAINED, LRU_CACHE_DRAINED_ALL };
void lru_cache_drain_for_folio(struct folio *folio, int extra_refs,
			       enum lru_cache_drained *drained);
/* huge_memory.c: drain the LRU caches before a split (seed 000 3/4); -1: as the policy implies */
extern int fl__split_drain;
extern int fl__cow_reuse_drain; /* seed 000 2/4: 1 on, 0 off, -1 auto */
/* huge_memory.c: deferred_split_scan() drains once per scan (seed 000 4/4), not per folio */
extern bool fl__deferred_split_drain_batch;
extern bool fl__memcg_stats_flush; /* knob foliolab/memcg_stats_flush (memcontrol.c) */
void lru_cache_disable(void);
void lru_cache_enable(void);
bool lru_cache_disabled(void);
unsigned long folios_put_refs(struct folio_batch *folios, unsigned int *refs);
static inline void folios_put(struct folio_batch *folios)
{
	folios_put_refs(folios, NULL);
}
/* test access: the CPU's batches */
struct folio_batch *fl__cpu_lru_add_batch(int cpu);
unsigned int fl__cpu_batches_count(int cpu);

/* swap_state.c */
struct encoded_page;
void free_pages_and_swap_cache(struct encoded_page **pages, int nr);

/* rmap.c */
#define RMAP_EXCLUSIVE 0x1

/* try_to_migrate() / try_to_unmap() flags */
#define TTU_SPLIT_HUGE_PMD 0x4ul /* split a PMD mapping first */
#define TTU_RMAP_LOCKED 0x80ul	 /* the caller holds the anon_vma or i_mmap lock */
/* remove_migration_ptes() flags */
#define RMP_LOCKED 0x1
#define RMP_USE_SHARED_ZEROPAGE 0x2

#define anon_vma_lock_write(av) down_write(&(av)->root->rwsem)
#define anon_vma_unlock_write(av) up_write(&(av)->root->rwsem)
#define anon_vma_lock_read(av) down_read(&(av)->root->rwsem)
#define anon_vma_unlock_read(av) up_read(&(av)->root->rwsem)

/* The page offset @address has in @vma (anon: the address's page number). */
static inline pgoff_t linear_page_index(const struct vm_area_struct *vma, unsigned long address)
{
	return ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* folio_mark_dirty(): tmpfs keeps no dirty accounting, so only the flag (noop_dirty_folio()) */
static inline void folio_mark_dirty(struct folio *folio)
{
	if (!folio_test_dirty(folio))
		folio_set_dirty(folio);
}

static inline bool vma_is_anonymous(const struct vm_area_struct *vma)
{
	return !vma->vm_ops;
}

/* The rss counter a folio's mappings count in. */
static inline int mm_counter_file(const struct folio *folio)
{
	return folio_test_swapbacked(folio) ? MM_SHMEMPAGES : MM_FILEPAGES;
}

static inline int mm_counter(const struct folio *folio)
{
	return folio_test_anon(folio) ? MM_ANONPAGES : mm_counter_file(folio);
}

int __anon_vma_prepare(struct vm_area_struct *vma);
static __always_inline int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (likely(fl_atomic_load(&vma->anon_vma, __ATOMIC_ACQUIRE)))
		return 0;
	return __anon_vma_prepare(vma);
}
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
void unlink_anon_vmas(struct vm_area_struct *vma);
struct anon_vma *folio_get_anon_vma(struct folio *folio);
void put_anon_vma(struct anon_vma *av);
void fl__rmap_init(void);
void fl__rmap_exit(void);

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, unsigned long address,
			     int flags, bool pmd);
void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma, int flags);
void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma);
void folio_add_file_rmap_pmd(struct folio *folio, struct page *page, struct vm_area_struct *vma);
void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma);
void folio_remove_rmap_pmd(struct folio *folio, struct page *page, struct vm_area_struct *vma);
int folio_try_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
				 struct vm_area_struct *dst_vma);
int folio_try_dup_anon_rmap_pmd(struct folio *folio, struct vm_area_struct *dst_vma);
void folio_dup_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *dst_vma);
void folio_move_anon_rmap(struct folio *folio, struct vm_area_struct *vma);
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
/* the large-mapcount lock: a bit lock in _mm_ids in the kernel, a hashed spinlock here */
struct fl_spinlock *fl__large_mapcount_lock(const struct folio *folio);
#define folio_lock_large_mapcount(folio)                                                           \
	do {                                                                                       \
		FL_LOCK_SITE(site__);                                                              \
		fl_spin_lock_at(fl__large_mapcount_lock(folio), &site__);                          \
	} while (0)
#define folio_unlock_large_mapcount(folio) spin_unlock(fl__large_mapcount_lock(folio))

/* page_vma_mapped_walk() flags */
#define PVMW_SYNC 0x1	   /* look at every entry under its lock */
#define PVMW_MIGRATION 0x2 /* look for migration entries, not mappings */

struct page_vma_mapped_walk {
	unsigned long pfn; /* the folio's first page */
	unsigned long nr_pages;
	pgoff_t pgoff; /* its ->index */
	struct vm_area_struct *vma;
	unsigned long address; /* of the entry found */
	unsigned int flags;
	bool pmd; /* a huge PMD in pmdt maps it (pte NULL) */
	struct pgtable *pmdt;
	struct pgtable *ptet;
	pteval_t *pte;		 /* the PTE found */
	struct fl_spinlock *ptl; /* held while an entry is returned */
};
bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw);
void page_vma_mapped_walk_done(struct page_vma_mapped_walk *pvmw);

struct rmap_walk_control {
	void *arg;
	/* Return: false to stop the walk */
	bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma, unsigned long addr,
			 void *arg);
	int (*done)(struct folio *folio); /* non-zero: stop */
	/*
	 * folio_lock_anon_vma_read(): the anon folio need not be locked; a
	 * reference on its anon_vma keeps the chains while the walk runs
	 */
	bool anon_unlocked;
	bool try_lock;	/* only try the anon_vma or i_mmap lock ... */
	bool contended; /* ... and say here that it was held */
};
void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc);
void rmap_walk_locked(struct folio *folio, struct rmap_walk_control *rwc);
void try_to_migrate(struct folio *folio, unsigned long flags);
void try_to_unmap(struct folio *folio, unsigned long flags);
int folio_referenced(struct folio *folio, bool is_locked, unsigned long *vm_flags);
void remove_migration_ptes(struct folio *src, struct folio *dst, int flags);

/* khugepaged.c */
enum {
	KH_PAGES_TO_SCAN,
	KH_SCAN_SLEEP_MS,
	KH_ALLOC_SLEEP_MS,
	KH_MAX_PTES_NONE, /* thp_underused() uses it too */
	KH_MAX_PTES_SWAP,
	KH_MAX_PTES_SHARED,
	KH_DEFRAG,
	NR_KHUGEPAGED_KNOBS
};
extern unsigned int fl__khugepaged[NR_KHUGEPAGED_KNOBS];
extern bool fl__khugepaged_lazyfree_skip; /* seed 003: --khugepaged-lazyfree=skip */
/* seed 003's series, 2/4 (7.1): --khugepaged-progress=ptes */
extern bool fl__khugepaged_progress_ptes;
void fl__khugepaged_knobs_default(void);
int fl__khugepaged_knob_set(const char *name, const char *value, char *err, size_t len);
int fl__khugepaged_knob_get(const char *name, char *buf, size_t len);
const char *fl__khugepaged_knob_name(int i);
void khugepaged_enter_vma(struct vm_area_struct *vma, unsigned long vm_flags);
void khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm);
void khugepaged_exit(struct mm_struct *mm);
bool fl__khugepaged_do_scan(void (*alloc_sleep)(void));
void fl__khugepaged_forget(void);
void fl__khugepaged_reset(void);
void fl__khugepaged_wake(void);
extern int fl__khugepaged_cpu; /* the model CPU of khugepaged's thread; -1: no thread */
bool current_is_khugepaged(void);
int fl__khugepaged_start(int nr_tasks);
void fl__khugepaged_task_done(void);
void fl__khugepaged_join(void);
int fl__khugepaged_counters(struct fl_counters *c);
int madvise_collapse(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		     bool *mmap_dropped);

/* huge_memory.c */
struct fl_thp_knobs {
	int enabled; /* TRANSPARENT_HUGEPAGE_{NEVER,MADVISE,ALWAYS} */
	unsigned long orders_always;
	unsigned long orders_inherit;
	unsigned long orders_madvise;
	bool use_zero_page;
	bool shrink_underused;
	int defrag;
	/* shmem_enabled (SHMEM_HUGE_*, fs.h) and hugepages-<N>kB/shmem_enabled */
	int shmem_huge;
	unsigned long shmem_orders_always;
	unsigned long shmem_orders_inherit;
	unsigned long shmem_orders_within_size;
	unsigned long shmem_orders_madvise;
};
enum { THP_NEVER, THP_MADVISE, THP_ALWAYS };
/* transparent_hugepage/defrag, in the order sysfs lists the words */
enum {
	THP_DEFRAG_ALWAYS,
	THP_DEFRAG_DEFER,
	THP_DEFRAG_DEFER_MADVISE,
	THP_DEFRAG_MADVISE,
	THP_DEFRAG_NEVER
};
#define THP_ORDERS_ALL_ANON (((1ul << (PMD_ORDER + 1)) - 1) & ~3ul)
/* the page cache's orders: 1..MAX_PAGECACHE_ORDER, which is PMD_ORDER on x86 */
#define MAX_PAGECACHE_ORDER PMD_ORDER
#define THP_ORDERS_ALL_FILE_DEFAULT (((1ul << (MAX_PAGECACHE_ORDER + 1)) - 1) & ~1ul)
extern struct fl_thp_knobs fl__thp;
void fl__thp_knobs_default(void);
int fl__thp_knob_set(const char *name, const char *value, char *err, size_t len);
int fl__thp_knob_get(const char *name, char *buf, size_t len);
gfp_t vma_thp_gfp_mask(struct vm_area_struct *vma);
unsigned long thp_vma_allowable_orders(struct vm_area_struct *vma, unsigned long vm_flags,
				       unsigned long orders);
bool thp_vma_suitable_order(struct vm_area_struct *vma, unsigned long addr, int order);
struct vm_fault;
/* vma_thp_disabled(): THPs are off for @vma (MADV_NOHUGEPAGE; no prctl in the model) */
static inline bool vma_thp_disabled(const struct vm_area_struct *vma, unsigned long vm_flags)
{
	(void)vma;
	return vm_flags & VM_NOHUGEPAGE;
}
int do_huge_pmd_anonymous_page(struct vm_fault *vmf);
int copy_huge_pmd(struct vm_area_struct *dst_vma, struct pgtable *dst_pmdt,
		  struct pgtable *src_pmdt, int idx);
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
unsigned long fl__mm_anon_huge_bytes(struct mm_struct *mm);
/* the PTEs from @slot (at most @max_nr) that map @folio's pages from @pfn on */
int folio_pte_batch(struct folio *folio, unsigned long pfn, pteval_t *slot, int max_nr);
int fl__swapin_pte(struct vm_area_struct *vma, struct pgtable *pmdt, unsigned long address);
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
int do_huge_pmd_wp_page(struct vm_fault *vmf);
/*
 * The huge zero folio: one PMD-sized zeroed folio every read fault in a
 * THP range maps, allocated at the first (thp_zero_page_alloc) and kept
 * (huge_zero_refcount counts the mms that used it, plus the shrinker's
 * own reference) until the "thp-zero" shrinker finds nobody using it.
 */
extern unsigned long huge_zero_pfn; /* ~0ul while there is none; is_huge_zero_pmd(), pgtable.h */
struct folio *mm_get_huge_zero_folio(struct mm_struct *mm);
void mm_put_huge_zero_folio(struct mm_struct *mm);
/* foliolab/huge_zero_folio=present: allocate it before the run (a machine that has one) */
extern bool fl__huge_zero_at_start;
int fl__huge_zero_folio_prime(void);
void fl__huge_zero_folio_unprime(void);
/* the "thp-zero" shrinker: pages it would free, and freeing them */
unsigned long huge_zero_folio_shrink_count(void);
unsigned long huge_zero_folio_shrink_scan(void);
/* the folio left at teardown (0 or 1), or -1 if an mm still holds it */
int fl__huge_zero_folio_left(char *msg, size_t len);
/* the model goes: the folio with it, and the next boot starts without one */
void fl__huge_zero_folio_exit(void);
struct mmu_gather;
int zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		 unsigned long addr);
bool __split_huge_pmd(struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		      unsigned long haddr, bool freeze, struct folio *folio);
bool split_huge_pmd_address(struct vm_area_struct *vma, unsigned long address, bool freeze,
			    struct folio *folio);
void fl__deferred_split_init(struct deferred_split *ds_queue);
void deferred_split_folio(struct folio *folio, bool partially_mapped);
/* The deferred split shrinker ("thp-deferred_split" in shrinker debugfs). */
unsigned long deferred_split_count(int nid, struct mem_cgroup *memcg);
#define SHRINK_STOP (~0ul)
unsigned long deferred_split_scan(int nid, struct mem_cgroup *memcg, unsigned long nr_to_scan);
/* vmscan.c: every shrinker to the end, as "echo 2 > /proc/sys/vm/drop_caches" does */
void drop_slab(void);
bool can_split_folio(struct folio *folio, int caller_pins, int *pextra_pins);
int split_huge_page_to_list_to_order(struct page *page, struct list_head *list,
				     unsigned int new_order);
int folio_split(struct folio *folio, unsigned int new_order, struct page *split_at,
		struct list_head *list);
int try_folio_split_to_order(struct folio *folio, struct page *page, unsigned int new_order);
static inline int split_folio_to_order(struct folio *folio, unsigned int new_order)
{
	return split_huge_page_to_list_to_order((struct page *)folio, NULL, new_order);
}
static inline int split_folio(struct folio *folio)
{
	return split_folio_to_order(folio, 0);
}
int fl__split_huge_pages_write(const char *input);
void folio_unqueue_deferred_split(struct folio *folio);

/* memory.c */
#define VM_FAULT_OOM 0x1
#define VM_FAULT_SIGSEGV 0x2
#define VM_FAULT_FALLBACK 0x4
#define VM_FAULT_RETRY 0x8   /* retry under mmap_lock */
#define VM_FAULT_SIGBUS 0x10 /* an entry the model cannot resolve */
#define VM_FAULT_NOPAGE 0x20 /* a handler mapped the page (or a racer did) */
#define VM_FAULT_ERROR (VM_FAULT_OOM | VM_FAULT_SIGSEGV | VM_FAULT_SIGBUS)
#define FAULT_FLAG_WRITE 0x1
#define FAULT_FLAG_VMA_LOCK 0x1000 /* the fault holds the per-VMA lock, not mmap_lock */

struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address; /* page aligned */
	unsigned int flags;
	struct pgtable *pmdt; /* the PMD table */
	int pmd_idx;
	unsigned long orders;	      /* mTHP orders the knobs allow in this VMA */
	pgoff_t pgoff;		      /* file page of the address (linear_page_index()) */
	struct page *page;	      /* ->fault(): the file page, its folio locked */
	struct pgtable *prealloc_pte; /* fault-around's PTE table, for an empty PMD */
	/*
	 * The faulting access itself: a handler that maps the page may do it
	 * under the page-table lock and set done, sparing "hardware" the
	 * retry walk. NULL tag: no access to complete.
	 */
	uint64_t *tag;
	bool done;
};

/* Complete the faulting access on frame @pfn (page-table lock held). */
static inline void vmf_access(struct vm_fault *vmf, unsigned long pfn)
{
	if (!vmf->tag)
		return;
	if (vmf->flags & FAULT_FLAG_WRITE)
		page_tag_set(pfn, tag_to_store(*vmf->tag));
	else
		*vmf->tag = page_tag(pfn);
	vmf->done = true;
}

int vmf_anon_prepare(struct vm_fault *vmf);
pteval_t *fl__pte_lookup(struct mm_struct *mm, unsigned long addr, struct pgtable **ptetp);
pteval_t fl__pmd_entry(struct mm_struct *mm, unsigned long addr);
int handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags,
		    uint64_t *tag, bool *done);
struct zap_details {
	bool reclaim_pt;
	bool even_cows;		    /* zap private (CoW) anon pages too */
	struct folio *single_folio; /* only this folio's entries */
};
int do_set_pmd(struct vm_fault *vmf, struct folio *folio, struct page *page);
void set_pte_range(struct vm_fault *vmf, struct folio *folio, struct page *page, int nr,
		   unsigned long addr, pteval_t *slot);
struct pgtable *fl__vmf_pte_lock(struct vm_fault *vmf);
void fl__vmf_prealloc_install(struct vm_fault *vmf);
int finish_fault(struct vm_fault *vmf, struct folio *folio, struct page *page);
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end, const struct zap_details *details);
void free_pgtables(struct mmu_gather *tlb, struct mm_struct *mm, unsigned long addr,
		   unsigned long end, unsigned long floor, unsigned long ceiling);
int fl__mm_access(struct mm_struct *mm, unsigned long addr, bool write, uint64_t *tag);
int fl__mm_access_range(struct mm_struct *mm, unsigned long addr, unsigned long len,
			unsigned long stride, bool write, uint64_t tag, uint64_t step,
			uint64_t *tags, uint64_t *sum);

/* pgalloc.c */
struct pgtable *fl__pgtable_alloc(struct mm_struct *mm, int level);
void fl__pgtable_free(struct mm_struct *mm, struct pgtable *t);
void fl__pgtable_pool_init(struct mm_struct *mm);
void fl__pgtable_pool_destroy(struct mm_struct *mm);

/* mmu_gather.c */
#define MMU_GATHER_BUNDLE 8
#define MAX_GATHER_BATCH ((PAGE_SIZE - 2 * sizeof(void *)) / sizeof(void *))
#define MAX_GATHER_BATCH_COUNT (10000ul / MAX_GATHER_BATCH)
/* struct mmu_table_batch: an rcu_head and a count, then table pointers */
#define MAX_TABLE_BATCH ((PAGE_SIZE - 3 * sizeof(void *)) / sizeof(void *))
#define MAX_NR_FOLIOS_PER_FREE 512

struct mmu_gather_batch {
	struct mmu_gather_batch *next;
	unsigned int nr;
	unsigned int max;
	struct page *desc;		     /* the frame this batch page was allocated as */
	struct encoded_page **encoded_pages; /* local: __pages; else after the header */
};

struct mmu_gather {
	struct mm_struct *mm;
	bool fullmm;
	unsigned int batch_count;
	struct mmu_gather_batch *active;
	struct mmu_gather_batch local;
	struct encoded_page *__pages[MMU_GATHER_BUNDLE];
	unsigned long start, end; /* range needing a TLB flush; end 0: none */
	/* what the range holds (any set means a flush is due) */
	bool freed_tables, cleared_ptes, cleared_pmds;
	struct pgtable *table_list; /* page tables to free after the flush */
	/*
	 * the page the kernel's struct mmu_table_batch lives in, holding up
	 * to MAX_TABLE_BATCH of them (NULL: none yet, or none to be had);
	 * table_nr: the tables in it
	 */
	struct page *table_batch;
	unsigned int table_nr;
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm, bool fullmm);
void tlb_finish_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page, unsigned int nr_pages,
			      bool delay_rmap);
void tlb_remove_table(struct mmu_gather *tlb, struct pgtable *t, unsigned long addr);

/* __tlb_adjust_range() - [@addr, @addr + @size) needs a TLB flush */
static inline void __tlb_adjust_range(struct mmu_gather *tlb, unsigned long addr,
				      unsigned long size)
{
	if (addr < tlb->start)
		tlb->start = addr;
	if (addr + size > tlb->end)
		tlb->end = addr + size;
}

/* tlb_remove_tlb_entries() - @nr PTEs from @addr were cleared */
static inline void tlb_remove_tlb_entries(struct mmu_gather *tlb, unsigned long addr,
					  unsigned long nr)
{
	tlb->cleared_ptes = true;
	__tlb_adjust_range(tlb, addr, nr << PAGE_SHIFT);
}

/* tlb_remove_pmd_tlb_entry() - the huge PMD at @addr was cleared */
static inline void tlb_remove_pmd_tlb_entry(struct mmu_gather *tlb, unsigned long addr)
{
	tlb->cleared_pmds = true;
	__tlb_adjust_range(tlb, addr, PMD_SIZE);
}

/* ENCODED_PAGE bits in the low bits of an entry (pages are 64-byte aligned) */
#define ENCODED_PAGE_BIT_DELAY_RMAP 1ul
#define ENCODED_PAGE_BIT_NR_PAGES_NEXT 2ul
#define ENCODED_PAGE_BITS 3ul

static inline struct encoded_page *encode_page(struct page *page, unsigned long flags)
{
	return (struct encoded_page *)((unsigned long)page | flags);
}

static inline struct page *encoded_page_ptr(struct encoded_page *p)
{
	return (struct page *)((unsigned long)p & ~ENCODED_PAGE_BITS);
}

static inline unsigned long encoded_page_flags(struct encoded_page *p)
{
	return (unsigned long)p & ENCODED_PAGE_BITS;
}

static inline struct encoded_page *encode_nr_pages(unsigned long nr)
{
	return (struct encoded_page *)(nr << 2);
}

static inline unsigned long encoded_nr_pages(struct encoded_page *p)
{
	return (unsigned long)p >> 2;
}

/* mmap.c */
struct mm_struct *mm_alloc(int id);
void mmput(struct mm_struct *mm);
void mmgrab(struct mm_struct *mm);
void mmdrop(struct mm_struct *mm);
struct mm_struct *fl__find_get_mm(int pid);
void fl__mmap_exit(void);
void exit_mmap(struct mm_struct *mm);
int do_mmap(struct mm_struct *mm, unsigned long len, unsigned long vm_flags, unsigned long *addr);
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr);
void vma_end_read(struct vm_area_struct *vma);
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
int fl__split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr);
void vma_start_write(struct vm_area_struct *vma);
void vma_end_write(struct vm_area_struct *vma);
int fl__mm_nr_vmas(struct mm_struct *mm);
struct vm_area_struct *fl__mm_vma(struct mm_struct *mm, int i);
int64_t fl__mm_counter(struct mm_struct *mm, int member);

static inline unsigned long vma_start(const struct vm_area_struct *vma)
{
	return READ_ONCE(vma->vm_start);
}

static inline unsigned long vma_end(const struct vm_area_struct *vma)
{
	return READ_ONCE(vma->vm_end);
}

/* madvise.c */
#define MADV_DONTNEED 4
#define MADV_FREE 8
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#define MADV_HUGEPAGE 14
#define MADV_NOHUGEPAGE 15
#define MADV_COLLAPSE 25
int do_madvise(struct mm_struct *mm, unsigned long start, size_t len, int behavior);

/* vmstat.c */
int fl__vmstat_init(void);
void fl__vmstat_exit(void);
int fl__vmstat_snapshot(struct fl_counters *c);
int64_t fl__fl_stat_sum(enum fl_stat_item item);

/* mm_init.c */
struct fl_mm_config {
	unsigned long nr_pages;
	int nr_nodes;
	int nr_cpus;
	unsigned long swap_pages; /* a zram swap device of this many pages; 0: no swap */
	bool khugepaged;	  /* khugepaged's thread runs beside the tasks, on the last CPU */
};
int fl__mm_boot(const struct fl_mm_config *cfg, char *err, size_t len);
void fl__mm_shutdown(void);
int fl__mm_knob_set(const char *name, const char *value, char *err, size_t len);
int fl__mm_knobs_read(struct fl_knobs *out);
void fl__mm_knobs_default(void);
long fl__mm_quiesce_and_check(char *msg, size_t len);

#endif /* FL_MM_INTERNAL_H */
