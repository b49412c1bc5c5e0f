// SPDX-License-Identifier: GPL-2.0-only
/*
 * native/thread.c - worker threads, each running as one model CPU; the
 * waits that give the host CPU away; the membarrier.
 *
 * Conventions in this file: a handle owns its pthread until joined.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include "../atomic.h"
#include "native.h"

struct fl_thread_handle {
	pthread_t tid;
	void (*fn)(void *);
	void *arg;
	int cpu;
	int pin;
};

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
	fl__current_fn = h->fn;
	h->fn(h->arg);
	fl__current_fn = NULL;
	fl_cpu_unbind();
	return NULL;
}

struct fl_thread_handle *fl__native_thread_start(void (*fn)(void *), void *arg, int cpu,
						 int pin_host_cpu, int *err)
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
	ret = pthread_create(&h->tid, NULL, thread_main, h);
	if (ret) {
		fl_free(h);
		*err = -ret;
		return NULL;
	}
	return h;
}

void fl__native_thread_join(struct fl_thread_handle *h)
{
	pthread_join(h->tid, NULL);
	fl_free(h);
}

void fl__native_yield(void)
{
	sched_yield();
}

void fl__native_cpu_wait(unsigned int *spins)
{
	/* the holder may be preempted: spin a little, then let it run */
	if (++*spins < 64)
		cpu_relax();
	else
		sched_yield();
}

void fl__native_membarrier(void)
{
	if (fl__membarrier_ok)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	else
		smp_mb();
}
