// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-sim-platform.c - the model's runs on virtual CPUs (--platform sim)
 * against its runs on host threads, through the public API.
 *
 * With one thread nothing depends on timing, so every counter of a sim
 * run equals the native run's. With several, the counters the workload's
 * rule fixes (faults, allocations per size, LRU flushes, lock
 * acquisitions at the lruvec) equal the rule on both platforms, and two
 * sim runs with the same seed give identical records: every counter,
 * every lock row with its contended count and waits. Every workload
 * runs on sim and reads its tags back.
 *
 * Conventions in this file: "record" means the counters and the lock
 * table; host times (wall, user, sys) are left out.
 */
#include <stdio.h>
#include "harness.h"
#include <foliolab/foliolab.h>
#include "../src/platform/platform.h"
#include "../src/platform/lock.h"
#include "../src/platform/sim/sim.h"

static int run_cpus; /* --cpus for run(); 0: one per thread */

static bool run(const char *workload, const char *const *params, bool sim, uint64_t seed,
		struct fl_result *res)
{
	struct fl_config cfg;
	char err[256];
	int i;

	fl_config_init(&cfg, workload);
	for (i = 0; params[i]; i += 2)
		fl_config_set_param(&cfg, params[i], params[i + 1]);
	fl_config_set_knob(&cfg, "transparent_hugepage/hugepages-16kB/enabled", "always");
	cfg.sim = sim;
	cfg.seed = seed;
	cfg.cpus = run_cpus;
	ASSERT_EQ(fl_run(&cfg, res, err, sizeof(err)), 0);
	if (res->status)
		printf("# %s\n", res->error);
	ASSERT_EQ(res->status, 0);
	ASSERT_TRUE(fl_counters_get(&res->counters, "fl_tag_checked") > 0);
	ASSERT_EQ(fl_counters_get(&res->counters, "fl_tag_mismatch"), 0);
	ASSERT_TRUE(!strcmp(res->platform, sim ? "sim" : "native"));
	return true;
}

/*
 * Every counter of @a equals @b's; the sim's cost counts and times
 * (fl_cost_*, fl_time_*) only where @b has them too (a native run has none).
 */
static bool same_counters(const struct fl_result *a, const struct fl_result *b)
{
	int i, skipped = 0;

	for (i = 0; i < a->counters.nr; i++) {
		const struct fl_counter *c = &a->counters.v[i];

		if ((strstr(c->name, "fl_cost_") || strstr(c->name, "fl_time_")) &&
		    !fl_counters_find(&b->counters, c->name)) {
			skipped++;
			continue;
		}
		if (c->value != fl_counters_get(&b->counters, c->name))
			printf("# %s: %lld against %lld\n", c->name, (long long)c->value,
			       (long long)fl_counters_get(&b->counters, c->name));
		ASSERT_EQ(c->value, fl_counters_get(&b->counters, c->name));
	}
	ASSERT_EQ(a->counters.nr - skipped, b->counters.nr);
	return true;
}

static bool test_one_thread_same_as_native(void)
{
	static const char *const p[] = { "threads", "1", "loops", "10", "size", "1M", NULL };
	struct fl_result sim, native;

	ASSERT_TRUE(run("lru-microbench", p, true, 1, &sim));
	ASSERT_TRUE(run("lru-microbench", p, false, 0, &native));
	ASSERT_TRUE(same_counters(&sim, &native));
	fl_result_free(&sim);
	fl_result_free(&native);
	return true;
}

/* 4 threads x 20 loops x 64 folios of 16K: the rule, and the same record for the same seed. */
static bool test_threads_rule_and_seed(void)
{
	static const char *const p[] = { "threads", "4", "loops", "20", "size", "1M", NULL };
	const struct fl_lock_stat_row *row;
	struct fl_result a, b;
	int i;

	ASSERT_TRUE(run("lru-microbench", p, true, 11, &a));
	ASSERT_TRUE(run("lru-microbench", p, true, 11, &b));
	/* a fault the per-VMA lock could not finish is retried, and counted again (as in 6.18) */
	ASSERT_EQ(fl_counters_get(&a.counters, "pgfault"),
		  4 * 20 * 64 + fl_counters_get(&a.counters, "fl_vma_lock_retry"));
	ASSERT_EQ(fl_counters_get(&a.counters, "hugepages-16kB/stats/anon_fault_alloc"),
		  4 * 20 * 64);
	/* pages31 keeps 16K folios in the batch: a flush per 7 folios and one per loop's end */
	row = fl_locks_find(&a.locks, "lruvec->lru_lock", "folio_batch_move_lru");
	ASSERT_TRUE(row != NULL);
	ASSERT_EQ(row->acquired, (uint64_t)fl_counters_get(&a.counters, "fl_lru_add_flush"));
	ASSERT_TRUE(same_counters(&a, &b));
	ASSERT_EQ(a.locks.nr, b.locks.nr);
	for (i = 0; i < a.locks.nr; i++) {
		ASSERT_TRUE(!strcmp(a.locks.v[i].name, b.locks.v[i].name));
		ASSERT_EQ(a.locks.v[i].acquired, b.locks.v[i].acquired);
		ASSERT_EQ(a.locks.v[i].contended, b.locks.v[i].contended);
		if (a.locks.v[i].wait_total_ns != b.locks.v[i].wait_total_ns)
			printf("# %s @ %s\n", a.locks.v[i].name, a.locks.v[i].site);
		ASSERT_EQ(a.locks.v[i].wait_total_ns, b.locks.v[i].wait_total_ns);
		ASSERT_EQ(a.locks.v[i].hold_total_ns, b.locks.v[i].hold_total_ns);
	}
	/* the virtual times too: the run's, and each CPU's busy and idle time */
	ASSERT_TRUE(a.wall_s > 0 && a.wall_s == b.wall_s);
	ASSERT_EQ(a.nr_vcpus, 4);
	ASSERT_EQ(b.nr_vcpus, 4);
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(a.vcpu_busy_ns[i] > 0);
		ASSERT_EQ(a.vcpu_busy_ns[i], b.vcpu_busy_ns[i]);
		ASSERT_EQ(a.vcpu_idle_ns[i], b.vcpu_idle_ns[i]);
	}
	ASSERT_EQ(a.seed, 11ull);
	fl_result_free(&a);
	fl_result_free(&b);
	return true;
}

/*
 * Another seed orders ties differently: only what contention decides may
 * change (who waits and how long, the virtual times, failed trylocks and
 * cache-line moves, a fault retried under the mmap_lock); every other
 * counter is the workload's rule and stays.
 */
static bool test_seed_changes_only_contention(void)
{
	static const char *const p[] = { "threads", "8", "loops", "10", "size", "1M", NULL };
	struct fl_result a, b;
	bool timing_differs;
	int i;

	ASSERT_TRUE(run("lru-microbench", p, true, 1, &a));
	ASSERT_TRUE(run("lru-microbench", p, true, 7, &b));
	ASSERT_EQ(a.counters.nr, b.counters.nr);
	for (i = 0; i < a.counters.nr; i++) {
		const struct fl_counter *c = &a.counters.v[i];

		/*
		 * timing decides these: the costs' counts and times, a fault retried
		 * under the mmap_lock, and TLB misses (another thread's flush of the
		 * shared mm may come before or after this one's next access)
		 */
		if (strstr(c->name, "fl_cost_") || strstr(c->name, "fl_time_") ||
		    !strcmp(c->name, "pgfault") || !strcmp(c->name, "fl_vma_lock_retry") ||
		    strstr(c->name, "dTLB-"))
			continue;
		if (c->value != fl_counters_get(&b.counters, c->name))
			printf("# %s: %lld against %lld\n", c->name, (long long)c->value,
			       (long long)fl_counters_get(&b.counters, c->name));
		ASSERT_EQ(c->value, fl_counters_get(&b.counters, c->name));
	}
	ASSERT_EQ(fl_counters_get(&a.counters, "pgfault") -
			  fl_counters_get(&a.counters, "fl_vma_lock_retry"),
		  fl_counters_get(&b.counters, "pgfault") -
			  fl_counters_get(&b.counters, "fl_vma_lock_retry"));
	/* and the seed does matter: some contention figure moved */
	timing_differs = a.wall_s != b.wall_s;
	for (i = 0; i < a.locks.nr && i < b.locks.nr; i++)
		timing_differs |= a.locks.v[i].wait_total_ns != b.locks.v[i].wait_total_ns;
	ASSERT_TRUE(timing_differs);
	fl_result_free(&a);
	fl_result_free(&b);
	return true;
}

/*
 * Several tasks on one virtual CPU: its run queue runs them in turn. Four
 * threads on one CPU fault and free what four threads do, their CPU is
 * never idle (none sleeps for long: the mmap_lock is the only sleeping
 * lock they share), and the run takes four times one thread's virtual
 * time, less the clears: the same work, one CPU, no line ever moving. A
 * clear's price depends on whether its frame was cleared a moment ago
 * (the LLC rule), and which frames come back differs with four.
 */
static bool test_tasks_share_a_cpu(void)
{
	static const char *const p1[] = { "threads", "1", "loops", "5", "size", "1M", NULL };
	static const char *const p4[] = { "threads", "4", "loops", "5", "size", "1M", NULL };
	struct fl_result one, four;
	double t1, t4;

	run_cpus = 1;
	ASSERT_TRUE(run("lru-microbench", p1, true, 0, &one));
	ASSERT_TRUE(run("lru-microbench", p4, true, 0, &four));
	run_cpus = 0;
	ASSERT_EQ(four.nr_vcpus, 1);
	ASSERT_EQ(fl_counters_get(&four.counters, "hugepages-16kB/stats/anon_fault_alloc"),
		  4 * 5 * 64);
	ASSERT_EQ(fl_counters_get(&four.counters, "fl_cost_cacheline"), 0);
	ASSERT_EQ(fl_counters_get(&four.counters, "fl_cost_clear_page"),
		  4 * fl_counters_get(&one.counters, "fl_cost_clear_page"));
	/* less the clears, whose price depends on which frames came back (the LLC rule) */
	t1 = one.wall_s - (double)fl_counters_get(&one.counters, "fl_time_clear_page") / 1e9;
	t4 = four.wall_s - (double)fl_counters_get(&four.counters, "fl_time_clear_page") / 1e9;
	ASSERT_TRUE(t4 > 3.99 * t1 && t4 < 4.01 * t1);
	ASSERT_EQ(four.vcpu_idle_ns[0], 0ull);
	fl_result_free(&one);
	fl_result_free(&four);
	return true;
}

/* Every workload runs on sim with its tags read back (the rest of its checks are its own). */
static bool test_every_workload_runs(void)
{
	static const char *const pf1[] = { "threads", "3", "iterations", "2", "size", "4M", NULL };
	static const char *const pf1p[] = { "threads", "2",    "iterations", "2", "size",
					    "4M",      "mode", "processes",  NULL };
	static const char *const ss[] = { "file-size", "8M", "rounds", "2", NULL };
	static const char *const as[] = { "size", "2M", "rounds", "2", NULL };
	static const char *const ds[] = { "size", "2M", "threads", "3", NULL };
	static const char *const sf[] = { "file-size", "8M", "rounds", "2", NULL };
	struct fl_result r;

	ASSERT_TRUE(run("page-fault1", pf1, true, 2, &r));
	fl_result_free(&r);
	ASSERT_TRUE(run("page-fault1", pf1p, true, 2, &r));
	fl_result_free(&r);
	ASSERT_TRUE(run("shmem-split", ss, true, 2, &r));
	fl_result_free(&r);
	ASSERT_TRUE(run("anon-split", as, true, 2, &r));
	fl_result_free(&r);
	ASSERT_TRUE(run("deferred-split", ds, true, 2, &r));
	ASSERT_EQ(fl_counters_get(&r.counters, "queue:hugepages-16kB/stats/split_deferred"),
		  3 * (2048 / 16)); /* 3 threads x 2 MiB of 16K folios */
	fl_result_free(&r);
	ASSERT_TRUE(run("shmem-fault", sf, true, 2, &r));
	fl_result_free(&r);
	return true;
}

/*
 * Every workload, one task: the sim's counters are the native run's,
 * counter for counter (faults, allocations, frees, flushes, splits, the
 * window counters), whatever the seed.
 */
static bool test_every_workload_same_as_native(void)
{
	static const char *const pf1[] = { "threads", "1", "iterations", "2", "size", "4M", NULL };
	static const char *const pf1p[] = { "threads", "1",    "iterations", "2", "size",
					    "4M",      "mode", "processes",  NULL };
	static const char *const ss[] = { "file-size", "8M", "rounds", "2", NULL };
	static const char *const ssp[] = {
		"file-size", "8M", "rounds", "2", "method", "punch", NULL
	};
	static const char *const as[] = { "size", "2M", "rounds", "2", NULL };
	static const char *const ds[] = { "size", "2M", "threads", "1", NULL };
	static const char *const sf[] = { "file-size", "8M", "rounds", "2", NULL };
	static const char *const sfp[] = {
		"file-size", "8M", "rounds", "2", "map", "private", NULL
	};
	static const struct {
		const char *wl;
		const char *const *p;
	} runs[] = { { "page-fault1", pf1 }, { "page-fault1", pf1p }, { "shmem-split", ss },
		     { "shmem-split", ssp }, { "anon-split", as },    { "deferred-split", ds },
		     { "shmem-fault", sf },  { "shmem-fault", sfp } };
	struct fl_result sim, native;
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		printf("# %s\n", runs[i].wl);
		ASSERT_TRUE(run(runs[i].wl, runs[i].p, true, 3 + i, &sim));
		ASSERT_TRUE(run(runs[i].wl, runs[i].p, false, 0, &native));
		ASSERT_TRUE(same_counters(&sim, &native));
		fl_result_free(&sim);
		fl_result_free(&native);
	}
	return true;
}

/* in picoseconds, the simulator's unit; whole nanoseconds, as the lock table counts */
enum { N = 4, K = 3, C = 100000, L = 15000, X = 80000 };

static const struct fl_lock_class test_class = { .name = "test->lock",
						 .rank = 50,
						 .kind = FL_LOCK_SPIN };
static const struct fl_lock_class test_mutex_class = { .name = "test->mutex",
						       .rank = 50,
						       .kind = FL_LOCK_MUTEX };
static struct fl_spinlock plock;

static void plock_task(void *arg)
{
	FL_LOCK_SITE_NAMED(site, "plock_task");
	int k;

	(void)arg;
	for (k = 0; k < K; k++) {
		fl_spin_lock_at(&plock, &site);
		fl_sim_charge(C);
		fl_spin_unlock(&plock);
	}
}

/*
 * The platform's own spinlock (the API mm/ uses) on virtual CPUs, with
 * the costs of a lock L and of a cache-line transfer X, nothing else:
 * waiters queue in order and the unlock hands over. The first holder pays
 * L + C. Every later one is handed the lock X after the release (the
 * queue's hand-off) and pays L, X for the lock word's line, which another
 * CPU wrote last, and C. Release j is so at R_j = L + C + j * (2X + L + C)
 * and the run ends at R_{N*K-1} = N*K*(L + C) + (N*K - 1) * 2X. Every
 * acquisition but the first is contended; acquisition j waits from its
 * arrival to R_{j-1} + X: the first N - 1 arrived at 0, every later one
 * at its own previous release, N - 1 holds earlier.
 *
 * (A mutex is not served in order: test_platform_mutex_sleeps.)
 */
static bool lock_in_virtual_time(const struct fl_lock_class *cls)
{
	struct fl_thread_handle *h[N];
	struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	uint64_t wait = 0, busy, saved[FL_NR_COSTS];
	int i, n, err = 0;

	memcpy(saved, fl__cost_ps, sizeof(saved));
	memset(fl__cost_ps, 0, sizeof(fl__cost_ps));
	fl__cost_ps[FL_COST_LOCK] = L;
	fl__cost_ps[FL_COST_CACHELINE] = X;
	ASSERT_EQ(fl__platform_init(N), 0);
	ASSERT_EQ(fl__sim_platform_start(21), 0);
	fl_spin_lock_init(&plock, cls);
	fl__lock_stats_reset();
	for (i = 0; i < N; i++) {
		h[i] = fl__thread_start(plock_task, NULL, i, -1, &err);
		ASSERT_TRUE(h[i] != NULL);
	}
	for (i = 0; i < N; i++)
		fl__thread_join(h[i]);
	memcpy(fl__cost_ps, saved, sizeof(saved));
	ASSERT_EQ(fl_sim_end_time(), (uint64_t)N * K * (L + C) + (uint64_t)(N * K - 1) * 2 * X);
	for (i = 1; i < N; i++) /* R_{j-1} + X */
		wait += (uint64_t)(L + C) + (uint64_t)(i - 1) * (2 * X + L + C) + X;
	wait += (uint64_t)(N * K - N) * ((N - 1) * (2 * X + L + C) + X);
	wait /= 1000; /* the lock table counts ns */
	n = fl__lock_stats_read(rows);
	for (i = 0; i < n && strcmp(rows[i].site, "plock_task"); i++)
		;
	ASSERT_TRUE(i < n);
	ASSERT_EQ(rows[i].st.acquired, (uint64_t)(N * K));
	ASSERT_EQ(rows[i].st.contended, (uint64_t)(N * K - 1));
	ASSERT_EQ(rows[i].st.wait_total_ns, wait);
	for (i = 0, busy = 0; i < N; i++)
		busy += fl_sim_cpu_busy(i);
	/* spinning is busy: every CPU busy until its last release */
	ASSERT_TRUE(busy > (uint64_t)N * K * (L + C) + (uint64_t)(N * K - 1) * X);
	fl__sim_platform_stop();
	fl__platform_exit();
	return true;
}

static bool test_platform_spinlock_in_virtual_time(void)
{
	return lock_in_virtual_time(&test_class);
}

/*
 * A mutex by 6.18's rules (lock.c, sim_mutex_wait()), two tasks A and B
 * taking it K = 3 times around C, a lock costing L, a line X and a
 * wake-up X (the hand-off time: no wakeup cost in force), X < L + C.
 * A takes it at 0 (its line nobody's) and B sleeps. A's release at
 * L + C wakes B for L + C + X; A, running on, takes the free lock again
 * (a steal, its own line), so B finds it held, asks for the hand-off and
 * sleeps first in line; A's release at 2(L + C) hands it to B one X
 * later, and A's third try sleeps. B runs its first hold to 3(L + C) + 2X
 * (L, the line X, C), whose release wakes A for 3X later while B steals
 * again to 4(L + C) + 2X, handing it to A (4(L + C) + 3X); B's third try
 * sleeps. A's last hold (with the line) ends at 5(L + C) + 4X and wakes
 * B, who takes the free lock at 5(L + C) + 5X and ends at 6(L + C) + 6X.
 * Contended: B's first (waited 2(L + C) + X), A's third (2(L + C) + 3X),
 * B's third ((L + C) + 3X); 2 steals, 2 hand-offs; the CPUs busy only for
 * their charges: 6(L + C) and 3 lines. Whichever task the seed starts.
 */
static bool test_platform_mutex_sleeps(void)
{
	struct fl_thread_handle *h[2];
	struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	uint64_t saved[FL_NR_COSTS], lc = L + C;
	int i, n, err = 0;

	memcpy(saved, fl__cost_ps, sizeof(saved));
	memset(fl__cost_ps, 0, sizeof(fl__cost_ps));
	fl__cost_ps[FL_COST_LOCK] = L;
	fl__cost_ps[FL_COST_CACHELINE] = X;
	ASSERT_EQ(fl__platform_init(2), 0);
	ASSERT_EQ(fl__sim_platform_start(21), 0);
	fl_spin_lock_init(&plock, &test_mutex_class);
	fl__lock_stats_reset();
	for (i = 0; i < 2; i++) {
		h[i] = fl__thread_start(plock_task, NULL, i, -1, &err);
		ASSERT_TRUE(h[i] != NULL);
	}
	for (i = 0; i < 2; i++)
		fl__thread_join(h[i]);
	memcpy(fl__cost_ps, saved, sizeof(saved));
	ASSERT_EQ(fl_sim_end_time(), 6 * lc + 6 * X);
	n = fl__lock_stats_read(rows);
	for (i = 0; i < n && strcmp(rows[i].site, "plock_task"); i++)
		;
	ASSERT_TRUE(i < n);
	ASSERT_EQ(rows[i].st.acquired, 6u);
	ASSERT_EQ(rows[i].st.contended, 3u);
	ASSERT_EQ(rows[i].st.wait_total_ns, (2 * lc + X + 2 * lc + 3 * X + lc + 3 * X) / 1000);
	ASSERT_EQ(rows[i].st.stolen, 2u);
	ASSERT_EQ(rows[i].st.handoffs, 2u);
	ASSERT_EQ(fl_sim_cpu_busy(0) + fl_sim_cpu_busy(1), 6 * lc + 3 * X);
	fl__sim_platform_stop();
	fl__platform_exit();
	return true;
}

/*
 * A collapse's charges (issue 33's item 2): MADV_COLLAPSE of 4 PMD ranges
 * faulted 4 KiB a page. Each range is looked at PTE by PTE (512 zap_pte,
 * the scan's look), copied (512 copy_page), its PTEs cleared with their
 * rmap (512 zap_pte, as a zap's), and pays one collapse for the rest; the
 * exit's zap of the 4 THPs one zap_pte each.
 */
static bool test_collapse_charges(void)
{
	static const char *const p[] = { "threads", "1",       "loops",	 "1",	     "size", "8M",
					 "vma",	    "private", "advice", "collapse", NULL };
	struct fl_result r;

	ASSERT_TRUE(run("lru-microbench", p, true, 0, &r));
	ASSERT_EQ(fl_counters_get(&r.counters, "thp_collapse_alloc"), 4);
	ASSERT_EQ(fl_counters_get(&r.counters, "fl_cost_collapse"), 4);
	ASSERT_EQ(fl_counters_get(&r.counters, "fl_cost_copy_page"), 4 * 512);
	ASSERT_EQ(fl_counters_get(&r.counters, "fl_cost_zap_pte"), 4 * 512 * 2 + 4);
	fl_result_free(&r);
	return true;
}

/*
 * fl_current_fn() (kthread_func(current)): each thread sees the function
 * it was started with, before and after its scheduling points (on sim
 * the two CPUs' tasks take turns there, and the value goes with each
 * task); the host thread sees NULL, also after the run.
 */
static fl_thread_fn seen_fn[4][2];
static void who_a(void *arg)
{
	intptr_t i = (intptr_t)arg;

	seen_fn[i][0] = fl_current_fn();
	fl_cpu_work(20000); /* sim: a scheduling point every 10 us */
	seen_fn[i][1] = fl_current_fn();
}

static void who_b(void *arg)
{
	who_a(arg); /* the same body; the thread's function is who_b */
}

static bool current_fn_on(bool sim)
{
	struct fl_thread_handle *h[4];
	int i, err = 0;

	memset(seen_fn, 0, sizeof(seen_fn));
	ASSERT_EQ(fl__platform_init(2), 0);
	if (sim)
		ASSERT_EQ(fl__sim_platform_start(3), 0);
	for (i = 0; i < 4; i++) {
		/* sim: two tasks a CPU, run together; native: one thread at a time */
		h[i] = fl__thread_start(i % 2 ? who_b : who_a, (void *)(intptr_t)i,
					sim ? i / 2 : i % 2, -1, &err);
		ASSERT_TRUE(h[i] != NULL);
		if (!sim) {
			fl__thread_join(h[i]);
			h[i] = NULL;
		}
	}
	for (i = 0; sim && i < 4; i++)
		fl__thread_join(h[i]);
	ASSERT_TRUE(fl_current_fn() == NULL);
	if (sim)
		fl__sim_platform_stop();
	fl__platform_exit();
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(seen_fn[i][0] == (i % 2 ? who_b : who_a));
		ASSERT_TRUE(seen_fn[i][1] == seen_fn[i][0]);
	}
	return true;
}

static bool test_current_fn(void)
{
	ASSERT_TRUE(fl_current_fn() == NULL);
	ASSERT_TRUE(current_fn_on(false));
	ASSERT_TRUE(current_fn_on(true));
	return true;
}

TEST_MAIN(TEST(test_one_thread_same_as_native), TEST(test_threads_rule_and_seed),
	  TEST(test_seed_changes_only_contention), TEST(test_every_workload_same_as_native),
	  TEST(test_tasks_share_a_cpu), TEST(test_platform_mutex_sleeps),
	  TEST(test_platform_spinlock_in_virtual_time), TEST(test_every_workload_runs),
	  TEST(test_collapse_charges), TEST(test_current_fn))
