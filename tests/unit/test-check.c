// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-check.c - the agreement gate on records made up here: a host result
 * is held against the model result with the same mTHP sizes (order0
 * preferred), only deterministic counters are compared, a row differs
 * exactly when |model - host| exceeds noise x k + max(pct of the larger,
 * min), the scope of the host's value is kept, and the JSON carries the
 * agreement block.
 *
 * Conventions in this file: results are built with knobs and counters only.
 */
#include <errno.h>
#include <stdio.h>
#include "harness.h"
#include <foliolab/foliolab.h>

#define SIZE16 "transparent_hugepage/hugepages-16kB/enabled"

static void result(struct fl_result *r, const char *target, const char *label, const char *size16,
		   const char *policy)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->target, sizeof(r->target), "%s", target);
	snprintf(r->label, sizeof(r->label), "%s", label);
	fl_knobs_set(&r->knobs, SIZE16, size16);
	if (policy)
		fl_knobs_set(&r->knobs, "foliolab/lru_cache", policy);
}

static void free_all(struct fl_result *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fl_result_free(&r[i]);
}

static bool test_partner_same_sizes_order0_preferred(void)
{
	struct fl_result r[4];

	result(&r[0], "model", "16K/model/pages31", "always", "pages31");
	result(&r[1], "model", "4K/model/order0", "never", "order0");
	result(&r[2], "model", "16K/model/order0", "always", "order0");
	result(&r[3], "host", "16K/host", "always", NULL);
	ASSERT_EQ(fl_result_model_partner(r, 4, 3), 2);
	/* without an order0 column, the first with the same sizes */
	r[2].knobs.v[1].value[0] = 'x';
	ASSERT_EQ(fl_result_model_partner(r, 4, 3), 0);
	/* no model column with the host's sizes */
	snprintf(r[3].knobs.v[0].value, sizeof(r[3].knobs.v[0].value), "madvise");
	ASSERT_EQ(fl_result_model_partner(r, 4, 3), -1);
	free_all(r, 4);
	return true;
}

static bool test_checked_counters(void)
{
	ASSERT_TRUE(fl_counter_checked("pgfault"));
	ASSERT_TRUE(fl_counter_checked("pglazyfree"));
	ASSERT_TRUE(fl_counter_checked("nr_page_table_pages"));
	ASSERT_TRUE(fl_counter_checked("hugepages-64kB/stats/anon_fault_alloc"));
	ASSERT_TRUE(fl_counter_checked("hugepages-2048kB/stats/nr_anon"));
	/* machine state, times, model-only counters, system-wide shadows: never */
	ASSERT_TRUE(!fl_counter_checked("nr_free_pages"));
	ASSERT_TRUE(!fl_counter_checked("numa_hit"));
	ASSERT_TRUE(!fl_counter_checked("fl_lru_add_flush"));
	ASSERT_TRUE(!fl_counter_checked("system:pgfault"));
	ASSERT_TRUE(!fl_counter_checked("hugepages-64kB/stats/swpout"));
	return true;
}

/* |m - h| against noise * k + max(pct% of the larger, min), row by row */
static bool test_differs_exactly_beyond_the_tolerance(void)
{
	struct fl_tolerance tol = { .pct = 1.0, .min = 10, .noise = 3.0 };
	struct fl_result r[2];
	struct fl_agreement a;
	const struct fl_agree_row *w;

	result(&r[0], "model", "model", "always", "order0");
	result(&r[1], "host", "host", "always", NULL);
	/* pgfault: 1% of the larger, 10116, is 101 > min; noise 5 adds 15: allowed 116 */
	fl_counters_set(&r[0].counters, "pgfault", 10000);
	fl_counters_set_scoped(&r[1].counters, "pgfault", 10116, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[1].noise, "pgfault", 5);
	/* pgfree: 116 apart with no noise: allowed 101 (1% of 10116 rounds to 101) */
	fl_counters_set(&r[0].counters, "pgfree", 10000);
	fl_counters_set_scoped(&r[1].counters, "pgfree", 10116, FL_SCOPE_WORKLOAD);
	/* pglazyfree: small counts fall back to min, system-wide host value */
	fl_counters_set(&r[0].counters, "pglazyfree", 0);
	fl_counters_set_scoped(&r[1].counters, "pglazyfree", 11, FL_SCOPE_SYSTEM);
	/* not deterministic: never a row */
	fl_counters_set(&r[0].counters, "nr_free_pages", 0);
	fl_counters_set_scoped(&r[1].counters, "nr_free_pages", 99999, FL_SCOPE_SYSTEM);
	/* only the model has it: the host's value counts as 0, and the host's
	 * start-up cannot explain a host below the model: no floor */
	fl_counters_set(&r[0].counters, "hugepages-16kB/stats/anon_fault_alloc", 9);
	ASSERT_EQ(fl_agreement_check(r, 2, 1, &tol, &a), 0);
	ASSERT_EQ(a.model, 0);
	ASSERT_EQ(a.nr, 4);
	w = fl_agreement_find(&a, "pgfault");
	ASSERT_TRUE(w && !w->differs);
	ASSERT_EQ(w->allowed, 116);
	ASSERT_EQ(w->scope, FL_SCOPE_WORKLOAD);
	w = fl_agreement_find(&a, "pgfree");
	ASSERT_TRUE(w && w->differs);
	ASSERT_EQ(w->allowed, 101);
	w = fl_agreement_find(&a, "pglazyfree");
	ASSERT_TRUE(w && w->differs);
	ASSERT_EQ(w->allowed, 10);
	ASSERT_EQ(w->scope, FL_SCOPE_SYSTEM);
	w = fl_agreement_find(&a, "hugepages-16kB/stats/anon_fault_alloc");
	ASSERT_TRUE(w && w->differs && w->host == 0);
	ASSERT_EQ(w->allowed, 0);
	ASSERT_TRUE(fl_agreement_find(&a, "nr_free_pages") == NULL);
	/* held: pgfree; the system-wide pglazyfree and the host-less row are reported */
	ASSERT_EQ(a.nr_differs, 1);
	ASSERT_EQ(a.nr_differs_system, 2);
	fl_agreement_free(&a);
	/* no model column with the host's sizes: nothing to hold it against */
	r[0].knobs.v[0].value[0] = 'n';
	ASSERT_EQ(fl_agreement_check(r, 2, 1, &tol, &a), -ENOENT);
	free_all(r, 2);
	return true;
}

/*
 * The floor covers what the host's process does besides the workload,
 * which only adds faults and allocations: below the model, those counters
 * get the percentage and the noise but no floor; others keep it both ways.
 */
static bool test_floor_only_upward_for_startup_events(void)
{
	struct fl_tolerance tol = { .pct = 0.5, .min = 64, .noise = 3.0 };
	struct fl_result r[2];
	struct fl_agreement a;
	const struct fl_agree_row *w;

	result(&r[0], "model", "model", "always", "order0");
	result(&r[1], "host", "host", "always", NULL);
	/* 26 below: 0.5% of 284 rounds to 1, noise 2 adds 6: allowed 7 */
	fl_counters_set(&r[0].counters, "pgfault", 284);
	fl_counters_set_scoped(&r[1].counters, "pgfault", 258, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[1].noise, "pgfault", 2);
	/* 26 above: the floor holds, allowed 64 + 6 */
	fl_counters_set(&r[0].counters, "pgalloc_normal", 258);
	fl_counters_set_scoped(&r[1].counters, "pgalloc_normal", 284, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[1].noise, "pgalloc_normal", 2);
	/*
	 * frees may come later on the host, or early ones land in the run
	 * (RCU-delayed page tables): twice the floor, both ways
	 */
	fl_counters_set(&r[0].counters, "pgfree", 284);
	fl_counters_set_scoped(&r[1].counters, "pgfree", 258, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[0].counters, "split:pgfree", 100);
	fl_counters_set_scoped(&r[1].counters, "split:pgfree", 229, FL_SCOPE_WORKLOAD);
	/* the machine's page-table gauge: the same */
	fl_counters_set(&r[0].counters, "nr_page_table_pages", 0);
	fl_counters_set_scoped(&r[1].counters, "nr_page_table_pages", -74, FL_SCOPE_SYSTEM);
	ASSERT_EQ(fl_agreement_check(r, 2, 1, &tol, &a), 0);
	w = fl_agreement_find(&a, "pgfault");
	ASSERT_TRUE(w && w->differs);
	ASSERT_EQ(w->allowed, 7);
	w = fl_agreement_find(&a, "pgalloc_normal");
	ASSERT_TRUE(w && !w->differs);
	ASSERT_EQ(w->allowed, 70);
	w = fl_agreement_find(&a, "pgfree");
	ASSERT_TRUE(w && !w->differs);
	ASSERT_EQ(w->allowed, 128);
	w = fl_agreement_find(&a, "split:pgfree"); /* 129 apart: beyond 128 */
	ASSERT_TRUE(w && w->differs);
	ASSERT_EQ(w->allowed, 128);
	w = fl_agreement_find(&a, "nr_page_table_pages");
	ASSERT_TRUE(w && !w->differs);
	ASSERT_EQ(w->allowed, 128);
	ASSERT_EQ(a.nr_differs, 2);
	ASSERT_EQ(a.nr_differs_system, 0);
	fl_agreement_free(&a);
	free_all(r, 2);
	return true;
}

/* The JSON of a compare holds the agreement block with every row. */
static bool test_json_has_the_agreement(void)
{
	struct fl_tolerance tol = { .pct = 0.5, .min = 64, .noise = 3.0 };
	struct fl_result r[2];
	char buf[65536];
	size_t n;
	FILE *f = tmpfile();

	ASSERT_TRUE(f != NULL);
	result(&r[0], "model", "model", "always", "order0");
	result(&r[1], "host", "host", "always", NULL);
	fl_counters_set(&r[0].counters, "pgfault", 1000);
	fl_counters_set_scoped(&r[1].counters, "pgfault", 2000, FL_SCOPE_WORKLOAD);
	ASSERT_EQ(fl_results_write_json(f, r, 2, &tol), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ASSERT_TRUE(strstr(buf, "\"agreement\": {\"model\": \"model\"") != NULL);
	ASSERT_TRUE(strstr(buf, "\"differs\": 1, \"differs_system\": 0, \"rows\"") != NULL);
	ASSERT_TRUE(strstr(buf, "{\"name\": \"pgfault\", \"model\": 1000, \"model_unseen\": 0, "
				"\"host\": 2000, \"noise\": 0, \"allowed\": 64, \"scope\": "
				"\"workload\", \"differs\": true, \"held\": true}") != NULL);
	ASSERT_TRUE(strstr(buf, "\"scope\": {\n        \"pgfault\": \"workload\"") != NULL);
	free_all(r, 2);
	return true;
}

/*
 * A window one side did not count (its step could not run there) gives no
 * rows; a window both counted is held row by row, a counter missing on one
 * side reading 0.
 */
static bool test_window_counted_on_one_side_only(void)
{
	struct fl_tolerance tol = { .pct = 1.0, .min = 10, .noise = 3.0 };
	struct fl_result r[2];
	struct fl_agreement a;
	const struct fl_agree_row *w;

	result(&r[0], "model", "model", "always", "order0");
	result(&r[1], "host", "host", "always", NULL);
	fl_counters_set(&r[0].counters, "scan:pgfree", 256);
	fl_counters_set(&r[0].counters, "queue:pgfree", 100);
	fl_counters_set_scoped(&r[1].counters, "queue:pgfault", 1, FL_SCOPE_WORKLOAD);
	/* a window's noise is its counter's over the whole run's idle interval */
	fl_counters_set(&r[1].noise, "pgfault", 7);
	ASSERT_EQ(fl_agreement_check(r, 2, 1, &tol, &a), 0);
	ASSERT_TRUE(fl_agreement_find(&a, "scan:pgfree") == NULL);
	w = fl_agreement_find(&a, "queue:pgfree");
	ASSERT_TRUE(w && w->differs && w->host == 0);
	w = fl_agreement_find(&a, "queue:pgfault");
	ASSERT_TRUE(w && !w->differs);
	ASSERT_EQ(w->noise, 7);
	ASSERT_EQ(a.nr, 2); /* queue:pgfree and queue:pgfault */
	fl_agreement_free(&a);
	free_all(r, 2);
	return true;
}

/*
 * A host count scoped to the run sees only its tasks' own frees: pgfree is
 * held against the model's less what the kernel frees after an RCU grace
 * period or with preemption off (fl_pgfree_rcu, fl_pgfree_atomic), window
 * by window; a system-wide pgfree sees every free, and keeps the whole.
 */
static bool test_pgfree_less_what_the_host_cannot_see(void)
{
	struct fl_tolerance tol = { .pct = 0, .min = 0, .noise = 0 };
	struct fl_result r[2];
	struct fl_agreement a;
	const struct fl_agree_row *w;

	result(&r[0], "model", "model", "always", "order0");
	result(&r[1], "host", "host", "always", NULL);
	fl_counters_set(&r[0].counters, "pgfree", 1000);
	fl_counters_set(&r[0].counters, "fl_pgfree_rcu", 30);
	fl_counters_set(&r[0].counters, "fl_pgfree_atomic", 7);
	fl_counters_set_scoped(&r[1].counters, "pgfree", 963, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[0].counters, "split:pgfree", 500);
	fl_counters_set(&r[0].counters, "split:fl_pgfree_atomic", 20);
	fl_counters_set_scoped(&r[1].counters, "split:pgfree", 481, FL_SCOPE_WORKLOAD);
	fl_counters_set(&r[0].counters, "scan:pgfree", 200);
	fl_counters_set(&r[0].counters, "scan:fl_pgfree_rcu", 10);
	fl_counters_set_scoped(&r[1].counters, "scan:pgfree", 200, FL_SCOPE_SYSTEM);
	ASSERT_EQ(fl_agreement_check(r, 2, 1, &tol, &a), 0);
	w = fl_agreement_find(&a, "pgfree");
	ASSERT_TRUE(w && !w->differs && w->held);
	ASSERT_EQ(w->model, 963);
	ASSERT_EQ(w->model_unseen, 37);
	w = fl_agreement_find(&a, "split:pgfree"); /* 480 against 481 */
	ASSERT_TRUE(w && w->differs && w->held);
	ASSERT_EQ(w->model_unseen, 20);
	w = fl_agreement_find(&a, "scan:pgfree");
	ASSERT_TRUE(w && !w->differs && !w->held);
	ASSERT_EQ(w->model, 200);
	ASSERT_EQ(w->model_unseen, 0);
	ASSERT_EQ(a.nr_differs, 1);
	ASSERT_EQ(a.nr_differs_system, 0);
	fl_agreement_free(&a);
	free_all(r, 2);
	return true;
}

TEST_MAIN(TEST(test_partner_same_sizes_order0_preferred), TEST(test_checked_counters),
	  TEST(test_pgfree_less_what_the_host_cannot_see),
	  TEST(test_window_counted_on_one_side_only),
	  TEST(test_differs_exactly_beyond_the_tolerance),
	  TEST(test_floor_only_upward_for_startup_events), TEST(test_json_has_the_agreement))
