// SPDX-License-Identifier: GPL-2.0-only
/*
 * swap_state.c - freeing what an mmu_gather collected (the freeing half of
 * mm/swap_state.c in the kernel; the swap cache itself comes with swap).
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

static void free_swap_cache(struct folio *folio)
{
	/* no swap cache yet: a folio can never be PG_swapcache */
	VM_BUG_ON(folio_test_swapcache(folio));
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
