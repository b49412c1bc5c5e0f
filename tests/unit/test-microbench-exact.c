// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-microbench-exact.c - the seed's microbenchmark through the public
 * API: per-size anon_fault_alloc, pgfault, the number of lru_add flushes
 * (lruvec lock acquisitions at folio_batch_move_lru) and the dead folios
 * found in them equal what each policy's rule gives, for 4K, 16K, 32K and
 * 64K folios, several thread counts, loop counts and sizes; and 4K pages
 * flush identically under every policy.
 *
 * Conventions in this file: expect() simulates one CPU's lru_add batch
 * under a rule (batch_slots slots, 31 unless a case sets fewer; a folio of
 * p pages cacheable iff p < folio_pages; flush once the batch holds more
 * than batch_pages, 0 = no cap) over the workload's sequence of adds and
 * zaps, independently of the model.
 */
#include <errno.h>
#include "harness.h"
#include <foliolab/foliolab.h>

struct rule {
	const char *name;
	int folio_pages;
	int batch_pages;
};

static const struct rule rules[] = {
	{ "order0", 2, 0 },
	{ "max16", 17, 0 },
	{ "pages31", 31, 31 },
};

struct expect {
	long flushes; /* per CPU */
	long dead;    /* per CPU */
};

static int batch_slots = 31; /* --lru-cache-batch-slots of the next cases */

/*
 * One CPU: @loops times, @per_loop folios of @p pages are added, then all
 * are zapped. Folios still queued at a zap are dead at their flush; the
 * final drain at teardown flushes what is left (all dead).
 */
static struct expect expect(const struct rule *r, long p, long per_loop, long loops)
{
	struct expect e = { 0, 0 };
	long queued_old = 0, queued_new = 0, pages = 0, loop, i;

	for (loop = 0; loop < loops; loop++) {
		for (i = 0; i < per_loop; i++) {
			queued_new++;
			pages += p;
			if (queued_old + queued_new == batch_slots ||
			    (r->batch_pages && pages > r->batch_pages) || p >= r->folio_pages) {
				e.flushes++;
				e.dead += queued_old;
				queued_old = queued_new = pages = 0;
			}
		}
		queued_old += queued_new; /* the zap kills everything still queued */
		queued_new = 0;
	}
	if (queued_old) {
		e.flushes++;
		e.dead += queued_old;
	}
	return e;
}

static const char *vma_mode = "shared"; /* --vma of the next cases */

static bool run_case(const char *policy_name, int kb, int threads, int loops, const char *size,
		     long size_bytes)
{
	const struct rule *r = NULL;
	struct fl_config cfg;
	struct fl_result res;
	const struct fl_lock_stat_row *row;
	char buf[64], err[256];
	long p = kb / 4, per_loop = size_bytes / (kb * 1024L);
	struct expect e;
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].name, policy_name))
			r = &rules[i];
	fl_config_init(&cfg, "lru-microbench");
	snprintf(buf, sizeof(buf), "%d", threads);
	fl_config_set_param(&cfg, "threads", buf);
	snprintf(buf, sizeof(buf), "%d", loops);
	fl_config_set_param(&cfg, "loops", buf);
	fl_config_set_param(&cfg, "size", size);
	fl_config_set_param(&cfg, "vma", vma_mode);
	fl_config_set_knob(&cfg, "foliolab/lru_cache", policy_name);
	if (batch_slots != 31) {
		snprintf(buf, sizeof(buf), "%d", batch_slots);
		fl_config_set_knob(&cfg, "foliolab/lru_cache_batch_slots", buf);
	}
	if (kb > 4) {
		snprintf(buf, sizeof(buf), "transparent_hugepage/hugepages-%dkB/enabled", kb);
		fl_config_set_knob(&cfg, buf, "always");
	}
	ASSERT_EQ(fl_run(&cfg, &res, err, sizeof(err)), 0);
	if (res.status)
		printf("# %s\n", res.error);
	ASSERT_EQ(res.status, 0);
	e = expect(r, p, per_loop, loops);
	/* one fault per folio, and a retried fault (vma_lock_retry) counts twice */
	ASSERT_EQ(fl_counters_get(&res.counters, "pgfault"),
		  (long)threads * loops * per_loop +
			  fl_counters_get(&res.counters, "fl_vma_lock_retry"));
	for (i = 16; i <= 2048; i *= 2) {
		snprintf(buf, sizeof(buf), "hugepages-%zukB/stats/anon_fault_alloc", i);
		ASSERT_EQ(fl_counters_get(&res.counters, buf),
			  (long)i == kb ? (long)threads * loops * per_loop : 0);
	}
	row = fl_locks_find(&res.locks, "lruvec->lru_lock", "folio_batch_move_lru");
	ASSERT_TRUE(row != NULL);
	if (row->acquired != (uint64_t)(threads * e.flushes))
		printf("# %s %dK threads=%d loops=%d size=%s\n", policy_name, kb, threads, loops,
		       size);
	ASSERT_EQ(row->acquired, threads * e.flushes);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_lru_add_flush"), threads * e.flushes);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_lru_add_dead"), threads * e.dead);
	fl_result_free(&res);
	return true;
}

static bool test_every_size_and_policy(void)
{
	static const int kbs[] = { 4, 16, 32, 64 };
	size_t i, j;

	for (i = 0; i < sizeof(kbs) / sizeof(kbs[0]); i++)
		for (j = 0; j < sizeof(rules) / sizeof(rules[0]); j++)
			if (!run_case(rules[j].name, kbs[i], 2, 5, "16M", 16l << 20))
				return false;
	return true;
}

static bool test_threads_loops_sizes(void)
{
	return run_case("pages31", 16, 1, 1, "2M", 2l << 20) &&
	       run_case("pages31", 16, 3, 7, "4M", 4l << 20) &&
	       run_case("order0", 16, 4, 3, "2M", 2l << 20) &&
	       run_case("max16", 64, 3, 11, "4M", 4l << 20) &&
	       run_case("pages31", 32, 2, 9, "6M", 6l << 20) &&
	       run_case("pages31", 4, 5, 2, "2M", 2l << 20) &&
	       run_case("order0", 4, 1, 13, "8M", 8l << 20);
}

/*
 * A VMA per thread (--vma private) changes where each thread's mapping
 * lies, not its size or alignment: the same counts by the same rule.
 */
static bool test_private_vmas_same_counts(void)
{
	bool ok;

	vma_mode = "private";
	ok = run_case("pages31", 16, 3, 4, "4M", 4l << 20) &&
	     run_case("order0", 64, 2, 3, "2M", 2l << 20) &&
	     run_case("max16", 4, 2, 5, "6M", 6l << 20);
	vma_mode = "shared";
	return ok;
}

/*
 * Fewer slots: max16 on the 2023 kernel's 15-folio batch (PAGEVEC_SIZE),
 * and pages31 on 5 slots, where 16K folios meet the slot limit first.
 */
static bool test_fewer_slots(void)
{
	bool ok;

	batch_slots = 15;
	ok = run_case("max16", 16, 2, 5, "4M", 4l << 20) &&
	     run_case("max16", 64, 3, 3, "2M", 2l << 20) &&
	     run_case("max16", 4, 1, 4, "6M", 6l << 20) &&
	     run_case("order0", 32, 2, 2, "2M", 2l << 20);
	batch_slots = 5;
	ok = ok && run_case("pages31", 16, 2, 3, "4M", 4l << 20) &&
	     run_case("pages31", 4, 3, 2, "2M", 2l << 20);
	batch_slots = 31;
	return ok;
}

/*
 * 4K pages: all three rules flush at the 31st folio, so the model counts
 * the same lock acquisitions under each.
 */
static bool test_4k_is_policy_neutral(void)
{
	return run_case("order0", 4, 2, 10, "16M", 16l << 20) &&
	       run_case("max16", 4, 2, 10, "16M", 16l << 20) &&
	       run_case("pages31", 4, 2, 10, "16M", 16l << 20);
}

/* The folio_batch_move_lru acquisitions of a 1-thread 16K run, by the model. */
static long flushes_16k(const char *policy, int loops, const char *size)
{
	struct fl_config cfg;
	struct fl_result res;
	const struct fl_lock_stat_row *row;
	char buf[16], err[256];
	long n = -1;

	fl_config_init(&cfg, "lru-microbench");
	fl_config_set_param(&cfg, "threads", "1");
	snprintf(buf, sizeof(buf), "%d", loops);
	fl_config_set_param(&cfg, "loops", buf);
	fl_config_set_param(&cfg, "size", size);
	fl_config_set_knob(&cfg, "foliolab/lru_cache", policy);
	fl_config_set_knob(&cfg, "transparent_hugepage/hugepages-16kB/enabled", "always");
	if (fl_run(&cfg, &res, err, sizeof(err)) || res.status)
		return -1;
	row = fl_locks_find(&res.locks, "lruvec->lru_lock", "folio_batch_move_lru");
	n = row ? (long)row->acquired : 0;
	fl_result_free(&res);
	return n;
}

/*
 * The seed's effect in counts, worked out by hand: 4 MiB of 16K folios is
 * 256 adds a loop. order0 flushes at every add (a 4-page folio may not
 * stay cached): 256 x 4 = 1024. pages31 flushes when a batch holds more
 * than 31 pages, at every 8th 16K folio (32 pages): 256 / 8 x 4 = 128,
 * and 256 is a multiple of 8, so nothing is left for the final drain.
 */
static bool test_16k_flush_ratio(void)
{
	ASSERT_EQ(flushes_16k("order0", 4, "4M"), 1024);
	ASSERT_EQ(flushes_16k("pages31", 4, "4M"), 128);
	/* 12 adds a loop (192K), 24 in all: the batch carries over the zap, every 8th flushes */
	ASSERT_EQ(flushes_16k("pages31", 2, "192K"), 24 / 8);
	return true;
}

static bool test_free_dead_filter(void)
{
	struct fl_config cfg;
	struct fl_result res;
	const struct fl_lock_stat_row *row;
	struct expect e = expect(&rules[2], 1, 512, 4);
	char err[256];

	fl_config_init(&cfg, "lru-microbench");
	fl_config_set_param(&cfg, "threads", "1");
	fl_config_set_param(&cfg, "loops", "4");
	fl_config_set_param(&cfg, "size", "2M");
	fl_config_set_knob(&cfg, "foliolab/lru_add_free_dead", "on");
	ASSERT_EQ(fl_run(&cfg, &res, err, sizeof(err)), 0);
	ASSERT_EQ(res.status, 0);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_lru_add_dead"), e.dead);
	ASSERT_EQ(fl_counters_get(&res.counters, "fl_lru_add_freed_dead"), e.dead);
	/* the final drain holds only dead folios: no lock for it */
	row = fl_locks_find(&res.locks, "lruvec->lru_lock", "folio_batch_move_lru");
	ASSERT_EQ(row->acquired, e.flushes - 1);
	fl_result_free(&res);
	return true;
}

TEST_MAIN(TEST(test_every_size_and_policy), TEST(test_threads_loops_sizes),
	  TEST(test_4k_is_policy_neutral), TEST(test_16k_flush_ratio), TEST(test_free_dead_filter),
	  TEST(test_private_vmas_same_counts), TEST(test_fewer_slots))
