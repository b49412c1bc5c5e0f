// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-fork-race.c - fork (dup_mmap()) and copy-on-write while other CPUs
 * fault, zap, swap out, split and collapse the parent's memory.
 *
 * The parent maps 4 MiB: region A (the first 2 MiB) and region B (the
 * second), 16K folios and PMD THPs where they fit.
 *   CPU 1, the writer: writes a fresh tag to every page of A and reads it
 *     back (0 allowed: zapped or dropped in between, never another tag).
 *   CPU 2, the zapper and pager: MADV_DONTNEED or MADV_FREE of a random
 *     piece of A, MADV_PAGEOUT of a random piece of A and now and then of
 *     all of B, so swap entries are copied by the forks and shared.
 *   CPU 0, the forker: forks a child; the child must see B's tags as the
 *     parent wrote them, and in A a page of its own index or 0; it writes
 *     tags of its own over a random half of A and B (copy-on-write, reuse
 *     of what the parent let go), reads them back, and exits. The parent
 *     must still read B's tags. Between forks it splits the whole mapping
 *     to a random order, runs the deferred split shrinker, a khugepaged
 *     pass (the split ranges collapse again) and now and then
 *     MADV_COLLAPSE of both regions.
 * The run must see forks, copies and reuses, no tag out of place, and
 * mm_down()'s teardown check (every frame and swap slot free) must hold.
 * Run under TSan by make SAN=thread check-stress.
 *
 * Usage: test-fork-race [--seed N] [--seconds S]
 *
 * Conventions in this file: page numbers count from the mapping's start;
 * A's tags are (round << 16 | page) | 1 << 62, B's BASE_B + page, a
 * child's CHILD + page.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mm_harness.h"
#include "../src/mm/internal.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define PAGES_A 512ul
#define BASE_B 0x7000000000ull
#define CHILD 0x5000000000ull
#define WRITER_BIT (1ull << 62)

static unsigned long seed = 1;
static double seconds = 2.0;

static unsigned long base;
static int stop; /* atomic */
static int bad;	 /* atomic: a page read a tag it must not hold */
static uint64_t writes, zaps;

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

/* a page of A holds 0 or a writer's tag for its own index */
static bool a_tag_ok(unsigned long page, uint64_t got)
{
	return !got || ((got & WRITER_BIT) && (got & 0xffff) == page);
}

static void *writer(void *arg)
{
	unsigned long round, i;

	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	for (round = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++)
		for (i = 0; i < PAGES_A; i++) {
			uint64_t t = (round << 16 | i) | WRITER_BIT, got;

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
		unsigned long page = next_rand(&r) % PAGES_A, len = 1 + next_rand(&r) % 32;
		unsigned long what = next_rand(&r) % 8;
		int ret;

		if (page + len > PAGES_A)
			len = PAGES_A - page;
		if (what == 0)
			ret = do_madvise(mm, base + SZ_2M, SZ_2M, MADV_PAGEOUT);
		else
			ret = do_madvise(mm, base + page * PAGE_SIZE, len * PAGE_SIZE,
					 what < 4   ? MADV_DONTNEED
					 : what < 5 ? MADV_FREE
						    : MADV_PAGEOUT);
		if (ret)
			note_bad("zapper (madvise failed)", page, (uint64_t)ret);
		zaps++;
	}
	fl_cpu_unbind();
	return NULL;
}

/* One fork: the child checks what it inherited, writes half of it, exits. */
static void one_child(unsigned long *r, unsigned long round)
{
	struct mm_struct *child = mm_alloc(1000 + (int)round);
	unsigned long i;

	if (!child || dup_mmap(child, mm)) {
		note_bad("fork failed", 0, 0);
		if (child)
			mmput(child);
		return;
	}
	for (i = 0; i < 2 * PAGES_A; i++) {
		uint64_t got = ~0ull;

		fl__mm_access(child, base + i * PAGE_SIZE, false, &got);
		if (i < PAGES_A ? !a_tag_ok(i, got) : got != BASE_B + i)
			note_bad("child's inherited view", i, got);
	}
	for (i = 0; i < 2 * PAGES_A; i++) {
		uint64_t t = CHILD + (round << 16) + i, got = ~0ull;

		if (next_rand(r) % 2)
			continue;
		if (fl__mm_access(child, base + i * PAGE_SIZE, true, &t))
			note_bad("child's write", i, 0);
		fl__mm_access(child, base + i * PAGE_SIZE, false, &got);
		if (got != CHILD + (round << 16) + i)
			note_bad("child's read-back", i, got);
	}
	mmput(child);
}

static bool test_fork_while_faulting_zapping_swapping_collapsing(void)
{
	unsigned long r = seed, forks = 0, i;
	int64_t reuse0;
	pthread_t t[2];
	uint64_t t0;
	char in[128];
	int k;

	mm_swap_mb = 64;
	ASSERT_TRUE(mm_up(256, 1, 3));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2 * SZ_2M);
	ASSERT_NE(base, 0ul);
	for (i = PAGES_A; i < 2 * PAGES_A; i++)
		ASSERT_EQ(touch(mm, base + i * PAGE_SIZE, BASE_B + i), 0);
	reuse0 = counter("pgreuse");
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(pthread_create(&t[0], NULL, writer, NULL), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, zapper, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		one_child(&r, ++forks);
		for (i = PAGES_A; i < 2 * PAGES_A; i++) {
			uint64_t got = peek(mm, base + i * PAGE_SIZE);

			if (got != BASE_B + i)
				note_bad("parent after the child", i, got);
		}
		/* the parent writes B's tags again: reuse where the child copied */
		for (i = PAGES_A; i < 2 * PAGES_A; i += 7)
			if (touch(mm, base + i * PAGE_SIZE, BASE_B + i))
				note_bad("parent's write", i, 0);
		snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d", mm->id, base, base + 2 * SZ_2M,
			 (int)(next_rand(&r) % 3));
		if (fl__split_huge_pages_write(in))
			note_bad("splitter", 0, 0);
		deferred_split_scan(0, NULL, 32);
		fl__khugepaged_do_scan(NULL);
		if (next_rand(&r) % 4 == 0) {
			int ret = do_madvise(mm, base, 2 * SZ_2M, MADV_COLLAPSE);

			/*
			 * busy pages (the writer's, the zapper's) may refuse: EAGAIN,
			 * EINVAL; memory in order-0 pieces (swap-cache folios read
			 * ahead) is compacted for the THP (GFP_TRANSHUGE): no ENOMEM
			 */
			if (ret && ret != -EAGAIN && ret != -EINVAL && ret != -EBUSY)
				note_bad("MADV_COLLAPSE", 0, (uint64_t)ret);
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("# %lu forks, %llu writes, %llu zaps in %.1f s; pgreuse %lld, pswpout %lld, "
	       "pswpin %lld, swap_ra %lld, swap_ra_hit %lld, thp_split_page %lld, "
	       "thp_collapse_alloc %lld\n",
	       forks, (unsigned long long)writes, (unsigned long long)zaps,
	       (double)(fl_clock_ns() - t0) / 1e9, (long long)(counter("pgreuse") - reuse0),
	       (long long)counter("pswpout"), (long long)counter("pswpin"),
	       (long long)counter("swap_ra"), (long long)counter("swap_ra_hit"),
	       (long long)counter("thp_split_page"), (long long)counter("thp_collapse_alloc"));
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(forks, 1ul);
	ASSERT_GT(counter("pgreuse") - reuse0, 0);
	ASSERT_GT(counter("pswpout"), 0);
	ASSERT_GT(counter("swap_ra"), 0); /* the children read shared slots with readahead */
	ASSERT_GT(counter("thp_collapse_alloc"), 0);
	ASSERT_EQ(counter("thp_collapse_alloc_failed"), 0);
	mmput(mm);
	mm_swap_mb = 0;
	return mm_down();
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			seed = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = strtod(argv[i + 1], NULL);
	}
	printf("1..1\n");
	if (test_fork_while_faulting_zapping_swapping_collapsing()) {
		printf("ok 1 - test_fork_while_faulting_zapping_swapping_collapsing\n");
		return 0;
	}
	printf("not ok 1 - test_fork_while_faulting_zapping_swapping_collapsing (seed %lu)\n",
	       seed);
	return 1;
}
