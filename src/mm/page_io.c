// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_io.c - writing a swap-cache folio to its slots and reading slots
 * into a folio (mm/page_io.c in the kernel), on the model's zram disk,
 * which is synchronous: a write is complete when swap_writeout() returns.
 *
 * The counters are the kernel's: swpout_zero and swpin_zero for the
 * zeromap, otherwise pswpout/pswpin per page, the per-size swpout/swpin
 * per folio, thp_swpout per PMD-sized folio; pgpgout/pgpgin in KiB (the
 * block layer's), nr_written when the write completes. A write zram
 * cannot store (its pool could not grow) fails whole: the folio stays
 * dirty and in the swap cache.
 *
 * Conventions in this file: @folio is locked.
 */
#include "internal.h"
#include "fs.h"
#include "swap.h"

static void count_swpout_vm_event(struct folio *folio)
{
	long nr = (long)folio_nr_pages(folio);

	if (folio_order(folio) == PMD_ORDER) {
		count_memcg_folio_events(folio, THP_SWPOUT, 1);
		count_vm_event(THP_SWPOUT);
	}
	count_mthp_stat((int)folio_order(folio), MTHP_STAT_SWPOUT);
	count_memcg_folio_events(folio, PSWPOUT, (unsigned long)nr);
	count_vm_events(PSWPOUT, (unsigned long)nr);
}

/* is_folio_zero_filled(): every page of @folio all zero (the model: tag 0) */
static bool is_folio_zero_filled(struct folio *folio)
{
	unsigned long nr = folio_nr_pages(folio), pfn = folio_pfn(folio), i;

	for (i = 0; i < nr; i++)
		if (page_tag(pfn + i))
			return false;
	return true;
}

/**
 * swap_writeout() - write the dirty swap-cache @folio out: nothing when
 * its swap can be freed instead, the zeromap for an all-zero folio,
 * otherwise zram, page by page. The folio comes back clean, unlocked
 * and not under writeback.
 * Return: 0.
 */
int swap_writeout(struct folio *folio)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), pfn = folio_pfn(folio), i;
	unsigned long off = swp_offset(folio_swap_entry(folio, 0));

	if (folio_free_swap(folio)) {
		folio_unlock(folio);
		return 0;
	}
	folio_clear_dirty(folio);
	if (is_folio_zero_filled(folio)) {
		/* the zeromap; an older copy in zram stays until the slot is freed */
		for (i = 0; i < nr; i++)
			WRITE_ONCE(si->slot_flags[off + i],
				   (unsigned char)(si->slot_flags[off + i] | SLOT_ZERO));
		count_vm_events(SWPOUT_ZERO, nr);
		count_memcg_folio_events(folio, SWPOUT_ZERO, nr);
		folio_unlock(folio);
		return 0;
	}
	folio_set_writeback(folio);
	count_swpout_vm_event(folio);
	count_vm_events(PGPGOUT, nr * (PAGE_SIZE / 1024)); /* submit_bio() */
	for (i = 0; i < nr; i++) {
		WRITE_ONCE(si->slot_flags[off + i],
			   (unsigned char)(si->slot_flags[off + i] & ~SLOT_ZERO));
		fl_cost(FL_COST_COPY_PAGE); /* zram reads the page (compression: no cost yet) */
		if (zram_write_page(si, off + i, page_tag(pfn + i)))
			break;
	}
	if (i < nr) {
		/* the bio failed: what was stored goes, the folio stays dirty */
		while (i--)
			zram_free_page(si, off + i);
		folio_mark_dirty(folio);
	}
	/* a synchronous write completes here: folio_end_writeback() */
	folio_clear_reclaim(folio);
	folio_clear_writeback(folio);
	mod_node_page_state(folio_pgdat(folio), NR_WRITTEN, (long)nr);
	folio_unlock(folio);
	return 0;
}

/**
 * swap_read_folio() - fill @folio's pages from the slots at @entry: from
 * the zeromap (swpin_zero) or from zram (swpin, pswpin).
 */
void swap_read_folio(struct folio *folio, swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long nr = folio_nr_pages(folio), pfn = folio_pfn(folio), i;
	unsigned long off = swp_offset(entry);
	bool zero;

	if (swap_zeromap_uniform(entry, (int)nr, &zero) && zero) {
		for (i = 0; i < nr; i++)
			page_tag_set(pfn + i, 0);
		count_vm_events(SWPIN_ZERO, nr);
		count_memcg_folio_events(folio, SWPIN_ZERO, nr);
		folio_set_uptodate(folio);
		return;
	}
	for (i = 0; i < nr; i++) {
		VM_BUG_ON(!(si->slot_flags[off + i] & (SLOT_STORED | SLOT_ZERO)));
		page_tag_set(pfn + i, si->slot_tag[off + i]);
		fl_cost(FL_COST_COPY_PAGE); /* zram fills the page (no decompression cost yet) */
	}
	count_mthp_stat((int)folio_order(folio), MTHP_STAT_SWPIN);
	count_memcg_folio_events(folio, PSWPIN, nr);
	count_vm_events(PSWPIN, nr);
	count_vm_events(PGPGIN, nr * (PAGE_SIZE / 1024));
	folio_set_uptodate(folio);
}
