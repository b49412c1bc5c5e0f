// SPDX-License-Identifier: GPL-2.0-only
/*
 * workingset.c - whether a swapped-in page was evicted too soon
 * (mm/workingset.c in the kernel, its anon half).
 *
 * Each lruvec ages (nonresident_age) by every page it evicts, every page
 * an access or a put-back activates, and every
 * page a refault activates. An evicted swap-cache folio leaves a shadow in
 * its slots: the age at eviction and whether it was in the workingset
 * (PG_workingset). When a swap-in reads the slot again, the refault
 * distance (the age since) is held against the workingset: the file
 * LRUs and, while swap has room, the active anon list. A refault within
 * it is activated (workingset_activate_anon) and ages the lruvec; one of a
 * workingset folio is restored (workingset_restore_anon). Every refault
 * counts workingset_refault_anon.
 *
 * Eviction ages the lruvec of the reclaim's target (the root's, the
 * node's own, for global and kswapd reclaim and MADV_PAGEOUT) and every
 * ancestor, and the shadow names that lruvec (memcg id and node); a refault
 * measures its distance and the workingset's size there (hierarchical: the
 * root's counts the node), while the refault's counts, activation and aging
 * go to the folio's own lruvec. The model's memcgs are the root's
 * children, so the root is the only ancestor. The kernel drops low bits of
 * the age (bucket_order) on large machines; the model keeps the whole age.
 *
 * Conventions in this file: a shadow is 0 (none) or
 * ((((age << 16) | memcg id) << 6 | node) << 1 | workingset) + 2.
 */
#include "internal.h"
#include "swap.h"

#define SHADOW_MEMCG_BITS 16
#define SHADOW_NODE_BITS 6

_Static_assert(MAX_NUMNODES <= 1 << SHADOW_NODE_BITS, "a node fits the shadow");
_Static_assert(MEMCG_MAX_CHILDREN < 1 << SHADOW_MEMCG_BITS, "a memcg id fits the shadow");

/* ... the lruvec's and, up the hierarchy, each ancestor's (the root's) */
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr)
{
	fl_atomic_fetch_add(&lruvec->nonresident_age, (long)nr, __ATOMIC_RELAXED);
	if (lruvec->memcg)
		fl_atomic_fetch_add(&lruvec->pgdat->__lruvec.nonresident_age, (long)nr,
				    __ATOMIC_RELAXED);
}

/* workingset_activation() - an access activated @folio: its lruvec ages */
void workingset_activation(struct folio *folio)
{
	workingset_age_nonresident(folio_lruvec(folio), folio_nr_pages(folio));
}

/**
 * workingset_eviction() - @folio leaves memory, reclaimed for
 * @target_memcg (NULL: the root): its shadow.
 * Context: the folio is locked and off the LRU.
 */
unsigned long workingset_eviction(struct folio *folio, struct mem_cgroup *target_memcg)
{
	struct pglist_data *pgdat = folio_pgdat(folio);
	struct lruvec *lruvec = mem_cgroup_lruvec(target_memcg, pgdat);
	unsigned long eviction = (unsigned long)fl_atomic_load(&lruvec->nonresident_age,
							       __ATOMIC_RELAXED);
	unsigned long id = target_memcg ? target_memcg->id : 0;

	workingset_age_nonresident(lruvec, folio_nr_pages(folio));
	eviction = (eviction << SHADOW_MEMCG_BITS | id) << SHADOW_NODE_BITS |
		   (unsigned long)pgdat->node_id;
	return (eviction << 1 | (folio_test_workingset(folio) ? 1 : 0)) + 2;
}

/**
 * workingset_refault() - the new @folio reads back what @shadow's folio
 * held: activate it if it was evicted within the workingset's size, as
 * the lruvec it was evicted from measures both.
 * Context: before the folio joins the LRU.
 */
void workingset_refault(struct folio *folio, unsigned long shadow)
{
	struct lruvec *lruvec = folio_lruvec(folio), *eviction_lruvec;
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), eviction, distance, size, id;
	struct mem_cgroup *eviction_memcg;
	bool workingset;
	int nid;

	if (!shadow)
		return;
	shadow -= 2;
	workingset = shadow & 1;
	shadow >>= 1;
	nid = (int)(shadow & ((1ul << SHADOW_NODE_BITS) - 1));
	shadow >>= SHADOW_NODE_BITS;
	id = shadow & ((1ul << SHADOW_MEMCG_BITS) - 1);
	eviction = shadow >> SHADOW_MEMCG_BITS;
	lruvec_stat_mod_folio(folio, WORKINGSET_REFAULT_ANON, (long)nr);
	eviction_memcg = id <= (unsigned long)MEMCG_MAX_CHILDREN ? fl__memcgs[id] : NULL;
	if (id && !eviction_memcg)
		return; /* its memcg is gone: not recent */
	eviction_lruvec = mem_cgroup_lruvec(eviction_memcg, NODE_DATA(nid));
	mem_cgroup_flush_stats_ratelimited(eviction_memcg);
	distance = (unsigned long)fl_atomic_load(&eviction_lruvec->nonresident_age,
						 __ATOMIC_RELAXED) -
		   eviction;
	/* the sizes as lruvec_page_state() reads them: hierarchical, a memcg's as last flushed */
	size = lruvec_tree_size(eviction_lruvec, LRU_ACTIVE_FILE) +
	       lruvec_tree_size(eviction_lruvec, LRU_INACTIVE_FILE);
	if (si && READ_ONCE(si->inuse_pages) < si->pages)
		size += lruvec_tree_size(eviction_lruvec, LRU_ACTIVE_ANON);
	if (distance > size)
		return;
	folio_set_active(folio);
	workingset_age_nonresident(lruvec, nr);
	lruvec_stat_mod_folio(folio, WORKINGSET_ACTIVATE_ANON, (long)nr);
	if (workingset) {
		folio_set_workingset(folio);
		lruvec_stat_mod_folio(folio, WORKINGSET_RESTORE_ANON, (long)nr);
		lru_note_cost_refault(folio); /* a workingset folio came back: reclaim cost it */
	}
}
