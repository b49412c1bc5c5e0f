// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-locks.c - the platform locks: acquisitions and contentions are
 * counted per class and call site, the wait of a contended acquisition is
 * at least as long as the holder held it, 20 threads on few cores make
 * progress and never lose an update, and the rw semaphore lets readers
 * share and writers exclude: a writer that asks while a reader is inside
 * waits until none is.
 *
 * Conventions in this file: each thread binds its own model CPU, as mm/
 * code requires.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "../src/platform/platform.h"
#include "../src/platform/lock.h"

static const struct fl_lock_class test_class = { .name = "test->lock",
						 .rank = 1,
						 .kind = FL_LOCK_SPIN };
static const struct fl_lock_class test_rw_class = { .name = "test->sem",
						    .rank = 1,
						    .kind = FL_LOCK_RWSEM };
static struct fl_spinlock lock;
static struct fl_rwsem sem;
static long shared_counter;
static struct fl_lock_site try_site = { .func = "trysite" };

static const struct fl_lock_row *row(struct fl_lock_row *rows, int n, const char *site)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].site, site) && !strcmp(rows[i].class_name, test_class.name))
			return &rows[i];
	return NULL;
}

static void take_ten(void)
{
	int i;

	for (i = 0; i < 10; i++) {
		spin_lock(&lock);
		spin_unlock(&lock);
	}
}

static bool test_uncontended_counts_per_site(void)
{
	static struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	const struct fl_lock_row *r;
	int n;

	ASSERT_EQ(fl__platform_init(2), 0);
	ASSERT_EQ(fl_cpu_bind(0), 0);
	fl_spin_lock_init(&lock, &test_class);
	take_ten();
	/* a trylock counts when it succeeds, and a failed one is no contention */
	ASSERT_TRUE(fl_spin_trylock_at(&lock, &try_site));
	ASSERT_TRUE(!fl_spin_trylock_at(&lock, &try_site));
	spin_unlock(&lock);
	n = fl__lock_stats_read(rows);
	r = row(rows, n, "take_ten");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->st.acquired, 10);
	ASSERT_EQ(r->st.contended, 0);
	ASSERT_STREQ(r->kind, "spinlock");
	r = row(rows, n, "trysite");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->st.acquired, 1);
	ASSERT_EQ(r->st.contended, 0);
	fl_cpu_unbind();
	fl__platform_exit();
	return true;
}

static void *holder(void *arg)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	(void)arg;
	fl_cpu_bind(1);
	spin_lock(&lock);
	__atomic_store_n(&shared_counter, 1, __ATOMIC_RELEASE);
	nanosleep(&ts, NULL); /* hold it 20 ms */
	spin_unlock(&lock);
	fl_cpu_unbind();
	return NULL;
}

static void contended_take(void)
{
	spin_lock(&lock);
	spin_unlock(&lock);
}

static bool test_contended_wait_is_measured(void)
{
	static struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	const struct fl_lock_row *r;
	pthread_t t;
	int n;

	ASSERT_EQ(fl__platform_init(2), 0);
	ASSERT_EQ(fl_cpu_bind(0), 0);
	fl_spin_lock_init(&lock, &test_class);
	shared_counter = 0;
	ASSERT_EQ(pthread_create(&t, NULL, holder, NULL), 0);
	while (!__atomic_load_n(&shared_counter, __ATOMIC_ACQUIRE))
		sched_yield();
	contended_take();
	pthread_join(t, NULL);
	n = fl__lock_stats_read(rows);
	r = row(rows, n, "contended_take");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->st.acquired, 1);
	ASSERT_EQ(r->st.contended, 1);
	ASSERT_GE(r->st.wait_total_ns, 5 * 1000 * 1000); /* most of the 20 ms hold */
	ASSERT_EQ(r->st.wait_max_ns, r->st.wait_total_ns);
	ASSERT_EQ(r->st.wait_min_ns, r->st.wait_total_ns);
	fl_cpu_unbind();
	fl__platform_exit();
	return true;
}

#define HAMMER_THREADS 20
#define HAMMER_ITERS 20000

static pthread_barrier_t start;

static void *hammer(void *arg)
{
	int cpu = (int)(long)arg, i;

	fl_cpu_bind(cpu);
	pthread_barrier_wait(&start); /* all at once: they must overlap */
	for (i = 0; i < HAMMER_ITERS; i++) {
		spin_lock(&lock);
		/* plain increment: only the lock makes it exact */
		shared_counter = shared_counter + 1;
		spin_unlock(&lock);
	}
	fl_cpu_unbind();
	return NULL;
}

static bool test_twenty_threads_make_progress(void)
{
	static struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	pthread_t t[HAMMER_THREADS];
	const struct fl_lock_row *r;
	struct timespec ms = { 0, 1000 * 1000 };
	long i;
	int n;

	/* CPU HAMMER_THREADS is this thread's, which holds the lock at the start */
	ASSERT_EQ(fl__platform_init(HAMMER_THREADS + 1), 0);
	ASSERT_EQ(fl_cpu_bind(HAMMER_THREADS), 0);
	fl_spin_lock_init(&lock, &test_class);
	shared_counter = 0;
	pthread_barrier_init(&start, NULL, HAMMER_THREADS + 1);
	for (i = 0; i < HAMMER_THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, hammer, (void *)i), 0);
	/*
	 * Held until a thread has parked on it, however busy the machine
	 * (other processes may keep the threads from ever meeting on their
	 * own): at least that one acquisition is contended
	 */
	spin_lock(&lock);
	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&lock.waiters, __ATOMIC_SEQ_CST))
		nanosleep(&ms, NULL);
	spin_unlock(&lock);
	for (i = 0; i < HAMMER_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	ASSERT_EQ(shared_counter, HAMMER_THREADS * HAMMER_ITERS);
	n = fl__lock_stats_read(rows);
	r = row(rows, n, "hammer");
	ASSERT_TRUE(r != NULL);
	ASSERT_EQ(r->st.acquired, HAMMER_THREADS * HAMMER_ITERS);
	ASSERT_GT(r->st.contended, 0);
	ASSERT_LE(r->st.contended, r->st.acquired);
	ASSERT_LE(r->st.wait_min_ns, r->st.wait_max_ns);
	fl_cpu_unbind();
	fl__platform_exit();
	return true;
}

static int readers_in;	 /* atomic */
static int max_readers;	 /* atomic */
static int readers_stop; /* atomic */

static void *reader(void *arg)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	int cpu = (int)(long)arg, in;

	fl_cpu_bind(cpu);
	while (!__atomic_load_n(&readers_stop, __ATOMIC_ACQUIRE)) {
		down_read(&sem);
		in = __atomic_add_fetch(&readers_in, 1, __ATOMIC_RELAXED);
		if (in > __atomic_load_n(&max_readers, __ATOMIC_RELAXED))
			__atomic_store_n(&max_readers, in, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
		__atomic_sub_fetch(&readers_in, 1, __ATOMIC_RELAXED);
		up_read(&sem);
	}
	fl_cpu_unbind();
	return NULL;
}

static bool test_rwsem_readers_share_writers_exclude(void)
{
	pthread_t t[3];
	long i;

	ASSERT_EQ(fl__platform_init(4), 0);
	ASSERT_EQ(fl_cpu_bind(0), 0);
	ASSERT_EQ(fl_rwsem_init(&sem, &test_rw_class), 0);
	readers_in = max_readers = readers_stop = 0;
	for (i = 0; i < 3; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, reader, (void *)(i + 1)), 0);
	for (i = 0; i < 20; i++) {
		/* a reader holds the semaphore: the writer must wait it out */
		while (!__atomic_load_n(&readers_in, __ATOMIC_ACQUIRE))
			sched_yield();
		down_write(&sem);
		ASSERT_EQ(__atomic_load_n(&readers_in, __ATOMIC_RELAXED), 0);
		up_write(&sem);
	}
	__atomic_store_n(&readers_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	ASSERT_GE(max_readers, 2); /* they did overlap */
	fl_rwsem_destroy(&sem);
	fl_cpu_unbind();
	fl__platform_exit();
	return true;
}

TEST_MAIN(TEST(test_uncontended_counts_per_site), TEST(test_contended_wait_is_measured),
	  TEST(test_twenty_threads_make_progress), TEST(test_rwsem_readers_share_writers_exclude))
