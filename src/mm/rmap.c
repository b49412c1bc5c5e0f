// SPDX-License-Identifier: GPL-2.0-only
/*
 * rmap.c - mapcounts of anonymous folios and what follows from them:
 * node mapping stats, the mTHP nr_anon gauge, and queueing partially
 * mapped large folios for a deferred split (mm/rmap.c in the kernel).
 *
 * The model follows CONFIG_NO_PAGE_MAPCOUNT: a large folio has one
 * _large_mapcount (every PTE and PMD that maps it) and an _entire_mapcount
 * (PMD mappings), no per-page mapcount. nr_anon_pages counts the pages of
 * every mapped anon folio, also of a partially mapped one, and drops when
 * the last mapping goes. A large folio whose mapcount falls below its page
 * count while no PMD maps it may be partially mapped; it goes to
 * deferred_split_folio().
 *
 * Reverse-mapping walks (anon_vma trees) come with reclaim and split.
 *
 * Conventions in this file: @vma maps @folio; callers hold the page-table
 * lock that covers the entries being changed.
 */
#include "internal.h"

static unsigned long next_anon_vma_id;

/*
 * anon_vma_prepare() - give @vma its anon_vma before its first anon folio
 * is mapped. Racing faults agree on one.
 */
static __always_inline void anon_vma_prepare(struct vm_area_struct *vma)
{
	unsigned long none = 0, id;

	if (fl_atomic_load(&vma->anon_vma, __ATOMIC_RELAXED))
		return;
	id = fl_atomic_add_fetch(&next_anon_vma_id, 1, __ATOMIC_RELAXED);
	fl_atomic_cmpxchg(&vma->anon_vma, &none, id, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/**
 * folio_add_new_anon_rmap() - the first mapping of a freshly allocated
 * anon folio: by @pmd, or by one PTE per page.
 * Context: nobody else can see @folio yet, so plain stores are enough.
 */
__always_inline void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
					     unsigned long address, int flags, bool pmd)
{
	unsigned long i, nr = folio_nr_pages(folio);
	struct pglist_data *pgdat = folio_pgdat(folio);
	unsigned long set = 1ul << PG_anon;

	anon_vma_prepare(vma);
	/* one plain store sets them all: nobody else sees the folio yet */
	if (!(vma->vm_flags & VM_DROPPABLE))
		set |= 1ul << PG_swapbacked;
	folio->mapping = vma->vm_mm;
	folio->index = address >> PAGE_SHIFT;
	if (!folio_test_large(folio)) {
		if (flags & RMAP_EXCLUSIVE)
			set |= 1ul << PG_anon_exclusive;
		WRITE_ONCE(folio->flags, READ_ONCE(folio->flags) | set);
		fl_atomic_store(&folio->_mapcount, 1, __ATOMIC_RELAXED);
		mod_node_page_state(pgdat, NR_ANON_MAPPED, 1);
		return;
	}
	WRITE_ONCE(folio->flags, READ_ONCE(folio->flags) | set);
	if (pmd) {
		fl_atomic_store(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED);
		fl_atomic_store(&folio->_large_mapcount, 1, __ATOMIC_RELAXED);
		mod_node_page_state(pgdat, NR_ANON_THPS, (long)nr);
	} else {
		fl_atomic_store(&folio->_large_mapcount, (int)nr, __ATOMIC_RELAXED);
	}
	if (flags & RMAP_EXCLUSIVE) {
		for (i = 0; i < nr; i++)
			fl_set_bit(PG_anon_exclusive, &folio_page(folio, i)->flags);
	}
	mod_node_page_state(pgdat, NR_ANON_MAPPED, (long)nr);
	mod_mthp_stat((int)folio_order(folio), MTHP_STAT_NR_ANON, 1);
}

/* More PTEs now map pages of an already mapped folio (PMD split, remap). */
void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma)
{
	(void)page;
	(void)vma;
	if (folio_test_large(folio))
		fl_atomic_fetch_add(&folio->_large_mapcount, nr, __ATOMIC_RELAXED);
	else
		fl_atomic_fetch_add(&folio->_mapcount, nr, __ATOMIC_RELAXED);
}

static void folio_mapping_gone(struct folio *folio, long nr)
{
	mod_node_page_state(folio_pgdat(folio), NR_ANON_MAPPED, -nr);
}

/**
 * folio_remove_rmap_ptes() - @nr PTEs mapping pages of @folio from @page
 * were cleared.
 */
__always_inline void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
					    struct vm_area_struct *vma)
{
	int left;

	(void)page;
	(void)vma;
	if (!folio_test_large(folio)) {
		if (fl_atomic_sub_fetch(&folio->_mapcount, nr, __ATOMIC_RELAXED) == 0)
			folio_mapping_gone(folio, 1);
		return;
	}
	left = fl_atomic_sub_fetch(&folio->_large_mapcount, nr, __ATOMIC_RELAXED);
	if (left == 0) {
		folio_mapping_gone(folio, (long)folio_nr_pages(folio));
		return;
	}
	if ((unsigned long)left < folio_nr_pages(folio) && !folio_entire_mapcount(folio) &&
	    folio_test_anon(folio) && !folio_test_partially_mapped(folio))
		deferred_split_folio(folio, true);
}

/* The PMD mapping @folio went away. */
void folio_remove_rmap_pmd(struct folio *folio, struct page *page, struct vm_area_struct *vma)
{
	unsigned long nr = folio_nr_pages(folio);
	int left;

	(void)page;
	(void)vma;
	if (fl_atomic_sub_fetch(&folio->_entire_mapcount, 1, __ATOMIC_RELAXED) == 0)
		mod_node_page_state(folio_pgdat(folio), NR_ANON_THPS, -(long)nr);
	left = fl_atomic_sub_fetch(&folio->_large_mapcount, 1, __ATOMIC_RELAXED);
	if (left == 0) {
		folio_mapping_gone(folio, (long)nr);
		return;
	}
	if ((unsigned long)left < nr && !folio_entire_mapcount(folio) && folio_test_anon(folio) &&
	    !folio_test_partially_mapped(folio))
		deferred_split_folio(folio, true);
}
