// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmscan.c - lruvecs and their LRU lists (the list part of mm/vmscan.c and
 * include/linux/mm_inline.h in the kernel). Reclaim comes later.
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
