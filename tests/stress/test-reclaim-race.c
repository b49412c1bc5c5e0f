// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-reclaim-race.c - reclaim (MADV_PAGEOUT to a zram swap, MADV_FREE
 * dropped by it) while other CPUs fault, read, zap and split the same
 * memory.
 *
 * One process maps 4 MiB: region A (the first 2 MiB) and region B (the
 * second), 16K folios, PMD THPs where they fit.
 *   CPU 1, the writer: writes a fresh tag to every page of A and reads it
 *     back; a page may read 0 (zapped, or lazy-free and dropped, in
 *     between), never another tag. Swap-ins come back with their tags.
 *   CPU 2, the zapper: MADV_DONTNEED of a random 4K or 64K piece of A, now
 *     and then MADV_FREE of one instead.
 *   CPU 3, the pager: MADV_PAGEOUT of a random piece of A, and of all of
 *     B every eighth time, so swap entries and their slots come and go
 *     under the writer's faults and the zapper's zaps.
 *   CPU 0, the reader and splitter: reads every page of B, which is never
 *     zapped or freed, so it must always read its own tag (from memory or
 *     back from swap); between passes it splits the whole mapping to a
 *     random order and runs the deferred split shrinker.
 * The run must see swap-outs and swap-ins, no tag out of place, and
 * mm_down()'s teardown check (every frame and every swap slot free, zram
 * empty) must hold.
 *
 * The second case puts the LRU scan under the same kind of load: a 16
 * MiB machine with kswapd, three CPUs each writing and reading back their
 * own 8 MiB (more than fits: kswapd and direct reclaim swap it out while
 * it is used), one of them now and then zapping or MADV_FREEing a piece of
 * its own, and CPU 0 splitting everything and running the deferred split
 * shrinker. Every tag must read back (0 only where its owner zapped).
 * The third case is the second in a memcg of 8 MiB on a 64 MiB machine:
 * the memcg's limit makes the pressure, its reclaim and its deferred
 * split queue race with the faults and splits.
 * Run under TSan by make SAN=thread check-stress.
 *
 * Usage: test-reclaim-race [CASE] [--seed N] [--seconds S]
 *
 * Conventions in this file: page numbers count from the mapping's start;
 * A's tags are (round << 16 | page) | 1 << 62, B's BASE_B + page.
 */
#include <pthread.h>
#include <stdio.h>
#include "mm_harness.h"
#include "../src/mm/internal.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define PAGES_A 512ul
#define BASE_B 0x7000000000ull

static unsigned long seed = 1;
static double seconds = 2.0;

static unsigned long base;
static int stop; /* atomic */
static int bad;	 /* atomic: a page read a tag it must not hold */
static uint64_t writes, zaps, pageouts;

static unsigned long next_rand(unsigned long *r)
{
	*r = *r * 6364136223846793005ul + 1442695040888963407ul;
	return *r >> 33;
}

static void note_bad(const char *who, unsigned long page, uint64_t got)
{
	if (!__atomic_exchange_n(&bad, 1, __ATOMIC_ACQ_REL))
		printf("# %s: page %lu read %#llx\n", who, page, (unsigned long long)got);
}

static void *writer(void *arg)
{
	unsigned long round, i;

	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	for (round = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++)
		for (i = 0; i < PAGES_A; i++) {
			uint64_t t = (round << 16 | i) | 1ull << 62, got;

			if (touch(mm, base + i * PAGE_SIZE, t)) {
				note_bad("writer (fault failed)", i, 0);
				continue;
			}
			got = peek(mm, base + i * PAGE_SIZE);
			if (got != t && got != 0)
				note_bad("writer", i, got);
			writes++;
		}
	fl_cpu_unbind();
	return NULL;
}

static void *zapper(void *arg)
{
	unsigned long r = seed ^ 0x5a5a;

	(void)arg;
	if (fl_cpu_bind(2))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long page = next_rand(&r) % PAGES_A;
		unsigned long len = next_rand(&r) % 2 ? 16 : 1;
		int advice = next_rand(&r) % 4 ? MADV_DONTNEED : MADV_FREE;

		page &= ~(len - 1);
		if (do_madvise(mm, base + page * PAGE_SIZE, len * PAGE_SIZE, advice))
			note_bad("zapper (madvise failed)", page, 0);
		zaps++;
	}
	fl_cpu_unbind();
	return NULL;
}

static void *pager(void *arg)
{
	unsigned long r = seed ^ 0x3c3c;

	(void)arg;
	if (fl_cpu_bind(3))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long page = next_rand(&r) % PAGES_A, len = 1 + next_rand(&r) % 64;
		int ret;

		if (page + len > PAGES_A)
			len = PAGES_A - page;
		if (++pageouts % 8 == 0)
			ret = do_madvise(mm, base + SZ_2M, SZ_2M, MADV_PAGEOUT);
		else
			ret = do_madvise(mm, base + page * PAGE_SIZE, len * PAGE_SIZE,
					 MADV_PAGEOUT);
		if (ret)
			note_bad("pager (madvise failed)", page, (uint64_t)ret);
	}
	fl_cpu_unbind();
	return NULL;
}

static bool test_reclaim_while_faulting_zapping_splitting(void)
{
	unsigned long r = seed, passes = 0, i;
	pthread_t t[3];
	uint64_t t0;
	char in[128];
	int k;

	mm_swap_mb = 64;
	ASSERT_TRUE(mm_up(256, 1, 4));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2 * SZ_2M);
	ASSERT_NE(base, 0ul);
	ASSERT_EQ(base % SZ_2M, 0ul);
	for (i = PAGES_A; i < 2 * PAGES_A; i++)
		ASSERT_EQ(touch(mm, base + i * PAGE_SIZE, BASE_B + i), 0);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(pthread_create(&t[0], NULL, writer, NULL), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, zapper, NULL), 0);
	ASSERT_EQ(pthread_create(&t[2], NULL, pager, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		for (i = PAGES_A; i < 2 * PAGES_A; i++) {
			uint64_t got = peek(mm, base + i * PAGE_SIZE);

			if (got != BASE_B + i)
				note_bad("reader", i, got);
		}
		snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d", mm->id, base, base + 2 * SZ_2M,
			 (int)(next_rand(&r) % 3));
		if (fl__split_huge_pages_write(in))
			note_bad("splitter", 0, 0);
		deferred_split_scan(0, NULL, 32);
		passes++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	printf("# %lu reader passes, %llu writes, %llu zaps, %llu pageouts in %.1f s; pswpout "
	       "%lld, "
	       "pswpin %lld, pglazyfreed %lld, 16K swpout %lld, thp_split_page %lld\n",
	       passes, (unsigned long long)writes, (unsigned long long)zaps,
	       (unsigned long long)pageouts, (double)(fl_clock_ns() - t0) / 1e9,
	       (long long)counter("pswpout"), (long long)counter("pswpin"),
	       (long long)counter("pglazyfreed"), (long long)mthp(16, "swpout"),
	       (long long)counter("thp_split_page"));
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(counter("pswpout"), 0);
	ASSERT_GT(counter("pswpin"), 0);
	mmput(mm);
	mm_swap_mb = 0;
	return mm_down();
}

#define PRESS_PAGES 2048ul	 /* 8 MiB a CPU */
static unsigned long max_rounds; /* 0: until the time is up */
static int go;			 /* atomic: the pressers start together */

struct presser {
	int cpu;
	unsigned long base;
	uint64_t rounds;
};

static void *press(void *arg)
{
	struct presser *p = arg;
	unsigned long r = seed ^ (unsigned long)p->cpu, round, i;

	if (fl_cpu_bind(p->cpu))
		return NULL;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	for (round = 1;
	     !__atomic_load_n(&stop, __ATOMIC_ACQUIRE) && (!max_rounds || round <= max_rounds);
	     round++) {
		unsigned long hole = p->cpu == 3 ? next_rand(&r) % PRESS_PAGES : PRESS_PAGES;

		for (i = 0; i < PRESS_PAGES; i++) {
			uint64_t t = (uint64_t)p->cpu << 56 | round << 16 | i;

			if (touch(mm, p->base + i * PAGE_SIZE, t))
				note_bad("presser (fault failed)", i, 0);
		}
		/* CPU 3 zaps or frees 16 pages of its own at a random place */
		if (hole < PRESS_PAGES) {
			hole &= ~15ul;
			if (do_madvise(mm, p->base + hole * PAGE_SIZE, 16 * PAGE_SIZE,
				       next_rand(&r) % 2 ? MADV_DONTNEED : MADV_FREE))
				note_bad("presser (madvise failed)", hole, 0);
		}
		for (i = 0; i < PRESS_PAGES; i++) {
			uint64_t t = (uint64_t)p->cpu << 56 | round << 16 | i;
			uint64_t got = peek(mm, p->base + i * PAGE_SIZE);

			if (got != t && !(got == 0 && i >= hole && i < hole + 16))
				note_bad("presser", i, got);
		}
		p->rounds = round;
	}
	fl_cpu_unbind();
	fl__kswapd_task_done();
	return NULL;
}

/*
 * The pressers, the splitter and kswapd on a machine of @mem_mb; with
 * @memcg_pages, the process runs in a memcg of that limit, and the
 * pressure is the memcg's (its reclaim, its deferred split queue).
 */
static bool press_run(unsigned long mem_mb, long memcg_pages)
{
	struct mem_cgroup *memcg = NULL;
	struct presser ps[3];
	pthread_t t[3];
	uint64_t t0;
	char in[128];
	int k;

	mm_swap_mb = 64;
	mm_kswapd = true;
	ASSERT_TRUE(mm_up(mem_mb, 1, 4));
	mm_kswapd = false;
	ASSERT_EQ(NODE_DATA(0)->kswapd_cpu, 4);
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	/*
	 * No watermark boost: a fallback into a pageblock (the zram store's
	 * unmovable pages) raises min from 128 to 640 pages in this small
	 * machine until kswapd's next pass, and three pressers below min
	 * that long end in an OOM in 1 run of 6. The boost has its tests in
	 * test-page-alloc; this one is about reclaim's races.
	 */
	ASSERT_TRUE(knob("vm/watermark_boost_factor", "0"));
	if (memcg_pages) {
		memcg = fl__mem_cgroup_create("press", memcg_pages, PAGE_COUNTER_MAX);
		ASSERT_TRUE(memcg != NULL);
		/*
		 * Reclaim reads the memcg's sizes exact here: with 6.18's flushed
		 * ones (the default) this memcg, full of the pages of pressers
		 * that keep a host CPU and touch them faster than reclaim ages
		 * them, ends in a memcg OOM in 2 of 10 runs on a 2-CPU host
		 * (docs/fidelity.md: the model's accessed bits). The flush still
		 * runs: on every update batch and every memory.stat read below.
		 */
		ASSERT_TRUE(knob("foliolab/memcg_stats_flush", "off"));
		fl__run_memcg = memcg;
	}
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&go, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(fl__kswapd_start(3), 0);
	for (k = 0; k < 3; k++) {
		ps[k] = (struct presser){ .cpu = k + 1, .base = map(PRESS_PAGES * PAGE_SIZE) };
		ASSERT_NE(ps[k].base, 0ul);
		ASSERT_EQ(pthread_create(&t[k], NULL, press, &ps[k]), 0);
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,0", mm->id, ps[0].base,
			 ps[2].base + PRESS_PAGES * PAGE_SIZE);
		fl__split_huge_pages_write(in);
		deferred_split_scan(0, memcg, 32);
		if (memcg) {
			/* memory.stat read as a monitor would: a stats flush against the updates */
			struct fl_counters c = { 0 };

			fl__memcg_snapshot(memcg, &c);
			fl_counters_free(&c);
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	fl__kswapd_join();
	printf("# %llu+%llu+%llu rounds in %.1f s; pgscan_kswapd %lld, pgscan_direct %lld, "
	       "pswpout %lld, pswpin %lld, pglazyfreed %lld, allocstall %lld, oom_kill %lld\n",
	       (unsigned long long)ps[0].rounds, (unsigned long long)ps[1].rounds,
	       (unsigned long long)ps[2].rounds, (double)(fl_clock_ns() - t0) / 1e9,
	       (long long)counter("pgscan_kswapd"), (long long)counter("pgscan_direct"),
	       (long long)counter("pswpout"), (long long)counter("pswpin"),
	       (long long)counter("pglazyfreed"), (long long)counter("allocstall_movable"),
	       (long long)counter("oom_kill"));
	if (counter("oom_kill")) {
		char report[1024];

		fl__oom_report(report, sizeof(report));
		printf("# %s\n", report);
	}
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(counter("pswpout"), 0);
	ASSERT_GT(counter("pswpin"), 0);
	ASSERT_EQ(counter("oom_kill"), 0);
	if (memcg) {
		/* the memcg's limit, not the machine, made the pressure */
		ASSERT_GT(memcg_events(memcg, PGSCAN_DIRECT), 0);
		ASSERT_EQ(counter("pgscan_direct") + counter("pgscan_kswapd"), 0);
		ASSERT_TRUE(fl_atomic_load(&memcg->memory.watermark, __ATOMIC_RELAXED) <=
			    memcg_pages);
	} else {
		ASSERT_GT(counter("pgscan_kswapd"), 0);
	}
	mmput(mm);
	mm_swap_mb = 0;
	return mm_down();
}

static bool test_lru_reclaim_under_pressure(void)
{
	return press_run(16, 0);
}

static bool test_memcg_reclaim_under_pressure(void)
{
	return press_run(64, (8l << 20) / (long)PAGE_SIZE);
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_reclaim_while_faulting_zapping_splitting),
		TEST(test_lru_reclaim_under_pressure),
		TEST(test_memcg_reclaim_under_pressure),
	};
	char *args[2] = { argv[0], NULL };
	int i, n = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			max_rounds = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (n < 2)
			args[n++] = argv[i];
	}
	printf("# seed %lu\n", seed);
	return fl_test_main(n, args, tests, (int)ARRAY_SIZE(tests));
}
