/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * folio.h - folio and page helpers: flags, order, references, mapcounts,
 * neighbours (include/linux/mm.h, page-flags.h, page_ref.h in the kernel).
 *
 * Conventions in this file: folio_set_X()/folio_clear_X() are atomic bit
 * operations; the __folio_set_X() forms are for folios nobody else can see
 * yet (relaxed load and store). Reference counts are atomic ints; mapcounts
 * are 0-based.
 */
#ifndef FL_MM_FOLIO_H
#define FL_MM_FOLIO_H

#include "mm_types.h"

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline struct page *compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (head & 1)
		return (struct page *)(head - 1);
	return (struct page *)page;
}

#define page_folio(p) ((struct folio *)compound_head(p))

/* A tail page of a large folio (its compound_head points at the head) */
static inline bool PageTail(const struct page *page)
{
	return READ_ONCE(page->compound_head) & 1;
}
#define folio_page(f, n) (&((struct page *)(f))[(n)])

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn((const struct page *)folio);
}

static inline struct folio *pfn_folio(unsigned long pfn)
{
	return page_folio(pfn_to_page(pfn));
}

/* ---- flags ---- */
static inline bool fl_test_bit(int nr, const unsigned long *w)
{
	return (READ_ONCE(*w) >> nr) & 1;
}

static inline void fl_set_bit(int nr, unsigned long *w)
{
	fl_atomic_fetch_or(w, 1ul << nr, __ATOMIC_RELAXED);
}

static inline void fl_clear_bit(int nr, unsigned long *w)
{
	fl_atomic_fetch_and(w, ~(1ul << nr), __ATOMIC_RELAXED);
}

static inline bool fl_test_and_clear_bit(int nr, unsigned long *w)
{
	/* acq_rel: winning PG_lru hands the folio's list links to us */
	return (fl_atomic_fetch_and(w, ~(1ul << nr), __ATOMIC_ACQ_REL) >> nr) & 1;
}

static inline bool fl_test_and_set_bit(int nr, unsigned long *w)
{
	return (fl_atomic_fetch_or(w, 1ul << nr, __ATOMIC_ACQ_REL) >> nr) & 1;
}

static inline void fl___set_bit(int nr, unsigned long *w)
{
	WRITE_ONCE(*w, READ_ONCE(*w) | (1ul << nr));
}

static inline void fl___clear_bit(int nr, unsigned long *w)
{
	WRITE_ONCE(*w, READ_ONCE(*w) & ~(1ul << nr));
}

#define FOLIO_FLAG(name, bit)                                                                      \
	static inline bool folio_test_##name(const struct folio *f)                                \
	{                                                                                          \
		return fl_test_bit(bit, &f->flags);                                                \
	}                                                                                          \
	static inline void folio_set_##name(struct folio *f)                                       \
	{                                                                                          \
		fl_set_bit(bit, &f->flags);                                                        \
	}                                                                                          \
	static inline void folio_clear_##name(struct folio *f)                                     \
	{                                                                                          \
		fl_clear_bit(bit, &f->flags);                                                      \
	}                                                                                          \
	static inline void __folio_set_##name(struct folio *f)                                     \
	{                                                                                          \
		fl___set_bit(bit, &f->flags);                                                      \
	}                                                                                          \
	static inline void __folio_clear_##name(struct folio *f)                                   \
	{                                                                                          \
		fl___clear_bit(bit, &f->flags);                                                    \
	}                                                                                          \
	static inline bool folio_test_clear_##name(struct folio *f)                                \
	{                                                                                          \
		return fl_test_and_clear_bit(bit, &f->flags);                                      \
	}                                                                                          \
	static inline bool folio_test_set_##name(struct folio *f)                                  \
	{                                                                                          \
		return fl_test_and_set_bit(bit, &f->flags);                                        \
	}

FOLIO_FLAG(locked, PG_locked)
FOLIO_FLAG(writeback, PG_writeback)
FOLIO_FLAG(referenced, PG_referenced)
FOLIO_FLAG(uptodate, PG_uptodate)
FOLIO_FLAG(dirty, PG_dirty)
FOLIO_FLAG(lru, PG_lru)
FOLIO_FLAG(active, PG_active)
FOLIO_FLAG(workingset, PG_workingset)
FOLIO_FLAG(private, PG_private)
FOLIO_FLAG(reclaim, PG_reclaim)
/* PG_readahead is PG_reclaim's bit in the kernel too: a swap-cache folio read ahead, not yet hit */
FOLIO_FLAG(readahead, PG_reclaim)
FOLIO_FLAG(swapbacked, PG_swapbacked)
FOLIO_FLAG(unevictable, PG_unevictable)
FOLIO_FLAG(dropbehind, PG_dropbehind)
FOLIO_FLAG(mlocked, PG_mlocked)
FOLIO_FLAG(swapcache, PG_swapcache)
FOLIO_FLAG(young, PG_young)
FOLIO_FLAG(idle, PG_idle)
FOLIO_FLAG(anon, PG_anon)

static inline bool folio_test_large(const struct folio *f)
{
	return fl_test_bit(PG_head, &f->flags);
}

static inline unsigned int folio_order(const struct folio *f)
{
	if (!folio_test_large(f))
		return 0;
	return (unsigned int)(READ_ONCE(f->_flags_1) & 0xff);
}

static inline unsigned long folio_nr_pages(const struct folio *f)
{
	return 1ul << folio_order(f);
}

static inline bool folio_test_partially_mapped(const struct folio *f)
{
	return folio_test_large(f) && fl_test_bit(PG_partially_mapped, &f->_flags_1);
}

/* lazy-free: anon memory whose owner said it may be dropped (MADV_FREE) */
static inline bool folio_test_lazyfree(const struct folio *f)
{
	return folio_test_anon(f) && !folio_test_swapbacked(f);
}

static inline bool PageAnonExclusive(const struct page *p)
{
	return fl_test_bit(PG_anon_exclusive, &p->flags);
}

static inline int folio_nid(const struct folio *f)
{
	return (int)((READ_ONCE(f->flags) & NODES_MASK) >> NODES_PGSHIFT);
}

static inline int page_to_nid(const struct page *p)
{
	return folio_nid((const struct folio *)compound_head(p));
}

static inline struct zone *folio_zone(const struct folio *f)
{
	return &NODE_DATA(folio_nid(f))->node_zones[0];
}

static inline struct pglist_data *folio_pgdat(const struct folio *f)
{
	return NODE_DATA(folio_nid(f));
}

/* ---- references ---- */
static inline int folio_ref_count(const struct folio *f)
{
	return fl_atomic_load(&f->_refcount, __ATOMIC_RELAXED);
}

static inline void folio_ref_add(struct folio *f, int nr)
{
	fl_atomic_fetch_add(&f->_refcount, nr, __ATOMIC_RELAXED);
}

static inline void folio_get(struct folio *f)
{
	VM_BUG_ON(folio_ref_count(f) <= 0);
	folio_ref_add(f, 1);
}

/* acq_rel: the last put sees every earlier user's writes before freeing */
static inline bool folio_ref_sub_and_test(struct folio *f, int nr)
{
	return fl_atomic_sub_fetch(&f->_refcount, nr, __ATOMIC_ACQ_REL) == 0;
}

static inline bool folio_put_testzero(struct folio *f)
{
	VM_BUG_ON(folio_ref_count(f) <= 0);
	return folio_ref_sub_and_test(f, 1);
}

/* folio_ref_freeze() - drop the count from @count to 0 if nobody else holds it */
static inline bool folio_ref_freeze(struct folio *f, int count)
{
	int expected = count;

	return fl_atomic_cmpxchg(&f->_refcount, &expected, 0, false, __ATOMIC_ACQUIRE,
				 __ATOMIC_RELAXED);
}

static inline void folio_ref_unfreeze(struct folio *f, int count)
{
	fl_atomic_store(&f->_refcount, count, __ATOMIC_RELEASE);
}

static inline bool folio_try_get(struct folio *f)
{
	int c = folio_ref_count(f);

	do {
		if (c == 0)
			return false;
	} while (!fl_atomic_cmpxchg(&f->_refcount, &c, c + 1, true, __ATOMIC_ACQUIRE,
				    __ATOMIC_RELAXED));
	return true;
}

void __folio_put(struct folio *f);

static inline void folio_put(struct folio *f)
{
	if (folio_put_testzero(f))
		__folio_put(f);
}

static inline void folio_put_refs(struct folio *f, int refs)
{
	if (folio_ref_sub_and_test(f, refs))
		__folio_put(f);
}

/*
 * prep_compound_head() - the fields a large folio keeps in its second and
 * third pages, for a fresh folio of @order (an allocation, or a piece a
 * split makes): unmapped, unpinned, off the deferred split queue.
 */
static inline void prep_compound_head(struct folio *folio, unsigned int order)
{
	/* the flags words of pages 1 and 2: pfn walkers (compaction, claims) read them */
	WRITE_ONCE(folio->_flags_1, order);
	folio->_large_mapcount = 0;
	folio->_entire_mapcount = 0;
	folio->_nr_pages_mapped = 0;
	folio->_folio_nr_pages = 1u << order;
	folio->_pincount = 0;
	folio->_mm_ids = 0;
	folio->_mm_id_mapcount[0] = 0;
	folio->_mm_id_mapcount[1] = 0;
	if (order >= 2) {
		WRITE_ONCE(folio->_flags_2, 0ul);
		INIT_LIST_HEAD(&folio->_deferred_list);
	}
}

/* ---- mapcounts ---- */
static inline int folio_large_mapcount(const struct folio *f)
{
	return fl_atomic_load(&f->_large_mapcount, __ATOMIC_RELAXED);
}

/* CONFIG_MM_ID: the mm id in slot @slot (0 or 1) of a large folio, MM_ID_DUMMY if free */
static inline unsigned int folio_mm_id(const struct folio *f, int slot)
{
	return (unsigned int)((READ_ONCE(f->_mm_ids) >> (slot * FOLIO_MM_ID_BITS)) &
			      FOLIO_MM_ID_MASK);
}

/* more than one mm may map the large folio @f */
static inline bool folio_test_large_maybe_mapped_shared(const struct folio *f)
{
	return READ_ONCE(f->_mm_ids) & FOLIO_MM_IDS_SHARED_BIT;
}

static inline int folio_entire_mapcount(const struct folio *f)
{
	return fl_atomic_load(&f->_entire_mapcount, __ATOMIC_RELAXED);
}

static inline int folio_mapcount(const struct folio *f)
{
	if (folio_test_large(f))
		return folio_large_mapcount(f);
	return fl_atomic_load(&f->_mapcount, __ATOMIC_RELAXED);
}

static inline bool folio_mapped(const struct folio *f)
{
	return folio_mapcount(f) > 0;
}

/*
 * folio_maybe_mapped_shared() - more than one mm may map @f (6.15+,
 * include/linux/mm.h): a small folio mapped more than once, a large one
 * with the MM_IDS shared bit set.
 */
static inline bool folio_maybe_mapped_shared(const struct folio *f)
{
	if (!folio_test_large(f))
		return folio_mapcount(f) > 1;
	return folio_test_large_maybe_mapped_shared(f);
}

/*
 * folio_expected_ref_count() - references the folio's mappings and caches
 * account for; a caller adds its own.
 */
static inline int folio_expected_ref_count(const struct folio *f)
{
	int order = (int)folio_order(f);
	int ref = 0;

	if (folio_test_swapcache(f))
		ref += 1 << order;
	if (!folio_test_anon(f)) {
		if (f->mapping)
			ref += 1 << order;
		if (folio_test_private(f))
			ref += 1;
	}
	return ref + folio_mapcount(f);
}

/* ---- neighbours ---- */
/**
 * folio_next() - the folio that follows @f in memory.
 * Context: the frames after @f must belong to a folio (as during a split).
 */
static inline struct folio *folio_next(struct folio *f)
{
	return (struct folio *)folio_page(f, folio_nr_pages(f));
}

/**
 * folio_prev() - the folio that ends just before @f in memory (thread 2).
 * The page before @f is a tail or head of the previous folio; its
 * compound_head finds that folio's head.
 * Context: the frame before @f must belong to a folio (as during a split).
 */
static inline struct folio *folio_prev(struct folio *f)
{
	return page_folio((struct page *)f - 1);
}

/* ---- content tags ---- */
static inline uint64_t page_tag(unsigned long pfn)
{
	return fl_atomic_load(&fl__page_tags[pfn], __ATOMIC_RELAXED);
}

static inline void page_tag_set(unsigned long pfn, uint64_t tag)
{
	fl_atomic_store(&fl__page_tags[pfn], tag, __ATOMIC_RELAXED);
}

#endif /* FL_MM_FOLIO_H */
