// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-atomic.c - the model's read-modify-write atomics with and without
 * the LOCK prefix (src/platform/atomic.h): each returns what GCC's builtin
 * returns and leaves what it leaves, in both modes and at the edges
 * (wrap-around, a failed compare-exchange); the model target drops the
 * prefix only while exactly one task runs, never with two or with
 * --locked-atomics; and a workload counts the same either way.
 *
 * Conventions in this file: "up" is the unlocked mode (fl__uniproc set),
 * "smp" the locked one.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "harness.h"
#include "platform/atomic.h"
#include "platform/platform.h"
#include "target/target.h"
#include <foliolab/foliolab.h>

/* Every op once, on three types, with the value each must give by its definition. */
static bool rmw_ops(void)
{
	int i = 5;
	unsigned int u = 0;
	unsigned long w = 0xf0ul, exp;

	ASSERT_EQ(fl_atomic_fetch_add(&i, 3, __ATOMIC_RELAXED), 5);
	ASSERT_EQ(i, 8);
	ASSERT_EQ(fl_atomic_add_fetch(&i, 2, __ATOMIC_RELAXED), 10);
	ASSERT_EQ(fl_atomic_sub_fetch(&i, 10, __ATOMIC_ACQ_REL), 0);
	ASSERT_EQ(fl_atomic_fetch_sub(&i, 1, __ATOMIC_RELEASE), 0);
	ASSERT_EQ(i, -1);
	/* unsigned wrap-around, as the builtins do */
	ASSERT_EQ(fl_atomic_fetch_sub(&u, 1, __ATOMIC_RELAXED), 0u);
	ASSERT_EQ(u, UINT_MAX);
	ASSERT_EQ(fl_atomic_add_fetch(&u, 2, __ATOMIC_RELAXED), 1u);
	ASSERT_EQ(fl_atomic_fetch_or(&w, 0x0ful, __ATOMIC_RELAXED), 0xf0ul);
	ASSERT_EQ(w, 0xfful);
	ASSERT_EQ(fl_atomic_fetch_and(&w, ~0x11ul, __ATOMIC_ACQ_REL), 0xfful);
	ASSERT_EQ(w, 0xeeul);
	/* success: the new value is stored, *expected untouched */
	exp = 0xee;
	ASSERT_TRUE(fl_atomic_cmpxchg(&w, &exp, 7ul, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	ASSERT_EQ(w, 7ul);
	ASSERT_EQ(exp, 0xeeul);
	/* failure: nothing stored, *expected receives the current value */
	exp = 8;
	ASSERT_TRUE(!fl_atomic_cmpxchg(&w, &exp, 9ul, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	ASSERT_EQ(w, 7ul);
	ASSERT_EQ(exp, 7ul);
	return true;
}

static bool test_rmw_both_modes(void)
{
	bool ok;

	ASSERT_TRUE(!fl_uniproc());
	if (!rmw_ops())
		return false;
	fl__uniproc_begin();
	ASSERT_TRUE(fl_uniproc());
	ok = rmw_ops();
	fl__uniproc_end();
	ASSERT_TRUE(!fl_uniproc());
	return ok;
}

static int seen[2]; /* fl_uniproc() as each task saw it, +1 */

static void note_mode(struct fl_thread *th, void *arg)
{
	(void)arg;
	seen[th->index] = fl_uniproc() + 1;
}

static bool run_and_see(struct fl_target *t, struct fl_proc *p, int n, int want)
{
	struct fl_proc *procs[2] = { p, p };
	int i;

	seen[0] = seen[1] = 0;
	ASSERT_EQ(t->ops->run_tasks(t, procs, n, note_mode, NULL), 0);
	for (i = 0; i < n; i++)
		ASSERT_EQ(seen[i], want + 1);
	ASSERT_TRUE(!fl_uniproc()); /* back to locked once the tasks are joined */
	return true;
}

static bool test_model_drops_lock_prefix_for_one_task(void)
{
	struct fl_target_config cfg = { .mem_bytes = 64ull << 20, .nodes = 1, .cpus = 2 };
	struct fl_target *t;
	struct fl_proc *p;
	char err[256];
	bool ok;

	ASSERT_EQ(fl__model_target_ops.open(&cfg, &t, err, sizeof(err)), 0);
	ASSERT_EQ(t->ops->proc_create(t, &p), 0);
	ok = run_and_see(t, p, 1, 1) && run_and_see(t, p, 2, 0);
	ASSERT_EQ(t->ops->proc_exit(p), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	/* --locked-atomics: the prefix stays with one task too */
	cfg.locked_atomics = true;
	ASSERT_EQ(fl__model_target_ops.open(&cfg, &t, err, sizeof(err)), 0);
	ASSERT_EQ(t->ops->proc_create(t, &p), 0);
	ok = ok && run_and_see(t, p, 1, 0) && run_and_see(t, p, 2, 0);
	ASSERT_EQ(t->ops->proc_exit(p), 0);
	ASSERT_EQ(t->ops->close(t), 0);
	return ok;
}

static bool run_microbench(struct fl_result *res, bool smp)
{
	struct fl_config cfg;
	char err[256];

	fl_config_init(&cfg, "lru-microbench");
	cfg.sim = false; /* host threads: real concurrency */
	cfg.locked_atomics = smp;
	fl_config_set_param(&cfg, "threads", "1");
	fl_config_set_param(&cfg, "loops", "3");
	fl_config_set_param(&cfg, "size", "4M");
	fl_config_set_knob(&cfg, "transparent_hugepage/hugepages-16kB/enabled", "always");
	ASSERT_EQ(fl_run(&cfg, res, err, sizeof(err)), 0);
	ASSERT_EQ(res->status, 0);
	ASSERT_EQ(res->locked_atomics, smp); /* recorded */
	return true;
}

/* Dropping the prefix changes the cost of an RMW, never its result. */
static bool test_same_counts_either_way(void)
{
	struct fl_result up, smp;
	int i, n = 0;

	ASSERT_TRUE(run_microbench(&up, false));
	ASSERT_TRUE(run_microbench(&smp, true));
	ASSERT_EQ(up.counters.nr, smp.counters.nr);
	for (i = 0; i < up.counters.nr; i++) {
		ASSERT_STREQ(up.counters.v[i].name, smp.counters.v[i].name);
		ASSERT_EQ(up.counters.v[i].value, smp.counters.v[i].value);
		n += up.counters.v[i].value != 0;
	}
	ASSERT_GT(n, 5); /* the run counted something */
	ASSERT_GT(fl_counters_get(&up.counters, "hugepages-16kB/stats/anon_fault_alloc"), 0);
	ASSERT_EQ(up.locks.nr, smp.locks.nr);
	for (i = 0; i < up.locks.nr; i++) {
		ASSERT_STREQ(up.locks.v[i].name, smp.locks.v[i].name);
		ASSERT_STREQ(up.locks.v[i].site, smp.locks.v[i].site);
		ASSERT_EQ(up.locks.v[i].acquired, smp.locks.v[i].acquired);
	}
	fl_result_free(&up);
	fl_result_free(&smp);
	return true;
}

TEST_MAIN(TEST(test_rmw_both_modes), TEST(test_model_drops_lock_prefix_for_one_task),
	  TEST(test_same_counts_either_way))
