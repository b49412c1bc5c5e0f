// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-tlb.c - the model's data TLB (src/mm/tlb.c) by x86's rules: a
 * fault's access is a walk (a miss), an access the TLB holds sets no bit,
 * so that after the accessed bit is cleared without a flush (x86's
 * ptep_clear_flush_young()) a cached page stays old until a flush; a
 * sweep of twice the TLB's size misses every time (round-robin sets); a
 * flush of up to 33 pages takes only those pages' entries, a longer one
 * the whole mm; a 2 MiB mapping takes one entry for all its pages; the
 * misses count as perf's dTLB-load-misses and dTLB-store-misses.
 *
 * Conventions in this file: one CPU, a TLB of 16 4 KiB entries in 4 sets
 * of 4 ways and 8 2 MiB entries; pages are 4 KiB.
 */
#include "mm_harness.h"

#define SZ_2M (2ul << 20)

static bool up(void)
{
	if (!mm_up_with_mm(64))
		return false;
	fl__tlb_geo = (struct fl_tlb_geometry){ .entries = { 16, 8 }, .ways = { 4, 4 } };
	fl__dtlb_setup();
	return fl__dtlb_on;
}

static bool down(void)
{
	fl__tlb_geo = (struct fl_tlb_geometry){ { 0, 0 }, { 0, 0 }, { false, false } };
	fl__dtlb_setup();
	return mm_down_with_mm();
}

static int64_t loads(void)
{
	return counter("dTLB-load-misses");
}

static int64_t stores(void)
{
	return counter("dTLB-store-misses");
}

static bool read_pages(unsigned long a, unsigned long from, unsigned long to)
{
	unsigned long i;

	for (i = from; i < to; i++)
		if (peek(mm, a + i * PAGE_SIZE) == ~0ull)
			return false;
	return true;
}

static pteval_t *pte_of(unsigned long addr)
{
	return fl__pte_lookup(mm, addr, NULL);
}

/* Each fault's access walks (a store miss); the pages read again are all held. */
static bool test_fault_is_a_miss(void)
{
	unsigned long a;
	int64_t l0, s0;

	ASSERT_TRUE(up());
	a = map(SZ_2M);
	l0 = loads();
	s0 = stores();
	ASSERT_TRUE(write_tags(a, 8, 100));
	ASSERT_EQ(stores() - s0, 8);
	ASSERT_EQ(loads() - l0, 0);
	ASSERT_TRUE(read_pages(a, 0, 8));
	ASSERT_EQ(loads() - l0, 0);
	ASSERT_EQ(wrong_tags(a, 8, 100), 0ul);
	return down();
}

/*
 * The accessed bit cleared with no flush (reclaim's young test on x86):
 * the page read again through the TLB stays old; after a flush of it the
 * read walks, and sets it.
 */
static bool test_accessed_bit_only_on_a_walk(void)
{
	unsigned long a;
	int64_t l0;

	ASSERT_TRUE(up());
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 4, 1));
	ASSERT_TRUE(*pte_of(a) & _PAGE_ACCESSED);
	fl_atomic_fetch_and(pte_of(a), ~_PAGE_ACCESSED, __ATOMIC_RELAXED);
	l0 = loads();
	ASSERT_TRUE(read_pages(a, 0, 4));
	ASSERT_EQ(loads() - l0, 0);
	ASSERT_TRUE(!(*pte_of(a) & _PAGE_ACCESSED));
	fl__dtlb_flush_range(mm, a, a + PAGE_SIZE);
	ASSERT_TRUE(read_pages(a, 0, 4));
	ASSERT_EQ(loads() - l0, 1);
	ASSERT_TRUE(*pte_of(a) & _PAGE_ACCESSED);
	return down();
}

/*
 * 32 pages over 4 sets of 4 ways: each set sees 8 of them in turn, so a
 * sweep misses on every page; the last 4 pages (one a set) stay held.
 */
static bool test_sweep_of_twice_the_size_misses(void)
{
	unsigned long a;
	int64_t l0;

	ASSERT_TRUE(up());
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 32, 1));
	l0 = loads();
	ASSERT_TRUE(read_pages(a, 0, 32));
	ASSERT_EQ(loads() - l0, 32);
	ASSERT_TRUE(read_pages(a, 28, 32));
	ASSERT_EQ(loads() - l0, 32);
	return down();
}

/* flush_tlb_mm_range(): up to 33 pages by page, more the whole mm. */
static bool test_flush_ceiling(void)
{
	unsigned long a;
	int64_t l0, s0;

	ASSERT_TRUE(up());
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 8, 1));
	l0 = loads();
	fl__dtlb_flush_range(mm, a, a + 2 * PAGE_SIZE);
	ASSERT_TRUE(read_pages(a, 0, 8));
	ASSERT_EQ(loads() - l0, 2);
	fl__dtlb_flush_range(mm, a + 100 * PAGE_SIZE, a + 134 * PAGE_SIZE); /* 34 pages */
	ASSERT_TRUE(read_pages(a, 0, 8));
	ASSERT_EQ(loads() - l0, 2 + 8);
	/*
	 * a store through an entry a read loaded from a clean PTE walks again
	 * and sets the dirty bit (no miss counted); one loaded dirty does not,
	 * even after the bit was cleared without a flush
	 */
	fl_atomic_fetch_and(pte_of(a), ~_PAGE_DIRTY, __ATOMIC_RELAXED);
	fl__dtlb_flush_range(mm, a, a + PAGE_SIZE);
	ASSERT_TRUE(read_pages(a, 0, 1));
	ASSERT_EQ(loads() - l0, 11);
	s0 = stores();
	ASSERT_EQ(touch(mm, a, 5), 0);
	ASSERT_TRUE(*pte_of(a) & _PAGE_DIRTY);
	fl_atomic_fetch_and(pte_of(a), ~_PAGE_DIRTY, __ATOMIC_RELAXED);
	ASSERT_EQ(touch(mm, a, 6), 0);
	ASSERT_TRUE(!(*pte_of(a) & _PAGE_DIRTY));
	ASSERT_EQ(stores() - s0, 0);
	return down();
}

/* A 2 MiB folio mapped by its PMD: one miss (the fault's) for all 512 pages. */
static bool test_pmd_mapping_one_entry(void)
{
	unsigned long a, h;
	int64_t l0, s0;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob("transparent_hugepage/enabled", "always"));
	a = map(2 * SZ_2M);
	h = ALIGN_UP(a, SZ_2M);
	s0 = stores();
	l0 = loads();
	ASSERT_EQ(touch(mm, h, 1), 0);
	ASSERT_EQ(mapped_order(mm, h), -1); /* no PTE: the PMD maps it */
	ASSERT_EQ(stores() - s0, 1);
	ASSERT_TRUE(read_pages(h, 0, 512));
	ASSERT_EQ(loads() - l0, 0);
	return down();
}

TEST_MAIN(TEST(test_fault_is_a_miss), TEST(test_accessed_bit_only_on_a_walk),
	  TEST(test_sweep_of_twice_the_size_misses), TEST(test_flush_ceiling),
	  TEST(test_pmd_mapping_one_entry))
