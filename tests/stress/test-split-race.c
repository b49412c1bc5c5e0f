// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-split-race.c - folios split while other CPUs fault, read and zap
 * around them.
 *
 * One process maps 4 MiB: region A (the first 2 MiB) and region B (the
 * second). PMD THPs are allowed, and 64K folios where a PMD cannot be had.
 *   CPU 1, the writer: writes a fresh tag to every page of A and reads it
 *     back; a page may read 0 (the zapper emptied it in between), never
 *     another tag.
 *   CPU 2, the zapper: MADV_DONTNEED of a random 64K or 4K piece of A, so
 *     A keeps getting new folios and partially unmapped ones (the deferred
 *     split queue).
 *   CPU 3, the reader: reads every page of B, which must hold its own tag
 *     or 0 while the splitter refills it, never anything else; a split
 *     turns B's PTEs into migration entries and back meanwhile.
 *   CPU 0, the splitter: split_huge_pages' pid form over the whole mapping
 *     to a random order, uniform or at a random page, and the deferred
 *     split shrinker; now and then it empties B and writes it again, so B
 *     is a PMD THP again.
 * The run must see splits at both sizes, no tag out of place, and
 * mm_down()'s teardown check (every frame free, every counter back) must
 * hold. Run under TSan by make SAN=thread check-stress.
 *
 * The second case does the same to a shared mapping of a huge=always tmpfs
 * file: the writer writes and reads back through the mapping, the zapper
 * punches 4 KiB holes in the file (taking the pages out of the mapping),
 * the splitter writes split_huge_pages' path form for the file (a split
 * unmaps the folio; its pages fault back in) and now and then punches the
 * whole file, so that faults allocate PMD folios again.
 *
 * Usage: test-split-race [CASE] [--seed N] [--seconds S]
 *
 * Conventions in this file: page numbers count from the mapping's start;
 * A's tags are (round << 16 | page) | 1 << 62, B's BASE_B + page.
 */
#include <pthread.h>
#include <stdio.h>
#include "../src/mm/pgtable.h"
#include "mm_harness.h"
#include "../src/mm/internal.h"
#include "../src/mm/fs.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define PAGES_A 512ul
#define BASE_B 0x7000000000ull

static unsigned long seed = 1;
static double seconds = 2.0;

static unsigned long base;
static int stop; /* atomic */
static int bad;	 /* atomic: a page read a tag it must not hold */
static uint64_t writes, reads, zaps;

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

		page &= ~(len - 1);
		if (do_madvise(mm, base + page * PAGE_SIZE, len * PAGE_SIZE, MADV_DONTNEED))
			note_bad("zapper (madvise failed)", page, 0);
		zaps++;
	}
	fl_cpu_unbind();
	return NULL;
}

static void *reader(void *arg)
{
	unsigned long i;

	(void)arg;
	if (fl_cpu_bind(3))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		for (i = PAGES_A; i < 2 * PAGES_A; i++) {
			uint64_t got = peek(mm, base + i * PAGE_SIZE);

			if (got != BASE_B + i && got != 0)
				note_bad("reader", i, got);
			reads++;
		}
	fl_cpu_unbind();
	return NULL;
}

static bool fill_b(void)
{
	unsigned long i;

	for (i = PAGES_A; i < 2 * PAGES_A; i++)
		ASSERT_EQ(touch(mm, base + i * PAGE_SIZE, BASE_B + i), 0);
	return true;
}

static bool test_split_while_faulting_reading_zapping(void)
{
	unsigned long r = seed, splits = 0, refills = 0;
	pthread_t t[3];
	uint64_t t0;
	char in[128];
	int i;

	ASSERT_TRUE(mm_up(256, 1, 4));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2 * SZ_2M);
	ASSERT_NE(base, 0ul);
	ASSERT_EQ(base % SZ_2M, 0ul);
	ASSERT_TRUE(fill_b());
	ASSERT_EQ(counter("thp_fault_alloc"), 1); /* B is one PMD THP */
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(pthread_create(&t[0], NULL, writer, NULL), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, zapper, NULL), 0);
	ASSERT_EQ(pthread_create(&t[2], NULL, reader, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		int order = (int)(next_rand(&r) % 5), ret;
		long at = next_rand(&r) % 2 ? (long)(next_rand(&r) % 512) : -1;

		if (at >= 0)
			snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d,%ld", mm->id, base,
				 base + 2 * SZ_2M, order, at);
		else
			snprintf(in, sizeof(in), "%d,0x%lx,0x%lx,%d", mm->id, base,
				 base + 2 * SZ_2M, order);
		ret = fl__split_huge_pages_write(in);
		if (ret) {
			printf("# split_huge_pages '%s': %d\n", in, ret);
			note_bad("splitter", 0, (uint64_t)ret);
			break;
		}
		deferred_split_scan(0, NULL, 32);
		splits++;
		if (splits % 8 == 0) {
			/* B back to one PMD THP: the reader sees 0 until it is written */
			if (do_madvise(mm, base + SZ_2M, SZ_2M, MADV_DONTNEED) || !fill_b())
				note_bad("splitter (refill)", PAGES_A, 0);
			refills++;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("# %lu split requests, %lu refills of B; %llu writes, %llu reads, %llu zaps in "
	       "%.1f s; thp_split_page %lld, 64K splits %lld, 64K split_failed %lld\n",
	       splits, refills, (unsigned long long)writes, (unsigned long long)reads,
	       (unsigned long long)zaps, (double)(fl_clock_ns() - t0) / 1e9,
	       (long long)counter("thp_split_page"), (long long)mthp(64, "split"),
	       (long long)mthp(64, "split_failed"));
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(counter("thp_split_page"), 0);
	ASSERT_GT(mthp(64, "split"), 0);
	/* quiet now: B, rewritten once more, reads back exactly */
	ASSERT_TRUE(fill_b());
	for (i = 0; i < (int)PAGES_A; i++)
		ASSERT_EQ(peek(mm, base + (PAGES_A + (unsigned long)i) * PAGE_SIZE),
			  BASE_B + PAGES_A + (unsigned long)i);
	mmput(mm);
	return mm_down();
}

static struct inode *ino;

static void *puncher(void *arg)
{
	unsigned long r = seed ^ 0xa5a5;

	(void)arg;
	if (fl_cpu_bind(2))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		loff_t page = (loff_t)(next_rand(&r) % PAGES_A);

		if (shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				    page * (loff_t)PAGE_SIZE, PAGE_SIZE))
			note_bad("puncher (fallocate failed)", (unsigned long)page, 0);
		zaps++;
	}
	fl_cpu_unbind();
	return NULL;
}

static bool test_shmem_split_while_faulting_and_punching(void)
{
	unsigned long r = seed, splits = 0;
	struct shmem_sb_info *sb;
	struct file *file;
	pthread_t t[2];
	char in[128], err[256];
	uint64_t t0;
	int i;

	ASSERT_TRUE(mm_up(256, 1, 4));
	ASSERT_EQ(fl__shmem_mount("/mnt", "size=64m,huge=always", &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, (loff_t)(PAGES_A * PAGE_SIZE)), 0);
	file = fl__shmem_file_open(ino);
	ASSERT_TRUE(file != NULL);
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	ASSERT_EQ(do_mmap_file(mm, file, 0, SZ_2M, VM_READ | VM_WRITE | VM_SHARED, &base), 0);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad, 0, __ATOMIC_RELAXED);
	writes = zaps = 0;
	ASSERT_EQ(pthread_create(&t[0], NULL, writer, NULL), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, puncher, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9 &&
	       !__atomic_load_n(&bad, __ATOMIC_ACQUIRE)) {
		int order = (int)(next_rand(&r) % 5), ret;

		snprintf(in, sizeof(in), "/mnt/f,0x0,0x%lx,%d", PAGES_A, order);
		ret = fl__split_huge_pages_write(in);
		if (ret) {
			printf("# split_huge_pages '%s': %d\n", in, ret);
			note_bad("splitter", 0, (uint64_t)ret);
			break;
		}
		/* now and then the whole file goes: the next faults allocate PMD folios again */
		if (++splits % 16 == 0 &&
		    shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, SZ_2M))
			note_bad("splitter (punch all)", 0, 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("# %lu split requests, %llu writes, %llu punches in %.1f s; thp_split_page %lld, "
	       "thp_file_alloc %lld, thp_file_mapped %lld\n",
	       splits, (unsigned long long)writes, (unsigned long long)zaps,
	       (double)(fl_clock_ns() - t0) / 1e9, (long long)counter("thp_split_page"),
	       (long long)counter("thp_file_alloc"), (long long)counter("thp_file_mapped"));
	ASSERT_EQ(__atomic_load_n(&bad, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(counter("thp_split_page"), 0);
	mmput(mm);
	fput(file);
	flush_delayed_fput();
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_split_while_faulting_reading_zapping),
		TEST(test_shmem_split_while_faulting_and_punching),
	};
	char *args[2] = { argv[0], NULL };
	int i, n = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtod(argv[++i], NULL);
		else if (n < 2)
			args[n++] = argv[i];
	}
	printf("# seed %lu\n", seed);
	return fl_test_main(n, args, tests, (int)ARRAY_SIZE(tests));
}
