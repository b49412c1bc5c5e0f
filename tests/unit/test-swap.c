// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-swap.c - MADV_PAGEOUT through reclaim_pages() onto the zram swap
 * device, and back through do_swap_page(). Each expectation follows from
 * the 6.18 rule it names, for memory of known contents:
 *
 *   - an exclusive anon folio on the LRU gets slots of its order, leaves
 *     one swap PTE per page and is freed; pswpout counts its pages, the
 *     per-size swpout its folios (order > 0), thp_swpout PMD folios;
 *   - with no swap device a large folio is split (swpout_fallback) and
 *     every piece activated (pgactivate per page), nothing unmapped;
 *   - a lazy-free folio still clean is dropped (pglazyfreed), a written
 *     one becomes swap-backed again and is activated;
 *   - an all-zero page goes to the zeromap (swpout_zero, swpin_zero);
 *   - a fault on a swap PTE reads the slot back with its tag (pgmajfault,
 *     pswpin; swpin per size for an mTHP swap-in), frees the slot, and
 *     maps the page writable but clean;
 *   - zapping swap PTEs frees their slots;
 *   - every swap-in of an evicted page is a refault (workingset_refault_anon);
 *     it is activated when the pages evicted since number no more than the
 *     active anon list (no file pages here).
 *
 * Conventions in this file: one node, one CPU, a 64 MiB zram device
 * unless a case says otherwise; tags are (case << 16) + page.
 */
#include "mm_harness.h"
#include "../src/mm/swap.h"

#define SZ_2M (2ul << 20)

static unsigned long swap_ptes(unsigned long a, unsigned long pages)
{
	unsigned long i, n = 0;

	for (i = 0; i < pages; i++) {
		pteval_t *pte = fl__pte_lookup(mm, a + i * PAGE_SIZE, NULL);

		if (pte && is_swap_pte(*pte) && is_swap_entry(pte_to_swp_entry(*pte)))
			n++;
	}
	return n;
}

static bool up(unsigned long swap_mb)
{
	mm_swap_mb = swap_mb;
	return mm_up_with_mm(256);
}

static bool test_pageout_order0(void)
{
	struct swap_info_struct *si;
	uint64_t tag = 1ull << 16;
	unsigned long a;
	pteval_t *pte;

	ASSERT_TRUE(up(64));
	si = fl__swap_info;
	ASSERT_TRUE(si != NULL);
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), 64);
	ASSERT_EQ(counter("pgactivate"), 0);
	ASSERT_EQ(counter("nr_swapcached"), 0); /* zram is synchronous: gone in the same pass */
	ASSERT_EQ(swap_ptes(a, 64), 64);
	ASSERT_EQ(fl__mm_counter(mm, MM_SWAPENTS), 64);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 0);
	ASSERT_EQ(NODE_DATA(0)->__lruvec.nr_pages[LRU_INACTIVE_ANON], 0);
	ASSERT_EQ(si->inuse_pages, 64);
	ASSERT_EQ(si->zram.pages_stored, 64);
	ASSERT_EQ(si->zram.compr_data_size, 64 * zram_comp_len(tag));
	/* the slots are named exclusive: the read makes them writable, not dirty */
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(counter("pgmajfault"), 64);
	ASSERT_EQ(counter("pswpin"), 64);
	pte = fl__pte_lookup(mm, a, NULL);
	ASSERT_TRUE((*pte & _PAGE_PRESENT) && (*pte & _PAGE_RW) && !(*pte & _PAGE_DIRTY));
	ASSERT_EQ(si->inuse_pages, 0);
	ASSERT_EQ(si->zram.pages_stored, 0);
	ASSERT_EQ(si->zram.notify_free, 64);
	ASSERT_EQ(fl__mm_counter(mm, MM_SWAPENTS), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 64);
	/* out again; a fault that writes maps the page dirty */
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), 128);
	ASSERT_EQ(touch(mm, a, 5), 0);
	ASSERT_TRUE(*pte & _PAGE_DIRTY);
	return mm_down_with_mm();
}

static bool test_pageout_mthp(void)
{
	uint64_t tag = 2ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(mthp(16, "swpout"), 16);
	ASSERT_EQ(mthp(16, "swpout_fallback"), 0);
	ASSERT_EQ(counter("pswpout"), 64);
	ASSERT_EQ(counter("thp_swpout"), 0);
	ASSERT_EQ(mthp(16, "nr_anon"), 0);
	/* one fault per 16K block brings the whole folio back */
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(mthp(16, "swpin"), 16);
	ASSERT_EQ(counter("pgmajfault"), 16);
	ASSERT_EQ(counter("pswpin"), 64);
	ASSERT_EQ(mapped_order(mm, a + 5 * PAGE_SIZE), 2);
	ASSERT_EQ(mthp(16, "nr_anon"), 16);
	ASSERT_EQ(fl__swap_info->inuse_pages, 0);
	return mm_down_with_mm();
}

/* 16K swapped out; only 4K allowed at swap-in: order-0 folios, no fallback counter */
static bool test_swapin_order0_when_mthp_off(void)
{
	uint64_t tag = 3ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 16, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 16 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(mthp(16, "swpout"), 4);
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "never"));
	ASSERT_EQ(wrong_tags(a, 16, tag), 0);
	ASSERT_EQ(counter("pgmajfault"), 16);
	ASSERT_EQ(mthp(16, "swpin"), 0);
	ASSERT_EQ(mthp(16, "swpin_fallback"), 0);
	ASSERT_EQ(mapped_order(mm, a), 0);
	return mm_down_with_mm();
}

static bool test_pageout_without_swap(void)
{
	struct lruvec *lv;
	uint64_t tag = 4ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(0));
	lv = &NODE_DATA(0)->__lruvec;
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	/* each 64K folio: no slots, so split, and each 4K piece fails again */
	ASSERT_EQ(mthp(64, "swpout_fallback"), 4);
	ASSERT_EQ(mthp(64, "split"), 4);
	ASSERT_EQ(counter("pgactivate"), 64);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(swap_ptes(a, 64), 0);
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 64);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(counter("pgmajfault"), 0);
	return mm_down_with_mm();
}

static bool test_lazyfree_dropped_or_kept(void)
{
	uint64_t tag = 5ull << 16;
	struct lruvec *lv;
	unsigned long a, i;

	ASSERT_TRUE(up(64));
	lv = &NODE_DATA(0)->__lruvec;
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_FREE), 0);
	lru_add_drain();
	/* write the first half again: those folios are not lazy-free any more */
	for (i = 0; i < 32; i++)
		ASSERT_EQ(touch(mm, a + i * PAGE_SIZE, tag + i), 0);
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pglazyfreed"), 32);
	ASSERT_EQ(counter("pgactivate"), 32);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 32);
	lru_add_drain();
	/* the written ones are anon again, active; the dropped half reads fresh memory */
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 32);
	ASSERT_EQ(lv->nr_pages[LRU_INACTIVE_FILE], 0);
	ASSERT_EQ(wrong_tags(a, 32, tag), 0);
	ASSERT_EQ(wrong_tags(a + 32 * PAGE_SIZE, 32, 0), 0);
	return mm_down_with_mm();
}

static bool test_zero_pages_use_the_zeromap(void)
{
	unsigned long a;

	ASSERT_TRUE(up(64));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 8, 0));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 8 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("swpout_zero"), 8);
	ASSERT_EQ(counter("pswpout"), 0);
	ASSERT_EQ(fl__swap_info->zram.pages_stored, 0);
	ASSERT_EQ(wrong_tags(a, 8, 0), 0);
	ASSERT_EQ(counter("swpin_zero"), 8);
	ASSERT_EQ(counter("pswpin"), 0);
	ASSERT_EQ(counter("pgmajfault"), 8);
	return mm_down_with_mm();
}

static bool test_pmd_thp_swaps_whole(void)
{
	uint64_t tag = 6ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64));
	ASSERT_TRUE(knob("transparent_hugepage/enabled", "always"));
	a = map(2 * SZ_2M);
	a = ALIGN_UP(a, SZ_2M);
	ASSERT_TRUE(write_tags(a, 512, tag));
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("thp_swpout"), 1);
	ASSERT_EQ(mthp(2048, "swpout"), 1);
	ASSERT_EQ(counter("pswpout"), 512);
	ASSERT_EQ(counter("thp_split_pmd"), 1); /* try_to_unmap(TTU_SPLIT_HUGE_PMD) */
	ASSERT_EQ(swap_ptes(a, 512), 512);
	/* swap-in below PMD order only: with no mTHP size on, page by page */
	ASSERT_EQ(wrong_tags(a, 512, tag), 0);
	ASSERT_EQ(counter("pgmajfault"), 512);
	ASSERT_EQ(fl__swap_info->inuse_pages, 0);
	return mm_down_with_mm();
}

static bool test_zap_frees_slots(void)
{
	uint64_t tag = 7ull << 16;
	unsigned long a;

	ASSERT_TRUE(up(64));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 32, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 32 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(fl__swap_info->inuse_pages, 32);
	ASSERT_EQ(do_madvise(mm, a, 16 * PAGE_SIZE, MADV_DONTNEED), 0);
	ASSERT_EQ(fl__swap_info->inuse_pages, 16);
	ASSERT_EQ(fl__mm_counter(mm, MM_SWAPENTS), 16);
	ASSERT_EQ(fl__swap_info->zram.notify_free, 16);
	/* the rest goes with the process (teardown checks every slot is free) */
	return mm_down_with_mm();
}

/* Slots run out: order 0 takes what is left, then pageout activates. */
static bool test_swap_full(void)
{
	uint64_t tag = 8ull << 16;
	unsigned long a, slots;

	ASSERT_TRUE(up(4)); /* 1024 slots, the header's among them */
	slots = fl__swap_info->pages;
	ASSERT_EQ(slots, 1023);
	a = map(4 * SZ_2M);
	ASSERT_TRUE(write_tags(a, 1100, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 1100 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), (int64_t)slots);
	ASSERT_EQ(counter("pgactivate"), (int64_t)(1100 - slots));
	ASSERT_EQ(wrong_tags(a, 1100, tag), 0);
	return mm_down_with_mm();
}

/* 64 pages out and back: activated only with an active list at least the distance long */
static bool test_workingset_refault(void)
{
	uint64_t tag = 9ull << 16;
	struct lruvec *lv;
	unsigned long a, b, i;

	ASSERT_TRUE(up(64));
	lv = &NODE_DATA(0)->__lruvec;
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 64, tag));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	ASSERT_EQ(counter("workingset_refault_anon"), 64);
	ASSERT_EQ(counter("workingset_activate_anon"), 0);
	/* now 64 active anon pages elsewhere: every distance (64 at most) fits */
	b = map(SZ_2M);
	ASSERT_TRUE(write_tags(b, 64, tag + 100));
	lru_add_drain();
	for (i = 0; i < 64; i++)
		folio_activate(mapped_folio(mm, b + i * PAGE_SIZE));
	lru_add_drain();
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 64);
	ASSERT_EQ(do_madvise(mm, a, 64 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(wrong_tags(a, 64, tag), 0);
	lru_add_drain();
	ASSERT_EQ(counter("workingset_refault_anon"), 128);
	ASSERT_EQ(counter("workingset_activate_anon"), 64);
	ASSERT_EQ(lv->nr_pages[LRU_ACTIVE_ANON], 128);
	return mm_down_with_mm();
}

/*
 * A range covering a large folio in part splits it (6.18's
 * madvise_cold_or_pageout_pte_range() and madvise_free_pte_range()), then
 * acts on the covered pages only: PAGEOUT of the first half of a 64K
 * folio swaps 8 pages out (order 0 now: no 64K swpout) and leaves 8
 * mapped; FREE of half a 16K folio marks 2 pages lazy-free; PAGEOUT of
 * the first MiB of a PMD THP splits the THP (and its PMD) and swaps 256.
 */
static bool test_partial_folio_is_split(void)
{
	uint64_t tag = 11ull << 16;
	unsigned long a, t, i;

	ASSERT_TRUE(up(64));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(write_tags(a, 16, tag));
	lru_add_drain();
	ASSERT_EQ(mapped_order(mm, a), 4);
	ASSERT_EQ(do_madvise(mm, a, 8 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(mthp(64, "split"), 1);
	ASSERT_EQ(mthp(64, "swpout"), 0);
	ASSERT_EQ(counter("pswpout"), 8);
	ASSERT_EQ(swap_ptes(a, 16), 8);
	for (i = 8; i < 16; i++)
		ASSERT_EQ(mapped_order(mm, a + i * PAGE_SIZE), 0);
	ASSERT_EQ(wrong_tags(a, 16, tag), 0);

	/* MADV_FREE of half a 16K folio */
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-64kB/enabled", "never"));
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "always"));
	t = a + 64 * PAGE_SIZE;
	ASSERT_TRUE(write_tags(t, 4, tag + 64));
	ASSERT_EQ(mapped_order(mm, t), 2);
	ASSERT_EQ(do_madvise(mm, t + 2 * PAGE_SIZE, 2 * PAGE_SIZE, MADV_FREE), 0);
	ASSERT_EQ(mthp(16, "split"), 1);
	lru_add_drain(); /* the lazy-free batch moves: pglazyfree */
	ASSERT_EQ(counter("pglazyfree"), 2);
	ASSERT_EQ(mapped_order(mm, t), 0);

	/* PAGEOUT of the first half of a PMD THP */
	ASSERT_TRUE(knob("transparent_hugepage/hugepages-16kB/enabled", "never"));
	ASSERT_TRUE(knob("transparent_hugepage/enabled", "always"));
	t = map(2 * SZ_2M);
	t = ALIGN_UP(t, SZ_2M);
	ASSERT_TRUE(write_tags(t, 512, tag + 1024));
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(do_madvise(mm, t, SZ_2M / 2, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(counter("thp_swpout"), 0);
	ASSERT_EQ(counter("pswpout"), 8 + 256);
	ASSERT_EQ(swap_ptes(t, 512), 256);
	ASSERT_EQ(mapped_order(mm, t + SZ_2M / 2), 0);
	ASSERT_EQ(wrong_tags(t, 512, tag + 1024), 0);
	return mm_down_with_mm();
}

/*
 * A fork while @n pages at @a are swapped out, each slot then named by
 * two swap PTEs: the parent's read goes through the swap cache (no
 * synchronous bypass for a count above 1) and leaves the folios there,
 * mapped; the child's exit drops its PTEs.
 */
static bool read_back_after_fork(unsigned long a, unsigned long n, uint64_t tag)
{
	struct mm_struct *child = mm_alloc(2);

	ASSERT_TRUE(child && dup_mmap(child, mm) == 0);
	ASSERT_EQ(wrong_tags(a, n, tag), 0);
	ASSERT_EQ(counter("nr_swapcached"), (int64_t)n);
	mmput(child);
	return true;
}

/*
 * Slots that only the swap cache holds, with swap more than half full
 * (6.18's cluster_scan_range() and swap_reclaim_full_clusters()): the
 * allocator takes them back from their folios, mapped or not
 * (TTRS_ANYWAY), which leave the cache dirty.
 *
 * 400 pages out, then a fork and the read back (read_back_after_fork()).
 * The child's exit leaves the 400 folios mapped by the parent, in the
 * cache, their slots held only by it: swap is not half full (400 of
 * 1023), so the zap's TTRS_FULL does not free them. Then 700 other
 * pages go out: the 111 free slots of cluster 0 (slot 0 is the header,
 * the 400 are 1-400), which fills first, then cluster 1's 512. The
 * allocation that fills the device, swap being more than half full,
 * queues reclaim_work (run at once in the model): it takes as many full
 * clusters as the slots in use fill (1023 / 512 = 1), the first (0), off
 * its list and every cache-only slot in it back, all 400, so all 700 go
 * out (without that, 77 are activated), and 700 slots stay in use. The
 * 400 left the cache dirty, their tags intact.
 */
static bool test_swap_full_takes_cache_only_slots(void)
{
	uint64_t tag = 12ull << 16;
	unsigned long a, b;

	ASSERT_TRUE(up(4));
	ASSERT_EQ(fl__swap_info->pages, 1023);
	a = map(SZ_2M);
	b = map(2 * SZ_2M);
	ASSERT_TRUE(a && b && write_tags(a, 400, tag) && write_tags(b, 700, tag + 1000));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 400 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), 400);
	ASSERT_TRUE(read_back_after_fork(a, 400, tag));
	ASSERT_EQ(fl__swap_info->inuse_pages, 400);
	ASSERT_EQ(counter("nr_swapcached"), 400);
	ASSERT_TRUE(!vm_swap_full());
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, b, 700 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), 400 + 700);
	ASSERT_EQ(counter("pgactivate"), 0);
	ASSERT_EQ(counter("nr_swapcached"), 0);
	ASSERT_EQ(fl__swap_info->inuse_pages, 700);
	ASSERT_TRUE(folio_test_dirty(mapped_folio(mm, a)));
	ASSERT_EQ(wrong_tags(a, 400, tag), 0);
	ASSERT_EQ(wrong_tags(b, 700, tag + 1000), 0);
	return mm_down_with_mm();
}

/*
 * Swap more than half full, a zap that leaves a slot held only by the
 * swap cache frees it even while its folio is mapped
 * (free_swap_and_cache_nr()'s TTRS_FULL). 400 pages out, then 200 more:
 * 600 of 1023 in use. A fork, and the 400 read back through the cache
 * (read_back_after_fork()). The child's exit zaps its swap PTEs (a above
 * b: b's first, each left with the parent's PTE, then a's): each a slot
 * left cache-only is freed while swap stays more than half full (free x
 * 2 < 1023), so until 511 are in use: 89 of them, 311 stay.
 */
static bool test_swap_full_zap_frees_cache_only_slots(void)
{
	uint64_t tag = 13ull << 16;
	unsigned long a, b;

	ASSERT_TRUE(up(4));
	a = map(SZ_2M);
	b = map(SZ_2M);
	ASSERT_TRUE(a && b && a > b);
	ASSERT_TRUE(write_tags(a, 400, tag) && write_tags(b, 200, tag + 1000));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, 400 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(do_madvise(mm, b, 200 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(fl__swap_info->inuse_pages, 600);
	ASSERT_TRUE(read_back_after_fork(a, 400, tag));
	ASSERT_EQ(fl__swap_info->inuse_pages, 511);
	ASSERT_EQ(counter("nr_swapcached"), 400 - (600 - 511));
	ASSERT_TRUE(!vm_swap_full());
	ASSERT_EQ(wrong_tags(a, 400, tag), 0);
	ASSERT_EQ(wrong_tags(b, 200, tag + 1000), 0);
	return mm_down_with_mm();
}

/*
 * Droppable memory (MAP_DROPPABLE) is never swap-backed: reclaim drops it
 * written or not. 6.18's try_to_unmap_one() discards a dirty droppable
 * folio's PTEs (only one it holds elsewhere stays mapped, and stays
 * droppable); shrink_folio_list() then finds it dirty and not swap-backed,
 * marks it for immediate reclaim and activates it (pgactivate, no
 * pglazyfreed, no pgsteal), and it is freed when put back. 16 pages
 * written, MADV_PAGEOUT: all unmapped and freed, nothing swapped; the
 * range reads zeros after; a second PAGEOUT finds nothing.
 */
static bool test_droppable_written_is_dropped(void)
{
	uint64_t tag = 14ull << 16;
	unsigned long a = 0;
	int64_t free0;

	ASSERT_TRUE(up(64));
	ASSERT_EQ(do_mmap(mm, 16 * PAGE_SIZE, VM_READ | VM_WRITE | VM_DROPPABLE, &a), 0);
	ASSERT_TRUE(write_tags(a, 16, tag));
	ASSERT_TRUE(!folio_test_swapbacked(mapped_folio(mm, a)));
	lru_add_drain();
	free0 = counter("nr_free_pages");
	ASSERT_EQ(do_madvise(mm, a, 16 * PAGE_SIZE, MADV_PAGEOUT), 0);
	lru_add_drain();
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 0);
	ASSERT_TRUE(fl__pte_lookup(mm, a, NULL) && !*fl__pte_lookup(mm, a, NULL));
	ASSERT_EQ(counter("pgactivate"), 16);
	ASSERT_EQ(counter("pglazyfreed"), 0);
	ASSERT_EQ(counter("pswpout") + counter("swpout_zero"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	drain_all_pages(NULL);
	ASSERT_GE(counter("nr_free_pages") - free0, 16);
	ASSERT_EQ(do_madvise(mm, a, 16 * PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pgactivate"), 16);
	ASSERT_EQ(wrong_tags(a, 16, 0), 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_pageout_order0), TEST(test_pageout_mthp),
	  TEST(test_swapin_order0_when_mthp_off), TEST(test_pageout_without_swap),
	  TEST(test_lazyfree_dropped_or_kept), TEST(test_zero_pages_use_the_zeromap),
	  TEST(test_pmd_thp_swaps_whole), TEST(test_zap_frees_slots), TEST(test_swap_full),
	  TEST(test_workingset_refault), TEST(test_partial_folio_is_split),
	  TEST(test_swap_full_takes_cache_only_slots),
	  TEST(test_swap_full_zap_frees_cache_only_slots), TEST(test_droppable_written_is_dropped))
