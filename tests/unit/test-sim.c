// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-sim.c - the virtual-CPU core (src/platform/sim.c): the lock model
 * against its known answer, determinism under a seed, sleeping and idle
 * time, a deadlock found, and a thousand CPUs.
 *
 * Mutexes and rwsems (sleeping locks) are held to answers worked out in
 * each case's comment: the same FIFO hand-offs, but a waiting CPU is idle
 * or runs another task.
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
#include <time.h>
#include "harness.h"
#include "../src/platform/sim/sim.h"
#include "../src/platform/cost.h"
#include "../src/platform/platform.h"

enum { N = 4, K = 3, C = 100, H = 10 };

/* the platform in force (platform.h), as fl__sim_platform_start() and stop set it */
static void use_sim(bool on)
{
	BUG_ON(fl__platform_set(on ? &fl__sim_ops : &fl__native_ops, on));
}

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
	fl_sim_exit(); /* a failed case may have left one */
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
	fl_sim_exit(); /* a failed case may have left one */
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
	fl_sim_exit(); /* a failed case may have left one */
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
	fl_sim_exit(); /* a failed case may have left one */
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

static struct fl_sim_mutex mutex;

static void mutex_locker(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < K; k++) {
		fl_sim_mutex_lock(&mutex);
		fl_sim_charge(C);
		fl_sim_mutex_unlock(&mutex);
	}
}

/*
 * The same N x K locking with a mutex: the same end time and contention
 * (waiters served in order, a hand-off each), but a waiter sleeps, so the
 * CPUs are busy only for their charges.
 */
static bool test_mutex_known_answer(void)
{
	uint64_t busy = 0;
	int i;

	memset(&mutex, 0, sizeof(mutex));
	fl_sim_exit(); /* a failed case may have left one */
	ASSERT_EQ(fl_sim_init(N, 5, H), 0);
	for (i = 0; i < N; i++)
		ASSERT_EQ(fl_sim_spawn(i, mutex_locker, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_end_time(), (uint64_t)(N * K * C + (N * K - 1) * H));
	ASSERT_EQ(mutex.st.acquired, (uint64_t)(N * K));
	ASSERT_EQ(mutex.st.contended, (uint64_t)(N * K - 1));
	for (i = 0; i < N; i++)
		busy += fl_sim_cpu_busy(i);
	ASSERT_EQ(busy, (uint64_t)(N * K * C));
	fl_sim_exit();
	return true;
}

static uint64_t b_waited;

static void mutex_sleeper(void *arg)
{
	(void)arg;
	fl_sim_mutex_lock(&mutex);
	fl_sim_sleep(100); /* holding it */
	fl_sim_mutex_unlock(&mutex);
}

static void mutex_waiter(void *arg)
{
	(void)arg;
	fl_sim_mutex_lock(&mutex);
	b_waited = fl_sim_now();
	fl_sim_charge(10);
	fl_sim_mutex_unlock(&mutex);
}

static void short_worker(void *arg)
{
	(void)arg;
	fl_sim_charge(30);
}

/*
 * Three tasks on one CPU, in queue order: A takes the mutex at 0 and
 * sleeps till 100 holding it; B finds it held at 0 and sleeps; C runs
 * 0..30; the CPU idles till A wakes at 100 and unlocks, which makes B able
 * to run at 100 + H = 110 (idle again till then); B runs 110..120.
 */
static bool test_mutex_waiter_gives_the_cpu_away(void)
{
	memset(&mutex, 0, sizeof(mutex));
	fl_sim_exit(); /* a failed case may have left one */
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, mutex_sleeper, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(0, mutex_waiter, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(0, short_worker, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(b_waited, 100ull + H);
	ASSERT_EQ(fl_sim_end_time(), 110ull + 10);
	ASSERT_EQ(fl_sim_cpu_busy(0), 40ull);
	ASSERT_EQ(fl_sim_cpu_idle(0), 70ull + H); /* 30..100 and 100..110 */
	ASSERT_EQ(mutex.st.wait_max, 100ull + H);
	fl_sim_exit();
	return true;
}

static struct fl_sim_rwsem rwsem;
static uint64_t w_got, r3_got;

static void reader(void *arg)
{
	(void)arg;
	fl_sim_down_read(&rwsem);
	fl_sim_charge(100);
	fl_sim_up_read(&rwsem);
}

static void writer(void *arg)
{
	(void)arg;
	fl_sim_charge(10);
	fl_sim_down_write(&rwsem);
	w_got = fl_sim_now();
	fl_sim_charge(50);
	fl_sim_up_write(&rwsem);
}

static void late_reader(void *arg)
{
	(void)arg;
	fl_sim_charge(20);
	fl_sim_down_read(&rwsem);
	r3_got = fl_sim_now();
	fl_sim_charge(100);
	fl_sim_up_read(&rwsem);
}

/*
 * Two readers hold the rwsem 0..100; a writer asks at 10 and waits; a
 * reader asking at 20 waits behind the writer (no reader passes once
 * others wait and readers hold it). The last holder's release at 100
 * wakes the writer (only a writer at the head), which takes the lock when
 * it runs, a wake-up W later; its release at 100 + W + 50 grants the late
 * reader the lock (readers are granted by the waker), which runs W later
 * and is done at 100 + W + 50 + W + 100. Nobody stole. W is the hand-off
 * H unless set (fl_sim_init()), and @wk where it is.
 */
static bool rwsem_case(uint64_t seed, uint64_t wk)
{
	uint64_t w = wk ? wk : H;

	memset(&rwsem, 0, sizeof(rwsem));
	fl_sim_exit(); /* a failed case may have left one */
	ASSERT_EQ(fl_sim_init(4, seed, H), 0);
	if (wk)
		fl_sim_set_wakeup(wk);
	ASSERT_EQ(fl_sim_spawn(0, reader, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(1, reader, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(2, writer, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(3, late_reader, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(w_got, 100ull + w);
	ASSERT_EQ(r3_got, 100ull + w + 50 + w);
	ASSERT_EQ(fl_sim_end_time(), 100ull + w + 50 + w + 100);
	ASSERT_EQ(rwsem.st.acquired, 4ull);
	ASSERT_EQ(rwsem.st.contended, 2ull);
	ASSERT_EQ(rwsem.st.wait_total, (100ull + w - 10) + (100ull + w + 50 + w - 20));
	ASSERT_EQ(rwsem.st.stolen, 0u);
	fl_sim_exit();
	return true;
}

static bool test_rwsem_known_answer(void)
{
	return rwsem_case(9, 0);
}

/*
 * Stealing and the hand-off (6.18's rwsem). The wake-up takes WK, a
 * hand-off H. A holds the lock from 0 for 1 ms at a time, 5 apart, ten
 * times. B asks at 10 and sleeps. Each release of A's wakes B, who runs
 * WK later; but A, running on, took the free lock back 5 after its
 * release (a steal), so B finds it held and sleeps again: at 1 ms + 5,
 * 2 ms + 10, 3 ms + 15 and 4 ms + 20. Woken at 4 ms + 15 + WK, B has
 * waited past RWSEM_WAIT_TIMEOUT (4 ms from 10): it asks for the lock,
 * A's next release (5 ms + 20) gives it to B, one hand-off later, and A's
 * next down_write (5 ms + 25) waits for B's release (10 later), running WK
 * after it. A ends its last 4 holds after that, uncontended.
 */
#define MS 1000000000ull /* ps */
#define WK 50
static uint64_t rw_b_got, rw_a_end;
static int rw_b_how;
static void rw_hog(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 10; i++) {
		fl_sim_down_write(&rwsem);
		fl_sim_charge(MS);
		fl_sim_up_write(&rwsem);
		fl_sim_charge(5);
	}
	rw_a_end = fl_sim_now();
}

static void rw_waiter(void *arg)
{
	(void)arg;
	fl_sim_charge(10);
	rw_b_how = fl_sim_down_write(&rwsem);
	rw_b_got = fl_sim_now();
	fl_sim_charge(10);
	fl_sim_up_write(&rwsem);
}

static bool test_rwsem_steal_and_handoff(void)
{
	uint64_t b_got = 5 * MS + 20 + H, a_back = b_got + 10 + WK;

	memset(&rwsem, 0, sizeof(rwsem));
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(2, 4, H), 0);
	fl_sim_set_wakeup(WK);
	ASSERT_EQ(fl_sim_spawn(0, rw_hog, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(1, rw_waiter, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(rw_b_got, b_got);
	ASSERT_EQ(rw_b_how, FL_SIM_LOCK_WAITED | FL_SIM_LOCK_HANDOFF);
	/* A's sixth hold starts at a_back; four more after it, each 1 ms + 5 */
	ASSERT_EQ(rw_a_end, a_back + 5 * (MS + 5));
	ASSERT_EQ(rwsem.st.acquired, 11u);
	ASSERT_EQ(rwsem.st.stolen, 4u);
	ASSERT_EQ(rwsem.st.handoffs, 1u);
	ASSERT_EQ(rwsem.st.contended, 2u); /* B once, A once (behind B) */
	fl_sim_exit();
	return true;
}

/* The same with a wake-up of its own, longer than the hand-off. */
static bool test_rwsem_readers_queue_and_are_granted(void)
{
	return rwsem_case(2, WK);
}

/*
 * Memory bandwidth (cost.c, fl_cost_mem()). CL is clear_page's cost; the
 * curve says one CPU clears 4 KiB in 34 units, 4 at once take 68 each and
 * 16 at once 466 each. N tasks on N CPUs that do nothing but clear see the
 * other N - 1 CPUs busy clearing all the time, so each clear costs
 * CL * curve(N) / curve(1) once their demand has built up (over about
 * 10 us of virtual time; the runs take milliseconds): N = 1: CL; N = 4:
 * 2 CL; N = 8, between the points 4 and 16: CL * (68 + (466 - 68) * 4 /
 * 12) / 34. Past the last point, the aggregate is spent: N = 32 costs
 * CL * 466 * 2 / 34. The same with 2 MiB clears (512 pages, each clear
 * many times the 10 us), and with CPUs that start 3 us apart (the last
 * one, measured, runs only while all run). Without a curve, nothing is
 * stretched.
 */
#define CL 100000ull	     /* 100 ns in ps */
#define BW_PAGES 20480	     /* a multiple of 512 */
static uint64_t bw_op_pages; /* pages a clear covers: 1, or 512 (a 2 MiB folio) */
static void clearer(void *arg)
{
	uint64_t done;

	/* CPU i starts i x 3 us late: clocks that differ must not blow the demand up */
	fl_sim_charge((uint64_t)(intptr_t)arg * 3000000);
	for (done = 0; done < BW_PAGES; done += bw_op_pages) {
		fl__cpu = fl_sim_cpu();
		fl_cost_mem(FL_COST_CLEAR_PAGE, 0, bw_op_pages);
		fl_sim_charge(0);
	}
}

/* the stretch of the last CPU to start, which runs only while all the others do */
static double bw_run(int n)
{
	int i;
	double t;

	fl_sim_exit();
	if (fl_sim_init(n, 1, H))
		return -1;
	for (i = 0; i < n; i++)
		if (fl_sim_spawn(i, clearer, (void *)(intptr_t)i))
			return -1;
	if (fl_sim_run())
		return -1;
	t = (double)fl_sim_cpu_busy(n - 1) - (double)(n - 1) * 3000000;
	fl_sim_exit();
	return t / BW_PAGES / (double)CL;
}

static bool near(double got, double want)
{
	if (got < want * 0.99 || got > want * 1.01)
		printf("# stretch %.4f, expected %.4f\n", got, want);
	return got >= want * 0.99 && got <= want * 1.01;
}

static bool test_bandwidth_known_answer(void)
{
	uint64_t saved = fl__cost_ps[FL_COST_CLEAR_PAGE];
	struct fl_bw_curve saved_bw = fl__bw_curve;
	bool saved_active = fl__sim_active;

	fl__cost_ps[FL_COST_CLEAR_PAGE] = CL;
	use_sim(true);
	fl__bw_curve = (struct fl_bw_curve){
		.mem = { .n = 3, .cpus = { 1, 4, 16 }, .ps = { 34, 68, 466 } }
	};
	fl__bw_limited = true;
	bw_op_pages = 1;
	ASSERT_TRUE(bw_run(1) == 1.0); /* alone: exactly the cost */
	ASSERT_TRUE(near(bw_run(4), 2.0));
	ASSERT_TRUE(near(bw_run(8), (68.0 + 398.0 * 4 / 12) / 34));
	ASSERT_TRUE(near(bw_run(32), 466.0 * 2 / 34));
	/* 2 MiB folios, each clear far longer than 10 us: the same answers */
	bw_op_pages = 512;
	ASSERT_TRUE(near(bw_run(8), (68.0 + 398.0 * 4 / 12) / 34));
	ASSERT_TRUE(near(bw_run(32), 466.0 * 2 / 34));
	bw_op_pages = 1;
	fl__bw_curve.mem.n = 0;
	fl__bw_limited = false;
	ASSERT_TRUE(bw_run(8) == 1.0);
	fl__bw_curve = saved_bw;
	fl__bw_limited = saved_bw.mem.n + saved_bw.llc.n >= 2;
	fl__cost_ps[FL_COST_CLEAR_PAGE] = saved;
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * The LLC rule (cost.c): a clear meets the LLC's curve when fewer than
 * llc.bytes were cleared machine-wide since its page last was, memory's
 * otherwise. Alone on one CPU, memory's 300 units a page against the
 * LLC's 100 make a cold clear cost 3 CL, a hot one CL. The LLC holds 64
 * pages. Frames 0..31 never written: 32 cold; again: 32 hot (31 clears
 * between); 0..127: 0..31 hot (32 between), 32..127 cold; 0..31 once more:
 * 127 clears since frame 0 was, so all cold. In all 32 x 3 + 32 + 32 +
 * 96 x 3 + 32 x 3 = 544 CL. A new simulation starts with nothing in the
 * LLC: 0..31 again, 96 CL.
 */
static const unsigned int llc_passes[][2] = { { 0, 32 }, { 0, 32 }, { 0, 128 }, { 0, 32 } };
static void llc_clearer(void *arg)
{
	size_t p;

	fl__cpu = fl_sim_cpu();
	for (p = 0; p < (arg ? 1 : sizeof(llc_passes) / sizeof(llc_passes[0])); p++) {
		unsigned long pfn;

		for (pfn = llc_passes[p][0]; pfn < llc_passes[p][1]; pfn++)
			fl_cost_mem(FL_COST_CLEAR_PAGE, pfn, 1);
		fl_sim_charge(0);
	}
}

static bool test_bandwidth_llc(void)
{
	uint64_t saved = fl__cost_ps[FL_COST_CLEAR_PAGE];
	struct fl_bw_curve saved_bw = fl__bw_curve;
	struct fl_page_clears saved_clears = fl__page_cleared;
	bool saved_active = fl__sim_active;
	uint32_t at[256] = { 0 };

	fl__cost_ps[FL_COST_CLEAR_PAGE] = CL;
	use_sim(true);
	fl__bw_curve = (struct fl_bw_curve){ .mem = { .n = 1, .cpus = { 1 }, .ps = { 300 } },
					     .llc = { .n = 1, .cpus = { 1 }, .ps = { 100 } },
					     .llc_bytes = 64 * 4096 };
	fl__bw_limited = true;
	fl__page_cleared = (struct fl_page_clears){ .at = at, .nr = 256 };
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, llc_clearer, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_cpu_busy(0), 544 * CL);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, llc_clearer, (void *)1), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_cpu_busy(0), 96 * CL);
	fl_sim_exit();
	/* without the LLC's size every clear meets memory's curve */
	fl__bw_curve.llc_bytes = 0;
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, llc_clearer, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_cpu_busy(0), 224 * 3 * CL);
	fl_sim_exit();
	fl__page_cleared = saved_clears;
	fl__bw_curve = saved_bw;
	fl__bw_limited = saved_bw.mem.n + saved_bw.llc.n >= 2;
	fl__cost_ps[FL_COST_CLEAR_PAGE] = saved;
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * fl_cpu_work() (clock.c): on sim, exactly the work asked as the task's
 * CPU time, given in slices that keep the CPUs' clocks together. CPU 0
 * works 1 ms and then clears; CPU 1 clears 5000 pages (0.5 ms) from time
 * 0, so it clears alone and each of its clears costs exactly CL. Were the
 * work charged in one lump, CPU 0 would add its clearing demand at 1 ms
 * while CPU 1 is still near 0, and CPU 1 would see it as current. Off
 * sim, the calling thread has used at least the time asked.
 */
static void worker_then_clear(void *arg)
{
	uint64_t i, pages = (uint64_t)(intptr_t)arg;

	if (fl_sim_cpu() == 0)
		fl_cpu_work(1000000);
	for (i = 0; i < pages; i++) {
		fl__cpu = fl_sim_cpu();
		fl_cost_mem(FL_COST_CLEAR_PAGE, 0, 1);
		fl_sim_charge(0);
	}
}

static void work_alone(void *arg)
{
	(void)arg;
	fl_cpu_work(12345);
}

static bool test_cpu_work(void)
{
	uint64_t saved = fl__cost_ps[FL_COST_CLEAR_PAGE];
	struct fl_bw_curve saved_bw = fl__bw_curve;
	bool saved_active = fl__sim_active;
	struct timespec a, b;

	fl__cost_ps[FL_COST_CLEAR_PAGE] = CL;
	use_sim(true);
	fl__bw_curve = (struct fl_bw_curve){
		.mem = { .n = 3, .cpus = { 1, 4, 16 }, .ps = { 34, 68, 466 } }
	};
	fl__bw_limited = true;
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, work_alone, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_cpu_busy(0), 12345000ull); /* ns asked, in ps */
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(2, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, worker_then_clear, (void *)(intptr_t)100), 0);
	ASSERT_EQ(fl_sim_spawn(1, worker_then_clear, (void *)(intptr_t)5000), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(fl_sim_cpu_busy(1), 5000 * CL);
	ASSERT_TRUE(fl_sim_cpu_busy(0) >= 1000000000ull + 100 * CL);
	fl_sim_exit();
	fl__bw_curve = saved_bw;
	fl__bw_limited = saved_bw.mem.n + saved_bw.llc.n >= 2;
	fl__cost_ps[FL_COST_CLEAR_PAGE] = saved;
	use_sim(false);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	fl_cpu_work(2000000); /* 2 ms of this thread's CPU time */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	ASSERT_TRUE((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec) >= 2000000);
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * The tick (FL_SIM_TICK_PS, 4 ms): two tasks on one CPU, each 10 ms of
 * user-mode work. A runs 0..4, B 4..8, A 8..12, B 12..16, A 16..18 (done),
 * B 18..20: four preemptions, none once a task is alone.
 */
static uint64_t tick_end[2];
static void tick_worker(void *arg)
{
	fl_cpu_work(10000000);
	tick_end[(intptr_t)arg] = fl_sim_now();
}

static bool test_tick_preemption(void)
{
	bool saved_active = fl__sim_active;

	use_sim(true);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(1, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, tick_worker, (void *)(intptr_t)0), 0);
	ASSERT_EQ(fl_sim_spawn(0, tick_worker, (void *)(intptr_t)1), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_EQ(tick_end[0], 18 * 1000000000ull);
	ASSERT_EQ(tick_end[1], 20 * 1000000000ull);
	ASSERT_EQ(fl_sim_preemptions(), 4u);
	ASSERT_EQ(fl_sim_cpu_busy(0), 20 * 1000000000ull);
	fl_sim_exit();
	use_sim(saved_active);
	return true;
}

/*
 * A line table (cost.h): a write by the line's last writer is free, by
 * another CPU one transfer; a new simulation starts with no owners.
 */
static int line_order[] = { 0, 0, 1, 0, 1, 1, 2 };
static unsigned int line_claims;
static void line_writer(void *arg)
{
	static uint16_t owners[4];
	static struct fl_line_table t = { .cpu = owners, .nr = 4 };
	int i, me = (int)(intptr_t)arg;

	for (i = 0; i < (int)(sizeof(line_order) / sizeof(line_order[0])); i++) {
		fl_sim_charge(10); /* the turns go in time order: step i at time 10 (i + 1) */
		if (line_order[i] != me)
			continue;
		fl__cpu = me;
		line_claims = line_claims << 1 | fl__line_table_claim(&t, 2);
	}
}

static bool test_line_table(void)
{
	bool saved_active = fl__sim_active;
	int i;

	use_sim(true);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(3, 1, H), 0);
	line_claims = 0;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(fl_sim_spawn(i, line_writer, (void *)(intptr_t)i), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	fl_sim_exit();
	/*
	 * writers 0 (nobody before: free), 0 (its own: free), 1, 0, 1 (each
	 * another's: a transfer), 1 (its own), 2 (another's): 0 0 1 1 1 0 1
	 */
	ASSERT_EQ(line_claims, 0x1du);
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * A line written by many CPUs with no lock around it (cost.c,
 * fl__cacheline_take()): each write from another CPU than the line's last
 * writer is one transfer of X, and transfers of one line do not overlap,
 * however the tasks interleave. Known answer: four CPUs each write it once
 * at time 0: the first finds nobody's line (free), the second pays X, the
 * third waits for the second's transfer and pays X (2X), the fourth 3X;
 * the run ends at 3X, the waits 0 + X + 2X. The bound: eight CPUs writing
 * it 200 times each, a charge of X / 10 apart, make at least one transfer
 * per X of virtual time, never more: end >= transfers x X; and the line
 * is the only thing they wait for, so end <= transfers x X + 200 x X / 10.
 */
#define LINE_X 100000ull /* ps */
static struct fl_cacheline hot_line;
static int hot_writes;
static uint64_t hot_end[8];
static void hot_writer(void *arg)
{
	int i;

	fl__cpu = fl_sim_cpu();
	for (i = 0; i < hot_writes; i++) {
		fl__cacheline_take(&hot_line);
		fl_sim_charge(hot_writes > 1 ? LINE_X / 10 : 0);
		fl__cpu = fl_sim_cpu();
	}
	hot_end[(intptr_t)arg] = fl_sim_now();
}

static bool run_hot_writers(int n, int writes)
{
	int i;

	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(n, 3, H), 0);
	memset(&hot_line, 0, sizeof(hot_line));
	hot_writes = writes;
	for (i = 0; i < n; i++)
		ASSERT_EQ(fl_sim_spawn(i, hot_writer, (void *)(intptr_t)i), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	return true;
}

static bool test_line_queues(void)
{
	bool saved_active = fl__sim_active;
	uint64_t saved_x = fl__cost_ps[FL_COST_CACHELINE], c0, w0, wt0, transfers;

	use_sim(true);
	fl__cost_ps[FL_COST_CACHELINE] = LINE_X;
	c0 = fl__cost_count[FL_COST_CACHELINE];
	w0 = fl__line_waits;
	wt0 = fl__line_wait_time;
	ASSERT_TRUE(run_hot_writers(4, 1));
	ASSERT_EQ(fl_sim_end_time(), 3 * LINE_X);
	ASSERT_EQ(fl__cost_count[FL_COST_CACHELINE] - c0, 3u);
	ASSERT_EQ(fl__line_waits - w0, 2u);
	ASSERT_EQ(fl__line_wait_time - wt0, 3 * LINE_X);
	fl_sim_exit();
	c0 = fl__cost_count[FL_COST_CACHELINE];
	ASSERT_TRUE(run_hot_writers(8, 200));
	transfers = fl__cost_count[FL_COST_CACHELINE] - c0;
	ASSERT_TRUE(transfers > 8 * 200 / 2); /* they do take turns */
	ASSERT_TRUE(fl_sim_end_time() >= transfers * LINE_X);
	ASSERT_TRUE(fl_sim_end_time() <= transfers * LINE_X + 200 * LINE_X / 10);
	fl_sim_exit();
	fl__cost_ps[FL_COST_CACHELINE] = saved_x;
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * An interrupt on another CPU (fl_sim_interrupt(), a shootdown's
 * receiver): CPU 0's task sends one of 40 to CPU 1 at 10 and to CPU 2 at
 * 10; CPU 1's task, charging 100 at a time, takes it at its next
 * scheduling point: its three charges end at 340, not 300. CPU 2's task
 * sleeps 0..1000: the CPU was idle (nothing on it), so nothing is taken
 * and it ends at 1000; nor does a CPU take its own.
 */
static bool irq_taken[3];
static uint64_t irq_end[3];
static void irq_sender(void *arg)
{
	(void)arg;
	fl_sim_charge(10);
	irq_taken[1] = fl_sim_interrupt(1, 40);
	irq_taken[2] = fl_sim_interrupt(2, 40);
	irq_taken[0] = fl_sim_interrupt(0, 40);
	irq_end[0] = fl_sim_now();
}

static void irq_worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++)
		fl_sim_charge(100);
	irq_end[1] = fl_sim_now();
}

static void irq_sleeper(void *arg)
{
	(void)arg;
	fl_sim_sleep(1000);
	irq_end[2] = fl_sim_now();
}

static bool test_interrupt_on_another_cpu(void)
{
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(3, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, irq_sender, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(1, irq_worker, NULL), 0);
	ASSERT_EQ(fl_sim_spawn(2, irq_sleeper, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_TRUE(irq_taken[1] && !irq_taken[2] && !irq_taken[0]);
	ASSERT_EQ(irq_end[0], 10u);
	ASSERT_EQ(irq_end[1], 340u);
	ASSERT_EQ(fl_sim_cpu_busy(1), 340u);
	ASSERT_EQ(irq_end[2], 1000u);
	fl_sim_exit();
	return true;
}

/*
 * XArray nodes in a CPU's cache (cost.c, fl_cost_xa_node()): a node among
 * the last FL_XA_HOT_NODES this CPU visited costs xa_node_hot, another
 * xa_node and takes the oldest one's place; each CPU has its own.
 */
static char xa_nodes[FL_XA_HOT_NODES + 1][64];
static uint64_t xa_cold, xa_hot_n;
static void xa_visitor(void *arg)
{
	int i, cpu = (int)(intptr_t)arg;
	uint64_t c0, h0;

	fl__cpu = fl_sim_cpu();
	fl_sim_charge((uint64_t)cpu * 1000000); /* one after the other */
	c0 = fl__cost_count[FL_COST_XA_NODE];
	h0 = fl__cost_count[FL_COST_XA_NODE_HOT];
	for (i = 0; i < FL_XA_HOT_NODES; i++) /* first visits: all cold */
		fl_cost_xa_node(xa_nodes[i]);
	for (i = 0; i < FL_XA_HOT_NODES; i++) /* again: all hot */
		fl_cost_xa_node(xa_nodes[i]);
	fl_cost_xa_node(xa_nodes[FL_XA_HOT_NODES]); /* a ninth: cold, the first goes */
	fl_cost_xa_node(xa_nodes[0]);		    /* so the first is cold again */
	fl_cost_xa_node(xa_nodes[2]);		    /* the third stayed: hot */
	xa_cold += fl__cost_count[FL_COST_XA_NODE] - c0;
	xa_hot_n += fl__cost_count[FL_COST_XA_NODE_HOT] - h0;
	fl_sim_charge(0);
}

static bool test_xa_hot_nodes(void)
{
	bool saved_active = fl__sim_active;
	int i;

	use_sim(true);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(2, 1, H), 0);
	xa_cold = xa_hot_n = 0;
	for (i = 0; i < 2; i++) /* the same nodes on two CPUs: each its own cache */
		ASSERT_EQ(fl_sim_spawn(i, xa_visitor, (void *)(intptr_t)i), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	fl_sim_exit();
	ASSERT_EQ(xa_cold, 2u * (FL_XA_HOT_NODES + 2));
	ASSERT_EQ(xa_hot_n, 2u * (FL_XA_HOT_NODES + 1));
	use_sim(saved_active);
	fl__cpu = -1;
	return true;
}

/*
 * fl_sim_wait_timeout(): a sleeper the waker reaches in time runs from the
 * waker's time (woken: true); one nobody wakes runs when its time is up
 * (false), its CPU idle meanwhile; the wait queue is empty after both.
 */
static struct fl_sim_waitq wq;
static uint64_t tw_at[2];
static bool woke[2];

static void timed_sleeper(void *arg)
{
	int i = (int)(long)arg;

	woke[i] = fl_sim_wait_timeout(&wq, i ? 300 : 1000);
	tw_at[i] = fl_sim_now();
}

static void waker(void *arg)
{
	(void)arg;
	fl_sim_charge(500);
	fl_sim_wake_all(&wq);
}

static bool test_wait_timeout(void)
{
	fl_sim_exit(); /* a failed case may have left one */
	memset(&wq, 0, sizeof(wq));
	ASSERT_EQ(fl_sim_init(2, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, timed_sleeper, (void *)0l), 0);
	ASSERT_EQ(fl_sim_spawn(1, waker, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_TRUE(woke[0]);
	ASSERT_EQ(tw_at[0], 500); /* the waker's time, not 1000 */
	ASSERT_TRUE(wq.head == NULL && wq.timed == NULL);
	fl_sim_exit();
	ASSERT_EQ(fl_sim_init(2, 1, H), 0);
	ASSERT_EQ(fl_sim_spawn(0, timed_sleeper, (void *)1l), 0);
	ASSERT_EQ(fl_sim_spawn(1, waker, NULL), 0);
	ASSERT_EQ(fl_sim_run(), 0);
	ASSERT_TRUE(!woke[1]);
	ASSERT_EQ(tw_at[1], 300);	  /* the time ran out before the wake-up */
	ASSERT_EQ(fl_sim_cpu_busy(0), 0); /* asleep, not spinning */
	ASSERT_TRUE(wq.head == NULL && wq.timed == NULL);
	fl_sim_exit();
	return true;
}

TEST_MAIN(TEST(test_wait_timeout), TEST(test_cpu_work), TEST(test_tick_preemption),
	  TEST(test_bandwidth_known_answer), TEST(test_bandwidth_llc), TEST(test_xa_hot_nodes),
	  TEST(test_line_table), TEST(test_line_queues), TEST(test_interrupt_on_another_cpu),
	  TEST(test_lock_known_answer), TEST(test_seed_decides_only_ties),
	  TEST(test_mutex_known_answer), TEST(test_mutex_waiter_gives_the_cpu_away),
	  TEST(test_rwsem_known_answer), TEST(test_rwsem_steal_and_handoff),
	  TEST(test_rwsem_readers_queue_and_are_granted), TEST(test_sleep_gives_the_cpu_away),
	  TEST(test_deadlock_found), TEST(test_a_thousand_cpus))
