// SPDX-License-Identifier: GPL-2.0-only
/*
 * huge_memory.c - the THP and mTHP policy knobs, which orders a fault may
 * use, PMD-mapped THP faults, zapping and splitting PMD mappings, and the
 * deferred-split hook (mm/huge_memory.c in the kernel).
 *
 * Knobs mirror /sys/kernel/mm/transparent_hugepage/: a top-level
 * "enabled" (always/madvise/never) and per size "hugepages-<N>kB/enabled"
 * (always/inherit/madvise/never), kept as three order bitmaps as the
 * kernel keeps them. Defaults are those of our host kernel: top-level
 * madvise, hugepages-2048kB inherit, every other size never.
 *
 * Not modelled yet: the huge zero folio (a read fault in a THP-eligible
 * range falls back to the PTE zero page), khugepaged registration, and the
 * deferred split queue and shrinker: deferred_split_folio() marks and
 * counts partially mapped folios, and the split issue adds the queue.
 *
 * Conventions in this file: @pmdt is a PMD table and @idx the entry; the
 * PMD table's ptl guards its entries and deposited PTE tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "pgtable.h"

struct fl_thp_knobs fl__thp;

static const char *const thp_enabled_names[] = { "never", "madvise", "always" };

void fl__thp_knobs_default(void)
{
	memset(&fl__thp, 0, sizeof(fl__thp));
	fl__thp.enabled = THP_MADVISE;
	fl__thp.orders_inherit = 1ul << PMD_ORDER;
	fl__thp.use_zero_page = true;
	fl__thp.shrink_underused = true;
	fl__thp.defrag = THP_DEFRAG_MADVISE;
}

/* "hugepages-16kB" -> order 2; -1 if it is not an anon mTHP size */
static int size_dir_order(const char *s, size_t len)
{
	unsigned long kb;
	char *end;
	int order;

	if (len < 12 || strncmp(s, "hugepages-", 10) != 0)
		return -1;
	kb = strtoul(s + 10, &end, 10);
	if ((size_t)(end - s) + 2 != len || strncmp(end, "kB", 2) != 0)
		return -1;
	for (order = 2; order <= PMD_ORDER; order++)
		if ((PAGE_SIZE << order) / 1024 == kb)
			return order;
	return -1;
}

static int set_order_policy(int order, const char *value)
{
	unsigned long bit = 1ul << order;

	if (strcmp(value, "always") && strcmp(value, "inherit") && strcmp(value, "madvise") &&
	    strcmp(value, "never"))
		return -EINVAL;
	fl__thp.orders_always &= ~bit;
	fl__thp.orders_inherit &= ~bit;
	fl__thp.orders_madvise &= ~bit;
	if (!strcmp(value, "always"))
		fl__thp.orders_always |= bit;
	else if (!strcmp(value, "inherit"))
		fl__thp.orders_inherit |= bit;
	else if (!strcmp(value, "madvise"))
		fl__thp.orders_madvise |= bit;
	return 0;
}

static int parse_bool01(const char *value, bool *out)
{
	if (!strcmp(value, "0") || !strcmp(value, "1")) {
		*out = value[0] == '1';
		return 0;
	}
	return -EINVAL;
}

/**
 * fl__thp_knob_set() - write a knob below transparent_hugepage/.
 * @name: e.g. "enabled", "hugepages-16kB/enabled", "use_zero_page".
 * Return: 0, -ENOENT for an unknown knob, -EINVAL for a bad value (with
 * the accepted values in @err).
 */
int fl__thp_knob_set(const char *name, const char *value, char *err, size_t len)
{
	const char *slash = strchr(name, '/');
	int i;

	if (!strcmp(name, "enabled")) {
		for (i = 0; i < 3; i++) {
			if (!strcmp(value, thp_enabled_names[i])) {
				fl__thp.enabled = i;
				return 0;
			}
		}
		snprintf(err, len,
			 "transparent_hugepage/enabled: '%s' is not one of always, madvise, never",
			 value);
		return -EINVAL;
	}
	if (!strcmp(name, "defrag")) {
		static const char *const d[] = { "always", "defer", "defer+madvise", "madvise",
						 "never" };
		for (i = 0; i < 5; i++) {
			if (!strcmp(value, d[i])) {
				fl__thp.defrag = i;
				return 0;
			}
		}
		snprintf(err, len,
			 "transparent_hugepage/defrag: '%s' is not one of always, defer, "
			 "defer+madvise, madvise, never",
			 value);
		return -EINVAL;
	}
	if (!strcmp(name, "use_zero_page") || !strcmp(name, "shrink_underused")) {
		bool *b = name[0] == 'u' ? &fl__thp.use_zero_page : &fl__thp.shrink_underused;

		if (parse_bool01(value, b)) {
			snprintf(err, len, "transparent_hugepage/%s: '%s' is not 0 or 1", name,
				 value);
			return -EINVAL;
		}
		return 0;
	}
	if (slash && !strcmp(slash, "/enabled")) {
		int order = size_dir_order(name, (size_t)(slash - name));

		if (order < 0) {
			snprintf(err, len,
				 "transparent_hugepage/%s: no such size; anon sizes are "
				 "hugepages-16kB .. hugepages-2048kB",
				 name);
			return -ENOENT;
		}
		if (set_order_policy(order, value)) {
			snprintf(err, len,
				 "transparent_hugepage/%s: '%s' is not one of always, inherit, "
				 "madvise, never",
				 name, value);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(err, len, "transparent_hugepage/%s: no such knob", name);
	return -ENOENT;
}

static const char *order_policy(int order)
{
	unsigned long bit = 1ul << order;

	if (fl__thp.orders_always & bit)
		return "always";
	if (fl__thp.orders_inherit & bit)
		return "inherit";
	if (fl__thp.orders_madvise & bit)
		return "madvise";
	return "never";
}

/**
 * fl__thp_knob_get() - read a knob's value (the selected word only).
 * Return: 0 or -ENOENT.
 */
int fl__thp_knob_get(const char *name, char *buf, size_t len)
{
	static const char *const d[] = { "always", "defer", "defer+madvise", "madvise", "never" };
	const char *slash = strchr(name, '/');

	if (!strcmp(name, "enabled"))
		snprintf(buf, len, "%s", thp_enabled_names[fl__thp.enabled]);
	else if (!strcmp(name, "defrag"))
		snprintf(buf, len, "%s", d[fl__thp.defrag]);
	else if (!strcmp(name, "use_zero_page"))
		snprintf(buf, len, "%d", fl__thp.use_zero_page);
	else if (!strcmp(name, "shrink_underused"))
		snprintf(buf, len, "%d", fl__thp.shrink_underused);
	else if (slash && !strcmp(slash, "/enabled") &&
		 size_dir_order(name, (size_t)(slash - name)) >= 0)
		snprintf(buf, len, "%s",
			 order_policy(size_dir_order(name, (size_t)(slash - name))));
	else
		return -ENOENT;
	return 0;
}

/**
 * thp_vma_allowable_orders() - the @orders a fault in @vma may use, given
 * the top-level and per-size knobs and the VMA's MADV_(NO)HUGEPAGE state.
 */
unsigned long thp_vma_allowable_orders(struct vm_area_struct *vma, unsigned long vm_flags,
				       unsigned long orders)
{
	unsigned long mask = READ_ONCE(fl__thp.orders_always);
	int enabled = READ_ONCE(fl__thp.enabled);

	(void)vma;
	if (vm_flags & VM_NOHUGEPAGE)
		return 0;
	if (vm_flags & VM_HUGEPAGE)
		mask |= READ_ONCE(fl__thp.orders_madvise);
	if (enabled == THP_ALWAYS || ((vm_flags & VM_HUGEPAGE) && enabled != THP_NEVER))
		mask |= READ_ONCE(fl__thp.orders_inherit);
	return orders & mask & THP_ORDERS_ALL_ANON;
}

/* The naturally aligned 2^@order block around @addr lies inside @vma. */
bool thp_vma_suitable_order(struct vm_area_struct *vma, unsigned long addr, int order)
{
	unsigned long size = PAGE_SIZE << order;
	unsigned long haddr = ALIGN_DOWN(addr, size);

	return haddr >= vma->vm_start && haddr + size <= vma->vm_end;
}

/**
 * do_huge_pmd_anonymous_page() - map a fresh PMD-sized folio.
 * Return: 0, VM_FAULT_FALLBACK (use PTEs), or VM_FAULT_OOM.
 */
int do_huge_pmd_anonymous_page(struct vm_fault *vmf)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	unsigned long haddr = vmf->address & PMD_MASK;
	struct pgtable *pmdt = vmf->pmdt, *pgtable;
	struct folio *folio;
	pteval_t v;

	if (!thp_vma_suitable_order(vma, haddr, PMD_ORDER))
		return VM_FAULT_FALLBACK;
	if (!(vmf->flags & FAULT_FLAG_WRITE) && READ_ONCE(fl__thp.use_zero_page) &&
	    !READ_ONCE(fl__no_zero_page))
		return VM_FAULT_FALLBACK; /* the huge zero folio is not modelled yet */
	folio = folio_alloc(GFP_TRANSHUGE | __GFP_ZERO, PMD_ORDER);
	if (!folio) {
		count_vm_event(THP_FAULT_FALLBACK);
		count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_FALLBACK);
		return VM_FAULT_FALLBACK;
	}
	pgtable = fl__pgtable_alloc(vma->vm_mm, 0);
	if (!pgtable) {
		folio_put(folio);
		return VM_FAULT_OOM;
	}
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(&pmdt->e[vmf->pmd_idx])) {
		spin_unlock(&pmdt->ptl);
		fl__pgtable_free(vma->vm_mm, pgtable);
		folio_put(folio);
		return 0;
	}
	folio_add_new_anon_rmap(folio, vma, haddr, RMAP_EXCLUSIVE, true);
	folio_add_lru_vma(folio, vma);
	pmdt->deposit[vmf->pmd_idx] = pgtable;
	v = pfn_pte(folio_pfn(folio), _PAGE_PRESENT | _PAGE_PSE | _PAGE_ACCESSED);
	if (vma->vm_flags & VM_WRITE)
		v |= _PAGE_RW | _PAGE_DIRTY;
	entry_store(&pmdt->e[vmf->pmd_idx], v);
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, HPAGE_PMD_NR);
	deferred_split_folio(folio, false);
	vmf_access(vmf, folio_pfn(folio) + (unsigned long)pte_index(vmf->address));
	spin_unlock(&pmdt->ptl);
	count_vm_event(THP_FAULT_ALLOC);
	count_mthp_stat(PMD_ORDER, MTHP_STAT_ANON_FAULT_ALLOC);
	return 0;
}

/**
 * zap_huge_pmd() - unmap a whole PMD-mapped THP.
 * Return: 1 if a huge PMD was zapped, 0 if none was there.
 */
int zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		 unsigned long addr)
{
	FL_LOCK_SITE(site);
	struct pgtable *pgtable;
	struct folio *folio;
	pteval_t v;

	fl_spin_lock_at(&pmdt->ptl, &site);
	if (!pmd_trans_huge(entry_load(&pmdt->e[idx]))) {
		spin_unlock(&pmdt->ptl);
		return 0;
	}
	v = ptep_get_and_clear(&pmdt->e[idx]);
	tlb_remove_pmd_tlb_entry(tlb, addr);
	pgtable = pmdt->deposit[idx];
	pmdt->deposit[idx] = NULL;
	folio = pfn_folio(pte_pfn(v));
	folio_remove_rmap_pmd(folio, (struct page *)folio, vma);
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, -HPAGE_PMD_NR);
	spin_unlock(&pmdt->ptl);
	if (pgtable)
		fl__pgtable_free(vma->vm_mm, pgtable);
	/* a PMD mapping holds one reference: one entry, count 1 */
	if (__tlb_remove_folio_pages(tlb, (struct page *)folio, 1, false))
		tlb_flush_mmu(tlb);
	return 1;
}

/**
 * __split_huge_pmd() - replace the PMD mapping at @pmdt[@idx] by 512 PTEs
 * in its deposited table. The folio stays whole; each PTE takes a reference.
 */
void __split_huge_pmd(struct vm_area_struct *vma, struct pgtable *pmdt, int idx,
		      unsigned long haddr)
{
	FL_LOCK_SITE(site);
	struct pgtable *pgtable;
	struct folio *folio;
	unsigned long pfn;
	pteval_t v, prot;
	int i;

	(void)haddr;
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (!pmd_trans_huge(entry_load(&pmdt->e[idx]))) {
		spin_unlock(&pmdt->ptl);
		return;
	}
	/* not present to hardware while the PTEs are built from it */
	v = pmdp_invalidate(&pmdt->e[idx]);
	pgtable = pmdt->deposit[idx];
	pmdt->deposit[idx] = NULL;
	pfn = pte_pfn(v);
	folio = pfn_folio(pfn);
	prot = v & (_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY);
	for (i = 0; i < PTRS_PER_TABLE; i++)
		fl_atomic_store(&pgtable->e[i], pfn_pte(pfn + (unsigned long)i, prot),
				__ATOMIC_RELAXED);
	folio_ref_add(folio, HPAGE_PMD_NR - 1);
	folio_add_anon_rmap_ptes(folio, (struct page *)folio, HPAGE_PMD_NR, vma);
	folio_remove_rmap_pmd(folio, (struct page *)folio, vma);
	/* release: the walker that sees the table sees its entries */
	entry_store(&pmdt->e[idx], table_entry(pgtable));
	spin_unlock(&pmdt->ptl);
	count_vm_event(THP_SPLIT_PMD);
}

/**
 * deferred_split_folio() - note that @folio may be split later: when it
 * became partially mapped (@partially_mapped), or as an underused-THP
 * candidate right after a PMD fault.
 *
 * The queue and its shrinker come with the split work; until then a
 * partially mapped folio is marked and counted exactly as the kernel
 * counts it, and stays whole until its last mapping goes.
 */
void deferred_split_folio(struct folio *folio, bool partially_mapped)
{
	int order = (int)folio_order(folio);

	if (order <= 1)
		return;
	if (!partially_mapped && !READ_ONCE(fl__thp.shrink_underused))
		return;
	if (folio_test_swapcache(folio))
		return;
	if (partially_mapped && !fl_test_and_set_bit(PG_partially_mapped, &folio->_flags_1)) {
		if (order >= HPAGE_PMD_ORDER)
			count_vm_event(THP_DEFERRED_SPLIT_PAGE);
		count_mthp_stat(order, MTHP_STAT_SPLIT_DEFERRED);
		mod_mthp_stat(order, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, 1);
	}
}

/* A folio on its way to being freed leaves the deferred split state. */
void folio_unqueue_deferred_split(struct folio *folio)
{
	if (folio_order(folio) <= 1)
		return;
	if (fl_test_and_clear_bit(PG_partially_mapped, &folio->_flags_1))
		mod_mthp_stat((int)folio_order(folio), MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, -1);
}
