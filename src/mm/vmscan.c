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
#include <stdio.h>
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
	fl_cost_transfers((unsigned int)first + (unsigned int)second);
}

static __always_inline void lru_lines_add(struct lruvec *lruvec, struct folio *folio,
					  struct list_head *prev, struct list_head *next)
{
	if (unlikely(fl__sim_active))
		lru_lines(lruvec, folio, prev, next, true);
}

static __always_inline void lru_lines_del(struct lruvec *lruvec, struct folio *folio)
{
	if (unlikely(fl__sim_active))
		lru_lines(lruvec, folio, folio->lru.prev, folio->lru.next, false);
}

/*
 * Every LRU add and delete passes here: it writes the sizes (sim: their
 * line, whose transfer overlaps the list's, and the cost).
 */
static inline void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages)
{
	if (unlikely(fl__sim_active))
		(void)fl__cacheline_claim(&lruvec->size_line);
	fl_cost(FL_COST_LRU_MOVE);
	WRITE_ONCE(lruvec->nr_pages[lru], (unsigned long)((long)lruvec->nr_pages[lru] + nr_pages));
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

/* ---- drop_slab(): what drop_caches' 2 runs (fs/drop_caches.c) ---- */

#define SHRINK_BATCH 128 /* shrinker->batch 0: mm/shrinker.c's default */

/*
 * One node's shrinkers at priority 0, as shrink_slab() runs them for
 * drop_slab_node(): each scans all it counts, SHRINK_BATCH at a time,
 * until it says SHRINK_STOP. The model's shrinkers are the deferred split
 * queue (per node) and the huge zero folio (not NUMA-aware: node 0 only).
 */
static unsigned long shrink_slab_node(int nid)
{
	unsigned long freed = 0, total = deferred_split_count(nid), scanned, ret;

	for (scanned = 0; scanned < total; scanned += SHRINK_BATCH) {
		ret = deferred_split_scan(nid, total - scanned < SHRINK_BATCH ? total - scanned
									      : SHRINK_BATCH);
		if (ret == SHRINK_STOP)
			break;
		freed += ret;
	}
	if (nid == 0 && huge_zero_folio_shrink_count())
		freed += huge_zero_folio_shrink_scan();
	return freed;
}

/*
 * drop_slab(): every node, again while a round frees more than 2^round
 * objects (6.18: the shift grows each round, so the rounds end)
 */
void drop_slab(void)
{
	unsigned long freed;
	int nid, shift = 0;

	do {
		freed = 0;
		for_each_online_node (nid)
			freed += shrink_slab_node(nid);
	} while ((freed >> shift++) > 1);
}

/* ---- shrink_folio_list(): reclaiming isolated folios ---- */

struct scan_control {
	unsigned long nr_scanned;
};

struct reclaim_stat {
	unsigned long nr_activate;
	unsigned long nr_unmap_fail;
	unsigned long nr_lazyfree_fail;
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
	mod_node_page_state(folio_pgdat(folio), NR_VMSCAN_WRITE, (long)folio_nr_pages(folio));
	return PAGE_SUCCESS;
}

/*
 * __remove_mapping() for a swap-cache folio: only ours and the cache's
 * references may be left; it leaves the cache with its refcount frozen at 0.
 * Return: true if it can be freed.
 */
static bool __remove_mapping(struct folio *folio)
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
	__swap_cache_del_folio(folio, workingset_eviction(folio));
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
				       struct reclaim_stat *stat)
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
		/* only anon folios are isolated for reclaim in the model */
		if (!folio_test_anon(folio))
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
				if (nr_pages >= HPAGE_PMD_NR)
					count_vm_event(THP_SWPOUT_FALLBACK);
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
		if (folio_test_dirty(folio) && folio_test_swapbacked(folio)) {
			switch (pageout(folio)) {
			case PAGE_KEEP:
				goto keep_locked;
			case PAGE_ACTIVATE:
				goto activate_locked;
			case PAGE_SUCCESS:
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
			if (folio_test_dirty(folio)) {
				folio_ref_unfreeze(folio, 1);
				goto keep_locked;
			}
			count_vm_events(PGLAZYFREED, nr_pages);
		} else if (!__remove_mapping(folio)) {
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
		if (!folio_test_mlocked(folio)) {
			folio_set_active(folio);
			stat->nr_activate += nr_pages;
			pgactivate += nr_pages;
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
	/* references are ignored: shrink_folio_list() does not check them (yet) */
	struct scan_control sc = { 0 };
	struct reclaim_stat stat = { 0 };
	struct list_head *pos;
	unsigned long nr;

	if (list_empty(folio_list))
		return 0;
	list_for_each (pos, folio_list)
		folio_clear_active(list_entry(pos, struct folio, lru));
	nr = shrink_folio_list(folio_list, &sc, &stat);
	while (!list_empty(folio_list)) {
		struct folio *folio = lru_to_folio(folio_list);

		list_del(&folio->lru);
		folio_add_lru(folio); /* folio_putback_lru() */
		folio_put(folio);
	}
	return nr;
}
