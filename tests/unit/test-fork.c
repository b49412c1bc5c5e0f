// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-fork.c - fork (dup_mmap(), copy_page_range()) and the write faults
 * after it (do_wp_page(), do_huge_pmd_wp_page()) at 4K, 16K and 2M, and
 * seed 000 2/4's drain before a large folio's reuse.
 *
 * Conventions in this file: the expected reuses and copies come from
 * 6.18's rules (wp_can_reuse_anon_folio(), __wp_can_reuse_large_anon_folio(),
 * do_huge_pmd_wp_page()), worked by hand for each case in its comments:
 * an order-0 folio is reused when its only reference is the faulting
 * mapping's; a large one when one mm maps it (the MM_IDS shared bit clear),
 * more than one of its pages is mapped and every reference is a mapping; a
 * copy is one order-0 page. "Copied" means the PTE maps another folio after
 * the write; the tags say each process sees its own data.
 *
 * Swap entries a fork shares come back through the swap cache with 6.18's
 * VMA readahead (swap_vma_ra_win()), whose windows the readahead cases
 * work out by hand too.
 */
#include "../src/mm/pgtable.h"
#include "../src/mm/swap.h"
#include "../src/mm/swapops.h"
#include "mm_harness.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"

static struct mm_struct *child;

static bool fork_child(void)
{
	child = mm_alloc(2);
	return child && dup_mmap(child, mm) == 0;
}

/* a model of 64 MiB with 16 MiB of swap (the later cases' ups have none) */
static bool up_with_swap(void)
{
	bool up;

	mm_swap_mb = 16;
	up = mm_up_with_mm(64);
	mm_swap_mb = 0;
	return up;
}

static bool pmd_mapped(struct mm_struct *m, unsigned long a)
{
	return pmd_huge_present(fl__pmd_entry(m, a));
}

/* order-0: shared after fork, copied while both map it, reused once alone */
static bool test_order0_reuse_and_copy(void)
{
	unsigned long a, i;
	struct folio *f0, *f1;
	int64_t reuse;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	a = map(8 * PAGE_SIZE);
	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 8, 100));
	f0 = mapped_folio(mm, a);
	f1 = mapped_folio(mm, a + PAGE_SIZE);
	ASSERT_TRUE(fork_child());
	/* both see the parent's data through the same folios, read-only */
	ASSERT_EQ(peek(child, a + 3 * PAGE_SIZE), 103);
	ASSERT_TRUE(mapped_folio(child, a) == f0);
	ASSERT_EQ(folio_mapcount(f0), 2);
	ASSERT_TRUE(!PageAnonExclusive((struct page *)f0));
	ASSERT_EQ(fl__mm_counter(child, MM_ANONPAGES), 8);
	reuse = counter("pgreuse");
	/* child writes page 0: parent maps it too (refcount 2 after the drain) -> copy */
	ASSERT_EQ(touch(child, a, 900), 0);
	ASSERT_TRUE(mapped_folio(child, a) != f0);
	ASSERT_EQ(peek(child, a), 900);
	ASSERT_EQ(peek(mm, a), 100);
	/* parent writes page 0: its reference is the only one left -> reuse */
	ASSERT_EQ(touch(mm, a, 200), 0);
	ASSERT_TRUE(mapped_folio(mm, a) == f0);
	ASSERT_EQ(counter("pgreuse") - reuse, 1);
	/* parent writes page 1 while the child maps it -> copy */
	ASSERT_EQ(touch(mm, a + PAGE_SIZE, 201), 0);
	ASSERT_TRUE(mapped_folio(mm, a + PAGE_SIZE) != f1);
	ASSERT_EQ(peek(child, a + PAGE_SIZE), 101);
	mmput(child);
	/* alone now: page 1 is its own copy, writable (no fault); 2..7 reused */
	for (i = 1; i < 8; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, 300 + i), 0);
	ASSERT_EQ(counter("pgreuse") - reuse, 1 + 6);
	ASSERT_EQ(wrong_tags(a + PAGE_SIZE, 7, 301), 0);
	return mm_down_with_mm();
}

/* 16K: copied while shared, reused once one mm maps it, copied with one page mapped */
static bool test_large_reuse_and_copy(void)
{
	unsigned long a, i;
	struct folio *fa, *fb, *fd;
	int64_t reuse;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0")); /* 16K folios go straight to the LRU */
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	a = map(16 * PAGE_SIZE); /* folios A B C D of 4 pages */
	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 16, 100));
	fa = mapped_folio(mm, a);
	fb = mapped_folio(mm, a + 4 * PAGE_SIZE);
	fd = mapped_folio(mm, a + 12 * PAGE_SIZE);
	ASSERT_EQ(folio_order(fa), 2);
	ASSERT_TRUE(fork_child());
	ASSERT_EQ(folio_large_mapcount(fa), 8);
	ASSERT_TRUE(folio_test_large_maybe_mapped_shared(fa));
	/* D: the parent keeps page 0 only */
	ASSERT_EQ(do_madvise(mm, a + 13 * PAGE_SIZE, 3 * PAGE_SIZE, MADV_DONTNEED), 0);
	reuse = counter("pgreuse");
	/* parent writes A's page 0 while the child maps A: shared -> copy */
	ASSERT_EQ(touch(mm, a, 200), 0);
	ASSERT_TRUE(mapped_folio(mm, a) != fa);
	ASSERT_EQ(peek(child, a), 100);
	ASSERT_EQ(folio_large_mapcount(fa), 7);
	mmput(child);
	/* one mm maps A (3 pages), B (4): the bit clears, refcount == mapcount */
	ASSERT_TRUE(!folio_test_large_maybe_mapped_shared(fa));
	ASSERT_TRUE(!folio_test_large_maybe_mapped_shared(fb));
	ASSERT_EQ(folio_ref_count(fa), 3);
	for (i = 1; i < 8; i++) /* A's pages 1..3, B's 0..3: seven reuses */
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, 300 + i), 0);
	ASSERT_EQ(counter("pgreuse") - reuse, 7);
	ASSERT_TRUE(mapped_folio(mm, a + PAGE_SIZE) == fa);
	ASSERT_TRUE(mapped_folio(mm, a + 4 * PAGE_SIZE) == fb);
	/* D: one page mapped (large mapcount 1) -> copied, not reused */
	ASSERT_EQ(folio_large_mapcount(fd), 1);
	ASSERT_EQ(touch(mm, a + 12 * PAGE_SIZE, 400), 0);
	ASSERT_TRUE(mapped_folio(mm, a + 12 * PAGE_SIZE) != fd);
	ASSERT_EQ(counter("pgreuse") - reuse, 7);
	ASSERT_EQ(wrong_tags(a + PAGE_SIZE, 7, 301), 0);
	ASSERT_EQ(peek(mm, a + 8 * PAGE_SIZE), 108);
	return mm_down_with_mm();
}

/* 64K: the same rules with 16-page folios, the child writing too */
static bool test_64k_reuse_and_copy(void)
{
	unsigned long a, i;
	struct folio *fa, *fb;
	int64_t reuse;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(64 * PAGE_SIZE); /* folios A B C D of 16 pages */
	ASSERT_TRUE(a != 0 && write_tags(a, 64, 100));
	fa = mapped_folio(mm, a);
	fb = mapped_folio(mm, a + 16 * PAGE_SIZE);
	ASSERT_EQ(folio_order(fa), 4);
	ASSERT_TRUE(fork_child());
	reuse = counter("pgreuse");
	/* both map A and B: the parent's write to A and the child's to B copy */
	ASSERT_EQ(touch(mm, a, 200), 0);
	ASSERT_EQ(touch(child, a + 21 * PAGE_SIZE, 900), 0);
	ASSERT_TRUE(mapped_folio(mm, a) != fa);
	ASSERT_TRUE(mapped_folio(child, a + 21 * PAGE_SIZE) != fb);
	ASSERT_EQ(folio_large_mapcount(fa), 31);
	ASSERT_EQ(folio_large_mapcount(fb), 31);
	ASSERT_EQ(counter("pgreuse") - reuse, 0);
	mmput(child);
	ASSERT_TRUE(!folio_test_large_maybe_mapped_shared(fa));
	ASSERT_TRUE(!folio_test_large_maybe_mapped_shared(fb));
	/* alone: A's other 15 pages and B, C, D's 48 reused; A's page 0 is its copy */
	for (i = 0; i < 64; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, 300 + i), 0);
	ASSERT_EQ(counter("pgreuse") - reuse, 63);
	ASSERT_EQ(wrong_tags(a, 64, 300), 0);
	return mm_down_with_mm();
}

/*
 * CONFIG_MM_ID with three mms: the parent takes slot 0, the first child
 * slot 1, the second none. A folio is shared until one slot's mm maps
 * all that is left: after the first child's copies free slot 1 the
 * second child still maps it; once the second (slotless) child's copies
 * leave only the parent's mappings, the bit clears and the parent reuses.
 */
static bool test_mm_id_third_mm(void)
{
	struct mm_struct *c1, *c2;
	unsigned long a, i;
	struct folio *f;
	int64_t reuse;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a != 0 && write_tags(a, 4, 10));
	f = mapped_folio(mm, a);
	ASSERT_TRUE(fork_child());
	c1 = child;
	ASSERT_TRUE(fork_child());
	c2 = child;
	ASSERT_EQ(folio_large_mapcount(f), 12);
	ASSERT_EQ(folio_mm_id(f, 0), mm->mm_id);
	ASSERT_EQ(folio_mm_id(f, 1), c1->mm_id);
	reuse = counter("pgreuse");
	for (i = 0; i < 4; i++)
		ASSERT_EQ(touch(c1, a + i * PAGE_SIZE, 20 + i), 0);
	ASSERT_EQ(folio_mm_id(f, 1), MM_ID_DUMMY);
	ASSERT_TRUE(folio_test_large_maybe_mapped_shared(f)); /* c2 maps it, slotless */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(touch(c2, a + i * PAGE_SIZE, 30 + i), 0);
	ASSERT_TRUE(folio_test_large_maybe_mapped_shared(f));
	ASSERT_EQ(touch(c2, a + 3 * PAGE_SIZE, 33), 0);
	ASSERT_TRUE(!folio_test_large_maybe_mapped_shared(f));
	ASSERT_EQ(counter("pgreuse") - reuse, 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, 40 + i), 0);
	ASSERT_EQ(counter("pgreuse") - reuse, 4);
	ASSERT_TRUE(mapped_folio(mm, a) == f);
	ASSERT_EQ(peek(c1, a + PAGE_SIZE), 21);
	ASSERT_EQ(peek(c2, a + PAGE_SIZE), 31);
	mmput(c2);
	mmput(c1);
	return mm_down_with_mm();
}

/*
 * Seed 000 2/4: under pages31 a 16K folio may sit in the local LRU cache,
 * a reference more than its mappings. Without the drain the parent's
 * write copies it; with it the cache lets go and the folio is reused.
 */
static bool cow_after_child_exit(const char *drain, int64_t *reused, bool *copied)
{
	unsigned long a;
	struct folio *f;
	int64_t reuse;

	if (!mm_up_with_mm(64) || !knob("foliolab/lru_cache", "pages31") ||
	    !knob(THP "hugepages-16kB/enabled", "always") ||
	    !knob("foliolab/cow_reuse_drain", drain))
		return false;
	a = map(8 * PAGE_SIZE);
	if (!a || !write_tags(a, 8, 100))
		return false;
	f = mapped_folio(mm, a + 4 * PAGE_SIZE);
	/* two 16K folios, 8 pages: both still in this CPU's batch */
	if (folio_test_lru(f) || folio_ref_count(f) != 5 || !fork_child())
		return false;
	mmput(child);
	reuse = counter("pgreuse");
	if (touch(mm, a + 4 * PAGE_SIZE, 500))
		return false;
	*reused = counter("pgreuse") - reuse;
	*copied = mapped_folio(mm, a + 4 * PAGE_SIZE) != f;
	return peek(mm, a + 4 * PAGE_SIZE) == 500 && peek(mm, a + 5 * PAGE_SIZE) == 105 &&
	       mm_down_with_mm();
}

static bool test_cow_reuse_drain(void)
{
	int64_t reused;
	bool copied;

	ASSERT_TRUE(cow_after_child_exit("off", &reused, &copied));
	ASSERT_EQ(reused, 0);
	ASSERT_TRUE(copied);
	ASSERT_TRUE(cow_after_child_exit("on", &reused, &copied));
	ASSERT_EQ(reused, 1);
	ASSERT_TRUE(!copied);
	/* auto: on with pages31 */
	ASSERT_TRUE(cow_after_child_exit("auto", &reused, &copied));
	ASSERT_EQ(reused, 1);
	return true;
}

/* 2M: a shared THP's PMD is split and one page copied; alone, the PMD is reused */
static bool test_pmd_cow(void)
{
	unsigned long a;
	struct folio *f;
	int64_t reuse, splits;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	a = map(2 * SZ_2M);
	ASSERT_TRUE(a != 0);
	ASSERT_TRUE(write_tags(a, 512, 1000));
	ASSERT_TRUE(write_tags(a + SZ_2M, 512, 5000));
	ASSERT_TRUE(pmd_mapped(mm, a) && pmd_mapped(mm, a + SZ_2M));
	f = pfn_folio(pte_pfn(fl__pmd_entry(mm, a)));
	ASSERT_TRUE(fork_child());
	ASSERT_TRUE(pmd_mapped(child, a));
	ASSERT_EQ(folio_ref_count(f), 2);
	ASSERT_EQ(folio_entire_mapcount(f), 2);
	ASSERT_EQ(fl__mm_counter(child, MM_ANONPAGES), 1024);
	reuse = counter("pgreuse");
	splits = counter("thp_split_pmd");
	/* child writes into the first THP: refcount 2 -> split its PMD, copy a page */
	ASSERT_EQ(touch(child, a + 7 * PAGE_SIZE, 77), 0);
	ASSERT_TRUE(!pmd_mapped(child, a));
	ASSERT_EQ(counter("thp_split_pmd") - splits, 1);
	ASSERT_EQ(mapped_order(child, a + 7 * PAGE_SIZE), 0);
	ASSERT_EQ(peek(child, a + 8 * PAGE_SIZE), 1008);
	ASSERT_EQ(peek(mm, a + 7 * PAGE_SIZE), 1007);
	ASSERT_TRUE(pmd_mapped(mm, a));
	mmput(child);
	/* alone: both THPs' only reference is the parent's PMD -> reused whole */
	ASSERT_EQ(touch(mm, a, 2000), 0);
	ASSERT_EQ(touch(mm, a + SZ_2M, 6000), 0);
	ASSERT_TRUE(pmd_mapped(mm, a) && pmd_mapped(mm, a + SZ_2M));
	ASSERT_EQ(counter("thp_split_pmd") - splits, 1);
	ASSERT_EQ(counter("pgreuse") - reuse, 0); /* PMD reuse is not counted */
	ASSERT_EQ(peek(mm, a + SZ_2M + PAGE_SIZE), 5001);
	return mm_down_with_mm();
}

/* the huge zero folio is shared by fork; a write gets a THP of its own */
static bool test_huge_zero_fork(void)
{
	unsigned long a;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(a != 0);
	ASSERT_EQ(peek(mm, a), 0);
	ASSERT_TRUE(is_huge_zero_pmd(fl__pmd_entry(mm, a)));
	ASSERT_TRUE(fork_child());
	ASSERT_TRUE(is_huge_zero_pmd(fl__pmd_entry(child, a)));
	ASSERT_EQ(touch(child, a + PAGE_SIZE, 9), 0);
	ASSERT_TRUE(pmd_mapped(child, a) && !is_huge_zero_pmd(fl__pmd_entry(child, a)));
	ASSERT_EQ(peek(child, a + PAGE_SIZE), 9);
	ASSERT_TRUE(is_huge_zero_pmd(fl__pmd_entry(mm, a)));
	ASSERT_EQ(peek(mm, a + PAGE_SIZE), 0);
	mmput(child);
	return mm_down_with_mm();
}

/* MAP_DROPPABLE is wiped on fork: the child's range is empty */
static bool test_wipeonfork(void)
{
	unsigned long a = 0, b;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_EQ(do_mmap(mm, 4 * PAGE_SIZE, VM_READ | VM_WRITE | VM_DROPPABLE | VM_WIPEONFORK, &a),
		  0);
	b = map(4 * PAGE_SIZE);
	ASSERT_TRUE(write_tags(a, 4, 10) && write_tags(b, 4, 20));
	ASSERT_TRUE(fork_child());
	ASSERT_EQ(fl__mm_counter(child, MM_ANONPAGES), 4);
	ASSERT_EQ(peek(child, a + PAGE_SIZE), 0);
	ASSERT_EQ(peek(child, b + PAGE_SIZE), 21);
	mmput(child);
	return mm_down_with_mm();
}

/* swap entries are shared: the slot's count grows, the child swaps in its own */
static bool test_fork_swap_entries(void)
{
	unsigned long a;

	ASSERT_TRUE(up_with_swap());
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(write_tags(a, 4, 40));
	ASSERT_EQ(do_madvise(mm, a, 4 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_SWAPENTS), 4);
	ASSERT_TRUE(fork_child());
	ASSERT_EQ(fl__mm_counter(child, MM_SWAPENTS), 4);
	ASSERT_EQ(__swap_count(pte_to_swp_entry(*fl__pte_lookup(mm, a, NULL))), 2);
	ASSERT_EQ(peek(child, a + 2 * PAGE_SIZE), 42);
	ASSERT_EQ(touch(child, a, 99), 0);
	ASSERT_EQ(peek(mm, a), 40);
	ASSERT_EQ(peek(child, a), 99);
	mmput(child);
	ASSERT_EQ(wrong_tags(a, 4, 40), 0);
	return mm_down_with_mm();
}

/*
 * A model with 16 MiB of swap and vm.page-cluster @cluster: map 4
 * MiB, write 16 pages from a 2 MiB boundary, page them out and fork: each
 * of their slots is named twice, so a swap fault goes through the swap
 * cache and reads ahead. Return: the 16 pages' address, or 0.
 */
static unsigned long shared_swapped_pages(const char *cluster)
{
	unsigned long a, b;

	if (!up_with_swap() || !knob("foliolab/lru_cache", "order0") ||
	    !knob("vm/page-cluster", cluster))
		return 0;
	a = map(4 * SZ_2M);
	b = ALIGN_UP(a, SZ_2M);
	if (!a || !write_tags(b, 16, 500) || do_madvise(mm, b, 16 * PAGE_SIZE, MADV_PAGEOUT) ||
	    fl__mm_counter(mm, MM_SWAPENTS) != 16 || !fork_child())
		return 0;
	return b;
}

/*
 * The child reads the 16 pages in order. Its VMA never read ahead, so it
 * starts as if with 4 hits: window 8 (4 + 2 rounded up to a power of two,
 * at most 1 << page-cluster 3), around page 0 a third before it, cut at
 * the 2 MiB boundary: pages 0..4, 4 read ahead. Pages 1..4 hit. Page 5
 * follows the last fault (4): 4 hits make a window of 8 ahead, pages
 * 5..12, 7 read ahead, 7 hits. Page 13: 7 hits make 16, at most 8, so
 * 13..20, of which only 14 and 15 are swap PTEs: 2 more, 2 hits. So 3
 * major faults, 13 pages read ahead and 13 hits, 16 pages read. With
 * page-cluster 0 there is no readahead: 16 major faults.
 */
static bool test_swap_readahead_window(void)
{
	unsigned long b, i;
	int64_t maj, ra, hit, in;

	b = shared_swapped_pages("3");
	ASSERT_TRUE(b != 0);
	maj = counter("pgmajfault");
	ra = counter("swap_ra");
	hit = counter("swap_ra_hit");
	in = counter("pswpin");
	for (i = 0; i < 16; i++)
		ASSERT_EQ(peek(child, b + i * PAGE_SIZE), 500 + i);
	ASSERT_EQ(counter("pgmajfault") - maj, 3);
	ASSERT_EQ(counter("swap_ra") - ra, 13);
	ASSERT_EQ(counter("swap_ra_hit") - hit, 13);
	ASSERT_EQ(counter("pswpin") - in, 16);
	/* the parent reads what the child brought in: cached, no readahead left to hit */
	maj = counter("pgmajfault");
	hit = counter("swap_ra_hit");
	ASSERT_EQ(wrong_tags(b, 16, 500), 0);
	ASSERT_EQ(counter("pgmajfault") - maj, 0);
	ASSERT_EQ(counter("swap_ra_hit") - hit, 0);
	mmput(child);
	ASSERT_TRUE(mm_down_with_mm());

	b = shared_swapped_pages("0");
	ASSERT_TRUE(b != 0);
	maj = counter("pgmajfault");
	ra = counter("swap_ra");
	for (i = 0; i < 16; i++)
		ASSERT_EQ(peek(child, b + i * PAGE_SIZE), 500 + i);
	ASSERT_EQ(counter("pgmajfault") - maj, 16);
	ASSERT_EQ(counter("swap_ra") - ra, 0);
	mmput(child);
	return mm_down_with_mm();
}

/*
 * Writes to a swap PTE whose slot is cached (6.18 do_swap_page()): the
 * fork cleared the entries' exclusive bit, so a write maps the page
 * writable only if nothing else holds the folio. While the child maps it,
 * the parent's write copies, in the same fault (one pgfault, no reuse).
 * Once the child is gone, the folio has only the cache's reference: the
 * write frees its swap (the slot's last name went with the fault) and
 * maps that folio writable, again one fault, no copy and no pgreuse.
 */
static bool test_swap_cache_write(void)
{
	unsigned long b;
	struct folio *f0, *f1;
	int64_t flt, reuse, alloc;

	b = shared_swapped_pages("3");
	ASSERT_TRUE(b != 0);
	ASSERT_EQ(peek(child, b), 500);
	ASSERT_EQ(peek(child, b + PAGE_SIZE), 501);
	f0 = mapped_folio(child, b);
	f1 = mapped_folio(child, b + PAGE_SIZE);
	ASSERT_TRUE(folio_test_swapcache(f0) && folio_test_swapcache(f1));
	flt = counter("pgfault");
	reuse = counter("pgreuse");
	alloc = counter("pgalloc_normal");
	ASSERT_EQ(touch(mm, b, 700), 0);
	ASSERT_EQ(counter("pgfault") - flt, 1);
	ASSERT_EQ(counter("pgreuse") - reuse, 0);
	ASSERT_EQ(counter("pgalloc_normal") - alloc, 1);
	ASSERT_TRUE(mapped_folio(mm, b) != f0);
	ASSERT_EQ(peek(child, b), 500);
	mmput(child);
	child = NULL;
	ASSERT_TRUE(folio_test_swapcache(f1) && !folio_mapped(f1));
	flt = counter("pgfault");
	alloc = counter("pgalloc_normal");
	ASSERT_EQ(touch(mm, b + PAGE_SIZE, 701), 0);
	ASSERT_EQ(counter("pgfault") - flt, 1);
	ASSERT_EQ(counter("pgreuse") - reuse, 0);
	ASSERT_EQ(counter("pgalloc_normal") - alloc, 0);
	ASSERT_TRUE(mapped_folio(mm, b + PAGE_SIZE) == f1);
	ASSERT_TRUE(!folio_test_swapcache(f1));
	ASSERT_EQ(peek(mm, b + PAGE_SIZE), 701);
	return mm_down_with_mm();
}

/*
 * MADV_FREE and MADV_COLD after fork, by 6.18's madvise_free_pte_range(),
 * madvise_free_huge_pmd() and madvise_cold_or_pageout_pte_range():
 * 64 order-0 pages written, forked: the parent's MADV_COLD skips every one
 * (mapped twice), but its MADV_FREE makes all 64 lazy-free (pglazyfree
 * +64): they are clean and not in the swap cache, where no sharing is
 * checked. A PMD-mapped THP shared with a child is skipped by MADV_FREE
 * (folio_maybe_mapped_shared(): +0); once the child is gone, the same
 * advice makes its 512 pages lazy-free. Every page reads back its tag.
 */
static bool test_madv_free_after_fork(void)
{
	unsigned long a, b;
	int64_t lazy, deact;

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob("foliolab/lru_cache", "order0"));
	a = map(64 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 64, 300));
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	b = map(2 * SZ_2M);
	ASSERT_TRUE(b != 0);
	b = (b + SZ_2M - 1) & ~(SZ_2M - 1);
	ASSERT_TRUE(write_tags(b, 512, 3000));
	ASSERT_TRUE(pmd_mapped(mm, b));
	ASSERT_TRUE(fork_child());
	lru_add_drain();
	deact = counter("pgdeactivate");
	lazy = counter("pglazyfree");
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_COLD), 0);
	lru_add_drain();
	ASSERT_EQ(counter("pgdeactivate") - deact, 0);
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(counter("pglazyfree") - lazy, 64);
	ASSERT_EQ(do_madvise(mm, b, SZ_2M, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(counter("pglazyfree") - lazy, 64);
	ASSERT_TRUE(pmd_mapped(mm, b) && pmd_mapped(child, b));
	ASSERT_EQ(peek(child, a + 5 * PAGE_SIZE), 305);
	ASSERT_EQ(peek(child, b + 5 * PAGE_SIZE), 3005);
	mmput(child);
	ASSERT_EQ(do_madvise(mm, b, SZ_2M, MADV_FREE), 0);
	lru_add_drain();
	ASSERT_EQ(counter("pglazyfree") - lazy, 64 + 512);
	ASSERT_EQ(wrong_tags(a, 64, 300), 0);
	ASSERT_EQ(wrong_tags(b, 512, 3000), 0);
	return mm_down_with_mm();
}

/*
 * Pages read back through the swap cache after a fork (two swap PTEs a
 * slot) and left there, mapped, once the child is gone: their slots are
 * held only by the cache. A write that copies one (6.18's wp_page_copy(),
 * here for a folio somebody else holds a reference on) lets the old folio's
 * slots go once it is unmapped (free_swap_cache()), as a reuse does
 * (wp_can_reuse_anon_folio()); a collapse does the same for the folios it
 * copies (__collapse_huge_page_copy_succeeded()). Either way nothing is
 * left in the swap cache.
 */
static unsigned long cache_only_swapped(unsigned long pages)
{
	unsigned long a = map(2 * SZ_2M);

	a = ALIGN_UP(a, SZ_2M);
	if (!write_tags(a, pages, 70))
		return 0;
	lru_add_drain();
	if (do_madvise(mm, a, pages * PAGE_SIZE, MADV_PAGEOUT) || !fork_child() ||
	    wrong_tags(a, pages, 70))
		return 0;
	mmput(child);
	return counter("nr_swapcached") == (int64_t)pages ? a : 0;
}

static bool test_cow_copy_frees_swap_cache(void)
{
	struct folio *held[4];
	unsigned long a, i;
	int64_t reuse;

	ASSERT_TRUE(up_with_swap());
	a = cache_only_swapped(16);
	ASSERT_TRUE(a != 0);
	/* a reference held elsewhere (a GUP pin, say) on 4: those are copied */
	for (i = 0; i < 4; i++)
		held[i] = mapped_folio(mm, a + i * PAGE_SIZE);
	for (i = 0; i < 4; i++)
		folio_get(held[i]);
	reuse = counter("pgreuse");
	for (i = 0; i < 16; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, 80 + i), 0);
	ASSERT_EQ(counter("pgreuse") - reuse, 12);
	ASSERT_EQ(counter("nr_swapcached"), 0);
	for (i = 0; i < 4; i++)
		ASSERT_TRUE(!folio_test_swapcache(held[i]));
	for (i = 0; i < 4; i++)
		folio_put(held[i]);
	ASSERT_EQ(fl__swap_info->inuse_pages, 0);
	ASSERT_EQ(wrong_tags(a, 16, 80), 0);
	return mm_down_with_mm();
}

static bool test_collapse_frees_swap_cache(void)
{
	unsigned long a;

	ASSERT_TRUE(up_with_swap());
	a = cache_only_swapped(HPAGE_PMD_NR);
	ASSERT_TRUE(a != 0);
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_COLLAPSE), 0);
	ASSERT_TRUE(pmd_mapped(mm, a));
	ASSERT_EQ(counter("nr_swapcached"), 0);
	ASSERT_EQ(fl__swap_info->inuse_pages, 0);
	ASSERT_EQ(wrong_tags(a, HPAGE_PMD_NR, 70), 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_order0_reuse_and_copy), TEST(test_large_reuse_and_copy),
	  TEST(test_64k_reuse_and_copy), TEST(test_mm_id_third_mm), TEST(test_cow_reuse_drain),
	  TEST(test_pmd_cow), TEST(test_huge_zero_fork), TEST(test_wipeonfork),
	  TEST(test_fork_swap_entries), TEST(test_swap_readahead_window),
	  TEST(test_swap_cache_write), TEST(test_madv_free_after_fork),
	  TEST(test_cow_copy_frees_swap_cache), TEST(test_collapse_frees_swap_cache))
