// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-folio.c - folio descriptors: head/tail linkage, order and page
 * count, folio_next()/folio_prev() across folios of mixed orders,
 * references (get/put freeing on the last put, freeze/unfreeze,
 * try_get failing on a frozen folio), and the folio_batch helpers.
 *
 * Conventions in this file: folios are carved from one max-order block so
 * their neighbours are known.
 */
#include "mm_harness.h"

static bool test_head_tail_and_order(void)
{
	struct folio *f;
	unsigned long i;

	ASSERT_TRUE(mm_up(64, 1, 1));
	f = folio_alloc(GFP_KERNEL, 4);
	ASSERT_TRUE(f != NULL);
	ASSERT_TRUE(folio_test_large(f));
	ASSERT_EQ(folio_order(f), 4);
	ASSERT_EQ(folio_nr_pages(f), 16);
	ASSERT_EQ(f->_folio_nr_pages, 16);
	for (i = 0; i < 16; i++)
		ASSERT_TRUE(page_folio(folio_page(f, i)) == f);
	ASSERT_EQ(folio_ref_count(f), 1);
	ASSERT_EQ(folio_mapcount(f), 0);
	ASSERT_EQ(sizeof(struct folio), 3 * sizeof(struct page));
	folio_put(f); /* the last put frees it */
	return mm_down();
}

/*
 * Orders 4 and 5 bypass the pcp lists, so a fresh zone hands out
 * [0, 32) for the 32-page folio, then splits [32, 64) into two 16-page
 * folios: three neighbours of mixed orders.
 */
static bool test_next_and_prev(void)
{
	struct folio *a, *b, *c;

	ASSERT_TRUE(mm_up(64, 1, 1));
	a = folio_alloc(GFP_KERNEL, 5);
	b = folio_alloc(GFP_KERNEL, 4);
	c = folio_alloc(GFP_KERNEL, 4);
	ASSERT_TRUE(a && b && c);
	ASSERT_EQ(folio_pfn(b), folio_pfn(a) + 32);
	ASSERT_EQ(folio_pfn(c), folio_pfn(b) + 16);
	ASSERT_TRUE(folio_next(a) == b);
	ASSERT_TRUE(folio_next(b) == c);
	ASSERT_TRUE(folio_prev(c) == b);
	ASSERT_TRUE(folio_prev(b) == a); /* across a larger folio's 31 tails */
	folio_put(a);
	folio_put(b);
	folio_put(c);
	return mm_down();
}

static bool test_references(void)
{
	struct folio *f;

	ASSERT_TRUE(mm_up(64, 1, 1));
	f = folio_alloc(GFP_KERNEL, 2);
	ASSERT_TRUE(f != NULL);
	folio_get(f);
	ASSERT_TRUE(folio_try_get(f));
	ASSERT_EQ(folio_ref_count(f), 3);
	ASSERT_TRUE(!folio_ref_freeze(f, 2)); /* someone else holds one more */
	folio_put_refs(f, 2);
	ASSERT_TRUE(folio_ref_freeze(f, 1));
	ASSERT_TRUE(!folio_try_get(f)); /* frozen: nobody can take it */
	folio_ref_unfreeze(f, 1);
	ASSERT_TRUE(folio_try_get(f));
	folio_put(f);
	ASSERT_EQ(counter("fl_live_folios"), 1);
	folio_put(f);
	ASSERT_EQ(counter("fl_live_folios"), 0);
	return mm_down();
}

static bool test_folio_batch(void)
{
	struct folio_batch fb;
	struct folio *f[3], *x;
	int i, n = 0;

	ASSERT_TRUE(mm_up(64, 1, 1));
	folio_batch_init(&fb);
	for (i = 0; i < 3; i++) {
		f[i] = folio_alloc(GFP_KERNEL, 0);
		ASSERT_TRUE(f[i] != NULL);
		ASSERT_EQ(folio_batch_add(&fb, f[i]), FOLIO_BATCH_SIZE - 1 - i);
	}
	ASSERT_EQ(folio_batch_count(&fb), 3);
	while ((x = folio_batch_next(&fb)))
		ASSERT_TRUE(x == f[n++]);
	ASSERT_EQ(n, 3);
	folios_put(&fb); /* drops each reference, frees all three */
	ASSERT_EQ(folio_batch_count(&fb), 0);
	return mm_down();
}

TEST_MAIN(TEST(test_head_tail_and_order), TEST(test_next_and_prev), TEST(test_references),
	  TEST(test_folio_batch))
