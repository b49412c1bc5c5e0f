/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * swap.h - the swap device, its clusters, the swap cache and the zram disk
 * behind them (mm/swap.h, include/linux/swap.h, mm/swap_table.h and
 * drivers/block/zram/zram_drv.h in the kernel).
 *
 * Conventions in this file: one device, type 0; a slot is an offset.
 */
#ifndef FL_MM_SWAP_H
#define FL_MM_SWAP_H

#include "folio.h"
#include "list.h"
#include "swapops.h"

#define SWAPFILE_CLUSTER 512 /* CONFIG_THP_SWAP */
#define SWAP_NR_ORDERS (PMD_ORDER + 1)

/* a swap_map byte: the count of swap PTEs, and the cache bit */
#define SWAP_HAS_CACHE 0x40
#define SWAP_COUNT_MASK 0x3f
#define SWAP_MAP_MAX 0x3e /* counts above need continuation pages: not modelled (no fork yet) */
#define SWAP_MAP_BAD 0x3f

/* swap_info_struct flags */
#define SWP_USED (1ul << 0)
#define SWP_WRITEOK (1ul << 1)
#define SWP_SOLIDSTATE (1ul << 4)
#define SWP_SYNCHRONOUS_IO (1ul << 13)
#define SWP_STABLE_WRITES (1ul << 14)

enum {
	CLUSTER_FLAG_NONE,
	CLUSTER_FLAG_FREE,
	CLUSTER_FLAG_NONFULL,
	CLUSTER_FLAG_FRAG,
	CLUSTER_FLAG_FULL,
};

/* what a slot holds: the zeromap bit, zram's data, or both (an older copy) */
#define SLOT_ZERO 0x1	/* swap's zeromap: an all-zero page, not written to zram */
#define SLOT_STORED 0x2 /* zram holds the page */
#define SLOT_SAME 0x4	/* ... as a same-filled page (ZRAM_SAME): no memory */

struct swap_cluster_info {
	struct fl_spinlock lock;
	unsigned short count; /* slots with a count or the cache bit */
	unsigned char flags;
	unsigned char order;
	struct list_head list;	 /* si->lock */
	struct page *table_page; /* the memory of its swap table (allocated while in use) */
};

/*
 * zsmalloc, zram's pool (mm/zsmalloc.c): an object of a compressed page
 * plus its handle lives in a size class (32 bytes up, 16 apart), in a
 * zspage of 1..ZS_MAX_PAGES_PER_ZSPAGE order-0 pages.
 */
#define ZS_MIN_ALLOC_SIZE 32
#define ZS_SIZE_CLASS_DELTA 16
#define ZS_HANDLE_SIZE 8
#define ZS_MAX_PAGES_PER_ZSPAGE 8 /* CONFIG_ZSMALLOC_CHAIN_SIZE's default */
#define ZS_HANDLES_PER_PAGE (PAGE_SIZE / ZS_HANDLE_SIZE)
#define ZS_NR_CLASSES ((PAGE_SIZE - ZS_MIN_ALLOC_SIZE) / ZS_SIZE_CLASS_DELTA + 1)

struct zspage {
	struct list_head list; /* its class's zspages with a free object */
	struct page *pages[ZS_MAX_PAGES_PER_ZSPAGE];
	unsigned short inuse;
	unsigned char class_idx;
};

struct zs_class {
	unsigned int size, pages_per_zspage, objs_per_zspage;
	struct list_head partial; /* zspages with room */
};

/* zram's mm_stat, in pages and bytes */
struct zram_stats {
	unsigned long pages_stored;
	unsigned long compr_data_size; /* bytes */
	unsigned long same_pages;
	unsigned long max_used_pages; /* zspages' pages, at most */
	unsigned long pool_pages;     /* zspages' pages now (mem_used_total) */
	unsigned long notify_free;
	unsigned long failed_writes;
};

struct swap_info_struct {
	unsigned long flags;
	unsigned long max;   /* slots, the header's included */
	unsigned long pages; /* usable slots */
	unsigned long inuse_pages;
	unsigned long nr_clusters;
	unsigned char *swap_map;
	unsigned char *slot_flags;
	uint64_t *slot_tag;
	unsigned short *slot_memcg; /* the swap_cgroup: the id of the memcg charged; 0 the root */
	struct folio **table;	    /* the swap cache: the folio standing for each slot */
	unsigned long *shadow;	    /* ... or the shadow its evicted folio left (workingset.c) */
	struct swap_cluster_info *cluster_info;
	struct fl_spinlock lock;
	struct list_head free_clusters, full_clusters;
	struct list_head nonfull_clusters[SWAP_NR_ORDERS];
	struct list_head frag_clusters[SWAP_NR_ORDERS];
	unsigned long (*percpu_next)[SWAP_NR_ORDERS]; /* [cpu][order]: next offset, 0 none */
	struct zram_stats zram;
	struct zspage **slot_zspage; /* the zspage holding each stored slot's object */
	struct zs_class zs_class[ZS_NR_CLASSES];
	/* zsmalloc's handles (8 bytes each, a slab cache): a page per 512 */
	unsigned long zs_handles;
	struct page **zs_handle_pages;
	struct fl_spinlock zs_lock; /* the pool (the kernel: a lock per class) */
};

extern struct swap_info_struct *fl__swap_info;

/* get_nr_swap_pages(): free swap slots (the model has one device) */
static inline long get_nr_swap_pages(void)
{
	struct swap_info_struct *si = READ_ONCE(fl__swap_info);

	return si ? (long)READ_ONCE(si->pages) - (long)READ_ONCE(si->inuse_pages) : 0;
}

/* total_swap_pages: every swap device's slots, free or not (the model has one device) */
static inline long total_swap_pages_read(void)
{
	struct swap_info_struct *si = READ_ONCE(fl__swap_info);

	return si ? (long)READ_ONCE(si->pages) : 0;
}

/* vm_swap_full(): more than half the swap slots in use (cache-only slots count as used) */
static inline bool vm_swap_full(void)
{
	struct swap_info_struct *si = READ_ONCE(fl__swap_info);

	return si && get_nr_swap_pages() * 2 < (long)si->pages;
}

/*
 * mem_cgroup_swap_full() - vm_swap_full(), or on cgroup v2 a memcg of
 * @folio's at half its swap.high or swap.max; the model has neither limit
 * (they stay at "max"), so it is vm_swap_full() on both versions.
 */
static inline bool mem_cgroup_swap_full(struct folio *folio)
{
	(void)folio;
	return vm_swap_full();
}

/* swapfile.c */
int fl__swapon(unsigned long nr_pages);
void fl__swapoff(void);
int fl__swap_check(char *msg, size_t len);
void fl__swap_drop_cache(void);
long fl__swap_resident_pages(void);
struct swap_cluster_info *__swap_cluster_lock(struct swap_info_struct *si, unsigned long offset,
					      struct fl_lock_site *site);
/* the cluster of @offset, locked; the lock table names the caller, as perf lock does */
#define swap_cluster_lock(si, offset)                                                              \
	__extension__({                                                                            \
		FL_LOCK_SITE(swap_cluster_site);                                                   \
		__swap_cluster_lock((si), (offset), &swap_cluster_site);                           \
	})
void swap_cluster_unlock(struct swap_cluster_info *ci);
int folio_alloc_swap(struct folio *folio);
void swap_duplicate(swp_entry_t entry);
void swap_free_nr(swp_entry_t entry, int nr);
void put_swap_folio(struct folio *folio, swp_entry_t entry);
int swapcache_prepare(swp_entry_t entry, int nr);
void swapcache_clear(swp_entry_t entry, int nr);
int __swap_count(swp_entry_t entry);
bool swap_range_has_cache(swp_entry_t entry, int nr);
bool swap_zeromap_uniform(swp_entry_t entry, int nr, bool *zero);
void free_swap_and_cache_nr(swp_entry_t entry, int nr);
unsigned int zram_comp_len(uint64_t tag);
int zram_write_page(struct swap_info_struct *si, unsigned long offset, uint64_t tag);
void zram_free_page(struct swap_info_struct *si, unsigned long offset);

static inline bool is_swap_entry(swp_entry_t e)
{
	return swp_type(e) < MAX_SWAPFILES;
}

/* The entry of the page at @idx of the swap-cache folio @folio. */
static inline swp_entry_t folio_swap_entry(const struct folio *folio, unsigned long idx)
{
	swp_entry_t e = { folio->private + idx };

	return e;
}

/* swap_state.c: the swap cache */
void swap_cache_add_folio(struct folio *folio, swp_entry_t entry);
void __swap_cache_del_folio(struct folio *folio, unsigned long shadow);
unsigned long swap_cache_get_shadow(swp_entry_t entry);
void swap_cache_del_folio(struct folio *folio);
struct folio *swap_cache_get_folio(swp_entry_t entry);
void swap_cache_replace_split(struct folio *folio, struct folio *end);
bool folio_free_swap(struct folio *folio);
void free_swap_cache(struct folio *folio);
/* __try_to_reclaim_swap()'s conditions: reclaim the cache-only slot's folio ... */
#define TTRS_ANYWAY 0x1	  /* whatever maps it */
#define TTRS_UNMAPPED 0x2 /* if nothing maps it */
#define TTRS_FULL 0x4	  /* if swap (or the folio's memcg's) is more than half full */
int __try_to_reclaim_swap(struct swap_info_struct *si, unsigned long offset, unsigned long flags);
struct vm_fault;
void swap_update_readahead(struct folio *folio, struct vm_area_struct *vma, unsigned long addr);
struct folio *swapin_readahead(swp_entry_t entry, struct vm_fault *vmf, bool *oom);

/* page_io.c */
int swap_writeout(struct folio *folio);
void swap_read_folio(struct folio *folio, swp_entry_t entry);

#endif /* FL_MM_SWAP_H */
