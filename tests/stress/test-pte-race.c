// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-pte-race.c - "hardware" sets a PTE's accessed and dirty bits on one
 * CPU while another CPU clears the PTE (MADV_DONTNEED) or clears those
 * bits (MADV_FREE, MADV_COLD) on the same pages.
 *
 * x86 hardware sets the bits with a locked compare-and-exchange on the
 * entry it walked and walks again when the entry changed; the kernel
 * clears an entry with an exchange (ptep_get_and_clear()). With an
 * unconditional OR on one side and a read followed by a plain store on the
 * other, a zapped entry comes back as accessed|dirty but not present, and
 * the next write fault takes it for a read-only mapping of frame 0.
 *
 * Two cases: a loop of accesses against a loop of madvise calls, checking
 * after every call that no entry is non-zero yet not present (in FL_DEBUG
 * >= 2 builds a hook widens the window by yielding inside the access); and,
 * with the hook, the walker held between reading the entry and setting
 * its bits while the other CPU zaps it, which must leave a valid mapping.
 *
 * Usage: test-pte-race [CASE] [--seed N] [--seconds S]
 *
 * Conventions in this file: the walker is model CPU 1 and the only writer
 * of its pages' tags; CPU 0 calls madvise.
 */
#include <pthread.h>
#include "mm_harness.h"

#define NR_PAGES 8

static unsigned long seed = 1;
static double seconds = 2.0;

static unsigned long base;
static int stop;	  /* atomic: the madvise loop is done */
static int bad_tag;	  /* atomic: the walker read back a tag neither its nor zero */
static uint64_t accesses; /* the walker's */

static uint64_t tag_for(unsigned long round, int page)
{
	return (round << 8) | (uint64_t)page | (1ull << 62);
}

static void *walker_loop(void *arg)
{
	unsigned long round;
	int i;

	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	for (round = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++) {
		for (i = 0; i < NR_PAGES; i++) {
			unsigned long a = base + (unsigned long)i * PAGE_SIZE;
			uint64_t t = tag_for(round, i);

			uint64_t got;

			/* a DONTNEED between the two may leave the page zero again */
			if (touch(mm, a, t) || ((got = peek(mm, a)) != t && got != 0))
				__atomic_store_n(&bad_tag, 1, __ATOMIC_RELEASE);
			accesses += 2;
		}
	}
	fl_cpu_unbind();
	return NULL;
}

/* Every entry of the range is none or present: nothing in between. */
static bool entries_valid(const char *after)
{
	int i;

	for (i = 0; i < NR_PAGES; i++) {
		pteval_t *slot = fl__pte_lookup(mm, base + (unsigned long)i * PAGE_SIZE, NULL);
		pteval_t v = slot ? __atomic_load_n(slot, __ATOMIC_RELAXED) : 0;

		if (v && !(v & _PAGE_PRESENT)) {
			printf("# after %s: page %d's entry is %#llx: not present, not none\n",
			       after, i, (unsigned long long)v);
			return false;
		}
	}
	return true;
}

#if FL_DEBUG >= 2
/* widen the window: now and then let the other CPU run mid-access */
static void yield_inside(int where)
{
	static unsigned int calls;

	if (where == 2 && fl__cpu == 1 && ++calls % 4 == 0)
		fl_yield();
}
#endif

static bool test_access_vs_madvise_loop(void)
{
	static const int advice[] = { MADV_FREE, MADV_DONTNEED, MADV_COLD };
	static const char *const names[] = { "MADV_FREE", "MADV_DONTNEED", "MADV_COLD" };
	unsigned long rng = seed, calls = 0;
	uint64_t t0;
	pthread_t t;

	ASSERT_TRUE(mm_up(64, 1, 2));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2ul << 20);
	ASSERT_TRUE(base != 0);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bad_tag, 0, __ATOMIC_RELAXED);
	accesses = 0;
#if FL_DEBUG >= 2
	fl__hw_access_hook = yield_inside;
#endif
	ASSERT_EQ(pthread_create(&t, NULL, walker_loop, NULL), 0);
	t0 = fl_clock_ns();
	while ((double)(fl_clock_ns() - t0) < seconds * 1e9) {
		int k;

		rng = rng * 6364136223846793005ul + 1442695040888963407ul;
		k = (int)((rng >> 33) % 3);
		if (do_madvise(mm, base, NR_PAGES * PAGE_SIZE, advice[k]) ||
		    !entries_valid(names[k]))
			break;
		calls++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
#if FL_DEBUG >= 2
	fl__hw_access_hook = NULL;
#endif
	printf("# %lu madvise calls against %llu accesses in %.1f s\n", calls,
	       (unsigned long long)accesses, (double)(fl_clock_ns() - t0) / 1e9);
	ASSERT_TRUE(entries_valid("the loops"));
	ASSERT_EQ(__atomic_load_n(&bad_tag, __ATOMIC_ACQUIRE), 0);
	ASSERT_GT(calls, 0);
	mmput(mm);
	return mm_down();
}

#if FL_DEBUG >= 2
#define HOLD_NS (2000ull * 1000 * 1000)

static pteval_t *held_slot;
static int held; /* atomic: 1 once the walker is at the hook */

/* Hold the walker (CPU 1) before it sets the bits until the entry is gone. */
static void hold_until_zapped(int where)
{
	uint64_t t0;

	if (fl__cpu != 1 || where != 2 || __atomic_load_n(&held, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&held, 1, __ATOMIC_RELEASE);
	t0 = fl_clock_ns();
	while (__atomic_load_n(held_slot, __ATOMIC_ACQUIRE) && fl_clock_ns() - t0 < HOLD_NS)
		fl_yield();
}

static void *walker_once(void *arg)
{
	(void)arg;
	if (fl_cpu_bind(1))
		return NULL;
	touch(mm, base, 0x5151);
	fl_cpu_unbind();
	return NULL;
}

/*
 * The walker read a present entry without the dirty bit and is about to
 * set it; the zap clears the entry meanwhile. The walker must find the
 * entry changed, walk again, fault, and store into a fresh page.
 */
static bool test_zap_between_walk_and_dirty(void)
{
	pthread_t t;

	ASSERT_TRUE(mm_up(64, 1, 2));
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	base = map(2ul << 20);
	ASSERT_TRUE(base != 0);
	ASSERT_EQ(touch(mm, base, 0x4242), 0);
	/* a clean entry: the walker's store needs to set the dirty bit */
	ASSERT_EQ(do_madvise(mm, base, PAGE_SIZE, MADV_FREE), 0);
	held_slot = fl__pte_lookup(mm, base, NULL);
	ASSERT_TRUE(held_slot != NULL);
	ASSERT_EQ(*held_slot & (_PAGE_PRESENT | _PAGE_DIRTY), _PAGE_PRESENT);
	__atomic_store_n(&held, 0, __ATOMIC_RELEASE);
	fl__hw_access_hook = hold_until_zapped;
	ASSERT_EQ(pthread_create(&t, NULL, walker_once, NULL), 0);
	while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE))
		fl_yield();
	ASSERT_EQ(do_madvise(mm, base, PAGE_SIZE, MADV_DONTNEED), 0);
	pthread_join(t, NULL);
	fl__hw_access_hook = NULL;
	ASSERT_TRUE(entries_valid("the zap"));
	ASSERT_EQ(*held_slot & _PAGE_PRESENT, _PAGE_PRESENT);
	ASSERT_EQ(peek(mm, base), 0x5151);
	mmput(mm);
	return mm_down();
}
#endif

int main(int argc, char **argv)
{
	static const struct fl_test tests[] = {
		TEST(test_access_vs_madvise_loop),
#if FL_DEBUG >= 2
		TEST(test_zap_between_walk_and_dirty),
#endif
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
