// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-fault.c - which folio order an anonymous fault maps: the knob
 * combinations (always/inherit/madvise/never against the top-level
 * setting and MADV_(NO)HUGEPAGE), natural alignment inside the VMA, the
 * all-PTEs-none rule, fallback when allocation fails, PMD faults, and the
 * zero page and the huge zero folio on reads.
 *
 * Conventions in this file: expected orders come from the rule in
 * huge_memory.c's header comment, worked by hand for each case.
 */
#include "../src/mm/pgtable.h"
#include "mm_harness.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"

static bool pmd_trans_huge_at(unsigned long a)
{
	pteval_t v = fl__pmd_entry(mm, a);

	return (v & (_PAGE_PRESENT | _PAGE_PSE)) == (_PAGE_PRESENT | _PAGE_PSE);
}

static bool up(void)
{
	return mm_up_with_mm(256);
}

static bool down(void)
{
	return mm_down_with_mm();
}

/* the order a first write at @off into a fresh 2 MiB mapping gets */
static int order_at(unsigned long off, bool madv)
{
	unsigned long a = map(SZ_2M);
	int o;

	if (!a)
		return -2;
	if (madv && do_madvise(mm, a, SZ_2M, MADV_HUGEPAGE))
		return -3;
	if (touch(mm, a + off, 1))
		return -4;
	o = mapped_order(mm, a + off);
	if (pmd_trans_huge_at(a))
		o = PMD_ORDER;
	do_munmap(mm, a, SZ_2M);
	return o;
}

static bool test_defaults_give_base_pages(void)
{
	ASSERT_TRUE(up());
	/* top-level madvise, 2048kB inherit, other sizes never */
	ASSERT_EQ(order_at(0, false), 0);
	/* MADV_HUGEPAGE: inherit follows madvise, so a PMD fault */
	ASSERT_EQ(order_at(0, true), PMD_ORDER);
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(mthp(2048, "anon_fault_alloc"), 1);
	return down();
}

static bool test_knob_combinations(void)
{
	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "never"));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_EQ(order_at(0, false), 2); /* always overrides top-level madvise */
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_EQ(order_at(0, false), 4); /* the largest enabled order wins */
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "madvise"));
	ASSERT_EQ(order_at(0, false), 2); /* madvise needs MADV_HUGEPAGE */
	ASSERT_EQ(order_at(0, true), 4);
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "inherit"));
	ASSERT_EQ(order_at(0, false), 2); /* inherit = top-level madvise */
	ASSERT_EQ(order_at(0, true), 4);
	ASSERT_TRUE(knob(THP "enabled", "always"));
	ASSERT_EQ(order_at(0, false), 4); /* inherit = top-level always */
	ASSERT_TRUE(knob(THP "enabled", "never"));
	ASSERT_EQ(order_at(0, true), 2); /* inherit = never; always still applies */
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "never"));
	ASSERT_EQ(order_at(0, true), 0);
	/* MADV_NOHUGEPAGE disables every size */
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	{
		unsigned long a = map(SZ_2M);

		ASSERT_EQ(do_madvise(mm, a, SZ_2M, MADV_NOHUGEPAGE), 0);
		ASSERT_EQ(touch(mm, a, 1), 0);
		ASSERT_EQ(mapped_order(mm, a), 0);
		ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	}
	return down();
}

/* The aligned block around the address must lie inside the VMA. */
static bool test_alignment_inside_vma(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	/* cut the first page away: the VMA now starts 4K into a 64K block */
	ASSERT_EQ(do_munmap(mm, a, 4096), 0);
	ASSERT_EQ(touch(mm, a + 4096, 1), 0);
	ASSERT_EQ(mapped_order(mm, a + 4096), 0); /* neither 16K nor 64K fits */
	ASSERT_EQ(touch(mm, a + 16384, 1), 0);
	ASSERT_EQ(mapped_order(mm, a + 16384), 2); /* [16K, 32K) fits, 64K does not */
	ASSERT_EQ(touch(mm, a + 65536 + 8192, 1), 0);
	ASSERT_EQ(mapped_order(mm, a + 65536), 4); /* the folio starts aligned */
	ASSERT_EQ(mapped_folio(mm, a + 65536), mapped_folio(mm, a + 65536 + 8192));
	ASSERT_EQ(do_munmap(mm, a + 4096, SZ_2M - 4096), 0);
	return down();
}

/* Only an order whose whole aligned PTE range is none qualifies. */
static bool test_populated_pte_lowers_order(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_EQ(touch(mm, a + 16384, 1), 0);
	ASSERT_EQ(mapped_order(mm, a + 16384), 4); /* 64K at [0, 64K) */
	ASSERT_EQ(do_madvise(mm, a + 16384, 16384, MADV_DONTNEED), 0);
	/* [16K, 32K) is none again but [0, 64K) is not: order 2 */
	ASSERT_EQ(touch(mm, a + 16384, 1), 0);
	ASSERT_EQ(mapped_order(mm, a + 16384), 2);
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	return down();
}

static bool test_allocation_fallback(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "4"));
	ASSERT_EQ(order_at(0, false), 2);
	ASSERT_EQ(mthp(64, "anon_fault_fallback"), 1);
	ASSERT_EQ(mthp(16, "anon_fault_alloc"), 1);
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "4,2"));
	ASSERT_EQ(order_at(0, false), 0); /* down to a base page */
	ASSERT_EQ(mthp(64, "anon_fault_fallback"), 2);
	ASSERT_EQ(mthp(16, "anon_fault_fallback"), 1);
	/* a failed PMD fault counts in both places and falls back to PTEs */
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "9"));
	a = map(SZ_2M);
	ASSERT_EQ(touch(mm, a, 1), 0);
	ASSERT_EQ(counter("thp_fault_fallback"), 1);
	ASSERT_EQ(mthp(2048, "anon_fault_fallback"), 1);
	ASSERT_EQ(mapped_order(mm, a), 4);
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "none"));
	return down();
}

static bool test_pmd_needs_whole_aligned_range(void)
{
	struct folio *folio;
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	a = map(2 * SZ_2M);
	ASSERT_EQ(a % SZ_2M, 0); /* PMD-multiple lengths are PMD aligned */
	ASSERT_EQ(touch(mm, a, 1), 0);
	ASSERT_TRUE(pmd_trans_huge_at(a));
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 1);
	ASSERT_EQ(counter("nr_anon_pages"), 512);
	/* 6.18: a PMD mapping is exclusive at the PMD level, on the head page only */
	folio = pfn_folio(pte_pfn(fl__pmd_entry(mm, a)));
	ASSERT_TRUE(PageAnonExclusive(folio_page(folio, 0)));
	ASSERT_TRUE(!PageAnonExclusive(folio_page(folio, 5)));
	/* unmapping one page splits the PMD mapping; the folio stays whole */
	ASSERT_EQ(do_munmap(mm, a, 4096), 0);
	/* the PTEs it became are exclusive page by page */
	ASSERT_TRUE(PageAnonExclusive(folio_page(folio, 5)));
	ASSERT_TRUE(PageAnonExclusive(folio_page(folio, 511)));
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_EQ(counter("thp_deferred_split_page"), 1);
	ASSERT_EQ(mthp(2048, "nr_anon_partially_mapped"), 1);
	ASSERT_EQ(mapped_order(mm, a + 4096), PMD_ORDER);
	/* now [a + 4K, a + 2M + 4K): 2M long, but no aligned 2M block fits */
	ASSERT_EQ(do_munmap(mm, a + SZ_2M + 4096, SZ_2M - 4096), 0);
	ASSERT_EQ(touch(mm, a + SZ_2M, 1), 0);
	ASSERT_TRUE(!pmd_trans_huge_at(a + SZ_2M));
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(do_munmap(mm, a + 4096, SZ_2M), 0);
	ASSERT_EQ(mthp(2048, "nr_anon_partially_mapped"), 0);
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 0);
	return down();
}

static bool test_read_maps_zero_page_then_write_copies(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	a = map(SZ_2M);
	ASSERT_EQ(peek(mm, a), 0);
	ASSERT_EQ(mapped_order(mm, a), -1); /* the zero page, not a folio */
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	ASSERT_EQ(touch(mm, a, 42), 0);
	ASSERT_EQ(counter("pgfault"), 2);
	ASSERT_EQ(mapped_order(mm, a), 0);
	ASSERT_EQ(peek(mm, a), 42);
	ASSERT_EQ(counter("nr_anon_pages"), 1);
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	return down();
}

/*
 * use_zero_page is the huge zero folio's knob: with it off, a read fault
 * in an mTHP-eligible range still maps the 4 KiB zero page, as in the
 * kernel (do_anonymous_page() asks only mm_forbids_zeropage()), while a
 * read in a PMD-eligible range allocates a THP (no huge zero folio).
 */
static bool test_zero_page_without_use_zero_page(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "use_zero_page", "0"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(2 * SZ_2M);
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), 0);
	ASSERT_EQ(mapped_order(mm, a + 5 * PAGE_SIZE), -1);
	ASSERT_EQ(*fl__pte_lookup(mm, a + 5 * PAGE_SIZE, NULL) & _PAGE_SPECIAL, _PAGE_SPECIAL);
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	ASSERT_EQ(mthp(64, "anon_fault_alloc"), 0);
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	ASSERT_EQ(peek(mm, a + SZ_2M), 0);
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(counter("nr_anon_pages"), HPAGE_PMD_NR);
	ASSERT_EQ(do_munmap(mm, a, 2 * SZ_2M), 0);
	return down();
}

/*
 * foliolab/no_zero_page=on (a host booted with pvm_no_zero_page=1): a read
 * fault allocates as a write fault does, at the mTHP size the knobs allow
 * and a THP where the PMD order is allowed, whatever use_zero_page says.
 */
static bool test_no_zero_page_reads_allocate(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob("foliolab/no_zero_page", "on"));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(2 * SZ_2M);
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), 0);
	ASSERT_EQ(mapped_order(mm, a + 5 * PAGE_SIZE), 4);
	ASSERT_EQ(mthp(64, "anon_fault_alloc"), 1);
	ASSERT_EQ(counter("nr_anon_pages"), 16);
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	ASSERT_TRUE(knob(THP "use_zero_page", "1"));
	ASSERT_EQ(peek(mm, a + SZ_2M), 0);
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(do_munmap(mm, a, 2 * SZ_2M), 0);
	return down();
}

static bool huge_zero_at(unsigned long a)
{
	pteval_t v = fl__pmd_entry(mm, a);

	return pmd_trans_huge_at(a) && (v & _PAGE_SPECIAL) && !(v & _PAGE_RW);
}

/*
 * The huge zero folio (6.18's do_huge_pmd_anonymous_page()): a read fault
 * in a PMD-eligible range maps one shared zeroed PMD-sized folio
 * read-only: one fault per 2 MiB, no THP allocated, no anon pages, the
 * folio allocated once for every mm (thp_zero_page_alloc); only a PTE
 * table is deposited per mapping. A write there gets a THP of its own
 * (do_huge_zero_wp_pmd()); a partial unmap splits the PMD into zero-page
 * PTEs; MADV_FREE leaves it alone. Once nobody maps it, its shrinker frees
 * it (512 pages).
 */
static bool test_huge_zero_folio(void)
{
	struct mm_struct *mm2;
	unsigned long a, b, i;
	int64_t alloc;
	uint64_t sum = 0;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	a = map(4 * SZ_2M);
	ASSERT_EQ(a % SZ_2M, 0);
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), 0);
	ASSERT_TRUE(huge_zero_at(a));
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 1);
	ASSERT_EQ(counter("thp_fault_alloc"), 0);
	ASSERT_EQ(mthp(2048, "anon_fault_alloc"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 0);
	ASSERT_EQ(counter("nr_anon_transparent_hugepages"), 0);
	/* every page of the range reads 0 with no further fault */
	ASSERT_EQ(fl__mm_access_range(mm, a, SZ_2M, PAGE_SIZE, false, 0, 0, NULL, &sum), 0);
	ASSERT_EQ(sum, 0);
	ASSERT_EQ(counter("pgfault"), 1);
	/* the next 2 MiB: the same folio, one fault, one deposited PTE table */
	alloc = counter("pgalloc_normal");
	ASSERT_EQ(peek(mm, a + SZ_2M), 0);
	ASSERT_TRUE(huge_zero_at(a + SZ_2M));
	ASSERT_EQ(fl__pmd_entry(mm, a + SZ_2M) & PTE_PFN_MASK, fl__pmd_entry(mm, a) & PTE_PFN_MASK);
	ASSERT_EQ(counter("pgalloc_normal") - alloc, 1);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 1);
	/* another process reads: the same folio again */
	mm2 = mm_alloc(2);
	ASSERT_TRUE(mm2 != NULL);
	ASSERT_EQ(do_mmap(mm2, 2 * SZ_2M, VM_READ | VM_WRITE, &b), 0);
	ASSERT_EQ(b % SZ_2M, 0);
	ASSERT_EQ(fl__mm_access(mm2, b, false, &(uint64_t){ 1 }), 0);
	ASSERT_EQ(fl__pmd_entry(mm2, b) & PTE_PFN_MASK, fl__pmd_entry(mm, a) & PTE_PFN_MASK);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 1);
	mmput(mm2);
	/* a write: a THP of its own in the zero folio's place, no split */
	ASSERT_EQ(touch(mm, a + 7 * PAGE_SIZE, 99), 0);
	ASSERT_TRUE(pmd_trans_huge_at(a) && !huge_zero_at(a));
	ASSERT_EQ(counter("thp_fault_alloc"), 1);
	ASSERT_EQ(mthp(2048, "anon_fault_alloc"), 1);
	ASSERT_EQ(counter("thp_split_pmd"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), HPAGE_PMD_NR);
	ASSERT_EQ(peek(mm, a + 7 * PAGE_SIZE), 99);
	ASSERT_EQ(peek(mm, a + 8 * PAGE_SIZE), 0);
	ASSERT_TRUE(huge_zero_at(a + SZ_2M)); /* the other mapping is untouched */
	/* MADV_FREE and MADV_COLD leave the zero folio's PMD alone */
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_FREE), 0);
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, SZ_2M, MADV_COLD), 0);
	ASSERT_TRUE(huge_zero_at(a + SZ_2M));
	ASSERT_EQ(counter("pglazyfree"), 0);
	/* unmapping one page of it: 511 zero-page PTEs, one split */
	ASSERT_EQ(do_madvise(mm, a + SZ_2M, PAGE_SIZE, MADV_DONTNEED), 0);
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_TRUE(!pmd_trans_huge_at(a + SZ_2M));
	for (i = 1; i < HPAGE_PMD_NR; i++) {
		pteval_t *pte = fl__pte_lookup(mm, a + SZ_2M + i * PAGE_SIZE, NULL);

		ASSERT_TRUE(pte && (*pte & _PAGE_SPECIAL) && !(*pte & _PAGE_RW));
		ASSERT_EQ(mapped_folio(mm, a + SZ_2M + i * PAGE_SIZE), NULL);
	}
	ASSERT_EQ(peek(mm, a + SZ_2M + 9 * PAGE_SIZE), 0);
	ASSERT_EQ(counter("nr_anon_pages"), HPAGE_PMD_NR);
	/* gone from every mm: the shrinker may free it, and does */
	ASSERT_EQ(do_munmap(mm, a, 4 * SZ_2M), 0);
	ASSERT_EQ(huge_zero_folio_shrink_count(), 0ul); /* mm still holds its reference */
	mmput(mm);
	mm = mm_alloc(3);
	ASSERT_EQ(huge_zero_folio_shrink_count(), (unsigned long)HPAGE_PMD_NR);
	alloc = counter("pgfree");
	ASSERT_EQ(huge_zero_folio_shrink_scan(), (unsigned long)HPAGE_PMD_NR);
	ASSERT_EQ(counter("pgfree") - alloc, HPAGE_PMD_NR);
	ASSERT_EQ(huge_zero_folio_shrink_count(), 0ul);
	/* and the next read fault allocates a new one */
	a = map(SZ_2M);
	ASSERT_EQ(peek(mm, a), 0);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 2);
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	return down();
}

/*
 * A write to the huge zero folio with no THP to be had falls back as
 * 6.18 does: the PMD splits into zero-page PTEs and the write fault
 * copies one page.
 */
static bool test_huge_zero_write_fallback(void)
{
	unsigned long a;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_EQ(peek(mm, a), 0);
	ASSERT_TRUE(huge_zero_at(a));
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "9"));
	ASSERT_EQ(touch(mm, a + 3 * PAGE_SIZE, 5), 0);
	ASSERT_EQ(counter("thp_fault_fallback"), 1);
	ASSERT_EQ(mthp(2048, "anon_fault_fallback"), 1);
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_EQ(counter("thp_fault_alloc"), 0);
	ASSERT_EQ(mapped_order(mm, a + 3 * PAGE_SIZE), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 1);
	ASSERT_EQ(peek(mm, a + 3 * PAGE_SIZE), 5);
	ASSERT_EQ(peek(mm, a + 4 * PAGE_SIZE), 0);
	ASSERT_EQ(mapped_folio(mm, a + 4 * PAGE_SIZE), NULL);
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "none"));
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	return down();
}

/*
 * foliolab/huge_zero_folio=present: a machine where some process has
 * read-faulted a THP range already; the run's first read fault then
 * allocates nothing but its PTE table.
 */
static bool test_huge_zero_folio_present(void)
{
	unsigned long a;
	int64_t alloc;

	ASSERT_TRUE(up());
	ASSERT_TRUE(knob(THP "hugepages-2048kB/enabled", "always"));
	ASSERT_TRUE(knob("foliolab/huge_zero_folio", "present"));
	ASSERT_EQ(fl__huge_zero_folio_prime(), 0);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 1);
	/* the priming process holds it through the run: the shrinker leaves it */
	ASSERT_EQ(huge_zero_folio_shrink_count(), 0ul);
	ASSERT_EQ(huge_zero_folio_shrink_scan(), 0ul);
	a = map(2 * SZ_2M);
	ASSERT_EQ(peek(mm, a), 0); /* the upper tables, the deposit */
	alloc = counter("pgalloc_normal");
	ASSERT_EQ(peek(mm, a + SZ_2M), 0);
	ASSERT_EQ(counter("pgalloc_normal") - alloc, 1);
	ASSERT_EQ(counter("thp_zero_page_alloc"), 1);
	ASSERT_EQ(do_munmap(mm, a, 2 * SZ_2M), 0);
	return down(); /* the teardown check: the priming reference goes with the run */
}

/* Access outside a VMA or against its protection is SIGSEGV: -EFAULT. */
static bool test_bad_access(void)
{
	unsigned long a = 0;

	ASSERT_TRUE(up());
	ASSERT_EQ(touch(mm, 0x1000, 1), -EFAULT);
	ASSERT_EQ(do_mmap(mm, 4096, VM_READ, &a), 0);
	ASSERT_EQ(touch(mm, a, 1), -EFAULT);
	ASSERT_EQ(peek(mm, a), 0);
	return down();
}

/*
 * The lockless VMA lookup does not fail because other VMAs change (the
 * kernel's lock_vma_under_rcu() neither): with the VMA set mid-change or
 * changed since this CPU's last lookup it still finds and read-locks the
 * VMA; an unmapped address, or a VMA that munmap detached, is refused.
 */
static bool test_lockless_vma_lookup(void)
{
	struct vm_area_struct *vma;
	unsigned long a = 0, b = 0;

	ASSERT_TRUE(up());
	ASSERT_EQ(do_mmap(mm, SZ_2M, VM_READ | VM_WRITE, &a), 0);
	ASSERT_EQ(touch(mm, a, 1), 0);
	/* another VMA comes and goes: the set changed since the last lookup */
	ASSERT_EQ(do_mmap(mm, SZ_2M, VM_READ | VM_WRITE, &b), 0);
	ASSERT_EQ(do_munmap(mm, b, SZ_2M), 0);
	vma = lock_vma_under_rcu(mm, a + 4096);
	ASSERT_TRUE(vma != NULL);
	ASSERT_EQ(vma_start(vma), a);
	vma_end_read(vma);
	/* a writer is changing the set right now (odd sequence) */
	__atomic_fetch_add(&mm->vma_seq, 1, __ATOMIC_SEQ_CST);
	vma = lock_vma_under_rcu(mm, a);
	ASSERT_TRUE(vma != NULL);
	vma_end_read(vma);
	__atomic_fetch_add(&mm->vma_seq, 1, __ATOMIC_SEQ_CST);
	/* nothing mapped there, and a VMA munmap took away */
	ASSERT_TRUE(lock_vma_under_rcu(mm, b) == NULL);
	vma = lock_vma_under_rcu(mm, a);
	ASSERT_TRUE(vma != NULL);
	vma_end_read(vma);
	ASSERT_EQ(do_munmap(mm, a, SZ_2M), 0);
	ASSERT_TRUE(lock_vma_under_rcu(mm, a) == NULL);
	ASSERT_TRUE(vma->detached);
	return down();
}

/*
 * A new mapping merges with the neighbours it touches when their flags
 * match, and with both only when their anon_vmas allow it: at most one has
 * one, or they share it (two halves of one split VMA).
 */
static bool test_new_mapping_merges(void)
{
	const unsigned long rw = VM_READ | VM_WRITE;
	unsigned long a = 0, b = 0, c = 0, d = 0, e = 0;

	ASSERT_TRUE(up());
	/* top-down placement: each new 2M mapping lands right below the last */
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &a), 0);
	ASSERT_EQ(touch(mm, a, 1), 0);
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &b), 0);
	ASSERT_EQ(b + SZ_2M, a);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 1); /* merged downwards into a's VMA */
	ASSERT_EQ(vma_start(fl__mm_vma(mm, 0)), b);
	ASSERT_EQ(vma_end(fl__mm_vma(mm, 0)), a + SZ_2M);
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &e), 0);
	ASSERT_EQ(e + SZ_2M, b);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 1);
	/* a hole in the middle: both halves keep the one anon_vma ... */
	ASSERT_EQ(do_munmap(mm, b, SZ_2M), 0);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 2);
	/* ... so a mapping that fills it joins all three */
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &d), 0);
	ASSERT_EQ(d, b);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 1);
	ASSERT_EQ(vma_start(fl__mm_vma(mm, 0)), e);
	ASSERT_EQ(vma_end(fl__mm_vma(mm, 0)), a + SZ_2M);
	/* different flags: a VMA of its own */
	ASSERT_EQ(do_mmap(mm, SZ_2M, VM_READ, &c), 0);
	ASSERT_EQ(c + SZ_2M, e);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 2);
	ASSERT_EQ(do_munmap(mm, c, 4 * SZ_2M), 0);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 0);
	return down();
}

/* Neighbours with anon_vmas of their own: the new range joins only the lower one. */
static bool test_merge_needs_compatible_anon_vmas(void)
{
	const unsigned long rw = VM_READ | VM_WRITE;
	unsigned long a = 0, b = 0, c = 0, d = 0;

	ASSERT_TRUE(up());
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &a), 0);
	ASSERT_EQ(touch(mm, a, 1), 0);
	ASSERT_EQ(do_mmap(mm, SZ_2M, VM_READ, &b), 0); /* a separator */
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &c), 0);
	ASSERT_EQ(c + 2 * SZ_2M, a);
	ASSERT_EQ(touch(mm, c, 1), 0);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 3);
	ASSERT_EQ(do_munmap(mm, b, SZ_2M), 0);
	ASSERT_EQ(do_mmap(mm, SZ_2M, rw, &d), 0);
	ASSERT_EQ(d, b);
	ASSERT_EQ(fl__mm_nr_vmas(mm), 2);
	ASSERT_EQ(vma_start(fl__mm_vma(mm, 0)), c);
	ASSERT_EQ(vma_end(fl__mm_vma(mm, 0)), d + SZ_2M);
	ASSERT_EQ(vma_start(fl__mm_vma(mm, 1)), a);
	ASSERT_EQ(do_munmap(mm, c, 3 * SZ_2M), 0);
	return down();
}

/*
 * Range accesses go in runs of pages that translate and fault one page at a
 * time where they do not: whatever the folio size, page i of a store of tag
 * T with step S holds T + i * S, and a load reads back exactly that; pages
 * the range skipped (stride) or never touched read 0 (the zero page).
 */
static bool range_round_trip(const char *mthp_knob, bool madv_huge)
{
	enum { N = 700 };
	static uint64_t got[2 * N];
	unsigned long a = map(4 * SZ_2M), start, i;
	uint64_t sum = 0, want_sum = 0;
	int64_t faults;

	ASSERT_TRUE(a != 0);
	if (mthp_knob)
		ASSERT_TRUE(knob(mthp_knob, "always"));
	if (madv_huge)
		ASSERT_EQ(do_madvise(mm, a, 4 * SZ_2M, MADV_HUGEPAGE), 0);
	/* every other page, from an odd page across the 2 MiB boundary */
	start = a + SZ_2M - 301 * PAGE_SIZE;
	ASSERT_EQ(fl__mm_access_range(mm, start, 2ul * N * PAGE_SIZE, 2 * PAGE_SIZE, true, 1000, 3,
				      NULL, NULL),
		  0);
	ASSERT_EQ(fl__mm_access_range(mm, start, 2ul * N * PAGE_SIZE, PAGE_SIZE, false, 0, 0, got,
				      &sum),
		  0);
	for (i = 0; i < 2 * N; i++) {
		uint64_t want = i % 2 ? 0 : 1000 + (i / 2) * 3;

		ASSERT_EQ(got[i], want);
		want_sum += want;
	}
	ASSERT_EQ(sum, want_sum);
	/*
	 * The first N pages again: with base pages the odd ones map the zero
	 * page and take a write fault each (large folios mapped them with
	 * their even neighbours); then once more, all mapped and writable: no
	 * fault at all, table boundaries included.
	 */
	faults = counter("pgfault");
	ASSERT_EQ(fl__mm_access_range(mm, start, (unsigned long)N * PAGE_SIZE, PAGE_SIZE, true, 7,
				      1, NULL, NULL),
		  0);
	ASSERT_EQ(counter("pgfault") - faults, mthp_knob || madv_huge ? 0 : N / 2);
	faults = counter("pgfault");
	ASSERT_EQ(fl__mm_access_range(mm, start, (unsigned long)N * PAGE_SIZE, PAGE_SIZE, true, 7,
				      1, NULL, NULL),
		  0);
	ASSERT_EQ(counter("pgfault"), faults);
	ASSERT_EQ(fl__mm_access_range(mm, start, (unsigned long)N * PAGE_SIZE, PAGE_SIZE, false, 0,
				      0, got, NULL),
		  0);
	for (i = 0; i < N; i++)
		ASSERT_EQ(got[i], 7 + i);
	ASSERT_EQ(do_munmap(mm, a, 4 * SZ_2M), 0);
	if (mthp_knob)
		ASSERT_TRUE(knob(mthp_knob, "never"));
	return true;
}

static bool test_range_access_round_trip(void)
{
	ASSERT_TRUE(up());
	ASSERT_TRUE(range_round_trip(NULL, false));
	ASSERT_TRUE(range_round_trip(THP "hugepages-16kB/enabled", false));
	ASSERT_TRUE(range_round_trip(THP "hugepages-64kB/enabled", false));
	ASSERT_TRUE(range_round_trip(NULL, true)); /* PMD folios */
	return down();
}

TEST_MAIN(TEST(test_defaults_give_base_pages), TEST(test_knob_combinations),
	  TEST(test_alignment_inside_vma), TEST(test_populated_pte_lowers_order),
	  TEST(test_allocation_fallback), TEST(test_pmd_needs_whole_aligned_range),
	  TEST(test_read_maps_zero_page_then_write_copies),
	  TEST(test_zero_page_without_use_zero_page), TEST(test_no_zero_page_reads_allocate),
	  TEST(test_huge_zero_folio), TEST(test_huge_zero_write_fallback),
	  TEST(test_huge_zero_folio_present), TEST(test_bad_access),
	  TEST(test_range_access_round_trip), TEST(test_lockless_vma_lookup),
	  TEST(test_new_mapping_merges), TEST(test_merge_needs_compatible_anon_vmas))
