// SPDX-License-Identifier: GPL-2.0-only
/*
 * swap_state.c - the swap cache, and freeing what an mmu_gather collected
 * (mm/swap_state.c in the kernel).
 *
 * The swap cache is 6.18's swap table: each slot names the folio standing
 * for it, a large folio filling its nr slots with the same pointer, under
 * the slot's cluster lock. A folio in it holds nr references from it,
 * PG_swapcache and its first entry in ->swap (the model's ->private), and
 * counts in nr_file_pages and nr_swapcached. A folio reclaim evicts
 * leaves its shadow in its slots (workingset.c) until they are freed.
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
	lruvec_stat_mod_folio(folio, NR_FILE_PAGES, (long)nr);
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
	lruvec_stat_mod_folio(folio, NR_FILE_PAGES, -(long)nr);
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

/*
 * try_to_reclaim_swap() - the slot of @entry is only cached: free the
 * folio's swap if it is unmapped and its lock is free.
 */
void try_to_reclaim_swap(swp_entry_t entry)
{
	struct folio *folio = swap_cache_get_folio(entry);

	if (!folio)
		return;
	if (folio_trylock(folio)) {
		if (!folio_mapped(folio))
			folio_free_swap(folio);
		folio_unlock(folio);
	}
	folio_put(folio);
}

/* free_swap_cache() - a zapped swap-cache folio no PTE maps gives its slots up. */
static void free_swap_cache(struct folio *folio)
{
	if (folio_test_swapcache(folio) && !folio_mapped(folio) && folio_trylock(folio)) {
		folio_free_swap(folio);
		folio_unlock(folio);
	}
}

void free_pages_and_swap_cache(struct encoded_page **pages, int nr)
{
	struct folio_batch folios;
	unsigned int refs[FOLIO_BATCH_SIZE];
	int i;

	folio_batch_init(&folios);
	for (i = 0; i < nr; i++) {
		struct folio *folio = page_folio(encoded_page_ptr(pages[i]));

		free_swap_cache(folio);
		refs[folios.nr] = 1;
		if (encoded_page_flags(pages[i]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			refs[folios.nr] = (unsigned int)encoded_nr_pages(pages[++i]);
		if (folio_batch_add(&folios, folio) == 0)
			folios_put_refs(&folios, refs);
	}
	if (folios.nr)
		folios_put_refs(&folios, refs);
}
