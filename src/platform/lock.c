// SPDX-License-Identifier: GPL-2.0-only
/*
 * lock.c - slow paths, site registry and statistics of the platform locks.
 *
 * The spinlock is a three-state futex lock: a brief spin catches the
 * common short critical section, then the waiter marks the lock "2" and
 * sleeps in the kernel until the holder's unlock wakes it. That is what
 * keeps 20 threads on 2 cores live when a holder is preempted.
 *
 * Conventions in this file: site ids start at 1 (0 = unregistered); the
 * stats array has nr_cpus + 1 rows, the last for unbound threads.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lock.h"
#include "sim.h"

#define SPIN_TRIES 128

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

#define PARK_TIMEOUT_NS 200000 /* bounds a wake-up missed by the unlock (lock.h) */

static long futex(unsigned int *uaddr, int op, unsigned int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

static inline bool is_mutex(const struct fl_spinlock *l)
{
	return l->cls && l->cls->kind == FL_LOCK_MUTEX;
}

/* sim: no memory for a lock's queue: poll for the lock in virtual time */
static void sim_poll_take(struct fl_spinlock *l)
{
	unsigned int expected;

	do {
		fl__sim_spin_quantum();
		expected = 0;
	} while (!__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
}

/*
 * sim: a mutex by 6.18's kernel/locking/mutex.c (less the optimistic
 * spinning): the waiter sleeps in line; a release with no hand-off asked
 * frees the lock and wakes the first waiter, who tries for it when it runs
 * (a wake-up later) and may find a newcomer took it meanwhile (a steal:
 * __mutex_trylock() takes a free lock whatever waits); then, first in
 * line, it asks for a hand-off (__mutex_trylock_or_handoff()) and sleeps
 * again at the head, and the next release gives it the lock
 * (__mutex_handoff()), one hand-off later.
 */
static void sim_mutex_wait(struct fl_spinlock *l, struct fl_lock_site *s)
{
	bool first = false;
	unsigned int expected;

	__atomic_fetch_add(&l->waiters, 1, __ATOMIC_RELAXED);
	for (;;) {
		if (fl__sim_spin_wait(l, true, first)) {
			sim_poll_take(l);
			break;
		}
		if (l->handoff == 2) { /* handed over: the lock is taken for us */
			l->handoff = 0;
			fl_this_cpu_add_u64(&fl__site_stat(s, l->cls)->handoffs, 1);
			break;
		}
		expected = 0;
		if (__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		l->handoff = 1;
		first = true;
	}
	__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
}

void fl__spin_lock_slow(struct fl_spinlock *l, struct fl_lock_site *s)
{
	uint64_t t0 = fl_clock_ns();
	unsigned int expected;
	int i;

	if (fl__sim_active && fl_sim_in_task() && is_mutex(l)) {
		sim_mutex_wait(l, s);
		goto acquired;
	}
	if (fl__sim_active && fl_sim_in_task()) {
		/*
		 * The holder is another simulated task: spin, queued in order,
		 * till its unlock hands the lock over (fl__spin_wake() keeps it
		 * taken for us), as a qspinlock serves its waiters
		 */
		__atomic_fetch_add(&l->waiters, 1, __ATOMIC_RELAXED);
		/* a spinlock's waiter spins (busy); a mutex's went to sim_mutex_wait() */
		if (fl_sim_spin_wait(l, false))
			sim_poll_take(l);
		__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
		goto acquired;
	}

	for (i = 0; i < SPIN_TRIES; i++) {
		cpu_relax();
		if (__atomic_load_n(&l->val, __ATOMIC_RELAXED) != 0)
			continue;
		expected = 0;
		if (__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			goto acquired;
	}
	/* park: announce ourselves, then sleep while the lock stays held */
	__atomic_fetch_add(&l->waiters, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		struct timespec ts = { 0, PARK_TIMEOUT_NS };

		expected = 0;
		if (__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		futex(&l->val, FUTEX_WAIT_PRIVATE, 1, &ts);
	}
	__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
acquired:
	fl__lock_contended(s, l->cls, fl_clock_ns() - t0);
}

/*
 * sim: the running task's held locks and when it took them, for the
 * lock table's hold times; saved and loaded with the task at a switch.
 */
struct sim_hold {
	const void *lock;
	struct fl_lock_stat *st;
	uint64_t t0;
};
#define SIM_HOLD_DEPTH 12
struct sim_holds {
	struct sim_hold v[SIM_HOLD_DEPTH];
	int n; /* may exceed the depth: the deepest are not timed */
};
/* the running task's, in its own TLS area: a switch re-points it, nothing is copied */
static struct sim_holds host_holds, *sim_holds = &host_holds;

void fl__sim_holds_save(void *buf)
{
	_Static_assert(sizeof(struct sim_holds) <= FL_SIM_TLS_SIZE - FL_SIM_TLS_WITNESS,
		       "sim holds too big");
	(void)buf; /* the task's holds live in @buf already */
	sim_holds = &host_holds;
}

int fl__sim_holds_n(void)
{
	return sim_holds->n;
}

void fl__sim_holds_load(const void *buf)
{
	sim_holds = (struct sim_holds *)buf;
}

static void sim_hold_begin(const void *lock, struct fl_lock_site *s,
			   const struct fl_lock_class *cls)
{
	if (sim_holds->n < SIM_HOLD_DEPTH) {
		struct sim_hold *h = &sim_holds->v[sim_holds->n];

		h->lock = lock;
		h->st = fl__site_stat(s, cls);
		h->t0 = fl_sim_now();
	}
	sim_holds->n++;
}

static void sim_hold_end(const void *lock)
{
	int n = sim_holds->n < SIM_HOLD_DEPTH ? sim_holds->n : SIM_HOLD_DEPTH, i;

	for (i = n - 1; i >= 0; i--) {
		if (sim_holds->v[i].lock == lock) {
			sim_holds->v[i].st->hold_total_ps += fl_sim_now() - sim_holds->v[i].t0;
			for (; i < n - 1; i++)
				sim_holds->v[i] = sim_holds->v[i + 1];
			sim_holds->n--;
			return;
		}
	}
	/* released by another task than took it (a folio lock's kin), or too deep */
	if (sim_holds->n > SIM_HOLD_DEPTH)
		sim_holds->n--;
}

/* The lock's own cost: a local lock only disables preemption in the kernel. */
static void sim_lock_cost(const struct fl_lock_class *cls, struct fl_cacheline *line)
{
	if (cls && cls->kind != FL_LOCK_LOCAL)
		fl_cost(FL_COST_LOCK);
	fl__cacheline_take(line);
}

/*
 * sim: acquisitions happen in virtual-time order (each is a scheduling
 * point, but for a per-CPU lock's), releases as they come: an unlock
 * only notes when (free_at). A lock found free in host order but released
 * later in virtual time was still held: the taker spins until then.
 */
static bool sim_lock_syncs(const struct fl_spinlock *l)
{
	return !l->cls || (l->cls->kind != FL_LOCK_LOCAL && !l->cls->percpu);
}

static void sim_wait_free_at(struct fl_spinlock *l, struct fl_lock_site *s)
{
	uint64_t now = fl_sim_now();

	if (l->free_gen == fl__sim_gen && l->free_at > now) {
		fl_sim_charge(l->free_at - now); /* spinning: busy */
		fl__lock_contended(s, l->cls, (l->free_at - now) / 1000);
	}
}

bool fl__sim_spin_lock(struct fl_spinlock *l, struct fl_lock_site *s)
{
	unsigned int expected = 0;

	if (!fl_sim_in_task())
		return false;
	if (sim_lock_syncs(l))
		fl_sim_charge(0); /* everything before the lock happens first */
	if (l->handoff == 1 || !__atomic_compare_exchange_n(&l->val, &expected, 1, false,
							    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		fl__spin_lock_slow(l, s); /* queued: handed over by the unlock */
	else {
		/* a mutex taken free while its woken waiter has not run yet */
		if (is_mutex(l) && l->waiters)
			fl_this_cpu_add_u64(&fl__site_stat(s, l->cls)->stolen, 1);
		sim_wait_free_at(l, s);
	}
	sim_lock_cost(l->cls, &l->line);
	sim_hold_begin(l, s, l->cls);
	return true;
}

bool fl__sim_spin_trylock(struct fl_spinlock *l, struct fl_lock_site *s, bool *got)
{
	unsigned int expected = 0;

	if (!fl_sim_in_task())
		return false;
	if (sim_lock_syncs(l))
		fl_sim_charge(0);
	*got = __atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
	if (*got && l->free_gen == fl__sim_gen && l->free_at > fl_sim_now()) {
		/* still held, in virtual time */
		__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
		*got = false;
	}
	if (*got) {
		sim_lock_cost(l->cls, &l->line);
		sim_hold_begin(l, s, l->cls);
	} else {
		fl__cacheline_take(&l->line); /* the failed try reads the line too */
	}
	return true;
}

bool fl__sim_spin_unlock(struct fl_spinlock *l)
{
	if (!fl_sim_in_task())
		return false;
	l->free_at = fl_sim_now(); /* the critical section ends at this CPU's time */
	l->free_gen = fl__sim_gen;
	sim_hold_end(l);
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
	if (__atomic_load_n(&l->waiters, __ATOMIC_RELAXED))
		fl__spin_wake(l);
	return true;
}

void fl__spin_wake(struct fl_spinlock *l)
{
	if (fl__sim_active && fl_sim_in_task() && is_mutex(l) && l->handoff != 1) {
		/* a mutex's release: the first waiter woken, the lock free for anyone */
		(void)fl_sim_spin_wake_first(l);
		return;
	}
	/* on virtual CPUs: hand the lock straight to the first spinner (or asking waiter) */
	if (fl__sim_active && fl_sim_in_task()) {
		if (fl_sim_spin_handoff(l)) {
			__atomic_store_n(&l->val, 1, __ATOMIC_RELAXED);
			if (l->handoff == 1)
				l->handoff = 2;
		}
		return;
	}
	futex(&l->val, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* x86-64 is little-endian: the word's low 32 bits are its first four bytes */
void fl_word_wait(unsigned long *word, unsigned long val)
{
	if (fl__sim_active && fl_sim_in_task()) {
		/* one round; the caller looks again (a wake-up may always come early) */
		(void)word;
		(void)val;
		fl__sim_spin_quantum();
		return;
	}
	struct timespec ts = { 0, PARK_TIMEOUT_NS };

	futex((unsigned int *)word, FUTEX_WAIT_PRIVATE, (unsigned int)val, &ts);
}

void fl_word_wake_all(unsigned long *word)
{
	futex((unsigned int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

unsigned long fl_waitq_prepare(struct fl_waitq *wq)
{
	fl_atomic_fetch_add(&wq->waiters, 1u, __ATOMIC_SEQ_CST);
	return fl_atomic_load(&wq->seq, __ATOMIC_SEQ_CST);
}

void fl_waitq_sleep(struct fl_waitq *wq, unsigned long seen)
{
	if (fl__sim_active && fl_sim_in_task()) {
		/* one host thread: nothing runs between this look and the sleep */
		if (fl_atomic_load(&wq->seq, __ATOMIC_RELAXED) == seen)
			fl_sim_wait(&wq->sim);
		return;
	}
	struct timespec ts = { 0, PARK_TIMEOUT_NS };

	futex((unsigned int *)&wq->seq, FUTEX_WAIT_PRIVATE, (unsigned int)seen, &ts);
}

bool fl_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns)
{
	uint64_t end;

	if (fl_atomic_load(&wq->seq, __ATOMIC_ACQUIRE) != seen)
		return true;
	if (fl__sim_active && fl_sim_in_task())
		return fl_sim_wait_timeout(&wq->sim, ns * 1000) ||
		       fl_atomic_load(&wq->seq, __ATOMIC_ACQUIRE) != seen;
	end = fl_clock_ns() + ns;
	for (;;) {
		uint64_t now = fl_clock_ns();
		struct timespec ts;

		if (fl_atomic_load(&wq->seq, __ATOMIC_ACQUIRE) != seen)
			return true;
		if (now >= end)
			return false;
		ts.tv_sec = (time_t)((end - now) / 1000000000u);
		ts.tv_nsec = (long)((end - now) % 1000000000u);
		futex((unsigned int *)&wq->seq, FUTEX_WAIT_PRIVATE, (unsigned int)seen, &ts);
	}
}

void fl_waitq_finish(struct fl_waitq *wq)
{
	fl_atomic_fetch_sub(&wq->waiters, 1u, __ATOMIC_SEQ_CST);
}

bool fl_waitq_active(struct fl_waitq *wq)
{
	return fl_atomic_load(&wq->waiters, __ATOMIC_SEQ_CST) != 0;
}

void fl_waitq_wake_all(struct fl_waitq *wq)
{
	fl_atomic_fetch_add(&wq->seq, 1ul, __ATOMIC_SEQ_CST);
	if (fl__sim_active && fl_sim_in_task()) {
		fl_sim_wake_all(&wq->sim);
		return;
	}
	futex((unsigned int *)&wq->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

int fl_rwsem_init(struct fl_rwsem *sem, const struct fl_lock_class *cls)
{
	pthread_rwlockattr_t attr;
	int ret;

	sem->cls = cls;
	sem->line.cpu = 0;
	sem->line.gen = 0;
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

/*
 * On sim the simulator's rwsem (sim.h: 6.18's rules) stands in for the
 * pthread one. On the host thread (no task runs meanwhile) the state just
 * changes. Return: FL_SIM_LOCK_* bits (0 on the host thread).
 */
static int sim_rwsem_acquire(struct fl_rwsem *sem, bool write)
{
	int how;

	if (!fl_sim_in_task()) {
		VM_BUG_ON(sem->sim.writer || (write && sem->sim.readers));
		if (write)
			sem->sim.writer = (struct fl_sim_task *)sem; /* held, by no task */
		else
			sem->sim.readers++;
		return 0;
	}
	fl_sim_charge(0);
	how = write ? fl_sim_down_write(&sem->sim) : fl_sim_down_read(&sem->sim);
	sim_lock_cost(sem->cls, &sem->line);
	return how;
}

static void sim_rwsem_release(struct fl_rwsem *sem, bool write)
{
	if (!fl_sim_in_task()) {
		if (write)
			sem->sim.writer = NULL;
		else
			sem->sim.readers--;
		return;
	}
	fl_sim_charge(0); /* the hold ends at this CPU's time */
	sim_hold_end(sem);
	if (write)
		fl_sim_up_write(&sem->sim);
	else
		fl_sim_up_read(&sem->sim);
}

static void rwsem_lock(struct fl_rwsem *sem, struct fl_lock_site *s, bool write)
{
	uint64_t t0;

	fl__witness_acquire(sem->cls, sem);
	if (fl__sim_active) {
		int how;

		t0 = fl_clock_ns();
		how = sim_rwsem_acquire(sem, write);
		if (how & FL_SIM_LOCK_WAITED)
			fl__lock_contended(s, sem->cls, fl_clock_ns() - t0);
		if (how & FL_SIM_LOCK_STOLE)
			fl_this_cpu_add_u64(&fl__site_stat(s, sem->cls)->stolen, 1);
		if (how & FL_SIM_LOCK_HANDOFF)
			fl_this_cpu_add_u64(&fl__site_stat(s, sem->cls)->handoffs, 1);
		fl__lock_acquired(s, sem->cls);
		if (fl_sim_in_task())
			sim_hold_begin(sem, s, sem->cls);
		return;
	}
	if ((write ? pthread_rwlock_trywrlock(&sem->rw) : pthread_rwlock_tryrdlock(&sem->rw)) !=
	    0) {
		t0 = fl_clock_ns();
		if (write)
			pthread_rwlock_wrlock(&sem->rw);
		else
			pthread_rwlock_rdlock(&sem->rw);
		fl__lock_contended(s, sem->cls, fl_clock_ns() - t0);
	}
	fl__lock_acquired(s, sem->cls);
}

void fl_down_read_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	rwsem_lock(sem, s, false);
}

void fl_down_write_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	rwsem_lock(sem, s, true);
}

bool fl_down_read_trylock_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	if (fl__sim_active) {
		if (fl_sim_in_task())
			fl_sim_charge(0);
		if (!fl_sim_down_read_trylock(&sem->sim))
			return false;
		if (fl_sim_in_task()) {
			sim_lock_cost(sem->cls, &sem->line);
			sim_hold_begin(sem, s, sem->cls);
		}
	} else if (pthread_rwlock_tryrdlock(&sem->rw) != 0) {
		return false;
	}
	fl__witness_acquire(sem->cls, sem);
	fl__lock_acquired(s, sem->cls);
	return true;
}

void fl_up_read(struct fl_rwsem *sem)
{
	fl__witness_release(sem->cls, sem);
	if (fl__sim_active)
		sim_rwsem_release(sem, false);
	else
		pthread_rwlock_unlock(&sem->rw);
}

void fl_downgrade_write_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	if (fl__sim_active && fl_sim_in_task()) {
		fl_sim_charge(0); /* the write hold ends at this CPU's time */
		sim_hold_end(sem);
		fl_sim_downgrade_write(&sem->sim);
		sim_hold_begin(sem, s, sem->cls);
	} else if (fl__sim_active) {
		sem->sim.writer = NULL;
		sem->sim.readers = 1;
	}
	fl__lock_acquired(s, sem->cls);
}

void fl_up_write(struct fl_rwsem *sem)
{
	fl__witness_release(sem->cls, sem);
	if (fl__sim_active)
		sim_rwsem_release(sem, true);
	else
		pthread_rwlock_unlock(&sem->rw);
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

/* A simulated task's held locks travel with it across switches. */
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
