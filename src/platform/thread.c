// SPDX-License-Identifier: GPL-2.0-only
/*
 * thread.c - native worker threads, each running as one model CPU.
 *
 * Conventions in this file: a handle owns its pthread until joined.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include "atomic.h"
#include "bug.h"
#include "platform.h"
#include "cost.h"
#include "sim.h"

struct fl_thread_handle {
	pthread_t tid;
	void (*fn)(void *);
	void *arg;
	int cpu;
	int pin;
	bool sim; /* a simulated task, not a pthread */
};

bool fl__sim_active;
static bool sim_pending; /* tasks spawned and not yet run */

/*
 * fl__sim_platform_start() - from now on, threads are simulated tasks on
 * this host thread, one per model CPU, seeded @seed. Return: 0 or -errno.
 */
int fl__sim_platform_start(uint64_t seed)
{
	/* a queued spinlock's hand-off moves its line (and the waiter's node) */
	int ret = fl_sim_init(fl__nr_cpu_ids, seed, fl__cost_ps[FL_COST_CACHELINE]);

	/* a sleeping lock's waiter runs a wake-up after its waker's release (0: not known) */
	if (!ret && fl__cost_ps[FL_COST_WAKEUP])
		fl_sim_set_wakeup(fl__cost_ps[FL_COST_WAKEUP]);
	if (!ret)
		fl__sim_active = true;
	return ret;
}

void fl__sim_platform_stop(void)
{
	if (!fl__sim_active)
		return;
	fl_sim_exit();
	fl__sim_active = false;
	sim_pending = false;
}

/* Switching into a task: this host thread's per-CPU state becomes the task's. */
void fl__sim_task_enter(int cpu, void *tls)
{
	fl__cpu_rebind(cpu);
	fl__witness_load(tls);
	fl__sim_holds_load((char *)tls + FL_SIM_TLS_WITNESS);
}

void fl__sim_task_leave(void *tls)
{
	fl__witness_save(tls);
	fl__sim_holds_save((char *)tls + FL_SIM_TLS_WITNESS);
	fl__cpu_rebind(-1);
}

/* One round of a wait loop in a simulated task: time passes, the others run. */
void fl__sim_spin_quantum(void)
{
	fl_sim_charge(FL_SIM_SPIN_PS);
}

/* A point in user mode: the tick may give the CPU to another task. */
void fl__sim_preempt_point(void)
{
	if (!fl_sim_in_task())
		return;
	BUG_ON(fl__sim_holds_n()); /* user mode holds no kernel lock */
	fl_sim_preempt();
}

static void sim_task_main(void *p)
{
	struct fl_thread_handle *h = p;

	h->fn(h->arg);
}

static void *thread_main(void *p)
{
	struct fl_thread_handle *h = p;

	if (h->pin >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(h->pin, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (fl_cpu_bind(h->cpu) != 0) {
		fprintf(stderr, "foliolab: model CPU %d is already bound\n", h->cpu);
		return NULL;
	}
	h->fn(h->arg);
	fl_cpu_unbind();
	return NULL;
}

struct fl_thread_handle *fl__thread_start(void (*fn)(void *), void *arg, int cpu, int pin_host_cpu,
					  int *err)
{
	struct fl_thread_handle *h = fl_calloc(1, sizeof(*h));
	int ret;

	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	h->cpu = cpu;
	h->pin = pin_host_cpu;
	if (fl__sim_active) {
		h->sim = true;
		ret = fl_sim_spawn(cpu, sim_task_main, h);
		if (ret) {
			fl_free(h);
			*err = ret;
			return NULL;
		}
		sim_pending = true;
		return h;
	}
	ret = pthread_create(&h->tid, NULL, thread_main, h);
	if (ret) {
		fl_free(h);
		*err = -ret;
		return NULL;
	}
	return h;
}

/*
 * Join: a simulated task's join runs the simulation of every task spawned
 * so far to its end (the first join does; the rest find theirs done).
 */
void fl__thread_join(struct fl_thread_handle *h)
{
	if (h->sim) {
		if (sim_pending) {
			sim_pending = false;
			if (fl_sim_run())
				fl__bug(__FILE__, __LINE__,
					"virtual CPUs: the simulated tasks wait for each other");
		}
		fl_free(h);
		return;
	}
	pthread_join(h->tid, NULL);
	fl_free(h);
}

bool fl__uniproc;

void fl__uniproc_begin(void)
{
	/* plain: nothing else runs model code; pthread_create() publishes it */
	fl__uniproc = true;
}

void fl__uniproc_end(void)
{
	fl__uniproc = false;
}

void fl_yield(void)
{
	if (fl__sim_active && fl_sim_in_task())
		fl__sim_spin_quantum();
	else
		sched_yield();
}

void fl_cpu_wait(unsigned int *spins)
{
	if (fl__sim_active && fl_sim_in_task()) {
		/*
		 * Look again after 20 ns, doubling to 640 ns: a long wait costs
		 * few scheduling points, and sees the change at most that late
		 */
		unsigned int shift = *spins < 5 ? *spins : 5;

		++*spins;
		fl_sim_charge((uint64_t)FL_SIM_SPIN_PS << shift);
		return;
	}
	/* the holder may be preempted: spin a little, then let it run */
	if (++*spins < 64)
		cpu_relax();
	else
		sched_yield();
}
