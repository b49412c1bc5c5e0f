// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-xarray.c - the XArray (src/lib/xarray.c) against the rules its
 * header states and the kernel's own xarray tests check: a lone entry at
 * index 0 lives in xa_head; an entry of order N loads at every index of
 * its aligned range and nowhere else, and erasing it frees every node;
 * xas_split turns an order-N entry into entries of any order the splits
 * support, keeping every index; xas_try_split goes down one order at a
 * time and needs one new node for a whole 9 -> 0 walk; xas_find returns
 * canonical entries in order; xas_prev_canonical steps back over entries
 * of mixed orders one entry at a time, across nodes. Node counts and walk
 * costs are worked out from the 64-slot shape.
 *
 * Conventions in this file: entries are small even "pointers" (tag << 2),
 * never dereferenced; P(i) is a distinct entry per index.
 */
#include "harness.h"
#include "../src/lib/xarray.h"
#include "../src/platform/platform.h"

#define P(i) ((void *)(((unsigned long)(i) + 1) << 2))

static struct xarray xa;

static bool up(void)
{
	ASSERT_EQ(fl__platform_init(1), 0);
	ASSERT_EQ(fl_cpu_bind(0), 0);
	xa_init(&xa);
	return true;
}

static bool down(void)
{
	xa_destroy(&xa);
	fl_cpu_unbind();
	fl__platform_exit();
	return true;
}

/* Every index of [first, last] loads @want. */
static bool loads(unsigned long first, unsigned long last, void *want)
{
	unsigned long i;

	for (i = first; i <= last; i++)
		if (xa_load(&xa, i) != want) {
			printf("# index %lu: %p, wanted %p\n", i, xa_load(&xa, i), want);
			return false;
		}
	return true;
}

/* Store through a state so its node accounting can be read. */
static long store_order(unsigned long index, unsigned int order, void *entry, long *nodes)
{
	XA_STATE_ORDER(xas, &xa, index, order);

	xa_lock(&xa);
	xas_store(&xas, entry);
	xa_unlock(&xa);
	*nodes += (long)xas.xa_nodes_alloc - (long)xas.xa_nodes_free;
	return xas_error(&xas);
}

static bool test_index_zero_lives_in_the_head(void)
{
	long nodes = 0;

	ASSERT_TRUE(up());
	ASSERT_EQ(store_order(0, 0, P(0), &nodes), 0);
	ASSERT_EQ(nodes, 0);
	ASSERT_TRUE(xa.xa_head == P(0));
	/* index 1 needs a leaf node: index 0 moves into its slot 0 */
	ASSERT_EQ(store_order(1, 0, P(1), &nodes), 0);
	ASSERT_EQ(nodes, 1);
	ASSERT_TRUE(xa_is_node(xa.xa_head));
	ASSERT_TRUE(loads(0, 0, P(0)) && loads(1, 1, P(1)) && loads(2, 70, NULL));
	/*
	 * index 4096 = 64 * 64: two levels above the leaf (shift 6 holding it,
	 * shift 12 on top), and below the top a shift-6 node and a leaf on the
	 * way to 4096: four more nodes
	 */
	ASSERT_EQ(store_order(4096, 0, P(4096), &nodes), 0);
	ASSERT_EQ(nodes, 5);
	ASSERT_EQ(xa_to_node(xa.xa_head)->shift, 12);
	/* erasing shrinks back: without 4096 the tree is one leaf again */
	ASSERT_TRUE(xa_erase(&xa, 4096) == P(4096));
	ASSERT_EQ(xa_to_node(xa.xa_head)->shift, 0);
	ASSERT_TRUE(xa_erase(&xa, 1) == P(1));
	ASSERT_TRUE(xa.xa_head == P(0));
	ASSERT_TRUE(xa_erase(&xa, 0) == P(0));
	ASSERT_TRUE(xa_empty(&xa));
	return down();
}

/*
 * An entry of order N at an aligned index loads at every index of its
 * range and at no neighbour; it reports order N; erasing it empties the
 * tree. Orders inside a leaf (1..5), one slot of a higher level (6, 12),
 * and slots plus siblings above the leaf (7, 9).
 */
static bool test_multi_index_entry_loads_everywhere_it_covers(void)
{
	static const unsigned int orders[] = { 1, 2, 5, 6, 7, 9, 12 };
	unsigned int k;

	ASSERT_TRUE(up());
	for (k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		unsigned int n = orders[k];
		unsigned long size = 1ul << n, start = 3 * size;
		XA_STATE_ORDER(xas, &xa, start, n);

		ASSERT_TRUE(xa_store_order(&xa, start, n, P(n)) == NULL);
		ASSERT_TRUE(loads(start, start + size - 1, P(n)));
		ASSERT_TRUE(xa_load(&xa, start - 1) == NULL);
		ASSERT_TRUE(xa_load(&xa, start + size) == NULL);
		ASSERT_EQ(xa_get_order(&xa, start), (int)n);
		ASSERT_EQ(xa_get_order(&xa, start + size - 1), (int)n);
		/* the canonical slot: any index of the range leaves the state there */
		xa_lock(&xa);
		xas_set(&xas, start + size / 2);
		ASSERT_TRUE(xas_load(&xas) == P(n));
		ASSERT_EQ(xas.xa_offset,
			  (unsigned int)(start >> xas.xa_node->shift) & XA_CHUNK_MASK);
		xa_unlock(&xa);
		/* erasing the canonical slot erases the siblings and frees the nodes */
		ASSERT_TRUE(xa_erase(&xa, start) == P(n));
		ASSERT_TRUE(loads(start, start + size - 1, NULL));
		ASSERT_TRUE(xa_empty(&xa));
	}
	return down();
}

/* A store of order 0 inside a larger entry replaces its canonical slot. */
static bool test_order0_store_inside_a_larger_entry(void)
{
	ASSERT_TRUE(up());
	ASSERT_TRUE(xa_store_order(&xa, 64, 4, P(1)) == NULL);
	ASSERT_TRUE(xa_store(&xa, 70, P(2)) == P(1));
	ASSERT_TRUE(loads(64, 79, P(2)));
	ASSERT_EQ(xa_get_order(&xa, 70), 4);
	return down();
}

/*
 * xas_split: an order-@old entry at @start becomes 2^(old - new) entries
 * of order @new, each still the old entry; new leaf nodes only when the
 * new entries live a level below (2^(old % 6) of them).
 */
static bool split_case(unsigned int old, unsigned int new, long want_nodes)
{
	unsigned long start = 5ul << old, size = 1ul << old, i;
	XA_STATE_ORDER(xas, &xa, start, new);

	ASSERT_TRUE(xa_store_order(&xa, start, old, P(old)) == NULL);
	xas_split_alloc(&xas, P(old), old);
	ASSERT_EQ(xas_error(&xas), 0);
	ASSERT_EQ((long)xas.xa_nodes_alloc, want_nodes);
	xa_lock(&xa);
	xas_split(&xas, P(old), old);
	xa_unlock(&xa);
	ASSERT_TRUE(xas.xa_alloc == NULL);
	ASSERT_TRUE(loads(start, start + size - 1, P(old)));
	ASSERT_TRUE(xa_load(&xa, start - 1) == NULL && xa_load(&xa, start + size) == NULL);
	for (i = start; i < start + size; i += 1ul << new)
		ASSERT_EQ(xa_get_order(&xa, i), (int)new);
	/* each new entry can now be replaced alone */
	for (i = start; i < start + size; i += 1ul << new)
		ASSERT_TRUE(xa_store(&xa, i, P(i)) == P(old));
	for (i = start; i < start + size; i++)
		ASSERT_TRUE(xa_load(&xa, i) == P(i >> new << new));
	for (i = start; i < start + size; i += 1ul << new)
		xa_erase(&xa, i);
	ASSERT_TRUE(xa_empty(&xa));
	return true;
}

static bool test_split_keeps_every_index(void)
{
	ASSERT_TRUE(up());
	ASSERT_TRUE(split_case(9, 0, 8)); /* a PMD folio to pages: 8 leaves */
	ASSERT_TRUE(split_case(9, 3, 8)); /* 8 leaves of 8 order-3 entries */
	ASSERT_TRUE(split_case(9, 6, 0)); /* the same level: siblings re-divided */
	ASSERT_TRUE(split_case(9, 8, 0));
	ASSERT_TRUE(split_case(6, 0, 1)); /* one slot to one full leaf */
	ASSERT_TRUE(split_case(7, 2, 2));
	ASSERT_TRUE(split_case(4, 1, 0));  /* inside a leaf */
	ASSERT_TRUE(split_case(12, 6, 1)); /* one slot at shift 12 to a shift-6 node */
	return down();
}

/* Splits that would need two new levels are refused before any change. */
static bool test_split_across_two_levels_is_refused(void)
{
	XA_STATE_ORDER(xas, &xa, 0, 0);

	ASSERT_TRUE(up());
	xas_split_alloc(&xas, P(1), 12);
	ASSERT_EQ(xas_error(&xas), -EINVAL);
	ASSERT_EQ((long)xas.xa_nodes_alloc, 0);
	return down();
}

/*
 * xas_try_split, one order at a time from 9 to 0, always in the half
 * holding index @at (a non-uniform split): after each step the piece
 * holding @at has the new order and the other half keeps the step's order;
 * only the step from 6 to 5 needs a node.
 */
static bool test_try_split_walks_down_one_order_at_a_time(void)
{
	unsigned long start = 1024, at = start + 300, nodes = 0;
	unsigned int order;

	ASSERT_TRUE(up());
	ASSERT_TRUE(xa_store_order(&xa, start, 9, P(9)) == NULL);
	for (order = 9; order > 0; order--) {
		XA_STATE(xas, &xa, at);
		unsigned long piece = at >> (order - 1) << (order - 1);
		unsigned long other = piece ^ (1ul << (order - 1));

		ASSERT_EQ(xas_try_split_min_order(order) <= order - 1, true);
		xas_set_order(&xas, at, order - 1);
		xa_lock(&xa);
		xas_try_split(&xas, P(9), order);
		xa_unlock(&xa);
		ASSERT_EQ(xas_error(&xas), 0);
		nodes += xas.xa_nodes_alloc;
		ASSERT_EQ(xa_get_order(&xa, piece), (int)order - 1);
		ASSERT_EQ(xa_get_order(&xa, other), (int)order - 1);
	}
	ASSERT_EQ(nodes, 1);
	ASSERT_TRUE(loads(start, start + 511, P(9)));
	/* the pieces' orders, from the start: 8 at 1024 (the upper half held at)... */
	ASSERT_EQ(xa_get_order(&xa, start), 8);
	ASSERT_EQ(xa_get_order(&xa, at), 0);
	return down();
}

/* The lowest order a single try_split reaches. */
static bool test_try_split_min_order(void)
{
	ASSERT_EQ(xas_try_split_min_order(9), 6);
	ASSERT_EQ(xas_try_split_min_order(8), 6);
	ASSERT_EQ(xas_try_split_min_order(6), 5);
	ASSERT_EQ(xas_try_split_min_order(5), 0);
	ASSERT_EQ(xas_try_split_min_order(12), 11);
	ASSERT_EQ(xas_try_split_min_order(0), 0);
	return true;
}

/* A layout of mixed orders: (first index, order), ascending, with gaps. */
static const struct {
	unsigned long index;
	unsigned int order;
} layout[] = { { 0, 0 },   { 1, 0 },	{ 4, 2 },    { 8, 3 },	  { 64, 6 },   { 192, 5 },
	       { 512, 9 }, { 1024, 0 }, { 4096, 2 }, { 4100, 0 }, { 8192, 12 } };
#define NLAYOUT (sizeof(layout) / sizeof(layout[0]))

static bool fill_layout(void)
{
	unsigned int k;

	for (k = 0; k < NLAYOUT; k++)
		ASSERT_TRUE(xa_store_order(&xa, layout[k].index, layout[k].order, P(k)) == NULL);
	return true;
}

/* xas_find: every entry once, ascending, never a sibling; xas_next: raw slots. */
static bool test_find_returns_canonical_entries_in_order(void)
{
	XA_STATE(xas, &xa, 0);
	unsigned int k = 0;
	void *entry;

	ASSERT_TRUE(up());
	ASSERT_TRUE(fill_layout());
	xa_lock(&xa);
	for (entry = xas_find(&xas, ~0ul); entry; entry = xas_find(&xas, ~0ul)) {
		ASSERT_LT(k, NLAYOUT);
		ASSERT_TRUE(entry == P(k));
		k++;
	}
	ASSERT_EQ(k, NLAYOUT);
	/* a max stops the walk */
	xas_set(&xas, 5);
	ASSERT_TRUE(xas_find(&xas, 100) == P(2)); /* index 5 is inside the order-2 entry at 4 */
	ASSERT_TRUE(xas_find(&xas, 100) == P(3));
	ASSERT_TRUE(xas_find(&xas, 100) == P(4));
	ASSERT_TRUE(xas_find(&xas, 100) == NULL);
	/* xas_next from index 4: the canonical entry, then its three siblings */
	xas_set(&xas, 4);
	ASSERT_TRUE(xas_load(&xas) == P(2));
	for (k = 0; k < 3; k++)
		ASSERT_TRUE(xa_is_sibling(xas_next(&xas)));
	ASSERT_TRUE(xas_next(&xas) == P(3));
	ASSERT_EQ(xas.xa_index, 8);
	xa_unlock(&xa);
	return down();
}

/*
 * xas_prev_canonical from the last entry: every entry once, descending,
 * with the state's index on each entry's first index, then out of bounds
 * before index 0.
 */
static bool test_prev_canonical_steps_over_multi_index_entries(void)
{
	XA_STATE(xas, &xa, 8192 + 100);
	int k;
	void *entry;

	ASSERT_TRUE(up());
	ASSERT_TRUE(fill_layout());
	xa_lock(&xa);
	ASSERT_TRUE(xas_load(&xas) == P(NLAYOUT - 1));
	for (k = (int)NLAYOUT - 2; k >= 0; k--) {
		do
			entry = xas_prev_canonical(&xas);
		while (!entry && xas_valid(&xas));
		ASSERT_TRUE(entry == P(k));
		ASSERT_EQ(xas.xa_index, layout[k].index);
	}
	ASSERT_TRUE(xas_prev_canonical(&xas) == NULL);
	ASSERT_TRUE(xas.xa_node == XAS_BOUNDS);
	xa_unlock(&xa);
	return down();
}

/*
 * Publishing the pieces of a split PMD entry (a 512-page folio in a tree
 * of three levels, as a 1 GiB file gives): one __xa_store per piece walks
 * from the root each time (3 nodes), a backward walk with
 * xas_prev_canonical enters a node only when it crosses a leaf boundary
 * (up to the parent, down to the next leaf: 2). Both write 511 slots.
 */
static bool test_reverse_publication_walks_once(void)
{
	unsigned long start = 512 * 300, i, fwd_visits = 0, fwd_stores = 0;
	XA_STATE_ORDER(xas, &xa, start, 0);
	void *entry;

	ASSERT_TRUE(up());
	ASSERT_TRUE(xa_store_order(&xa, (1ul << 18) - 512, 9, P(1)) == NULL); /* height 3 */
	/* forward: the pieces after the first, each with its own walk */
	ASSERT_TRUE(xa_store_order(&xa, start, 9, P(0)) == NULL);
	xas_split_alloc(&xas, P(0), 9);
	xa_lock(&xa);
	xas_split(&xas, P(0), 9);
	for (i = start + 1; i < start + 512; i++) {
		XA_STATE(one, &xa, i);

		xas_store(&one, P(i));
		fwd_visits += one.xa_visits;
		fwd_stores += one.xa_stores;
	}
	xa_unlock(&xa);
	ASSERT_EQ(fwd_visits, 511 * 3);
	ASSERT_EQ(fwd_stores, 511);
	ASSERT_TRUE(loads(start, start, P(0)) && loads(start + 511, start + 511, P(start + 511)));
	/* backward: one walk to the last piece, then a step per piece */
	xa_store_order(&xa, start, 9, P(0));
	xas_set_order(&xas, start, 0);
	xas_split_alloc(&xas, P(0), 9);
	xa_lock(&xa);
	xas_split(&xas, P(0), 9);
	xas.xa_visits = xas.xa_stores = 0;
	xas_set(&xas, start + 511);
	entry = xas_load(&xas);
	while (entry == P(0) && xas.xa_index > start) {
		xas.xa_sibs = 0;
		xas_store(&xas, P(xas.xa_index));
		entry = xas_prev_canonical(&xas);
	}
	xa_unlock(&xa);
	ASSERT_EQ(xas.xa_index, start);
	ASSERT_EQ(xas.xa_stores, 511);
	ASSERT_EQ(xas.xa_visits, 3 + 7 * 2);
	for (i = start + 1; i < start + 512; i++)
		ASSERT_TRUE(xa_load(&xa, i) == P(i));
	ASSERT_TRUE(xa_load(&xa, start) == P(0));
	return down();
}

/* Value entries (shadows, swap entries) go in and out like pointers. */
static bool test_value_entries(void)
{
	ASSERT_TRUE(up());
	ASSERT_TRUE(xa_store(&xa, 77, xa_mk_value(12345)) == NULL);
	ASSERT_TRUE(xa_is_value(xa_load(&xa, 77)));
	ASSERT_EQ(xa_to_value(xa_load(&xa, 77)), 12345ul);
	ASSERT_TRUE(xa_store_order(&xa, 128, 3, xa_mk_value(7)) == NULL);
	ASSERT_TRUE(loads(128, 135, xa_mk_value(7)));
	ASSERT_TRUE(xa_erase(&xa, 77) == xa_mk_value(12345));
	ASSERT_TRUE(xa_erase(&xa, 128) == xa_mk_value(7));
	ASSERT_TRUE(xa_empty(&xa));
	return down();
}

/* Every node allocated along the way is freed by the erases or xa_destroy. */
static bool test_destroy_frees_every_node(void)
{
	long nodes = 0;
	unsigned long i;

	ASSERT_TRUE(up());
	for (i = 0; i < 10000; i += 7)
		ASSERT_EQ(store_order(i, 0, P(i), &nodes), 0);
	/* leaves: one per 64 indices touched; 157 leaves, 3 shift-6 nodes, 1 top */
	ASSERT_EQ(nodes, 157 + 3 + 1);
	ASSERT_EQ((long)xa_destroy(&xa), nodes);
	ASSERT_TRUE(xa_empty(&xa));
	return down();
}

TEST_MAIN(TEST(test_index_zero_lives_in_the_head),
	  TEST(test_multi_index_entry_loads_everywhere_it_covers),
	  TEST(test_order0_store_inside_a_larger_entry), TEST(test_split_keeps_every_index),
	  TEST(test_split_across_two_levels_is_refused),
	  TEST(test_try_split_walks_down_one_order_at_a_time), TEST(test_try_split_min_order),
	  TEST(test_find_returns_canonical_entries_in_order),
	  TEST(test_prev_canonical_steps_over_multi_index_entries),
	  TEST(test_reverse_publication_walks_once), TEST(test_value_entries),
	  TEST(test_destroy_frees_every_node))
