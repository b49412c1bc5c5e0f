// SPDX-License-Identifier: GPL-2.0-only
/*
 * memory.c - page tables, anonymous faults and zapping (mm/memory.c in the
 * kernel).
 *
 * Four levels of 512-entry tables. Upper levels are populated under
 * mm->page_table_lock; a PTE table is installed under its PMD table's lock
 * and its entries change under its own lock (split page-table locks).
 * "Hardware" (fl__mm_access) walks the tables without locks, as a CPU's
 * page walker does, and faults when a translation is missing or does not
 * allow the access.
 *
 * An anonymous write fault picks the largest mTHP order that is enabled,
 * naturally aligned inside the VMA, and whose PTEs are all none, falls back
 * order by order when allocation fails, maps the folio with one PTE per
 * page and queues it on the LRU through the lru_add cache (under the PTE
 * lock, as the kernel does). A read fault maps the shared zero page.
 *
 * Zapping clears PTEs run by run (one run per large folio), hands the pages
 * to an mmu_gather and, for MADV_DONTNEED, frees PTE tables left empty
 * (CONFIG_PT_RECLAIM).
 *
 * Conventions in this file: "slot" is a pointer to an entry; @pmdt is a PMD
 * table and @idx an index in it; entries are read with acquire and written
 * with release, so a walker that sees a table sees it initialised.
 */
#include <string.h>
#include "internal.h"
#include "pgtable.h"
#include "swapops.h"
#include "swap.h"
#include "fs.h"

static inline pteval_t vma_pte_prot(const struct vm_area_struct *vma)
{
	pteval_t prot = _PAGE_PRESENT | _PAGE_ACCESSED;

	if (vma->vm_flags & VM_WRITE)
		prot |= _PAGE_RW | _PAGE_DIRTY;
	return prot;
}

/*
 * Install a fresh table of @level in @slot if it is still empty, under
 * @lock; a racing installer wins and our table goes back.
 * Return: 0 or -ENOMEM.
 */
static int install_table(struct mm_struct *mm, pteval_t *slot, int level, struct fl_spinlock *lock,
			 struct fl_lock_site *site)
{
	struct pgtable *new;

	if (entry_load(slot))
		return 0;
	new = fl__pgtable_alloc(mm, level);
	if (!new)
		return -ENOMEM;
	fl_spin_lock_at(lock, site);
	if (!entry_load(slot)) {
		entry_store(slot, table_entry(new));
		new = NULL;
	}
	spin_unlock(lock);
	if (new)
		fl__pgtable_free(mm, new);
	return 0;
}

/*
 * Populate an upper-level slot if empty (__pud_alloc, __pmd_alloc) under
 * mm->page_table_lock; return the table it points to.
 */
static __always_inline struct pgtable *table_alloc_slot(struct mm_struct *mm, pteval_t *slot,
							int level, struct fl_lock_site *site)
{
	pteval_t v = entry_load(slot);

	if (entry_is_table(v))
		return entry_table(v);
	if (install_table(mm, slot, level, &mm->page_table_lock, site))
		return NULL;
	return entry_table(entry_load(slot));
}

/* Install a PTE table under the PMD table's lock (pmd_install). */
static int pte_alloc(struct mm_struct *mm, struct pgtable *pmdt, int idx)
{
	FL_LOCK_SITE_NAMED(site, "pmd_install");

	return install_table(mm, &pmdt->e[idx], 0, &pmdt->ptl, &site);
}

/**
 * fl__pte_lookup() - the PTE slot for @addr, or NULL if no PTE table maps it.
 * @ptetp: receives the PTE table. For tests and validators.
 */
pteval_t *fl__pte_lookup(struct mm_struct *mm, unsigned long addr, struct pgtable **ptetp)
{
	struct pgtable *pmdt = walk_pmd_table(mm, addr);
	pteval_t v;

	if (!pmdt)
		return NULL;
	v = entry_load(&pmdt->e[pmd_index(addr)]);
	if (!entry_is_table(v))
		return NULL;
	if (ptetp)
		*ptetp = entry_table(v);
	return &entry_table(v)->e[pte_index(addr)];
}

/** fl__pmd_entry() - the PMD entry covering @addr, 0 if none. For tests. */
pteval_t fl__pmd_entry(struct mm_struct *mm, unsigned long addr)
{
	struct pgtable *pmdt = walk_pmd_table(mm, addr);

	return pmdt ? entry_load(&pmdt->e[pmd_index(addr)]) : 0;
}

/* ---- anonymous faults ---- */

static unsigned long highest_order(unsigned long orders)
{
	return orders ? 63ul - (unsigned long)__builtin_clzl(orders) : 0;
}

static unsigned long next_order(unsigned long *orders, unsigned long prev)
{
	*orders &= ~(1ul << prev);
	return highest_order(*orders);
}

static __always_inline bool pte_range_none(pteval_t *pte, int nr)
{
	int i;

	if (nr == 1) /* the base-page fault: no loop */
		return !READ_ONCE(pte[0]);
	for (i = 0; i < nr; i++)
		if (READ_ONCE(pte[i]))
			return false;
	return true;
}

/* Keep the orders whose aligned block around @addr lies inside @vma. */
static unsigned long thp_vma_suitable_orders(struct vm_area_struct *vma, unsigned long addr,
					     unsigned long orders)
{
	unsigned long order = highest_order(orders);

	while (orders) {
		if (thp_vma_suitable_order(vma, addr, (int)order))
			break;
		order = next_order(&orders, order);
	}
	return orders;
}

/*
 * folio_prealloc() - an order-0 folio for an anon fault (zeroed if
 * @need_zero), charged to @mm's memcg (GFP_KERNEL: it may reclaim).
 * Return: the folio, or NULL (out of memory, or over the memcg's limit).
 */
static __always_inline struct folio *folio_prealloc(struct mm_struct *mm, bool need_zero)
{
	struct folio *folio = folio_alloc(GFP_HIGHUSER_MOVABLE | (need_zero ? __GFP_ZERO : 0), 0);

	if (folio && unlikely(mem_cgroup_charge(folio, mm, GFP_KERNEL))) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

static __always_inline struct folio *alloc_anon_folio(struct vm_fault *vmf, struct pgtable *ptet)
{
	unsigned long orders = vmf->orders & ((1ul << PMD_ORDER) - 1);
	unsigned long order, addr;
	struct folio *folio;

	if (!orders)
		goto fallback;
	orders = thp_vma_suitable_orders(vmf->vma, vmf->address, orders);
	/* the largest order whose whole aligned range of PTEs is still none */
	order = highest_order(orders);
	while (orders) {
		addr = ALIGN_DOWN(vmf->address, PAGE_SIZE << order);
		if (pte_range_none(&ptet->e[pte_index(addr)], 1 << order))
			break;
		order = next_order(&orders, order);
	}
	while (orders) {
		gfp_t gfp = vma_thp_gfp_mask(vmf->vma);

		folio = folio_alloc(gfp | __GFP_ZERO, (unsigned int)order);
		if (folio) {
			/* under the default defrag, a charge at the limit fails at once */
			if (likely(!mem_cgroup_charge(folio, vmf->vma->vm_mm, gfp)))
				return folio;
			count_mthp_stat((int)order, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE);
			folio_put(folio);
		}
		count_mthp_stat((int)order, MTHP_STAT_ANON_FAULT_FALLBACK);
		order = next_order(&orders, order);
	}
fallback:
	return folio_prealloc(vmf->vma->vm_mm, true);
}

/*
 * vmf_anon_prepare() - make sure the VMA has its anon_vma before an anon
 * folio is mapped in it. That needs mmap_lock: a fault under the per-VMA
 * lock tries to take it for reading and, failing, retries under it.
 * Return: 0, VM_FAULT_RETRY or VM_FAULT_OOM.
 */
int vmf_anon_prepare(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	int ret = 0;

	if (likely(fl_atomic_load(&vma->anon_vma, __ATOMIC_ACQUIRE)))
		return 0;
	if ((vmf->flags & FAULT_FLAG_VMA_LOCK) && !down_read_trylock(&mm->mmap_lock))
		return VM_FAULT_RETRY;
	if (__anon_vma_prepare(vma))
		ret = VM_FAULT_OOM;
	if (vmf->flags & FAULT_FLAG_VMA_LOCK)
		up_read(&mm->mmap_lock);
	return ret;
}

/* Map the shared zero page for a read fault. */
static int do_anonymous_zero_page(struct vm_fault *vmf)
{
	FL_LOCK_SITE(site);
	struct pgtable *ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	pteval_t *slot;

	if (!ptet)
		return 0;
	slot = &ptet->e[pte_index(vmf->address)];
	if (!READ_ONCE(*slot)) {
		fl_cost(FL_COST_SET_PTE);
		entry_store(slot,
			    pfn_pte(fl__zero_pfn, _PAGE_PRESENT | _PAGE_SPECIAL | _PAGE_ACCESSED));
		vmf_access(vmf, fl__zero_pfn);
	}
	spin_unlock(&ptet->ptl);
	return 0;
}

/*
 * The PTE at the fault address is none: map a new folio of the largest
 * order that fits, or the zero page for a read. @pmdv is the PMD entry.
 */
static __always_inline int do_anonymous_page(struct vm_fault *vmf, pteval_t pmdv)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	struct pgtable *ptet;
	struct folio *folio;
	unsigned long addr, i, nr, pfn;
	pteval_t prot, *slot;
	int ret;

	if (!pmdv) {
		if (pte_alloc(mm, vmf->pmdt, vmf->pmd_idx))
			return VM_FAULT_OOM;
		pmdv = entry_load(&vmf->pmdt->e[vmf->pmd_idx]);
	}
	if (!entry_is_table(pmdv))
		return 0; /* a huge PMD raced in: retry */
	/* reads map the shared zero page; use_zero_page is the huge zero folio's knob */
	if (!(vmf->flags & FAULT_FLAG_WRITE) && !mm_forbids_zeropage(mm))
		return do_anonymous_zero_page(vmf);
	ret = vmf_anon_prepare(vmf);
	if (ret)
		return ret;
	folio = alloc_anon_folio(vmf, entry_table(pmdv));
	if (!folio)
		return VM_FAULT_OOM;
	nr = folio_nr_pages(folio);
	addr = ALIGN_DOWN(vmf->address, nr * PAGE_SIZE);

	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet)
		goto release;
	slot = &ptet->e[pte_index(addr)];
	if (!pte_range_none(slot, (int)nr)) {
		spin_unlock(&ptet->ptl);
		goto release;
	}
	if (nr > 1)
		folio_ref_add(folio, (int)nr - 1); /* one reference per PTE */
	add_mm_counter(mm, MM_ANONPAGES, (long)nr);
	count_mthp_stat((int)folio_order(folio), MTHP_STAT_ANON_FAULT_ALLOC);
	folio_add_new_anon_rmap(folio, vma, addr, RMAP_EXCLUSIVE, false);
	folio_add_lru_vma(folio, vma);
	prot = vma_pte_prot(vma);
	pfn = folio_pfn(folio);
	fl_cost_n(FL_COST_SET_PTE, nr);
	entry_store(&slot[0], pfn_pte(pfn, prot));
	for (i = 1; i < nr; i++)
		entry_store(&slot[i], pfn_pte(pfn + i, prot));
	vmf_access(vmf, pfn + ((vmf->address - addr) >> PAGE_SHIFT));
	spin_unlock(&ptet->ptl);
	return 0;
release:
	folio_put(folio);
	return 0;
}

/* A write to a present read-only PTE: copy the zero page or the folio. */
static int wp_page_copy(struct vm_fault *vmf, pteval_t orig, struct folio *old,
			struct page *old_page)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	struct folio *new;
	struct pgtable *ptet;
	int i = pte_index(vmf->address), ret;

	ret = vmf_anon_prepare(vmf);
	if (ret)
		return ret;
	/* a copy needs no zeroing first */
	new = folio_prealloc(vma->vm_mm, !old);
	if (!new)
		return VM_FAULT_OOM;
	if (old) {
		fl_cost_mem(FL_COST_COPY_PAGE, folio_pfn(new), 1);
		page_tag_set(folio_pfn(new), page_tag(page_to_pfn(old_page)));
	}
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet || READ_ONCE(ptet->e[i]) != orig) {
		if (ptet)
			spin_unlock(&ptet->ptl);
		folio_put(new);
		return 0;
	}
	if (old)
		folio_remove_rmap_ptes(old, old_page, 1, vma);
	if (old && !folio_test_anon(old)) {
		/* a private file page becomes an anon copy */
		add_mm_counter(vma->vm_mm, mm_counter_file(old), -1);
		add_mm_counter(vma->vm_mm, MM_ANONPAGES, 1);
	} else if (!old) {
		add_mm_counter(vma->vm_mm, MM_ANONPAGES, 1);
	}
	folio_add_new_anon_rmap(new, vma, vmf->address, RMAP_EXCLUSIVE, false);
	folio_add_lru_vma(new, vma);
	fl_cost(FL_COST_SET_PTE);
	entry_store(&ptet->e[i], pfn_pte(folio_pfn(new), vma_pte_prot(vma)));
	vmf_access(vmf, folio_pfn(new));
	spin_unlock(&ptet->ptl);
	if (old) {
		folio_put(old);	      /* the old mapping's reference */
		free_swap_cache(old); /* unmapped now: its slots may go (the fault holds it) */
	}
	return 0;
}

int fl__cow_reuse_drain = -1;

/* Seed 000 2/4's drain: on, off, or (auto) when the policy caches large folios. */
static bool cow_reuse_drain_on(void)
{
	int d = READ_ONCE(fl__cow_reuse_drain);

	return d < 0 ? fl__lru_cache_policy.folio_pages > 2 : d;
}

/*
 * __wp_can_reuse_large_anon_folio() (6.18): a large folio is reused when
 * this mm alone maps it (the MM_IDS shared bit clear) and every reference
 * is a mapping. One mapped page is not reused: the copy lets the rest go.
 * A folio in a per-CPU LRU cache has a reference more; with seed 000 2/4
 * the local cache is drained first so that the reuse happens (another
 * CPU's cache is not reached: the folio is then copied).
 * Context: the PTE lock held.
 */
static bool wp_can_reuse_large_anon_folio(struct folio *folio)
{
	bool exclusive;

	if (folio_large_mapcount(folio) <= 1)
		return false;
	if (folio_test_large_maybe_mapped_shared(folio))
		return false;
	if (folio_test_swapcache(folio)) {
		if (!folio_trylock(folio))
			return false;
		folio_free_swap(folio);
		folio_unlock(folio);
	}
	if (cow_reuse_drain_on() && folio_may_be_lru_cached(folio) && !folio_test_lru(folio)) {
		if (folio_ref_count(folio) != folio_large_mapcount(folio) + 1)
			return false;
		lru_add_drain();
	}
	if (folio_large_mapcount(folio) != folio_ref_count(folio))
		return false;
	/* stable against mapcount changes: look again */
	folio_lock_large_mapcount(folio);
	exclusive = !folio_test_large_maybe_mapped_shared(folio) &&
		    folio_large_mapcount(folio) == folio_ref_count(folio);
	folio_unlock_large_mapcount(folio);
	return exclusive;
}

/*
 * wp_can_reuse_anon_folio() (6.18): an order-0 folio is reused when its
 * only reference is this mapping's, after the local LRU cache let go of
 * it and its swap slot is freed.
 * Context: the PTE lock held.
 */
static bool wp_can_reuse_anon_folio(struct folio *folio, struct vm_area_struct *vma)
{
	if (folio_test_large(folio))
		return wp_can_reuse_large_anon_folio(folio);
	if (folio_ref_count(folio) > 3)
		return false;
	if (!folio_test_lru(folio))
		lru_add_drain(); /* the local cache's reference */
	if (folio_ref_count(folio) > 1 + folio_test_swapcache(folio))
		return false;
	if (!folio_trylock(folio))
		return false;
	if (folio_test_swapcache(folio))
		folio_free_swap(folio);
	if (folio_ref_count(folio) != 1) {
		folio_unlock(folio);
		return false;
	}
	folio_move_anon_rmap(folio, vma);
	folio_unlock(folio);
	return true;
}

/*
 * do_wp_page() - a write fault on a present PTE that lacks _PAGE_RW: the
 * zero page is copied; an anon page exclusive to this mapping, or of a
 * folio wp_can_reuse_anon_folio() lets us have, is reused (wp_page_reuse():
 * that page alone becomes exclusive and writable, pgreuse); any other is
 * copied to a fresh order-0 folio (wp_page_copy()).
 * Context: called with the PTE lock held; returns without it.
 */
static int do_wp_page(struct vm_fault *vmf, struct pgtable *ptet, pteval_t orig)
{
	int i = pte_index(vmf->address);
	struct page *page;
	struct folio *folio;

	if (orig & _PAGE_SPECIAL) {
		spin_unlock(&ptet->ptl);
		return wp_page_copy(vmf, orig, NULL, NULL);
	}
	page = pfn_to_page(pte_pfn(orig));
	folio = page_folio(page);
	if (folio_test_anon(folio) &&
	    (PageAnonExclusive(page) || wp_can_reuse_anon_folio(folio, vmf->vma))) {
		if (!PageAnonExclusive(page))
			fl_set_bit(PG_anon_exclusive, &page->flags);
		/* wp_page_reuse() */
		fl_cost(FL_COST_SET_PTE);
		fl_atomic_fetch_or(&ptet->e[i], _PAGE_RW | _PAGE_DIRTY | _PAGE_ACCESSED,
				   __ATOMIC_ACQ_REL);
		vmf_access(vmf, pte_pfn(orig));
		spin_unlock(&ptet->ptl);
		count_vm_event(PGREUSE);
		return 0;
	}
	folio_get(folio);
	spin_unlock(&ptet->ptl);
	i = wp_page_copy(vmf, orig, folio, page);
	folio_put(folio);
	return i;
}

/*
 * migration_entry_wait() - the PTE stands for a page a split has taken
 * away for a moment: wait until the folio is unlocked (the split is
 * over), then let the access retry. The folio is locked while its entries
 * exist, so it cannot be freed while the PTE lock is held; the wait asks
 * for its wake-up before dropping that lock and never looks at the folio
 * after it.
 */
static void migration_entry_wait(struct vm_fault *vmf, pteval_t orig)
{
	FL_LOCK_SITE(site);
	struct pgtable *ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	struct folio *folio;

	if (!ptet)
		return;
	if (READ_ONCE(ptet->e[pte_index(vmf->address)]) != orig) {
		spin_unlock(&ptet->ptl);
		return;
	}
	folio = pfn_swap_entry_folio(pte_to_swp_entry(orig));
	count_fl_stat(FL_MIGRATION_WAIT, 1);
	migration_entry_wait_on_locked(folio, &ptet->ptl);
}

/* ---- swap-in ---- */

/*
 * can_swapin_thp(): the @nr PTEs from @pte are swap entries of
 * consecutive slots from the first's, with the same bits (swap_pte_batch()),
 * all zero pages or none (the zeromap), and no folio stands for any slot.
 */
static bool can_swapin_thp(pteval_t *pte, int nr)
{
	pteval_t first = READ_ONCE(pte[0]);
	swp_entry_t entry;
	bool zero;
	int i;

	if (!is_swap_pte(first))
		return false;
	entry = pte_to_swp_entry(first);
	if (!is_swap_entry(entry))
		return false;
	for (i = 1; i < nr; i++)
		if (READ_ONCE(pte[i]) != first + ((pteval_t)i << SWP_PTE_SHIFT))
			return false;
	entry = swp_entry_slot(entry);
	if (!swap_zeromap_uniform(entry, nr, &zero))
		return false;
	return !swap_range_has_cache(entry, nr);
}

/*
 * alloc_swap_folio() - the folio a skip-swapcache swap-in reads into: the
 * largest mTHP order below PMD the VMA allows whose aligned block of PTEs
 * can come in together (thp_swap_suitable_orders(): the virtual page and
 * the slot agree modulo the size; can_swapin_thp()); an allocation that
 * fails counts swpin_fallback and tries the next order; order 0 last,
 * with no counter. Not zeroed: the read fills it.
 */
static struct folio *alloc_swap_folio(struct vm_fault *vmf, swp_entry_t entry)
{
	FL_LOCK_SITE(site);
	unsigned long orders = vmf->orders & ((1ul << PMD_ORDER) - 1), order, o, addr;
	struct pgtable *ptet;
	struct folio *folio;

	orders = thp_vma_suitable_orders(vmf->vma, vmf->address, orders);
	for (o = orders; o; o &= o - 1) {
		order = (unsigned long)__builtin_ctzl(o);
		if (((vmf->address >> PAGE_SHIFT) ^ swp_offset(entry)) & ((1ul << order) - 1))
			orders &= ~(1ul << order);
	}
	if (!orders)
		goto fallback;
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet)
		goto fallback;
	order = highest_order(orders);
	while (orders) {
		addr = ALIGN_DOWN(vmf->address, PAGE_SIZE << order);
		if (can_swapin_thp(&ptet->e[pte_index(addr)], 1 << order))
			break;
		order = next_order(&orders, order);
	}
	spin_unlock(&ptet->ptl);
	while (orders) {
		gfp_t gfp = vma_thp_gfp_mask(vmf->vma);

		folio = folio_alloc(gfp, (unsigned int)order);
		if (folio) {
			if (!mem_cgroup_swapin_charge_folio(folio, vmf->vma->vm_mm, gfp, entry))
				return folio;
			count_mthp_stat((int)order, MTHP_STAT_SWPIN_FALLBACK_CHARGE);
			folio_put(folio);
		}
		count_mthp_stat((int)order, MTHP_STAT_SWPIN_FALLBACK);
		order = next_order(&orders, order);
	}
fallback:
	folio = folio_alloc(GFP_HIGHUSER_MOVABLE, 0);
	if (folio && mem_cgroup_swapin_charge_folio(folio, vmf->vma->vm_mm, GFP_KERNEL, entry)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/**
 * do_swap_page() - the PTE is a swap or migration entry. A migration
 * entry waits for the split to finish. A swap entry maps the folio that
 * stands for its slot (the swap cache), or reads a new one: on a
 * synchronous device (zram) with the slot named once, around the swap
 * cache and as large as alloc_swap_folio() allows; otherwise order 0
 * through the swap cache, with readahead (swapin_readahead()). pgmajfault
 * counts every read. The swap PTEs become present ones and their slots'
 * counts go; a write to a cached folio nobody else holds (or any, when
 * swap is more than half full) frees its swap first. They are writable
 * when the swap PTE said exclusive or the folio has no other reference,
 * dirty on a write; a write they do not allow goes on to do_wp_page() in
 * the same fault.
 */
static noinline int do_swap_page(struct vm_fault *vmf, pteval_t orig)
{
	FL_LOCK_SITE(site);
	struct swap_info_struct *si = fl__swap_info;
	struct vm_area_struct *vma = vmf->vma;
	swp_entry_t entry = pte_to_swp_entry(orig), slot, start;
	struct folio *folio, *swapcache = NULL;
	bool need_clear_cache = false, exclusive;
	unsigned long addr, nr_pages = 1, i, pfn, idx;
	struct pgtable *ptet;
	pteval_t pte, *ptep;
	int ret = 0;

	if (is_migration_entry(entry)) {
		migration_entry_wait(vmf, orig);
		return 0;
	}
	if (!si || swp_type(entry) != 0 || swp_offset(entry) >= si->max)
		return VM_FAULT_SIGBUS;
	slot = swp_entry_slot(entry);
	/* a swap PTE was an anon page's: the VMA has its anon_vma (6.18 prepares none here) */
	VM_BUG_ON(!fl_atomic_load(&vma->anon_vma, __ATOMIC_ACQUIRE));
	folio = swap_cache_get_folio(slot);
	if (folio) {
		swapcache = folio;
		swap_update_readahead(folio, vma, vmf->address);
	} else if ((si->flags & SWP_SYNCHRONOUS_IO) && __swap_count(slot) == 1) {
		/* skip the swap cache: the folio comes straight from zram */
		folio = alloc_swap_folio(vmf, slot);
		if (!folio)
			return VM_FAULT_OOM;
		nr_pages = folio_nr_pages(folio);
		start = swp_entry(0, ALIGN_DOWN(swp_offset(slot), nr_pages));
		folio_set_locked(folio);
		if (swapcache_prepare(start, (int)nr_pages)) {
			/* busy (a racing swap-in) or gone (a racing zap): refault */
			folio_clear_locked(folio);
			folio_put(folio);
			fl_yield();
			return 0;
		}
		need_clear_cache = true;
		folio_set_swapbacked(folio);
		workingset_refault(folio, swap_cache_get_shadow(start));
		swap_read_folio(folio, start);
		count_vm_event(PGMAJFAULT);
		count_memcg_event_mm(vma->vm_mm, PGMAJFAULT);
	} else {
		bool oom;

		swapcache = folio = swapin_readahead(slot, vmf, &oom);
		if (!folio)
			return oom ? VM_FAULT_OOM : 0; /* or the slot changed under us: refault */
		count_vm_event(PGMAJFAULT);
		count_memcg_event_mm(vma->vm_mm, PGMAJFAULT);
	}
	if (swapcache) {
		folio_lock(folio);
		/* it may have left the cache, or been reused, while we waited */
		if (!folio_test_swapcache(folio) ||
		    swp_offset(folio_swap_entry(folio, 0)) > swp_offset(slot) ||
		    swp_offset(folio_swap_entry(folio, 0)) + folio_nr_pages(folio) <=
			    swp_offset(slot))
			goto out_page;
		/* a write counts references: the local LRU caches give theirs back */
		if ((vmf->flags & FAULT_FLAG_WRITE) && !folio_test_lru(folio))
			lru_add_drain();
	}
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet)
		goto out_page;
	addr = vmf->address;
	ptep = &ptet->e[pte_index(addr)];
	if (READ_ONCE(*ptep) != orig)
		goto out_nomap;
	idx = 0;
	if (!swapcache && nr_pages > 1) {
		/* every PTE of the block must still name its slot */
		addr = ALIGN_DOWN(vmf->address, nr_pages * PAGE_SIZE);
		idx = (vmf->address - addr) >> PAGE_SHIFT;
		ptep = &ptet->e[pte_index(addr)];
		for (i = 0; i < nr_pages; i++)
			if (READ_ONCE(ptep[i]) != orig + ((pteval_t)(i - idx) << SWP_PTE_SHIFT))
				goto out_nomap;
	} else if (swapcache) {
		/* a cached folio: only the faulting page (a whole large one is not modelled) */
		idx = swp_offset(slot) - swp_offset(folio_swap_entry(folio, 0));
	}
	/* a fresh folio is ours alone; a cached one as its PTE says */
	exclusive = !swapcache || is_swap_entry_exclusive(entry);
	swap_free_nr(swapcache ? slot : start, (int)nr_pages);
	/*
	 * should_try_to_free_swap(): swap more than half full, a locked VMA or
	 * folio, or a write to a folio nobody else holds
	 */
	if (swapcache && (mem_cgroup_swap_full(folio) || (vma->vm_flags & VM_LOCKED) ||
			  folio_test_mlocked(folio) ||
			  ((vmf->flags & FAULT_FLAG_WRITE) &&
			   folio_ref_count(folio) == 1 + (int)folio_nr_pages(folio))))
		folio_free_swap(folio);
	if (folio_ref_count(folio) == 1)
		exclusive = true; /* no other reference: nobody else can map it */
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, (long)nr_pages);
	add_mm_counter(vma->vm_mm, MM_SWAPENTS, -(long)nr_pages);
	pte = _PAGE_PRESENT | _PAGE_ACCESSED;
	if (exclusive && (vma->vm_flags & VM_WRITE)) {
		pte |= _PAGE_RW;
		if (vmf->flags & FAULT_FLAG_WRITE)
			pte |= _PAGE_DIRTY;
	}
	if (nr_pages > 1)
		folio_ref_add(folio, (int)nr_pages - 1); /* one reference per PTE */
	pfn = folio_pfn(folio) + (swapcache ? idx : 0);
	if (!folio_test_anon(folio)) {
		/*
		 * A new folio: anon only now. One read through the swap cache
		 * went on the LRU when it was read (__read_swap_cache_async(),
		 * as in the kernel); one that skipped the cache goes now: the
		 * kernel puts it there before the read, but here nobody may
		 * reach it but through this fault until its rmap is set.
		 */
		folio_add_new_anon_rmap(folio, vma, addr, exclusive ? RMAP_EXCLUSIVE : 0, false);
		if (!swapcache)
			folio_add_lru_vma(folio, vma);
	} else
		folio_add_anon_rmap_ptes(folio, pfn_to_page(pfn), (int)nr_pages, vma,
					 exclusive ? RMAP_EXCLUSIVE : 0);
	fl_cost_n(FL_COST_SET_PTE, nr_pages);
	for (i = 0; i < nr_pages; i++)
		entry_store(&ptep[i], pfn_pte(pfn + i, pte));
	if (!(vmf->flags & FAULT_FLAG_WRITE) || (pte & _PAGE_RW))
		vmf_access(vmf, swapcache ? pfn : pfn + idx);
	/* under the PTE lock: once it goes, a zap may free the folio */
	folio_unlock(folio);
	if ((vmf->flags & FAULT_FLAG_WRITE) && !(pte & _PAGE_RW))
		return do_wp_page(vmf, ptet, READ_ONCE(ptep[0])); /* a cached folio: nr_pages 1 */
	spin_unlock(&ptet->ptl);
	if (need_clear_cache)
		swapcache_clear(start, (int)nr_pages);
	return ret;
out_nomap:
	spin_unlock(&ptet->ptl);
out_page:
	folio_unlock(folio);
	folio_put(folio);
	if (need_clear_cache)
		swapcache_clear(start, (int)nr_pages);
	return ret;
}

/* ---- faults in file mappings (tmpfs) ---- */

/* fault_around_bytes: 64 KiB, 16 pages (the kernel's default) */
#define FAULT_AROUND_PAGES 16

/*
 * set_pte_range() - map @nr pages of @folio from @page at @addr into
 * @slot[0..nr): file pages (their rmap added), or, for a write fault in a
 * private mapping, the one new anon page (CoW). A shared writable
 * mapping's PTEs are writable; a write makes them dirty, as does a folio
 * already dirty. The fault address's PTE is young (the access is done
 * under the lock); pages mapped around it are not.
 * Context: the PTE table's lock held; @slot[0..nr) none.
 */
void set_pte_range(struct vm_fault *vmf, struct folio *folio, struct page *page, int nr,
		   unsigned long addr, pteval_t *slot)
{
	struct vm_area_struct *vma = vmf->vma;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	unsigned long pfn = page_to_pfn(page);
	pteval_t prot = _PAGE_PRESENT;
	int i;

	if (write && !(vma->vm_flags & VM_SHARED)) {
		folio_add_new_anon_rmap(folio, vma, addr, RMAP_EXCLUSIVE, false);
		folio_add_lru_vma(folio, vma);
		prot |= _PAGE_RW | _PAGE_DIRTY;
	} else {
		folio_add_file_rmap_ptes(folio, page, nr, vma);
		if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == (VM_SHARED | VM_WRITE))
			prot |= _PAGE_RW;
		if (write || ((prot & _PAGE_RW) && folio_test_dirty(folio)))
			prot |= _PAGE_DIRTY;
	}
	fl_cost_n(FL_COST_SET_PTE, (uint64_t)nr);
	for (i = 0; i < nr; i++, addr += PAGE_SIZE)
		entry_store(&slot[i], pfn_pte(pfn + (unsigned long)i,
					      prot | (addr == vmf->address ? _PAGE_ACCESSED : 0)));
}

/* Install fault-around's preallocated PTE table if the PMD is still empty. */
void fl__vmf_prealloc_install(struct vm_fault *vmf)
{
	FL_LOCK_SITE_NAMED(site, "pmd_install");

	if (!vmf->prealloc_pte)
		return;
	fl_spin_lock_at(&vmf->pmdt->ptl, &site);
	if (!entry_load(&vmf->pmdt->e[vmf->pmd_idx])) {
		entry_store(&vmf->pmdt->e[vmf->pmd_idx], table_entry(vmf->prealloc_pte));
		vmf->prealloc_pte = NULL;
	}
	spin_unlock(&vmf->pmdt->ptl);
}

/* The fault's PTE table, locked, or NULL (none, or a huge PMD). */
struct pgtable *fl__vmf_pte_lock(struct vm_fault *vmf)
{
	FL_LOCK_SITE_NAMED(site, "filemap_map_pages");

	return pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
}

/**
 * do_set_pmd() - map the PMD-sized file @folio with one PMD entry
 * (thp_file_mapped), if the VMA and the file offset allow it.
 * Return: 0, VM_FAULT_FALLBACK (use PTEs) or VM_FAULT_NOPAGE (the PMD is
 * taken).
 */
int do_set_pmd(struct vm_fault *vmf, struct folio *folio, struct page *page)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	struct pgtable *pmdt = vmf->pmdt;
	pteval_t v = _PAGE_PRESENT | _PAGE_PSE | _PAGE_ACCESSED;

	(void)page;
	/*
	 * 6.18: too late for a small folio, but THPs are off for this VMA
	 * (MADV_NOHUGEPAGE): no PMD mapping; the caller maps PTEs
	 */
	if (folio_order(folio) != PMD_ORDER || vma_thp_disabled(vma, vma->vm_flags) ||
	    !thp_vma_suitable_order(vma, vmf->address & PMD_MASK, PMD_ORDER))
		return VM_FAULT_FALLBACK;
	fl_spin_lock_at(&pmdt->ptl, &site);
	if (entry_load(&pmdt->e[vmf->pmd_idx])) {
		spin_unlock(&pmdt->ptl);
		return VM_FAULT_NOPAGE;
	}
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) == (VM_SHARED | VM_WRITE))
		v |= _PAGE_RW;
	if (vmf->flags & FAULT_FLAG_WRITE)
		v |= _PAGE_DIRTY;
	add_mm_counter(vma->vm_mm, mm_counter_file(folio), HPAGE_PMD_NR);
	folio_add_file_rmap_pmd(folio, folio_page(folio, 0), vma);
	fl_cost(FL_COST_SET_PTE);
	entry_store(&pmdt->e[vmf->pmd_idx], pfn_pte(folio_pfn(folio), v));
	vmf_access(vmf, folio_pfn(folio) + (unsigned long)pte_index(vmf->address));
	spin_unlock(&pmdt->ptl);
	count_vm_event(THP_FILE_MAPPED);
	return 0;
}

/**
 * finish_fault() - map the page ->fault() found (or the CoW copy): a
 * PMD-sized folio with a PMD where the table is empty; a large tmpfs
 * folio whole, where it lies inside the VMA and the PTE table and its
 * PTEs are none (6.18), else the one page. The folio's reference from the
 * fault becomes the first mapping's.
 * Return: 0, VM_FAULT_NOPAGE (someone else mapped it: drop the
 * reference), or VM_FAULT_OOM.
 */
int finish_fault(struct vm_fault *vmf, struct folio *folio, struct page *page)
{
	FL_LOCK_SITE(site);
	struct vm_area_struct *vma = vmf->vma;
	bool cow = (vmf->flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_SHARED);
	unsigned long addr = vmf->address, nr = folio_nr_pages(folio);
	struct page *fault_page = page;
	struct pgtable *ptet;
	pteval_t pmdv = entry_load(&vmf->pmdt->e[vmf->pmd_idx]);
	pteval_t *slot;
	int ret;

	if (!pmdv) {
		if (!cow && folio_order(folio) == PMD_ORDER) {
			ret = do_set_pmd(vmf, folio, page);
			if (ret != VM_FAULT_FALLBACK)
				return ret;
		}
		if (vmf->prealloc_pte)
			fl__vmf_prealloc_install(vmf);
		else if (pte_alloc(vma->vm_mm, vmf->pmdt, vmf->pmd_idx))
			return VM_FAULT_OOM;
	}
	if (cow || nr == 1) {
		nr = 1;
	} else {
		unsigned long idx = (unsigned long)(page - folio_page(folio, 0));
		unsigned long vma_off = vmf->pgoff - vma->vm_pgoff;
		unsigned long pte_off = (unsigned long)pte_index(vmf->address);

		if (vma_off < idx || vma_off + (nr - idx) > vma_pages(vma) || pte_off < idx ||
		    pte_off + (nr - idx) > PTRS_PER_TABLE) {
			nr = 1;
		} else {
			addr = vmf->address - idx * PAGE_SIZE;
			page = folio_page(folio, 0);
		}
	}
again:
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet)
		return VM_FAULT_NOPAGE; /* a huge PMD took the place */
	slot = &ptet->e[pte_index(addr)];
	if (nr == 1 && READ_ONCE(*slot)) {
		spin_unlock(&ptet->ptl);
		return VM_FAULT_NOPAGE;
	}
	if (nr > 1 && !pte_range_none(slot, (int)nr)) {
		/* part of the range is mapped: the one page, as 6.18 falls back */
		spin_unlock(&ptet->ptl);
		nr = 1;
		addr = vmf->address;
		page = fault_page;
		goto again;
	}
	if (nr > 1)
		folio_ref_add(folio, (int)nr - 1);
	set_pte_range(vmf, folio, page, (int)nr, addr, slot);
	add_mm_counter(vma->vm_mm, cow ? MM_ANONPAGES : mm_counter_file(folio), (long)nr);
	vmf_access(vmf, page_to_pfn(page) + ((vmf->address - addr) >> PAGE_SHIFT));
	spin_unlock(&ptet->ptl);
	return 0;
}

/*
 * do_fault_around() - map what the page cache already holds in the 16
 * pages around the fault (fault_around_bytes), inside the VMA and the PTE
 * table, through ->map_pages().
 * Return: VM_FAULT_NOPAGE if the fault address got mapped, else 0 (or an error).
 */
static int do_fault_around(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long pte_off = (unsigned long)pte_index(vmf->address);
	unsigned long vma_off = vmf->pgoff - vma->vm_pgoff;
	unsigned long from, to;

	from = ALIGN_DOWN(pte_off, FAULT_AROUND_PAGES);
	if (from < pte_off - (pte_off < vma_off ? pte_off : vma_off))
		from = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	to = from + FAULT_AROUND_PAGES;
	if (to > PTRS_PER_TABLE)
		to = PTRS_PER_TABLE;
	if (to > pte_off + vma_pages(vma) - vma_off)
		to = pte_off + vma_pages(vma) - vma_off;
	if (!entry_load(&vmf->pmdt->e[vmf->pmd_idx])) {
		vmf->prealloc_pte = fl__pgtable_alloc(vma->vm_mm, 0);
		if (!vmf->prealloc_pte)
			return VM_FAULT_OOM;
	}
	return vma->vm_ops->map_pages(vmf, vmf->pgoff + from - pte_off,
				      vmf->pgoff + to - 1 - pte_off);
}

/* ->fault(): the file's folio at vmf->pgoff, locked and referenced. */
static int __do_fault(struct vm_fault *vmf)
{
	int ret = vmf->vma->vm_ops->fault(vmf);

	if (!ret && !vmf->page)
		ret = VM_FAULT_SIGBUS;
	return ret;
}

/* A read: fault around, then the page itself. */
static int do_read_fault(struct vm_fault *vmf)
{
	struct folio *folio;
	int ret;

	if (vmf->vma->vm_ops->map_pages) {
		ret = do_fault_around(vmf);
		if (ret)
			return ret;
	}
	ret = __do_fault(vmf);
	if (ret)
		return ret;
	folio = page_folio(vmf->page);
	ret = finish_fault(vmf, folio, vmf->page);
	folio_unlock(folio);
	if (ret)
		folio_put(folio);
	return ret;
}

/* A write in a private mapping: a new anon page with the file page's data. */
static int do_cow_fault(struct vm_fault *vmf)
{
	struct folio *new, *folio;
	int ret;

	ret = vmf_anon_prepare(vmf);
	if (ret)
		return ret;
	new = folio_prealloc(vmf->vma->vm_mm, false);
	if (!new)
		return VM_FAULT_OOM;
	ret = __do_fault(vmf);
	if (ret) {
		folio_put(new);
		return ret;
	}
	folio = page_folio(vmf->page);
	page_tag_set(folio_pfn(new), page_tag(page_to_pfn(vmf->page)));
	ret = finish_fault(vmf, new, folio_page(new, 0));
	folio_unlock(folio);
	folio_put(folio);
	if (ret)
		folio_put(new);
	return ret;
}

/* A write in a shared mapping: map the file page writable, the folio dirty. */
static int do_shared_fault(struct vm_fault *vmf)
{
	struct folio *folio;
	int ret;

	ret = __do_fault(vmf);
	if (ret)
		return ret;
	folio = page_folio(vmf->page);
	ret = finish_fault(vmf, folio, vmf->page);
	if (!ret)
		folio_mark_dirty(folio); /* fault_dirty_shared_page() */
	folio_unlock(folio);
	if (ret)
		folio_put(folio);
	return ret;
}

/* do_fault() - a none PTE in a file mapping. */
static int do_fault(struct vm_fault *vmf)
{
	int ret;

	if (!(vmf->flags & FAULT_FLAG_WRITE))
		ret = do_read_fault(vmf);
	else if (!(vmf->vma->vm_flags & VM_SHARED))
		ret = do_cow_fault(vmf);
	else
		ret = do_shared_fault(vmf);
	if (vmf->prealloc_pte) {
		/* fault-around's table went unused (a PMD mapped the folio) */
		fl__pgtable_free(vmf->vma->vm_mm, vmf->prealloc_pte);
		vmf->prealloc_pte = NULL;
	}
	return ret & ~VM_FAULT_NOPAGE;
}

static __always_inline int handle_pte_fault(struct vm_fault *vmf)
{
	FL_LOCK_SITE(site);
	pteval_t pmdv = entry_load(&vmf->pmdt->e[vmf->pmd_idx]);
	struct pgtable *ptet;
	pteval_t *slot, orig = 0;

	if (pmdv && !entry_is_table(pmdv))
		return 0; /* a huge PMD appeared: retry */
	if (pmdv)
		orig = entry_load(&entry_table(pmdv)->e[pte_index(vmf->address)]);
	if (!orig) { /* no PTE table yet (pmdv 0), or a none PTE */
		if (!vma_is_anonymous(vmf->vma))
			return do_fault(vmf);
		return do_anonymous_page(vmf, pmdv);
	}
	if (!(orig & _PAGE_PRESENT))
		return do_swap_page(vmf, orig);
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (!ptet)
		return 0;
	slot = &ptet->e[pte_index(vmf->address)];
	if (READ_ONCE(*slot) != orig) {
		spin_unlock(&ptet->ptl);
		return 0;
	}
	if ((vmf->flags & FAULT_FLAG_WRITE) && !(orig & _PAGE_RW))
		return do_wp_page(vmf, ptet, orig);
	/* spurious: the entry allows the access; update A/D like hardware */
	entry_store(slot,
		    orig | _PAGE_ACCESSED | ((vmf->flags & FAULT_FLAG_WRITE) ? _PAGE_DIRTY : 0));
	spin_unlock(&ptet->ptl);
	return 0;
}

static int __handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags,
			     uint64_t *tag, bool *done)
{
	FL_LOCK_SITE_NAMED(site_pud, "__pud_alloc");
	FL_LOCK_SITE_NAMED(site_pmd, "__pmd_alloc");
	struct mm_struct *mm = vma->vm_mm;
	struct vm_fault vmf = { .vma = vma, .address = address, .flags = flags, .tag = tag };
	struct pgtable *pudt, *pmdt;
	pteval_t pmdv;
	int ret;

	pudt = table_alloc_slot(mm, &mm->pgd->e[pgd_index(address)], 2, &site_pud);
	if (!pudt)
		return VM_FAULT_OOM;
	pmdt = table_alloc_slot(mm, &pudt->e[pud_index(address)], 1, &site_pmd);
	if (!pmdt)
		return VM_FAULT_OOM;
	vmf.pmdt = pmdt;
	vmf.pmd_idx = pmd_index(address);
	vmf.pgoff = linear_page_index(vma, address);
	vmf.orders = vma_is_anonymous(vma)
			     ? thp_vma_allowable_orders(vma, vma->vm_flags, THP_ORDERS_ALL_ANON)
			     : 0;
	pmdv = entry_load(&pmdt->e[vmf.pmd_idx]);
	if (!pmdv && (vmf.orders & (1ul << PMD_ORDER))) {
		ret = do_huge_pmd_anonymous_page(&vmf);
		if (!(ret & VM_FAULT_FALLBACK))
			goto out;
	} else if (pmd_trans_huge(pmdv)) {
		if (!pmd_huge_present(pmdv)) {
			/* invalidated for a change: wait for its lock holder */
			FL_LOCK_SITE_NAMED(site_wait, "huge_pmd_set_accessed");

			fl_spin_lock_at(&pmdt->ptl, &site_wait);
			spin_unlock(&pmdt->ptl);
			return 0;
		}
		if (!(flags & FAULT_FLAG_WRITE) || (pmdv & _PAGE_RW))
			return 0; /* present and allowed: the access retries */
		/* wp_huge_pmd(): the huge zero folio (no fork yet: no other read-only PMD) */
		ret = do_huge_pmd_wp_page(&vmf);
		if (!(ret & VM_FAULT_FALLBACK))
			goto out;
	}
	ret = handle_pte_fault(&vmf);
out:
	*done = vmf.done;
	return ret;
}

/**
 * handle_mm_fault() - resolve a fault at @address in @vma.
 * Context: the VMA is read-locked (per-VMA lock or mmap_lock).
 * Return: 0 (the access may retry) or VM_FAULT_* error bits.
 */
int handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags,
		    uint64_t *tag, bool *done)
{
	count_vm_event(PGFAULT);
	count_memcg_event_mm(vma->vm_mm, PGFAULT);
	fl_cost(FL_COST_FAULT);
	return __handle_mm_fault(vma, address & PAGE_MASK, flags, tag, done);
}

/*
 * One access by "hardware": translate without locks, set the accessed and
 * dirty bits, read or write the tag. Return: pfn or -1 on a missing or
 * insufficient translation.
 *
 * x86 sets the bits with a locked compare-and-exchange on the entry it
 * walked, and walks again if the entry changed meanwhile: a zap or a
 * MADV_FREE that cleared it wins, and the bits never land in a none entry.
 */
static __always_inline long hw_translate(struct mm_struct *mm, unsigned long addr, bool write)
{
	pteval_t v, need = _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0);
	struct pgtable *pmdt;
	pteval_t *slot;
	unsigned long pfn;
	bool huge, walked = false;

walk:
	pmdt = walk_pmd_table(mm, addr);
	if (!pmdt)
		return -1;
	slot = &pmdt->e[pmd_index(addr)];
	v = entry_load(slot);
	hw_access_hook(0);
	huge = pmd_huge_present(v);
	if (huge) {
		pfn = pte_pfn(v) + (unsigned long)pte_index(addr);
	} else if (entry_is_table(v)) {
		slot = &entry_table(v)->e[pte_index(addr)];
		v = entry_load(slot);
		if (!(v & _PAGE_PRESENT))
			return -1;
		pfn = pte_pfn(v);
	} else {
		return -1;
	}
	if (write && !(v & _PAGE_RW))
		return -1;
	/* a translation the TLB holds sets no bit (tlb.c); a walk sets them */
	if (fl__dtlb_on && !walked) {
		walked = true;
		if (fl__dtlb_access(mm, addr, huge, write, v & _PAGE_DIRTY))
			return (long)pfn;
	}
	if ((v & need) != need) {
		hw_access_hook(2);
		if (!fl_atomic_cmpxchg(slot, &v, v | need, false, __ATOMIC_RELAXED,
				       __ATOMIC_RELAXED))
			goto walk;
	}
	return (long)pfn;
}

/* The fault's slow path: mmap_lock for reading, then the VMA. */
static struct vm_area_struct *lock_mm_and_find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	down_read(&mm->mmap_lock);
	vma = find_vma(mm, addr);
	if (!vma || addr < vma_start(vma)) {
		up_read(&mm->mmap_lock);
		return NULL;
	}
	return vma;
}

/*
 * The slow half of an access: take the VMA (under its own lock when
 * possible), fault, and maybe complete it. A fault that needs mmap_lock
 * (VM_FAULT_RETRY) is done again under it, as the kernel does.
 */
static __always_inline int __do_user_fault(struct mm_struct *mm, unsigned long addr, bool write,
					   uint64_t *tag, bool *done)
{
	unsigned int flags = write ? FAULT_FLAG_WRITE : 0;
	struct vm_area_struct *vma = lock_vma_under_rcu(mm, addr);
	int ret;

	if (vma) {
		if ((write && !(vma->vm_flags & VM_WRITE)) ||
		    (!write && !(vma->vm_flags & VM_READ))) {
			vma_end_read(vma);
			return VM_FAULT_SIGSEGV;
		}
		ret = handle_mm_fault(vma, addr, flags | FAULT_FLAG_VMA_LOCK, tag, done);
		vma_end_read(vma);
		if (!(ret & VM_FAULT_RETRY))
			return ret;
		/* the kernel's vma_lock_retry: the fault runs (and counts) again */
		count_fl_stat(FL_VMA_LOCK_RETRY, 1);
	}
	vma = lock_mm_and_find_vma(mm, addr);
	if (!vma)
		return VM_FAULT_SIGSEGV;
	if ((write && !(vma->vm_flags & VM_WRITE)) || (!write && !(vma->vm_flags & VM_READ)))
		ret = VM_FAULT_SIGSEGV;
	else
		ret = handle_mm_fault(vma, addr, flags, tag, done);
	up_read(&mm->mmap_lock);
	return ret;
}

static __always_inline int do_user_fault(struct mm_struct *mm, unsigned long addr, bool write,
					 uint64_t *tag, bool *done)
{
	int ret = __do_user_fault(mm, addr, write, tag, done);

	/* resume_user_mode_work(): what the fault charged over memory.high */
	if (unlikely(mm->memcg))
		mem_cgroup_handle_over_high();
	return ret;
}

unsigned long fl__corrupt_tag_every;
bool fl__no_zero_page;

/* The test hook: every Nth store (counted per thread) flips a bit of its tag. */
uint64_t fl__corrupt_tag(uint64_t tag)
{
	static _Thread_local unsigned long stores;

	return ++stores % READ_ONCE(fl__corrupt_tag_every) ? tag : tag ^ 1;
}

#define ACCESS_TRIES_MAX 100000

/* The walk of the access a fault completed: the TLB loads what the fault mapped. */
static void tlb_fill_after_fault(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct hw_access_seq *s = hw_access_begin(mm);
	struct pgtable *pmdt = walk_pmd_table(mm, addr);
	bool huge = pmdt && pmd_huge_present(entry_load(&pmdt->e[pmd_index(addr)]));

	hw_access_end(s);
	fl__dtlb_access(mm, addr, huge, write, write);
}

/*
 * One load or store: translate as hardware would, fault when it cannot.
 * @fault_first: the caller just found the translation missing; start with
 * the fault.
 */
static __always_inline int mm_access_one(struct mm_struct *mm, unsigned long addr, bool write,
					 uint64_t *tag, bool fault_first)
{
	int tries;

	/*
	 * A user access retries until it goes through, as the CPU re-executes
	 * it; other CPUs zapping and splitting the same pages can make it
	 * lose many rounds in a row when this thread is descheduled between
	 * fault and access (a loaded host: 61+ rounds were seen beside
	 * tests/load-machine), so after 64 it yields before each retry. The
	 * bound only catches a real livelock.
	 */
	for (tries = 0; tries < ACCESS_TRIES_MAX; tries++) {
		bool done = false;
		int ret;

		if (tries >= 64)
			fl_yield();
		if (!fault_first || tries) {
			struct hw_access_seq *s = hw_access_begin(mm);
			long pfn = hw_translate(mm, addr, write);

			if (pfn >= 0) {
				hw_access_hook(1);
				if (write)
					page_tag_set((unsigned long)pfn, tag_to_store(*tag));
				else
					*tag = page_tag((unsigned long)pfn);
				hw_access_end(s);
				return 0;
			}
			hw_access_end(s);
		}
		ret = do_user_fault(mm, addr, write, tag, &done);
		if (ret & VM_FAULT_OOM)
			return -ENOMEM;
		if (ret & VM_FAULT_SIGSEGV)
			return -EFAULT;
		if (ret & VM_FAULT_SIGBUS)
			return -EIO;
		if (done) {
			/* the access the fault did is retried by the CPU: a walk, a TLB miss */
			if (fl__dtlb_on)
				tlb_fill_after_fault(mm, addr, write);
			return 0;
		}
	}
	return -EAGAIN;
}

/**
 * fl__mm_access() - a user load or store of the tag of the page at @addr,
 * faulting as needed.
 * Return: 0, -EFAULT (no VMA or no permission, i.e. SIGSEGV), -ENOMEM.
 */
int fl__mm_access(struct mm_struct *mm, unsigned long addr, bool write, uint64_t *tag)
{
	fl_user_preempt_point();
	fl_cost(FL_COST_USER_ACCESS);
	return mm_access_one(mm, addr, write, tag, false);
}

/* Where a run of accesses is: the next tag to store, or the loads so far. */
struct access_run {
	bool write;
	uint64_t tag, step; /* stores: the next tag, and what each next page adds */
	uint64_t *tags;	    /* loads: each page's tag, if not NULL */
	uint64_t sum;	    /* loads: their sum */
	unsigned long i;    /* pages done */
	bool table_end;	    /* the last run stopped at the end of its table */
};

/* One more page done: a store moves to the next tag, a load keeps @loaded. */
static __always_inline void run_advance(struct access_run *r, uint64_t loaded)
{
	fl_cost(FL_COST_USER_ACCESS);
	if (r->write) {
		r->tag += r->step;
	} else {
		r->sum += loaded;
		if (r->tags)
			r->tags[r->i] = loaded;
	}
	r->i++;
}

static __always_inline void run_access(struct access_run *r, unsigned long pfn)
{
	if (r->write)
		page_tag_set(pfn, tag_to_store(r->tag));
	run_advance(r, r->write ? 0 : page_tag(pfn));
}

/*
 * The accesses at @addr, @addr + @stride, ... up to @n of them, that one
 * PTE table (or one huge PMD) translates without a fault, under one access
 * bracket: what a TLB does for a run of pages, with the same guarantee a
 * single access has (a zap's flush waits for the bracket to end before it
 * frees a page or table the run may still use). Stops at the first page
 * that needs a fault, or at the end of the table (@r->table_end: the next
 * table may translate as well, and no fault is due).
 * Return: how many were done.
 */
static __always_inline unsigned long hw_access_run(struct mm_struct *mm, unsigned long addr,
						   unsigned long n, unsigned long stride,
						   struct access_run *r)
{
	pteval_t v, pmdv, need = _PAGE_ACCESSED | (r->write ? _PAGE_DIRTY : 0), *slot;
	unsigned long done = 0, end = ALIGN_DOWN(addr, PMD_SIZE) + PMD_SIZE, pfn;
	struct hw_access_seq *seq = hw_access_begin(mm);
	struct pgtable *pmdt = walk_pmd_table(mm, addr);

	if (!pmdt)
		goto out;
	pmdv = entry_load(&pmdt->e[pmd_index(addr)]);
	hw_access_hook(0);
	if (!pmd_huge_present(pmdv) && !entry_is_table(pmdv))
		goto out;
	for (; done < n && addr < end; done++, addr += stride) {
		if (pmd_huge_present(pmdv)) {
			slot = &pmdt->e[pmd_index(addr)];
			v = pmdv;
			pfn = pte_pfn(v) + (unsigned long)pte_index(addr);
		} else {
			slot = &entry_table(pmdv)->e[pte_index(addr)];
			v = entry_load(slot);
			if (!(v & _PAGE_PRESENT))
				break;
			pfn = pte_pfn(v);
		}
		if (r->write && !(v & _PAGE_RW))
			break;
		/* a translation the TLB holds sets no bit (tlb.c); a walk sets them */
		if (fl__dtlb_on &&
		    fl__dtlb_access(mm, addr, pmd_huge_present(pmdv), r->write, v & _PAGE_DIRTY)) {
			hw_access_hook(1);
			run_access(r, pfn);
			continue;
		}
		if ((v & need) != need) {
			hw_access_hook(2);
			/* the entry changed: the single access walks it again (a TLB miss again) */
			if (!fl_atomic_cmpxchg(slot, &v, v | need, false, __ATOMIC_RELAXED,
					       __ATOMIC_RELAXED)) {
				if (fl__dtlb_on)
					fl__dtlb_flush_range(mm, addr, addr + PAGE_SIZE);
				break;
			}
			if (slot == &pmdt->e[pmd_index(addr)])
				pmdv = v | need;
		}
		hw_access_hook(1);
		run_access(r, pfn);
	}
	if (done)
		count_fl_stat(pmd_huge_present(pmdv) ? FL_ACCESS_PMD : FL_ACCESS_PTE, (long)done);
out:
	r->table_end = addr >= end;
	hw_access_end(seq);
	return done;
}

/**
 * fl__mm_access_range() - loads or stores at @addr + i * @stride for
 * i < @len / @stride: a store writes @tag + i * @step; a load adds the tag
 * to *@sum and, if @tags is set, keeps it in @tags[i]. Pages that translate
 * go in runs (hw_access_run()); one that does not takes a fault, as a
 * single access.
 * Return: 0 or the first error, as fl__mm_access().
 */
int fl__mm_access_range(struct mm_struct *mm, unsigned long addr, unsigned long len,
			unsigned long stride, bool write, uint64_t tag, uint64_t step,
			uint64_t *tags, uint64_t *sum)
{
	struct access_run r = { .write = write, .tag = tag, .step = step, .tags = tags };
	unsigned long n = len / stride;

	while (r.i < n) {
		uint64_t t;
		int ret;

		fl_user_preempt_point(); /* between runs: no TLB bracket open */
		hw_access_run(mm, addr + r.i * stride, n - r.i, stride, &r);
		if (r.i == n)
			break;
		if (r.table_end)
			continue; /* the next table may translate too */
		t = r.tag;
		ret = mm_access_one(mm, addr + r.i * stride, write, &t, true);
		if (ret)
			return ret;
		run_advance(&r, t);
	}
	if (sum)
		*sum = r.sum;
	return 0;
}

/* ---- zapping ---- */

/* Count the PTEs from @slot that map consecutive pages of @folio. */
int folio_pte_batch(struct folio *folio, unsigned long pfn, pteval_t *slot, int max_nr)
{
	unsigned long end = folio_pfn(folio) + folio_nr_pages(folio);
	int nr = 1;

	if ((unsigned long)max_nr > end - pfn)
		max_nr = (int)(end - pfn);
	while (nr < max_nr) {
		pteval_t v = READ_ONCE(slot[nr]);

		if (!(v & _PAGE_PRESENT) || pte_pfn(v) != pfn + (unsigned long)nr)
			break;
		nr++;
	}
	return nr;
}

/**
 * fl__swapin_pte() - khugepaged's swap-in of the swap entry at @address
 * (__collapse_huge_page_swapin()): do_swap_page() as a read fault would,
 * counted as no fault. @pmdt is the PMD table over @address.
 * Context: mmap_lock held for reading. Return: 0 or VM_FAULT_* bits.
 */
int fl__swapin_pte(struct vm_area_struct *vma, struct pgtable *pmdt, unsigned long address)
{
	struct vm_fault vmf = { .vma = vma, .address = address, .pmdt = pmdt };
	pteval_t pmdv = entry_load(&pmdt->e[pmd_index(address)]), orig;

	if (!entry_is_table(pmdv))
		return 0;
	orig = entry_load(&entry_table(pmdv)->e[pte_index(address)]);
	if (!is_swap_pte(orig))
		return 0;
	vmf.pmd_idx = pmd_index(address);
	vmf.pgoff = linear_page_index(vma, address);
	vmf.orders = thp_vma_allowable_orders(vma, vma->vm_flags, THP_ORDERS_ALL_ANON);
	return do_swap_page(&vmf, orig);
}

/**
 * fl__mm_anon_huge_bytes() - bytes of @mm's anon memory mapped by huge
 * PMDs (smaps' AnonHugePages), the huge zero folio not counted.
 */
unsigned long fl__mm_anon_huge_bytes(struct mm_struct *mm)
{
	unsigned long bytes = 0, addr;
	int i;

	down_read(&mm->mmap_lock);
	for (i = 0; i < mm->nr_vmas; i++) {
		struct vm_area_struct *vma = mm->vmas[i];

		if (!vma_is_anonymous(vma))
			continue;
		for (addr = ALIGN_UP(vma->vm_start, PMD_SIZE); addr + PMD_SIZE <= vma->vm_end;
		     addr += PMD_SIZE) {
			pteval_t v = fl__pmd_entry(mm, addr);

			if (pmd_huge_present(v) && !is_huge_zero_pmd(v))
				bytes += PMD_SIZE;
		}
	}
	up_read(&mm->mmap_lock);
	return bytes;
}

/* ---- fork: copy_page_range() ---- */

/* a private mapping: the model's may all be written (VM_MAYWRITE always set) */
static inline bool is_cow_mapping(unsigned long vm_flags)
{
	return !(vm_flags & VM_SHARED);
}

/*
 * One present PTE of the parent, and @nr - 1 more mapping the following
 * pages of the same folio: the child maps them too (old, read-only in a
 * CoW mapping, clean in a shared one), the folio takes a reference and a
 * mapping per PTE, and a CoW mapping's writable PTEs become read-only in
 * the parent (__copy_present_ptes()).
 */
static void copy_present_ptes(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
			      pteval_t *dst, pteval_t *src, struct folio *folio, struct page *page,
			      int nr)
{
	bool cow = is_cow_mapping(src_vma->vm_flags);
	int i;

	if (folio) {
		folio_ref_add(folio, nr);
		if (folio_test_anon(folio))
			folio_try_dup_anon_rmap_ptes(folio, page, nr, dst_vma);
		else
			folio_dup_file_rmap_ptes(folio, page, nr, dst_vma);
		add_mm_counter(dst_vma->vm_mm, mm_counter(folio), nr);
	}
	for (i = 0; i < nr; i++) {
		pteval_t v = entry_load(&src[i]);

		fl_cost(FL_COST_SET_PTE);
		if (cow && (v & _PAGE_RW)) /* ptep_set_wrprotect(): hardware's A/D bits stay */
			v = fl_atomic_fetch_and(&src[i], ~_PAGE_RW, __ATOMIC_ACQ_REL) & ~_PAGE_RW;
		if (src_vma->vm_flags & VM_SHARED)
			v &= ~_PAGE_DIRTY;
		entry_store(&dst[i], v & ~_PAGE_ACCESSED);
	}
}

/*
 * copy_pte_range() - fork: fill a fresh PTE table for the child from the
 * parent's at @src_pmdt[@idx], for [@addr, @end), then install it. The
 * table is built before it is installed, so nobody sees it half filled
 * and the parent's table lock is the only one held (the kernel holds the
 * child's too). A migration entry in the parent is waited out first: the
 * split that made it would not find the child's copy to restore.
 * Return: 0 or -ENOMEM (a swap slot named by too many PTEs: count
 * continuations are not modelled).
 */
static int copy_pte_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
			  struct pgtable *dst_pmdt, struct pgtable *src_pmdt, int idx,
			  unsigned long addr, unsigned long end)
{
	FL_LOCK_SITE_NAMED(site, "copy_pte_range");
	FL_LOCK_SITE_NAMED(site_install, "pmd_install");
	struct mm_struct *dst_mm = dst_vma->vm_mm;
	int first = pte_index(addr), last = first + (int)((end - addr) >> PAGE_SHIFT);
	struct pgtable *src, *dst = fl__pgtable_alloc(dst_mm, 0);
	int i, ret = 0;

	if (!dst)
		return -ENOMEM;
retry:
	src = pte_offset_map_lock(src_pmdt, idx, &site);
	if (!src)
		goto install; /* no table any more: nothing to copy */
	for (i = first; i < last; i++) {
		pteval_t v = entry_load(&src->e[i]);
		swp_entry_t e;

		if (!v || (v & _PAGE_PRESENT))
			continue;
		e = pte_to_swp_entry(v);
		if (is_migration_entry(e)) {
			migration_entry_wait_on_locked(pfn_swap_entry_folio(e), &src->ptl);
			goto retry;
		}
		if (__swap_count(e) >= SWAP_MAP_MAX) {
			spin_unlock(&src->ptl);
			ret = -ENOMEM;
			goto install;
		}
	}
	for (i = first; i < last;) {
		pteval_t v = entry_load(&src->e[i]);
		unsigned long pfn;
		struct folio *folio;
		int nr = 1;

		if (!v) {
			i++;
			continue;
		}
		if (!(v & _PAGE_PRESENT)) {
			/* a swap entry: one more PTE names the slot, exclusive to nobody */
			swp_entry_t e = pte_to_swp_entry(v);

			swap_duplicate(e);
			if (is_swap_entry_exclusive(e)) {
				v = swp_entry_to_pte(swp_entry_slot(e));
				entry_store(&src->e[i], v);
			}
			entry_store(&dst->e[i], v);
			add_mm_counter(dst_mm, MM_SWAPENTS, 1);
			i++;
			continue;
		}
		pfn = pte_pfn(v);
		folio = (v & _PAGE_SPECIAL) ? NULL : pfn_folio(pfn);
		if (folio && folio_test_large(folio))
			nr = folio_pte_batch(folio, pfn, &src->e[i], last - i);
		copy_present_ptes(dst_vma, src_vma, &dst->e[i], &src->e[i], folio,
				  folio ? pfn_to_page(pfn) : NULL, nr);
		i += nr;
	}
	spin_unlock(&src->ptl);
install:
	fl_spin_lock_at(&dst_pmdt->ptl, &site_install);
	VM_BUG_ON(entry_load(&dst_pmdt->e[idx]));
	entry_store(&dst_pmdt->e[idx], table_entry(dst));
	spin_unlock(&dst_pmdt->ptl);
	return ret;
}

/**
 * copy_page_range() - fork: the child's @dst_vma maps what the parent's
 * @src_vma maps, PMD range by PMD range (huge PMDs by copy_huge_pmd()).
 * Only a VMA with an anon_vma is copied (vma_needs_copy()): file pages
 * the child maps alone fault in.
 * Context: the parent's mmap_lock held for writing; its VMA write-locked.
 * Return: 0 or -ENOMEM.
 */
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	FL_LOCK_SITE_NAMED(site_pud, "__pud_alloc");
	FL_LOCK_SITE_NAMED(site_pmd, "__pmd_alloc");
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	unsigned long addr, next, end = src_vma->vm_end;
	int ret = 0;

	if (!src_vma->anon_vma)
		return 0;
	for (addr = src_vma->vm_start; addr < end && !ret; addr = next) {
		struct pgtable *src_pmdt = walk_pmd_table(src_mm, addr), *pudt, *dst_pmdt;
		int idx = pmd_index(addr);
		pteval_t v;

		next = (addr + PMD_SIZE) & PMD_MASK;
		if (!next || next > end)
			next = end;
		if (!src_pmdt) {
			next = (addr + PUD_SIZE) & ~(PUD_SIZE - 1);
			if (!next || next > end)
				next = end;
			continue;
		}
		v = entry_load(&src_pmdt->e[idx]);
		if (!v)
			continue;
		pudt = table_alloc_slot(dst_mm, &dst_mm->pgd->e[pgd_index(addr)], 2, &site_pud);
		dst_pmdt = pudt ? table_alloc_slot(dst_mm, &pudt->e[pud_index(addr)], 1, &site_pmd)
				: NULL;
		if (!dst_pmdt)
			return -ENOMEM;
		if (pmd_trans_huge(v)) {
			ret = copy_huge_pmd(dst_vma, dst_pmdt, src_pmdt, idx);
			if (ret != -EAGAIN)
				continue;
			ret = 0; /* split meanwhile: a PTE table now */
		}
		ret = copy_pte_range(dst_vma, src_vma, dst_pmdt, src_pmdt, idx, addr, next);
	}
	return ret;
}

/*
 * Free the PTE table at @pmdt[@idx], which maps [@addr, @addr + PMD_SIZE),
 * if it maps nothing (CONFIG_PT_RECLAIM's try_to_free_pte()).
 */
static void try_to_free_pte(struct mmu_gather *tlb, struct pgtable *pmdt, int idx,
			    struct pgtable *ptet, unsigned long addr)
{
	FL_LOCK_SITE(site_pmd);
	FL_LOCK_SITE(site_pte);
	bool freed = false;

	fl_spin_lock_at(&pmdt->ptl, &site_pmd);
	if (entry_load(&pmdt->e[idx]) == table_entry(ptet)) {
		fl_spin_lock_at(&ptet->ptl, &site_pte);
		if (pte_range_none(ptet->e, PTRS_PER_TABLE)) {
			entry_store(&pmdt->e[idx], 0);
			freed = true;
		}
		spin_unlock(&ptet->ptl);
	}
	spin_unlock(&pmdt->ptl);
	if (freed) {
		tlb_remove_table(tlb, ptet, addr);
		count_fl_stat(FL_PT_RECLAIM, 1);
	}
}

/*
 * Whether a zap with @details takes @folio's entries: every one by
 * default (munmap, MADV_DONTNEED); unmap_mapping_range() leaves private
 * (CoW) anon pages alone unless asked (even_cows), and may want one folio
 * only.
 */
static __always_inline bool should_zap_folio(const struct zap_details *details,
					     const struct folio *folio)
{
	if (!details)
		return true;
	if (details->single_folio && folio != details->single_folio)
		return false;
	return details->reclaim_pt || details->even_cows || !folio_test_anon(folio);
}

/*
 * zap_nonpresent_ptes() for one entry, out of the zap's loop: a migration
 * entry's page is the splitter's for now, so only the entry and its rss go;
 * a swap entry's slot count goes (and the slot, if nothing else holds it).
 * Private (CoW) memory is kept unless the caller zaps even that, as its
 * present pages are.
 */
static noinline void zap_nonpresent_pte(const struct zap_details *details, pteval_t *slot,
					pteval_t v, long *rss)
{
	swp_entry_t entry = pte_to_swp_entry(v);

	if (is_migration_entry(entry)) {
		struct folio *folio = pfn_swap_entry_folio(entry);

		if (!should_zap_folio(details, folio))
			return;
		rss[mm_counter(folio)]--;
	} else if (is_swap_entry(entry)) {
		if (details && !details->reclaim_pt && !details->even_cows)
			return;
		rss[MM_SWAPENTS]--;
		free_swap_and_cache_nr(swp_entry_slot(entry), 1);
	}
	fl_cost(FL_COST_ZAP_PTE);
	ptep_get_and_clear(slot);
}

/*
 * Zap [@addr, @end), which lies in the PTE table @pmdt[@pidx] points to.
 * When the mmu_gather fills up, flush it and go on from where the zap
 * stopped (the kernel's retry): the range is still the one the caller
 * gave, so a table the zap empties over a whole PMD is still reclaimed.
 * Return: @end.
 */
static unsigned long zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
				   struct pgtable *pmdt, int pidx, unsigned long addr,
				   unsigned long end, const struct zap_details *details)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm = vma->vm_mm;
	const unsigned long start = addr;
	/* reclaim_pt_is_enabled(): decided once, for the whole range */
	const bool can_reclaim_pt = details && details->reclaim_pt && end - start >= PMD_SIZE;
	struct pgtable *ptet;
	long rss[NR_MM_COUNTERS];
	bool force_flush;
	int i;

retry:
	force_flush = false;
	memset(rss, 0, sizeof(rss));
	ptet = pte_offset_map_lock(pmdt, pidx, &site);
	if (!ptet)
		return end; /* no table: nothing left to zap here */
	do {
		pteval_t *slot = &ptet->e[pte_index(addr)];
		pteval_t v = READ_ONCE(*slot);
		struct folio *folio;
		struct page *page;
		int j, nr;

		if (!v) {
			addr += PAGE_SIZE;
			continue;
		}
		if (unlikely(!(v & _PAGE_PRESENT))) {
			zap_nonpresent_pte(details, slot, v, rss);
			addr += PAGE_SIZE;
			continue;
		}
		if (v & _PAGE_SPECIAL) { /* the zero page */
			fl_cost(FL_COST_ZAP_PTE);
			ptep_get_and_clear(slot);
			tlb_remove_tlb_entries(tlb, addr, 1);
			addr += PAGE_SIZE;
			continue;
		}
		page = pfn_to_page(pte_pfn(v));
		folio = page_folio(page);
		if (!should_zap_folio(details, folio)) {
			addr += PAGE_SIZE;
			continue;
		}
		nr = 1;
		if (folio_test_large(folio))
			nr = folio_pte_batch(folio, pte_pfn(v), slot,
					     (int)((end - addr) >> PAGE_SHIFT));
		fl_cost_n(FL_COST_ZAP_PTE, (uint64_t)nr);
		for (j = 0, v = 0; j < nr; j++)
			v |= ptep_get_and_clear(&slot[j]);
		if (!folio_test_anon(folio)) {
			/* the bits the batch's entries gathered (get_and_clear_full_ptes()) */
			if (v & _PAGE_DIRTY)
				folio_mark_dirty(folio);
			if (v & _PAGE_ACCESSED)
				folio_mark_accessed(folio);
		}
		tlb_remove_tlb_entries(tlb, addr, (unsigned long)nr);
		rss[mm_counter(folio)] -= nr;
		folio_remove_rmap_ptes(folio, page, nr, vma);
		addr += (unsigned long)nr * PAGE_SIZE;
		if (__tlb_remove_folio_pages(tlb, page, (unsigned int)nr, false)) {
			force_flush = true;
			break;
		}
	} while (addr != end);
	for (i = 0; i < NR_MM_COUNTERS; i++)
		if (rss[i])
			add_mm_counter(mm, i, rss[i]);
	spin_unlock(&ptet->ptl);
	if (force_flush) {
		count_fl_stat(FL_TLB_FORCE_FLUSH, 1);
		tlb_flush_mmu(tlb);
	}
	if (addr != end)
		goto retry;
	if (can_reclaim_pt)
		try_to_free_pte(tlb, pmdt, pidx, ptet, start);
	return end;
}

static void zap_pmd_range(struct mmu_gather *tlb, struct vm_area_struct *vma, struct pgtable *pmdt,
			  unsigned long addr, unsigned long end, const struct zap_details *details)
{
	while (addr < end) {
		unsigned long next = ALIGN_DOWN(addr, PMD_SIZE) + PMD_SIZE;
		int idx = pmd_index(addr);
		pteval_t v;

		if (next > end || next == 0)
			next = end;
		v = entry_load(&pmdt->e[idx]);
		if (pmd_trans_huge(v)) {
			if (next - addr == PMD_SIZE && zap_huge_pmd(tlb, vma, pmdt, idx, addr)) {
				addr = next;
				continue;
			}
			if (next - addr != PMD_SIZE)
				__split_huge_pmd(vma, pmdt, idx, ALIGN_DOWN(addr, PMD_SIZE), false,
						 NULL);
			v = entry_load(&pmdt->e[idx]);
		}
		if (entry_is_table(v))
			zap_pte_range(tlb, vma, pmdt, idx, addr, next, details);
		addr = next;
	}
}

/**
 * unmap_page_range() - zap the user pages of @vma in [@addr, @end).
 * Context: the VMA cannot change under us (mmap_lock held).
 */
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end, const struct zap_details *details)
{
	struct mm_struct *mm = vma->vm_mm;

	while (addr < end) {
		unsigned long next = ALIGN_DOWN(addr, PUD_SIZE) + PUD_SIZE;
		struct pgtable *pmdt;

		if (next > end || next == 0)
			next = end;
		pmdt = walk_pmd_table(mm, addr);
		if (pmdt)
			zap_pmd_range(tlb, vma, pmdt, addr, next, details);
		addr = next;
	}
}

/*
 * Zap the file pages [@first, @last] wherever a VMA of @mapping maps them.
 * Context: nothing that would keep the VMAs from changing is needed
 * beyond i_mmap_rwsem, which a VMA split or unlink takes for writing.
 */
static void unmap_mapping_pages(struct address_space *mapping, pgoff_t first, pgoff_t last,
				const struct zap_details *details)
{
	struct mmu_gather tlb;
	struct list_head *pos;

	i_mmap_lock_read(mapping);
	/* not list_for_each_entry(): a VMA is cache-line aligned, the list head is not */
	list_for_each (pos, &mapping->i_mmap) {
		struct vm_area_struct *vma = list_entry(pos, struct vm_area_struct, shared);
		pgoff_t vba = vma->vm_pgoff, vea = vba + vma_pages(vma) - 1;
		unsigned long start, end;

		if (vea < first || vba > last)
			continue;
		start = vma->vm_start + ((first > vba ? first - vba : 0) << PAGE_SHIFT);
		end = vma->vm_start + (((last < vea ? last : vea) - vba + 1) << PAGE_SHIFT);
		tlb_gather_mmu(&tlb, vma->vm_mm, false);
		unmap_page_range(&tlb, vma, start, end, details);
		tlb_finish_mmu(&tlb);
	}
	i_mmap_unlock_read(mapping);
}

/**
 * unmap_mapping_range() - zap every mapping of the file bytes
 * [@holebegin, @holebegin + @holelen) (@holelen 0: to the end), whole
 * pages, in every VMA mapping the file; private CoW copies go too when
 * @even_cows (truncation keeps no copy of a page past the end; a punched
 * hole keeps them).
 */
void unmap_mapping_range(struct address_space *mapping, loff_t holebegin, loff_t holelen,
			 int even_cows)
{
	struct zap_details details = { .even_cows = even_cows != 0 };
	pgoff_t first = (pgoff_t)(holebegin >> PAGE_SHIFT), last = ~0ul;

	if (holelen)
		last = first + (pgoff_t)((holelen + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT) - 1;
	if (!list_empty(&mapping->i_mmap))
		unmap_mapping_pages(mapping, first, last, &details);
}

/** unmap_mapping_folio() - zap every mapping of @folio (locked), and nothing else. */
void unmap_mapping_folio(struct folio *folio)
{
	struct zap_details details = { .single_folio = folio };

	unmap_mapping_pages(folio->mapping, folio->index, folio_next_index(folio) - 1, &details);
}

/*
 * Free the tables under @t (of @level, covering [@base, @base + span))
 * whose whole span lies in [@floor, @ceiling) and that no longer map
 * anything in [@addr, @end).
 */
static void free_table_range(struct mmu_gather *tlb, struct pgtable *t, int level,
			     unsigned long base, unsigned long addr, unsigned long end,
			     unsigned long floor, unsigned long ceiling)
{
	unsigned int shift = PAGE_SHIFT + 9u * (unsigned int)level;
	unsigned long span = 1ul << shift;
	int i;

	for (i = 0; i < PTRS_PER_TABLE; i++) {
		unsigned long s = base + (unsigned long)i * span, e = s + span;
		pteval_t v;
		struct pgtable *child;

		if (e <= addr || s >= end)
			continue;
		v = entry_load(&t->e[i]);
		if (!entry_is_table(v))
			continue;
		child = entry_table(v);
		if (level > 1)
			free_table_range(tlb, child, level - 1, s, addr, end, floor, ceiling);
		if (s >= floor && e <= ceiling) {
			entry_store(&t->e[i], 0);
			tlb_remove_table(tlb, child, s);
		}
	}
}

/**
 * free_pgtables() - after unmapping [@addr, @end), free the page tables
 * whose span touches no other VMA: [@floor, @ceiling) is the gap between
 * the neighbouring VMAs (@ceiling 0 means the top of the address space).
 */
void free_pgtables(struct mmu_gather *tlb, struct mm_struct *mm, unsigned long addr,
		   unsigned long end, unsigned long floor, unsigned long ceiling)
{
	if (!ceiling)
		ceiling = TASK_SIZE;
	free_table_range(tlb, mm->pgd, 3, 0, addr, end, floor, ceiling);
}
