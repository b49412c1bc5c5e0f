// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_alloc.c - the buddy allocator with per-CPU page lists
 * (mm/page_alloc.c in the kernel).
 *
 * Physical memory is split evenly over the nodes; each node has one zone
 * (ZONE_NORMAL) with free lists for orders 0..MAX_PAGE_ORDER under
 * zone->lock, and each CPU has a per_cpu_pages set per zone holding
 * orders 0..PAGE_ALLOC_COSTLY_ORDER and the PMD order under pcp->lock.
 * Allocation tries the CPU's own node first, then the others in order,
 * each zone only while it stays above a watermark: the low one on the
 * fast path, the min one in the slow path, which then reclaims directly
 * (try_to_free_pages()) and retries while reclaim makes progress or could,
 * and ends in out_of_memory(): no process is killed, the run ends with
 * the report; kswapd (vmscan.c) reclaims ahead of need.
 *
 * Memory that was never handed out stays above zone->frontier_pfn: it is
 * free, counted in free_pages, and its descriptors are never touched, so
 * a simulated machine much larger than the host starts instantly. The
 * buddy allocator carves MAX_PAGE_ORDER blocks off the frontier when its
 * free lists run dry.
 *
 * pcp->high adapts as in the kernel since 6.7: it starts at high_min (the
 * zone's low watermark over its CPUs) and stays within high_max (an eighth
 * of the zone over its CPUs). A refill from the zone raises it by the
 * refill's batch; a free that finds the count at high raises it to hold
 * what was freed in a row plus a batch, and gives back what was freed in
 * a row (free_count, halved by every allocation), at least a batch. Order-0
 * refills double (alloc_factor, up to batch << 5) while allocations
 * follow each other with no free between them. A CPU that keeps freeing
 * high-order pages (order 1..3) without allocating drains up to 32
 * batches at once and lowers its high ("free_high").
 *
 * Pageblocks (2 MiB) are unmovable, movable or reclaimable, with free and
 * pcp lists per type; an allocation falls back to another type's blocks
 * by claiming or stealing (__rmqueue()), a fallback inside a pageblock
 * boosts the watermarks, and compaction (compaction.c) takes free blocks
 * off the lists (__isolate_free_page()). docs/model.md says which rules.
 * Not modelled: ZONE_BELOW_HIGH and ZONE_RECLAIM_ACTIVE, decay of high
 * over time, highatomic reserves, CMA, isolation, lowmem_reserve (one
 * zone), page shuffling.
 *
 * Conventions in this file: @zone is the zone a page belongs to; "block"
 * is a naturally aligned 2^order run of frames; PG_buddy marks the head of
 * a free block and page->private holds its order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "swap.h"

struct pglist_data *fl__node_data[MAX_NUMNODES];
int fl__nr_node_ids;
struct page *mem_map;
uint64_t *fl__page_tags;
unsigned char *fl__pageblock_mt;
unsigned char *fl__pageblock_skip;
unsigned long fl__max_pfn;
unsigned long fl__zero_pfn;
int *fl__cpu_node;
unsigned long fl__fail_page_alloc_orders; /* test hook: orders that fail */

static size_t mem_map_bytes, tags_bytes, lines_bytes, clears_bytes, pageblock_bytes;
struct fl_line_table fl__page_lines;

static const struct fl_lock_class zone_lock_class = { .name = "zone->lock",
						      .rank = FL_RANK_ZONE,
						      .kind = FL_LOCK_SPIN };
static const struct fl_lock_class pcp_lock_class = {
	.percpu = true, .name = "pcp->lock", .rank = FL_RANK_PCP, .kind = FL_LOCK_SPIN
};

static __always_inline void prep_new_page(struct page *page, unsigned int order, gfp_t gfp,
					  int nid);
static __always_inline bool free_pages_prepare(struct page *page, unsigned int order);
static bool __zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark,
				long free_pages, unsigned int alloc_flags);

/* a pcp list per (type, order) up to the costly order; the PMD order's two: movable or not */
static inline int order_to_pindex(int mt, unsigned int order)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		return NR_LOWORDER_PCP_LISTS + (mt == MIGRATE_MOVABLE);
	return MIGRATE_PCPTYPES * (int)order + mt;
}

static inline unsigned int pindex_to_order(int pindex)
{
	return pindex >= NR_LOWORDER_PCP_LISTS ? HPAGE_PMD_ORDER
					       : (unsigned int)(pindex / MIGRATE_PCPTYPES);
}

static inline bool pcp_allowed_order(unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER || order == HPAGE_PMD_ORDER;
}

static inline struct zone *page_zone(const struct page *page)
{
	return &NODE_DATA(folio_nid((const struct folio *)page))->node_zones[0];
}

static inline bool page_is_buddy(const struct page *page, unsigned int order)
{
	/* racy by design, as in the kernel: the zone lock guards only free pages */
	return fl_test_bit(PG_buddy, &page->flags) && READ_ONCE(page->private) == order;
}

static inline void set_buddy_order(struct page *page, unsigned int order, int nid)
{
	WRITE_ONCE(page->flags, ((unsigned long)nid << NODES_PGSHIFT) | (1ul << PG_buddy));
	WRITE_ONCE(page->private, (unsigned long)order);
}

/* get_pfnblock_migratetype(): the type of the pageblock that holds @pfn */
static inline int get_pfnblock_migratetype(unsigned long pfn)
{
	return READ_ONCE(fl__pageblock_mt[pfn >> pageblock_order]);
}

static inline void set_pageblock_migratetype(unsigned long pfn, int mt)
{
	WRITE_ONCE(fl__pageblock_mt[pfn >> pageblock_order], (unsigned char)mt);
}

/* zone->lock held: the boost, and the watermarks that include it */
static void set_watermark_boost(struct zone *zone, unsigned long boost)
{
	int i;

	WRITE_ONCE(zone->watermark_boost, boost);
	for (i = 0; i < NR_WMARK; i++)
		WRITE_ONCE(zone->wmark[i], zone->_watermark[i] + boost);
}

/* zone_unboost(): kswapd reclaimed for @boost of the zone's boost */
void zone_unboost(struct zone *zone, unsigned long boost)
{
	spin_lock(&zone->lock);
	set_watermark_boost(zone, zone->watermark_boost - fl_min_ul(zone->watermark_boost, boost));
	spin_unlock(&zone->lock);
}

/* change_pageblock_range(): every pageblock of a 2^@order block (order >= pageblock_order) */
static void change_pageblock_range(unsigned long pfn, unsigned int order, int mt)
{
	unsigned long i;

	for (i = 0; i < 1ul << (order - pageblock_order); i++)
		set_pageblock_migratetype(pfn + i * pageblock_nr_pages, mt);
}

/* A free block sits on the list of its pageblock's type; at the tail it is taken last. */
static inline void add_to_free_list(struct page *page, struct zone *zone, unsigned int order,
				    int mt, bool tail)
{
	struct list_head *list = &zone->free_area[order].free_list[mt];

	if (tail)
		list_add_tail(&page->lru, list);
	else
		list_add(&page->lru, list);
	WRITE_ONCE(zone->free_area[order].nr_free, zone->free_area[order].nr_free + 1);
}

static inline void del_page_from_free_list(struct page *page, struct zone *zone, unsigned int order)
{
	list_del(&page->lru);
	WRITE_ONCE(page->flags, page->flags & ~(1ul << PG_buddy));
	WRITE_ONCE(page->private, 0ul);
	WRITE_ONCE(zone->free_area[order].nr_free, zone->free_area[order].nr_free - 1);
}

/* Split a 2^high block down to 2^low, returning the upper halves to @mt's lists. */
static void expand(struct zone *zone, struct page *page, unsigned int low, unsigned int high,
		   int mt)
{
	int nid = zone->zone_pgdat->node_id;

	while (high > low) {
		struct page *half;

		high--;
		half = page + (1ul << high);
		set_buddy_order(half, high, nid);
		add_to_free_list(half, zone, high, mt, false);
	}
}

/*
 * get_page_from_free_area() - the first free block of @order on @mt's
 * list. Never-touched memory is the tail of the movable max-order list:
 * when that list is empty, a block comes off the frontier onto it.
 */
static struct page *get_page_from_free_area(struct zone *zone, unsigned int order, int mt)
{
	struct list_head *list = &zone->free_area[order].free_list[mt];
	struct page *page;

	if (likely(!list_empty(list)))
		return list_first_entry(list, struct page, lru);
	if (order != MAX_PAGE_ORDER || mt != MIGRATE_MOVABLE || !zone_frontier_blocks(zone))
		return NULL;
	page = pfn_to_page(zone->frontier_pfn);
	WRITE_ONCE(zone->frontier_pfn, zone->frontier_pfn + (1ul << MAX_PAGE_ORDER));
	set_buddy_order(page, MAX_PAGE_ORDER, zone->zone_pgdat->node_id);
	add_to_free_list(page, zone, MAX_PAGE_ORDER, mt, false);
	return page;
}

bool free_area_empty(struct zone *zone, unsigned int order, int mt)
{
	return list_empty(&zone->free_area[order].free_list[mt]) &&
	       (order != MAX_PAGE_ORDER || mt != MIGRATE_MOVABLE || !zone_frontier_blocks(zone));
}

/* zone->lock held: take the free block @page of @high on @mt's lists, split to @low. */
static inline void page_del_and_expand(struct zone *zone, struct page *page, unsigned int low,
				       unsigned int high, int mt)
{
	del_page_from_free_list(page, zone, high);
	expand(zone, page, low, high, mt);
	WRITE_ONCE(zone->free_pages, zone->free_pages - (1l << low));
}

/* zone->lock held: the smallest free block of @mt that fits, split to @order. */
static struct page *__rmqueue_smallest(struct zone *zone, unsigned int order, int mt)
{
	unsigned int o;

	for (o = order; o < NR_PAGE_ORDERS; o++) {
		struct page *page = get_page_from_free_area(zone, o, mt);

		if (!page)
			continue;
		page_del_and_expand(zone, page, order, o, mt);
		return page;
	}
	return NULL;
}

#define ALLOC_WMARK_MASK 0x3u /* enum zone_watermarks */
#define ALLOC_NO_WATERMARKS 0x4u
#define ALLOC_MIN_RESERVE 0x8u		  /* __GFP_HIGH: down to half of min */
#define ALLOC_NOFRAGMENT 0x10u		  /* no fallback below a whole pageblock */
#define ALLOC_KSWAPD __GFP_KSWAPD_RECLAIM /* may wake kswapd: the gfp bit, as 6.18 */

/* the types a type falls back to, in order (6.18's fallbacks[]) */
static const int fallbacks[MIGRATE_PCPTYPES][MIGRATE_PCPTYPES - 1] = {
	[MIGRATE_UNMOVABLE] = { MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE },
	[MIGRATE_MOVABLE] = { MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE },
	[MIGRATE_RECLAIMABLE] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE },
};

int watermark_boost_factor = 15000; /* vm.watermark_boost_factor */

bool fl__zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark, long free_pages,
			   unsigned int alloc_flags)
{
	return __zone_watermark_ok(z, order, mark, free_pages, alloc_flags);
}

/*
 * boost_watermark() - a fallback inside a pageblock raises the watermarks
 * by a pageblock, up to watermark_boost_factor/10000 of the high one, so
 * kswapd reclaims (without swap or writeback) to spare the next fallback.
 * A machine without a kswapd CPU (docs/model.md) boosts nothing.
 */
static bool boost_watermark(struct zone *zone)
{
	unsigned long max_boost;

	/* the model's own: without a kswapd to reclaim it away, a boost would stay */
	if (zone->zone_pgdat->kswapd_cpu < 0)
		return false;
	if (!watermark_boost_factor || pageblock_nr_pages * 4 > zone->managed_pages)
		return false;
	max_boost = zone->_watermark[WMARK_HIGH] * (unsigned long)watermark_boost_factor / 10000;
	if (!max_boost)
		return false;
	max_boost = fl_max_ul(pageblock_nr_pages, max_boost);
	set_watermark_boost(zone, fl_min_ul(zone->watermark_boost + pageblock_nr_pages, max_boost));
	return true;
}

/*
 * should_try_claim_block(): claim the whole pageblock for a fallback of
 * half a pageblock or more, and for every unmovable or reclaimable one
 * (they would pollute it for good); small movable ones only steal.
 */
static bool should_try_claim_block(unsigned int order, int start_mt)
{
	return order >= pageblock_order / 2 || start_mt == MIGRATE_RECLAIMABLE ||
	       start_mt == MIGRATE_UNMOVABLE;
}

/* find_suitable_fallback(): the first fallback type with a block of @order; -2: not claimable */
int find_suitable_fallback(struct zone *zone, unsigned int order, int mt, bool claimable)
{
	int i;

	if (claimable && !should_try_claim_block(order, mt))
		return -2;
	for (i = 0; i < MIGRATE_PCPTYPES - 1; i++)
		if (!free_area_empty(zone, order, fallbacks[mt][i]))
			return fallbacks[mt][i];
	return -1;
}

/* Move every free block of the pageblock at @start to @new_mt's lists (at their tails). */
static void move_freepages_block(struct zone *zone, unsigned long start, int new_mt)
{
	unsigned long pfn = start;

	while (pfn < start + pageblock_nr_pages) {
		struct page *page = pfn_to_page(pfn);
		unsigned int order;

		if (!fl_test_bit(PG_buddy, &page->flags)) {
			pfn++;
			continue;
		}
		order = (unsigned int)page->private;
		list_move_tail(&page->lru, &zone->free_area[order].free_list[new_mt]);
		pfn += 1ul << order;
	}
}

/* the pageblock's free pages, and its pages that could move (on an LRU) */
static void count_block_pages(unsigned long start, int *num_free, int *num_movable)
{
	unsigned long pfn = start;

	*num_free = *num_movable = 0;
	while (pfn < start + pageblock_nr_pages) {
		struct page *page = pfn_to_page(pfn);

		if (fl_test_bit(PG_buddy, &page->flags)) {
			int nr = 1 << page->private;

			*num_free += nr;
			pfn += (unsigned long)nr;
			continue;
		}
		*num_movable += fl_test_bit(PG_lru, &page->flags);
		pfn++;
	}
}

/*
 * try_to_claim_block() - take over the block @page heads (on @block_mt's
 * list at @current_order) for @start_mt: the whole range when it is a
 * pageblock or more; else boost the watermarks and claim the pageblock
 * when half of it is free or alike (movable pages for a movable request;
 * for an unmovable or reclaimable one, the pages of a movable block that
 * are neither free nor movable). Return: the allocated page or NULL.
 */
static struct page *try_to_claim_block(struct zone *zone, struct page *page,
				       unsigned int current_order, unsigned int order, int start_mt,
				       int block_mt, unsigned int alloc_flags)
{
	unsigned long start;
	int free_pages, movable_pages, alike_pages;

	if (current_order >= pageblock_order) {
		del_page_from_free_list(page, zone, current_order);
		change_pageblock_range(page_to_pfn(page), current_order, start_mt);
		expand(zone, page, order, current_order, start_mt);
		WRITE_ONCE(zone->free_pages, zone->free_pages - (1l << order));
		count_fl_stat(FL_EXTFRAG_CLAIM, 1);
		return page;
	}
	if (boost_watermark(zone) && (alloc_flags & ALLOC_KSWAPD))
		fl_set_bit(ZONE_BOOSTED_WATERMARK_BIT, &zone->flags);
	start = page_to_pfn(page) & ~(pageblock_nr_pages - 1);
	count_block_pages(start, &free_pages, &movable_pages);
	if (start_mt == MIGRATE_MOVABLE)
		alike_pages = movable_pages;
	else if (block_mt == MIGRATE_MOVABLE)
		alike_pages = (int)pageblock_nr_pages - (free_pages + movable_pages);
	else
		alike_pages = 0;
	if (free_pages + alike_pages < (int)(pageblock_nr_pages / 2))
		return NULL;
	move_freepages_block(zone, start, start_mt);
	set_pageblock_migratetype(start, start_mt);
	count_fl_stat(FL_EXTFRAG_CLAIM, 1);
	return __rmqueue_smallest(zone, order, start_mt);
}

/*
 * __rmqueue_claim() - fall back by claiming a block of another type for
 * @start_mt, the largest first (a rough stand-in for the block with the
 * most free pages); with ALLOC_NOFRAGMENT only whole pageblocks.
 */
static struct page *__rmqueue_claim(struct zone *zone, unsigned int order, int start_mt,
				    unsigned int alloc_flags)
{
	unsigned int min_order = order;
	int o;

	if (order < pageblock_order && (alloc_flags & ALLOC_NOFRAGMENT))
		min_order = pageblock_order;
	for (o = MAX_PAGE_ORDER; o >= (int)min_order; o--) {
		int fallback_mt = find_suitable_fallback(zone, (unsigned int)o, start_mt, true);
		struct page *page;

		if (fallback_mt == -1)
			continue;
		if (fallback_mt == -2)
			break;
		page = get_page_from_free_area(zone, (unsigned int)o, fallback_mt);
		page = try_to_claim_block(zone, page, (unsigned int)o, order, start_mt, fallback_mt,
					  alloc_flags);
		if (page)
			return page;
	}
	return NULL;
}

/* __rmqueue_steal() - take the smallest block of another type; its pageblock keeps its type. */
static struct page *__rmqueue_steal(struct zone *zone, unsigned int order, int start_mt)
{
	unsigned int o;

	for (o = order; o < NR_PAGE_ORDERS; o++) {
		int fallback_mt = find_suitable_fallback(zone, o, start_mt, false);
		struct page *page;

		if (fallback_mt == -1)
			continue;
		page = get_page_from_free_area(zone, o, fallback_mt);
		page_del_and_expand(zone, page, order, o, fallback_mt);
		count_fl_stat(FL_EXTFRAG_STEAL, 1);
		return page;
	}
	return NULL;
}

/*
 * __isolate_free_page() - zone->lock held: take the free block @page of
 * @order for compaction's free scanner, if the zone stays above min with
 * it gone (a high-order watermark as an order-0 one raised by the block).
 * A block of half a pageblock or more makes its pageblocks movable.
 * Return: the pages taken, or 0.
 */
unsigned long __isolate_free_page(struct page *page, unsigned int order)
{
	struct zone *zone = page_zone(page);
	unsigned long pfn = page_to_pfn(page), end = pfn + (1ul << order);

	if (!__zone_watermark_ok(zone, 0, zone->_watermark[WMARK_MIN] + (1ul << order),
				 zone->free_pages, 0))
		return 0;
	del_page_from_free_list(page, zone, order);
	WRITE_ONCE(zone->free_pages, zone->free_pages - (1l << order));
	if (order >= pageblock_order - 1)
		for (pfn &= ~(pageblock_nr_pages - 1); pfn < end; pfn += pageblock_nr_pages)
			if (get_pfnblock_migratetype(pfn) != MIGRATE_MOVABLE) {
				move_freepages_block(zone, pfn, MIGRATE_MOVABLE);
				set_pageblock_migratetype(pfn, MIGRATE_MOVABLE);
			}
	return 1ul << order;
}

/* post_alloc_hook() and prep_compound_page() for a block compaction took off the lists */
void fl__prep_isolated_page(struct page *page, unsigned int order)
{
	WRITE_ONCE(page->private, 0ul);
	prep_new_page(page, order, __GFP_MOVABLE | __GFP_COMP,
		      page_zone(page)->zone_pgdat->node_id);
}

/* compaction_free(): a destination migration did not use, back to a free block of @order */
bool fl__free_pages_prepare(struct page *page, unsigned int order)
{
	if (!free_pages_prepare(page, order))
		return false;
	count_fl_stat(FL_LIVE_FOLIOS, -1);
	return true;
}

enum rmqueue_mode { RMQUEUE_NORMAL, RMQUEUE_CLAIM, RMQUEUE_STEAL };

/*
 * __rmqueue() - @mt's own lists, then a claim, then a steal; *@mode keeps
 * where a bulk refill found pages, so the next block skips the searches
 * that failed (a claim refills @mt's lists: back to normal).
 */
static __always_inline struct page *__rmqueue(struct zone *zone, unsigned int order, int mt,
					      unsigned int alloc_flags, enum rmqueue_mode *mode)
{
	struct page *page;

	switch (*mode) {
	case RMQUEUE_NORMAL:
		page = __rmqueue_smallest(zone, order, mt);
		if (likely(page))
			return page;
		/* fallthrough */
	case RMQUEUE_CLAIM:
		page = __rmqueue_claim(zone, order, mt, alloc_flags);
		if (page) {
			*mode = RMQUEUE_NORMAL;
			return page;
		}
		/* fallthrough */
	case RMQUEUE_STEAL:
		if (!(alloc_flags & ALLOC_NOFRAGMENT)) {
			page = __rmqueue_steal(zone, order, mt);
			if (page) {
				*mode = RMQUEUE_STEAL;
				return page;
			}
		}
	}
	return NULL;
}

/*
 * buddy_merge_likely() - is the block @pfn's merge with its buddy would
 * make itself free to merge further? Such a block goes to the tail of its
 * list, so it is taken last and has time to merge.
 */
static inline bool buddy_merge_likely(const struct zone *zone, unsigned long pfn,
				      unsigned int order)
{
	unsigned long higher_buddy;

	if (order >= MAX_PAGE_ORDER - 1)
		return false;
	higher_buddy = (pfn & ~(1ul << order)) ^ (2ul << order);
	return higher_buddy >= zone->zone_start_pfn && higher_buddy < zone->frontier_pfn &&
	       page_is_buddy(pfn_to_page(higher_buddy), order + 1);
}

/*
 * __free_one_page() - zone->lock held: return a block to @mt's lists,
 * merging it with free buddies. The three types merge with each other
 * (6.18 refuses only HIGHATOMIC, CMA and ISOLATE, which the model lacks):
 * a buddy pageblock of another type takes the freed block's type.
 */
static void __free_one_page(struct page *page, unsigned long pfn, struct zone *zone,
			    unsigned int order, int mt)
{
	unsigned long start = zone->zone_start_pfn;
	unsigned long limit = zone->frontier_pfn;

	WRITE_ONCE(zone->free_pages, zone->free_pages + (1l << order));
	while (order < MAX_PAGE_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1ul << order);
		struct page *buddy;

		if (buddy_pfn < start || buddy_pfn >= limit)
			break;
		buddy = pfn_to_page(buddy_pfn);
		/* sim: the buddy's struct page, last written by whoever freed it */
		fl_line_table_write(&fl__page_lines, buddy_pfn);
		if (!page_is_buddy(buddy, order))
			break;
		del_page_from_free_list(buddy, zone, order);
		if (unlikely(order >= pageblock_order) && get_pfnblock_migratetype(buddy_pfn) != mt)
			set_pageblock_migratetype(buddy_pfn, mt);
		pfn &= buddy_pfn;
		order++;
	}
	page = pfn_to_page(pfn);
	set_buddy_order(page, order, zone->zone_pgdat->node_id);
	add_to_free_list(page, zone, order, mt, buddy_merge_likely(zone, pfn, order));
}

static void free_one_page(struct zone *zone, struct page *page, unsigned long pfn,
			  unsigned int order)
{
	spin_lock(&zone->lock);
	fl_cacheline_write(&zone->free_line);
	fl_cost(FL_COST_BUDDY);
	__free_one_page(page, pfn, zone, order, get_pfnblock_migratetype(pfn));
	spin_unlock(&zone->lock);
	count_vm_events(PGFREE, 1ul << order);
}

/*
 * A fallback that boosted the watermarks sets ZONE_BOOSTED_WATERMARK; the
 * next allocation that may wake kswapd does, at order 0. 6.18 looks after
 * every allocation; the model after those that took the zone lock (where
 * a boost is set), sparing the pcp fast path the test.
 */
static inline void zone_boosted_wake(struct zone *zone, unsigned int alloc_flags)
{
	if (unlikely(READ_ONCE(zone->flags)) && (alloc_flags & ALLOC_KSWAPD) &&
	    fl_test_and_clear_bit(ZONE_BOOSTED_WATERMARK_BIT, &zone->flags))
		wakeup_kswapd(zone->zone_pgdat, alloc_flags & ALLOC_KSWAPD, 0);
}

/* zone->lock taken here: move @count blocks of @order and type @mt onto @list. */
static int rmqueue_bulk(struct zone *zone, unsigned int order, int count, struct list_head *list,
			int mt, unsigned int alloc_flags)
{
	enum rmqueue_mode mode = RMQUEUE_NORMAL;
	int i;

	spin_lock(&zone->lock);
	fl_cacheline_write(&zone->free_line);
	for (i = 0; i < count; i++) {
		struct page *page = __rmqueue(zone, order, mt, alloc_flags, &mode);

		if (!page)
			break;
		list_add_tail(&page->lru, list);
	}
	fl_cost_n(FL_COST_BUDDY, (uint64_t)i);
	spin_unlock(&zone->lock);
	zone_boosted_wake(zone, alloc_flags);
	count_fl_stat(FL_PCP_REFILL, 1);
	return i;
}

static inline int clamp_int(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * How many blocks of @order a refill takes, and what it does to high: an
 * order-0 refill takes batch << alloc_factor pages and doubles the next
 * one, as long as that leaves room under high; every refill raises high
 * by what it takes, up to high_max (a larger high would have spared it).
 */
static int nr_pcp_alloc(struct per_cpu_pages *pcp, unsigned int order)
{
	int base_batch = pcp->batch, batch, high, max_nr_alloc;

	high = pcp->high = clamp_int(pcp->high, pcp->high_min, pcp->high_max);
	if (unlikely(high < base_batch))
		return 1;
	batch = order ? base_batch : base_batch << pcp->alloc_factor;
	if (pcp->high_min != pcp->high_max)
		high = pcp->high = high + batch < pcp->high_max ? high + batch : pcp->high_max;
	if (!order) {
		max_nr_alloc = high - pcp->count - base_batch > base_batch
				       ? high - pcp->count - base_batch
				       : base_batch;
		if (batch <= max_nr_alloc && pcp->alloc_factor < CONFIG_PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		batch = batch < max_nr_alloc ? batch : max_nr_alloc;
	}
	if (batch > 1)
		batch = (int)fl_max_ul((unsigned long)(batch >> order), 2);
	return batch;
}

/*
 * pcp->lock held: give @count pages back to the buddy lists, oldest first,
 * starting with list @pindex and going round the others as lists empty.
 */
static void free_pcppages_bulk(struct zone *zone, int count, struct per_cpu_pages *pcp, int pindex)
{
	count = count < pcp->count ? count : pcp->count;
	pindex--;
	spin_lock(&zone->lock);
	fl_cacheline_write(&zone->free_line);
	while (count > 0) {
		struct list_head *list;
		unsigned int order;

		do {
			pindex = (pindex + 1) % NR_PCP_LISTS;
			list = &pcp->lists[pindex];
		} while (list_empty(list));
		order = pindex_to_order(pindex);
		do {
			struct page *page = list_last_entry(list, struct page, lru);
			unsigned long pfn = page_to_pfn(page);

			list_del(&page->lru);
			count -= 1 << order;
			pcp->count -= 1 << order;
			fl_cost(FL_COST_BUDDY);
			/* the block's type now: a claim may have changed it since the free */
			__free_one_page(page, pfn, zone, order, get_pfnblock_migratetype(pfn));
		} while (count > 0 && !list_empty(list));
	}
	spin_unlock(&zone->lock);
	count_fl_stat(FL_PCP_FREE_BULK, 1);
}

static __always_inline struct page *rmqueue_pcplist(struct zone *zone, unsigned int order, int mt,
						    unsigned int alloc_flags)
{
	FL_LOCK_SITE(site);
	struct per_cpu_pages *pcp = &zone->per_cpu_pageset[smp_processor_id()];
	struct list_head *list = &pcp->lists[order_to_pindex(mt, order)];
	struct page *page;

	/* like pcp_spin_trylock(): a remote drain in progress means "use the zone" */
	if (!fl_spin_trylock_at(&pcp->lock, &site))
		return NULL;
	/* an allocation: fewer pages go back per free from now on */
	pcp->free_count >>= 1;
	if (list_empty(list)) {
		int got = rmqueue_bulk(zone, order, nr_pcp_alloc(pcp, order), list, mt,
				       alloc_flags);

		pcp->count += got << order;
		if (!got) {
			spin_unlock(&pcp->lock);
			return NULL;
		}
	}
	page = list_first_entry(list, struct page, lru);
	list_del(&page->lru);
	pcp->count -= 1 << order;
	spin_unlock(&pcp->lock);
	return page;
}

static struct page *rmqueue_buddy(struct zone *zone, unsigned int order, int mt,
				  unsigned int alloc_flags)
{
	enum rmqueue_mode mode = RMQUEUE_NORMAL;
	struct page *page;

	spin_lock(&zone->lock);
	page = __rmqueue(zone, order, mt, alloc_flags, &mode);
	spin_unlock(&zone->lock);
	zone_boosted_wake(zone, alloc_flags);
	return page;
}

static void prep_compound_page(struct page *page, unsigned int order)
{
	struct folio *folio = (struct folio *)page;
	unsigned long i, nr = 1ul << order;

	for (i = 1; i < nr; i++) {
		struct page *p = page + i;

		WRITE_ONCE(p->flags, 0ul);
		p->mapping = NULL;
		p->index = 0;
		WRITE_ONCE(p->private, 0ul);
		p->_mapcount = 0;
		p->_refcount = 0;
		p->_tail_pad = 0;
		/* release: a tail is published only with its head complete */
		fl_atomic_store(&p->compound_head, (unsigned long)page | 1, __ATOMIC_RELEASE);
	}
	WRITE_ONCE(page->flags, page->flags | (1ul << PG_head));
	prep_compound_head(folio, order);
}

/*
 * Free pages come back clean (free_pages_prepare() clears mapping, private
 * and mapcount; the free lists clear PG_buddy and the order): only the
 * flags and the reference need setting. lru keeps a list pointer, whose
 * clear low bit is all compound_head() needs of a head page.
 */
static __always_inline void prep_new_page(struct page *page, unsigned int order, gfp_t gfp, int nid)
{
	VM_BUG_ON(page->mapping || READ_ONCE(page->private) || page->_mapcount || page->memcg_data);
	fl_cost(FL_COST_FOLIO_ALLOC);
	WRITE_ONCE(page->flags, (unsigned long)nid << NODES_PGSHIFT);
	fl_atomic_store(&page->_refcount, 1, __ATOMIC_RELAXED);
	if (order && (gfp & __GFP_COMP))
		prep_compound_page(page, order);
	if (gfp & __GFP_ZERO) {
		/* clear_page(), or folio_zero_user() */
		fl_cost_mem(FL_COST_CLEAR_PAGE, page_to_pfn(page), 1ul << order);
		if (!order)
			page_tag_set(page_to_pfn(page), 0);
		else
			memset(&fl__page_tags[page_to_pfn(page)], 0, sizeof(uint64_t) << order);
	}
	count_fl_stat(FL_LIVE_FOLIOS, 1);
}

static bool should_fail_alloc_page(unsigned int order)
{
	return (READ_ONCE(fl__fail_page_alloc_orders) >> order) & 1;
}

/* rmqueue() - a block from @zone's pcp lists or buddy lists */
static __always_inline struct page *rmqueue(struct zone *zone, unsigned int order, int mt,
					    unsigned int alloc_flags)
{
	struct page *page = NULL;

	if (pcp_allowed_order(order))
		page = rmqueue_pcplist(zone, order, mt, alloc_flags);
	if (!page)
		page = rmqueue_buddy(zone, order, mt, alloc_flags);
	return page;
}

/* ---- watermarks ---- */

int min_free_kbytes;		 /* calculate_min_free_kbytes() at start */
int watermark_scale_factor = 10; /* vm.watermark_scale_factor */
static void setup_per_zone_wmarks(void);

/*
 * fl__vm_sysctl_set() - vm.min_free_kbytes or vm.watermark_scale_factor,
 * as their sysctl handlers do: the value, then the watermarks again.
 */
void fl__vm_sysctl_set(int *knob, int value)
{
	*knob = value;
	setup_per_zone_wmarks();
}

/*
 * __zone_watermark_ok() - would @zone stay above @mark with @free_pages
 * free after taking 2^@order pages, and does it have a free block that
 * large (on its free lists or past its frontier)?
 */
static bool __zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark,
				long free_pages, unsigned int alloc_flags)
{
	long min = (long)mark;
	unsigned int o;

	free_pages -= (1l << order) - 1;
	if (alloc_flags & ALLOC_MIN_RESERVE)
		min -= min / 2;
	if (free_pages <= min)
		return false;
	if (!order)
		return true;
	for (o = order; o < NR_PAGE_ORDERS; o++)
		if (READ_ONCE(z->free_area[o].nr_free))
			return true;
	return zone_end_pfn(z) - READ_ONCE(z->frontier_pfn) >= (1ul << order);
}

/* zone_watermark_ok() - the same with the zone's free pages now */
bool zone_watermark_ok(struct zone *z, unsigned int order, unsigned long mark)
{
	return __zone_watermark_ok(z, order, mark, READ_ONCE(z->free_pages), 0);
}

/* zone_watermark_fast(): an order-0 allocation well above the mark needs one compare */
static __always_inline bool zone_watermark_fast(struct zone *z, unsigned int order,
						unsigned long mark, unsigned int alloc_flags)
{
	long free_pages = READ_ONCE(z->free_pages);

	if (!order && free_pages > (long)mark)
		return true;
	/* __GFP_HIGH at order 0 against min ignores the boost: min is where boosting stops */
	if (unlikely(!order && (alloc_flags & ALLOC_MIN_RESERVE) && READ_ONCE(z->watermark_boost) &&
		     (alloc_flags & ALLOC_WMARK_MASK) == WMARK_MIN))
		mark = z->_watermark[WMARK_MIN];
	return __zone_watermark_ok(z, order, mark, free_pages, alloc_flags);
}

/*
 * get_page_from_freelist() - the first zone, from node @nid on (only @nid
 * with __GFP_THISNODE), that meets the watermark @alloc_flags names and
 * has the block. With ALLOC_NOFRAGMENT, a fallback may claim only whole
 * pageblocks: before it would go to another node, or when no zone had the
 * block, it tries again without (fragmenting the local node is preferred
 * to a remote one). Return: the page (its node in *@pnid) or NULL.
 */
static __always_inline struct page *get_page_from_freelist(gfp_t gfp, unsigned int order,
							   unsigned int alloc_flags, int nid,
							   int *pnid)
{
	int mt = gfp_migratetype(gfp);
	struct page *page;
	int i, n;

retry:
	for (i = 0, n = nid; i < fl__nr_node_ids; i++) {
		struct zone *zone;

		if (unlikely(i)) {
			if (gfp & __GFP_THISNODE)
				break;
			if (alloc_flags & ALLOC_NOFRAGMENT) {
				alloc_flags &= ~ALLOC_NOFRAGMENT;
				goto retry;
			}
			n = nid + i < fl__nr_node_ids ? nid + i : nid + i - fl__nr_node_ids;
		}
		zone = &NODE_DATA(n)->node_zones[0];
		if (!(alloc_flags & ALLOC_NO_WATERMARKS) &&
		    !zone_watermark_fast(zone, order,
					 wmark_pages(zone, alloc_flags & ALLOC_WMARK_MASK),
					 alloc_flags))
			continue;
		page = rmqueue(zone, order, mt, alloc_flags);
		if (page) {
			*pnid = n;
			return page;
		}
	}
	if (alloc_flags & ALLOC_NOFRAGMENT) {
		alloc_flags &= ~ALLOC_NOFRAGMENT;
		goto retry;
	}
	return NULL;
}

/*
 * alloc_flags_nofragment(): the fast path's flags. 6.18 sets
 * ALLOC_NOFRAGMENT in a Normal zone with a populated DMA32 zone below it,
 * which every x86-64 machine past 4 GiB has; the model's one zone stands
 * for that Normal zone (its DMA32 fallback is not modelled).
 */
static __always_inline unsigned int alloc_flags_nofragment(gfp_t gfp)
{
	return (gfp & ALLOC_KSWAPD) | ALLOC_NOFRAGMENT;
}

/* ---- the slow path: reclaim and the OOM report ---- */

static char oom_report[512];
static int oom_reported; /* atomic: the first OOM wrote oom_report */

int fl__oom_report(char *buf, size_t len)
{
	if (!fl_atomic_load(&oom_reported, __ATOMIC_ACQUIRE))
		return 0;
	snprintf(buf, len, "%s", oom_report);
	return 1;
}

static const char *gfp_name(gfp_t gfp)
{
	if ((gfp & GFP_TRANSHUGE) == GFP_TRANSHUGE)
		return "GFP_TRANSHUGE";
	if ((gfp & GFP_HIGHUSER_MOVABLE) == GFP_HIGHUSER_MOVABLE)
		return "GFP_HIGHUSER_MOVABLE";
	if ((gfp & GFP_KERNEL) == GFP_KERNEL)
		return "GFP_KERNEL";
	return "GFP_NOWAIT";
}

/*
 * out_of_memory() - reclaim cannot satisfy an allocation that may not
 * fail. The kernel would kill a process; the model writes what it saw
 * (the first time), counts oom_kill, and the allocation fails, so the
 * workload stops with ENOMEM and the run ends with this report.
 */
static void out_of_memory(gfp_t gfp, unsigned int order, int nid, int tries)
{
	struct zone *z = &NODE_DATA(nid)->node_zones[0];
	unsigned long lru[NR_LRU_LISTS];
	char report[sizeof(oom_report)];
	int l;

	if (fl_atomic_load(&oom_reported, __ATOMIC_ACQUIRE))
		return;
	for (l = 0; l < NR_LRU_LISTS; l++)
		lru[l] = node_lru_pages(NODE_DATA(nid), (enum lru_list)l);
	snprintf(report, sizeof(report),
		 "out of memory: an order-%u %s allocation on node %d: %ld pages free "
		 "(min %lu, low %lu, high %lu, boost %lu) after %d reclaim tries; LRU (inactive + "
		 "active) anon %lu + %lu, file %lu + %lu; swap free %ld pages",
		 order, gfp_name(gfp), nid, READ_ONCE(z->free_pages), z->_watermark[WMARK_MIN],
		 z->_watermark[WMARK_LOW], z->_watermark[WMARK_HIGH], READ_ONCE(z->watermark_boost),
		 tries, lru[LRU_INACTIVE_ANON], lru[LRU_ACTIVE_ANON], lru[LRU_INACTIVE_FILE],
		 lru[LRU_ACTIVE_FILE], get_nr_swap_pages());
	fl__oom_record(report);
}

void fl__oom_record(const char *report)
{
	int zero = 0;

	if (!fl_atomic_cmpxchg(&oom_reported, &zero, -1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	count_vm_event(OOM_KILL);
	snprintf(oom_report, sizeof(oom_report), "%s", report);
	fl_atomic_store(&oom_reported, 1, __ATOMIC_RELEASE);
}

/* wake_all_kswapds(): each node the allocation may use, @nid first */
static void wake_all_kswapds(unsigned int order, gfp_t gfp, int nid)
{
	int i;

	for (i = 0; i < fl__nr_node_ids; i++) {
		if (i && (gfp & __GFP_THISNODE))
			break;
		wakeup_kswapd(NODE_DATA((nid + i) % fl__nr_node_ids), gfp, (int)order);
	}
}

/*
 * should_reclaim_retry() - go on reclaiming while the last try made
 * progress or fewer than MAX_RECLAIM_RETRIES tries in a row made none,
 * and some zone would meet its min watermark if all it can reclaim came
 * free.
 */
static bool should_reclaim_retry(unsigned int order, unsigned int alloc_flags, bool progress,
				 int *no_progress_loops, int nid, gfp_t gfp)
{
	int i;

	if (progress && order <= PAGE_ALLOC_COSTLY_ORDER)
		*no_progress_loops = 0;
	else
		(*no_progress_loops)++;
	if (*no_progress_loops > MAX_RECLAIM_RETRIES)
		return false;
	for (i = 0; i < fl__nr_node_ids; i++) {
		struct zone *z = &NODE_DATA((nid + i) % fl__nr_node_ids)->node_zones[0];
		long available = (long)zone_reclaimable_pages(z) + READ_ONCE(z->free_pages);

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (__zone_watermark_ok(z, order, min_wmark_pages(z), available, alloc_flags))
			return true;
	}
	return false;
}

/*
 * __alloc_pages_direct_reclaim() - the freelist retry after a reclaim try
 * that made progress. Reclaim's frees may sit on the per-CPU lists, which
 * the watermarks do not count: when the retry fails, drain every CPU's
 * lists and retry once more. Each try may drain (6.18: @drained is this
 * function's, not the slow path's); the highatomic reserve it would also
 * give back is not modelled.
 */
static struct page *__alloc_pages_direct_reclaim(gfp_t gfp, unsigned int order,
						 unsigned int alloc_flags, int nid, int *pnid)
{
	struct page *page = get_page_from_freelist(gfp, order, alloc_flags, nid, pnid);

	if (!page) {
		drain_all_pages(NULL);
		page = get_page_from_freelist(gfp, order, alloc_flags, nid, pnid);
	}
	return page;
}

/*
 * __alloc_pages_direct_compact() - compact, then retry the freelists:
 * compact_stall for every compaction that ran, then compact_success or
 * compact_fail by whether the retry found the block.
 */
static struct page *__alloc_pages_direct_compact(gfp_t gfp, unsigned int order,
						 unsigned int alloc_flags, int nid, int *pnid,
						 enum compact_priority prio,
						 enum compact_result *result)
{
	struct page *page;

	*result = try_to_compact_pages(gfp, order, alloc_flags, nid, prio);
	if (*result == COMPACT_SKIPPED)
		return NULL;
	count_vm_event(COMPACTSTALL);
	page = get_page_from_freelist(gfp, order, alloc_flags, nid, pnid);
	if (page) {
		compaction_alloc_succeeded(&NODE_DATA(*pnid)->node_zones[0], order);
		count_vm_event(COMPACTSUCCESS);
		return page;
	}
	count_vm_event(COMPACTFAIL);
	return NULL;
}

/*
 * should_compact_retry() - after reclaim made progress: retry while
 * compaction was skipped for want of order-0 memory that reclaim could
 * give, or succeeded but lost the block (16 times, 4 for a costly order),
 * else with a higher priority until the highest (sync-light for costly
 * orders).
 */
static bool should_compact_retry(unsigned int order, int nid, gfp_t gfp, enum compact_result result,
				 enum compact_priority *prio, int *retries)
{
	int max_retries = MAX_COMPACT_RETRIES;
	enum compact_priority min_priority;

	if (!order)
		return false;
	if (result == COMPACT_SKIPPED)
		return compaction_zonelist_suitable((int)order, nid, gfp);
	if (result == COMPACT_SUCCESS) {
		if (order > PAGE_ALLOC_COSTLY_ORDER)
			max_retries /= 4;
		if (++*retries <= max_retries)
			return true;
	}
	min_priority = order > PAGE_ALLOC_COSTLY_ORDER ? MIN_COMPACT_COSTLY_PRIORITY
						       : MIN_COMPACT_PRIORITY;
	if (*prio > min_priority) {
		(*prio)--;
		*retries = 0;
		return true;
	}
	return false;
}

/*
 * __alloc_pages_slowpath() - the zones are below their low watermark (or
 * have no block of the order): try down to min (half of it for
 * __GFP_HIGH, all of it for reclaim's own allocations), then, if the
 * caller may reclaim: a costly or unmovable high-order allocation
 * compacts first, async (a costly __GFP_NORETRY one, a THP fault, gives
 * up if compaction was skipped or deferred); then reclaim and compaction
 * in turn, each reclaim try that made progress retrying the freelists
 * (and draining the pcp lists when that fails), until the allocation
 * succeeds, gives up (__GFP_NORETRY, a costly order: the model has no
 * __GFP_RETRY_MAYFAIL) or runs out of hope (out_of_memory()).
 */
static noinline struct page *__alloc_pages_slowpath(gfp_t gfp, unsigned int order, int nid,
						    int *pnid)
{
	unsigned int alloc_flags = WMARK_MIN | ((gfp & __GFP_HIGH) ? ALLOC_MIN_RESERVE : 0) |
				   (gfp & ALLOC_KSWAPD);
	enum compact_priority compact_priority = DEF_COMPACT_PRIORITY;
	enum compact_result compact_result = COMPACT_SKIPPED;
	bool costly_order = order > PAGE_ALLOC_COSTLY_ORDER;
	int no_progress_loops = 0, tries = 0, compaction_retries = 0;
	struct page *page;

	/* the rest of the fast path's pass: every node at the low watermark */
	page = get_page_from_freelist(gfp, order, WMARK_LOW | alloc_flags_nofragment(gfp), nid,
				      pnid);
	if (page)
		return page;
	if (gfp & __GFP_KSWAPD_RECLAIM)
		wake_all_kswapds(order, gfp, nid);
	page = get_page_from_freelist(gfp, order, alloc_flags, nid, pnid);
	if (page)
		return page;
	if ((gfp & __GFP_MEMALLOC) && !(gfp & __GFP_NOMEMALLOC))
		return get_page_from_freelist(gfp, order,
					      ALLOC_NO_WATERMARKS | (gfp & ALLOC_KSWAPD), nid,
					      pnid);
	if (!(gfp & __GFP_DIRECT_RECLAIM))
		return NULL;
	if (order && (costly_order || gfp_migratetype(gfp) != MIGRATE_MOVABLE) &&
	    !(gfp & __GFP_MEMALLOC)) {
		page = __alloc_pages_direct_compact(gfp, order, alloc_flags, nid, pnid,
						    INIT_COMPACT_PRIORITY, &compact_result);
		if (page)
			return page;
		if (costly_order && (gfp & __GFP_NORETRY)) {
			if (compact_result == COMPACT_SKIPPED || compact_result == COMPACT_DEFERRED)
				return NULL;
			compact_priority =
				INIT_COMPACT_PRIORITY; /* async only: sync costs too much */
		}
	}
	for (;;) {
		unsigned long progress;

		if (tries && (gfp & __GFP_KSWAPD_RECLAIM))
			wake_all_kswapds(order, gfp, nid);
		progress = try_to_free_pages(gfp, (int)order, nid);

		tries++;
		if (progress) {
			page = __alloc_pages_direct_reclaim(gfp, order, alloc_flags, nid, pnid);
			if (page)
				return page;
		}
		if (order) {
			page = __alloc_pages_direct_compact(gfp, order, alloc_flags, nid, pnid,
							    compact_priority, &compact_result);
			if (page)
				return page;
		}
		if ((gfp & __GFP_NORETRY) || costly_order)
			return NULL;
		if (should_reclaim_retry(order, alloc_flags, progress != 0, &no_progress_loops, nid,
					 gfp))
			continue;
		if (!progress || !should_compact_retry(order, nid, gfp, compact_result,
						       &compact_priority, &compaction_retries))
			break;
	}
	out_of_memory(gfp, order, nid, tries);
	return NULL;
}

/**
 * __alloc_pages() - allocate a 2^@order block, preferring node @nid.
 * Return: the first page, with a reference, or NULL.
 */
__always_inline struct page *__alloc_pages(gfp_t gfp, unsigned int order, int nid)
{
	struct zone *zone = &NODE_DATA(nid)->node_zones[0];
	struct page *page = NULL;
	int n = nid;

	if (unlikely(order > MAX_PAGE_ORDER || should_fail_alloc_page(order)))
		return NULL;
	/* get_page_from_freelist()'s first zone inline; the rest in the slow path */
	if (likely(zone_watermark_fast(zone, order, low_wmark_pages(zone), 0)))
		page = rmqueue(zone, order, gfp_migratetype(gfp), alloc_flags_nofragment(gfp));
	if (unlikely(!page)) {
		page = __alloc_pages_slowpath(gfp, order, nid, &n);
		if (!page)
			return NULL;
	}
	prep_new_page(page, order, gfp, n);
	count_vm_events(PGALLOC_NORMAL, 1ul << order);
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, numa_node_id());
}

__always_inline struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{
	return (struct folio *)__alloc_pages(gfp | __GFP_COMP, order, numa_node_id());
}

/* Reset a block's descriptors for the free lists; false if it is bad. */
static __always_inline bool free_pages_prepare(struct page *page, unsigned int order)
{
	struct folio *folio = (struct folio *)page;
	unsigned long i, nr = 1ul << order, flags = READ_ONCE(page->flags);

	fl_cost(FL_COST_FOLIO_FREE);
	if (order && (flags & (1ul << PG_anon)))
		mod_mthp_stat((int)order, MTHP_STAT_NR_ANON, -1);
	if (VM_WARN_ON_ONCE(folio_ref_count(folio) != 0 ||
			    (flags & ((1ul << PG_lru) | (1ul << PG_buddy)))))
		return false;
	VM_BUG_ON(folio_test_partially_mapped(folio));
	VM_BUG_ON(order && (folio->_nr_pages_mapped || folio->_large_mapcount));
	for (i = 1; i < nr; i++) {
		struct page *p = page + i;

		VM_BUG_ON(p->_mapcount); /* a page still counted as mapped */
		WRITE_ONCE(p->compound_head, 0ul);
		p->_tail_pad = 0;
		p->mapping = NULL;
		WRITE_ONCE(p->flags, 0ul);
		WRITE_ONCE(p->private, 0ul);
	}
	/* mem_cgroup_uncharge(): the kernel's callers uncharge just before */
	if (unlikely(page->memcg_data))
		__mem_cgroup_uncharge(folio, nr);
	WRITE_ONCE(page->flags, flags & NODES_MASK);
	page->mapping = NULL;
	WRITE_ONCE(page->private, 0ul);
	page->_mapcount = 0;
	return true;
}

/* How many pages a free that crossed @high gives back. */
static int nr_pcp_free(struct per_cpu_pages *pcp, int batch, int high, bool free_high)
{
	if (free_high)
		return pcp->count < batch << CONFIG_PCP_BATCH_SCALE_MAX
			       ? pcp->count
			       : batch << CONFIG_PCP_BATCH_SCALE_MAX;
	if (high < batch)
		return 1;
	/* what was freed in a row, but leave at least a batch on the lists */
	if (pcp->free_count < batch)
		return batch;
	return pcp->free_count > high - batch ? high - batch : pcp->free_count;
}

/*
 * The count at which this free goes to the zone; 0 drains now (free_high).
 * A free that finds the lists at high raises high for the next ones, so
 * they can hold what is being freed in a row plus a batch.
 */
static int nr_pcp_high(struct per_cpu_pages *pcp, int batch, bool free_high)
{
	int high = pcp->high = clamp_int(pcp->high, pcp->high_min, pcp->high_max);

	if (unlikely(!high))
		return 0;
	if (free_high) {
		int lower = high - (batch << CONFIG_PCP_BATCH_SCALE_MAX);

		pcp->high = lower > pcp->high_min ? lower : pcp->high_min;
		return 0;
	}
	if (pcp->high_min == pcp->high_max)
		return high;
	if (pcp->count >= high && pcp->high < pcp->free_count + batch)
		pcp->high = clamp_int(pcp->free_count + batch, pcp->high_min, pcp->high_max);
	return high;
}

/* pcp->lock held. */
static __always_inline void free_frozen_page_commit(struct zone *zone, struct per_cpu_pages *pcp,
						    struct page *page, int mt, unsigned int order)
{
	int pindex = order_to_pindex(mt, order), batch = pcp->batch, high;
	bool free_high = false;

	/* a free: the next order-0 refill takes less */
	pcp->alloc_factor >>= 1;
	count_vm_events(PGFREE, 1ul << order);
	list_add(&page->lru, &pcp->lists[pindex]);
	pcp->count += 1 << order;
	/*
	 * High-order pages freed in a row with no allocation in between
	 * (free_count past a batch and half of high_min) go back to the zone
	 * at once rather than fragment it from the pcp lists.
	 */
	if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
		free_high = pcp->free_count >= batch + pcp->high_min / 2 &&
			    (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
			    (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= batch);
		pcp->flags |= PCPF_PREV_FREE_HIGH_ORDER;
	} else {
		pcp->flags &= ~PCPF_PREV_FREE_HIGH_ORDER;
	}
	if (pcp->free_count < batch << CONFIG_PCP_BATCH_SCALE_MAX)
		pcp->free_count += 1 << order;
	high = nr_pcp_high(pcp, batch, free_high);
	if (pcp->count >= high)
		free_pcppages_bulk(zone, nr_pcp_free(pcp, batch, high, free_high), pcp, pindex);
}

/**
 * free_frozen_pages() - free a block whose reference count already hit 0.
 */
void free_frozen_pages(struct page *page, unsigned int order)
{
	FL_LOCK_SITE(site);
	struct zone *zone = page_zone(page);
	struct per_cpu_pages *pcp;

	if (!free_pages_prepare(page, order))
		return;
	count_fl_stat(FL_LIVE_FOLIOS, -1);
	if (!pcp_allowed_order(order)) {
		free_one_page(zone, page, page_to_pfn(page), order);
		return;
	}
	pcp = &zone->per_cpu_pageset[smp_processor_id()];
	if (!fl_spin_trylock_at(&pcp->lock, &site)) {
		free_one_page(zone, page, page_to_pfn(page), order);
		return;
	}
	free_frozen_page_commit(zone, pcp, page, get_pfnblock_migratetype(page_to_pfn(page)),
				order);
	spin_unlock(&pcp->lock);
}

void __free_pages(struct page *page, unsigned int order)
{
	if (folio_put_testzero((struct folio *)page))
		free_frozen_pages(page, order);
}

/**
 * free_unref_folios() - free a batch of folios whose count is 0, taking
 * each zone's pcp lock once per run of folios from that zone. Orders the
 * pcp lists do not hold go to the buddy lists first, before any pcp lock.
 * PGFREE is counted where each page lands (free_frozen_page_commit() or
 * free_one_page()). The batch is reinitialised.
 * Return: the pages freed.
 */
unsigned long free_unref_folios(struct folio_batch *folios)
{
	FL_LOCK_SITE(site);
	struct per_cpu_pages *pcp = NULL;
	struct zone *locked_zone = NULL;
	unsigned long pages = 0;
	long freed = 0;
	int i, j;

	for (i = 0, j = 0; i < folios->nr; i++) {
		struct folio *folio = folios->folios[i];
		unsigned int order = folio_order(folio);

		if (!free_pages_prepare((struct page *)folio, order))
			continue;
		freed++;
		pages += 1ul << order;
		if (!pcp_allowed_order(order)) {
			free_one_page(folio_zone(folio), (struct page *)folio, folio_pfn(folio),
				      order);
			continue;
		}
		/* free_pages_prepare() cleared private: it carries the order */
		WRITE_ONCE(folio->private, (unsigned long)order);
		folios->folios[j++] = folio;
	}
	WRITE_ONCE(folios->nr, (unsigned char)j); /* racy readers: folio_batch_count() */
	for (i = 0; i < folios->nr; i++) {
		struct folio *folio = folios->folios[i];
		unsigned int order = (unsigned int)READ_ONCE(folio->private);
		struct zone *zone = folio_zone(folio);

		WRITE_ONCE(folio->private, 0ul);
		if (zone != locked_zone) {
			if (pcp)
				spin_unlock(&pcp->lock);
			pcp = &zone->per_cpu_pageset[smp_processor_id()];
			locked_zone = zone;
			if (!fl_spin_trylock_at(&pcp->lock, &site)) {
				pcp = NULL;
				locked_zone = NULL;
				free_one_page(zone, (struct page *)folio, folio_pfn(folio), order);
				continue;
			}
		}
		free_frozen_page_commit(zone, pcp, (struct page *)folio,
					get_pfnblock_migratetype(folio_pfn(folio)), order);
	}
	if (pcp)
		spin_unlock(&pcp->lock);
	count_fl_stat(FL_LIVE_FOLIOS, -freed);
	folio_batch_reinit(folios);
	return pages;
}

/* Empty @cpu's lists of @zone, at most 32 batches under each lock hold. */
void drain_pages_zone(int cpu, struct zone *zone)
{
	struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
	int count;

	do {
		spin_lock(&pcp->lock);
		count = pcp->count;
		if (count) {
			int chunk = pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX;

			if (chunk > count)
				chunk = count;
			free_pcppages_bulk(zone, chunk, pcp, 0);
			count -= chunk;
		}
		spin_unlock(&pcp->lock);
	} while (count);
}

/**
 * drain_all_pages() - empty every CPU's pcp lists of @zone (all zones if
 * NULL) into the buddy lists.
 * Context: pcp->lock makes the remote drain safe while those CPUs run.
 */
void drain_all_pages(struct zone *zone)
{
	int cpu, nid;

	for_each_online_cpu (cpu) {
		if (zone) {
			drain_pages_zone(cpu, zone);
			continue;
		}
		for_each_online_node (nid)
			drain_pages_zone(cpu, &NODE_DATA(nid)->node_zones[0]);
	}
}

static int zone_batchsize(unsigned long managed)
{
	unsigned long batch = fl_min_ul(managed >> 10, (1024 * 1024) / PAGE_SIZE) / 4;
	unsigned long p = 1;

	if (batch < 1)
		batch = 1;
	batch += batch / 2;
	while (p * 2 <= batch)
		p *= 2;
	return (int)(p > 1 ? p - 1 : 1);
}

/* calculate_min_free_kbytes(): sqrt(16 * lowmem KiB), within 128 KiB .. 256 MiB */
static int calculate_min_free_kbytes(unsigned long total_pages)
{
	unsigned long kb = (unsigned long)sqrt((double)(total_pages * (PAGE_SIZE / 1024) * 16));

	return (int)(kb < 128 ? 128 : kb > 262144 ? 262144 : kb);
}

/*
 * setup_per_zone_wmarks(): min is min_free_kbytes shared by the zones in
 * proportion to their size; low and high are each a step above, the step
 * the larger of min/4 and watermark_scale_factor/10000 of the zone.
 */
static void setup_per_zone_wmarks(void)
{
	unsigned long pages_min = (unsigned long)min_free_kbytes / (PAGE_SIZE / 1024);
	unsigned long lowmem = 0;
	int nid;

	for_each_online_node (nid)
		lowmem += NODE_DATA(nid)->node_zones[0].managed_pages;
	for_each_online_node (nid) {
		struct zone *z = &NODE_DATA(nid)->node_zones[0];
		unsigned long min = pages_min * z->managed_pages / lowmem;
		unsigned long step = fl_max_ul(
			min / 4, z->managed_pages * (unsigned long)watermark_scale_factor / 10000);

		z->_watermark[WMARK_MIN] = min;
		z->_watermark[WMARK_LOW] = min + step;
		z->_watermark[WMARK_HIGH] = min + 2 * step;
		spin_lock(&z->lock);
		set_watermark_boost(z, z->watermark_boost);
		spin_unlock(&z->lock);
	}
}

/* The kernel's default pcp->high: the zone's low watermark split over its CPUs. */
static int zone_highsize(unsigned long managed, unsigned long total, int batch, int cpus)
{
	unsigned long total_kb = total * (PAGE_SIZE / 1024);
	unsigned long min_free_kb = (unsigned long)(4.0 * sqrt((double)total_kb));
	unsigned long min_pages, low;

	if (min_free_kb < 128)
		min_free_kb = 128;
	if (min_free_kb > 262144)
		min_free_kb = 262144;
	min_pages = min_free_kb / (PAGE_SIZE / 1024) * managed / total;
	low = min_pages + fl_max_ul(min_pages / 4, managed * 10 / 10000);
	return (int)fl_max_ul(low / (unsigned long)(cpus > 0 ? cpus : 1), (unsigned long)batch * 4);
}

/**
 * fl__page_alloc_init() - set up @nr_pages frames over @nr_nodes nodes,
 * for @nr_cpus CPUs that run tasks. If the platform has a CPU more per
 * node than that, those are the nodes' kswapd CPUs (kswapd runs beside
 * the tasks, as on a machine with idle CPUs); else there is no kswapd.
 * @nr_pages must be a multiple of 2^MAX_PAGE_ORDER * @nr_nodes.
 * Return: 0 or -ENOMEM.
 */
int fl__page_alloc_init(unsigned long nr_pages, int nr_nodes, int nr_cpus)
{
	unsigned long per_node = nr_pages / (unsigned long)nr_nodes;
	int nid, cpu, i, cpus = nr_cpu_ids_get();
	/* khugepaged's CPU, if any, is the last: not a kswapd's */
	bool kswapd_cpus = nr_cpus > 0 && nr_cpus + nr_nodes <= cpus - (fl__khugepaged_cpu >= 0);

	if (nr_cpus <= 0 || nr_cpus > cpus)
		nr_cpus = cpus;
	fl__max_pfn = nr_pages;
	fl__zero_pfn = nr_pages; /* one extra frame past the managed range */
	mem_map_bytes = ALIGN_UP((nr_pages + 1) * sizeof(struct page), PMD_SIZE);
	tags_bytes = ALIGN_UP((nr_pages + 1) * sizeof(uint64_t), PMD_SIZE);
	mem_map = fl_reserve(mem_map_bytes, true);
	fl__page_tags = fl_reserve(tags_bytes, true);
	lines_bytes = ALIGN_UP((nr_pages + 1) * sizeof(uint16_t), PMD_SIZE);
	fl__page_lines.cpu = fl_reserve(lines_bytes, false);
	fl__page_lines.nr = fl__page_lines.cpu ? nr_pages + 1 : 0;
	fl__page_lines.gen = 0;
	clears_bytes = ALIGN_UP((nr_pages + 1) * sizeof(uint32_t), PMD_SIZE);
	fl__page_cleared.at = fl_reserve(clears_bytes, false);
	fl__page_cleared.nr = fl__page_cleared.at ? nr_pages + 1 : 0;
	pageblock_bytes = ALIGN_UP(nr_pages >> pageblock_order, PMD_SIZE);
	fl__pageblock_mt = fl_reserve(pageblock_bytes, false);
	fl__pageblock_skip = fl_reserve(pageblock_bytes, true);
	fl__cpu_node = fl_calloc((size_t)cpus, sizeof(int));
	if (!fl__pageblock_mt || !fl__pageblock_skip || !mem_map || !fl__page_tags ||
	    !fl__page_lines.cpu || !fl__page_cleared.at || !fl__cpu_node)
		goto err;
	/* every pageblock starts movable, as memmap_init() makes them */
	memset(fl__pageblock_mt, MIGRATE_MOVABLE, nr_pages >> pageblock_order);
	fl__nr_node_ids = nr_nodes;
	for (cpu = 0; cpu < cpus; cpu++)
		fl__cpu_node[cpu] = cpu < nr_cpus ? cpu * nr_nodes / nr_cpus
						  : (cpu - nr_cpus) % nr_nodes;
	for (nid = 0; nid < nr_nodes; nid++) {
		struct pglist_data *pgdat = fl_aligned_alloc(FL_CACHELINE, sizeof(*pgdat));
		struct zone *zone;
		int node_cpus = 0;

		if (!pgdat)
			goto err;
		memset(pgdat, 0, sizeof(*pgdat));
		fl__node_data[nid] = pgdat;
		pgdat->node_id = nid;
		pgdat->node_start_pfn = (unsigned long)nid * per_node;
		pgdat->node_spanned_pages = per_node;
		zone = &pgdat->node_zones[0];
		fl_spin_lock_init(&zone->lock, &zone_lock_class);
		for (i = 0; i < NR_PAGE_ORDERS * MIGRATE_TYPES; i++)
			INIT_LIST_HEAD(
				&zone->free_area[i / MIGRATE_TYPES].free_list[i % MIGRATE_TYPES]);
		zone->name = "Normal";
		zone->zone_pgdat = pgdat;
		fl__deferred_split_init(&pgdat->deferred_split_queue);
		zone->zone_start_pfn = pgdat->node_start_pfn;
		zone->spanned_pages = per_node;
		zone->managed_pages = per_node;
		zone->frontier_pfn = zone->zone_start_pfn;
		zone->free_pages = (long)per_node;
		zone->per_cpu_pageset = fl_aligned_alloc(FL_CACHELINE,
							 sizeof(struct per_cpu_pages) *
								 (size_t)cpus);
		if (!zone->per_cpu_pageset)
			goto err;
		for (cpu = 0; cpu < nr_cpus; cpu++)
			node_cpus += fl__cpu_node[cpu] == nid;
		pgdat->kswapd_cpu = kswapd_cpus ? nr_cpus + nid : -1;
		for (cpu = 0; cpu < cpus; cpu++) {
			struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];

			memset(pcp, 0, sizeof(*pcp));
			fl_spin_lock_init(&pcp->lock, &pcp_lock_class);
			for (i = 0; i < NR_PCP_LISTS; i++)
				INIT_LIST_HEAD(&pcp->lists[i]);
			pcp->batch = zone_batchsize(per_node);
			pcp->high_min = zone_highsize(per_node, nr_pages, pcp->batch,
						      node_cpus ? node_cpus : 1);
			pcp->high_max = (int)
				fl_max_ul(per_node / 8 / (unsigned long)(node_cpus ? node_cpus : 1),
					  (unsigned long)pcp->high_min);
			pcp->high = pcp->high_min;
			/*
			 * setup_pcp_cacheinfo() sets it when a CPU's share of the
			 * last-level cache holds more than 3 batches (756 KiB at
			 * batch 63): true of the servers the seeds measure and of
			 * this project's host (105 MiB over 2 CPUs).
			 */
			pcp->flags = PCPF_FREE_HIGH_BATCH;
		}
		fl__lruvec_init(&pgdat->__lruvec, pgdat);
		fl__compaction_init(zone);
	}
	min_free_kbytes = calculate_min_free_kbytes(nr_pages);
	setup_per_zone_wmarks();
	/* the shared zero page: outside every zone, never allocated or freed */
	pfn_to_page(fl__zero_pfn)->flags = 0;
	pfn_to_page(fl__zero_pfn)->_refcount = 1;
	return 0;
err:
	fl__page_alloc_exit();
	return -ENOMEM;
}

void fl__page_alloc_exit(void)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!fl__node_data[nid])
			continue;
		fl_free(fl__node_data[nid]->node_zones[0].per_cpu_pageset);
		fl_free(fl__node_data[nid]);
		fl__node_data[nid] = NULL;
	}
	fl_unreserve(mem_map, mem_map_bytes);
	fl_unreserve(fl__page_tags, tags_bytes);
	fl_unreserve(fl__page_lines.cpu, lines_bytes);
	fl__page_lines.cpu = NULL;
	fl__page_lines.nr = 0;
	fl_unreserve(fl__page_cleared.at, clears_bytes);
	fl__page_cleared.at = NULL;
	fl__page_cleared.nr = 0;
	fl_unreserve(fl__pageblock_mt, pageblock_bytes);
	fl__pageblock_mt = NULL;
	fl_unreserve(fl__pageblock_skip, pageblock_bytes);
	fl__pageblock_skip = NULL;
	fl_free(fl__cpu_node);
	mem_map = NULL;
	fl__page_tags = NULL;
	fl__cpu_node = NULL;
	fl__nr_node_ids = 0;
	fl__max_pfn = 0;
}

/**
 * fl__page_alloc_check() - frame conservation after everything was freed:
 * every zone's free pages plus its pcp pages equal its managed pages, and
 * the free lists add up to its free count.
 * Context: nothing else runs; the check takes no lock, so it does not
 * show in the lock table.
 * Return: frames not free (0 when nothing leaked).
 */
long fl__page_alloc_check(char *msg, size_t len)
{
	long missing = 0;
	int nid, cpu;

	if (msg && len)
		msg[0] = '\0';
	for_each_online_node (nid) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[0];
		unsigned long listed = zone_end_pfn(zone) - zone->frontier_pfn;
		long on_pcp = 0;
		int o;

		for (o = 0; o < NR_PAGE_ORDERS; o++)
			listed += zone->free_area[o].nr_free << o;
		for_each_online_cpu (cpu)
			on_pcp += zone->per_cpu_pageset[cpu].count;
		if ((long)listed != zone->free_pages && msg && len)
			snprintf(msg, len,
				 "node %d: free lists hold %lu pages but free_pages is %ld", nid,
				 listed, zone->free_pages);
		missing += (long)zone->managed_pages - zone->free_pages - on_pcp;
	}
	if (missing && msg && len && !msg[0])
		snprintf(msg, len, "%ld frames leaked (not free after teardown)", missing);
	return missing;
}

static const char *const migratetype_names[MIGRATE_TYPES] = { "Unmovable", "Movable",
							      "Reclaimable" };

/*
 * fl__fraginfo_snapshot() - /proc/buddyinfo's free blocks per order and
 * the second table of /proc/pagetypeinfo (pageblocks per type), summed
 * over the nodes, as "buddyinfo/order-N" and "pagetypeinfo/blocks/<Type>".
 * Never-touched memory counts as the max-order movable blocks it is.
 * Lockless reads: a snapshot taken while tasks run may be off by a block.
 * Return: 0 or -ENOMEM.
 */
int fl__fraginfo_snapshot(struct fl_counters *c)
{
	int64_t blocks[MIGRATE_TYPES] = { 0 }, nr_free[NR_PAGE_ORDERS] = { 0 };
	char name[64];
	unsigned long i;
	int nid, o, ret = 0;

	for_each_online_node (nid) {
		struct zone *z = &NODE_DATA(nid)->node_zones[0];

		for (o = 0; o < NR_PAGE_ORDERS; o++)
			nr_free[o] += (int64_t)READ_ONCE(z->free_area[o].nr_free);
		nr_free[MAX_PAGE_ORDER] += (int64_t)zone_frontier_blocks(z);
	}
	for (i = 0; i < fl__max_pfn >> pageblock_order; i++)
		blocks[READ_ONCE(fl__pageblock_mt[i])]++;
	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		snprintf(name, sizeof(name), "buddyinfo/order-%d", o);
		ret |= fl_counters_set(c, name, nr_free[o]);
	}
	for (o = 0; o < MIGRATE_TYPES; o++) {
		snprintf(name, sizeof(name), "pagetypeinfo/blocks/%s", migratetype_names[o]);
		ret |= fl_counters_set(c, name, blocks[o]);
	}
	return ret;
}

unsigned long fl__nr_free_pages(void)
{
	unsigned long n = 0;
	int nid;

	for_each_online_node (nid)
		n += (unsigned long)READ_ONCE(NODE_DATA(nid)->node_zones[0].free_pages);
	return n;
}
