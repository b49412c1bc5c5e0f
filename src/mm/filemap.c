// SPDX-License-Identifier: GPL-2.0-only
/*
 * filemap.c - the page cache (mm/filemap.c): folio locks, looking folios
 * up by index, taking them out of a file's cache, and walking a range of
 * entries. Adding is shmem's own (shmem_add_to_page_cache()), as only
 * tmpfs files exist in the model.
 *
 * Every XArray walk under a mapping's i_pages lock reports its cost to
 * the model-only counters fl_xa_visit, fl_xa_store and fl_xa_node_alloc
 * (fl__xas_account()).
 *
 * Conventions in this file: lookups hold xa_lock for the walk (the model
 * has no RCU yet, see src/lib/xarray.h), then take a folio reference and
 * check the folio is still at that index, as the kernel's lockless
 * lookups do.
 */
#include "internal.h"
#include "fs.h"
#include "pgtable.h"

static const struct fl_lock_class i_pages_class = { .name = "mapping->i_pages",
						    .rank = FL_RANK_I_PAGES,
						    .kind = FL_LOCK_SPIN };

static const struct fl_lock_class i_mmap_class = { .name = "mapping->i_mmap_rwsem",
						   .rank = FL_RANK_I_MMAP,
						   .kind = FL_LOCK_RWSEM };

/* Return: 0 or -ENOMEM (the rwsem could not be set up). */
int fl__address_space_init(struct address_space *mapping, struct inode *host)
{
	if (fl_rwsem_init(&mapping->i_mmap_rwsem, &i_mmap_class))
		return -ENOMEM;
	INIT_LIST_HEAD(&mapping->i_mmap);
	xa_init_class(&mapping->i_pages, &i_pages_class);
	mapping->nrpages = 0;
	mapping->host = host;
	mapping->min_order = 0;
	mapping->large_folios = true;
	return 0;
}

void fl__address_space_destroy(struct address_space *mapping)
{
	VM_BUG_ON(!list_empty(&mapping->i_mmap));
	xa_destroy(&mapping->i_pages);
	fl_rwsem_destroy(&mapping->i_mmap_rwsem);
}

/** fl__xas_account() - add a walk's visits, stores and node allocations to the counters. */
void fl__xas_account(const struct xa_state *xas)
{
	count_fl_stat(FL_XA_VISIT, (long)xas->xa_visits);
	count_fl_stat(FL_XA_STORE, (long)xas->xa_stores);
	count_fl_stat(FL_XA_NODE_ALLOC, (long)xas->xa_nodes_alloc);
}

/*
 * folio_wait_bit_common() - sleep until PG_locked is clear, then, for
 * @lock, take it. A sleeper sets PG_waiters first, so the unlock that
 * clears PG_locked knows to wake it (the kernel's folio wait queue; here
 * the platform's sleep on the flags word).
 */
static void folio_wait_bit_common(struct folio *folio, bool lock)
{
	unsigned long old = fl_atomic_load(&folio->flags, __ATOMIC_ACQUIRE);

	for (;;) {
		if (!(old & (1ul << PG_locked))) {
			if (!lock)
				return;
			if (!folio_test_set_locked(folio))
				return;
			old = fl_atomic_load(&folio->flags, __ATOMIC_ACQUIRE);
			continue;
		}
		if (!(old & (1ul << PG_waiters)) &&
		    !fl_atomic_cmpxchg(&folio->flags, &old, old | (1ul << PG_waiters), false,
				       __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			continue; /* old was reloaded */
		fl_word_wait(&folio->flags, old | (1ul << PG_waiters));
		old = fl_atomic_load(&folio->flags, __ATOMIC_ACQUIRE);
	}
}

/**
 * migration_entry_wait_on_locked() - a fault found a migration entry of
 * @folio under @ptl: ask to be woken (PG_waiters) while the entry still
 * pins the folio, drop @ptl, and sleep until the folio's flags change
 * (its unlock). One wait, and the folio is not looked at again: by then it
 * may be split, freed and reused (the kernel's function of this name).
 * Context: @ptl held, the entry seen under it; releases @ptl.
 */
void migration_entry_wait_on_locked(struct folio *folio, struct fl_spinlock *ptl)
{
	unsigned long old = fl_atomic_load(&folio->flags, __ATOMIC_ACQUIRE);

	/* the folio is locked while its migration entries exist */
	while ((old & (1ul << PG_locked)) && !(old & (1ul << PG_waiters)) &&
	       !fl_atomic_cmpxchg(&folio->flags, &old, old | (1ul << PG_waiters), false,
				  __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		; /* old was reloaded */
	spin_unlock(ptl);
	if (old & (1ul << PG_locked))
		fl_word_wait(&folio->flags, old | (1ul << PG_waiters));
}

/** folio_lock() - take PG_locked, sleeping while another holds it. */
void folio_lock(struct folio *folio)
{
	if (!folio_trylock(folio))
		folio_wait_bit_common(folio, true);
}

/**
 * folio_wait_locked() - sleep until @folio is unlocked, without taking it
 * (what a fault on a migration entry does while a split holds the folio).
 */
void folio_wait_locked(struct folio *folio)
{
	if (folio_test_locked(folio))
		folio_wait_bit_common(folio, false);
}

/**
 * folio_unlock() - clear PG_locked and, if anyone sleeps on it, clear
 * PG_waiters and wake them all (they take it in turn or sleep again).
 */
void folio_unlock(struct folio *folio)
{
	unsigned long old;

	VM_BUG_ON(!folio_test_locked(folio));
	/* release: what we did under the lock is seen by the next holder */
	old = fl_atomic_fetch_and(&folio->flags, ~(1ul << PG_locked), __ATOMIC_RELEASE);
	if (old & (1ul << PG_waiters)) {
		fl_clear_bit(PG_waiters, &folio->flags);
		fl_word_wake_all(&folio->flags);
	}
}

/**
 * filemap_get_entry() - the folio (with a reference) or value entry at
 * @index, or NULL.
 */
void *filemap_get_entry(struct address_space *mapping, pgoff_t index)
{
	XA_STATE(xas, &mapping->i_pages, index);
	void *entry;

	for (;;) {
		xas_lock(&xas);
		xas_set(&xas, index);
		entry = xas_load(&xas);
		if (entry && !xa_is_value(entry) && !folio_try_get(entry))
			entry = XA_RETRY_ENTRY;
		xas_unlock(&xas);
		fl__xas_account(&xas);
		xas.xa_visits = xas.xa_stores = xas.xa_nodes_alloc = 0;
		if (!xa_is_retry(entry))
			return entry;
	}
}

/**
 * filemap_lock_folio() - the folio at @index, referenced and locked, or
 * NULL; retries if the folio left the mapping while we waited.
 */
struct folio *filemap_lock_folio(struct address_space *mapping, pgoff_t index)
{
	for (;;) {
		struct folio *folio = filemap_get_entry(mapping, index);

		if (!folio || xa_is_value(folio))
			return NULL;
		folio_lock(folio);
		if (folio->mapping == mapping) {
			/* a folio still in this mapping holds the index it was found at */
			VM_BUG_ON(folio->index > index || index >= folio_next_index(folio));
			return folio;
		}
		folio_unlock(folio); /* truncated meanwhile: look again */
		folio_put(folio);
	}
}

static void filemap_unaccount_folio(struct folio *folio, long nr)
{
	lruvec_stat_mod_folio(folio, NR_FILE_PAGES, -nr);
	if (folio_test_swapbacked(folio)) {
		lruvec_stat_mod_folio(folio, NR_SHMEM, -nr);
		if (folio_test_pmd_mappable(folio))
			lruvec_stat_mod_folio(folio, NR_SHMEM_THPS, -nr);
	}
}

/**
 * __filemap_remove_folio() - take @folio out of its mapping's XArray.
 * Context: xa_lock held, folio locked; the caller drops the page-cache
 * references (filemap_free_folio()).
 */
void __filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	long nr = (long)folio_nr_pages(folio);
	XA_STATE(xas, &mapping->i_pages, folio->index);

	xas_set_order(&xas, folio->index, folio_order(folio));
	xas_store(&xas, NULL);
	fl__xas_account(&xas);
	folio->mapping = NULL;
	WRITE_ONCE(mapping->nrpages, mapping->nrpages - (unsigned long)nr);
	filemap_unaccount_folio(folio, nr);
}

/** filemap_remove_folio() - out of the page cache, and its cache references dropped. */
void filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	long nr = (long)folio_nr_pages(folio);

	xa_lock(&mapping->i_pages);
	__filemap_remove_folio(folio);
	xa_unlock(&mapping->i_pages);
	folio_put_refs(folio, (int)nr);
}

/**
 * find_get_entries() - up to a batch of folios, each referenced, that
 * hold indices from *@start to @end (a large folio may begin before
 * *@start or end past @end); *@start moves past the last one.
 * Return: how many.
 */
unsigned int find_get_entries(struct address_space *mapping, pgoff_t *start, pgoff_t end,
			      struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, *start);
	struct folio *folio;
	unsigned int nr;

	folio_batch_init(fbatch);
	xa_lock(&mapping->i_pages);
	while ((folio = xas_find(&xas, end)) != NULL) {
		if (xa_is_value(folio) || !folio_try_get(folio))
			continue;
		if (!folio_batch_add(fbatch, folio))
			break;
	}
	xa_unlock(&mapping->i_pages);
	fl__xas_account(&xas);
	nr = folio_batch_count(fbatch);
	if (nr) {
		folio = fbatch->folios[nr - 1];
		*start = folio_next_index(folio);
	}
	return nr;
}

/* ---- fault-around: map what the cache holds near a fault ---- */

#define MAP_PAGES_MAX 16 /* folios in one fault-around window (FAULT_AROUND_PAGES) */

/*
 * The next folio at or after *@index and not after @end that is
 * uptodate and could be locked without waiting, locked and referenced;
 * *@index moves past it. NULL when there is none.
 */
static struct folio *next_uptodate_folio(struct address_space *mapping, pgoff_t *index, pgoff_t end)
{
	for (;;) {
		XA_STATE(xas, &mapping->i_pages, *index);
		struct folio *folio;

		if (*index > end)
			return NULL;
		xas_lock(&xas);
		folio = xas_find(&xas, end);
		if (folio && !xa_is_value(folio) && !folio_try_get(folio))
			folio = XA_RETRY_ENTRY;
		xas_unlock(&xas);
		fl__xas_account(&xas);
		if (!folio)
			return NULL;
		if (xa_is_retry(folio))
			continue;
		*index = xas.xa_index + 1;
		if (xa_is_value(folio))
			continue;
		if (!folio_trylock(folio)) {
			folio_put(folio);
			continue;
		}
		if (folio->mapping == mapping && folio_test_uptodate(folio)) {
			*index = folio_next_index(folio);
			return folio;
		}
		folio_unlock(folio);
		folio_put(folio);
	}
}

/*
 * Map the none PTEs of @folio's pages [@first, @last] of the file, a run
 * at a time, each page with a reference. Return: VM_FAULT_NOPAGE if the
 * fault address was among them (the access is done), else 0.
 * Context: the PTE table @ptet locked.
 */
static int filemap_map_folio_range(struct vm_fault *vmf, struct folio *folio, pgoff_t first,
				   pgoff_t last, struct pgtable *ptet, long *rss)
{
	struct vm_area_struct *vma = vmf->vma;
	pgoff_t i = first;
	int ret = 0;

	while (i <= last) {
		unsigned long addr = vma->vm_start + ((i - vma->vm_pgoff) << PAGE_SHIFT);
		pteval_t *slot = &ptet->e[pte_index(addr)];
		struct page *page = folio_page(folio, i - folio->index);
		int n = 0;

		while (i + (pgoff_t)n <= last && !READ_ONCE(slot[n]))
			n++;
		if (!n) {
			i++;
			continue;
		}
		folio_ref_add(folio, n);
		set_pte_range(vmf, folio, page, n, addr, slot);
		*rss += n;
		if (vmf->address >= addr &&
		    vmf->address < addr + ((unsigned long)n << PAGE_SHIFT)) {
			vmf_access(vmf, page_to_pfn(page) + ((vmf->address - addr) >> PAGE_SHIFT));
			ret = VM_FAULT_NOPAGE;
		}
		i += (pgoff_t)n;
	}
	return ret;
}

/*
 * A large @folio of @vma's file lies inside @vma and inside the PTE table
 * that maps @addr: fault-around maps it whole (6.18's
 * filemap_map_folio_range(); the file systems here are tmpfs, which may
 * map a folio past i_size).
 */
static bool folio_map_whole(struct vm_area_struct *vma, struct folio *folio, unsigned long addr)
{
	unsigned long start, end;

	if (!folio_test_large(folio) || folio->index < vma->vm_pgoff)
		return false;
	start = vma->vm_start + ((folio->index - vma->vm_pgoff) << PAGE_SHIFT);
	end = start + folio_size(folio);
	return start >= vma->vm_start && end <= vma->vm_end &&
	       (start & PMD_MASK) == (addr & PMD_MASK) &&
	       ((end - 1) & PMD_MASK) == (addr & PMD_MASK);
}

/**
 * filemap_map_pages() - fault-around (vm_ops->map_pages): map the pages
 * of [@start_pgoff, @end_pgoff] (inside the VMA and one PTE table) that
 * the page cache holds uptodate and unlocked, without allocating; a large
 * folio there whole, where it fits the VMA and the table. A
 * PMD-sized folio over an empty PMD is mapped with the PMD (do_set_pmd()).
 * The folios are gathered first and mapped under the PTE lock after (the
 * kernel walks under RCU; the model's XArray lock ranks above the PTE lock).
 * Return: VM_FAULT_NOPAGE if the fault address got mapped, else 0.
 */
int filemap_map_pages(struct vm_fault *vmf, pgoff_t start_pgoff, pgoff_t end_pgoff)
{
	struct vm_area_struct *vma = vmf->vma;
	struct address_space *mapping = vma->vm_file->f_mapping;
	struct folio *folios[MAP_PAGES_MAX];
	loff_t size = READ_ONCE(mapping->host->i_size);
	pgoff_t index = start_pgoff;
	struct pgtable *ptet;
	long rss = 0;
	int i, n = 0, ret = 0, member;

	if (!size)
		return 0;
	if (end_pgoff > (pgoff_t)((size - 1) >> PAGE_SHIFT))
		end_pgoff = (pgoff_t)((size - 1) >> PAGE_SHIFT);
	while (n < MAP_PAGES_MAX && (folios[n] = next_uptodate_folio(mapping, &index, end_pgoff)))
		n++;
	if (!n)
		return 0;
	/* filemap_map_pmd() */
	if (!entry_load(&vmf->pmdt->e[vmf->pmd_idx]) && folio_order(folios[0]) == PMD_ORDER &&
	    !do_set_pmd(vmf, folios[0], folio_page(folios[0], start_pgoff - folios[0]->index))) {
		folio_unlock(folios[0]); /* its reference is the PMD's now */
		for (i = 1; i < n; i++) {
			folio_unlock(folios[i]);
			folio_put(folios[i]);
		}
		return VM_FAULT_NOPAGE;
	}
	member = mm_counter_file(folios[0]);
	fl__vmf_prealloc_install(vmf);
	ptet = fl__vmf_pte_lock(vmf);
	for (i = 0; i < n; i++) {
		struct folio *folio = folios[i];
		pgoff_t first = folio->index;
		pgoff_t last = folio_next_index(folio) - 1;

		/*
		 * 6.18 maps a large folio whole where it lies inside the VMA and
		 * one PTE table (tmpfs also past i_size); others in the window
		 */
		if (!folio_map_whole(vma, folio, vmf->address)) {
			if (first < start_pgoff)
				first = start_pgoff;
			if (last > end_pgoff)
				last = end_pgoff;
		}
		if (ptet)
			ret |= filemap_map_folio_range(vmf, folio, first, last, ptet, &rss);
		folio_unlock(folio);
		folio_put(folio);
	}
	if (ptet) {
		if (rss)
			add_mm_counter(vma->vm_mm, member, rss);
		spin_unlock(&ptet->ptl);
	}
	return ret;
}
