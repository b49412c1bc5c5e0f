// SPDX-License-Identifier: GPL-2.0-only
/*
 * lock_stat.c - what both platforms' locks share: the site registry, the
 * per-CPU statistics behind the lock table, rwsem set-up, and the debug
 * lock-order witness.
 *
 * Conventions in this file: site ids start at 1 (0 = unregistered); the
 * stats array has nr_cpus + 1 rows, the last for unbound threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lock.h"

struct fl_lock_stat *fl__lock_stats;
static int stats_rows;
/* where an unbound thread's counts go: memory-safe, never reported */
static struct fl_lock_stat unbound_stats[FL_LOCK_SITES_MAX];
_Thread_local struct fl_lock_stat *fl__this_cpu_lock_stats = unbound_stats;
static struct fl_lock_site *sites[FL_LOCK_SITES_MAX];
static int nr_sites; /* under registry_lock; read with acquire */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

int fl__lock_stats_init(int nr_cpus)
{
	stats_rows = nr_cpus + 1;
	fl__lock_stats = fl_calloc((size_t)stats_rows * FL_LOCK_SITES_MAX, sizeof(*fl__lock_stats));
	return fl__lock_stats ? 0 : -ENOMEM;
}

/* Point this thread's row at @cpu's (or the spare when @cpu < 0). */
void fl__lock_stats_bind(int cpu)
{
	if (cpu < 0 || !fl__lock_stats)
		fl__this_cpu_lock_stats = unbound_stats;
	else
		fl__this_cpu_lock_stats = &fl__lock_stats[(size_t)cpu * FL_LOCK_SITES_MAX];
}

void fl__lock_stats_exit(void)
{
	fl_free(fl__lock_stats);
	fl__lock_stats = NULL;
	stats_rows = 0;
}

int fl__lock_site_register(struct fl_lock_site *s, const struct fl_lock_class *cls)
{
	int id;

	pthread_mutex_lock(&registry_lock);
	id = s->id;
	if (!id) {
		if (nr_sites + 1 >= FL_LOCK_SITES_MAX) {
			/* table full: share the last row rather than fail */
			id = FL_LOCK_SITES_MAX - 1;
		} else {
			id = ++nr_sites;
			sites[id] = s;
		}
		s->cls = cls;
		/* release: cls is visible before the id that publishes it */
		__atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&registry_lock);
	return id;
}

void fl__lock_contended(struct fl_lock_site *s, const struct fl_lock_class *cls, uint64_t wait_ns)
{
	struct fl_lock_stat *st = fl__site_stat(s, cls);
	uint64_t min = __atomic_load_n(&st->wait_min_ns, __ATOMIC_RELAXED);

	fl_this_cpu_add_u64(&st->contended, 1);
	fl_this_cpu_add_u64(&st->wait_total_ns, wait_ns);
	if (wait_ns > __atomic_load_n(&st->wait_max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&st->wait_max_ns, wait_ns, __ATOMIC_RELAXED);
	if (min == 0 || wait_ns < min)
		__atomic_store_n(&st->wait_min_ns, wait_ns ? wait_ns : 1, __ATOMIC_RELAXED);
}

int fl_rwsem_init(struct fl_rwsem *sem, const struct fl_lock_class *cls)
{
	pthread_rwlockattr_t attr;
	int ret;

	sem->cls = cls;
	memset(&sem->sim, 0, sizeof(sem->sim));
	pthread_rwlockattr_init(&attr);
	/* writers must not starve behind a stream of faulting readers */
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = pthread_rwlock_init(&sem->rw, &attr);
	pthread_rwlockattr_destroy(&attr);
	return -ret;
}

void fl_rwsem_destroy(struct fl_rwsem *sem)
{
	pthread_rwlock_destroy(&sem->rw);
}

static const char *kind_name(const struct fl_lock_site *s)
{
	if (!s->cls)
		return "?";
	switch (s->cls->kind) {
	case FL_LOCK_SPIN:
		return "spinlock";
	case FL_LOCK_MUTEX:
		return "mutex";
	case FL_LOCK_LOCAL:
		return "local_lock";
	case FL_LOCK_RWSEM:
		return s->mode ? "rwsem:R" : "rwsem:W";
	}
	return "?";
}

int fl__lock_stats_read(struct fl_lock_row *rows)
{
	int n = __atomic_load_n(&nr_sites, __ATOMIC_ACQUIRE);
	int id, cpu, out = 0;

	if (!fl__lock_stats)
		return 0;
	for (id = 1; id <= n; id++) {
		struct fl_lock_row r = { 0 };

		r.site = sites[id]->func;
		r.class_name = sites[id]->cls ? sites[id]->cls->name : "?";
		r.kind = kind_name(sites[id]);
		for (cpu = 0; cpu < stats_rows; cpu++) {
			struct fl_lock_stat *st =
				&fl__lock_stats[(size_t)cpu * FL_LOCK_SITES_MAX + id];
			uint64_t mn = __atomic_load_n(&st->wait_min_ns, __ATOMIC_RELAXED);
			uint64_t mx = __atomic_load_n(&st->wait_max_ns, __ATOMIC_RELAXED);

			r.st.acquired += __atomic_load_n(&st->acquired, __ATOMIC_RELAXED);
			r.st.contended += __atomic_load_n(&st->contended, __ATOMIC_RELAXED);
			r.st.wait_total_ns += __atomic_load_n(&st->wait_total_ns, __ATOMIC_RELAXED);
			r.st.hold_total_ps += __atomic_load_n(&st->hold_total_ps, __ATOMIC_RELAXED);
			r.st.stolen += __atomic_load_n(&st->stolen, __ATOMIC_RELAXED);
			r.st.handoffs += __atomic_load_n(&st->handoffs, __ATOMIC_RELAXED);
			if (mx > r.st.wait_max_ns)
				r.st.wait_max_ns = mx;
			if (mn && (!r.st.wait_min_ns || mn < r.st.wait_min_ns))
				r.st.wait_min_ns = mn;
		}
		if (r.st.acquired || r.st.contended)
			rows[out++] = r;
	}
	return out;
}

void fl__lock_stats_reset(void)
{
	if (fl__lock_stats)
		memset(fl__lock_stats, 0,
		       (size_t)stats_rows * FL_LOCK_SITES_MAX * sizeof(*fl__lock_stats));
}

#if FL_DEBUG >= 2
/*
 * Lock-order witness (after jemalloc's): each thread keeps the locks it
 * holds; a new lock must rank strictly above every held one.
 */
#define WITNESS_DEPTH 16
static _Thread_local struct {
	const struct fl_lock_class *cls;
	const void *lock;
} held[WITNESS_DEPTH];
static _Thread_local int nr_held;

void fl__witness_acquire(const struct fl_lock_class *cls, const void *lock)
{
	int i;

	for (i = 0; i < nr_held; i++) {
		if (held[i].cls->rank >= cls->rank) {
			fprintf(stderr,
				"foliolab: lock order violation: taking %s (rank %d) "
				"while holding %s (rank %d)\n",
				cls->name, cls->rank, held[i].cls->name, held[i].cls->rank);
			abort();
		}
	}
	if (nr_held < WITNESS_DEPTH) {
		held[nr_held].cls = cls;
		held[nr_held].lock = lock;
	}
	nr_held++;
}

void fl__witness_save(void *buf)
{
	_Static_assert(sizeof(held) + sizeof(nr_held) <= FL_SIM_TLS_WITNESS,
		       "witness state too big");
	memcpy(buf, held, sizeof(held));
	memcpy((char *)buf + sizeof(held), &nr_held, sizeof(nr_held));
}

void fl__witness_load(const void *buf)
{
	memcpy(held, buf, sizeof(held));
	memcpy(&nr_held, (const char *)buf + sizeof(held), sizeof(nr_held));
}

void fl__witness_release(const struct fl_lock_class *cls, const void *lock)
{
	int i, n = nr_held < WITNESS_DEPTH ? nr_held : WITNESS_DEPTH;

	(void)cls;
	for (i = n - 1; i >= 0; i--) {
		if (held[i].lock == lock) {
			for (; i < n - 1; i++)
				held[i] = held[i + 1];
			break;
		}
	}
	nr_held--;
}
#else
void fl__witness_save(void *buf)
{
	(void)buf;
}

void fl__witness_load(const void *buf)
{
	(void)buf;
}
#endif
