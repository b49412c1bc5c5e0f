// SPDX-License-Identifier: GPL-2.0-only
/*
 * breakdown.c - where a sim run's virtual CPU time went (fl_time_breakdown):
 * the time each named cost took (fl_time_NAME, charged by mm/ where the
 * kernel pays it, bandwidth stretches included), the time CPUs spun on
 * spinlocks (the lock table's waits of spinning kinds: a sleeping lock's
 * waiter leaves its CPU idle), the rest of the busy time (wait loops'
 * back-off, a workload's own computing) and the idle time. Like
 * `perf report --no-children`, each row is self time; the lock table's
 * hold column is the children view of a critical section.
 *
 * Conventions in this file: times are virtual ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <foliolab/foliolab.h>

static bool spinning_kind(const struct fl_lock_stat_row *l)
{
	/* a mutex's or rwsem's waiter sleeps; spinlocks and bit locks spin */
	return strncmp(l->kind, "mutex", 5) && strncmp(l->kind, "rwsem", 5) &&
	       strcmp(l->kind, "local_lock");
}

static int by_ns(const void *a, const void *b)
{
	double x = ((const struct fl_time_row *)a)->ns, y = ((const struct fl_time_row *)b)->ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

FL_API int fl_time_breakdown(const struct fl_result *res, struct fl_time_row *rows, int max,
			     double *cpu_ns)
{
	double busy = 0, idle = 0, spin = 0, costs = 0;
	int i, n = 0;

	*cpu_ns = 0;
	if (!res->nr_vcpus || max < 3)
		return 0;
	for (i = 0; i < res->nr_vcpus; i++) {
		busy += (double)res->vcpu_busy_ns[i];
		idle += (double)res->vcpu_idle_ns[i];
	}
	for (i = 0; i < res->locks.nr; i++)
		if (spinning_kind(&res->locks.v[i]))
			spin += (double)res->locks.v[i].wait_total_ns;
	for (i = 0; i < res->counters.nr && n < max - 3; i++) {
		const struct fl_counter *c = &res->counters.v[i];

		if (strncmp(c->name, "fl_time_", 8) || strchr(c->name, ':') || c->value <= 0)
			continue;
		snprintf(rows[n].name, sizeof(rows[n].name), "%s", c->name + 8);
		rows[n].ns = (double)c->value;
		costs += rows[n++].ns;
	}
	snprintf(rows[n].name, sizeof(rows[n].name), "%s", FL_TIME_SPIN);
	rows[n++].ns = spin;
	snprintf(rows[n].name, sizeof(rows[n].name), "%s", FL_TIME_OTHER);
	rows[n++].ns = busy > costs + spin ? busy - costs - spin : 0;
	snprintf(rows[n].name, sizeof(rows[n].name), "%s", FL_TIME_IDLE);
	rows[n++].ns = idle;
	qsort(rows, (size_t)n, sizeof(*rows), by_ns);
	*cpu_ns = busy + idle;
	return n;
}
