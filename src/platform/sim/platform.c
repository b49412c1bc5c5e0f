// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim/platform.c - the virtual-CPU platform's table of operations, and its
 * start and stop: threads are simulated tasks (sim.c) spawned on their
 * CPUs' run queues and run by the first join; the clock is the running
 * task's CPU's; work and waits are virtual time charged to the task.
 *
 * The host thread itself (between runs, setting up and reading back)
 * runs outside every task: its waits are the native platform's, and its
 * clock is the time the last task ended.
 *
 * Conventions in this file: a handle owns nothing but itself; the tasks
 * are the simulator's.
 */
#include <errno.h>
#include "../lock.h"
#include "sim.h"

struct fl_thread_handle {
	void (*fn)(void *);
	void *arg;
};

static bool tasks_pending; /* tasks spawned and not yet run */

/* Switched to virtual time when a run starts; the stop puts native back. */
int fl__sim_platform_start(uint64_t seed)
{
	/* a queued spinlock's hand-off moves its line (and the waiter's node) */
	int ret = fl_sim_init(fl__nr_cpu_ids, seed, fl__cost_ps[FL_COST_CACHELINE]);

	/* a sleeping lock's waiter runs a wake-up after its waker's release (0: not known) */
	if (!ret && fl__cost_ps[FL_COST_WAKEUP])
		fl_sim_set_wakeup(fl__cost_ps[FL_COST_WAKEUP]);
	if (!ret) {
		ret = fl__platform_set(&fl__sim_ops, true);
		if (ret)
			fl_sim_exit();
	}
	return ret;
}

void fl__sim_platform_stop(void)
{
	if (!fl__sim_active)
		return;
	fl_sim_exit();
	/* the text was writable at the start, so it is at the end */
	(void)fl__platform_set(&fl__native_ops, false);
	tasks_pending = false;
}

static void task_main(void *p)
{
	struct fl_thread_handle *h = p;

	fl__current_fn = h->fn; /* the task's: sim.c switches it with the task */
	h->fn(h->arg);
}

static struct fl_thread_handle *thread_start(void (*fn)(void *), void *arg, int cpu,
					     int pin_host_cpu, int *err)
{
	struct fl_thread_handle *h = fl_calloc(1, sizeof(*h));
	int ret;

	(void)pin_host_cpu; /* every task runs on this host thread */
	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	ret = fl_sim_spawn(cpu, task_main, h);
	if (ret) {
		fl_free(h);
		*err = ret;
		return NULL;
	}
	tasks_pending = true;
	return h;
}

/*
 * Join: runs the simulation of every task spawned so far to its end (the
 * first join does; the rest find theirs done).
 */
static void thread_join(struct fl_thread_handle *h)
{
	if (tasks_pending) {
		tasks_pending = false;
		if (fl_sim_run())
			fl__bug(__FILE__, __LINE__,
				"virtual CPUs: the simulated tasks wait for each other");
	}
	fl_free(h);
}

/*
 * Virtual time (the simulator counts picoseconds): a task's CPU's clock;
 * outside the tasks, the time the last of them ended
 */
static uint64_t clock_ns(void)
{
	return (fl_sim_in_task() ? fl_sim_now() : fl_sim_end_time()) / 1000;
}

#define CPU_WORK_SLICE_NS 10000

/*
 * In slices of 10 us, each a scheduling point: the CPUs' clocks stay as
 * close as the kernel costs keep them, which the shared memory bandwidth
 * (cost.c) needs: demand another CPU adds in its future would otherwise
 * look current
 */
static void cpu_work(uint64_t ns)
{
	if (!ns)
		return;
	if (!fl_sim_in_task()) {
		fl__native_ops.cpu_work(ns);
		return;
	}
	while (ns) {
		uint64_t slice = ns < CPU_WORK_SLICE_NS ? ns : CPU_WORK_SLICE_NS;

		fl_sim_charge(slice * 1000);
		fl__sim_preempt_point(); /* user mode: the tick may switch */
		ns -= slice;
	}
}

/*
 * Look again after 20 ns, doubling to 640 ns: a long wait costs few
 * scheduling points, and sees the change at most that late
 */
static void cpu_wait(unsigned int *spins)
{
	unsigned int shift = *spins < 5 ? *spins : 5;

	if (!fl_sim_in_task()) {
		fl__native_ops.cpu_wait(spins);
		return;
	}
	++*spins;
	fl_sim_charge((uint64_t)FL_SIM_SPIN_PS << shift);
}

/* One round of a wait loop: time passes, the others run. */
static void yield(void)
{
	if (fl_sim_in_task())
		fl_sim_charge(FL_SIM_SPIN_PS);
	else
		fl__native_ops.yield();
}

/* one host thread: every simulated CPU sees every store */
static void membarrier(void)
{
}

const struct fl_platform_ops fl__sim_ops = {
	.name = "sim",
	.clock_ns = clock_ns,
	.cpu_work = cpu_work,
	.cpu_wait = cpu_wait,
	.yield = yield,
	.membarrier = membarrier,
	.thread_start = thread_start,
	.thread_join = thread_join,
	.word_wait = fl__sim_word_wait,
	.waitq_sleep = fl__sim_waitq_sleep,
	.waitq_sleep_timeout = fl__sim_waitq_sleep_timeout,
	.waitq_wake_all = fl__sim_waitq_wake_all,
	.rwsem_lock = fl__sim_rwsem_lock,
	.rwsem_read_trylock = fl__sim_rwsem_read_trylock,
	.rwsem_unlock = fl__sim_rwsem_unlock,
	.rwsem_downgrade = fl__sim_rwsem_downgrade,
};
