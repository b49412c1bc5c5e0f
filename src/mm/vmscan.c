// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmscan.c - lruvecs and their LRU lists (the list part of mm/vmscan.c and
 * include/linux/mm_inline.h in the kernel), and shrink_folio_list(), the
 * part of reclaim that frees a list of isolated folios, as
 * reclaim_pages() runs it for MADV_PAGEOUT. The LRU scan (shrink_node()
 * and below), kswapd and the watermarks come later.
 *
 * One lruvec per node until memcg is modelled. Each lruvec has the five
 * classic lists (no MGLRU) under lru_lock and a page count per list.
 * Unevictable folios are counted but not linked, as in the kernel.
 *
 * Conventions in this file: @lruvec's lru_lock is held by the caller of
 * every function here except fl__lruvec_validate(); the caller also
 * computes the list from the folio's flags before changing them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "fs.h"
#include "swap.h"

static const struct fl_lock_class lru_lock_class = { .name = "lruvec->lru_lock",
						     .rank = FL_RANK_LRU,
						     .kind = FL_LOCK_SPIN };

void fl__lruvec_init(struct lruvec *lruvec, struct pglist_data *pgdat)
{
	int i;

	fl_spin_lock_init(&lruvec->lru_lock, &lru_lock_class);
	for (i = 0; i < NR_LRU_LISTS; i++) {
		INIT_LIST_HEAD(&lruvec->lists[i]);
		lruvec->nr_pages[i] = 0;
	}
	lruvec->pgdat = pgdat;
}

/*
 * sim: the cache lines an LRU add or delete touches, as the kernel's
 * lruvec_add_folio() and lruvec_del_folio() touch them, and the transfers
 * they pay (docs/virtual-cpus.md, "Cache lines"). An add loads the list
 * head's next pointer (the list heads' line: lists[0..3] share one in
 * struct lruvec, apart from the lock word), then stores into that
 * neighbour and into the folio's own struct page: two transfers at most
 * in a row, the stores in parallel. A delete loads the folio's own
 * prev and next pointers, then stores into both neighbours: again two in a
 * row. The LRU sizes (update_lru_size()) depend on neither and overlap.
 * Each transfer costs lru_line: calibrate's probe of two CPUs taking turns
 * at one list under a lock, each turn deleting the other's nodes and
 * adding its own, per node.
 */
static bool lru_is_head(struct lruvec *lruvec, struct list_head *entry)
{
	return entry >= &lruvec->lists[0] && entry < &lruvec->lists[NR_LRU_LISTS];
}

static bool lru_entry_claim(struct lruvec *lruvec, struct list_head *entry)
{
	if (lru_is_head(lruvec, entry))
		return fl__cacheline_claim(&lruvec->lists_line);
	return fl__line_table_claim(&fl__page_lines,
				    folio_pfn(list_entry(entry, struct folio, lru)));
}

static void lru_lines(struct lruvec *lruvec, struct folio *folio, struct list_head *prev,
		      struct list_head *next, bool add)
{
	bool self = fl__line_table_claim(&fl__page_lines, folio_pfn(folio));
	bool p = lru_entry_claim(lruvec, prev), n = lru_entry_claim(lruvec, next);
	bool first, second;

	if (add) { /* the head (@prev or @next, whichever is the list's) first */
		bool head_is_prev = lru_is_head(lruvec, prev);

		first = head_is_prev ? p : n;
		second = self || (head_is_prev ? n : p);
	} else {
		first = self;
		second = p || n;
	}
	fl_cost_n(FL_COST_LRU_LINE, (uint64_t)first + (uint64_t)second);
}

static __always_inline void lru_lines_add(struct lruvec *lruvec, struct folio *folio,
					  struct list_head *prev, struct list_head *next)
{
	fl_sim_only(lru_lines(lruvec, folio, prev, next, true));
}

static __always_inline void lru_lines_del(struct lruvec *lruvec, struct folio *folio)
{
	fl_sim_only(lru_lines(lruvec, folio, folio->lru.prev, folio->lru.next, false));
}

/*
 * Every LRU add and delete passes here: it writes the sizes (sim: their
 * line, whose transfer overlaps the list's, and the cost).
 */
static inline void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages)
{
	fl_sim_only((void)fl__cacheline_claim(&lruvec->size_line));
	fl_cost(FL_COST_LRU_MOVE);
	WRITE_ONCE(lruvec->nr_pages[lru], (unsigned long)((long)lruvec->nr_pages[lru] + nr_pages));
	if (lruvec->memcg)
		memcg_rstat_updated(lruvec->memcg, nr_pages);
}

__always_inline void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	update_lru_size(lruvec, lru, (long)folio_nr_pages(folio));
	if (lru != LRU_UNEVICTABLE) {
		lru_lines_add(lruvec, folio, &lruvec->lists[lru], lruvec->lists[lru].next);
		list_add(&folio->lru, &lruvec->lists[lru]);
	}
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	update_lru_size(lruvec, lru, (long)folio_nr_pages(folio));
	lru_lines_add(lruvec, folio, lruvec->lists[lru].prev, &lruvec->lists[lru]);
	list_add_tail(&folio->lru, &lruvec->lists[lru]);
}

__always_inline void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	if (lru != LRU_UNEVICTABLE) {
		lru_lines_del(lruvec, folio);
		list_del(&folio->lru);
	}
	update_lru_size(lruvec, lru, -(long)folio_nr_pages(folio));
}

/**
 * folio_isolate_lru() - take @folio off its LRU list.
 * Return: true if we won PG_lru; the caller then holds an extra reference.
 * Context: the caller holds a reference.
 */
bool folio_isolate_lru(struct folio *folio)
{
	FL_LOCK_SITE(site);
	struct lruvec *lruvec = NULL;

	if (!folio_test_clear_lru(folio))
		return false;
	folio_get(folio);
	folio_lruvec_relock_irqsave(folio, &lruvec, &site);
	lruvec_del_folio(lruvec, folio);
	lruvec_unlock_irqrestore(lruvec);
	return true;
}

bool fl__lruvec_validate(struct lruvec *lruvec, char *msg, size_t len)
{
	bool ok = true;
	int lru;

	for (lru = 0; lru < NR_LRU_LISTS && ok; lru++) {
		unsigned long pages = 0;
		struct list_head *pos;

		if (lru == LRU_UNEVICTABLE)
			continue;
		list_for_each (pos, &lruvec->lists[lru]) {
			struct folio *folio = list_entry(pos, struct folio, lru);

			if (!folio_test_lru(folio) || (int)folio_lru_list(folio) != lru ||
			    folio_lruvec(folio) != lruvec) {
				if (msg)
					snprintf(msg, len,
						 "folio pfn %lu on list %d: lru=%d list=%d",
						 folio_pfn(folio), lru, folio_test_lru(folio),
						 (int)folio_lru_list(folio));
				ok = false;
				break;
			}
			pages += folio_nr_pages(folio);
		}
		if (ok && pages != lruvec->nr_pages[lru]) {
			if (msg)
				snprintf(msg, len, "list %d links %lu pages, counts %lu", lru,
					 pages, lruvec->nr_pages[lru]);
			ok = false;
		}
	}
	return ok;
}

/* ---- shrink_slab() (mm/shrinker.c) ---- */

#define SHRINK_BATCH 128 /* shrinker->batch 0: mm/shrinker.c's default */
#define DEFAULT_SEEKS 2

/*
 * The model's shrinkers: the deferred split queue (NUMA-aware: a count per
 * node) and the huge zero folio (not NUMA-aware: node 0 stands for it).
 * Each keeps the work it deferred, per node, as the kernel's nr_deferred.
 */
enum { SHRINKER_DEFERRED_SPLIT, SHRINKER_HUGE_ZERO, NR_SHRINKERS };
/* by memcg id (0: the root), shrinker and node; atomic */
static long nr_deferred[MEMCG_MAX_CHILDREN + 1][NR_SHRINKERS][MAX_NUMNODES];

static unsigned long shrinker_count(int id, int nid, struct mem_cgroup *memcg)
{
	if (id == SHRINKER_DEFERRED_SPLIT)
		return deferred_split_count(nid, memcg);
	return nid == 0 ? huge_zero_folio_shrink_count() : 0;
}

static unsigned long shrinker_scan(int id, int nid, struct mem_cgroup *memcg,
				   unsigned long nr_to_scan)
{
	if (id == SHRINKER_DEFERRED_SPLIT)
		return deferred_split_scan(nid, memcg, nr_to_scan);
	return huge_zero_folio_shrink_scan();
}

/*
 * do_shrink_slab(): scan a share of what the shrinker counts, the share
 * growing as @priority falls (all of it, twice over, at 0), plus what it
 * deferred before; SHRINK_BATCH at a time; slabs_scanned counts the scans.
 */
static unsigned long do_shrink_slab(int id, int nid, struct mem_cgroup *memcg, int priority)
{
	unsigned long freeable = shrinker_count(id, nid, memcg), freed = 0, scanned = 0, ret;
	long nr, delta, total_scan, next_deferred, *deferred;

	if (!freeable)
		return 0;
	deferred = &nr_deferred[memcg ? memcg->id : 0][id][nid];
	nr = fl_atomic_xchg(deferred, 0, __ATOMIC_RELAXED);
	delta = (long)((freeable >> priority) * 4 / DEFAULT_SEEKS);
	total_scan = (nr >> priority) + delta;
	if (total_scan > (long)(2 * freeable))
		total_scan = (long)(2 * freeable);
	while (total_scan >= SHRINK_BATCH || total_scan >= (long)freeable) {
		unsigned long nr_to_scan = (unsigned long)(total_scan < SHRINK_BATCH
								   ? total_scan
								   : SHRINK_BATCH);

		ret = shrinker_scan(id, nid, memcg, nr_to_scan);
		if (ret == SHRINK_STOP)
			break;
		freed += ret;
		count_vm_events(SLABS_SCANNED, nr_to_scan);
		total_scan -= (long)nr_to_scan;
		scanned += nr_to_scan;
	}
	next_deferred = nr + delta - (long)scanned;
	if (next_deferred < 0)
		next_deferred = 0;
	if (next_deferred > (long)(2 * freeable))
		next_deferred = (long)(2 * freeable);
	fl_atomic_fetch_add(deferred, next_deferred, __ATOMIC_RELAXED);
	return freed;
}

/**
 * shrink_slab() - the shrinkers of node @nid for @memcg at @priority:
 * every registered one for the root, the memcg-aware ones (the deferred
 * split queue) for a child. Return: freed objects.
 */
static unsigned long shrink_slab(int nid, struct mem_cgroup *memcg, int priority)
{
	unsigned long freed = 0;
	int id;

	for (id = 0; id < NR_SHRINKERS; id++) {
		if (memcg && id != SHRINKER_DEFERRED_SPLIT)
			continue;
		freed += do_shrink_slab(id, nid, memcg, priority);
	}
	return freed;
}

/*
 * drop_slab(): every node at priority 0, again while a round frees more
 * than 2^round objects (6.18: the shift grows each round, so the rounds end)
 */
void drop_slab(void)
{
	unsigned long freed;
	int nid, i, shift = 0;

	do {
		freed = 0;
		for_each_online_node (nid)
			for (i = 0; i <= fl__nr_memcgs; i++)
				freed += shrink_slab(nid, fl__memcgs[i], 0);
	} while ((freed >> shift++) > 1);
}

/* ---- shrink_folio_list(): reclaiming isolated folios ---- */

#define DEF_PRIORITY 12
#define DEACTIVATE_ANON 1
#define DEACTIVATE_FILE 2

enum reclaimer { RECLAIMER_KSWAPD, RECLAIMER_DIRECT, RECLAIMER_KHUGEPAGED, RECLAIMER_PROACTIVE };

struct scan_control {
	unsigned long nr_to_reclaim; /* pages wanted */
	gfp_t gfp_mask;
	int order;
	int priority; /* scan (lru size >> priority) pages per list */
	int swappiness;
	enum reclaimer reclaimer;	      /* which pgscan_* and pgsteal_* count it */
	struct mem_cgroup *target_mem_cgroup; /* memcg reclaim: its tree only; NULL: global */
	unsigned int memcg_full_walk : 1;     /* every memcg of the tree, not a partial walk */
	unsigned int may_writepage : 1;
	unsigned int may_unmap : 1;
	unsigned int may_swap : 1;
	unsigned int may_deactivate : 2; /* DEACTIVATE_*: which active lists may shrink */
	unsigned int force_deactivate : 1;
	unsigned int skipped_deactivate : 1;
	unsigned int cache_trim_mode : 1;
	unsigned int file_is_tiny : 1;
	unsigned long anon_cost, file_cost; /* the lruvec's, when the scan began */
	unsigned long nr_scanned;
	unsigned long nr_reclaimed;
};

struct reclaim_stat {
	unsigned long nr_activate;
	unsigned long nr_unmap_fail;
	unsigned long nr_lazyfree_fail;
	unsigned long nr_pageout;
};

typedef enum { PAGE_KEEP, PAGE_ACTIVATE, PAGE_SUCCESS, PAGE_CLEAN } pageout_t;

static inline struct folio *lru_to_folio(struct list_head *head)
{
	return list_entry(head->prev, struct folio, lru);
}

static int split_folio_to_list(struct folio *folio, struct list_head *list)
{
	return split_huge_page_to_list_to_order((struct page *)folio, list, 0);
}

/*
 * pageout() for an anon swap-cache folio (the only kind the model pages
 * out): refcount 1 (ours) + nr (the swap cache), else it is in use.
 */
static pageout_t pageout(struct folio *folio)
{
	if (folio_ref_count(folio) != 1 + (int)folio_nr_pages(folio))
		return PAGE_KEEP;
	if (!folio_test_swapcache(folio))
		return PAGE_ACTIVATE;
	if (!folio_test_dirty(folio))
		return PAGE_CLEAN; /* folio_clear_dirty_for_io() found it clean */
	folio_set_reclaim(folio);
	swap_writeout(folio); /* clears dirty, writes synchronously, unlocks */
	/* written at once, or not at all (zero-filled, slots freed): no end_writeback to clear it */
	if (!folio_test_writeback(folio))
		folio_clear_reclaim(folio);
	mod_node_page_state(folio_pgdat(folio), NR_VMSCAN_WRITE, (long)folio_nr_pages(folio));
	return PAGE_SUCCESS;
}

/*
 * __remove_mapping() for a swap-cache folio: only ours and the cache's
 * references may be left; it leaves the cache with its refcount frozen at 0.
 * Return: true if it can be freed.
 */
static bool __remove_mapping(struct folio *folio, struct mem_cgroup *target_memcg)
{
	int refcount = 1 + (int)folio_nr_pages(folio);
	swp_entry_t entry;

	if (!folio_test_swapcache(folio))
		return false;
	if (!folio_ref_freeze(folio, refcount))
		return false;
	if (folio_test_dirty(folio)) {
		folio_ref_unfreeze(folio, refcount);
		return false;
	}
	entry = folio_swap_entry(folio, 0);
	__swap_cache_del_folio(folio, workingset_eviction(folio, target_memcg));
	put_swap_folio(folio, entry);
	return true;
}

static void free_reclaimed(struct folio_batch *fb, struct folio *folio)
{
	folio_unqueue_deferred_split(folio);
	if (folio_batch_add(fb, folio) == 0) {
		free_unref_folios(fb);
		folio_batch_reinit(fb);
	}
}

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

/*
 * folio_check_references() - the classic LRU's verdict on a folio found at
 * the inactive tail: a folio mapped young gets PG_referenced and stays,
 * and is activated only if it was referenced before too or more than one
 * VMA saw it young (so an anon folio needs two looks); an unused one
 * goes. A folio in an mlocked VMA is activated (and culled from there).
 */
static enum folio_references folio_check_references(struct folio *folio)
{
	unsigned long vm_flags;
	int referenced_ptes = folio_referenced(folio, true, &vm_flags);
	bool referenced_folio;

	if (vm_flags & VM_LOCKED)
		return FOLIOREF_ACTIVATE;
	if (referenced_ptes == -1) /* rmap lock contention, or an exiting mm's: keep */
		return FOLIOREF_KEEP;
	referenced_folio = folio_test_clear_referenced(folio);
	if (referenced_ptes) {
		folio_set_referenced(folio);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	if (referenced_folio && !folio_test_swapbacked(folio))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/**
 * shrink_folio_list() - try to free each isolated, referenced folio of
 * @folio_list, in the kernel's order: lazy-free folios are dropped if
 * still clean (pglazyfreed), anon ones get swap (a large folio that gets
 * none is split and its pieces tried one by one: swpout_fallback), are
 * unmapped to swap entries and written out; what cannot go is
 * activated or kept. Survivors stay on @folio_list, still isolated.
 * Return: the pages freed.
 */
static unsigned long shrink_folio_list(struct list_head *folio_list, struct scan_control *sc,
				       struct reclaim_stat *stat, bool ignore_references)
{
	struct list_head ret_folios;
	struct folio_batch free_folios;
	unsigned long nr_reclaimed = 0, pgactivate = 0;

	INIT_LIST_HEAD(&ret_folios);
	folio_batch_init(&free_folios);
	while (!list_empty(folio_list)) {
		struct folio *folio = lru_to_folio(folio_list);
		unsigned long nr_pages;

		list_del(&folio->lru);
		if (!folio_trylock(folio))
			goto keep;
		nr_pages = folio_nr_pages(folio);
		sc->nr_scanned += nr_pages;
		if (folio_test_mlocked(folio) || folio_test_unevictable(folio))
			goto activate_locked;
		if (!sc->may_unmap && folio_mapped(folio))
			goto keep_locked;
		if (!ignore_references) {
			switch (folio_check_references(folio)) {
			case FOLIOREF_ACTIVATE:
				goto activate_locked;
			case FOLIOREF_KEEP:
				goto keep_locked;
			case FOLIOREF_RECLAIM:
			case FOLIOREF_RECLAIM_CLEAN:
				break;
			}
		}
		/*
		 * shmem has no swap-out in the model yet: only anon folios go,
		 * and swap-cache folios no fault has mapped yet (read ahead)
		 */
		if (!folio_test_anon(folio) && !folio_test_swapcache(folio))
			goto activate_locked;
		if (folio_test_swapbacked(folio) && !folio_test_swapcache(folio)) {
			if (folio_test_large(folio)) {
				if (!can_split_folio(folio, 1, NULL))
					goto activate_locked;
				/* a partially mapped folio: its unmapped pages go without I/O */
				if (folio_test_partially_mapped(folio) &&
				    split_folio_to_list(folio, folio_list))
					goto activate_locked;
			}
			if (folio_alloc_swap(folio)) {
				int order = (int)folio_order(folio);

				if (!folio_test_large(folio))
					goto activate_locked_split;
				/* fall back to swapping its pages one by one */
				if (split_folio_to_list(folio, folio_list))
					goto activate_locked;
				if (nr_pages >= HPAGE_PMD_NR) {
					count_memcg_folio_events(folio, THP_SWPOUT_FALLBACK, 1);
					count_vm_event(THP_SWPOUT_FALLBACK);
				}
				count_mthp_stat(order, MTHP_STAT_SWPOUT_FALLBACK);
				if (folio_alloc_swap(folio))
					goto activate_locked_split;
			}
			/* add_to_swap(): the data now lives only here, whatever the PTEs say */
			folio_mark_dirty(folio);
		}
		/* a split above: the other pieces are accounted on their own pass */
		if (nr_pages > 1 && !folio_test_large(folio)) {
			sc->nr_scanned -= nr_pages - 1;
			nr_pages = 1;
		}
		if (folio_mapped(folio)) {
			unsigned long flags = 0;
			bool was_swapbacked = folio_test_swapbacked(folio);

			if (folio_order(folio) == PMD_ORDER)
				flags |= TTU_SPLIT_HUGE_PMD;
			try_to_unmap(folio, flags);
			if (folio_mapped(folio)) {
				stat->nr_unmap_fail += nr_pages;
				if (!was_swapbacked && folio_test_swapbacked(folio))
					stat->nr_lazyfree_fail += nr_pages;
				goto activate_locked;
			}
		}
		/*
		 * dirty and not swap-backed: a droppable folio, unmapped
		 * written; 6.18 takes it for a dirty file folio (no kswapd
		 * writeback in the model): marked for immediate reclaim and
		 * activated, it is freed when put back, its last reference gone
		 */
		if (folio_test_dirty(folio) && !folio_test_swapbacked(folio)) {
			folio_set_reclaim(folio);
			goto activate_locked;
		}
		if (folio_test_dirty(folio) && folio_test_swapbacked(folio)) {
			switch (pageout(folio)) {
			case PAGE_KEEP:
				goto keep_locked;
			case PAGE_ACTIVATE:
				goto activate_locked;
			case PAGE_SUCCESS:
				stat->nr_pageout += nr_pages;
				if (folio_test_writeback(folio) || folio_test_dirty(folio))
					goto keep;
				if (!folio_trylock(folio))
					goto keep;
				if (folio_test_dirty(folio) || folio_test_writeback(folio))
					goto keep_locked;
				break;
			case PAGE_CLEAN:
				break;
			}
		}
		if (!folio_test_swapbacked(folio)) {
			/* lazy-free: dropped unless somebody holds it or wrote it */
			if (!folio_ref_freeze(folio, 1))
				goto keep_locked;
			count_vm_events(PGLAZYFREED, nr_pages);
			count_memcg_folio_events(folio, PGLAZYFREED, nr_pages);
		} else if (!__remove_mapping(folio, sc->target_mem_cgroup)) {
			goto keep_locked;
		}
		folio_unlock(folio);
		nr_reclaimed += nr_pages;
		free_reclaimed(&free_folios, folio);
		continue;
activate_locked_split:
		if (nr_pages > 1) {
			sc->nr_scanned -= nr_pages - 1;
			nr_pages = 1;
		}
activate_locked:
		/* swap more than half full: an active folio need not keep its slots */
		if (folio_test_swapcache(folio) &&
		    (mem_cgroup_swap_full(folio) || folio_test_mlocked(folio)))
			folio_free_swap(folio);
		if (!folio_test_mlocked(folio)) {
			folio_set_active(folio);
			stat->nr_activate += nr_pages;
			pgactivate += nr_pages;
			count_memcg_folio_events(folio, PGACTIVATE, nr_pages);
		}
keep_locked:
		folio_unlock(folio);
keep:
		list_add(&folio->lru, &ret_folios);
	}
	if (free_folios.nr)
		free_unref_folios(&free_folios);
	list_splice(&ret_folios, folio_list);
	if (pgactivate)
		count_vm_events(PGACTIVATE, pgactivate);
	return nr_reclaimed;
}

/**
 * reclaim_pages() - reclaim the isolated folios of @folio_list whatever
 * their references (MADV_PAGEOUT), then put the survivors back on the LRU
 * through this CPU's batch. No pgscan or pgsteal: no LRU was scanned.
 * Return: the pages freed.
 */
unsigned long reclaim_pages(struct list_head *folio_list)
{
	struct scan_control sc = { .may_writepage = 1, .may_unmap = 1, .may_swap = 1 };
	struct reclaim_stat stat = { 0 };
	struct list_head *pos;
	unsigned long nr;

	if (list_empty(folio_list))
		return 0;
	list_for_each (pos, folio_list)
		folio_clear_active(list_entry(pos, struct folio, lru));
	nr = shrink_folio_list(folio_list, &sc, &stat, true);
	while (!list_empty(folio_list)) {
		struct folio *folio = lru_to_folio(folio_list);

		list_del(&folio->lru);
		folio_add_lru(folio); /* folio_putback_lru() */
		folio_put(folio);
	}
	return nr;
}

/* ---- the LRU scan: shrink_node() and below ---- */

unsigned long vm_swappiness = 60; /* vm.swappiness (knob vm/swappiness) */
static int kswapd_should_stop;	  /* atomic: the workload's tasks ended */

static inline bool is_file_lru(enum lru_list lru)
{
	return lru == LRU_INACTIVE_FILE || lru == LRU_ACTIVE_FILE;
}

static inline bool is_active_lru(enum lru_list lru)
{
	return lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE;
}

#define for_each_evictable_lru(lru) for ((lru) = 0; (lru) <= LRU_ACTIVE_FILE; (lru)++)

static unsigned long lruvec_lru_size(struct lruvec *lruvec, enum lru_list lru)
{
	return READ_ONCE(lruvec->nr_pages[lru]);
}

/*
 * tree_lruvec() - the @i-th lruvec of @target's tree on @pgdat, NULL past
 * the end (mem_cgroup_iter()): the root's (the node's own) and then each
 * child's for the root; a child's own (no grandchildren here).
 */
static struct lruvec *tree_lruvec(struct mem_cgroup *target, struct pglist_data *pgdat, int i)
{
	if (target)
		return i ? NULL : mem_cgroup_lruvec(target, pgdat);
	if (!i)
		return &pgdat->__lruvec;
	return i <= fl__nr_memcgs ? mem_cgroup_lruvec(fl__memcgs[i], pgdat) : NULL;
}

/* Anon can be reclaimed while swap has free slots (the model has no demotion). */
static bool can_reclaim_anon_pages(void)
{
	return get_nr_swap_pages() > 0;
}

/*
 * inactive_is_low() - the inactive list is short of its share: below
 * active / sqrt(10 * GiB of the type), 1:1 under 1 GiB.
 */
static bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru)
{
	unsigned long inactive = lruvec_tree_size(lruvec, inactive_lru);
	unsigned long active = lruvec_tree_size(lruvec, inactive_lru + LRU_ACTIVE);
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT), ratio = 1;

	if (gb)
		ratio = (unsigned long)sqrt((double)(10 * gb));
	return inactive * ratio < active;
}

/*
 * lru_note_cost() - what reclaiming a type cost (@nr_io pages written or
 * read, at SWAP_CLUSTER_MAX each, plus @nr_rotated put back); halved
 * together once they outgrow a quarter of the LRUs, so old costs fade.
 * Context: @lruvec's lock is held; lru_note_cost_unlock() goes on up the
 * hierarchy.
 */
static void lru_note_cost_locked(struct lruvec *lruvec, bool file, unsigned long nr_io,
				 unsigned long nr_rotated)
{
	unsigned long cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated, lrusize;

	if (file)
		lruvec->file_cost += cost;
	else
		lruvec->anon_cost += cost;
	lrusize = lruvec_tree_size(lruvec, LRU_INACTIVE_ANON) +
		  lruvec_tree_size(lruvec, LRU_ACTIVE_ANON) +
		  lruvec_tree_size(lruvec, LRU_INACTIVE_FILE) +
		  lruvec_tree_size(lruvec, LRU_ACTIVE_FILE);
	if (lruvec->file_cost + lruvec->anon_cost > lrusize / 4) {
		lruvec->file_cost /= 2;
		lruvec->anon_cost /= 2;
	}
}

/*
 * lru_note_cost_unlock_irq(): note the cost in @lruvec, unlock it, then
 * in each ancestor's lruvec on the node under that one's lock; a cost of
 * 0 (an anon shrink_active_list(), whose rotations are only executable
 * file folios', or a batch reclaimed whole with no I/O) only unlocks, as
 * 6.18 returns at once (mm/swap.c)
 */
static void lru_note_cost_unlock(struct lruvec *lruvec, bool file, unsigned long nr_io,
				 unsigned long nr_rotated)
{
	FL_LOCK_SITE(site);
	struct pglist_data *pgdat = lruvec->pgdat;
	bool child = lruvec->memcg;

	if (!nr_io && !nr_rotated) {
		spin_unlock(&lruvec->lru_lock);
		return;
	}
	lru_note_cost_locked(lruvec, file, nr_io, nr_rotated);
	spin_unlock(&lruvec->lru_lock);
	if (!child)
		return;
	lruvec = &pgdat->__lruvec;
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	lru_note_cost_locked(lruvec, file, nr_io, nr_rotated);
	spin_unlock(&lruvec->lru_lock);
}

/** lru_note_cost_refault() - a workingset folio came back: its type's cost grows. */
void lru_note_cost_refault(struct folio *folio)
{
	FL_LOCK_SITE(site);
	struct lruvec *lruvec = folio_lruvec(folio);

	fl_spin_lock_at(&lruvec->lru_lock, &site);
	lru_note_cost_unlock(lruvec, !folio_test_swapbacked(folio), folio_nr_pages(folio), 0);
}

/*
 * isolate_lru_folios() - take up to @nr_to_scan pages' worth of folios
 * from the tail of @lru onto @dst: a large folio spends its whole size of
 * the budget. Folios off the LRU already, mapped ones when the scan may not
 * unmap, and dying ones go to the list's head instead.
 * Return: the pages taken; *@nr_scanned the pages looked at.
 * Context: @lruvec's lock is held.
 */
static unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
					struct list_head *dst, unsigned long *nr_scanned,
					struct scan_control *sc, enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long nr_taken = 0, scan = 0;

	while (scan < nr_to_scan && !list_empty(src)) {
		struct folio *folio = lru_to_folio(src);
		unsigned long nr_pages = folio_nr_pages(folio);
		struct list_head *move_to = src;

		scan += nr_pages;
		if (!folio_test_lru(folio))
			goto move;
		if (!sc->may_unmap && folio_mapped(folio))
			goto move;
		if (!folio_try_get(folio))
			goto move;
		if (!folio_test_clear_lru(folio)) {
			folio_put(folio);
			goto move;
		}
		nr_taken += nr_pages;
		move_to = dst;
move:
		lru_lines_del(lruvec, folio);
		list_del(&folio->lru);
		if (move_to == src)
			lru_lines_add(lruvec, folio, src, src->next);
		list_add(&folio->lru, move_to);
	}
	update_lru_size(lruvec, lru, -(long)nr_taken);
	*nr_scanned = scan;
	return nr_taken;
}

/*
 * move_folios_to_lru() - put the isolated folios of @list back at the head
 * of their lists; one whose last reference we held is freed instead.
 * Return: the pages put back.
 * Context: @lruvec's lock is held; it is dropped around the frees.
 */
static unsigned long move_folios_to_lru(struct lruvec *lruvec, struct list_head *list)
{
	FL_LOCK_SITE(site);
	struct folio_batch free_folios;
	unsigned long nr_moved = 0;

	folio_batch_init(&free_folios);
	while (!list_empty(list)) {
		struct folio *folio = lru_to_folio(list);
		unsigned long nr_pages = folio_nr_pages(folio);

		list_del(&folio->lru);
		folio_set_lru(folio);
		if (unlikely(folio_put_testzero(folio))) {
			folio_clear_lru(folio);
			folio_clear_active(folio);
			folio_clear_unevictable(folio);
			spin_unlock(&lruvec->lru_lock);
			free_reclaimed(&free_folios, folio);
			fl_spin_lock_at(&lruvec->lru_lock, &site);
			continue;
		}
		lruvec_add_folio(lruvec, folio);
		nr_moved += nr_pages;
		if (folio_test_active(folio))
			workingset_age_nonresident(lruvec, nr_pages);
	}
	if (free_folios.nr) {
		spin_unlock(&lruvec->lru_lock);
		free_unref_folios(&free_folios);
		fl_spin_lock_at(&lruvec->lru_lock, &site);
	}
	return nr_moved;
}

static enum vm_event_item reclaimer_item(enum vm_event_item base, struct scan_control *sc)
{
	return (enum vm_event_item)(base + sc->reclaimer);
}

/*
 * Who reclaims for an allocation or a charge, by 6.18's reclaimer_offset():
 * khugepaged's thread counts as itself (pgscan_khugepaged, pgsteal_khugepaged),
 * any other task as direct. (kswapd and proactive reclaim say so themselves.)
 */
static enum reclaimer direct_reclaimer(void)
{
	return current_is_khugepaged() ? RECLAIMER_KHUGEPAGED : RECLAIMER_DIRECT;
}

/* cgroup_reclaim(): reclaim for a memcg's limit, not for the machine */
static bool cgroup_reclaim(const struct scan_control *sc)
{
	return sc->target_mem_cgroup != NULL;
}

/*
 * count_reclaim_events() - pgscan_*, pgsteal_* and pgrefill: in the
 * lruvec's memcg's memory.stat always, in /proc/vmstat only when the
 * reclaim is not for a memcg's limit
 */
static void count_reclaim_events(struct lruvec *lruvec, struct scan_control *sc,
				 enum vm_event_item item, unsigned long n)
{
	if (!cgroup_reclaim(sc))
		count_vm_events(item, n);
	count_memcg_events(lruvec_memcg(lruvec), item, n);
}

/*
 * shrink_inactive_list() - isolate up to @nr_to_scan pages from the tail
 * of @lru, try to reclaim them, put the rest back.
 * Return: the pages reclaimed.
 */
static unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec,
					  struct scan_control *sc, enum lru_list lru)
{
	FL_LOCK_SITE(site);
	struct reclaim_stat stat = { 0 };
	struct list_head folio_list;
	unsigned long nr_scanned, nr_taken, nr_reclaimed;
	bool file = is_file_lru(lru);
	enum node_stat_item isolated = file ? NR_ISOLATED_FILE : NR_ISOLATED_ANON;

	INIT_LIST_HEAD(&folio_list);
	lru_add_drain();
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned, sc, lru);
	mod_lruvec_state(lruvec, isolated, (long)nr_taken);
	count_reclaim_events(lruvec, sc, reclaimer_item(PGSCAN_KSWAPD, sc), nr_scanned);
	count_vm_events(file ? PGSCAN_FILE : PGSCAN_ANON, nr_scanned);
	spin_unlock(&lruvec->lru_lock);
	if (!nr_taken)
		return 0;
	nr_reclaimed = shrink_folio_list(&folio_list, sc, &stat, false);
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	move_folios_to_lru(lruvec, &folio_list);
	mod_lruvec_state(lruvec, isolated, -(long)nr_taken);
	count_reclaim_events(lruvec, sc, reclaimer_item(PGSTEAL_KSWAPD, sc), nr_reclaimed);
	count_vm_events(file ? PGSTEAL_FILE : PGSTEAL_ANON, nr_reclaimed);
	lru_note_cost_unlock(lruvec, file, stat.nr_pageout, nr_scanned - nr_reclaimed);
	return nr_reclaimed;
}

/*
 * shrink_active_list() - move up to @nr_to_scan pages from the tail of
 * the active @lru to the inactive list. Every folio goes, referenced or
 * not (only executable file folios stay), marked PG_workingset; the
 * accessed bits are cleared on the way, so the inactive list sees new ones.
 */
static void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec,
			       struct scan_control *sc, enum lru_list lru)
{
	FL_LOCK_SITE(site);
	struct list_head l_hold, l_active, l_inactive;
	unsigned long nr_taken, nr_scanned, nr_rotated = 0, nr_deactivate;
	bool file = is_file_lru(lru);
	enum node_stat_item isolated = file ? NR_ISOLATED_FILE : NR_ISOLATED_ANON;

	INIT_LIST_HEAD(&l_hold);
	INIT_LIST_HEAD(&l_active);
	INIT_LIST_HEAD(&l_inactive);
	lru_add_drain();
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, sc, lru);
	mod_lruvec_state(lruvec, isolated, (long)nr_taken);
	count_reclaim_events(lruvec, sc, PGREFILL, nr_scanned);
	spin_unlock(&lruvec->lru_lock);
	while (!list_empty(&l_hold)) {
		struct folio *folio = lru_to_folio(&l_hold);
		unsigned long vm_flags;

		list_del(&folio->lru);
		if (folio_referenced(folio, false, &vm_flags) != 0 && (vm_flags & VM_EXEC) &&
		    !folio_test_swapbacked(folio)) {
			nr_rotated += folio_nr_pages(folio);
			list_add(&folio->lru, &l_active);
			continue;
		}
		folio_clear_active(folio);
		folio_set_workingset(folio);
		list_add(&folio->lru, &l_inactive);
	}
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	move_folios_to_lru(lruvec, &l_active);
	nr_deactivate = move_folios_to_lru(lruvec, &l_inactive);
	count_vm_events(PGDEACTIVATE, nr_deactivate);
	count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE, nr_deactivate);
	mod_lruvec_state(lruvec, isolated, -(long)nr_taken);
	lru_note_cost_unlock(lruvec, file, 0, nr_rotated);
}

static unsigned long shrink_list(enum lru_list lru, unsigned long nr_to_scan, struct lruvec *lruvec,
				 struct scan_control *sc)
{
	if (is_active_lru(lru)) {
		if (sc->may_deactivate & (1u << is_file_lru(lru)))
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		else
			sc->skipped_deactivate = 1;
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/*
 * get_scan_count() - how many pages of each list to scan at this
 * priority: (size >> priority), split between anon and file by the 6.18
 * ladder (no swap, or a memcg's reclaim at swappiness 0: file only;
 * priority 0 (with swappiness): each list whole; a tiny file
 * LRU: anon only; trimmable cache: file only; else by swappiness and
 * what each type cost to reclaim lately).
 */
static void get_scan_count(struct lruvec *lruvec, struct scan_control *sc, unsigned long *nr)
{
	unsigned long fraction[2] = { 0, 0 }, denominator = 1;
	enum scan_balance scan_balance;
	unsigned long swappiness = (unsigned long)sc->swappiness;
	enum lru_list lru;

	if (!sc->may_swap || !can_reclaim_anon_pages()) {
		scan_balance = SCAN_FILE;
	} else if (sc->target_mem_cgroup && !swappiness) {
		scan_balance = SCAN_FILE; /* for a memcg, swappiness 0 means no swap at all */
	} else if (swappiness == SWAPPINESS_ANON_ONLY) {
		scan_balance = SCAN_ANON;
	} else if (!sc->priority && swappiness) {
		scan_balance = SCAN_EQUAL;
	} else if (sc->file_is_tiny) {
		scan_balance = SCAN_ANON;
	} else if (sc->cache_trim_mode) {
		scan_balance = SCAN_FILE;
	} else {
		/* calculate_pressure_balance() */
		unsigned long total = sc->anon_cost + sc->file_cost;
		unsigned long anon_cost = total + sc->anon_cost, file_cost = total + sc->file_cost;
		unsigned long ap, fp;

		total = anon_cost + file_cost;
		ap = swappiness * (total + 1) / (anon_cost + 1);
		fp = (MAX_SWAPPINESS - swappiness) * (total + 1) / (file_cost + 1);
		fraction[0] = ap;
		fraction[1] = fp;
		denominator = ap + fp;
		scan_balance = SCAN_FRACT;
	}
	for_each_evictable_lru(lru)
	{
		bool file = is_file_lru(lru);
		unsigned long scan = lruvec_lru_size(lruvec, lru) >> sc->priority;

		switch (scan_balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = denominator ? scan * fraction[file] / denominator : 0;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((scan_balance == SCAN_FILE) != file)
				scan = 0;
			break;
		}
		nr[lru] = scan;
	}
}

/*
 * can_age_anon_pages() - the active anon list may be aged while swap
 * exists, full or not (6.18: total_swap_pages > 0; the model has no
 * demotion): with swap full the kernel goes on deactivating, so what
 * frees slots later finds the inactive list ready.
 */
static bool can_age_anon_pages(void)
{
	return total_swap_pages_read() > 0;
}

/*
 * shrink_lruvec() - scan the lists SWAP_CLUSTER_MAX at a time, round
 * robin, to get_scan_count()'s targets. Once the goal is met (except in
 * direct reclaim at the first priority), the smaller type stops and the
 * other is cut to the same share of its target. Then the anon lists are
 * rebalanced if the inactive one is low.
 */
static void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[NR_LRU_LISTS] = { 0 }, targets[NR_LRU_LISTS];
	unsigned long nr_reclaimed = 0, nr_to_reclaim = sc->nr_to_reclaim;
	bool proportional_reclaim;
	enum lru_list lru;

	get_scan_count(lruvec, sc, nr);
	memcpy(targets, nr, sizeof(nr));
	proportional_reclaim = sc->reclaimer != RECLAIMER_KSWAPD && !cgroup_reclaim(sc) &&
			       sc->priority == DEF_PRIORITY;
	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		unsigned long nr_anon, nr_file, percentage, nr_scanned;
		enum lru_list other;

		for_each_evictable_lru(lru)
		{
			if (nr[lru]) {
				unsigned long nr_to_scan = fl_min_ul(nr[lru], SWAP_CLUSTER_MAX);

				nr[lru] -= nr_to_scan;
				nr_reclaimed += shrink_list(lru, nr_to_scan, lruvec, sc);
			}
		}
		if (nr_reclaimed < nr_to_reclaim || proportional_reclaim)
			continue;
		nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
		nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
		if (!nr_file || !nr_anon)
			break;
		if (nr_file > nr_anon) {
			lru = LRU_INACTIVE_ANON;
			percentage = nr_anon * 100 /
				     (targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON] + 1);
		} else {
			lru = LRU_INACTIVE_FILE;
			percentage = nr_file * 100 /
				     (targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE] + 1);
		}
		nr[lru] = 0;
		nr[lru + LRU_ACTIVE] = 0;
		other = lru == LRU_INACTIVE_FILE ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;
		nr_scanned = targets[other] - nr[other];
		nr[other] = targets[other] * (100 - percentage) / 100;
		nr[other] -= fl_min_ul(nr[other], nr_scanned);
		other += LRU_ACTIVE;
		nr_scanned = targets[other] - nr[other];
		nr[other] = targets[other] * (100 - percentage) / 100;
		nr[other] -= fl_min_ul(nr[other], nr_scanned);
	}
	sc->nr_reclaimed += nr_reclaimed;
	if (can_age_anon_pages() && inactive_is_low(lruvec, LRU_INACTIVE_ANON))
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

/* workingset activations of anon in the lruvec's tree (the node's for the root's) */
static unsigned long target_refaults(struct lruvec *lruvec)
{
	if (lruvec->memcg) /* lruvec_page_state(): as last flushed */
		return (unsigned long)memcg_activate_flushed(lruvec->memcg);
	return node_page_state(lruvec->pgdat, WORKINGSET_ACTIVATE_ANON);
}

/*
 * prepare_scan_control(): the costs, which active lists may shrink (a
 * type whose refaults activated pages since the last snapshot, or whose
 * inactive list is low), cache_trim_mode and file_is_tiny.
 */
static void prepare_scan_control(struct pglist_data *pgdat, struct scan_control *sc)
{
	FL_LOCK_SITE(site);
	struct lruvec *lruvec = mem_cgroup_lruvec(sc->target_mem_cgroup, pgdat);
	unsigned long file, free, anon;
	struct zone *zone = &pgdat->node_zones[0];

	mem_cgroup_flush_stats_ratelimited(sc->target_mem_cgroup);
	fl_spin_lock_at(&lruvec->lru_lock, &site);
	sc->anon_cost = lruvec->anon_cost;
	sc->file_cost = lruvec->file_cost;
	spin_unlock(&lruvec->lru_lock);
	if (!sc->force_deactivate) {
		unsigned long refaults = target_refaults(lruvec);

		if (refaults != READ_ONCE(lruvec->refaults[0]) ||
		    inactive_is_low(lruvec, LRU_INACTIVE_ANON))
			sc->may_deactivate |= DEACTIVATE_ANON;
		else
			sc->may_deactivate &= ~DEACTIVATE_ANON;
		/* the model has no file refaults: only a low inactive file list counts */
		if (inactive_is_low(lruvec, LRU_INACTIVE_FILE))
			sc->may_deactivate |= DEACTIVATE_FILE;
		else
			sc->may_deactivate &= ~DEACTIVATE_FILE;
	} else {
		sc->may_deactivate = DEACTIVATE_ANON | DEACTIVATE_FILE;
	}
	file = lruvec_tree_size(lruvec, LRU_INACTIVE_FILE);
	sc->cache_trim_mode = (file >> sc->priority) && !(sc->may_deactivate & DEACTIVATE_FILE);
	/* a tiny file LRU only counts in reclaim for the machine */
	sc->file_is_tiny = 0;
	if (cgroup_reclaim(sc))
		return;
	free = (unsigned long)READ_ONCE(zone->free_pages);
	file = lruvec_tree_size(lruvec, LRU_ACTIVE_FILE) +
	       lruvec_tree_size(lruvec, LRU_INACTIVE_FILE);
	anon = lruvec_tree_size(lruvec, LRU_INACTIVE_ANON);
	sc->file_is_tiny = file + free <= high_wmark_pages(zone) &&
			   !(sc->may_deactivate & DEACTIVATE_ANON) && (anon >> sc->priority);
}

/* snapshot_refaults(): where may_deactivate's refault test starts next time */
static void snapshot_refaults(struct mem_cgroup *target, struct pglist_data *pgdat)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(target, pgdat);

	WRITE_ONCE(lruvec->refaults[0], target_refaults(lruvec));
}

/*
 * memcg_iter_start(): where a walk over the tree's lruvecs starts. kswapd
 * and memcg_full_walk go over the whole tree; other reclaimers of the
 * machine take turns from the node's shared position and may stop early
 * (partial walks, so no memcg is always scanned first).
 */
static int memcg_iter_start(struct pglist_data *pgdat, struct scan_control *sc, bool *partial)
{
	*partial = !cgroup_reclaim(sc) && sc->reclaimer != RECLAIMER_KSWAPD && !sc->memcg_full_walk;
	if (!*partial)
		return 0;
	return fl_atomic_load(&pgdat->memcg_iter_pos, __ATOMIC_RELAXED) % (fl__nr_memcgs + 1);
}

/*
 * shrink_node() - one pass over the lruvecs of the target's tree on the
 * node, and their shrinkers, at sc->priority (shrink_node_memcgs()).
 */
static void shrink_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	unsigned long nr_reclaimed = sc->nr_reclaimed;
	struct lruvec *lruvec;
	bool partial;
	int i;

	prepare_scan_control(pgdat, sc);
	for (i = memcg_iter_start(pgdat, sc, &partial);
	     (lruvec = tree_lruvec(sc->target_mem_cgroup, pgdat, i)); i++) {
		shrink_lruvec(lruvec, sc);
		shrink_slab(pgdat->node_id, lruvec_memcg(lruvec), sc->priority);
		if (partial) {
			/* the shared position moves past what this walk took */
			fl_atomic_store(&pgdat->memcg_iter_pos, (i + 1) % (fl__nr_memcgs + 1),
					__ATOMIC_RELAXED);
			if (sc->nr_reclaimed >= sc->nr_to_reclaim)
				break;
		}
	}
	if (sc->nr_reclaimed > nr_reclaimed)
		fl_atomic_store(&pgdat->kswapd_failures, 0, __ATOMIC_RELAXED);
}

/*
 * do_try_to_free_pages() - shrink the nodes, @nid first, at falling
 * priority until SWAP_CLUSTER_MAX pages are free; once more forcing
 * deactivation if an active list was skipped and nothing came free.
 * allocstall counts each try. Return: the pages reclaimed.
 */
static unsigned long do_try_to_free_pages(int nid, struct scan_control *sc)
{
	int i, initial_priority = sc->priority;

retry:
	if ((sc->reclaimer == RECLAIMER_DIRECT || sc->reclaimer == RECLAIMER_KHUGEPAGED) &&
	    !cgroup_reclaim(sc))
		count_vm_event((sc->gfp_mask & __GFP_MOVABLE) ? ALLOCSTALL_MOVABLE
							      : ALLOCSTALL_NORMAL);
	do {
		sc->nr_scanned = 0;
		for (i = 0; i < fl__nr_node_ids; i++) {
			int n = (nid + i) % fl__nr_node_ids;

			if (i && (sc->gfp_mask & __GFP_THISNODE))
				break;
			shrink_node(NODE_DATA(n), sc);
		}
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = 1;
	} while (--sc->priority >= 0);
	for (i = 0; i < fl__nr_node_ids; i++)
		snapshot_refaults(sc->target_mem_cgroup, NODE_DATA(i));
	if (sc->nr_reclaimed)
		return sc->nr_reclaimed;
	/* partial walks may have missed the memcgs with reclaimable memory (6.10 on) */
	if (!sc->memcg_full_walk) {
		sc->priority = initial_priority;
		sc->memcg_full_walk = 1;
		goto retry;
	}
	if (sc->skipped_deactivate) {
		sc->priority = initial_priority;
		sc->force_deactivate = 1;
		sc->skipped_deactivate = 0;
		goto retry;
	}
	return 0;
}

/**
 * try_to_free_pages() - direct reclaim for an allocation of @order with
 * @gfp_mask that found the machine below its watermarks.
 * Return: the pages reclaimed.
 * Context: may sleep; the caller holds no spinlock.
 */
unsigned long try_to_free_pages(gfp_t gfp_mask, int order, int nid)
{
	uint64_t t0 = fl_clock_ns();
	unsigned long nr;
	struct scan_control sc = { .nr_to_reclaim = SWAP_CLUSTER_MAX,
				   .gfp_mask = gfp_mask,
				   .order = order,
				   .priority = DEF_PRIORITY,
				   .swappiness = (int)READ_ONCE(vm_swappiness),
				   .reclaimer = direct_reclaimer(),
				   .may_writepage = 1,
				   .may_unmap = 1,
				   .may_swap = 1 };

	nr = do_try_to_free_pages(nid, &sc);
	count_fl_stat(FL_DIRECT_RECLAIM_NS, (long)(fl_clock_ns() - t0));
	return nr;
}

/**
 * try_to_free_mem_cgroup_pages() - reclaim for @memcg's limit: its own
 * lruvecs, at falling priority until @nr_pages (at least
 * SWAP_CLUSTER_MAX) came free, from the current node on. Counted in the
 * memcg's memory.stat (pgscan_direct, or _proactive with
 * MEMCG_RECLAIM_PROACTIVE), not in /proc/vmstat's pgscan/pgsteal.
 * @swappiness: -1 for vm.swappiness. Return: the pages reclaimed.
 */
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg, unsigned long nr_pages,
					   gfp_t gfp_mask, unsigned int reclaim_options,
					   int swappiness)
{
	uint64_t t0 = fl_clock_ns();
	unsigned long nr;
	bool proactive = reclaim_options & MEMCG_RECLAIM_PROACTIVE;
	struct scan_control sc = {
		.nr_to_reclaim = fl_max_ul(nr_pages, SWAP_CLUSTER_MAX),
		.gfp_mask = gfp_mask,
		.priority = DEF_PRIORITY,
		.swappiness = swappiness < 0 ? (int)READ_ONCE(vm_swappiness) : swappiness,
		.reclaimer = proactive ? RECLAIMER_PROACTIVE : direct_reclaimer(),
		.target_mem_cgroup = memcg,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = !!(reclaim_options & MEMCG_RECLAIM_MAY_SWAP),
	};

	nr = do_try_to_free_pages(numa_node_id(), &sc);
	if (!proactive)
		count_fl_stat(FL_DIRECT_RECLAIM_NS, (long)(fl_clock_ns() - t0));
	return nr;
}

int sysctl_min_unmapped_ratio = 1;

/*
 * node_pagecache_reclaimable() - what __node_reclaim() counts on (node
 * reclaim mode 0): the file LRUs' pages not mapped (6.18's
 * node_unmapped_file_pages(): file LRU minus NR_FILE_MAPPED, at least 0),
 * less the dirty ones (none in the model). Lazy-free anon sits on the file
 * LRUs and is not NR_FILE_MAPPED: it counts.
 */
static unsigned long node_pagecache_reclaimable(struct pglist_data *pgdat)
{
	unsigned long file = node_lru_pages(pgdat, LRU_INACTIVE_FILE) +
			     node_lru_pages(pgdat, LRU_ACTIVE_FILE);
	unsigned long mapped = node_page_state(pgdat, NR_FILE_MAPPED);

	return file > mapped ? file - mapped : 0;
}

/**
 * node_reclaim_proactive() - reclaim @nr_pages from node @nid as a write
 * to /sys/devices/system/node/nodeN/reclaim does (user_proactive_reclaim()
 * and __node_reclaim()): tries of a quarter of what is left (at least
 * SWAP_CLUSTER_MAX), each shrinking the node at falling priority until it
 * has its share, but only while the node's unmapped page cache is above
 * vm.min_unmapped_ratio of it (the slab half of the gate, min_slab_ratio,
 * never opens: no reclaimable slab here), so an anon-only node gives
 * nothing; gives up after MAX_RECLAIM_RETRIES + 1 tries that free
 * nothing. A second writer while one reclaims fails at once (EBUSY, which
 * the sysfs file turns into EAGAIN). Counted as proactive
 * (pgscan_proactive, pgsteal_proactive).
 * @swappiness: 0..200, SWAPPINESS_ANON_ONLY, or -1 for vm.swappiness.
 * Return: 0, or -EAGAIN if less than asked came free.
 */
int node_reclaim_proactive(int nid, unsigned long nr_pages, int swappiness)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	unsigned long nr_reclaimed = 0;
	int nr_retries = MAX_RECLAIM_RETRIES;

	while (nr_reclaimed < nr_pages) {
		unsigned long batch = (nr_pages - nr_reclaimed) / 4;
		unsigned long min_unmapped = pgdat->node_zones[0].managed_pages *
					     (unsigned long)READ_ONCE(sysctl_min_unmapped_ratio) /
					     100;
		struct scan_control sc = { .nr_to_reclaim = fl_max_ul(batch, SWAP_CLUSTER_MAX),
					   .gfp_mask = GFP_KERNEL,
					   .priority = DEF_PRIORITY,
					   .swappiness = swappiness < 0
								 ? (int)READ_ONCE(vm_swappiness)
								 : swappiness,
					   .reclaimer = RECLAIMER_PROACTIVE,
					   .may_writepage = 1,
					   .may_unmap = 1,
					   .may_swap = 1 };

		if (!nr_retries)
			lru_add_drain_all(); /* the last try: the per-CPU batches too */
		if (fl_atomic_fetch_or(&pgdat->flags, PGDAT_RECLAIM_LOCKED, __ATOMIC_ACQUIRE) &
		    PGDAT_RECLAIM_LOCKED)
			return -EAGAIN;
		if (node_pagecache_reclaimable(pgdat) > min_unmapped) {
			do {
				shrink_node(pgdat, &sc);
			} while (sc.nr_reclaimed < batch && --sc.priority >= 0);
		}
		fl_atomic_fetch_and(&pgdat->flags, ~PGDAT_RECLAIM_LOCKED, __ATOMIC_RELEASE);
		if (!sc.nr_reclaimed && !nr_retries--)
			return -EAGAIN;
		nr_reclaimed += sc.nr_reclaimed;
	}
	return 0;
}

/*
 * zone_reclaimable_pages() - what reclaim could still free in @zone's
 * node: the file LRUs, and the anon ones while swap has room.
 */
unsigned long zone_reclaimable_pages(struct zone *zone)
{
	struct lruvec *lruvec = &zone->zone_pgdat->__lruvec;
	unsigned long nr = lruvec_tree_size(lruvec, LRU_INACTIVE_FILE) +
			   lruvec_tree_size(lruvec, LRU_ACTIVE_FILE);

	if (can_reclaim_anon_pages())
		nr += lruvec_tree_size(lruvec, LRU_INACTIVE_ANON) +
		      lruvec_tree_size(lruvec, LRU_ACTIVE_ANON);
	return nr;
}

/* ---- kswapd: reclaim ahead of need ---- */

/*
 * pgdat_balanced() - the node's zone meets its high watermark for @order
 * (zone_watermark_ok_safe(): the exact free count).
 */
static bool pgdat_balanced(struct pglist_data *pgdat, int order)
{
	struct zone *z = &pgdat->node_zones[0];

	return zone_watermark_ok(z, (unsigned int)order, high_wmark_pages(z));
}

/* kswapd_age_node(): keep the anon inactive list from running low ahead of need */
static void kswapd_age_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	struct lruvec *lruvec;
	int i;

	if (!can_age_anon_pages() || !inactive_is_low(&pgdat->__lruvec, LRU_INACTIVE_ANON))
		return;
	for (i = 0; (lruvec = tree_lruvec(NULL, pgdat, i)); i++)
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

/*
 * kswapd_shrink_node(): aim at the high watermark (at least
 * SWAP_CLUSTER_MAX); a high-order run that freed twice its size goes on
 * at order 0. Return: whether the scan was large enough not to raise the
 * priority.
 */
static bool kswapd_shrink_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	sc->nr_to_reclaim = fl_max_ul(high_wmark_pages(&pgdat->node_zones[0]), SWAP_CLUSTER_MAX);
	shrink_node(pgdat, sc);
	if (sc->order && sc->nr_reclaimed >= (2ul << sc->order))
		sc->order = 0;
	return sc->nr_scanned >= sc->nr_to_reclaim;
}

/*
 * balance_pgdat() - reclaim at falling priority (12 down to 1) until the
 * node is balanced at its high watermark, aging the anon lists first each
 * round; the priority stays while a round scans enough and frees
 * something. A run that frees nothing counts a kswapd failure (16 in a row
 * and kswapd leaves the node to direct reclaim).
 *
 * A watermark boost (a fallback inside a pageblock) is reclaimed on a
 * balanced node too, without swap or writeback and at priority 10 at the
 * lowest, until the boost's worth is freed or a round frees nothing; an
 * unbalanced node reclaims as usual instead. Either way the boost seen at
 * the start is taken off the zone at the end, and kcompactd is woken to
 * put pageblocks together from what was freed. Return: the order it ended
 * at.
 */
static int balance_pgdat(struct pglist_data *pgdat, int order)
{
	struct scan_control sc = { .gfp_mask = GFP_KERNEL,
				   .order = order,
				   .swappiness = (int)READ_ONCE(vm_swappiness),
				   .reclaimer = RECLAIMER_KSWAPD,
				   .may_unmap = 1 };
	struct zone *zone = &pgdat->node_zones[0];
	unsigned long boosted = READ_ONCE(zone->watermark_boost), nr_boost_reclaim = boosted;

	count_vm_event(PAGEOUTRUN);
restart:
	sc.priority = DEF_PRIORITY;
	do {
		unsigned long nr_reclaimed = sc.nr_reclaimed;
		bool raise_priority = true, balanced = pgdat_balanced(pgdat, sc.order);

		if (!balanced && nr_boost_reclaim) {
			nr_boost_reclaim = 0;
			goto restart;
		}
		if (!nr_boost_reclaim && balanced)
			goto out;
		if (nr_boost_reclaim && sc.priority == DEF_PRIORITY - 2)
			raise_priority = false;
		sc.may_writepage = !nr_boost_reclaim || sc.priority < DEF_PRIORITY - 2;
		sc.may_swap = !nr_boost_reclaim;
		kswapd_age_node(pgdat, &sc);
		sc.nr_scanned = 0;
		if (kswapd_shrink_node(pgdat, &sc))
			raise_priority = false;
		if (fl_atomic_load(&kswapd_should_stop, __ATOMIC_ACQUIRE))
			break; /* kthread_should_stop() */
		nr_reclaimed = sc.nr_reclaimed - nr_reclaimed;
		nr_boost_reclaim -= fl_min_ul(nr_boost_reclaim, nr_reclaimed);
		if (nr_boost_reclaim && !nr_reclaimed)
			break;
		if (raise_priority || !nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	if (!sc.nr_reclaimed)
		fl_atomic_fetch_add(&pgdat->kswapd_failures, 1, __ATOMIC_RELAXED);
out:
	if (boosted) {
		zone_unboost(zone, boosted);
		wakeup_kcompactd(pgdat, pageblock_order);
	}
	snapshot_refaults(NULL, pgdat);
	return sc.order;
}

#define KSWAPD_NAP_NS 100000000ull /* HZ / 10 */

/* prepare_kswapd_sleep(): balanced, or hopeless (left to direct reclaim) */
static bool prepare_kswapd_sleep(struct pglist_data *pgdat, int order)
{
	return fl_atomic_load(&pgdat->kswapd_failures, __ATOMIC_RELAXED) >= MAX_RECLAIM_RETRIES ||
	       pgdat_balanced(pgdat, order);
}

/*
 * kswapd_try_to_sleep() - if the node is balanced (or hopeless), nap
 * HZ/10, then, if nobody woke it and it is still balanced, sleep until
 * woken. A wake-up during the nap counts kswapd_low_wmark_hit_quickly,
 * finding the node unbalanced kswapd_high_wmark_hit_quickly; either way
 * kswapd goes back to work. Before the nap, kcompactd's work for
 * @alloc_order, the order the last wake-up asked for (kcompactd_run()).
 */
static void kswapd_try_to_sleep(struct pglist_data *pgdat, int alloc_order, int order)
{
	unsigned long seen = fl_waitq_prepare(&pgdat->kswapd_wait);
	bool remaining = false;

	if (fl_atomic_load(&kswapd_should_stop, __ATOMIC_ACQUIRE))
		goto done;
	if (prepare_kswapd_sleep(pgdat, order)) {
		/* what was freed may now be compacted: kcompactd's turn, its hints anew */
		reset_isolation_suitable(pgdat);
		kcompactd_run(pgdat, alloc_order);
		remaining = fl_waitq_sleep_timeout(&pgdat->kswapd_wait, seen, KSWAPD_NAP_NS);
		seen = fl_atomic_load(&pgdat->kswapd_wait.seq, __ATOMIC_ACQUIRE);
	}
	if (fl_atomic_load(&kswapd_should_stop, __ATOMIC_ACQUIRE))
		goto done;
	if (!remaining && prepare_kswapd_sleep(pgdat, order)) {
		/* schedule(): until a wake-up (a native sleep may end early) */
		while (fl_atomic_load(&pgdat->kswapd_wait.seq, __ATOMIC_ACQUIRE) == seen &&
		       !fl_atomic_load(&kswapd_should_stop, __ATOMIC_ACQUIRE))
			fl_waitq_sleep(&pgdat->kswapd_wait, seen);
	} else if (remaining)
		count_vm_event(KSWAPD_LOW_WMARK_HIT_QUICKLY);
	else
		count_vm_event(KSWAPD_HIGH_WMARK_HIT_QUICKLY);
done:
	fl_waitq_finish(&pgdat->kswapd_wait);
}

/* kswapd() - the node's reclaim thread, until the workload's tasks end. */
static void kswapd(void *arg)
{
	struct pglist_data *pgdat = arg;
	int alloc_order = 0, reclaim_order = 0;

	for (;;) {
		kswapd_try_to_sleep(pgdat, alloc_order, reclaim_order);
		if (fl_atomic_load(&kswapd_should_stop, __ATOMIC_ACQUIRE))
			break;
		uint64_t t0;

		alloc_order = fl_atomic_xchg(&pgdat->kswapd_order, 0, __ATOMIC_RELAXED);
		/* woken for kcompactd alone (the model's kcompactd runs on this thread) */
		if (!alloc_order && fl_atomic_load(&pgdat->kcompactd_max_order, __ATOMIC_RELAXED) &&
		    pgdat_balanced(pgdat, 0) && !READ_ONCE(pgdat->node_zones[0].watermark_boost)) {
			kcompactd_run(pgdat, 0);
			continue;
		}
		t0 = fl_clock_ns();
		reclaim_order = balance_pgdat(pgdat, alloc_order);
		count_fl_stat(FL_KSWAPD_NS, (long)(fl_clock_ns() - t0));
	}
}

/**
 * wakeup_kswapd() - an allocation of @order fell below the low watermark
 * on @pgdat: raise kswapd's order and wake it if it sleeps, unless the
 * node is hopeless or balanced after all.
 */
void wakeup_kswapd(struct pglist_data *pgdat, gfp_t gfp, int order)
{
	int cur = fl_atomic_load(&pgdat->kswapd_order, __ATOMIC_RELAXED);

	if (pgdat->kswapd_cpu < 0)
		return;
	while (cur < order && !fl_atomic_cmpxchg(&pgdat->kswapd_order, &cur, order, true,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (!fl_waitq_active(&pgdat->kswapd_wait))
		return;
	if (fl_atomic_load(&pgdat->kswapd_failures, __ATOMIC_RELAXED) >= MAX_RECLAIM_RETRIES ||
	    (pgdat_balanced(pgdat, order) && !READ_ONCE(pgdat->node_zones[0].watermark_boost))) {
		/* free memory, maybe in pieces: kcompactd, unless the allocation compacts itself */
		if (!(gfp & __GFP_DIRECT_RECLAIM))
			wakeup_kcompactd(pgdat, order);
		return;
	}
	fl_waitq_wake_all(&pgdat->kswapd_wait);
}

static struct fl_thread_handle *kswapd_threads[MAX_NUMNODES];
static int kswapd_workers; /* atomic: the workload's tasks still running */

/**
 * fl__kswapd_start() - start every node's kswapd for a run of @nr_tasks
 * tasks; each task calls fl__kswapd_task_done() at its end, and the last
 * one stops kswapd. Return: 0 or -errno.
 */
int fl__kswapd_start(int nr_tasks)
{
	int nid, ret = 0;

	fl_atomic_store(&kswapd_should_stop, 0, __ATOMIC_RELEASE);
	fl_atomic_store(&kswapd_workers, nr_tasks, __ATOMIC_RELEASE);
	for_each_online_node (nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (pgdat->kswapd_cpu < 0)
			continue;
		kswapd_threads[nid] = fl__thread_start(kswapd, pgdat, pgdat->kswapd_cpu, -1, &ret);
		if (!kswapd_threads[nid])
			break;
	}
	return ret;
}

static void kswapd_stop_all(void)
{
	int nid;

	fl_atomic_store(&kswapd_should_stop, 1, __ATOMIC_RELEASE);
	for_each_online_node (nid)
		if (kswapd_threads[nid])
			fl_waitq_wake_all(&NODE_DATA(nid)->kswapd_wait);
}

void fl__kswapd_task_done(void)
{
	if (fl_atomic_sub_fetch(&kswapd_workers, 1, __ATOMIC_ACQ_REL) == 0)
		kswapd_stop_all();
}

/** fl__kswapd_join() - after the tasks: wait for every kswapd to end. */
void fl__kswapd_join(void)
{
	int nid;

	kswapd_stop_all();
	for_each_online_node (nid) {
		if (kswapd_threads[nid])
			fl__thread_join(kswapd_threads[nid]);
		kswapd_threads[nid] = NULL;
	}
}
