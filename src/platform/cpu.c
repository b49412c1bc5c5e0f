// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpu.c - model CPU identity, on both platforms (a simulated task binds
 * its CPU at each switch: fl__cpu_rebind()), and what the host's CPUs are.
 *
 * A model CPU is a thread that has bound itself with fl_cpu_bind(). The id
 * lives in a thread-local, so smp_processor_id() is one TLS load. Binding
 * is exclusive: per-CPU data in mm/ is written without atomics by its
 * owner, so two threads on one id would corrupt it.
 *
 * Conventions in this file: cpu_owner[cpu] is 0 when free, 1 when bound.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include "atomic.h"
#include "platform.h"
#include "lock.h"

int fl__nr_cpu_ids;
_Thread_local int fl__cpu = -1;
_Thread_local fl_thread_fn fl__current_fn; /* set by either platform's thread start */
static unsigned char *cpu_owner;
_Thread_local void *fl__this_cpu_area[FL_PERCPU_SLOTS];
static struct {
	char *base;
	size_t stride;
} areas[FL_PERCPU_SLOTS];

static void percpu_areas_bind(int cpu)
{
	int i;

	for (i = 0; i < FL_PERCPU_SLOTS; i++) {
		char *base = __atomic_load_n(&areas[i].base, __ATOMIC_ACQUIRE);

		fl__this_cpu_area[i] = base ? base + (size_t)(cpu < 0 ? fl__nr_cpu_ids : cpu) *
							       areas[i].stride
					    : NULL;
	}
}

/**
 * fl_percpu_area_register() - make @slot point into @base (NULL: none),
 * elements of @stride bytes. The calling thread's pointer is updated now;
 * threads bind later.
 */
void fl_percpu_area_register(int slot, void *base, size_t stride)
{
	areas[slot].stride = stride;
	__atomic_store_n(&areas[slot].base, (char *)base, __ATOMIC_RELEASE);
	percpu_areas_bind(fl__cpu);
}

int fl__platform_init(int nr_cpus)
{
	if (nr_cpus < 1 || nr_cpus > FL_NR_CPUS_MAX)
		return -EINVAL;
	cpu_owner = fl_calloc((size_t)nr_cpus, 1);
	if (!cpu_owner)
		return -ENOMEM;
	fl__nr_cpu_ids = nr_cpus;
	/* registered once per process; later calls are no-ops that succeed */
	fl__membarrier_ok = !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
				     0);
	if (fl__lock_stats_init(nr_cpus)) {
		fl_free(cpu_owner);
		cpu_owner = NULL;
		fl__nr_cpu_ids = 0;
		return -ENOMEM;
	}
	return 0;
}

void fl__platform_exit(void)
{
	fl__lock_stats_exit();
	fl_free(cpu_owner);
	cpu_owner = NULL;
	fl__nr_cpu_ids = 0;
	fl__cpu = -1;
	fl__lock_stats_bind(-1);
	percpu_areas_bind(-1);
}

int fl_cpu_bind(int cpu)
{
	unsigned char expected = 0;

	if (cpu < 0 || cpu >= fl__nr_cpu_ids)
		return -EINVAL;
	if (fl__cpu == cpu)
		return 0;
	if (!__atomic_compare_exchange_n(&cpu_owner[cpu], &expected, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	if (fl__cpu >= 0)
		fl_cpu_unbind();
	fl__cpu = cpu;
	fl__lock_stats_bind(cpu);
	percpu_areas_bind(cpu);
	return 0;
}

void fl_cpu_unbind(void)
{
	if (fl__cpu < 0)
		return;
	/* release: this CPU's per-CPU writes are visible to the next owner */
	__atomic_store_n(&cpu_owner[fl__cpu], 0, __ATOMIC_RELEASE);
	fl__cpu = -1;
	fl__lock_stats_bind(-1);
	percpu_areas_bind(-1);
}

bool fl__membarrier_ok;

/*
 * Point this host thread's per-CPU state at @cpu (-1: none), as a simulated
 * task runs there. The lock statistics are summed over CPUs when they are
 * read, and every simulated CPU runs on this one host thread: they all
 * count into one row, which stays in the host's cache where 320 rows would
 * not.
 */
void fl__cpu_rebind(int cpu)
{
	fl__cpu = cpu;
	fl__lock_stats_bind(cpu < 0 ? -1 : 0);
	percpu_areas_bind(cpu);
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

int fl__host_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int fl__parse_cpu_ticks(const char *line, struct fl_cpu_ticks *t)
{
	unsigned long long v[8];

	memset(t, 0, sizeof(*t));
	/* the all-CPU line, not "cpu0"; user nice system idle iowait irq softirq steal */
	if (strncmp(line, "cpu ", 4) ||
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EINVAL;
	t->busy = v[0] + v[1] + v[2] + v[5] + v[6];
	t->steal = v[7];
	return 0;
}

int fl__host_cpu_ticks(struct fl_cpu_ticks *t)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	int ret = -ENOENT;

	memset(t, 0, sizeof(*t));
	if (f && fgets(line, sizeof(line), f) && !fl__parse_cpu_ticks(line, t))
		ret = 0;
	if (f)
		fclose(f);
	return ret;
}

double fl__steal_pct(const struct fl_cpu_ticks *a, const struct fl_cpu_ticks *b)
{
	unsigned long long busy = b->busy - a->busy, steal = b->steal - a->steal;

	if (b->busy < a->busy || b->steal < a->steal || !(busy + steal))
		return -1;
	return 100.0 * (double)steal / (double)(busy + steal);
}

int fl__host_cpuinfo(const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int ret = -ENOENT;

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		/* "key<tabs>: value" */
		if (!colon || strncmp(line, key, klen) ||
		    strspn(line + klen, "\t ") != (size_t)(colon - line) - klen)
			continue;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon[1] == ' ' ? colon + 2 : colon + 1);
		ret = 0;
		break;
	}
	if (f)
		fclose(f);
	return ret;
}
