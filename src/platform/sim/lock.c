// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim/lock.c - the platform's locks and waits in virtual time: a
 * spinlock's waiters queue in order (a qspinlock), a mutex by 6.18's
 * rules, the rwsem by the simulator's (sim.c), wait queues and words
 * slept on as simulated tasks; each lock's cost and its line's moves
 * charged; the hold times of the lock table.
 *
 * Outside a task (the host thread, between runs) nothing runs beside it:
 * the spinlock hooks return false (lock.h does it natively) and the waits
 * fall back on the native platform's.
 *
 * Conventions in this file: a lock's simulator state is l->sim (sim.h:
 * struct fl_sim_lock) and sem->sim (struct fl_sim_rwsem); times are ps
 * but for the lock table's waits, in virtual ns.
 */
#include "../lock.h"
#include "sim.h"

static inline bool is_mutex(const struct fl_spinlock *l)
{
	return l->cls && l->cls->kind == FL_LOCK_MUTEX;
}

/* no memory for a lock's queue: poll for the lock in virtual time */
static void poll_take(struct fl_spinlock *l)
{
	unsigned int expected;

	do {
		fl_sim_charge(FL_SIM_SPIN_PS);
		expected = 0;
	} while (!__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
}

/*
 * A mutex by 6.18's kernel/locking/mutex.c (less the optimistic
 * spinning): the waiter sleeps in line; a release with no hand-off asked
 * frees the lock and wakes the first waiter, who tries for it when it runs
 * (a wake-up later) and may find a newcomer took it meanwhile (a steal:
 * __mutex_trylock() takes a free lock whatever waits); then, first in
 * line, it asks for a hand-off (__mutex_trylock_or_handoff()) and sleeps
 * again at the head, and the next release gives it the lock
 * (__mutex_handoff()), one hand-off later.
 */
static void mutex_wait(struct fl_spinlock *l, struct fl_lock_site *s)
{
	bool first = false;
	unsigned int expected;

	__atomic_fetch_add(&l->waiters, 1, __ATOMIC_RELAXED);
	for (;;) {
		if (fl__sim_spin_wait(l, true, first)) {
			poll_take(l);
			break;
		}
		if (l->sim.handoff == 2) { /* handed over: the lock is taken for us */
			l->sim.handoff = 0;
			fl_this_cpu_add_u64(&fl__site_stat(s, l->cls)->handoffs, 1);
			break;
		}
		expected = 0;
		if (__atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		l->sim.handoff = 1;
		first = true;
	}
	__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
}

/*
 * Found held: the holder is another simulated task. A spinlock's waiter
 * spins, queued in order, till the holder's unlock hands the lock over
 * (wake() keeps it taken for us), as a qspinlock serves its waiters; a
 * mutex's sleeps (mutex_wait()).
 */
static void spin_lock_slow(struct fl_spinlock *l, struct fl_lock_site *s)
{
	uint64_t t0 = fl_sim_now() / 1000;

	if (is_mutex(l)) {
		mutex_wait(l, s);
	} else {
		__atomic_fetch_add(&l->waiters, 1, __ATOMIC_RELAXED);
		if (fl_sim_spin_wait(l, false))
			poll_take(l);
		__atomic_fetch_sub(&l->waiters, 1, __ATOMIC_RELAXED);
	}
	fl__lock_contended(s, l->cls, fl_sim_now() / 1000 - t0);
}

/* The unlock of a lock with waiters. */
static void wake(struct fl_spinlock *l)
{
	if (is_mutex(l) && l->sim.handoff != 1) {
		/* a mutex's release: the first waiter woken, the lock free for anyone */
		(void)fl_sim_spin_wake_first(l);
		return;
	}
	/* hand the lock straight to the first spinner (or asking waiter) */
	if (fl_sim_spin_handoff(l)) {
		__atomic_store_n(&l->val, 1, __ATOMIC_RELAXED);
		if (l->sim.handoff == 1)
			l->sim.handoff = 2;
	}
}

/*
 * The running task's held locks and when it took them, for the lock
 * table's hold times: in the task's own TLS area (sim.h), which a switch
 * re-points, so nothing is copied.
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
_Static_assert(sizeof(struct sim_holds) <= FL_SIM_TLS_SIZE - FL_SIM_TLS_WITNESS,
	       "sim holds too big");

static inline struct sim_holds *holds(void)
{
	return (struct sim_holds *)(void *)(fl__sim_tls + FL_SIM_TLS_WITNESS);
}

static void hold_begin(const void *lock, struct fl_lock_site *s, const struct fl_lock_class *cls)
{
	struct sim_holds *h = holds();

	if (h->n < SIM_HOLD_DEPTH) {
		struct sim_hold *e = &h->v[h->n];

		e->lock = lock;
		e->st = fl__site_stat(s, cls);
		e->t0 = fl_sim_now();
	}
	h->n++;
}

/* @now: the running task's CPU's clock, fl_sim_now() */
static void hold_end(const void *lock, uint64_t now)
{
	struct sim_holds *h = holds();
	int n = h->n < SIM_HOLD_DEPTH ? h->n : SIM_HOLD_DEPTH, i;

	for (i = n - 1; i >= 0; i--) {
		if (h->v[i].lock == lock) {
			h->v[i].st->hold_total_ps += now - h->v[i].t0;
			for (; i < n - 1; i++)
				h->v[i] = h->v[i + 1];
			h->n--;
			return;
		}
	}
	/* released by another task than took it (a folio lock's kin), or too deep */
	if (h->n > SIM_HOLD_DEPTH)
		h->n--;
}

/* A point in user mode: the tick may give the CPU to another task. */
void fl__sim_preempt_point(void)
{
	if (!fl_sim_in_task())
		return;
	BUG_ON(holds()->n); /* user mode holds no kernel lock */
	fl_sim_preempt();
}

/* The lock's own cost: a local lock only disables preemption in the kernel. */
static void lock_cost(const struct fl_lock_class *cls, struct fl_cacheline *line)
{
	if (cls && cls->kind != FL_LOCK_LOCAL)
		fl_cost(FL_COST_LOCK);
	fl__cacheline_take(line);
}

/*
 * Acquisitions happen in virtual-time order (each is a scheduling point,
 * but for a per-CPU lock's), releases as they come: an unlock only notes
 * when (free_at). A lock found free in host order but released later in
 * virtual time was still held: the taker spins until then.
 */
static bool lock_syncs(const struct fl_spinlock *l)
{
	return !l->cls || (l->cls->kind != FL_LOCK_LOCAL && !l->cls->percpu);
}

static void wait_free_at(struct fl_spinlock *l, struct fl_lock_site *s)
{
	uint64_t now = fl_sim_now();

	if (l->sim.free_gen == fl__sim_gen && l->sim.free_at > now) {
		fl_sim_charge(l->sim.free_at - now); /* spinning: busy */
		fl__lock_contended(s, l->cls, (l->sim.free_at - now) / 1000);
	}
}

bool fl__sim_spin_lock(struct fl_spinlock *l, struct fl_lock_site *s)
{
	unsigned int expected = 0;

	if (!fl_sim_in_task())
		return false;
	if (lock_syncs(l))
		fl_sim_charge(0); /* everything before the lock happens first */
	if (l->sim.handoff == 1 || !__atomic_compare_exchange_n(&l->val, &expected, 1, false,
								__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		spin_lock_slow(l, s); /* queued: handed over by the unlock */
	else {
		/* a mutex taken free while its woken waiter has not run yet */
		if (is_mutex(l) && l->waiters)
			fl_this_cpu_add_u64(&fl__site_stat(s, l->cls)->stolen, 1);
		wait_free_at(l, s);
	}
	lock_cost(l->cls, &l->sim.line);
	hold_begin(l, s, l->cls);
	return true;
}

bool fl__sim_spin_trylock(struct fl_spinlock *l, struct fl_lock_site *s, bool *got)
{
	unsigned int expected = 0;

	if (!fl_sim_in_task())
		return false;
	if (lock_syncs(l))
		fl_sim_charge(0);
	*got = __atomic_compare_exchange_n(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
	if (*got && l->sim.free_gen == fl__sim_gen && l->sim.free_at > fl_sim_now()) {
		/* still held, in virtual time */
		__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
		*got = false;
	}
	if (*got) {
		lock_cost(l->cls, &l->sim.line);
		hold_begin(l, s, l->cls);
	} else {
		fl__cacheline_take(&l->sim.line); /* the failed try reads the line too */
	}
	return true;
}

bool fl__sim_spin_unlock(struct fl_spinlock *l)
{
	uint64_t now;

	if (!fl_sim_in_task())
		return false;
	now = fl_sim_now(); /* the critical section ends at this CPU's time */
	l->sim.free_at = now;
	l->sim.free_gen = fl__sim_gen;
	hold_end(l, now);
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
	if (__atomic_load_n(&l->waiters, __ATOMIC_RELAXED))
		wake(l);
	return true;
}

/* one round; the caller looks again (a wake-up may always come early) */
void fl__sim_word_wait(unsigned long *word, unsigned long val)
{
	if (fl_sim_in_task())
		fl_sim_charge(FL_SIM_SPIN_PS);
	else
		fl__native_ops.word_wait(word, val);
}

void fl__sim_waitq_sleep(struct fl_waitq *wq, unsigned long seen)
{
	if (!fl_sim_in_task()) {
		fl__native_ops.waitq_sleep(wq, seen);
		return;
	}
	/* one host thread: nothing runs between this look and the sleep */
	if (fl_atomic_load(&wq->seq, __ATOMIC_RELAXED) == seen)
		fl_sim_wait(&wq->sim);
}

bool fl__sim_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns)
{
	if (!fl_sim_in_task())
		return fl__native_ops.waitq_sleep_timeout(wq, seen, ns);
	return fl_sim_wait_timeout(&wq->sim, ns * 1000) ||
	       fl_atomic_load(&wq->seq, __ATOMIC_ACQUIRE) != seen;
}

void fl__sim_waitq_wake_all(struct fl_waitq *wq)
{
	if (fl_sim_in_task())
		fl_sim_wake_all(&wq->sim);
	else
		fl__native_ops.waitq_wake_all(wq);
}

/*
 * The simulator's rwsem (sim.h: 6.18's rules). On the host thread (no
 * task runs meanwhile) the state just changes.
 */
void fl__sim_rwsem_lock(struct fl_rwsem *sem, struct fl_lock_site *s, bool write)
{
	uint64_t t0;
	int how;

	if (!fl_sim_in_task()) {
		VM_BUG_ON(sem->sim.writer || (write && sem->sim.readers));
		if (write)
			sem->sim.writer = (struct fl_sim_task *)sem; /* held, by no task */
		else
			sem->sim.readers++;
		return;
	}
	t0 = fl_sim_now() / 1000;
	fl_sim_charge(0);
	how = write ? fl_sim_down_write(&sem->sim) : fl_sim_down_read(&sem->sim);
	lock_cost(sem->cls, &sem->sim.line);
	if (how & FL_SIM_LOCK_WAITED)
		fl__lock_contended(s, sem->cls, fl_sim_now() / 1000 - t0);
	if (how & FL_SIM_LOCK_STOLE)
		fl_this_cpu_add_u64(&fl__site_stat(s, sem->cls)->stolen, 1);
	if (how & FL_SIM_LOCK_HANDOFF)
		fl_this_cpu_add_u64(&fl__site_stat(s, sem->cls)->handoffs, 1);
	hold_begin(sem, s, sem->cls);
}

bool fl__sim_rwsem_read_trylock(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	if (fl_sim_in_task())
		fl_sim_charge(0);
	if (!fl_sim_down_read_trylock(&sem->sim))
		return false;
	if (fl_sim_in_task()) {
		lock_cost(sem->cls, &sem->sim.line);
		hold_begin(sem, s, sem->cls);
	}
	return true;
}

void fl__sim_rwsem_unlock(struct fl_rwsem *sem, bool write)
{
	if (!fl_sim_in_task()) {
		if (write)
			sem->sim.writer = NULL;
		else
			sem->sim.readers--;
		return;
	}
	fl_sim_charge(0); /* the hold ends at this CPU's time */
	hold_end(sem, fl_sim_now());
	if (write)
		fl_sim_up_write(&sem->sim);
	else
		fl_sim_up_read(&sem->sim);
}

void fl__sim_rwsem_downgrade(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	if (!fl_sim_in_task()) {
		sem->sim.writer = NULL;
		sem->sim.readers = 1;
		return;
	}
	fl_sim_charge(0); /* the write hold ends at this CPU's time */
	hold_end(sem, fl_sim_now());
	fl_sim_downgrade_write(&sem->sim);
	hold_begin(sem, s, sem->cls);
}
