// SPDX-License-Identifier: GPL-2.0-only
/*
 * khugepaged.c - collapsing PTE-mapped anonymous memory into PMD THPs
 * (mm/khugepaged.c in the kernel, 6.18): the scan of the mms registered
 * with khugepaged, and MADV_COLLAPSE through the same code.
 *
 * A mm is registered (khugepaged_enter_vma()) once one of its VMAs may
 * have PMD THPs by the knobs: at mmap, MADV_HUGEPAGE, a PMD fault, fork.
 * khugepaged_do_scan() drains every CPU's LRU cache and walks the mms in
 * registration order from a cursor, PMD range by PMD range, pages_to_scan
 * pages a pass (each range costs 512, a VMA it skips 1), and counts a
 * full scan each time the cursor leaves the last mm; entering a mm costs
 * 1, passing one whose mmap_lock is busy nothing. With
 * --khugepaged-progress=ptes (the rule of seed 003's series, 2/4 "refine
 * scan progress number", in mainline since 7.1) a range costs the PTEs
 * its scan looked at (1 when it has no PTE table or a PMD maps it): a
 * range the scan leaves at its first PTE, as seed 003's lazy-free skip
 * does, costs the pass 1 page instead of 512.
 *
 * hpage_collapse_scan_pmd() checks a range's 512 PTEs in 6.18's order:
 * swap entries (max_ptes_swap), none or zero PTEs (max_ptes_none), the
 * page, seed 003's lazy-free check (--khugepaged-lazyfree=skip), an anon
 * folio, maybe shared (max_ptes_shared), on the LRU, unlocked, no
 * reference but its mappings, and counts the young PTEs: khugepaged wants
 * one at least, and half the range when it has swap entries.
 * collapse_huge_page() then drops mmap_lock, allocates and charges the
 * THP (thp_collapse_alloc, or thp_collapse_alloc_failed and an
 * alloc_sleep_millisecs wait), swaps in what was swapped out, takes
 * mmap_lock for writing, clears the PMD (the PTE table is detached: no
 * walker reaches it), isolates every folio off the LRU checking again,
 * copies the tags (zero for none and zero-page PTEs), maps the THP by its
 * PMD, deposits the old PTE table and frees the old pages. Every result
 * counts under its trace string as fl_scan_<result>.
 *
 * MADV_COLLAPSE (madvise_collapse()) runs the same scan without the
 * max_ptes_* limits and the young-PTE rule, ignoring the THP knobs but
 * VM_NOHUGEPAGE, PMD range by range, going on past the results 6.18 lets
 * it, and returns 0 when every range ends PMD-mapped, else the errno of
 * the last failure (madvise_collapse_errno()).
 *
 * Not modelled: file and shmem collapse (khugepaged skips file VMAs),
 * mTHP collapse (6.18 has none), userfaultfd, the node-balancing abort
 * (one node's pages count alike), the mm_slot hash.
 *
 * Conventions in this file: "cc" is the collapse control; an address is a
 * PMD range's start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fs.h"
#include "pgtable.h"
#include "swap.h"
#include "swapops.h"

enum scan_result {
	SCAN_FAIL,
	SCAN_SUCCEED,
	SCAN_PMD_NULL,
	SCAN_PMD_NONE,
	SCAN_PMD_MAPPED,
	SCAN_EXCEED_NONE_PTE,
	SCAN_EXCEED_SWAP_PTE,
	SCAN_EXCEED_SHARED_PTE,
	SCAN_PTE_NON_PRESENT,
	SCAN_PTE_UFFD_WP,
	SCAN_PTE_MAPPED_HUGEPAGE,
	SCAN_LACK_REFERENCED_PAGE,
	SCAN_PAGE_NULL,
	SCAN_SCAN_ABORT,
	SCAN_PAGE_COUNT,
	SCAN_PAGE_LRU,
	SCAN_PAGE_LOCK,
	SCAN_PAGE_ANON,
	SCAN_PAGE_LAZYFREE, /* seed 003 */
	SCAN_PAGE_COMPOUND,
	SCAN_ANY_PROCESS,
	SCAN_VMA_NULL,
	SCAN_VMA_CHECK,
	SCAN_ADDRESS_RANGE,
	SCAN_DEL_PAGE_LRU,
	SCAN_ALLOC_HUGE_PAGE_FAIL,
	SCAN_CGROUP_CHARGE_FAIL,
	NR_SCAN_RESULTS
};

/* include/trace/events/huge_memory.h's strings */
static const char *const scan_result_names[NR_SCAN_RESULTS] = {
	[SCAN_FAIL] = "failed",
	[SCAN_SUCCEED] = "succeeded",
	[SCAN_PMD_NULL] = "pmd_null",
	[SCAN_PMD_NONE] = "pmd_none",
	[SCAN_PMD_MAPPED] = "page_pmd_mapped",
	[SCAN_EXCEED_NONE_PTE] = "exceed_none_pte",
	[SCAN_EXCEED_SWAP_PTE] = "exceed_swap_pte",
	[SCAN_EXCEED_SHARED_PTE] = "exceed_shared_pte",
	[SCAN_PTE_NON_PRESENT] = "pte_non_present",
	[SCAN_PTE_UFFD_WP] = "pte_uffd_wp",
	[SCAN_PTE_MAPPED_HUGEPAGE] = "pte_mapped_hugepage",
	[SCAN_LACK_REFERENCED_PAGE] = "lack_referenced_page",
	[SCAN_PAGE_NULL] = "page_null",
	[SCAN_SCAN_ABORT] = "scan_aborted",
	[SCAN_PAGE_COUNT] = "not_suitable_page_count",
	[SCAN_PAGE_LRU] = "page_not_in_lru",
	[SCAN_PAGE_LOCK] = "page_locked",
	[SCAN_PAGE_ANON] = "page_not_anon",
	[SCAN_PAGE_LAZYFREE] = "page_lazyfree",
	[SCAN_PAGE_COMPOUND] = "page_compound",
	[SCAN_ANY_PROCESS] = "no_process_for_page",
	[SCAN_VMA_NULL] = "vma_null",
	[SCAN_VMA_CHECK] = "vma_check_failed",
	[SCAN_ADDRESS_RANGE] = "not_suitable_address_range",
	[SCAN_DEL_PAGE_LRU] = "could_not_delete_page_from_lru",
	[SCAN_ALLOC_HUGE_PAGE_FAIL] = "alloc_huge_page_failed",
	[SCAN_CGROUP_CHARGE_FAIL] = "ccgroup_charge_failed",
};

struct collapse_control {
	bool is_khugepaged;
	unsigned int progress; /* PTEs (or ranges without them) the scans looked at */
};

unsigned int fl__khugepaged[NR_KHUGEPAGED_KNOBS];
bool fl__khugepaged_lazyfree_skip;
bool fl__khugepaged_progress_ptes;

/* every result of a range's scan and collapse, and khugepaged's sysfs counts (atomic) */
static int64_t scan_results[NR_SCAN_RESULTS];
static int64_t khugepaged_pages_collapsed;
static int64_t khugepaged_full_scans;

static void count_result(int result)
{
	fl_atomic_fetch_add(&scan_results[result], 1, __ATOMIC_RELAXED);
}

/* ---- knobs (/sys/kernel/mm/transparent_hugepage/khugepaged/) ---- */

static const struct {
	const char *name;
	unsigned int dflt;
	long lo, hi;
} knobs[NR_KHUGEPAGED_KNOBS] = {
	[KH_PAGES_TO_SCAN] = { "pages_to_scan", HPAGE_PMD_NR * 8, 1, 0xffffffffl },
	[KH_SCAN_SLEEP_MS] = { "scan_sleep_millisecs", 10000, 0, 0xffffffffl },
	[KH_ALLOC_SLEEP_MS] = { "alloc_sleep_millisecs", 60000, 0, 0xffffffffl },
	[KH_MAX_PTES_NONE] = { "max_ptes_none", HPAGE_PMD_NR - 1, 0, HPAGE_PMD_NR - 1 },
	[KH_MAX_PTES_SWAP] = { "max_ptes_swap", HPAGE_PMD_NR / 8, 0, HPAGE_PMD_NR - 1 },
	[KH_MAX_PTES_SHARED] = { "max_ptes_shared", HPAGE_PMD_NR / 2, 0, HPAGE_PMD_NR - 1 },
	[KH_DEFRAG] = { "defrag", 1, 0, 1 },
};

void fl__khugepaged_knobs_default(void)
{
	int i;

	for (i = 0; i < NR_KHUGEPAGED_KNOBS; i++)
		fl__khugepaged[i] = knobs[i].dflt;
	fl__khugepaged_lazyfree_skip = false;
	fl__khugepaged_progress_ptes = false;
}

/**
 * fl__khugepaged_knob_set() - set khugepaged/@name (the part after
 * "khugepaged/") to the whole number @value in its 6.18 range.
 * Return: 0, -ENOENT (no such knob) or -EINVAL (with the reason in @err).
 */
int fl__khugepaged_knob_set(const char *name, const char *value, char *err, size_t len)
{
	int i;

	for (i = 0; i < NR_KHUGEPAGED_KNOBS; i++) {
		char *end;
		long v;

		if (strcmp(name, knobs[i].name))
			continue;
		v = strtol(value, &end, 10);
		if (!*value || *end || v < knobs[i].lo || v > knobs[i].hi) {
			snprintf(
				err, len,
				"transparent_hugepage/khugepaged/%s: '%s' is not a number %ld..%ld",
				name, value, knobs[i].lo, knobs[i].hi);
			return -EINVAL;
		}
		WRITE_ONCE(fl__khugepaged[i], (unsigned int)v);
		fl__khugepaged_wake(); /* the kernel's store wakes it to take a new sleep */
		return 0;
	}
	return -ENOENT;
}

/* Return: 0 with the value in @buf, or -ENOENT. */
int fl__khugepaged_knob_get(const char *name, char *buf, size_t len)
{
	int i;

	for (i = 0; i < NR_KHUGEPAGED_KNOBS; i++) {
		if (!strcmp(name, knobs[i].name)) {
			snprintf(buf, len, "%u", READ_ONCE(fl__khugepaged[i]));
			return 0;
		}
	}
	return -ENOENT;
}

/* knob @i's name (under khugepaged/), NULL past the last */
const char *fl__khugepaged_knob_name(int i)
{
	return i < NR_KHUGEPAGED_KNOBS ? knobs[i].name : NULL;
}

/* ---- the mms khugepaged scans ---- */

struct khugepaged_mm_slot {
	struct list_head mm_node; /* khugepaged_mm_lock */
	struct mm_struct *mm;	  /* holds a mmgrab() */
};

static const struct fl_lock_class khugepaged_mm_lock_class = { .name = "khugepaged_mm_lock",
							       .rank = FL_RANK_KHUGEPAGED_MM,
							       .kind = FL_LOCK_SPIN };
static struct fl_spinlock khugepaged_mm_lock = { .cls = &khugepaged_mm_lock_class };
static LIST_HEAD(khugepaged_mm_head);

/* where the scan is: the mm and the address in it (khugepaged_mm_lock) */
static struct {
	struct khugepaged_mm_slot *mm_slot;
	unsigned long address;
} khugepaged_scan;

/* PMD-sized THP is enabled (always, or madvise, or inherit of either) */
static bool hugepage_pmd_enabled(void)
{
	unsigned long pmd = 1ul << PMD_ORDER;
	int enabled = READ_ONCE(fl__thp.enabled);

	return (READ_ONCE(fl__thp.orders_always) & pmd) ||
	       (READ_ONCE(fl__thp.orders_madvise) & pmd) ||
	       ((READ_ONCE(fl__thp.orders_inherit) & pmd) && enabled != THP_NEVER);
}

static bool khugepaged_has_work(void)
{
	return !list_empty(&khugepaged_mm_head) && hugepage_pmd_enabled();
}

/* the VMA may have PMD THPs by the knobs (TVA_KHUGEPAGED) */
static bool vma_khugepaged_allowed(struct vm_area_struct *vma, unsigned long vm_flags)
{
	return vma_is_anonymous(vma) && !(vm_flags & VM_SHARED) &&
	       thp_vma_allowable_orders(vma, vm_flags, 1ul << PMD_ORDER);
}

static void __khugepaged_enter(struct mm_struct *mm)
{
	FL_LOCK_SITE(site);
	struct khugepaged_mm_slot *slot;
	bool wake;

	if (fl_test_and_set_bit(MMF_VM_HUGEPAGE, &mm->flags))
		return;
	slot = fl_calloc(1, sizeof(*slot));
	if (!slot) {
		fl_clear_bit(MMF_VM_HUGEPAGE, &mm->flags);
		return;
	}
	slot->mm = mm;
	mmgrab(mm);
	fl_spin_lock_at(&khugepaged_mm_lock, &site);
	wake = list_empty(&khugepaged_mm_head);
	list_add_tail(&slot->mm_node, &khugepaged_mm_head);
	spin_unlock(&khugepaged_mm_lock);
	if (wake)
		fl__khugepaged_wake();
}

/**
 * khugepaged_enter_vma() - register @vma's mm with khugepaged when the
 * VMA may have PMD THPs (@vm_flags, the knobs).
 */
void khugepaged_enter_vma(struct vm_area_struct *vma, unsigned long vm_flags)
{
	if (!fl_test_bit(MMF_VM_HUGEPAGE, &vma->vm_mm->flags) && hugepage_pmd_enabled() &&
	    vma_khugepaged_allowed(vma, vm_flags))
		__khugepaged_enter(vma->vm_mm);
}

/* fork: the child is registered when the parent is */
void khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm)
{
	if (fl_test_bit(MMF_VM_HUGEPAGE, &oldmm->flags))
		__khugepaged_enter(mm);
}

static void free_mm_slot(struct khugepaged_mm_slot *slot)
{
	fl_clear_bit(MMF_VM_HUGEPAGE, &slot->mm->flags);
	mmdrop(slot->mm);
	fl_free(slot);
}

/**
 * khugepaged_exit() - the last user of @mm is gone: unregister it, unless
 * the scan is on it now, which then drops it once it looks again.
 * Context: called before exit_mmap().
 */
void khugepaged_exit(struct mm_struct *mm)
{
	FL_LOCK_SITE(site);
	struct khugepaged_mm_slot *slot, *found = NULL;
	bool free = false;

	if (!fl_test_bit(MMF_VM_HUGEPAGE, &mm->flags))
		return;
	fl_spin_lock_at(&khugepaged_mm_lock, &site);
	list_for_each_entry(slot, &khugepaged_mm_head, mm_node)
	{
		if (slot->mm == mm) {
			found = slot;
			break;
		}
	}
	if (found && khugepaged_scan.mm_slot != found) {
		list_del(&found->mm_node);
		free = true;
	}
	spin_unlock(&khugepaged_mm_lock);
	if (free)
		free_mm_slot(found);
}

/* The mm has exited or been forgotten: khugepaged lets it go. */
static bool hpage_collapse_test_exit(struct mm_struct *mm)
{
	return fl_atomic_load(&mm->mm_users, __ATOMIC_ACQUIRE) == 0;
}

/* Context: khugepaged_mm_lock held. Return: the slot to free, or NULL. */
static struct khugepaged_mm_slot *collect_mm_slot(struct khugepaged_mm_slot *slot)
{
	if (!hpage_collapse_test_exit(slot->mm))
		return NULL;
	list_del(&slot->mm_node);
	return slot;
}

/* ---- one PMD range ---- */

/* SCAN_SUCCEED with a PTE table at @address, or why not (check_pmd_state()) */
static int find_pmd_or_thp_or_none(struct mm_struct *mm, unsigned long address,
				   struct pgtable **pmdt)
{
	pteval_t v;

	*pmdt = walk_pmd_table(mm, address);
	if (!*pmdt)
		return SCAN_PMD_NULL;
	v = entry_load(&(*pmdt)->e[pmd_index(address)]);
	if (!v)
		return SCAN_PMD_NONE;
	if (pmd_trans_huge(v))
		return SCAN_PMD_MAPPED;
	return SCAN_SUCCEED;
}

static bool pte_none_or_zero(pteval_t v)
{
	return !v || ((v & _PAGE_PRESENT) && pte_pfn(v) == fl__zero_pfn);
}

/* a PTE khugepaged counts as referenced */
static bool pte_referenced(pteval_t v, struct folio *folio)
{
	return (v & _PAGE_ACCESSED) || folio_test_young(folio) || folio_test_referenced(folio);
}

/* seed 003: khugepaged leaves a clean lazy-free folio outside VM_DROPPABLE alone */
static bool skip_lazyfree(struct collapse_control *cc, struct vm_area_struct *vma,
			  struct folio *folio, pteval_t v)
{
	return READ_ONCE(fl__khugepaged_lazyfree_skip) && cc->is_khugepaged &&
	       !(vma->vm_flags & VM_DROPPABLE) && folio_test_lazyfree(folio) && !(v & _PAGE_DIRTY);
}

/* Put an isolated order-0 folio back on the LRU (release_pte_folio()). */
static void release_pte_folio(struct folio *folio)
{
	mod_node_page_state(folio_pgdat(folio), NR_ISOLATED_ANON, -(long)folio_nr_pages(folio));
	folio_unlock(folio);
	folio_add_lru(folio); /* folio_putback_lru() */
	folio_put(folio);
}

/* Undo __collapse_huge_page_isolate() for the PTEs before @upto. */
static void release_pte_pages(struct pgtable *ptet, int upto, struct list_head *compound)
{
	struct folio *folio, *tmp;
	int i;

	for (i = 0; i < upto; i++) {
		pteval_t v = entry_load(&ptet->e[i]);

		if (pte_none_or_zero(v))
			continue;
		folio = pfn_folio(pte_pfn(v));
		if (!folio_test_large(folio))
			release_pte_folio(folio);
	}
	list_for_each_entry_safe(folio, tmp, compound, lru)
	{
		list_del(&folio->lru);
		release_pte_folio(folio);
	}
}

/*
 * __collapse_huge_page_isolate() - with the PTE table detached, check its
 * entries again and take every folio off the LRU, locked (a large folio
 * once, on @compound).
 * Context: mmap_lock for writing, the anon_vma's lock, the table's lock.
 */
static int __collapse_huge_page_isolate(struct vm_area_struct *vma, struct pgtable *ptet,
					struct collapse_control *cc, struct list_head *compound)
{
	int i, none_or_zero = 0, shared = 0, referenced = 0, result;
	int max_ptes_none = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_NONE]);
	int max_ptes_shared = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_SHARED]);

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pteval_t v = entry_load(&ptet->e[i]);
		struct folio *folio, *f;

		if (pte_none_or_zero(v)) {
			if (!cc->is_khugepaged || ++none_or_zero <= max_ptes_none)
				continue;
			result = SCAN_EXCEED_NONE_PTE;
			count_vm_event(THP_SCAN_EXCEED_NONE_PTE);
			goto out;
		}
		if (!(v & _PAGE_PRESENT)) {
			result = SCAN_PTE_NON_PRESENT;
			goto out;
		}
		folio = pfn_folio(pte_pfn(v));
		if (skip_lazyfree(cc, vma, folio, v)) {
			result = SCAN_PAGE_LAZYFREE;
			goto out;
		}
		if (folio_maybe_mapped_shared(folio) && cc->is_khugepaged &&
		    ++shared > max_ptes_shared) {
			result = SCAN_EXCEED_SHARED_PTE;
			count_vm_event(THP_SCAN_EXCEED_SHARED_PTE);
			goto out;
		}
		if (folio_test_large(folio)) {
			list_for_each_entry(f, compound, lru) if (f == folio) goto next;
		}
		if (!folio_trylock(folio)) {
			result = SCAN_PAGE_LOCK;
			goto out;
		}
		if (folio_ref_count(folio) != folio_expected_ref_count(folio)) {
			folio_unlock(folio);
			result = SCAN_PAGE_COUNT;
			goto out;
		}
		if (!folio_isolate_lru(folio)) {
			folio_unlock(folio);
			result = SCAN_DEL_PAGE_LRU;
			goto out;
		}
		mod_node_page_state(folio_pgdat(folio), NR_ISOLATED_ANON,
				    (long)folio_nr_pages(folio));
		if (folio_test_large(folio))
			list_add_tail(&folio->lru, compound);
next:
		if (cc->is_khugepaged && pte_referenced(v, folio))
			referenced++;
	}
	if (cc->is_khugepaged && !referenced) {
		result = SCAN_LACK_REFERENCED_PAGE;
		goto out;
	}
	return SCAN_SUCCEED;
out:
	release_pte_pages(ptet, i, compound);
	return result;
}

/*
 * The THP takes the old pages' tags (0 for none and zero-page PTEs); the
 * old PTEs go, their pages with them (__collapse_huge_page_copy() and
 * __collapse_huge_page_copy_succeeded()).
 * Context: mmap_lock for writing; the table is detached.
 */
static void __collapse_huge_page_copy(struct pgtable *ptet, struct folio *folio,
				      struct vm_area_struct *vma, struct list_head *compound)
{
	FL_LOCK_SITE(site);
	unsigned long pfn = folio_pfn(folio);
	struct folio *src, *tmp;
	int i, nr;

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pteval_t v = entry_load(&ptet->e[i]);

		if (pte_none_or_zero(v)) {
			fl_cost_mem(FL_COST_CLEAR_PAGE, pfn + (unsigned long)i, 1);
			page_tag_set(pfn + (unsigned long)i, 0);
		} else {
			fl_cost_mem(FL_COST_COPY_PAGE, pfn + (unsigned long)i, 1);
			page_tag_set(pfn + (unsigned long)i, page_tag(pte_pfn(v)));
		}
	}
	for (i = 0; i < HPAGE_PMD_NR; i += nr) {
		pteval_t v = entry_load(&ptet->e[i]);
		struct page *page;
		int k;

		nr = 1;
		if (pte_none_or_zero(v)) {
			add_mm_counter(vma->vm_mm, MM_ANONPAGES, 1);
			if (v) {
				fl_spin_lock_at(&ptet->ptl, &site);
				ptep_get_and_clear(&ptet->e[i]);
				spin_unlock(&ptet->ptl);
			}
			continue;
		}
		page = pfn_to_page(pte_pfn(v));
		src = page_folio(page);
		if (!folio_test_large(src))
			release_pte_folio(src);
		else /* 6.18 batches a large folio's PTEs: one rmap removal, not partial */
			nr = folio_pte_batch(src, pte_pfn(v), &ptet->e[i], HPAGE_PMD_NR - i);
		fl_spin_lock_at(&ptet->ptl, &site);
		for (k = 0; k < nr; k++)
			ptep_get_and_clear(&ptet->e[i + k]);
		fl_cost_n(FL_COST_ZAP_PTE, (uint64_t)nr); /* the clear and the rmap, as a zap's */
		folio_remove_rmap_ptes(src, page, nr, vma);
		spin_unlock(&ptet->ptl);
		/* free_folio_and_swap_cache(): the PTEs' references, and the slots if unmapped */
		free_swap_cache(src);
		folio_put_refs(src, nr);
	}
	list_for_each_entry_safe(src, tmp, compound, lru)
	{
		list_del(&src->lru);
		mod_node_page_state(folio_pgdat(src), NR_ISOLATED_ANON, -(long)folio_nr_pages(src));
		folio_unlock(src);
		free_swap_cache(src);
		folio_add_lru(src); /* folio_putback_lru() */
		folio_put(src);
	}
}

/* hugepage_vma_revalidate(): the VMA at @address may still take a THP there */
static int hugepage_vma_revalidate(struct mm_struct *mm, unsigned long address, bool expect_anon,
				   struct vm_area_struct **vmap, struct collapse_control *cc)
{
	struct vm_area_struct *vma;

	if (hpage_collapse_test_exit(mm))
		return SCAN_ANY_PROCESS;
	*vmap = vma = find_vma(mm, address);
	if (!vma || vma->vm_start > address)
		return SCAN_VMA_NULL;
	if (!thp_vma_suitable_order(vma, address, PMD_ORDER))
		return SCAN_ADDRESS_RANGE;
	if (vma->vm_flags & VM_NOHUGEPAGE ||
	    (cc->is_khugepaged && !vma_khugepaged_allowed(vma, vma->vm_flags)))
		return SCAN_VMA_CHECK;
	if (expect_anon && (!vma->anon_vma || !vma_is_anonymous(vma)))
		return SCAN_PAGE_ANON;
	return SCAN_SUCCEED;
}

/*
 * collapse_huge_page() - make the PMD range at @address one THP.
 * Context: called with mmap_lock held for reading; returns without it.
 */
static int collapse_huge_page(struct mm_struct *mm, unsigned long address, int referenced,
			      int unmapped, struct collapse_control *cc)
{
	FL_LOCK_SITE_NAMED(site_pmd, "collapse_huge_page");
	FL_LOCK_SITE_NAMED(site_pte, "collapse_huge_page");
	LIST_HEAD(compound);
	struct vm_area_struct *vma;
	struct pgtable *pmdt, *ptet;
	struct folio *folio;
	gfp_t gfp;
	int result, i;
	pteval_t v;

	(void)referenced;
	up_read(&mm->mmap_lock);
	gfp = !cc->is_khugepaged || READ_ONCE(fl__khugepaged[KH_DEFRAG]) ? GFP_TRANSHUGE
									 : GFP_TRANSHUGE_LIGHT;
	folio = folio_alloc(gfp, PMD_ORDER);
	if (!folio) {
		count_vm_event(THP_COLLAPSE_ALLOC_FAILED);
		return SCAN_ALLOC_HUGE_PAGE_FAIL;
	}
	count_vm_event(THP_COLLAPSE_ALLOC);
	if (mem_cgroup_charge(folio, mm, gfp)) {
		folio_put(folio);
		return SCAN_CGROUP_CHARGE_FAIL;
	}
	down_read(&mm->mmap_lock);
	result = hugepage_vma_revalidate(mm, address, true, &vma, cc);
	if (result == SCAN_SUCCEED)
		result = find_pmd_or_thp_or_none(mm, address, &pmdt);
	if (result != SCAN_SUCCEED) {
		up_read(&mm->mmap_lock);
		goto out_nolock;
	}
	/* __collapse_huge_page_swapin(): each swap entry faulted in */
	for (i = 0; unmapped && i < HPAGE_PMD_NR; i++) {
		unsigned long a = address + (unsigned long)i * PAGE_SIZE;
		pteval_t *slot = fl__pte_lookup(mm, a, NULL);

		if (!slot || !is_swap_pte(entry_load(slot)))
			continue;
		if (fl__swapin_pte(vma, pmdt, a) & VM_FAULT_ERROR) {
			up_read(&mm->mmap_lock);
			result = SCAN_FAIL;
			goto out_nolock;
		}
	}
	if (unmapped)
		lru_add_drain();
	up_read(&mm->mmap_lock);

	down_write(&mm->mmap_lock);
	result = hugepage_vma_revalidate(mm, address, true, &vma, cc);
	if (result == SCAN_SUCCEED)
		result = find_pmd_or_thp_or_none(mm, address, &pmdt);
	if (result != SCAN_SUCCEED)
		goto out_up_write;
	vma_start_write(vma);
	anon_vma_lock_write(vma->anon_vma);
	/* pmdp_collapse_flush(): the table is no walker's any more */
	fl_spin_lock_at(&pmdt->ptl, &site_pmd);
	v = ptep_get_and_clear(&pmdt->e[pmd_index(address)]);
	spin_unlock(&pmdt->ptl);
	flush_tlb_range(mm, address, address + PMD_SIZE);
	ptet = entry_table(v);
	fl_spin_lock_at(&ptet->ptl, &site_pte);
	result = __collapse_huge_page_isolate(vma, ptet, cc, &compound);
	spin_unlock(&ptet->ptl);
	if (result != SCAN_SUCCEED) {
		fl_spin_lock_at(&pmdt->ptl, &site_pmd);
		entry_store(&pmdt->e[pmd_index(address)], v);
		spin_unlock(&pmdt->ptl);
		anon_vma_unlock_write(vma->anon_vma);
		vma_end_write(vma);
		goto out_up_write;
	}
	anon_vma_unlock_write(vma->anon_vma);
	/*
	 * What a collapse costs beyond the parts charged apart (the scan, the
	 * allocation, the copy, the PTE clears, the flush): calibrate's
	 * MADV_COLLAPSE run, under mmap_lock for writing as the copy is.
	 */
	fl_cost(FL_COST_COLLAPSE);
	__collapse_huge_page_copy(ptet, folio, vma, &compound);
	fl_spin_lock_at(&pmdt->ptl, &site_pmd);
	folio_add_new_anon_rmap(folio, vma, address, RMAP_EXCLUSIVE, true);
	folio_add_lru_vma(folio, vma);
	pmdt->deposit[pmd_index(address)] = ptet;
	v = pfn_pte(folio_pfn(folio), _PAGE_PRESENT | _PAGE_PSE | _PAGE_ACCESSED | _PAGE_DIRTY);
	if (vma->vm_flags & VM_WRITE)
		v |= _PAGE_RW;
	fl_cost(FL_COST_SET_PTE);
	entry_store(&pmdt->e[pmd_index(address)], v);
	deferred_split_folio(folio, false);
	spin_unlock(&pmdt->ptl);
	vma_end_write(vma);
	folio = NULL;
	result = SCAN_SUCCEED;
out_up_write:
	up_write(&mm->mmap_lock);
out_nolock:
	if (folio)
		folio_put(folio);
	return result;
}

/*
 * hpage_collapse_scan_pmd() - may the PMD range at @address collapse?
 * If so, collapse it, which drops mmap_lock (*@mmap_locked false).
 * Context: mmap_lock held for reading.
 */
static int hpage_collapse_scan_pmd(struct mm_struct *mm, struct vm_area_struct *vma,
				   unsigned long address, bool *mmap_locked,
				   struct collapse_control *cc)
{
	FL_LOCK_SITE_NAMED(site, "hpage_collapse_scan_pmd");
	int i, none_or_zero = 0, shared = 0, unmapped = 0, referenced = 0, result;
	int max_ptes_none = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_NONE]);
	int max_ptes_swap = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_SWAP]);
	int max_ptes_shared = (int)READ_ONCE(fl__khugepaged[KH_MAX_PTES_SHARED]);
	struct pgtable *pmdt, *ptet;

	result = find_pmd_or_thp_or_none(mm, address, &pmdt);
	if (result != SCAN_SUCCEED) {
		cc->progress++;
		goto out;
	}
	ptet = entry_table(entry_load(&pmdt->e[pmd_index(address)]));
	fl_spin_lock_at(&ptet->ptl, &site);
	if (entry_load(&pmdt->e[pmd_index(address)]) != table_entry(ptet)) {
		spin_unlock(&ptet->ptl);
		cc->progress++;
		result = SCAN_PMD_NULL;
		goto out;
	}
	for (i = 0; i < HPAGE_PMD_NR; i++) {
		pteval_t v = entry_load(&ptet->e[i]);
		struct folio *folio;

		cc->progress++;
		fl_cost(FL_COST_ZAP_PTE); /* a look at an entry */
		if (is_swap_pte(v)) {
			if (!cc->is_khugepaged || ++unmapped <= max_ptes_swap)
				continue;
			result = SCAN_EXCEED_SWAP_PTE;
			count_vm_event(THP_SCAN_EXCEED_SWAP_PTE);
			goto out_unmap;
		}
		if (pte_none_or_zero(v)) {
			if (!cc->is_khugepaged || ++none_or_zero <= max_ptes_none)
				continue;
			result = SCAN_EXCEED_NONE_PTE;
			count_vm_event(THP_SCAN_EXCEED_NONE_PTE);
			goto out_unmap;
		}
		if (v & _PAGE_SPECIAL) {
			result = SCAN_PAGE_NULL;
			goto out_unmap;
		}
		folio = pfn_folio(pte_pfn(v));
		if (skip_lazyfree(cc, vma, folio, v)) {
			result = SCAN_PAGE_LAZYFREE;
			goto out_unmap;
		}
		if (!folio_test_anon(folio)) {
			result = SCAN_PAGE_ANON;
			goto out_unmap;
		}
		if (folio_maybe_mapped_shared(folio) && cc->is_khugepaged &&
		    ++shared > max_ptes_shared) {
			result = SCAN_EXCEED_SHARED_PTE;
			count_vm_event(THP_SCAN_EXCEED_SHARED_PTE);
			goto out_unmap;
		}
		if (!folio_test_lru(folio)) {
			result = SCAN_PAGE_LRU;
			goto out_unmap;
		}
		if (folio_test_locked(folio)) {
			result = SCAN_PAGE_LOCK;
			goto out_unmap;
		}
		if (folio_expected_ref_count(folio) != folio_ref_count(folio)) {
			result = SCAN_PAGE_COUNT;
			goto out_unmap;
		}
		if (cc->is_khugepaged && pte_referenced(v, folio))
			referenced++;
	}
	if (cc->is_khugepaged && (!referenced || (unmapped && referenced < HPAGE_PMD_NR / 2)))
		result = SCAN_LACK_REFERENCED_PAGE;
	else
		result = SCAN_SUCCEED;
out_unmap:
	spin_unlock(&ptet->ptl);
	if (result == SCAN_SUCCEED) {
		result = collapse_huge_page(mm, address, referenced, unmapped, cc);
		*mmap_locked = false;
	}
out:
	count_result(result);
	return result;
}

/* ---- khugepaged's pass ---- */

/*
 * khugepaged_scan_mm_slot() - scan the cursor's mm from the cursor's
 * address until @pages are done, a collapse drops mmap_lock, or the mm
 * ends (then the cursor moves to the next mm: past the last, a full scan).
 * Return: the pages it counts as done.
 */
static unsigned int khugepaged_scan_mm_slot(unsigned int pages, int *result,
					    struct collapse_control *cc)
{
	FL_LOCK_SITE(site);
	struct khugepaged_mm_slot *slot, *dead = NULL;
	struct vm_area_struct *vma = NULL;
	struct mm_struct *mm;
	unsigned int progress = 0, looked;
	unsigned long addr;
	bool mmap_locked = true, ptes = READ_ONCE(fl__khugepaged_progress_ptes);
	int i;

	*result = SCAN_FAIL;
	fl_spin_lock_at(&khugepaged_mm_lock, &site);
	slot = khugepaged_scan.mm_slot;
	if (!slot) {
		slot = list_first_entry(&khugepaged_mm_head, struct khugepaged_mm_slot, mm_node);
		khugepaged_scan.address = 0;
		khugepaged_scan.mm_slot = slot;
	}
	spin_unlock(&khugepaged_mm_lock);
	mm = slot->mm;
	/* a mm whose lock is busy is passed by, counting nothing; one entered costs 1 */
	if (!down_read_trylock(&mm->mmap_lock))
		goto next_mm;
	progress++;
	if (hpage_collapse_test_exit(mm)) {
		up_read(&mm->mmap_lock);
		goto next_mm;
	}
	for (i = 0; i < mm->nr_vmas; i++) {
		unsigned long hstart, hend;

		vma = mm->vmas[i];
		if (hpage_collapse_test_exit(mm)) {
			progress++;
			break;
		}
		if (vma->vm_end <= khugepaged_scan.address)
			continue;
		if (!vma_khugepaged_allowed(vma, vma->vm_flags)) {
			progress++;
			continue;
		}
		hstart = ALIGN_UP(vma->vm_start, PMD_SIZE);
		hend = ALIGN_DOWN(vma->vm_end, PMD_SIZE);
		if (khugepaged_scan.address > hend || hend <= hstart) {
			progress++;
			continue;
		}
		if (khugepaged_scan.address < hstart)
			khugepaged_scan.address = hstart;
		while (khugepaged_scan.address < hend) {
			if (hpage_collapse_test_exit(mm))
				goto breakouterloop;
			addr = khugepaged_scan.address;
			looked = cc->progress;
			*result = hpage_collapse_scan_pmd(mm, vma, addr, &mmap_locked, cc);
			if (*result == SCAN_SUCCEED)
				fl_atomic_fetch_add(&khugepaged_pages_collapsed, 1,
						    __ATOMIC_RELAXED);
			khugepaged_scan.address += PMD_SIZE;
			/* 6.18: a range costs 512; the series: what its scan looked at */
			progress += ptes ? cc->progress - looked : HPAGE_PMD_NR;
			if (!mmap_locked)
				goto breakouterloop_mmap_lock; /* the collapse dropped it */
			if (progress >= pages)
				goto breakouterloop;
		}
	}
	vma = NULL; /* the mm is done */
breakouterloop:
	up_read(&mm->mmap_lock);
breakouterloop_mmap_lock:
	if (vma && !hpage_collapse_test_exit(mm))
		return progress; /* the same mm goes on next time */
next_mm:
	fl_spin_lock_at(&khugepaged_mm_lock, &site);
	if (slot->mm_node.next != &khugepaged_mm_head) {
		khugepaged_scan.mm_slot = list_entry(slot->mm_node.next, struct khugepaged_mm_slot,
						     mm_node);
		khugepaged_scan.address = 0;
	} else {
		khugepaged_scan.mm_slot = NULL;
		fl_atomic_fetch_add(&khugepaged_full_scans, 1, __ATOMIC_RELAXED);
	}
	dead = collect_mm_slot(slot);
	spin_unlock(&khugepaged_mm_lock);
	if (dead)
		free_mm_slot(dead);
	return progress;
}

/**
 * fl__khugepaged_do_scan() - one pass of khugepaged (khugepaged_do_scan()):
 * pages_to_scan pages over the registered mms, the cursor going on from
 * where the last pass left it; once an allocation failed, stop after
 * waiting alloc_sleep_millisecs once (@alloc_sleep: the wait).
 * Return: true if an allocation failed (khugepaged waits alloc_sleep).
 */
bool fl__khugepaged_do_scan(void (*alloc_sleep)(void))
{
	FL_LOCK_SITE(site);
	struct collapse_control cc = { .is_khugepaged = true };
	unsigned int pages = READ_ONCE(fl__khugepaged[KH_PAGES_TO_SCAN]), progress = 0;
	int result = SCAN_SUCCEED, pass_through_head = 0;
	bool wait = true, failed = false;

	lru_add_drain_all();
	for (;;) {
		bool work;

		fl_spin_lock_at(&khugepaged_mm_lock, &site);
		if (!khugepaged_scan.mm_slot)
			pass_through_head++;
		work = khugepaged_has_work() && pass_through_head < 2;
		spin_unlock(&khugepaged_mm_lock);
		if (work)
			progress += khugepaged_scan_mm_slot(pages - progress, &result, &cc);
		else
			progress = pages;
		if (progress >= pages)
			break;
		if (result == SCAN_ALLOC_HUGE_PAGE_FAIL) {
			failed = true;
			if (!wait || !alloc_sleep)
				break;
			wait = false;
			alloc_sleep();
		}
	}
	return failed;
}

/* The mms still registered: scanned and collected at teardown. */
void fl__khugepaged_forget(void)
{
	FL_LOCK_SITE(site);
	struct khugepaged_mm_slot *slot, *tmp;
	LIST_HEAD(dead);

	fl_spin_lock_at(&khugepaged_mm_lock, &site);
	khugepaged_scan.mm_slot = NULL;
	list_for_each_entry_safe(slot, tmp, &khugepaged_mm_head, mm_node)
	{
		if (hpage_collapse_test_exit(slot->mm)) {
			list_del(&slot->mm_node);
			list_add(&slot->mm_node, &dead);
		}
	}
	spin_unlock(&khugepaged_mm_lock);
	list_for_each_entry_safe(slot, tmp, &dead, mm_node) free_mm_slot(slot);
}

/* ---- the thread ---- */

int fl__khugepaged_cpu = -1;
static struct fl_waitq khugepaged_wait;
static int khugepaged_should_stop; /* atomic */
static int khugepaged_workers;	   /* atomic: the workload's tasks still running */
static struct fl_thread_handle *khugepaged_thread;

/*
 * Sleep @ms (virtual time on sim) or until woken: a knob written, a mm
 * registered with nothing to do before, the run's end.
 */
static void khugepaged_sleep_ms(unsigned int ms)
{
	unsigned long seen = fl_waitq_prepare(&khugepaged_wait);

	if (!fl_atomic_load(&khugepaged_should_stop, __ATOMIC_ACQUIRE))
		fl_waitq_sleep_timeout(&khugepaged_wait, seen, (uint64_t)ms * 1000000);
	fl_waitq_finish(&khugepaged_wait);
}

static void khugepaged_alloc_sleep(void)
{
	khugepaged_sleep_ms(READ_ONCE(fl__khugepaged[KH_ALLOC_SLEEP_MS]));
}

/*
 * When the next pass is due: the kernel's thread lives from boot, the
 * model's only while tasks run, so a thread started again waits out the
 * sleep its predecessor began instead of passing at once.
 */
static uint64_t next_pass_ns;

/* khugepaged_wait_work(): scan_sleep_millisecs with work, else until there is some */
static void khugepaged_wait_work(void)
{
	unsigned long seen;

	if (khugepaged_has_work()) {
		next_pass_ns = fl_clock_ns() +
			       (uint64_t)READ_ONCE(fl__khugepaged[KH_SCAN_SLEEP_MS]) * 1000000;
		khugepaged_sleep_ms(READ_ONCE(fl__khugepaged[KH_SCAN_SLEEP_MS]));
		return;
	}
	next_pass_ns = 0;
	seen = fl_waitq_prepare(&khugepaged_wait);
	while (!khugepaged_has_work() &&
	       fl_atomic_load(&khugepaged_wait.seq, __ATOMIC_ACQUIRE) == seen &&
	       !fl_atomic_load(&khugepaged_should_stop, __ATOMIC_ACQUIRE))
		fl_waitq_sleep(&khugepaged_wait, seen);
	fl_waitq_finish(&khugepaged_wait);
}

/* khugepaged() - the thread: a pass, a sleep, until the workload's tasks end */
static void khugepaged(void *arg)
{
	uint64_t now = fl_clock_ns();

	(void)arg;
	if (next_pass_ns > now) /* the last thread's sleep is not over */
		khugepaged_sleep_ms((unsigned int)((next_pass_ns - now + 999999) / 1000000));
	while (!fl_atomic_load(&khugepaged_should_stop, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = fl_clock_ns();

		fl__khugepaged_do_scan(khugepaged_alloc_sleep);
		count_fl_stat(FL_KHUGEPAGED_NS, (long)(fl_clock_ns() - t0));
		khugepaged_wait_work();
	}
}

/*
 * current_is_khugepaged() - the caller runs on khugepaged's thread: as
 * 6.18 compares kthread_func(current) with khugepaged(), so that reclaim
 * for its allocations and charges counts as pgscan_khugepaged and
 * pgsteal_khugepaged (vmscan.c). MADV_COLLAPSE runs in its caller's.
 */
bool current_is_khugepaged(void)
{
	return fl_current_fn() == khugepaged;
}

void fl__khugepaged_wake(void)
{
	if (fl_waitq_active(&khugepaged_wait))
		fl_waitq_wake_all(&khugepaged_wait);
}

/**
 * fl__khugepaged_start() - start khugepaged's thread on its CPU (if the
 * machine has one) for a run of @nr_tasks tasks, each of which calls
 * fl__khugepaged_task_done() at its end. Return: 0 or -errno.
 */
int fl__khugepaged_start(int nr_tasks)
{
	int ret = 0;

	if (fl__khugepaged_cpu < 0)
		return 0;
	fl_atomic_store(&khugepaged_should_stop, 0, __ATOMIC_RELEASE);
	fl_atomic_store(&khugepaged_workers, nr_tasks, __ATOMIC_RELEASE);
	khugepaged_thread = fl__thread_start(khugepaged, NULL, fl__khugepaged_cpu, -1, &ret);
	return khugepaged_thread ? 0 : ret;
}

static void khugepaged_stop(void)
{
	fl_atomic_store(&khugepaged_should_stop, 1, __ATOMIC_RELEASE);
	fl_waitq_wake_all(&khugepaged_wait);
}

void fl__khugepaged_task_done(void)
{
	if (fl__khugepaged_cpu >= 0 &&
	    fl_atomic_sub_fetch(&khugepaged_workers, 1, __ATOMIC_ACQ_REL) == 0)
		khugepaged_stop();
}

/** fl__khugepaged_join() - after the tasks: wait for the thread to end. */
void fl__khugepaged_join(void)
{
	if (!khugepaged_thread)
		return;
	khugepaged_stop();
	fl__thread_join(khugepaged_thread);
	khugepaged_thread = NULL;
}

/* ---- MADV_COLLAPSE ---- */

static int madvise_collapse_errno(int r)
{
	switch (r) {
	case SCAN_ALLOC_HUGE_PAGE_FAIL:
		return -ENOMEM;
	case SCAN_CGROUP_CHARGE_FAIL:
	case SCAN_EXCEED_NONE_PTE:
		return -EBUSY;
	case SCAN_PAGE_COUNT:
	case SCAN_PAGE_LOCK:
	case SCAN_PAGE_LRU:
	case SCAN_DEL_PAGE_LRU:
		return -EAGAIN;
	default:
		return -EINVAL;
	}
}

/**
 * madvise_collapse() - MADV_COLLAPSE of [@start, @end) in @vma: every
 * PMD range inside it collapsed, or the reason the last one was not.
 * Context: mmap_lock held for reading; held again on return, though it
 * may have been dropped (*@mmap_dropped set: @vma may be gone).
 * Return: 0 or -errno (madvise_collapse_errno()).
 */
int madvise_collapse(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		     bool *mmap_dropped)
{
	struct collapse_control cc = { .is_khugepaged = false };
	struct mm_struct *mm = vma->vm_mm;
	unsigned long hstart, hend, addr;
	int thps = 0, last_fail = SCAN_FAIL;
	bool mmap_locked = true;

	if (vma->vm_flags & VM_NOHUGEPAGE || !vma_is_anonymous(vma) || (vma->vm_flags & VM_SHARED))
		return -EINVAL;
	mmgrab(mm);
	lru_add_drain_all();
	hstart = ALIGN_UP(start, PMD_SIZE);
	hend = ALIGN_DOWN(end, PMD_SIZE);
	for (addr = hstart; addr < hend; addr += PMD_SIZE) {
		int result;

		if (!mmap_locked) {
			down_read(&mm->mmap_lock);
			mmap_locked = true;
			result = hugepage_vma_revalidate(mm, addr, false, &vma, &cc);
			if (result != SCAN_SUCCEED) {
				last_fail = result;
				break;
			}
			if (ALIGN_DOWN(vma->vm_end, PMD_SIZE) < hend)
				hend = ALIGN_DOWN(vma->vm_end, PMD_SIZE);
		}
		result = hpage_collapse_scan_pmd(mm, vma, addr, &mmap_locked, &cc);
		if (!mmap_locked)
			*mmap_dropped = true;
		switch (result) {
		case SCAN_SUCCEED:
		case SCAN_PMD_MAPPED:
			++thps;
			continue;
		case SCAN_PMD_NULL:
		case SCAN_PTE_NON_PRESENT:
		case SCAN_PTE_UFFD_WP:
		case SCAN_LACK_REFERENCED_PAGE:
		case SCAN_PAGE_NULL:
		case SCAN_PAGE_COUNT:
		case SCAN_PAGE_LOCK:
		case SCAN_PAGE_COMPOUND:
		case SCAN_PAGE_LRU:
		case SCAN_DEL_PAGE_LRU:
			last_fail = result;
			continue;
		default:
			last_fail = result;
			break;
		}
		break;
	}
	if (!mmap_locked)
		down_read(&mm->mmap_lock);
	mmdrop(mm);
	return (unsigned long)thps == (hend > hstart ? (hend - hstart) >> PMD_SHIFT : 0)
		       ? 0
		       : madvise_collapse_errno(last_fail);
}

/* ---- counters ---- */

/** fl__khugepaged_counters() - khugepaged's sysfs counts and every scan result, into @c. */
int fl__khugepaged_counters(struct fl_counters *c)
{
	char name[FL_NAME_MAX];
	int i, ret = 0;

	ret |= fl_counters_set(c, "khugepaged/pages_collapsed",
			       fl_atomic_load(&khugepaged_pages_collapsed, __ATOMIC_RELAXED));
	ret |= fl_counters_set(c, "khugepaged/full_scans",
			       fl_atomic_load(&khugepaged_full_scans, __ATOMIC_RELAXED));
	for (i = 0; i < NR_SCAN_RESULTS; i++) {
		snprintf(name, sizeof(name), "fl_scan_%s", scan_result_names[i]);
		ret |= fl_counters_set(c, name, fl_atomic_load(&scan_results[i], __ATOMIC_RELAXED));
	}
	return ret;
}

/* At boot: nothing registered, nothing counted. */
void fl__khugepaged_reset(void)
{
	memset(&khugepaged_wait, 0, sizeof(khugepaged_wait));
	next_pass_ns = 0;
	INIT_LIST_HEAD(&khugepaged_mm_head);
	khugepaged_scan.mm_slot = NULL;
	khugepaged_scan.address = 0;
	memset(scan_results, 0, sizeof(scan_results));
	khugepaged_pages_collapsed = 0;
	khugepaged_full_scans = 0;
}
