// SPDX-License-Identifier: GPL-2.0-only
/*
 * truncate.c - taking folios out of a file (mm/truncate.c): a whole folio,
 * or the part of a large folio a truncation or hole covers, which 6.18
 * zeroes and then splits non-uniformly at the range's first page (and, if
 * that worked, at the page after the range) so the pieces inside the
 * range can go.
 *
 * Conventions in this file: @start and @end are byte offsets, @end
 * inclusive, as the kernel's lstart and lend; content is a tag per page,
 * and zeroing clears the tags of the pages the range covers whole (the
 * model keeps no bytes, so a partly zeroed page keeps its tag).
 */
#include "internal.h"
#include "fs.h"

/* Zero the pages of @folio that [@offset, @offset + @length) covers whole. */
static void folio_zero_range(struct folio *folio, size_t offset, size_t length)
{
	unsigned long first = (offset + PAGE_SIZE - 1) >> PAGE_SHIFT;
	unsigned long end = (offset + length) >> PAGE_SHIFT, i;

	for (i = first; i < end; i++)
		page_tag_set(folio_pfn(folio) + i, 0);
}

/**
 * truncate_inode_folio() - remove @folio from @mapping and drop the
 * cache's references, after zapping whatever still maps it (a racing
 * fault, or a range unmap_mapping_range() did not cover).
 * Context: folio locked.
 */
void truncate_inode_folio(struct address_space *mapping, struct folio *folio)
{
	if (folio->mapping != mapping)
		return;
	if (folio_mapped(folio))
		unmap_mapping_folio(folio);
	filemap_remove_folio(folio);
}

/**
 * truncate_inode_partial_folio() - the part of @folio inside [@start,
 * @end]: the whole folio goes; otherwise zero that part and, for a large
 * folio, split it at the part's first page (and then at the page after
 * the part) so the pieces wholly inside can be truncated by the caller.
 * Context: folio locked and referenced.
 * Return: false when a large folio could not be split and is dirty (the
 * caller must keep it), true otherwise.
 */
bool truncate_inode_partial_folio(struct folio *folio, loff_t start, loff_t end)
{
	loff_t pos = folio_pos(folio);
	size_t size = folio_size(folio), offset, length;
	unsigned int min_order;
	struct page *split_at, *split_at2;
	struct folio *folio2;

	offset = pos < start ? (size_t)(start - pos) : 0;
	if (pos + (loff_t)size <= end)
		length = size - offset;
	else
		length = (size_t)(end + 1 - pos) - offset;
	if (length == size) {
		truncate_inode_folio(folio->mapping, folio);
		return true;
	}
	folio_zero_range(folio, offset, length);
	if (!folio_test_large(folio))
		return true;
	min_order = ((struct address_space *)folio->mapping)->min_order;
	split_at = folio_page(folio, offset / PAGE_SIZE);
	if (!try_folio_split_to_order(folio, split_at, min_order)) {
		/* now the page after the range, so the range's pieces can go */
		if (offset + length == size)
			return true;
		split_at2 = folio_page(folio, (offset + length) / PAGE_SIZE);
		folio2 = page_folio(split_at2);
		if (!folio_try_get(folio2))
			return true;
		if (folio_test_large(folio2) && folio_trylock(folio2)) {
			if (folio_test_large(folio2) && folio2->mapping == folio->mapping)
				try_folio_split_to_order(folio2, split_at2, min_order);
			folio_unlock(folio2);
		}
		folio_put(folio2);
		return true;
	}
	if (folio_test_dirty(folio))
		return false;
	truncate_inode_folio(folio->mapping, folio);
	return true;
}
