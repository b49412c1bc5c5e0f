// SPDX-License-Identifier: GPL-2.0-only
/*
 * native/lock.c - the native platform's waits: the spinlock's slow path,
 * words and wait queues slept on with futexes, rwsems as pthread rwlocks.
 *
 * The spinlock is a three-state futex lock: a brief spin catches the
 * common short critical section, then the waiter marks the lock "2" and
 * sleeps in the kernel until the holder's unlock wakes it. That is what
 * keeps 20 threads on 2 cores live when a holder is preempted.
 *
 * Conventions in this file: a futex sleep is bounded (PARK_TIMEOUT_NS), so
 * a wake-up missed between a store and the sleep costs at most that long.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "../lock.h"
#include "native.h"

#define SPIN_TRIES 128
#define PARK_TIMEOUT_NS 200000 /* bounds a wake-up missed by the unlock (lock.h) */

static long futex(unsigned int *uaddr, int op, unsigned int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, NULL, 0);
}

void fl__spin_lock_slow(struct fl_spinlock *l, struct fl_lock_site *s)
{
	uint64_t t0 = fl__native_clock_ns();
	unsigned int expected;
	int i;

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
	fl__lock_contended(s, l->cls, fl__native_clock_ns() - t0);
}

void fl__spin_wake(struct fl_spinlock *l)
{
	futex(&l->val, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* x86-64 is little-endian: the word's low 32 bits are its first four bytes */
void fl__native_word_wait(unsigned long *word, unsigned long val)
{
	struct timespec ts = { 0, PARK_TIMEOUT_NS };

	futex((unsigned int *)word, FUTEX_WAIT_PRIVATE, (unsigned int)val, &ts);
}

void fl_word_wake_all(unsigned long *word)
{
	futex((unsigned int *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

void fl__native_waitq_sleep(struct fl_waitq *wq, unsigned long seen)
{
	struct timespec ts = { 0, PARK_TIMEOUT_NS };

	futex((unsigned int *)&wq->seq, FUTEX_WAIT_PRIVATE, (unsigned int)seen, &ts);
}

bool fl__native_waitq_sleep_timeout(struct fl_waitq *wq, unsigned long seen, uint64_t ns)
{
	uint64_t end = fl__native_clock_ns() + ns;

	for (;;) {
		uint64_t now = fl__native_clock_ns();
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

void fl__native_waitq_wake_all(struct fl_waitq *wq)
{
	futex((unsigned int *)&wq->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

void fl__native_rwsem_lock(struct fl_rwsem *sem, struct fl_lock_site *s, bool write)
{
	uint64_t t0;

	if ((write ? pthread_rwlock_trywrlock(&sem->rw) : pthread_rwlock_tryrdlock(&sem->rw)) == 0)
		return;
	t0 = fl__native_clock_ns();
	if (write)
		pthread_rwlock_wrlock(&sem->rw);
	else
		pthread_rwlock_rdlock(&sem->rw);
	fl__lock_contended(s, sem->cls, fl__native_clock_ns() - t0);
}

bool fl__native_rwsem_read_trylock(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	(void)s;
	return pthread_rwlock_tryrdlock(&sem->rw) == 0;
}

void fl__native_rwsem_unlock(struct fl_rwsem *sem, bool write)
{
	(void)write;
	pthread_rwlock_unlock(&sem->rw);
}

/*
 * A pthread rwlock cannot downgrade: the write hold goes on to the
 * up_read() (readers wait it out), which unlocks it.
 */
void fl__native_rwsem_downgrade(struct fl_rwsem *sem, struct fl_lock_site *s)
{
	(void)sem;
	(void)s;
}
