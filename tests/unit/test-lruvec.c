// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-lruvec.c - moving a batch takes each lruvec lock once per run of
 * folios of that lruvec: alternating nodes relock on every folio, grouped
 * nodes lock once per group; freeing relocks the same way.
 *
 * Conventions in this file: folios are allocated on a chosen node with
 * __alloc_pages(); two nodes, CPU 0 on node 0.
 */
#include "mm_harness.h"

static struct folio *node_folio(int nid)
{
	return (struct folio *)__alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_THISNODE, 0, nid);
}

static uint64_t moves(void)
{
	return lock_stat("lruvec->lru_lock", "folio_batch_move_lru", false);
}

static uint64_t releases(void)
{
	return lock_stat("lruvec->lru_lock", "__page_cache_release", false);
}

static bool run(const int *nids, int n, uint64_t want_moves, uint64_t want_releases)
{
	struct folio *f[FOLIO_BATCH_SIZE];
	struct folio_batch fb;
	uint64_t m0 = moves(), r0 = releases();
	int i;

	for (i = 0; i < n; i++) {
		f[i] = node_folio(nids[i]);
		ASSERT_TRUE(f[i] != NULL);
		ASSERT_EQ(folio_nid(f[i]), nids[i]);
		folio_add_lru(f[i]);
	}
	lru_add_drain();
	ASSERT_EQ(moves() - m0, want_moves);
	ASSERT_EQ(NODE_DATA(0)->__lruvec.nr_pages[LRU_INACTIVE_FILE] +
			  NODE_DATA(1)->__lruvec.nr_pages[LRU_INACTIVE_FILE],
		  (unsigned long)n);
	ASSERT_TRUE(fl__lruvec_validate(&NODE_DATA(0)->__lruvec, NULL, 0));
	ASSERT_TRUE(fl__lruvec_validate(&NODE_DATA(1)->__lruvec, NULL, 0));
	/* drop them together, as a zap does, through folios_put() */
	folio_batch_init(&fb);
	for (i = 0; i < n; i++)
		folio_batch_add(&fb, f[i]);
	folios_put(&fb);
	ASSERT_EQ(releases() - r0, want_releases);
	return true;
}

static bool test_alternating_nodes_relock_each_folio(void)
{
	int nids[30], i;

	ASSERT_TRUE(mm_up(64, 2, 2));
	for (i = 0; i < 30; i++)
		nids[i] = i % 2;
	ASSERT_TRUE(run(nids, 30, 30, 30));
	return mm_down();
}

static bool test_grouped_nodes_lock_once_per_group(void)
{
	int nids[30], i;

	ASSERT_TRUE(mm_up(64, 2, 2));
	for (i = 0; i < 30; i++)
		nids[i] = i < 15 ? 0 : 1;
	ASSERT_TRUE(run(nids, 30, 2, 2));
	/* one node throughout: one acquisition per batch */
	for (i = 0; i < 30; i++)
		nids[i] = 1;
	ASSERT_TRUE(run(nids, 30, 1, 1));
	return mm_down();
}

/*
 * A folio on the inactive list of node 0, accessed twice: the first
 * access sets PG_referenced, the second queues it on lru_activate.
 */
static struct folio *queued_for_activation(void)
{
	struct folio *f = node_folio(0);

	if (!f)
		return NULL;
	folio_add_lru(f);
	lru_add_drain();
	folio_mark_accessed(f);
	folio_mark_accessed(f);
	return f;
}

/* folio_mark_accessed() twice activates through the lru_activate batch. */
static bool test_activate_batch(void)
{
	struct lruvec *lv;
	struct folio *f;

	ASSERT_TRUE(mm_up(64, 1, 1));
	lv = &NODE_DATA(0)->__lruvec;
	f = queued_for_activation();
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(!folio_test_active(f));
	lru_add_drain();
	ASSERT_TRUE(folio_test_active(f));
	ASSERT_EQ(counter("pgactivate"), 1);
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_FILE], 1);
	folio_put(f);
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_FILE], 0);
	return mm_down();
}

/* A folio isolated after it was queued is skipped when the batch moves. */
static bool test_isolated_folio_is_skipped(void)
{
	struct lruvec *lv;
	struct folio *f;

	ASSERT_TRUE(mm_up(64, 1, 1));
	lv = &NODE_DATA(0)->__lruvec;
	f = queued_for_activation(); /* in the lru_activate batch, PG_lru still set */
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(folio_isolate_lru(f));
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 0);
	lru_add_drain();
	ASSERT_TRUE(!folio_test_active(f)); /* the batch lost the PG_lru race */
	ASSERT_EQ(counter("pgactivate"), 0);
	ASSERT_EQ(folio_ref_count(f), 2); /* ours + isolation; the batch's is gone */
	folio_put(f);
	folio_put(f);
	return mm_down();
}

/* MADV_COLD's feeder: only active folios are queued and moved. */
static bool test_deactivate_batch(void)
{
	struct lruvec *lv;
	struct folio *f;

	ASSERT_TRUE(mm_up(64, 1, 1));
	lv = &NODE_DATA(0)->__lruvec;
	f = node_folio(0);
	ASSERT_TRUE(f != NULL);
	folio_add_lru(f);
	lru_add_drain();
	folio_deactivate(f); /* inactive already: nothing to do */
	ASSERT_EQ(fl__cpu_batches_count(0), 0);
	folio_activate(f);
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_FILE], 1);
	folio_deactivate(f);
	ASSERT_EQ(fl__cpu_batches_count(0), 1);
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 1);
	ASSERT_EQ(counter("pgdeactivate"), 1);
	/* writeback completion rotates an inactive folio to the tail */
	folio_rotate_reclaimable(f);
	lru_add_drain();
	ASSERT_EQ(counter("pgrotated"), 1);
	ASSERT_TRUE(list_last_entry(&lv->lists[LRU_INACTIVE_FILE], struct folio, lru) == f);
	folio_put(f);
	return mm_down();
}

TEST_MAIN(TEST(test_alternating_nodes_relock_each_folio),
	  TEST(test_grouped_nodes_lock_once_per_group), TEST(test_activate_batch),
	  TEST(test_isolated_folio_is_skipped), TEST(test_deactivate_batch))
