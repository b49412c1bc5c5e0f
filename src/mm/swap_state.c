// SPDX-License-Identifier: GPL-2.0-only
/*
 * swap_state.c - the swap cache, and freeing what an mmu_gather collected
 * (mm/swap_state.c in the kernel).
 *
 * The swap cache is 6.18's swap table: each slot names the folio standing
 * for it, a large folio filling its nr slots with the same pointer, under
 * the slot's cluster lock. A folio in it holds nr references from it,
 * PG_swapcache and its first entry in ->swap (the model's ->private), and
 * counts in the node's nr_file_pages (not its memcg's file) and in
 * nr_swapcached. A folio reclaim evicts
 * leaves its shadow in its slots (workingset.c) until they are freed.
 *
 * Swap-in that goes through the cache (a slot more than one swap PTE
 * names, so from fork on) reads ahead: the VMA-based readahead, which
 * 6.18 uses whenever no swap device is rotational (zram is not), reads
 * the swap PTEs around the fault in a window sized by how many of the
 * pages it read last time were used.
 *
 * Entries come from __tlb_remove_folio_pages(): a page pointer, and for a
 * run of pages of one large folio, a second entry holding the run length,
 * which is the number of references the zap dropped from that folio.
 * Freeing goes through folios_put_refs() in batches of FOLIO_BATCH_SIZE.
 * Since 6.9 nothing here drains the lru_add cache.
 *
 * Conventions in this file: @pages is one chunk of a gather batch.
 */
#include "internal.h"
#include "fs.h"
#include "pgtable.h"
#include "swap.h"

/* swap_cache_add_folio() - @folio stands for its slots from @entry (HAS_CACHE set). */
void swap_cache_add_folio(struct folio *folio, swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), off = swp_offset(entry), i;
	struct swap_cluster_info *ci = swap_cluster_lock(si, off);

	for (i = 0; i < nr; i++) {
		VM_BUG_ON(si->table[off + i]);
		WRITE_ONCE(si->table[off + i], folio);
	}
	folio_ref_add(folio, (int)nr);
	folio_set_swapcache(folio);
	folio->private = entry.val;
	swap_cluster_unlock(ci);
	/* nr_file_pages at node level only: a memcg's file leaves the swap cache out */
	mod_node_page_state(folio_pgdat(folio), NR_FILE_PAGES, (long)nr);
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, (long)nr);
}

/*
 * __swap_cache_del_folio() - the slots forget @folio and keep @shadow (0:
 * none); their HAS_CACHE and the cache's references stay for the caller.
 */
void __swap_cache_del_folio(struct folio *folio, unsigned long shadow)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), off = swp_offset(folio_swap_entry(folio, 0)), i;
	struct swap_cluster_info *ci = swap_cluster_lock(si, off);

	for (i = 0; i < nr; i++) {
		VM_BUG_ON(si->table[off + i] != folio);
		WRITE_ONCE(si->table[off + i], NULL);
		si->shadow[off + i] = shadow;
	}
	folio_clear_swapcache(folio);
	folio->private = 0;
	swap_cluster_unlock(ci);
	mod_node_page_state(folio_pgdat(folio), NR_FILE_PAGES, -(long)nr);
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, -(long)nr);
}

/* swap_cache_del_folio() - ... and drop HAS_CACHE and the cache's references. */
void swap_cache_del_folio(struct folio *folio)
{
	swp_entry_t entry = folio_swap_entry(folio, 0);

	__swap_cache_del_folio(folio, 0);
	put_swap_folio(folio, entry);
	folio_ref_sub_and_test(folio, (int)folio_nr_pages(folio));
}

/*
 * swap_cache_replace_split() - the pieces a split made of the swap-cache
 * folio now starting at @folio, up to @end, stand for their own slots
 * (__swap_cache_replace_folio()).
 * Context: their cluster's lock held; the pieces are frozen.
 */
void swap_cache_replace_split(struct folio *folio, struct folio *end)
{
	struct swap_info_struct *si = fl__swap_info;
	struct folio *f;

	for (f = folio; f != end; f = folio_next(f)) {
		unsigned long off = swp_offset(folio_swap_entry(f, 0)), i;

		for (i = 0; i < folio_nr_pages(f); i++)
			WRITE_ONCE(si->table[off + i], f);
	}
}

/* swap_cache_get_folio() - the folio standing for @entry, with a reference, or NULL. */
struct folio *swap_cache_get_folio(swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;
	struct swap_cluster_info *ci = swap_cluster_lock(si, swp_offset(entry));
	struct folio *folio = si->table[swp_offset(entry)];

	if (folio && !folio_try_get(folio))
		folio = NULL;
	swap_cluster_unlock(ci);
	return folio;
}

/* swap_cache_get_shadow() - what an evicted folio left in @entry's slot, or 0 */
unsigned long swap_cache_get_shadow(swp_entry_t entry)
{
	return READ_ONCE(fl__swap_info->shadow[swp_offset(entry)]);
}

/* folio_swapped(): does a swap PTE still name one of @folio's slots? */
static bool folio_swapped(struct folio *folio)
{
	unsigned long nr = folio_nr_pages(folio), i;

	for (i = 0; i < nr; i++)
		if (__swap_count(folio_swap_entry(folio, i)))
			return true;
	return false;
}

/**
 * folio_free_swap() - give up the locked @folio's slots when no swap PTE
 * names them any more: it leaves the swap cache, dirty (its data now
 * lives only in memory).
 * Return: true if it left.
 */
bool folio_free_swap(struct folio *folio)
{
	if (!folio_test_swapcache(folio) || folio_test_writeback(folio) || folio_swapped(folio))
		return false;
	swap_cache_del_folio(folio);
	folio_set_dirty(folio);
	return true;
}

/**
 * __try_to_reclaim_swap() - the slot at @offset is held only by the swap
 * cache: its folio leaves the cache (dirty, as folio_free_swap()) when
 * @flags allow it (TTRS_*), its lock is free, it is not under writeback
 * and none of its slots is named by a swap PTE any more.
 * Return: the folio's pages if it left, minus them if it stayed, 0 if the
 * slot had no folio.
 */
int __try_to_reclaim_swap(struct swap_info_struct *si, unsigned long offset, unsigned long flags)
{
	struct folio *folio;
	unsigned long nr;
	bool reclaim;
	int ret;

	(void)si; /* the model's one device */
again:
	folio = swap_cache_get_folio(swp_entry(0, offset));
	if (!folio)
		return 0;
	nr = folio_nr_pages(folio);
	ret = -(int)nr;
	if (!folio_trylock(folio))
		goto out;
	/* it may have left the cache, or been split, before the lock was had: look again */
	if (!folio_test_swapcache(folio) ||
	    swp_offset(folio_swap_entry(folio, 0)) != ALIGN_DOWN(offset, nr)) {
		folio_unlock(folio);
		folio_put(folio);
		goto again;
	}
	reclaim = (flags & TTRS_ANYWAY) || ((flags & TTRS_UNMAPPED) && !folio_mapped(folio)) ||
		  ((flags & TTRS_FULL) && mem_cgroup_swap_full(folio));
	/* every slot held by the cache alone: no swap PTE names one (folio_free_swap()) */
	if (reclaim && folio_free_swap(folio))
		ret = (int)nr;
	folio_unlock(folio);
out:
	folio_put(folio);
	return ret;
}

/* free_swap_cache() - a zapped swap-cache folio no PTE maps gives its slots up. */
static inline void __free_swap_cache(struct folio *folio)
{
	if (folio_test_swapcache(folio) && !folio_mapped(folio) && folio_trylock(folio)) {
		folio_free_swap(folio);
		folio_unlock(folio);
	}
}

/* ... out of line, for a CoW copy and a collapse (the zap's stays inline) */
void free_swap_cache(struct folio *folio)
{
	__free_swap_cache(folio);
}

void free_pages_and_swap_cache(struct encoded_page **pages, int nr)
{
	struct folio_batch folios;
	unsigned int refs[FOLIO_BATCH_SIZE];
	int i;

	folio_batch_init(&folios);
	for (i = 0; i < nr; i++) {
		struct folio *folio = page_folio(encoded_page_ptr(pages[i]));

		__free_swap_cache(folio);
		refs[folios.nr] = 1;
		if (encoded_page_flags(pages[i]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			refs[folios.nr] = (unsigned int)encoded_nr_pages(pages[++i]);
		if (folio_batch_add(&folios, folio) == 0)
			folios_put_refs(&folios, refs);
	}
	if (folios.nr)
		folios_put_refs(&folios, refs);
}

/* ---- swap readahead (VMA-based) ---- */

/*
 * A VMA's swap_readahead_info: the page address of its last readahead
 * fault, the window it chose and the readahead hits since, hits in the low
 * PAGE_SHIFT / 2 bits (so at most 63) and the window in the bits above.
 * A VMA that never read ahead reads as 4 hits, to start with a window.
 */
#define RA_HITS_BITS (PAGE_SHIFT / 2)
#define RA_HITS_MAX ((1ul << RA_HITS_BITS) - 1)
#define RA_WIN_CEILING_ORDER 5

static unsigned long ra_info(unsigned long addr, unsigned long win, unsigned long hits)
{
	return (addr & PAGE_MASK) | ((win << RA_HITS_BITS) & ~PAGE_MASK & ~RA_HITS_MAX) |
	       (hits & RA_HITS_MAX);
}

static unsigned long ra_info_read(struct vm_area_struct *vma)
{
	unsigned long v = fl_atomic_load(&vma->swap_readahead_info, __ATOMIC_RELAXED);

	return v ? v : 4;
}

static unsigned int ra_win(unsigned long v)
{
	return (unsigned int)((v & ~PAGE_MASK) >> RA_HITS_BITS);
}

static unsigned int ra_hits(unsigned long v)
{
	return (unsigned int)(v & RA_HITS_MAX);
}

/**
 * swap_update_readahead() - a swap fault found @folio in the swap cache at
 * @addr: if it was read ahead (PG_readahead, cleared now), count the hit
 * (swap_ra_hit) and the VMA's hits; the VMA's last fault is @addr either
 * way. Large folios are never read ahead.
 */
void swap_update_readahead(struct folio *folio, struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long v;
	unsigned int hits;
	bool readahead;

	if (folio_test_large(folio))
		return;
	readahead = folio_test_clear_readahead(folio);
	v = ra_info_read(vma);
	hits = ra_hits(v);
	if (readahead && hits < RA_HITS_MAX)
		hits++;
	fl_atomic_store(&vma->swap_readahead_info, ra_info(addr, ra_win(v), hits),
			__ATOMIC_RELAXED);
	if (readahead)
		count_vm_event(SWAP_RA_HIT);
}

/*
 * __swapin_nr_pages() - the next window: with no hits, 2 pages if this
 * fault is next to the last one, else 1; with hits, hits + 2 rounded up
 * to a power of two, at least 4; never above @max_pages, and never below
 * half the previous window.
 */
static unsigned int __swapin_nr_pages(unsigned long prev_pfn, unsigned long pfn, unsigned int hits,
				      unsigned int max_pages, unsigned int prev_win)
{
	unsigned int pages;

	if (!hits) {
		pages = (pfn == prev_pfn + 1 || pfn + 1 == prev_pfn) ? 2 : 1;
	} else {
		pages = 4;
		while (pages < hits + 2)
			pages <<= 1;
	}
	if (pages > max_pages)
		pages = max_pages;
	if (pages < prev_win / 2)
		pages = prev_win / 2;
	return pages;
}

/*
 * swap_vma_ra_win() - the window for a fault at vmf->address, recorded in
 * the VMA with its hits reset, and the range [*start, *end) it covers:
 * ahead of the fault when it follows the last one, behind it when it
 * precedes it, else around it (a third before); inside the VMA and the
 * fault's PMD. Return: the window in pages; 1 reads no more than the fault.
 */
static unsigned int swap_vma_ra_win(struct vm_fault *vmf, unsigned long *start, unsigned long *end)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long faddr = vmf->address, v, prev, left, right, pmd = faddr & PMD_MASK;
	int order = READ_ONCE(page_cluster);
	unsigned int win;

	if (order > RA_WIN_CEILING_ORDER)
		order = RA_WIN_CEILING_ORDER;
	if (order == 0)
		return 1;
	v = ra_info_read(vma);
	prev = v & PAGE_MASK;
	win = __swapin_nr_pages(prev >> PAGE_SHIFT, faddr >> PAGE_SHIFT, ra_hits(v), 1u << order,
				ra_win(v));
	fl_atomic_store(&vma->swap_readahead_info, ra_info(faddr, win, 0), __ATOMIC_RELAXED);
	if (win == 1)
		return 1;
	if (faddr == prev + PAGE_SIZE)
		left = faddr;
	else if (prev == faddr + PAGE_SIZE)
		left = faddr - ((unsigned long)(win - 1) << PAGE_SHIFT);
	else
		left = faddr - ((unsigned long)((win - 1) / 2) << PAGE_SHIFT);
	right = left + ((unsigned long)win << PAGE_SHIFT);
	if ((long)left < 0)
		left = 0;
	*start = left;
	if (*start < vma->vm_start)
		*start = vma->vm_start;
	if (*start < pmd)
		*start = pmd;
	*end = right;
	if (*end > vma->vm_end)
		*end = vma->vm_end;
	if (*end > pmd + PMD_SIZE)
		*end = pmd + PMD_SIZE;
	return win;
}

/**
 * __read_swap_cache_async() - the folio for @entry's slot: the one in the
 * swap cache, or a new order-0 one added to it (charged, its refault
 * checked) for the caller to read, locked, with *@new_page_allocated set.
 * NULL when no swap PTE names the slot any more, when another swap-in
 * holds it (the kernel waits a jiffy and looks again; the fault here
 * refaults, readahead skips it), or, with *@oom set, when memory or the
 * charge fails. A new folio goes on the LRU at once, swap-backed but not
 * anon until a fault maps it: reclaim may free it before then.
 */
static struct folio *__read_swap_cache_async(swp_entry_t entry, struct mm_struct *mm,
					     bool *new_page_allocated, bool *oom)
{
	struct folio *folio = swap_cache_get_folio(entry);

	*new_page_allocated = false;
	if (folio)
		return folio;
	if (!__swap_count(entry))
		return NULL;
	folio = folio_alloc(GFP_HIGHUSER_MOVABLE, 0);
	if (!folio) {
		*oom = true;
		return NULL;
	}
	folio_set_locked(folio);
	if (swapcache_prepare(entry, 1)) {
		folio_clear_locked(folio);
		folio_put(folio);
		return NULL;
	}
	if (mem_cgroup_swapin_charge_folio(folio, mm, GFP_KERNEL, entry)) {
		swapcache_clear(entry, 1);
		folio_clear_locked(folio);
		folio_put(folio);
		*oom = true;
		return NULL;
	}
	folio_set_swapbacked(folio);
	workingset_refault(folio, swap_cache_get_shadow(entry));
	swap_cache_add_folio(folio, entry);
	folio_add_lru(folio);
	*new_page_allocated = true;
	return folio;
}

/* The fault's own slot, read if nothing read it yet; unlocked. */
static struct folio *read_target(swp_entry_t entry, struct mm_struct *mm, bool *oom)
{
	bool allocated;
	struct folio *folio = __read_swap_cache_async(entry, mm, &allocated, oom);

	if (allocated) {
		swap_read_folio(folio, entry);
		folio_unlock(folio);
	}
	return folio;
}

/**
 * swapin_readahead() - swap in @entry's slot for the fault @vmf, and with
 * it the window swap_vma_ra_win() chose: every swap PTE there whose slot
 * is not cached yet is read into the swap cache; those beside the fault
 * are marked PG_readahead and counted (swap_ra). The kernel reads the PTEs
 * without their lock; here they are copied out under it.
 * Return: the fault's folio with a reference, unlocked; NULL if it could
 * not be had (*@oom says whether for want of memory).
 */
struct folio *swapin_readahead(swp_entry_t entry, struct vm_fault *vmf, bool *oom)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm = vmf->vma->vm_mm;
	swp_entry_t ents[1 << RA_WIN_CEILING_ORDER];
	unsigned long addrs[1 << RA_WIN_CEILING_ORDER], start = 0, end = 0, addr;
	struct pgtable *ptet;
	struct folio *folio;
	int n = 0, i;
	bool allocated;

	*oom = false;
	if (swap_vma_ra_win(vmf, &start, &end) == 1)
		return read_target(entry, mm, oom);
	ptet = pte_offset_map_lock(vmf->pmdt, vmf->pmd_idx, &site);
	if (ptet) {
		for (addr = start; addr < end; addr += PAGE_SIZE) {
			pteval_t pte = READ_ONCE(ptet->e[pte_index(addr)]);
			swp_entry_t e;

			if (!is_swap_pte(pte))
				continue;
			e = pte_to_swp_entry(pte);
			if (!is_swap_entry(e))
				continue; /* a migration entry */
			ents[n] = swp_entry_slot(e);
			addrs[n++] = addr;
		}
		spin_unlock(&ptet->ptl);
	}
	for (i = 0; i < n; i++) {
		bool ra_oom = false;

		folio = __read_swap_cache_async(ents[i], mm, &allocated, &ra_oom);
		if (!folio)
			continue;
		if (allocated) {
			swap_read_folio(folio, ents[i]);
			if (addrs[i] != vmf->address) {
				folio_set_readahead(folio);
				count_vm_event(SWAP_RA);
			}
			folio_unlock(folio);
		}
		folio_put(folio);
	}
	lru_add_drain(); /* what it read is on the LRU now */
	return read_target(entry, mm, oom);
}
