// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-fbatch.c - the per-CPU lru_add batch keeps or flushes folios exactly
 * as each policy's rule says, at the edges: batches of 30, 31 and 32
 * pages, a 32-page folio, the 31-slot limit and a lower one, custom
 * thresholds, the
 * disabled cache, and dead folios with the 7.x filter on and off.
 *
 * Each add is folio_add_lru() followed by dropping our own reference, as a
 * zap would, so a flushed folio is freed again and the case ends clean.
 *
 * The layout (31 slots, a one-byte nr_pages, 256 bytes in all) is checked
 * where it is declared, by mm_types.h's static_asserts; what the one byte
 * means at run time, saturating at 255 pages, is checked here.
 *
 * Conventions in this file: flushes() counts folio_batch_move_lru lock
 * acquisitions (one node, so one per flush).
 */
#include "mm_harness.h"

static uint64_t flushes(void)
{
	return lock_stat("lruvec->lru_lock", "folio_batch_move_lru", false);
}

static unsigned int batch_nr(void)
{
	return fl__cpu_lru_add_batch(0)->nr;
}

/* add a folio of @order and drop our reference; keep it when @keep */
static struct folio *add(unsigned int order, bool keep)
{
	struct folio *f = folio_alloc(GFP_KERNEL, order);

	if (!f)
		return NULL;
	folio_add_lru(f);
	if (!keep)
		folio_put(f);
	return f;
}

static bool add_n(unsigned int order, int n)
{
	while (n--)
		if (!add(order, false))
			return false;
	return true;
}

static bool test_order0_policy(void)
{
	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	ASSERT_TRUE(add_n(0, 30));
	ASSERT_EQ(batch_nr(), 30);
	ASSERT_EQ(flushes(), 0);
	ASSERT_TRUE(add_n(0, 1)); /* the 31st slot: full */
	ASSERT_EQ(batch_nr(), 0);
	ASSERT_EQ(flushes(), 1);
	ASSERT_TRUE(add_n(0, 5));
	ASSERT_TRUE(add_n(2, 1)); /* any large folio flushes everything queued */
	ASSERT_EQ(batch_nr(), 0);
	ASSERT_EQ(flushes(), 2);
	ASSERT_TRUE(add_n(2, 1));
	ASSERT_EQ(flushes(), 3);
	return mm_down();
}

static bool test_max16_policy(void)
{
	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(knob("foliolab/lru_cache", "max16"));
	ASSERT_TRUE(add_n(4, 30)); /* 480 pages: no page cap in this rule */
	ASSERT_EQ(batch_nr(), 30);
	ASSERT_EQ(flushes(), 0);
	ASSERT_TRUE(add_n(4, 1));
	ASSERT_EQ(flushes(), 1);
	ASSERT_TRUE(add_n(5, 1)); /* 32 pages > 16: never cached */
	ASSERT_EQ(flushes(), 2);
	ASSERT_EQ(batch_nr(), 0);
	return mm_down();
}

static bool test_pages31_edges(void)
{
	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(knob("foliolab/lru_cache", "pages31"));
	/* 30 pages in 30 slots stay; the 31st slot fills the batch */
	ASSERT_TRUE(add_n(0, 30));
	ASSERT_EQ(batch_nr(), 30);
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(flushes(), 1);
	/* 30 pages, then 31 pages stay; 32 pages (> 31) flush */
	ASSERT_TRUE(add_n(2, 7));
	ASSERT_TRUE(add_n(0, 2));
	ASSERT_EQ(batch_nr(), 9);
	ASSERT_EQ(fl__cpu_lru_add_batch(0)->nr_pages, 30);
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(batch_nr(), 10);
	ASSERT_EQ(fl__cpu_lru_add_batch(0)->nr_pages, 31);
	ASSERT_EQ(flushes(), 1);
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(batch_nr(), 0);
	ASSERT_EQ(flushes(), 2);
	/* 16 + 8 + 4 + 2 = 30, + 1 = 31 stay, + 1 = 32 flushes */
	ASSERT_TRUE(add_n(4, 1) && add_n(3, 1) && add_n(2, 1) && add_n(1, 1));
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(flushes(), 2);
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(flushes(), 3);
	/* 16K folios: the 8th brings 32 pages */
	ASSERT_TRUE(add_n(2, 7));
	ASSERT_EQ(flushes(), 3);
	ASSERT_TRUE(add_n(2, 1));
	ASSERT_EQ(flushes(), 4);
	/* two 64K folios are 32 pages */
	ASSERT_TRUE(add_n(4, 1));
	ASSERT_EQ(flushes(), 4);
	ASSERT_TRUE(add_n(4, 1));
	ASSERT_EQ(flushes(), 5);
	/* a 32-page folio is never cached */
	ASSERT_TRUE(add_n(5, 1));
	ASSERT_EQ(flushes(), 6);
	ASSERT_EQ(batch_nr(), 0);
	return mm_down();
}

static bool test_custom_thresholds(void)
{
	ASSERT_TRUE(mm_up(128, 1, 1));
	/* cache folios below 64 pages, no page cap: 32-page folios fill 31 slots */
	ASSERT_TRUE(knob("foliolab/lru_cache_folio_pages", "64"));
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_pages", "0"));
	ASSERT_TRUE(add_n(5, 30));
	ASSERT_EQ(flushes(), 0);
	ASSERT_EQ(fl__cpu_lru_add_batch(0)->nr_pages, 255); /* saturates */
	ASSERT_TRUE(add_n(5, 1));
	ASSERT_EQ(flushes(), 1);
	/* cacheable but over a 31-page cap: flushes on its own */
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_pages", "31"));
	ASSERT_TRUE(add_n(5, 1));
	ASSERT_EQ(flushes(), 2);
	/* a 100-page cap holds three 32-page folios, the fourth flushes */
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_pages", "100"));
	ASSERT_TRUE(add_n(5, 3));
	ASSERT_EQ(flushes(), 2);
	ASSERT_TRUE(add_n(5, 1));
	ASSERT_EQ(flushes(), 3);
	return mm_down();
}

/* the value the model reports for knob @name, or "" */
static const char *knob_value(const char *name)
{
	static struct fl_knobs k;
	int i;

	if (fl__mm_knobs_read(&k))
		return "";
	for (i = 0; i < k.nr; i++)
		if (!strcmp(k.v[i].name, name))
			return k.v[i].value;
	return "";
}

/*
 * Fewer slots than FOLIO_BATCH_SIZE: max16 on the 2023 kernel's 15-slot
 * batch (PAGEVEC_SIZE 15), and a slot cap that meets the page cap.
 */
static bool test_batch_slots(void)
{
	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(knob("foliolab/lru_cache", "max16"));
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_slots", "15"));
	ASSERT_TRUE(!strcmp(knob_value("foliolab/lru_cache"), "max16"));
	ASSERT_TRUE(!strcmp(knob_value("foliolab/lru_cache_batch_slots"), "15"));
	/* 14 64K folios stay, the 15th fills the 15 slots */
	ASSERT_TRUE(add_n(4, 14));
	ASSERT_EQ(batch_nr(), 14);
	ASSERT_EQ(flushes(), 0);
	ASSERT_TRUE(add_n(4, 1));
	ASSERT_EQ(batch_nr(), 0);
	ASSERT_EQ(flushes(), 1);
	/* a 32-page folio is still never cached */
	ASSERT_TRUE(add_n(0, 3) && add_n(5, 1));
	ASSERT_EQ(flushes(), 2);
	/* a named policy sets every part of the rule: back to 31 slots */
	ASSERT_TRUE(knob("foliolab/lru_cache", "max16"));
	ASSERT_TRUE(!strcmp(knob_value("foliolab/lru_cache_batch_slots"), "31"));
	ASSERT_TRUE(add_n(4, 30));
	ASSERT_EQ(flushes(), 2);
	ASSERT_TRUE(add_n(4, 1));
	ASSERT_EQ(flushes(), 3);
	/* pages31 on 8 slots: 7 16K folios (28 pages) stay, the 8th is both limits */
	ASSERT_TRUE(knob("foliolab/lru_cache", "pages31"));
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_slots", "8"));
	ASSERT_TRUE(add_n(2, 7));
	ASSERT_EQ(flushes(), 3);
	ASSERT_TRUE(add_n(2, 1));
	ASSERT_EQ(flushes(), 4);
	/* 4K pages: the 8th slot flushes, long before 31 pages */
	ASSERT_TRUE(add_n(0, 7));
	ASSERT_EQ(batch_nr(), 7);
	ASSERT_TRUE(add_n(0, 1));
	ASSERT_EQ(flushes(), 5);
	/* one slot: every add flushes; out of range is refused */
	ASSERT_TRUE(knob("foliolab/lru_cache_batch_slots", "1"));
	ASSERT_TRUE(add_n(0, 3));
	ASSERT_EQ(flushes(), 8);
	ASSERT_TRUE(!knob("foliolab/lru_cache_batch_slots", "0"));
	ASSERT_TRUE(!knob("foliolab/lru_cache_batch_slots", "32"));
	return mm_down();
}

static bool test_cache_disabled_flushes_every_add(void)
{
	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(add_n(0, 5));
	lru_cache_disable(); /* drains what was queued */
	ASSERT_EQ(batch_nr(), 0);
	ASSERT_EQ(flushes(), 1);
	ASSERT_TRUE(add_n(0, 3));
	ASSERT_EQ(flushes(), 4);
	lru_cache_enable();
	ASSERT_TRUE(add_n(0, 3));
	ASSERT_EQ(flushes(), 4);
	ASSERT_EQ(batch_nr(), 3);
	return mm_down();
}

/* A flushed folio we still hold sits on the LRU list its flags select. */
static bool test_flush_puts_folios_on_lru(void)
{
	struct lruvec *lv;
	struct folio *f[3];
	int i;

	ASSERT_TRUE(mm_up(64, 1, 1));
	lv = &NODE_DATA(0)->__lruvec;
	for (i = 0; i < 3; i++) {
		f[i] = add(2, true);
		ASSERT_TRUE(f[i] != NULL);
		ASSERT_EQ(folio_ref_count(f[i]), 2); /* ours and the batch's */
	}
	ASSERT_TRUE(!folio_test_lru(f[0]));
	lru_add_drain();
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(folio_test_lru(f[i]));
		ASSERT_EQ(folio_ref_count(f[i]), 1);
	}
	/* not swap-backed: the file list */
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 12);
	ASSERT_TRUE(fl__lruvec_validate(lv, NULL, 0));
	for (i = 0; i < 3; i++)
		folio_put(f[i]);
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 0);
	return mm_down();
}

/* Dead folios: counted either way; the 7.x filter frees them lock-free. */
static bool test_dead_folios(void)
{
	uint64_t acq;

	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_TRUE(add_n(0, 4));
	lru_add_drain();
	ASSERT_EQ(counter("fl_lru_add_dead"), 4);
	ASSERT_EQ(counter("fl_lru_add_freed_dead"), 0);
	/* 6.18: onto the LRU and straight off: the lock at both sites */
	ASSERT_EQ(flushes(), 1);
	ASSERT_EQ(lock_stat("lruvec->lru_lock", "__page_cache_release", false), 1);
	ASSERT_TRUE(knob("foliolab/lru_add_free_dead", "on"));
	acq = lock_stat("lruvec->lru_lock", "__page_cache_release", false);
	ASSERT_TRUE(add_n(0, 4));
	lru_add_drain();
	ASSERT_EQ(counter("fl_lru_add_dead"), 8);
	ASSERT_EQ(counter("fl_lru_add_freed_dead"), 4);
	ASSERT_EQ(flushes(), 1); /* all dead: the lock was never taken */
	ASSERT_EQ(lock_stat("lruvec->lru_lock", "__page_cache_release", false), acq);
	return mm_down();
}

TEST_MAIN(TEST(test_order0_policy), TEST(test_max16_policy), TEST(test_pages31_edges),
	  TEST(test_custom_thresholds), TEST(test_batch_slots),
	  TEST(test_cache_disabled_flushes_every_add), TEST(test_flush_puts_folios_on_lru),
	  TEST(test_dead_folios))
