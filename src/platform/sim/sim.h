/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sim.h - virtual CPUs in virtual time: the core of platform/sim.
 *
 * Every task (a workload thread, later a kernel thread) is a coroutine,
 * and all of them run on the one host thread that calls fl_sim_run(). A
 * virtual CPU has a clock, a run queue and at most one running task. The
 * simulator always resumes the CPU whose clock is smallest among those
 * with a task able to run, ties broken by a stream seeded with @seed, so
 * what happens is a function of the tasks, the seed and the times they
 * charge: two runs with the same inputs do the same things at the same
 * virtual times.
 *
 * Time passes only when a task charges it (fl_sim_charge(): the CPU is
 * busy), waits for a spinlock (busy: it spins), or sleeps (its CPU runs
 * another task of its queue, or idles). Every charge is a scheduling
 * point: a task runs on only while its CPU's clock is the smallest.
 *
 * A spinlock in virtual time (struct fl_sim_spinlock) serves its waiters
 * in order, as a qspinlock's queue does; each transfer to a waiter costs
 * the hand-off time. It counts acquisitions, contended ones (found held)
 * and the virtual time waited.
 *
 * Conventions in this file: times are virtual picoseconds (the platform
 * charges costs in ps, fl_clock_ns() divides); "the current
 * task" is the coroutine running now (only between fl_sim_run()'s start
 * and end); CPU ids are 0..nr_cpus-1.
 */
#ifndef FL_PLATFORM_SIM_H
#define FL_PLATFORM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../cost.h"

struct fl_sim_task;

/*
 * A task's share of the per-thread state, switched with it: the lock-order
 * witness's (lock.h) in its first FL_SIM_TLS_WITNESS bytes, then the
 * locks it holds (sim/lock.c). fl__sim_tls is the running task's (NULL on
 * the host thread).
 */
#define FL_SIM_TLS_SIZE 640
#define FL_SIM_TLS_WITNESS 320
extern unsigned char *fl__sim_tls;
#define FL_SIM_SPIN_PS 20000 /* virtual time of one round of a wait loop: 20 ns */

/* A queue of tasks waiting for a lock, in arrival order. */
struct fl_sim_waitq {
	struct fl_sim_task *head, *tail;
	struct fl_sim_task *timed; /* fl_sim_wait_timeout()'s sleepers, any order */
};

struct fl_sim_spinlock {
	struct fl_sim_task *owner;
	struct fl_sim_waitq q; /* its spinners */
	uint64_t acquired;
	uint64_t contended;
	uint64_t wait_total;
	uint64_t wait_max;
};

struct fl_sim_lockstat {
	uint64_t acquired;
	uint64_t contended; /* found held (or, for a reader, a writer waiting) */
	uint64_t wait_total;
	uint64_t wait_max;
	uint64_t stolen;   /* rwsem: taken free while others waited */
	uint64_t handoffs; /* rwsem: given to a waiter that asked for it */
};

/*
 * A mutex in virtual time: a waiter sleeps (its CPU runs another task of
 * its queue, or idles) until the holder's unlock hands it the mutex; it
 * can run one hand-off later.
 */
struct fl_sim_mutex {
	struct fl_sim_task *owner;
	struct fl_sim_waitq q;
	struct fl_sim_lockstat st;
};

/*
 * An rwsem in virtual time, by 6.18's rules (sim.c, above
 * fl_sim_down_read()): readers share it, a writer has it alone; waiters
 * sleep in arrival order; a release wakes the first writer in line, which
 * takes the lock when it runs if nobody took it first, or grants every
 * queued reader theirs; a writer that waited 4 ms first in line asks for
 * a hand-off, after which nobody steals.
 */
struct fl_sim_rwsem {
	int readers;
	struct fl_sim_task *writer;
	bool handoff; /* RWSEM_FLAG_HANDOFF */
	struct fl_sim_waitq q;
	struct fl_sim_lockstat st;
	struct fl_cacheline line; /* the count's last CPU */
};

/* A platform spinlock's or mutex's state on sim (lock.h: struct fl_spinlock). */
struct fl_sim_lock {
	struct fl_cacheline line; /* the lock word's last CPU */
	uint64_t free_at;	  /* when its last holder released it (ps) */
	unsigned int free_gen;	  /* the simulation free_at belongs to */
	unsigned char handoff;	  /* a mutex: MUTEX_FLAG_HANDOFF (1 asked, 2 handed over) */
};

/* what fl_sim_down_read() and fl_sim_down_write() did */
#define FL_SIM_LOCK_WAITED 1  /* found it taken and slept */
#define FL_SIM_LOCK_STOLE 2   /* took it free while others waited */
#define FL_SIM_LOCK_HANDOFF 4 /* given it by the release, having asked */

/**
 * fl_sim_init() - @nr_cpus virtual CPUs (1..1024) at time 0, the tie-break
 * stream seeded with @seed, each transfer of a spinlock to a waiter
 * costing @handoff. Return: 0, -EINVAL or -ENOMEM.
 */
int fl_sim_init(int nr_cpus, uint64_t seed, uint64_t handoff);
void fl_sim_exit(void);

/** fl_sim_spawn() - a task running @fn(@arg) on @cpu's run queue. Return: 0 or -errno. */
int fl_sim_spawn(int cpu, void (*fn)(void *), void *arg);

/**
 * fl_sim_run() - run every task to its end. Return: 0, or -EDEADLK when
 * tasks remain that wait for something no task will do.
 */
int fl_sim_run(void);

/* Whether a simulated task is running now (else: the host thread itself). */
bool fl_sim_in_task(void);

/* In a task: */
void fl_sim_charge(uint64_t t);
/* fl__sim_debt (cost.h) is charged too at every entry from a task. */
void fl_sim_sleep(uint64_t t);
/*
 * An interrupt of @t (ps) on @cpu, another CPU than the running task's:
 * if a task is on it (at a scheduling point, or spinning), its CPU's time
 * grows by @t (busy). Return: whether it was taken.
 */
bool fl_sim_interrupt(int cpu, uint64_t t);
/*
 * The scheduler tick: a task that has had its CPU for FL_SIM_TICK_PS
 * (one jiffy at HZ 250, the hosts' CONFIG_HZ; 6.18's EEVDF slice of at
 * most 3 ms ends at the first tick after it) gives it, at its next point
 * in user mode (fl_sim_preempt()), to the task at the head of the CPU's
 * run queue, if that one is ready, and waits at the back. A task that
 * sleeps or ends gives its CPU away anyway.
 */
#define FL_SIM_TICK_PS 4000000000ull
/* a point in user mode: switch if the tick says so. Return: true if it switched */
bool fl_sim_preempt(void);
uint64_t fl_sim_now(void);
/* the current task's time with its debt, without settling it (no scheduling point) */
uint64_t fl__sim_time(void);
int fl_sim_cpu(void);
void fl_sim_spin_lock(struct fl_sim_spinlock *l);
void fl_sim_spin_unlock(struct fl_sim_spinlock *l);
/*
 * A platform lock (at @key) found held: spin (or, with @sleep, as a
 * mutex's waiter, sleep: the CPU may run another task or idle), queued in
 * order, until its holder's release hands it over (fl_sim_spin_handoff(),
 * which returns whether anyone was waiting). Return: 0, or -ENOMEM
 * (nothing queued).
 */
int fl_sim_spin_wait(const void *key, bool sleep);
bool fl_sim_spin_handoff(const void *key);
/* ... with @first: a mutex's woken waiter that lost the lock sleeps again, first in line */
int fl__sim_spin_wait(const void *key, bool sleep, bool first);
/*
 * A mutex's release: wake the first sleeper at @key, who runs a wake-up
 * later and tries for the lock (it is not handed over). Return: whether
 * anyone was waiting.
 */
bool fl_sim_spin_wake_first(const void *key);
/* Sleep in @q (the CPU idles or runs another task) until fl_sim_wake_all(@q). */
void fl_sim_wait(struct fl_sim_waitq *q);
/*
 * Sleep in @q for at most @t (ps). Return: true if fl_sim_wake_all(@q)
 * woke it, false if the time ran out.
 */
bool fl_sim_wait_timeout(struct fl_sim_waitq *q, uint64_t t);
/* Wake every task sleeping in @q: each can run from the waker's time on. */
void fl_sim_wake_all(struct fl_sim_waitq *q);
void fl_sim_mutex_lock(struct fl_sim_mutex *m);
void fl_sim_mutex_unlock(struct fl_sim_mutex *m);
/*
 * A sleeping lock's waiter runs @t (ps) after its wake-up (the waker's
 * time); fl_sim_init() sets it to the hand-off time.
 */
void fl_sim_set_wakeup(uint64_t t);
/* Return: FL_SIM_LOCK_* bits */
int fl_sim_down_read(struct fl_sim_rwsem *r);
int fl_sim_down_write(struct fl_sim_rwsem *r);
void fl_sim_up_read(struct fl_sim_rwsem *r);
void fl_sim_up_write(struct fl_sim_rwsem *r);
void fl_sim_downgrade_write(struct fl_sim_rwsem *r);
/* also from the host thread (no task runs): no waiting, no scheduling point */
bool fl_sim_down_read_trylock(struct fl_sim_rwsem *r);

/* After fl_sim_run(): */
uint64_t fl_sim_end_time(void);	   /* the largest CPU clock */
uint64_t fl_sim_cpu_busy(int cpu); /* charged or spinning */
uint64_t fl_sim_cpu_idle(int cpu); /* no task could run */
uint64_t fl_sim_switches(void);	   /* coroutine switches made */
uint64_t fl_sim_preemptions(void); /* of them, tick preemptions */
/* host memory the simulator holds (structures, touched task stacks); after exit: the last run's */
size_t fl_sim_memory(void);

/* sim/lock.c: the platform's waits and rwsems (platform.h: struct fl_platform_ops) */
struct fl_waitq;
struct fl_rwsem;
struct fl_lock_site;
void fl__sim_word_wait(unsigned long *word, unsigned long val);
void fl__sim_waitq_sleep(struct fl_waitq *wq, unsigned long seen);
bool fl__sim_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns);
void fl__sim_waitq_wake_all(struct fl_waitq *wq);
void fl__sim_rwsem_lock(struct fl_rwsem *sem, struct fl_lock_site *s, bool write);
bool fl__sim_rwsem_read_trylock(struct fl_rwsem *sem, struct fl_lock_site *s);
void fl__sim_rwsem_unlock(struct fl_rwsem *sem, bool write);
void fl__sim_rwsem_downgrade(struct fl_rwsem *sem, struct fl_lock_site *s);

#endif /* FL_PLATFORM_SIM_H */
