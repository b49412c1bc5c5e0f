// SPDX-License-Identifier: GPL-2.0-only
/*
 * workingset.c - whether a swapped-in page was evicted too soon
 * (mm/workingset.c in the kernel, its anon half).
 *
 * Each lruvec ages (nonresident_age) by every page it evicts and every
 * page a refault activates. An evicted swap-cache folio leaves a shadow in
 * its slots: the age at eviction and whether it was in the workingset
 * (PG_workingset). When a swap-in reads the slot again, the refault
 * distance (the age since) is held against the workingset: the file
 * LRUs and, while swap has room, the active anon list. A refault within
 * it is activated (workingset_activate_anon) and ages the lruvec; one of a
 * workingset folio is restored (workingset_restore_anon). Every refault
 * counts workingset_refault_anon.
 *
 * The kernel packs the shadow with the memcg id and node and drops low
 * bits of the age (bucket_order) on large machines; the model keeps the
 * node's lruvec and the whole age.
 *
 * Conventions in this file: a shadow is 0 (none) or (age << 1 | workingset) + 2.
 */
#include "internal.h"
#include "swap.h"

void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr)
{
	fl_atomic_fetch_add(&lruvec->nonresident_age, (long)nr, __ATOMIC_RELAXED);
}

/**
 * workingset_eviction() - @folio leaves memory: its shadow.
 * Context: the folio is locked and off the LRU.
 */
unsigned long workingset_eviction(struct folio *folio)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	long eviction = fl_atomic_load(&lruvec->nonresident_age, __ATOMIC_RELAXED);

	workingset_age_nonresident(lruvec, folio_nr_pages(folio));
	return (((unsigned long)eviction << 1) | (folio_test_workingset(folio) ? 1 : 0)) + 2;
}

/**
 * workingset_refault() - the new @folio reads back what @shadow's folio
 * held: activate it if it was evicted within the workingset's size.
 * Context: before the folio joins the LRU.
 */
void workingset_refault(struct folio *folio, unsigned long shadow)
{
	struct lruvec *lruvec = folio_lruvec(folio);
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), eviction, distance, size;
	bool workingset;

	if (!shadow)
		return;
	shadow -= 2;
	workingset = shadow & 1;
	eviction = shadow >> 1;
	lruvec_stat_mod_folio(folio, WORKINGSET_REFAULT_ANON, (long)nr);
	mem_cgroup_flush_stats_ratelimited(lruvec->memcg);
	distance = (unsigned long)fl_atomic_load(&lruvec->nonresident_age, __ATOMIC_RELAXED) -
		   eviction;
	/* the sizes as lruvec_page_state() reads them: a memcg's as last flushed */
	size = lruvec_page_state_lru(lruvec, LRU_ACTIVE_FILE) +
	       lruvec_page_state_lru(lruvec, LRU_INACTIVE_FILE);
	if (si && READ_ONCE(si->inuse_pages) < si->pages)
		size += lruvec_page_state_lru(lruvec, LRU_ACTIVE_ANON);
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
