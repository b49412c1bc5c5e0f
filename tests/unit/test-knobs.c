// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-knobs.c - the knob table (src/mm/knobs.c) and the model's knobs set
 * and read through it: every knob found by its name and by its option, a
 * fresh model at each default, every word and both ends of every range
 * accepted and read back, one past a range refused with the range in the
 * message and the value kept, the test hooks never in a record, and the
 * named LRU-cache policies setting their three numbers.
 *
 * Conventions in this file: each case opens its own model target.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"
#include "target/target.h"

static struct fl_target *open_model(void)
{
	struct fl_target_config cfg = { .mem_bytes = 256ull << 20, .nodes = 1, .cpus = 1 };
	struct fl_target *t = NULL;
	char err[256];

	if (fl__model_target_ops.open(&cfg, &t, err, sizeof(err)))
		return NULL;
	return t;
}

/* the model's value of @name now, "" where it has none */
static const char *now(struct fl_target *t, const char *name)
{
	static struct fl_knobs k;
	int i;

	if (t->ops->knobs(t, &k))
		return "(unreadable)";
	for (i = 0; i < k.nr; i++)
		if (!strcmp(k.v[i].name, name))
			return k.v[i].value;
	return "";
}

static int set(struct fl_target *t, const char *name, const char *value, char *err, size_t len)
{
	struct fl_knobs k = { 0 };

	fl_knobs_set(&k, name, value);
	return t->ops->set_knobs(t, &k, err, len);
}

/* Names are unique, under vm/ (the host's too) or foliolab/ (the model's); options find them. */
static bool test_table(void)
{
	const struct fl_knob_info *k, *j;
	char err[512];
	size_t i, n;

	ASSERT_TRUE(fl_knob_info_at(0) != NULL);
	for (i = 0; (k = fl_knob_info_at(i)); i++) {
		bool vm = !strncmp(k->name, "vm/", 3);

		ASSERT_TRUE(vm || !strncmp(k->name, "foliolab/", 9));
		ASSERT_EQ(vm, (k->flags & FL_KNOB_HOST) != 0);
		ASSERT_TRUE(fl_knob_find(k->name) == k);
		if (k->option) {
			ASSERT_TRUE(!strncmp(k->option, "--", 2));
			ASSERT_TRUE(fl_knob_option(k->option) == k);
			ASSERT_TRUE(fl_knob_find(k->option) == NULL);
		}
		/* a knob compare takes a list of is a model policy with words */
		if (k->flags & FL_KNOB_LIST)
			ASSERT_TRUE(!vm && k->option && k->type == FL_KNOB_WORDS);
		if (k->type == FL_KNOB_WORDS)
			ASSERT_TRUE(k->words[0] && k->words[1]);
		if (k->type == FL_KNOB_NUMBER)
			ASSERT_LE(k->lo, k->hi);
		if (k->dflt)
			ASSERT_EQ(fl_knob_check(k, k->dflt, err, sizeof(err)), 0);
		ASSERT_TRUE(k->help && *k->help && k->group && *k->group);
		for (n = 0; n < i; n++) {
			j = fl_knob_info_at(n);
			ASSERT_TRUE(strcmp(j->name, k->name) != 0);
			ASSERT_TRUE(!k->option || !j->option || strcmp(j->option, k->option));
		}
	}
	ASSERT_TRUE(fl_knob_find("foliolab/nothing") == NULL);
	ASSERT_TRUE(fl_knob_option("--nothing") == NULL);
	return true;
}

/*
 * A fresh model: each knob at its default; those computed at boot as
 * boot computes them (page-cluster 3 at 16 MiB and more, swap_setup());
 * each recorded knob once, the test hooks not at all.
 */
static bool test_defaults(void)
{
	struct fl_target *t = open_model();
	const struct fl_knob_info *k;
	struct fl_knobs all;
	size_t i;
	int n, seen;

	ASSERT_TRUE(t != NULL);
	ASSERT_EQ(t->ops->knobs(t, &all), 0);
	for (i = 0; (k = fl_knob_info_at(i)); i++) {
		for (seen = 0, n = 0; n < all.nr; n++)
			seen += !strcmp(all.v[n].name, k->name);
		ASSERT_EQ(seen, k->flags & FL_KNOB_HOOK ? 0 : 1);
		if (k->dflt && !(k->flags & FL_KNOB_HOOK))
			ASSERT_STREQ(now(t, k->name), k->dflt);
	}
	ASSERT_STREQ(now(t, "vm/page-cluster"), "3");
	/* pages31: folios of fewer than 31 pages, batches capped at 31 pages, 31 slots */
	ASSERT_STREQ(now(t, "foliolab/lru_cache_folio_pages"), "31");
	ASSERT_STREQ(now(t, "foliolab/lru_cache_batch_pages"), "31");
	ASSERT_STREQ(now(t, "foliolab/lru_cache_batch_slots"), "31");
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

/* Every word and both ends of every range read back; one past a range is refused. */
static bool test_values(void)
{
	struct fl_target *t = open_model();
	const struct fl_knob_info *k;
	char err[512], v[32], before[64];
	size_t i;
	int w;

	ASSERT_TRUE(t != NULL);
	for (i = 0; (k = fl_knob_info_at(i)); i++) {
		if (k->flags & FL_KNOB_HOOK)
			continue;
		if (k->type == FL_KNOB_WORDS) {
			for (w = 0; k->words[w]; w++) {
				ASSERT_EQ(set(t, k->name, k->words[w], err, sizeof(err)), 0);
				ASSERT_STREQ(now(t, k->name), k->words[w]);
			}
			snprintf(before, sizeof(before), "%s", now(t, k->name));
			ASSERT_EQ(set(t, k->name, "maybe", err, sizeof(err)), -EINVAL);
			ASSERT_TRUE(strstr(err, k->name) && strstr(err, k->words[0]) &&
				    strstr(err, "'maybe'"));
			ASSERT_STREQ(now(t, k->name), before);
			continue;
		}
		snprintf(v, sizeof(v), "%lu", k->lo);
		ASSERT_EQ(set(t, k->name, v, err, sizeof(err)), 0);
		ASSERT_STREQ(now(t, k->name), v);
		snprintf(v, sizeof(v), "%lu", k->hi);
		ASSERT_EQ(set(t, k->name, v, err, sizeof(err)), 0);
		ASSERT_STREQ(now(t, k->name), v);
		snprintf(v, sizeof(v), "%lu", k->hi + 1);
		ASSERT_EQ(set(t, k->name, v, err, sizeof(err)), -EINVAL);
		snprintf(v, sizeof(v), "%lu..%lu", k->lo, k->hi);
		ASSERT_TRUE(strstr(err, k->name) && strstr(err, v));
		snprintf(v, sizeof(v), "%lu", k->hi);
		ASSERT_STREQ(now(t, k->name), v);
		ASSERT_EQ(set(t, k->name, "-1", err, sizeof(err)), -EINVAL);
		ASSERT_EQ(set(t, k->name, "", err, sizeof(err)), -EINVAL);
	}
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

/* max16: folios of up to 16 pages, no page cap; a number changed leaves the policy custom */
static bool test_named_policies(void)
{
	struct fl_target *t = open_model();
	char err[512];

	ASSERT_TRUE(t != NULL);
	ASSERT_EQ(set(t, "foliolab/lru_cache", "max16", err, sizeof(err)), 0);
	ASSERT_STREQ(now(t, "foliolab/lru_cache_folio_pages"), "17");
	ASSERT_STREQ(now(t, "foliolab/lru_cache_batch_pages"), "0");
	ASSERT_EQ(set(t, "foliolab/lru_cache", "order0", err, sizeof(err)), 0);
	ASSERT_STREQ(now(t, "foliolab/lru_cache_folio_pages"), "2");
	/* the slot count is its own: order0 on 15 slots is still order0 */
	ASSERT_EQ(set(t, "foliolab/lru_cache_batch_slots", "15", err, sizeof(err)), 0);
	ASSERT_STREQ(now(t, "foliolab/lru_cache"), "order0");
	ASSERT_EQ(set(t, "foliolab/lru_cache_folio_pages", "9", err, sizeof(err)), 0);
	ASSERT_STREQ(now(t, "foliolab/lru_cache"), "custom");
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

/* Names the table lacks, and the test hooks' values. */
static bool test_refusals_and_hooks(void)
{
	struct fl_target *t = open_model();
	const struct fl_knob_info *k;
	char err[512];
	size_t i;

	ASSERT_TRUE(t != NULL);
	ASSERT_EQ(set(t, "foliolab/nothing", "1", err, sizeof(err)), -ENOENT);
	ASSERT_EQ(set(t, "vm/dirty_ratio", "10", err, sizeof(err)), -ENOENT);
	/* the refusal names every sysctl the table has */
	for (i = 0; (k = fl_knob_info_at(i)); i++)
		if (k->flags & FL_KNOB_HOST)
			ASSERT_TRUE(strstr(err, k->name) != NULL);
	/* an option is not a knob's name */
	ASSERT_EQ(set(t, "--split-walk", "reverse", err, sizeof(err)), -ENOENT);
	ASSERT_EQ(set(t, "foliolab/fail_page_alloc_orders", "4,9", err, sizeof(err)), 0);
	ASSERT_EQ(set(t, "foliolab/fail_page_alloc_orders", "none", err, sizeof(err)), 0);
	ASSERT_EQ(set(t, "foliolab/fail_page_alloc_orders", "11", err, sizeof(err)), -EINVAL);
	ASSERT_EQ(set(t, "foliolab/fail_page_alloc_orders", "4,,9", err, sizeof(err)), -EINVAL);
	ASSERT_EQ(set(t, "foliolab/corrupt_tag_every", "0", err, sizeof(err)), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	return true;
}

TEST_MAIN(TEST(test_table), TEST(test_defaults), TEST(test_values), TEST(test_named_policies),
	  TEST(test_refusals_and_hooks))
