/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mm_types.h - the model's struct page, struct folio, zones, nodes, lruvecs,
 * address spaces and page tables (include/linux/mm_types.h, mmzone.h and
 * pgtable.h in the kernel).
 *
 * No page data is stored. Each simulated 4 KiB frame has a 64-byte
 * descriptor in mem_map[] and a 64-bit content tag in fl__page_tags[]; both
 * arrays are reserved address space, touched only where frames are used.
 *
 * Conventions in this file: "pfn" indexes mem_map; a folio is its head
 * page; mapcounts are 0-based (the kernel stores them offset by -1). A
 * large folio keeps a _large_mapcount (every PTE and PMD that maps it)
 * and, with foliolab/page_mapcount on (CONFIG_PAGE_MAPCOUNT, the default,
 * as our hosts' kernels), each page's own _mapcount and the folio's
 * _nr_pages_mapped as well; off is CONFIG_NO_PAGE_MAPCOUNT.
 */
#ifndef FL_MM_TYPES_H
#define FL_MM_TYPES_H

#include <assert.h>
#include <stdint.h>
#include "../platform/platform.h"
#include "../platform/lock.h"
#include "list.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PTRS_PER_TABLE 512
#define PMD_SHIFT 21
#define PMD_SIZE (1UL << PMD_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define PUD_SHIFT 30
#define PUD_SIZE (1UL << PUD_SHIFT)
#define PGDIR_SHIFT 39
#define PGDIR_SIZE (1UL << PGDIR_SHIFT)
#define TASK_SIZE (1UL << 47)
#define HPAGE_PMD_ORDER (PMD_SHIFT - PAGE_SHIFT)
#define HPAGE_PMD_NR (1 << HPAGE_PMD_ORDER)
#define PMD_ORDER HPAGE_PMD_ORDER
#define MAX_PAGE_ORDER 10
#define NR_PAGE_ORDERS (MAX_PAGE_ORDER + 1)
#define PAGE_ALLOC_COSTLY_ORDER 3
/* the unit of mobility: a pageblock's free pages sit on its type's lists */
#define pageblock_order HPAGE_PMD_ORDER
#define pageblock_nr_pages (1ul << pageblock_order)
#define MAX_NUMNODES 8
#define FOLIO_BATCH_SIZE 31

typedef unsigned long pgoff_t;
typedef unsigned int gfp_t;
typedef uint64_t pteval_t;

/*
 * gfp flags: only the distinctions the model acts on, composed as the
 * kernel composes them (include/linux/gfp_types.h). __GFP_MEMALLOC stands
 * for the kernel's PF_MEMALLOC too: the allocations reclaim itself makes
 * (zsmalloc's pages for a swap write) pass it, may use the reserves below
 * the min watermark and never reclaim in turn.
 */
#define __GFP_ZERO 0x1u
#define __GFP_COMP 0x2u
#define __GFP_NOWARN 0x4u
#define __GFP_NORETRY 0x8u
#define __GFP_THISNODE 0x10u
#define __GFP_MOVABLE 0x20u	   /* allocstall_movable rather than _normal */
#define __GFP_DIRECT_RECLAIM 0x40u /* may reclaim in the allocating task */
#define __GFP_KSWAPD_RECLAIM 0x80u /* may wake kswapd */
#define __GFP_HIGH 0x100u	   /* may dip below min (GFP_ATOMIC): to min/2 */
#define __GFP_MEMALLOC 0x200u	   /* no watermarks (PF_MEMALLOC) */
#define __GFP_NOMEMALLOC 0x400u
#define __GFP_IO 0x800u
#define __GFP_FS 0x1000u
#define __GFP_RECLAIMABLE 0x2000u /* slab a shrinker frees: MIGRATE_RECLAIMABLE */
#define __GFP_RECLAIM (__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define GFP_ATOMIC (__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL (__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_NOIO __GFP_RECLAIM
#define GFP_NOWAIT (__GFP_KSWAPD_RECLAIM | __GFP_NOWARN)
#define GFP_HIGHUSER_MOVABLE (GFP_KERNEL | __GFP_MOVABLE)
#define GFP_TRANSHUGE_LIGHT                                                                        \
	((GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_NOMEMALLOC | __GFP_NOWARN) & ~__GFP_RECLAIM)
#define GFP_TRANSHUGE (GFP_TRANSHUGE_LIGHT | __GFP_DIRECT_RECLAIM)

/* page->flags bits; the node id sits in the top byte */
enum pageflags {
	PG_locked,
	PG_writeback,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_head,
	PG_active,
	PG_workingset,
	PG_private,
	PG_reclaim,
	PG_swapbacked,
	PG_unevictable,
	PG_dropbehind,
	PG_mlocked,
	PG_swapcache,
	PG_young,
	PG_idle,
	PG_anon, /* the kernel encodes this in the low bit of ->mapping */
	PG_anon_exclusive,
	PG_buddy,	     /* a page type in the kernel: head of a free buddy block */
	PG_table,	     /* a page type in the kernel: a page-table page */
	PG_waiters,	     /* someone sleeps on PG_locked (folio_unlock() wakes) */
	PG_partially_mapped, /* kept in folio->_flags_1 */
	NR_PAGEFLAGS
};

#define NODES_PGSHIFT 56
#define NODES_MASK (0xfful << NODES_PGSHIFT)

/*
 * struct page - one 4 KiB frame. 64 bytes, like the kernel's.
 * Tail pages of a folio keep head|1 in compound_head, which overlays
 * lru.next, so bit 0 tells a tail from a head or a single page.
 */
struct page {
	unsigned long flags; /* atomic bit ops, or plain on unpublished pages */
	union {
		struct list_head lru; /* lru_lock, zone->lock or pcp->lock */
		struct {
			unsigned long compound_head; /* tail: head | 1 */
			unsigned long _tail_pad;
		};
	};
	void *mapping;	       /* anon: the mm; set at first map */
	pgoff_t index;	       /* anon: virtual page number */
	unsigned long private; /* buddy order; page-table host memory */
	int _mapcount;	       /* small folio: number of mappings (atomic) */
	int _refcount;	       /* atomic */
	unsigned long memcg_data;
};

/* _nr_pages_mapped: a PMD mapping adds ENTIRELY_MAPPED, each PTE-mapped page 1 */
#define ENTIRELY_MAPPED 0x800000
#define FOLIO_PAGES_MAPPED (ENTIRELY_MAPPED - 1)

/*
 * struct folio - the head page plus the fields a large folio keeps in its
 * second and third pages, laid over consecutive struct pages as the kernel
 * does.
 */
struct folio {
	/* page 0 */
	unsigned long flags;
	union {
		struct list_head lru; /* lruvec->lru_lock */
		struct {
			void *__filler;
			unsigned int mlock_count;
		};
	};
	void *mapping;
	pgoff_t index;
	unsigned long private;
	int _mapcount;
	int _refcount;
	unsigned long memcg_data;
	/* page 1 */
	unsigned long _flags_1; /* low byte: order; PG_partially_mapped */
	unsigned long _head_1;
	int _large_mapcount;  /* every PTE and PMD mapping (atomic) */
	int _entire_mapcount; /* PMD mappings (atomic) */
	unsigned int _folio_nr_pages;
	unsigned int _pincount;
	int _nr_pages_mapped; /* PAGE_MAPCOUNT: pages PTE-mapped, + ENTIRELY_MAPPED (atomic) */
	int _page1_pad0;
	/*
	 * CONFIG_MM_ID (on with THP): the two mms that map the folio most,
	 * FOLIO_MM_ID_BITS each, and FOLIO_MM_IDS_SHARED_BIT: maybe mapped by
	 * more than one mm. Under folio_lock_large_mapcount().
	 */
	unsigned long _mm_ids;	  /* overlays page[1].private */
	unsigned long _page1_pad; /* page[1]._mapcount lies in here */
	int _mm_id_mapcount[2];	  /* each slot's mappings, 0 when free; overlays memcg_data */
	/* page 2 */
	unsigned long _flags_2;
	unsigned long _head_2;
	struct list_head _deferred_list; /* deferred split queue lock */
	unsigned long _page2_pad[4];
};

static_assert(sizeof(struct page) == 64, "struct page must be 64 bytes");
static_assert(sizeof(struct folio) == 3 * sizeof(struct page), "folio spans 3 pages");
static_assert(offsetof(struct folio, _head_1) == sizeof(struct page) + 8,
	      "_head_1 must overlay page[1].compound_head");
static_assert(offsetof(struct folio, _head_2) == 2 * sizeof(struct page) + 8,
	      "_head_2 must overlay page[2].compound_head");
static_assert(offsetof(struct folio, _refcount) == offsetof(struct page, _refcount),
	      "refcount offset");
static_assert(offsetof(struct folio, _page1_pad) ==
		      sizeof(struct page) + offsetof(struct page, _mapcount),
	      "page[1]._mapcount must stay clear of the folio's fields");

#define FOLIO_MM_ID_BITS 31
#define FOLIO_MM_ID_MASK ((1ul << FOLIO_MM_ID_BITS) - 1)
#define FOLIO_MM_IDS_SHARED_BIT (1ul << 63)
#define MM_ID_DUMMY 0u /* a free slot */

/*
 * struct folio_batch - FOLIO_BATCH_SIZE folio pointers plus a header,
 * 256 bytes on 64-bit (128 on 32-bit). nr_pages is the seed's addition,
 * an unsigned char as its review asked, saturating at 255.
 */
struct folio_batch {
	unsigned char nr;
	unsigned char i;
	unsigned char nr_pages;
	bool percpu_pvec_drained;
	struct folio *folios[FOLIO_BATCH_SIZE];
};

static_assert(sizeof(struct folio_batch) == 8 * sizeof(void *) * 4,
	      "folio_batch must stay 32 pointers wide");

enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};

#define LRU_ACTIVE 1
#define LRU_FILE 2

struct pglist_data;

struct mem_cgroup;

struct lruvec {
	struct fl_spinlock lru_lock;
	struct list_head lists[NR_LRU_LISTS];	/* lru_lock */
	unsigned long nr_pages[NR_LRU_LISTS];	/* lru_lock; racy readers */
	unsigned long nr_flushed[NR_LRU_LISTS]; /* a memcg's: nr_pages at the last stats flush */
	struct fl_cacheline lists_line;		/* sim: the list heads' line */
	struct fl_cacheline size_line;		/* sim: the LRU sizes' line (lru_zone_size) */
	struct pglist_data *pgdat;
	struct mem_cgroup *memcg; /* NULL: the node's own, the root memcg's */
	long nonresident_age;	  /* atomic: evictions and activations (workingset.c) */
	/* lru_lock: what reclaiming each type cost lately (lru_note_cost()) */
	unsigned long anon_cost, file_cost;
	unsigned long refaults[2]; /* workingset activations at the last reclaim (anon, file) */
} __cacheline_aligned;

/*
 * A pageblock's mobility (include/linux/mmzone.h). Every block starts
 * MOVABLE; a fallback allocation may claim one for its own type. 6.18's
 * HIGHATOMIC, CMA and ISOLATE types are not modelled (no high-order
 * atomic allocations, no CMA area, no memory offlining).
 */
enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_PCPTYPES, /* the types with pcp lists: all the model has */
	MIGRATE_TYPES = MIGRATE_PCPTYPES
};

struct free_area {
	struct list_head free_list[MIGRATE_TYPES]; /* zone->lock */
	unsigned long nr_free;			   /* zone->lock: all types */
};

/* pcp lists: per type, orders 0..PAGE_ALLOC_COSTLY_ORDER; then the PMD order, movable or not */
#define NR_LOWORDER_PCP_LISTS (MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1))
#define NR_PCP_LISTS (NR_LOWORDER_PCP_LISTS + 2)

struct per_cpu_pages {
	struct fl_spinlock lock;
	int count; /* pages on all lists; lock */
	int high;  /* lock; moves between high_min and high_max */
	int high_min;
	int high_max;
	int batch;
	int free_count;	    /* lock; pages freed since allocations last halved it */
	unsigned int flags; /* lock; PCPF_* */
	/* lock; order-0 refills take batch << alloc_factor; every free halves it */
	unsigned int alloc_factor;
	struct list_head lists[NR_PCP_LISTS]; /* lock */
} __cacheline_aligned;

/* the last page freed to this list set was of order 1..PAGE_ALLOC_COSTLY_ORDER */
#define PCPF_PREV_FREE_HIGH_ORDER (1u << 0)
/*
 * drain for consecutive high-order frees only once a batch is on the lists;
 * the kernel sets it where a CPU's share of the last-level cache is large
 */
#define PCPF_FREE_HIGH_BATCH (1u << 1)
/* free_count stops growing at batch << CONFIG_PCP_BATCH_SCALE_MAX */
#define CONFIG_PCP_BATCH_SCALE_MAX 5

enum zone_watermarks { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

/* zone->flags */
#define ZONE_BOOSTED_WATERMARK_BIT 0 /* the next allocation that may wake kswapd does */

struct zone {
	struct fl_spinlock lock;
	struct free_area free_area[NR_PAGE_ORDERS]; /* lock */
	struct fl_cacheline free_line;		    /* sim: the free lists' last writer */
	unsigned long zone_start_pfn;
	unsigned long spanned_pages;
	unsigned long managed_pages;
	unsigned long frontier_pfn;	    /* lock; [frontier, end) is free, never touched */
	long free_pages;		    /* lock; NR_FREE_PAGES: buddy + frontier */
	unsigned long _watermark[NR_WMARK]; /* setup_per_zone_wmarks() */
	unsigned long watermark_boost;	    /* lock: added to every watermark */
	unsigned long wmark[NR_WMARK];	    /* lock to write: _watermark + watermark_boost */
	unsigned long flags;		    /* atomic: ZONE_* */
	/* compaction.c: where the scanners go on, and the deferral of failed orders */
	unsigned long compact_cached_free_pfn;
	unsigned long compact_cached_migrate_pfn[2]; /* [async, sync] */
	unsigned long compact_init_migrate_pfn, compact_init_free_pfn;
	unsigned int compact_considered, compact_defer_shift;
	int compact_order_failed;
	bool compact_blockskip_flush;	       /* clear the skip hints when kswapd sleeps */
	struct per_cpu_pages *per_cpu_pageset; /* [nr_cpu_ids] */
	struct pglist_data *zone_pgdat;
	const char *name;
} __cacheline_aligned;

/*
 * struct deferred_split - large anon folios that may be split later: the
 * partially mapped, and (with shrink_underused) every PMD-faulted THP as
 * an underused candidate. One per node; one per memcg comes with memcg.
 */
struct deferred_split {
	struct fl_spinlock split_queue_lock;
	struct list_head split_queue;  /* folio->_deferred_list; split_queue_lock */
	unsigned long split_queue_len; /* split_queue_lock; racy readers */
};

struct pglist_data {
	struct zone node_zones[1]; /* ZONE_NORMAL only */
	struct lruvec __lruvec;	   /* one lruvec per node until memcg comes */
	struct deferred_split deferred_split_queue;
	int kswapd_failures;		 /* atomic: reclaim runs in a row that freed nothing */
	int kswapd_order;		 /* atomic: the largest order a waker asked for */
	int kswapd_cpu;			 /* the model CPU kswapd runs on; -1: no kswapd */
	int kcompactd_max_order;	 /* atomic: the largest order wakeup_kcompactd() asked */
	uint64_t kcompactd_proactive_ns; /* kswapd's thread: the next proactive check */
	unsigned int kcompactd_defer_ns; /* the proactive interval, longer after no progress */
	int memcg_iter_pos;  /* atomic: where partial memcg walks go on (the reclaim cookie) */
	unsigned long flags; /* atomic: PGDAT_* */
	struct fl_waitq kswapd_wait;
	int node_id;
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages;
};

/* pgdat->flags */
#define PGDAT_RECLAIM_LOCKED 0x1ul /* node reclaim under way */

extern struct pglist_data *fl__node_data[MAX_NUMNODES];
extern int fl__nr_node_ids;
extern struct page *mem_map;
extern uint64_t *fl__page_tags;
/* each pageblock's migratetype, by pfn >> pageblock_order (zone->lock to write) */
extern unsigned char *fl__pageblock_mt;
/* compaction's PB_migrate_skip hint per pageblock, by pfn >> pageblock_order */
extern unsigned char *fl__pageblock_skip;
/* sim: each struct page's line (its lru entry, its flags), by pfn */
extern struct fl_line_table fl__page_lines;
extern unsigned long fl__max_pfn;
extern unsigned long fl__zero_pfn;
extern int *fl__cpu_node; /* [cpu] -> node */

#define NODE_DATA(nid) (fl__node_data[(nid)])
#define for_each_online_node(nid) for ((nid) = 0; (nid) < fl__nr_node_ids; (nid)++)

static inline int numa_node_id(void)
{
	return fl__cpu_node[smp_processor_id()];
}

/* ---- page table entries (x86-64 bit positions) ---- */
#define _PAGE_PRESENT (1ull << 0)
#define _PAGE_RW (1ull << 1)
#define _PAGE_ACCESSED (1ull << 5)
#define _PAGE_DIRTY (1ull << 6)
#define _PAGE_PSE (1ull << 7)
#define _PAGE_SPECIAL (1ull << 9)
#define _PAGE_TABLE (1ull << 10) /* model: entry points to a host table */
#define PTE_PFN_MASK 0x000ffffffffff000ull

/*
 * struct pgtable - one page-table page at any level. The entries are what
 * "hardware" walks; the frame in desc is what the page allocator handed
 * out (so page tables count in pgalloc and nr_page_table_pages). The
 * host memory is recycled through the mm's pool and only freed with the
 * mm, so a racing lockless walker never touches freed host memory.
 */
struct pgtable {
	pteval_t e[PTRS_PER_TABLE]; /* atomic accesses */
	struct fl_spinlock ptl;	    /* split page-table lock */
	struct page *desc;
	struct pgtable **deposit; /* PMD level: deposited PTE tables */
	struct pgtable *next_free;
	int level; /* 0 = PTE table, 1 = PMD, 2 = PUD, 3 = PGD */
};

/* ---- address spaces ---- */
#define VM_READ 0x1ul
#define VM_WRITE 0x2ul
#define VM_EXEC 0x4ul
#define VM_SHARED 0x8ul
#define VM_MAYSHARE 0x80ul
#define VM_LOCKED 0x2000ul
#define VM_DROPPABLE 0x40000ul
#define VM_WIPEONFORK 0x02000000ul /* a child gets the range empty (MAP_DROPPABLE sets it) */
#define VM_HUGEPAGE 0x20000000ul
#define VM_NOHUGEPAGE 0x40000000ul

#define VMA_LOCK_WRITER 0x80000000u

struct mm_struct;
struct vm_area_struct;
struct vm_fault;
struct file;

/*
 * struct anon_vma - where the reverse map of anonymous pages starts: an
 * anon folio's ->mapping points here, and the chains hanging here name
 * every VMA that may map it (the kernel's interval tree, a list here).
 * Fork adds child anon_vmas under one root; until then every anon_vma is
 * its own root. Type-stable: freed ones go back to a pool and are only
 * returned to the host at shutdown, so a folio whose ->mapping is stale
 * can still be looked at (the kernel's SLAB_TYPESAFE_BY_RCU).
 */
struct anon_vma {
	struct anon_vma *root;	    /* whose rwsem guards the chains */
	struct fl_rwsem rwsem;	    /* root's: the chain list, VMA bounds for walkers */
	int refcount;		    /* atomic: 1 for the VMAs, + folio_get_anon_vma() */
	unsigned long num_children; /* root's rwsem */
	unsigned long num_active_vmas;
	struct list_head rb_root; /* anon_vma_chain.rb; rwsem */
	struct anon_vma *next_free;
};

/* struct anon_vma_chain - one VMA's link to one anon_vma. */
struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma; /* vma->anon_vma_chain; mmap_lock (+ page_table_lock) */
	struct list_head rb;	   /* anon_vma->rb_root; the anon_vma's rwsem */
};

/* struct vm_operations_struct - what a file mapping does on a fault. */
struct vm_operations_struct {
	/* the folio at vmf->pgoff, locked and referenced, in vmf->page */
	int (*fault)(struct vm_fault *vmf);
	/* map what the page cache holds in [start, end] around the fault */
	int (*map_pages)(struct vm_fault *vmf, pgoff_t start_pgoff, pgoff_t end_pgoff);
};

struct vm_area_struct {
	unsigned long vm_start; /* atomic accesses: lockless lookup reads them */
	unsigned long vm_end;
	unsigned long vm_flags; /* mmap_lock (write) + vma write lock */
	struct mm_struct *vm_mm;
	/*
	 * NULL until the first anon folio is mapped (anon_vma_prepare());
	 * shared by the halves of a split. Two VMAs with different anon_vmas
	 * may not merge. Atomic: faults set it under mmap_lock for reading.
	 */
	struct anon_vma *anon_vma;
	struct list_head anon_vma_chain; /* anon_vma_chain.same_vma */
	/*
	 * The page offset of vm_start: in the file for a file mapping, and
	 * vm_start >> PAGE_SHIFT for an anonymous one (kept through splits),
	 * so a folio's ->index finds its address in every VMA that maps it.
	 */
	pgoff_t vm_pgoff;
	struct file *vm_file;
	const struct vm_operations_struct *vm_ops;
	struct list_head shared; /* mapping->i_mmap; i_mmap_rwsem */
	/*
	 * Swap readahead's state (swap_vma_ra_win()): the last swap fault's
	 * page, the window it read and the readahead hits since, in one word
	 * read and written without a lock; copied at fork and split.
	 */
	unsigned long swap_readahead_info;
	bool detached;
	struct vm_area_struct *next_free; /* the mm's type-stable pool */
	/*
	 * Per-VMA lock: readers | VMA_LOCK_WRITER. It changes on every fault,
	 * so it has a line of its own: a lookup that reads other VMAs' bounds
	 * must not miss on their owners' lock traffic.
	 */
	unsigned int vm_refcnt __cacheline_aligned;
	struct fl_cacheline refcnt_line; /* sim: vm_refcnt's last writer */
} __cacheline_aligned;

enum mm_counter { MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES, NR_MM_COUNTERS };

/* What each CPU keeps of an mm: its rss deltas and its last VMA found. */
struct mm_rss_cpu {
	int64_t count[NR_MM_COUNTERS];
	struct vm_area_struct *vma_hint; /* valid while vma_seq == hint_seq */
	unsigned int hint_seq;
} __cacheline_aligned;

/* mm_struct.flags */
enum {
	MMF_HUGE_ZERO_FOLIO = 0, /* holds a reference on the huge zero folio */
	MMF_VM_HUGEPAGE = 1,	 /* registered with khugepaged */
};

struct mm_struct {
	struct fl_rwsem mmap_lock;
	struct fl_spinlock page_table_lock; /* upper-level table population */
	unsigned int vma_seq;		    /* atomic; odd while the VMA set changes */
	struct vm_area_struct **vmas;	    /* sorted by vm_start; mmap_lock */
	int nr_vmas;			    /* atomic; mmap_lock to change */
	int vmas_cap;
	void *retired_arrays;		 /* old vmas arrays, freed with the mm */
	struct vm_area_struct *vma_pool; /* freed VMAs, reused, freed with the mm */
	void *vma_chunks;
	struct pgtable *pgd;
	struct fl_spinlock pool_lock;	 /* page-table host-memory pool */
	struct pgtable *pgtable_pool[2]; /* [1]: PMD tables, [0]: the other levels */
	struct mm_rss_cpu *rss;		 /* [nr_cpu_ids] */
	unsigned long mmap_base;
	long nr_ptes;		  /* page_table_lock */
	unsigned long flags;	  /* MMF_*, atomic bit operations */
	int id;			  /* the process's pid in the model */
	unsigned int mm_id;	  /* CONFIG_MM_ID: 1.., unique while the mm lives */
	struct mem_cgroup *memcg; /* its tasks' memcg (the owner's); NULL: the root */
	int mm_users;		  /* atomic: the process, and mmget_not_zero() users */
	int mm_count;		  /* atomic: the struct's references: mm_users as 1, mmgrab() */
	struct list_head mmlist;  /* every live mm; mm_list_lock */
	/*
	 * mm_cpumask(): the CPUs running one of its tasks, as a count of its
	 * tasks on each CPU (several share a CPU on sim) and of such CPUs
	 */
	unsigned short cpu_tasks[FL_NR_CPUS_MAX]; /* atomic */
	int nr_cpus_active;			  /* atomic */
	unsigned long tlb_gen; /* atomic: the TLB entries loaded under another are dead (tlb.c) */
};

/* A task of @mm starts or stops running on the current CPU. */
static inline void fl__mm_cpu_enter(struct mm_struct *mm)
{
	int cpu = smp_processor_id();

	if (fl_atomic_fetch_add(&mm->cpu_tasks[cpu], 1, __ATOMIC_RELAXED) == 0)
		fl_atomic_fetch_add(&mm->nr_cpus_active, 1, __ATOMIC_RELAXED);
}

static inline void fl__mm_cpu_leave(struct mm_struct *mm)
{
	int cpu = smp_processor_id();

	if (fl_atomic_sub_fetch(&mm->cpu_tasks[cpu], 1, __ATOMIC_RELAXED) == 0)
		fl_atomic_fetch_sub(&mm->nr_cpus_active, 1, __ATOMIC_RELAXED);
}

/* How many other CPUs a TLB flush of @mm sends an IPI to. */
static inline uint64_t mm_cpumask_others(struct mm_struct *mm)
{
	int n = fl_atomic_load(&mm->nr_cpus_active, __ATOMIC_RELAXED);

	if (fl_atomic_load(&mm->cpu_tasks[smp_processor_id()], __ATOMIC_RELAXED))
		n--;
	return n > 0 ? (uint64_t)n : 0;
}

/* mm_counter updates go to the current CPU's slot: no shared cache line */
static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	fl_this_cpu_add_s64(&mm->rss[smp_processor_id()].count[member], value);
}

#endif /* FL_MM_TYPES_H */
