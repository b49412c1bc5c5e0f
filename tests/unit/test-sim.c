// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-sim.c - the virtual-CPU core (src/platform/sim.c): the lock model
 * against its known answer, determinism under a seed, sleeping and idle
 * time, a deadlock found, and a thousand CPUs.
 *
 * The known answer: N tasks on N CPUs each take one spinlock K times
 * around a charge of C. Waiters are served in order and each transfer to
 * a waiter costs H, so the lock is never free while anyone waits: the run
 * takes N*K*C + (N*K - 1)*H of virtual time, every acquisition but the
 * first finds the lock held, the first N - 1 wait j*(C + H) (j = 1..N-1)
 * and every later one N*(C + H) - C (it asked at its own release, N
 * sections earlier). Whatever the seed.
 *
 * Conventions in this file: times are virtual nanoseconds.
 */
#include <errno.h>
#include "harness.h"
#include "../src/platform/sim.h"

enum { N = 4, K = 3, C = 100, H = 10 };

static struct fl_sim_spinlock lock;
static int order[N * K]; /* the task of each acquisition, in order */
static int nr_order;

static void locker(void *arg)
{
	int id = (int)(intptr_t)arg, k;

	for (k = 0; k < K; k++) {
		fl_sim_spin_lock(&lock);
		order[nr_order++] = id;
		fl_sim_charge(C);
		fl_sim_spin_unlock(&lock);
	}
}

/* Run the N x K locking on a fresh simulator seeded @seed. */
static bool run_lockers(uint64_t seed)
{
	int i;

	memset(&lock, 0, sizeof(lock));
	nr_order = 0;
	ASSERT_EQ(fl_sim_init(N, seed, H), 0);
	for (i = 0; i < N; i++)
		ASSERT_EQ(fl_sim_spawn(i, locker, (void *)(intptr_t)i), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	return true;
}

static bool test_lock_known_answer(void)
{
	uint64_t wait = 0, busy = 0;
	int j, i;

	for (j = 1; j < N; j++)
		wait += (uint64_t)j * (C + H);
	wait += (uint64_t)(N * K - N) * (N * (C + H) - C);
	ASSERT_TRUE(run_lockers(1));
	ASSERT_EQ(fl_sim_end_time(), (uint64_t)(N * K * C + (N * K - 1) * H));
	ASSERT_EQ(lock.acquired, (uint64_t)(N * K));
	ASSERT_EQ(lock.contended, (uint64_t)(N * K - 1));
	ASSERT_EQ(lock.wait_total, wait);
	ASSERT_EQ(lock.wait_max, (uint64_t)(N * (C + H) - C));
	/* a CPU is busy while it charges and while it spins */
	for (i = 0; i < N; i++)
		busy += fl_sim_cpu_busy(i);
	ASSERT_EQ(busy, (uint64_t)(N * K * C) + wait);
	/* round robin: every round serves each task once, in the first round's order */
	for (j = N; j < N * K; j++)
		ASSERT_EQ(order[j], order[j - N]);
	fl_sim_exit();
	return true;
}

/* The same seed: the same order; other seeds: other orders, the same times. */
static bool test_seed_decides_only_ties(void)
{
	int first[N * K], s, differ = 0;

	ASSERT_TRUE(run_lockers(7));
	memcpy(first, order, sizeof(first));
	fl_sim_exit();
	ASSERT_TRUE(run_lockers(7));
	ASSERT_EQ(memcmp(first, order, sizeof(first)), 0);
	fl_sim_exit();
	for (s = 1; s <= 10; s++) {
		ASSERT_TRUE(run_lockers((uint64_t)s));
		differ += memcmp(first, order, sizeof(first)) != 0;
		ASSERT_EQ(fl_sim_end_time(), (uint64_t)(N * K * C + (N * K - 1) * H));
		ASSERT_EQ(lock.contended, (uint64_t)(N * K - 1));
		fl_sim_exit();
	}
	ASSERT_GT(differ, 0);
	return true;
}

static uint64_t woke_at;

static void sleeper(void *arg)
{
	(void)arg;
	fl_sim_charge(100);
	fl_sim_sleep(1000);
	woke_at = fl_sim_now();
	fl_sim_charge(50);
}

static void worker(void *arg)
{
	(void)arg;
	fl_sim_charge(300);
}

/*
 * Two tasks on one CPU: the sleeper runs 0..100 and sleeps till 1100; the
 * worker gets the CPU 100..400; the CPU idles 400..1100; the sleeper runs
 * 1100..1150.
 */
static bool test_sleep_gives_the_cpu_away(void)
{
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, sleeper, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(0, worker, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(woke_at, 1100ull); /* at its time: the CPU was idle by then */
	ASSERT_EQ(fl_sim_end_time(), 1150ull);
	ASSERT_EQ(fl_sim_cpu_busy(0), 450ull);
	ASSERT_EQ(fl_sim_cpu_idle(0), 700ull);
	fl_sim_exit();
	return true;
}

static void holder(void *arg)
{
	(void)arg;
	fl_sim_spin_lock(&lock); /* and never lets go */
	fl_sim_charge(10);
}

static void waiter(void *arg)
{
	(void)arg;
	fl_sim_charge(5);
	fl_sim_spin_lock(&lock);
}

static bool test_deadlock_found(void)
{
	memset(&lock, 0, sizeof(lock));
	ASSERT_EQ(fl_sim_init(2, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, holder, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(1, waiter, NULL), 0);
	ASSERT_EQ(fl_sim_run(), -EDEADLK);
	fl_sim_exit();
	return true;
}

static uint64_t sum; /* checked after the run */

static void counter_task(void *arg)
{
	int i;

	for (i = 0; i < 10; i++) {
		sum += (uint64_t)(intptr_t)arg;
		fl_sim_charge(1 + (uint64_t)(intptr_t)arg % 3);
	}
}

/* 1024 CPUs, a task each: every task runs, the clocks end where their charges say. */
static bool test_a_thousand_cpus(void)
{
	uint64_t expect = 0;
	int i;

	sum = 0;
	ASSERT_EQ(fl_sim_init(1024, 3, H), 0);
	for (i = 0; i < 1024; i++) {
		ASSERT_EQ(fl_sim_spawn(i, counter_task, (void *)(intptr_t)i), 0);
		expect += 10 * (uint64_t)i;
	}
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(sum, expect);
	ASSERT_EQ(fl_sim_end_time(), 30ull);
	ASSERT_EQ(fl_sim_cpu_busy(0), 10ull);
	ASSERT_EQ(fl_sim_cpu_idle(0), 20ull);
	ASSERT_EQ(fl_sim_init(0, 1, H), -EINVAL);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(1025, 1, H), -EINVAL);
	return true;
}

TEST_MAIN(TEST(test_lock_known_answer), TEST(test_seed_decides_only_ties),
	  TEST(test_sleep_gives_the_cpu_away), TEST(test_deadlock_found),
	  TEST(test_a_thousand_cpus))
