/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lock.h - spinlocks, mutexes, local locks and rw semaphores with
 * perf-lock-style contention accounting.
 *
 * Every lock belongs to a struct fl_lock_class (its name, e.g.
 * "lruvec->lru_lock", and its rank for the debug lock-order witness).
 * Every place that takes a lock is a struct fl_lock_site named after the
 * function that takes it (__func__ by default), so the lock table reads
 * like `perf lock contention -b`: one row per class and caller, with
 * acquired, contended (found held on the first try), and total/max/min
 * wait of the contended acquisitions.
 *
 * Statistics are per CPU and written without atomics by the owning CPU,
 * so the uncontended lock + unlock is one compare-and-swap, one exchange
 * and two plain increments. The clock is read only when a lock is found
 * held.
 *
 * Waiting: spin briefly, then park on a futex. Userspace cannot disable
 * preemption, so a waiter must never burn its time slice while the holder
 * is descheduled: 20 threads on 2 cores make progress.
 *
 * Conventions in this file: "site" is the caller, "class" the lock kind;
 * val is 0 unlocked, 1 locked; waiters counts threads parked on val.
 */
#ifndef FL_PLATFORM_LOCK_H
#define FL_PLATFORM_LOCK_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "atomic.h"
#include "compiler.h"
#include "cost.h"
#include "bug.h"
#include "platform.h"
#include "sim/sim.h"

#define FL_LOCK_SITES_MAX 256

enum fl_lock_kind {
	FL_LOCK_SPIN,
	FL_LOCK_MUTEX,
	FL_LOCK_LOCAL,
	FL_LOCK_RWSEM,
};

struct fl_lock_class {
	const char *name;
	int rank; /* debug witness: locks are taken in increasing rank */
	enum fl_lock_kind kind;
	/*
	 * A per-CPU lock that another CPU takes only to drain it (pcp->lock):
	 * on sim taking it is no scheduling point (a local_lock never is)
	 */
	bool percpu;
};

struct fl_lock_site {
	const char *func;
	const struct fl_lock_class *cls; /* set at registration */
	int id;				 /* 0 until registered; atomic */
	unsigned char mode;		 /* 0 plain/write, 1 read */
};

struct fl_lock_stat {
	uint64_t acquired;
	uint64_t contended;
	uint64_t wait_total_ns;
	uint64_t wait_max_ns;
	uint64_t wait_min_ns;
	uint64_t hold_total_ps; /* sim: virtual time held (picoseconds) */
	uint64_t stolen;	/* sim, rwsem and mutex: taken free while others waited */
	uint64_t handoffs;	/* sim, rwsem and mutex: given to the waiter that asked */
};

struct fl_spinlock {
	unsigned int val;     /* atomic */
	unsigned int waiters; /* atomic: threads parked (or about to park) on val */
	const struct fl_lock_class *cls;
	struct fl_sim_lock sim; /* the simulator's, touched by sim/ only */
};

struct fl_mutex {
	struct fl_spinlock sl;
};

struct fl_rwsem {
	pthread_rwlock_t rw;	 /* native's */
	struct fl_sim_rwsem sim; /* the simulator's: readers, writer, waiters in order, the line */
	const struct fl_lock_class *cls;
};

/* One static site per call site, named after the enclosing function. */
#define FL_LOCK_SITE(var) static struct fl_lock_site var = { .func = __func__ }
#define FL_LOCK_SITE_NAMED(var, name) static struct fl_lock_site var = { .func = name }
#define FL_LOCK_SITE_READ(var) static struct fl_lock_site var = { .func = __func__, .mode = 1 }

extern struct fl_lock_stat *fl__lock_stats; /* [cpu][FL_LOCK_SITES_MAX] */
/* this thread's CPU row of fl__lock_stats (a spare row while unbound) */
extern _Thread_local struct fl_lock_stat *fl__this_cpu_lock_stats;

int fl__lock_stats_init(int nr_cpus);
void fl__lock_stats_bind(int cpu);
void fl__lock_stats_exit(void);
int fl__lock_site_register(struct fl_lock_site *s, const struct fl_lock_class *cls);
void fl__lock_contended(struct fl_lock_site *s, const struct fl_lock_class *cls, uint64_t wait_ns);
/* native/lock.c: a spinlock found held (spin, then park), and the wake-up of the parked */
void fl__spin_lock_slow(struct fl_spinlock *l, struct fl_lock_site *s);
void fl__spin_wake(struct fl_spinlock *l);
/*
 * sim/lock.c, on sim, in a task: the lock and unlock are scheduling
 * points (the critical section's time is settled first) and charge the
 * lock's cost and its line's moves. Return: false outside a task (the
 * host thread, between runs: do it natively).
 */
bool fl__sim_spin_lock(struct fl_spinlock *l, struct fl_lock_site *s);
bool fl__sim_spin_trylock(struct fl_spinlock *l, struct fl_lock_site *s, bool *got);
bool fl__sim_spin_unlock(struct fl_spinlock *l);

/* a simulated task's held locks travel with it across switches (sim.c) */
void fl__witness_save(void *buf);
void fl__witness_load(const void *buf);
#if FL_DEBUG >= 2
void fl__witness_acquire(const struct fl_lock_class *cls, const void *lock);
void fl__witness_release(const struct fl_lock_class *cls, const void *lock);
#else
static inline void fl__witness_acquire(const struct fl_lock_class *cls, const void *lock)
{
	(void)cls;
	(void)lock;
}
static inline void fl__witness_release(const struct fl_lock_class *cls, const void *lock)
{
	(void)cls;
	(void)lock;
}
#endif

static __always_inline struct fl_lock_stat *fl__site_stat(struct fl_lock_site *s,
							  const struct fl_lock_class *cls)
{
	int id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);

	if (unlikely(!id))
		id = fl__lock_site_register(s, cls);
	return &fl__this_cpu_lock_stats[id];
}

/**
 * fl__lock_acquired() - count one acquisition at @s.
 * Context: the caller owns the current CPU, so plain increments suffice.
 */
static __always_inline void fl__lock_acquired(struct fl_lock_site *s,
					      const struct fl_lock_class *cls)
{
	struct fl_lock_stat *st = fl__site_stat(s, cls);

	fl_this_cpu_add_u64(&st->acquired, 1);
}

static inline void fl_spin_lock_init(struct fl_spinlock *l, const struct fl_lock_class *cls)
{
	l->val = 0;
	l->waiters = 0;
	l->cls = cls;
	memset(&l->sim, 0, sizeof(l->sim));
}

static __always_inline void fl_spin_lock_at(struct fl_spinlock *l, struct fl_lock_site *s)
{
	unsigned int expected = 0;

	fl__witness_acquire(l->cls, l);
	if (fl_sim_branch() && fl__sim_spin_lock(l, s)) {
		fl__lock_acquired(s, l->cls);
		return;
	}
	/* acquire: the critical section sees the previous holder's writes */
	if (unlikely(!fl_atomic_cmpxchg(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)))
		fl__spin_lock_slow(l, s);
	fl__lock_acquired(s, l->cls);
}

static __always_inline bool fl_spin_trylock_at(struct fl_spinlock *l, struct fl_lock_site *s)
{
	unsigned int expected = 0;
	bool got;

	if (fl_sim_branch() && fl__sim_spin_trylock(l, s, &got)) {
		if (!got)
			return false;
	} else if (!fl_atomic_cmpxchg(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
				      __ATOMIC_RELAXED)) {
		return false;
	}
	fl__witness_acquire(l->cls, l);
	fl__lock_acquired(s, l->cls);
	return true;
}

/*
 * Unlock is a plain release store, not a read-modify-write: the
 * uncontended pair costs one atomic. A waiter that parks in the instant
 * between our store and our read of ->waiters can miss this wake-up; it
 * sleeps with a short timeout, so the miss costs it at most that long.
 */
static __always_inline void fl_spin_unlock(struct fl_spinlock *l)
{
	fl__witness_release(l->cls, l);
	if (fl_sim_branch() && fl__sim_spin_unlock(l))
		return;
	/* release: our critical section is visible to the next holder */
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
	if (unlikely(__atomic_load_n(&l->waiters, __ATOMIC_RELAXED)))
		fl__spin_wake(l);
}

/*
 * A raw lock: no statistics, no witness. Only for the model's own
 * bookkeeping that has no kernel counterpart, so it stays out of the
 * lock table (e.g. the pool of page-table host memory).
 */
static inline void fl_raw_spin_lock(struct fl_spinlock *l)
{
	unsigned int expected = 0;

	while (!fl_atomic_cmpxchg(&l->val, &expected, 1, false, __ATOMIC_ACQUIRE,
				  __ATOMIC_RELAXED)) {
		expected = 0;
		fl_yield();
	}
}

static inline void fl_raw_spin_unlock(struct fl_spinlock *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}

#define spin_lock(l)                                                                               \
	do {                                                                                       \
		FL_LOCK_SITE(fl_site_);                                                            \
		fl_spin_lock_at((l), &fl_site_);                                                   \
	} while (0)
#define spin_unlock(l) fl_spin_unlock(l)
/* The kernel's _irq/_irqsave variants: userspace has no IRQs to mask. */
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)

/* local_lock: a per-CPU lock; a real lock here so remote drains are safe. */
#define local_lock(l) spin_lock(l)
#define local_unlock(l) spin_unlock(l)

static inline void fl_mutex_init(struct fl_mutex *m, const struct fl_lock_class *cls)
{
	fl_spin_lock_init(&m->sl, cls);
}
#define mutex_lock(m) spin_lock(&(m)->sl)
#define mutex_unlock(m) spin_unlock(&(m)->sl)

/* lock_stat.c */
int fl_rwsem_init(struct fl_rwsem *sem, const struct fl_lock_class *cls);
void fl_rwsem_destroy(struct fl_rwsem *sem);

/* The rwsem: the platform's part through the table, the witness and the counts here. */
static inline void fl_down_read_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	fl__witness_acquire(sem->cls, sem);
	fl__platform->rwsem_lock(sem, s, false);
	fl__lock_acquired(s, sem->cls);
}

static inline void fl_down_write_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	fl__witness_acquire(sem->cls, sem);
	fl__platform->rwsem_lock(sem, s, true);
	fl__lock_acquired(s, sem->cls);
}

static inline bool fl_down_read_trylock_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	if (!fl__platform->rwsem_read_trylock(sem, s))
		return false;
	fl__witness_acquire(sem->cls, sem);
	fl__lock_acquired(s, sem->cls);
	return true;
}

static inline void fl_up_read(struct fl_rwsem *sem)
{
	fl__witness_release(sem->cls, sem);
	fl__platform->rwsem_unlock(sem, false);
}

static inline void fl_up_write(struct fl_rwsem *sem)
{
	fl__witness_release(sem->cls, sem);
	fl__platform->rwsem_unlock(sem, true);
}

#define down_read(sem)                                                                             \
	do {                                                                                       \
		FL_LOCK_SITE_READ(fl_site_);                                                       \
		fl_down_read_at((sem), &fl_site_);                                                 \
	} while (0)
#define down_write(sem)                                                                            \
	do {                                                                                       \
		FL_LOCK_SITE(fl_site_);                                                            \
		fl_down_write_at((sem), &fl_site_);                                                \
	} while (0)
#define down_read_trylock(sem)                                                                     \
	__extension__({                                                                            \
		FL_LOCK_SITE_READ(fl_site_);                                                       \
		fl_down_read_trylock_at(sem, &fl_site_);                                           \
	})
#define up_read(sem) fl_up_read(sem)
#define up_write(sem) fl_up_write(sem)
/*
 * downgrade_write() - the writer becomes a reader, atomically: the read
 * hold counts as an acquisition at the calling function's read site. On
 * sim the queued readers join it (6.18's rwsem_downgrade_wake()); a
 * pthread rwlock cannot downgrade, so natively the write hold goes on to
 * the up_read() (readers wait it out).
 */
static inline void fl_downgrade_write_at(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	fl__platform->rwsem_downgrade(sem, s);
	fl__lock_acquired(s, sem->cls);
}
#define downgrade_write(sem)                                                                       \
	do {                                                                                       \
		FL_LOCK_SITE_READ(fl_site_);                                                       \
		fl_downgrade_write_at((sem), &fl_site_);                                           \
	} while (0)

/* Reading the table: one row per (class, site) with any acquisition. */
struct fl_lock_row {
	const char *class_name;
	const char *site;
	const char *kind; /* "spinlock", "mutex", "local_lock", "rwsem:R", "rwsem:W" */
	struct fl_lock_stat st;
};

/**
 * fl__lock_stats_read() - sum the per-CPU statistics.
 * @rows: array of at least FL_LOCK_SITES_MAX rows.
 * Return: number of rows filled.
 */
int fl__lock_stats_read(struct fl_lock_row *rows);

/*
 * Sleeping on a word, for locks that live in bits of a larger word (the
 * folio lock, PG_locked in folio->flags): fl_word_wait() sleeps while the
 * low 32 bits of *@word still equal those of @val, and may return early
 * for no reason (callers look again); fl_word_wake_all() wakes every
 * thread sleeping on @word (native/lock.c). On sim a task's wait is a
 * round of virtual time and the wake-up finds nobody parked.
 */
static inline void fl_word_wait(unsigned long *word, unsigned long val)
{
	fl__platform->word_wait(word, val);
}
void fl_word_wake_all(unsigned long *word);

/*
 * A wait queue for a kernel thread that sleeps until there is work
 * (kswapd): fl_waitq_prepare() says the caller is about to sleep and
 * returns the wake-up count to sleep on; fl_waitq_sleep() sleeps while no
 * wake-up came since (native: may return early, the caller looks again;
 * on virtual CPUs the task sleeps, its CPU idle, until woken), then
 * leaves the queue; fl_waitq_active() tells whether anyone prepared to
 * sleep; fl_waitq_wake_all() wakes them all.
 */
struct fl_waitq {
	unsigned long seq;    /* atomic: wake-ups so far */
	unsigned int waiters; /* atomic: prepared to sleep */
	struct fl_sim_waitq sim;
};
static inline unsigned long fl_waitq_prepare(struct fl_waitq *wq)
{
	fl_atomic_fetch_add(&wq->waiters, 1u, __ATOMIC_SEQ_CST);
	return fl_atomic_load(&wq->seq, __ATOMIC_SEQ_CST);
}

static inline void fl_waitq_sleep(struct fl_waitq *wq, unsigned long seen)
{
	fl__platform->waitq_sleep(wq, seen);
}

/* the same for at most @ns; Return: whether a wake-up came (else the time ran out) */
static inline bool fl_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns)
{
	if (fl_atomic_load(&wq->seq, __ATOMIC_ACQUIRE) != seen)
		return true;
	return fl__platform->waitq_sleep_timeout(wq, seen, ns);
}

static inline void fl_waitq_finish(struct fl_waitq *wq)
{
	fl_atomic_fetch_sub(&wq->waiters, 1u, __ATOMIC_SEQ_CST);
}

static inline bool fl_waitq_active(struct fl_waitq *wq)
{
	return fl_atomic_load(&wq->waiters, __ATOMIC_SEQ_CST) != 0;
}

static inline void fl_waitq_wake_all(struct fl_waitq *wq)
{
	fl_atomic_fetch_add(&wq->seq, 1ul, __ATOMIC_SEQ_CST);
	fl__platform->waitq_wake_all(wq);
}
void fl__lock_stats_reset(void);

#endif /* FL_PLATFORM_LOCK_H */
