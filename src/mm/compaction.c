// SPDX-License-Identifier: GPL-2.0-only
/*
 * compaction.c - memory compaction (mm/compaction.c in the kernel): the
 * migrate scanner walks a zone's pageblocks up from its start isolating
 * movable folios, the free scanner walks down from its end isolating free
 * blocks, and migrate_pages() moves the first into the second, until the
 * scanners meet or a free block of the wanted order (or one a fallback
 * may claim) appears.
 *
 * Callers, as in 6.18: direct compaction in the allocation slow path
 * (try_to_compact_pages(): async first, then sync-light, deferred per
 * zone and order after failures: compaction_deferred()); kcompactd, woken
 * by kswapd when it goes to sleep or ends a boosted run, and by an
 * allocation that may not reclaim; proactive compaction when the node's
 * fragmentation score passes vm.compaction_proactiveness's mark; and
 * vm/compact_memory, which compacts every zone whole.
 *
 * Rules kept: the per-pageblock skip hints (PB_migrate_skip) and the
 * scanners' cached positions, async direct compaction giving up an
 * order-aligned block at its first failure and taking only blocks of its
 * own migratetype, the free scanner's stride, the targets (movable blocks
 * without a free block of the wanted order), __isolate_free_page()'s
 * watermark, compaction_suitable() with the fragmentation index for
 * costly orders (vm.extfrag_threshold), __compact_finished()'s tests.
 *
 * Not modelled: fast_find_migrateblock() and fast_isolate_freepages()
 * (the free-list searches that pick blocks before the linear scan),
 * capture_control (a page freed during direct compaction goes to the
 * lists, where the allocation retry finds it unless another CPU takes it
 * first), too_many_isolated(), lock contention aborts (COMPACT_CONTENDED
 * only from migrate_pages()'s -ENOMEM), the cost of scanning (the
 * simulator charges migrations, locks and frees, not the pages looked
 * at). kcompactd runs on its node's kswapd thread (the model gives a node
 * one spare CPU): its work follows kswapd's, and its proactive check runs
 * when kswapd wakes, at most every 500 ms.
 *
 * Conventions in this file: @cc is one compaction of one zone; "block"
 * is a pageblock unless said otherwise.
 */
#include <stdio.h>
#include "migrate.h"

#define COMPACT_CLUSTER_MAX SWAP_CLUSTER_MAX
#define COMPACT_MAX_DEFER_SHIFT 6
#define HPAGE_FRAG_CHECK_INTERVAL_NS 500000000ull

int sysctl_compaction_proactiveness = 20; /* vm.compaction_proactiveness */
int sysctl_extfrag_threshold = 500;	  /* vm.extfrag_threshold */
int sysctl_compact_unevictable_allowed = 1;

struct compact_control {
	struct list_head freepages[NR_PAGE_ORDERS]; /* isolated free blocks, by order */
	struct list_head migratepages;		    /* isolated folios */
	unsigned long nr_freepages, nr_migratepages;
	unsigned long free_pfn;	   /* the free scanner: blocks below it are next */
	unsigned long migrate_pfn; /* the migrate scanner: from here up */
	unsigned long total_migrate_scanned, total_free_scanned;
	struct zone *zone;
	gfp_t gfp_mask;
	int order; /* -1: compact everything (compact_memory, proactive) */
	int migratetype;
	unsigned int alloc_flags;
	enum migrate_mode mode;
	bool ignore_skip_hint, ignore_block_suitable, direct_compaction;
	bool proactive_compaction, whole_zone, finish_pageblock;
	bool kcompactd; /* on kswapd's thread: yields to it (the model's) */
};

static inline bool is_via_compact_memory(int order)
{
	return order == -1;
}

/* the end of what was ever handed out: past it every block is a free max-order one */
static inline unsigned long zone_used_end(const struct zone *zone)
{
	unsigned long end = ALIGN_UP(READ_ONCE(zone->frontier_pfn), pageblock_nr_pages);

	return end > zone->zone_start_pfn ? end : zone->zone_start_pfn + pageblock_nr_pages;
}

static inline unsigned long pageblock_start_pfn(unsigned long pfn)
{
	return pfn & ~(pageblock_nr_pages - 1);
}

static inline unsigned long pageblock_end_pfn(unsigned long pfn)
{
	return pageblock_start_pfn(pfn) + pageblock_nr_pages;
}

static inline bool get_pageblock_skip(unsigned long pfn)
{
	return READ_ONCE(fl__pageblock_skip[pfn >> pageblock_order]);
}

static inline void set_pageblock_skip(unsigned long pfn)
{
	WRITE_ONCE(fl__pageblock_skip[pfn >> pageblock_order], 1);
}

/* ---- deferral: after a failure at an order, skip 1, 2, ... 64 tries ---- */

static void defer_compaction(struct zone *zone, int order)
{
	zone->compact_considered = 0;
	if (zone->compact_defer_shift < COMPACT_MAX_DEFER_SHIFT)
		zone->compact_defer_shift++;
	if (order < zone->compact_order_failed)
		zone->compact_order_failed = order;
}

static bool compaction_deferred(struct zone *zone, int order)
{
	unsigned int limit = 1u << zone->compact_defer_shift;

	if (order < zone->compact_order_failed)
		return false;
	if (++zone->compact_considered >= limit) {
		zone->compact_considered = limit;
		return false;
	}
	return true;
}

/* compaction_defer_reset(): @order succeeded (or should) */
static void compaction_defer_reset(struct zone *zone, int order, bool alloc_success)
{
	if (alloc_success) {
		zone->compact_considered = 0;
		zone->compact_defer_shift = 0;
	}
	if (order >= zone->compact_order_failed)
		zone->compact_order_failed = order + 1;
}

static bool compaction_restarting(struct zone *zone, int order)
{
	return order >= zone->compact_order_failed &&
	       zone->compact_defer_shift == COMPACT_MAX_DEFER_SHIFT &&
	       zone->compact_considered >= 1u << zone->compact_defer_shift;
}

/* ---- skip hints and cached positions ---- */

static void reset_cached_positions(struct zone *zone)
{
	zone->compact_cached_migrate_pfn[0] = zone->zone_start_pfn;
	zone->compact_cached_migrate_pfn[1] = zone->zone_start_pfn;
	zone->compact_cached_free_pfn = pageblock_start_pfn(zone_end_pfn(zone) - 1);
}

/* __reset_isolation_suitable(): clear the zone's skip hints, start the scanners anew */
static void __reset_isolation_suitable(struct zone *zone)
{
	memset(&fl__pageblock_skip[zone->zone_start_pfn >> pageblock_order], 0,
	       zone->spanned_pages >> pageblock_order);
	reset_cached_positions(zone);
	zone->compact_blockskip_flush = false;
}

/* reset_isolation_suitable() - kswapd goes to sleep: direct compaction's hints go */
void reset_isolation_suitable(struct pglist_data *pgdat)
{
	struct zone *zone = &pgdat->node_zones[0];

	if (zone->compact_blockskip_flush)
		__reset_isolation_suitable(zone);
}

static inline bool isolation_suitable(struct compact_control *cc, unsigned long pfn)
{
	return cc->ignore_skip_hint || !get_pageblock_skip(pfn);
}

static void update_cached_migrate(struct compact_control *cc, unsigned long pfn)
{
	struct zone *zone = cc->zone;

	pfn = pageblock_end_pfn(pfn);
	if (pfn > zone->compact_cached_migrate_pfn[0])
		zone->compact_cached_migrate_pfn[0] = pfn;
	if (cc->mode != MIGRATE_ASYNC && pfn > zone->compact_cached_migrate_pfn[1])
		zone->compact_cached_migrate_pfn[1] = pfn;
}

/* the free scanner scanned @block whole: skip it next time, and go on from @next */
static void update_pageblock_skip(struct compact_control *cc, unsigned long block,
				  unsigned long next)
{
	set_pageblock_skip(block);
	if (next < cc->zone->compact_cached_free_pfn)
		cc->zone->compact_cached_free_pfn = next;
}

static inline bool compact_scanners_met(const struct compact_control *cc)
{
	return (cc->free_pfn >> pageblock_order) <= (cc->migrate_pfn >> pageblock_order);
}

/* ---- the free scanner ---- */

static inline bool page_is_buddy_unsafe(const struct page *page)
{
	return fl_test_bit(PG_buddy, &page->flags);
}

/*
 * isolate_freepages_block() - take the free blocks of [*@start, @end)
 * (every @stride-th page looked at), until the zone's min watermark would
 * break or there are as many free pages as folios to move. *@start ends
 * where the scan stopped. Return: the pages isolated.
 */
static unsigned long isolate_freepages_block(struct compact_control *cc, unsigned long *start,
					     unsigned long end, unsigned int stride)
{
	unsigned long pfn = *start, nr_scanned = 0, total = 0;
	bool locked = false;

	for (; pfn < end; pfn += stride) {
		struct page *page = pfn_to_page(pfn);
		unsigned long isolated;
		unsigned int order;

		nr_scanned++;
		if (fl_test_bit(PG_head, &page->flags)) {
			order = folio_order((struct folio *)page);
			if (order <= MAX_PAGE_ORDER && pfn + (1ul << order) <= end) {
				pfn += (1ul << order) - 1;
				nr_scanned += (1ul << order) - 1;
			}
			continue;
		}
		if (!page_is_buddy_unsafe(page))
			continue;
		if (!locked) {
			spin_lock(&cc->zone->lock);
			locked = true;
			if (!page_is_buddy_unsafe(page))
				continue;
		}
		order = (unsigned int)READ_ONCE(page->private);
		isolated = __isolate_free_page(page, order);
		if (!isolated)
			break;
		WRITE_ONCE(page->private, (unsigned long)order);
		nr_scanned += isolated - 1;
		total += isolated;
		cc->nr_freepages += isolated;
		list_add_tail(&page->lru, &cc->freepages[order]);
		if (cc->nr_migratepages <= cc->nr_freepages) {
			pfn += isolated;
			break;
		}
		pfn += isolated - 1;
	}
	if (locked)
		spin_unlock(&cc->zone->lock);
	*start = pfn < end ? pfn : end;
	cc->total_free_scanned += nr_scanned;
	if (total)
		count_vm_events(COMPACTISOLATED, total);
	return total;
}

/*
 * suitable_migration_target(): a movable block without a free block of
 * the wanted order (of a pageblock, for compact_memory) at its start
 */
static bool suitable_migration_target(struct compact_control *cc, unsigned long pfn)
{
	struct page *page = pfn_to_page(pfn);

	if (page_is_buddy_unsafe(page)) {
		unsigned int order = cc->order > 0 ? (unsigned int)cc->order : pageblock_order;

		if (READ_ONCE(page->private) >= order)
			return false;
	}
	return cc->ignore_block_suitable ||
	       fl__pageblock_mt[pfn >> pageblock_order] == MIGRATE_MOVABLE;
}

/*
 * isolate_freepages() - walk the blocks down from cc->free_pfn (never
 * below the migrate scanner's block), async every 32nd page at first,
 * denser once a block gave something, until there are free pages for
 * every folio isolated.
 */
static void isolate_freepages(struct compact_control *cc)
{
	unsigned long start = cc->free_pfn, block = pageblock_start_pfn(start);
	unsigned long block_end = fl_min_ul(block + pageblock_nr_pages, zone_end_pfn(cc->zone));
	unsigned long low_pfn = pageblock_end_pfn(cc->migrate_pfn);
	unsigned int stride = cc->mode == MIGRATE_ASYNC ? COMPACT_CLUSTER_MAX : 1;

	for (; block >= low_pfn; block_end = block, block -= pageblock_nr_pages, start = block) {
		unsigned long nr;

		if (!suitable_migration_target(cc, block) || !isolation_suitable(cc, block))
			continue;
		nr = isolate_freepages_block(cc, &start, block_end, stride);
		if (start == block_end)
			/*
			 * 6.18 marks the block just scanned; the model marks the
			 * next one (a known difference, docs/fidelity.md): marking the
			 * scanned one, with no fast_isolate_freepages() to find free
			 * pages from the lists, leaves async compaction's strided scan
			 * blind to every other page free (test-compaction)
			 */
			update_pageblock_skip(cc, block - pageblock_nr_pages,
					      block - pageblock_nr_pages);
		if (cc->nr_freepages >= cc->nr_migratepages) {
			if (start >= block_end)
				start = block - pageblock_nr_pages;
			break;
		} else if (start < block_end) {
			break; /* the watermark stopped it */
		}
		if (nr) {
			stride = 1;
			continue;
		}
		stride = (unsigned int)fl_min_ul(COMPACT_CLUSTER_MAX, stride << 1);
		if (block < pageblock_nr_pages)
			break;
	}
	cc->free_pfn = start;
}

/* release_free_list(): isolated free blocks back to the allocator. Return: the highest pfn. */
static unsigned long release_free_list(struct list_head *freepages)
{
	unsigned long high_pfn = 0;
	unsigned int order;

	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		while (!list_empty(&freepages[order])) {
			struct page *page = list_first_entry(&freepages[order], struct page, lru);
			unsigned long pfn = page_to_pfn(page);

			list_del(&page->lru);
			fl__prep_isolated_page(page, order);
			__free_pages(page, order);
			if (pfn > high_pfn)
				high_pfn = pfn;
		}
	}
	return high_pfn;
}

/* compaction_alloc() - migrate_pages()'s destination: an isolated free block, split to size */
static struct folio *compaction_alloc(struct folio *src, unsigned long data)
{
	struct compact_control *cc = (struct compact_control *)data;
	unsigned int order = folio_order(src), start_order;
	bool has_isolated_pages = false;
	struct page *page;

again:
	for (start_order = order; start_order < NR_PAGE_ORDERS; start_order++)
		if (!list_empty(&cc->freepages[start_order]))
			break;
	if (start_order == NR_PAGE_ORDERS) {
		if (has_isolated_pages)
			return NULL;
		isolate_freepages(cc);
		has_isolated_pages = true;
		goto again;
	}
	page = list_first_entry(&cc->freepages[start_order], struct page, lru);
	list_del(&page->lru);
	while (start_order > order) {
		start_order--;
		list_add(&page[1ul << start_order].lru, &cc->freepages[start_order]);
		WRITE_ONCE(page[1ul << start_order].private, (unsigned long)start_order);
	}
	fl__prep_isolated_page(page, order);
	cc->nr_freepages -= 1ul << order;
	cc->nr_migratepages -= 1ul << order;
	return (struct folio *)page;
}

/* compaction_free() - a destination migration did not use goes back to the isolated blocks */
static void compaction_free(struct folio *dst, unsigned long data)
{
	struct compact_control *cc = (struct compact_control *)data;
	unsigned int order = folio_order(dst);

	if (folio_put_testzero(dst) && fl__free_pages_prepare((struct page *)dst, order)) {
		WRITE_ONCE(dst->private, (unsigned long)order);
		list_add(&dst->lru, &cc->freepages[order]);
		cc->nr_freepages += 1ul << order;
	}
	cc->nr_migratepages += 1ul << order;
}

/* ---- the migrate scanner ---- */

enum isolate_migrate { ISOLATE_ABORT, ISOLATE_NONE, ISOLATE_SUCCESS };

/* skip_isolation_on_order(): no point moving a folio as large as the wanted block */
static inline bool skip_isolation_on_order(unsigned int order, int target_order)
{
	if (!is_via_compact_memory(target_order) && order >= (unsigned int)target_order)
		return true;
	return order >= pageblock_order;
}

static inline unsigned long block_end_pfn(unsigned long pfn, int order)
{
	return (pfn | ((1ul << order) - 1)) + 1;
}

/*
 * isolate_migratepages_block() - isolate the LRU folios of [@low_pfn,
 * @end_pfn) onto cc->migratepages, at most COMPACT_CLUSTER_MAX pages a
 * call unless the block is to be finished. Skipped: free blocks, folios
 * as large as the wanted order, pages not on an LRU (page tables, the
 * folios in a per-CPU batch), anon folios with more references than
 * mappings (pinned), writeback in async mode. Async direct compaction
 * gives up an order-aligned block at its first failure.
 */
static void isolate_migratepages_block(struct compact_control *cc, unsigned long low_pfn,
				       unsigned long end_pfn)
{
	bool skip_on_failure = cc->direct_compaction && cc->mode == MIGRATE_ASYNC &&
			       !is_via_compact_memory(cc->order);
	unsigned long next_skip_pfn = skip_on_failure ? block_end_pfn(low_pfn, cc->order) : 0;
	unsigned long nr_scanned = 0, nr_isolated = 0, start = low_pfn;

	for (; low_pfn < end_pfn; low_pfn++) {
		struct page *page;
		struct folio *folio;
		unsigned long nr;

		if (skip_on_failure && low_pfn >= next_skip_pfn) {
			if (nr_isolated)
				break; /* migrate what the last aligned block gave */
			next_skip_pfn = block_end_pfn(low_pfn, cc->order);
		}
		nr_scanned++;
		page = pfn_to_page(low_pfn);
		if (page_is_buddy_unsafe(page)) {
			unsigned long order = READ_ONCE(page->private);

			if (order > 0 && order <= MAX_PAGE_ORDER) {
				low_pfn += (1ul << order) - 1;
				nr_scanned += (1ul << order) - 1;
			}
			continue;
		}
		if (fl_test_bit(PG_head, &page->flags)) {
			unsigned int order = folio_order((struct folio *)page);

			if (skip_isolation_on_order(order, cc->order)) {
				if (order <= MAX_PAGE_ORDER) {
					low_pfn += (1ul << order) - 1;
					nr_scanned += (1ul << order) - 1;
				}
				goto isolate_fail;
			}
		}
		if (PageTail(page) || !fl_test_bit(PG_lru, &page->flags))
			goto isolate_fail;
		folio = (struct folio *)page;
		if (!folio_try_get(folio))
			goto isolate_fail;
		if (unlikely(page_folio(page) != folio))
			goto isolate_fail_put;
		if (folio_test_anon(folio) && !folio_test_swapcache(folio) &&
		    folio_ref_count(folio) - 1 > folio_mapcount(folio))
			goto isolate_fail_put;
		if (folio_test_unevictable(folio) && !sysctl_compact_unevictable_allowed)
			goto isolate_fail_put;
		if (cc->mode != MIGRATE_SYNC && folio_test_writeback(folio))
			goto isolate_fail_put;
		if (!folio_isolate_lru(folio))
			goto isolate_fail_put;
		folio_put(folio); /* the isolation holds its own */
		nr = folio_nr_pages(folio);
		mod_node_page_state(folio_pgdat(folio), folio_isolated_item(folio), (long)nr);
		list_add(&folio->lru, &cc->migratepages);
		cc->nr_migratepages += nr;
		nr_isolated += nr;
		low_pfn += nr - 1;
		if (cc->nr_migratepages >= COMPACT_CLUSTER_MAX && !cc->finish_pageblock) {
			low_pfn++;
			break;
		}
		continue;
isolate_fail_put:
		folio_put(folio);
isolate_fail:
		if (!skip_on_failure)
			continue;
		if (nr_isolated) {
			putback_movable_pages(&cc->migratepages);
			cc->nr_migratepages = 0;
			nr_isolated = 0;
		}
		if (low_pfn < next_skip_pfn) {
			low_pfn = next_skip_pfn - 1;
			next_skip_pfn += 1ul << cc->order;
		}
	}
	if (low_pfn > end_pfn)
		low_pfn = end_pfn;
	if (low_pfn == end_pfn && (!nr_isolated || cc->finish_pageblock)) {
		set_pageblock_skip(start);
		update_cached_migrate(cc, low_pfn - 1);
	}
	cc->total_migrate_scanned += nr_scanned;
	if (nr_isolated)
		count_vm_events(COMPACTISOLATED, nr_isolated);
	cc->migrate_pfn = low_pfn;
}

/* suitable_migration_source(): async direct compaction moves only its own type's blocks */
static bool suitable_migration_source(struct compact_control *cc, unsigned long pfn)
{
	int mt;

	if (cc->mode != MIGRATE_ASYNC || !cc->direct_compaction)
		return true;
	mt = READ_ONCE(fl__pageblock_mt[pfn >> pageblock_order]);
	return mt == cc->migratetype;
}

/* isolate_migratepages() - the next block, from cc->migrate_pfn up, that gives folios */
static enum isolate_migrate isolate_migratepages(struct compact_control *cc)
{
	unsigned long low_pfn = cc->migrate_pfn;
	unsigned long block_end = pageblock_end_pfn(low_pfn);

	for (; block_end <= cc->free_pfn;
	     cc->migrate_pfn = low_pfn = block_end, block_end += pageblock_nr_pages) {
		unsigned long block = pageblock_start_pfn(low_pfn);

		if ((low_pfn == block || low_pfn == cc->zone->zone_start_pfn) &&
		    !isolation_suitable(cc, block))
			continue;
		if (!suitable_migration_source(cc, block)) {
			update_cached_migrate(cc, block_end - 1);
			continue;
		}
		isolate_migratepages_block(cc, low_pfn, block_end);
		break;
	}
	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}

/* ---- when to stop ---- */

struct contig_page_info {
	unsigned long free_pages, free_blocks_total, free_blocks_suitable;
};

/* fill_contig_page_info(): free pages and blocks, and blocks of @order or more (as order blocks) */
static void fill_contig_page_info(struct zone *zone, unsigned int order,
				  struct contig_page_info *info)
{
	unsigned int o;

	info->free_pages = info->free_blocks_total = info->free_blocks_suitable = 0;
	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		unsigned long blocks = READ_ONCE(zone->free_area[o].nr_free);

		if (o == MAX_PAGE_ORDER)
			blocks += zone_frontier_blocks(zone);
		info->free_blocks_total += blocks;
		info->free_pages += blocks << o;
		if (o >= order)
			info->free_blocks_suitable += blocks << (o - order);
	}
}

/*
 * fragmentation_index() - toward 0, a failure at @order is want of memory;
 * toward 1000, of contiguity; -1000: a block is free.
 */
static int fragmentation_index(struct zone *zone, unsigned int order)
{
	struct contig_page_info info;

	fill_contig_page_info(zone, order, &info);
	if (!info.free_blocks_total)
		return 0;
	if (info.free_blocks_suitable)
		return -1000;
	return 1000 -
	       (int)((1000 + info.free_pages * 1000 / (1ul << order)) / info.free_blocks_total);
}

/* fragmentation_score_zone(): the share of free memory in pieces below a THP (0..100) */
static unsigned int fragmentation_score_zone(struct zone *zone)
{
	struct contig_page_info info;

	fill_contig_page_info(zone, HPAGE_PMD_ORDER, &info);
	if (!info.free_pages)
		return 0;
	return (unsigned int)((info.free_pages - (info.free_blocks_suitable << HPAGE_PMD_ORDER)) *
			      100 / info.free_pages);
}

/* one zone a node: the node's score is the zone's, weighted by its share of the node */
static unsigned int fragmentation_score_node(struct pglist_data *pgdat)
{
	struct zone *zone = &pgdat->node_zones[0];

	return (unsigned int)(fragmentation_score_zone(zone) * zone->managed_pages /
			      (pgdat->node_spanned_pages + 1));
}

static unsigned int fragmentation_score_wmark(bool low)
{
	unsigned int wmark_low = (unsigned int)
		fl_max_ul(100ul - (unsigned long)sysctl_compaction_proactiveness, 5);

	return low ? wmark_low : (unsigned int)fl_min_ul(wmark_low + 10, 100);
}

/*
 * kswapd_is_running(): 6.18 asks whether kswapd's task runs. The model's
 * kcompactd shares kswapd's thread, so it asks what would wake kswapd: a
 * zone below its high watermark, or a wake-up waiting.
 */
static bool kswapd_is_running(struct pglist_data *pgdat)
{
	struct zone *zone = &pgdat->node_zones[0];

	return fl_atomic_load(&pgdat->kswapd_order, __ATOMIC_RELAXED) ||
	       !zone_watermark_ok(zone, 0, high_wmark_pages(zone));
}

static enum compact_result __compact_finished(struct compact_control *cc)
{
	int order;

	if (compact_scanners_met(cc)) {
		reset_cached_positions(cc->zone);
		if (cc->direct_compaction)
			cc->zone->compact_blockskip_flush = true;
		return cc->whole_zone ? COMPACT_COMPLETE : COMPACT_PARTIAL_SKIPPED;
	}
	/*
	 * the model's kcompactd holds kswapd's thread: it stops when kswapd
	 * has work, as an abort (not a failure that would defer the order)
	 */
	if (cc->kcompactd && kswapd_is_running(cc->zone->zone_pgdat))
		return COMPACT_CONTENDED;
	if (cc->proactive_compaction) {
		return fragmentation_score_zone(cc->zone) > fragmentation_score_wmark(true)
			       ? COMPACT_CONTINUE
			       : COMPACT_SUCCESS;
	}
	if (is_via_compact_memory(cc->order))
		return COMPACT_CONTINUE;
	/* finish the pageblock: fewer fallbacks later */
	if (cc->migrate_pfn & (pageblock_nr_pages - 1))
		return COMPACT_CONTINUE;
	for (order = cc->order; order < NR_PAGE_ORDERS; order++) {
		if (!free_area_empty(cc->zone, (unsigned int)order, cc->migratetype))
			return COMPACT_SUCCESS;
		if (find_suitable_fallback(cc->zone, (unsigned int)order, cc->migratetype, true) >=
		    0)
			return COMPACT_SUCCESS;
	}
	return COMPACT_CONTINUE; /* COMPACT_NO_SUITABLE_PAGE, which the caller continues */
}

/* __compaction_suitable(): enough order-0 memory for the targets, a gap more for costly orders */
static bool __compaction_suitable(struct zone *zone, int order, unsigned long watermark,
				  long free_pages)
{
	watermark += compact_gap((unsigned int)order);
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		watermark += low_wmark_pages(zone) - min_wmark_pages(zone);
	return fl__zone_watermark_ok(zone, 0, watermark, free_pages, 0);
}

static bool compaction_suitable(struct zone *zone, int order, unsigned long watermark)
{
	if (!__compaction_suitable(zone, order, watermark, READ_ONCE(zone->free_pages)))
		return false;
	if (order > PAGE_ALLOC_COSTLY_ORDER) {
		int fragindex = fragmentation_index(zone, (unsigned int)order);

		if (fragindex >= 0 && fragindex <= READ_ONCE(sysctl_extfrag_threshold))
			return false; /* want of memory, not of contiguity */
	}
	return true;
}

/* compaction_zonelist_suitable(): would reclaim give compaction what it needs? */
bool compaction_zonelist_suitable(int order, int nid, gfp_t gfp)
{
	int i;

	for (i = 0; i < fl__nr_node_ids; i++) {
		struct zone *zone = &NODE_DATA((nid + i) % fl__nr_node_ids)->node_zones[0];
		long available = (long)(zone_reclaimable_pages(zone) / (unsigned long)order) +
				 READ_ONCE(zone->free_pages);

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (__compaction_suitable(zone, order, min_wmark_pages(zone), available))
			return true;
	}
	return false;
}

/*
 * compaction_suit_allocation_order(): COMPACT_SUCCESS if the allocation
 * would succeed now, COMPACT_SKIPPED if compaction cannot help, else
 * COMPACT_CONTINUE.
 */
static enum compact_result compaction_suit_allocation_order(struct zone *zone, int order,
							    unsigned int alloc_flags, bool async)
{
	unsigned long watermark = wmark_pages(zone, (enum zone_watermarks)(alloc_flags & 3));

	if (zone_watermark_ok(zone, (unsigned int)order, watermark))
		return COMPACT_SUCCESS;
	if (order > PAGE_ALLOC_COSTLY_ORDER && async &&
	    !fl__zone_watermark_ok(zone, 0, watermark + compact_gap((unsigned int)order),
				   READ_ONCE(zone->free_pages), 0))
		return COMPACT_SKIPPED;
	if (!compaction_suitable(zone, order, watermark))
		return COMPACT_SKIPPED;
	return COMPACT_CONTINUE;
}

/* ---- compact_zone() ---- */

static enum compact_result compact_zone(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	unsigned long start_pfn = zone->zone_start_pfn, end_pfn = zone_used_end(zone);
	unsigned long last_migrated_pfn = 0;
	bool sync = cc->mode != MIGRATE_ASYNC, update_cached;
	enum compact_result ret;
	unsigned int nr_succeeded = 0;
	int order;

	cc->total_migrate_scanned = cc->total_free_scanned = 0;
	cc->nr_migratepages = cc->nr_freepages = 0;
	for (order = 0; order < NR_PAGE_ORDERS; order++)
		INIT_LIST_HEAD(&cc->freepages[order]);
	INIT_LIST_HEAD(&cc->migratepages);
	cc->migratetype = gfp_migratetype(cc->gfp_mask);
	if (!is_via_compact_memory(cc->order)) {
		ret = compaction_suit_allocation_order(zone, cc->order, cc->alloc_flags,
						       cc->mode == MIGRATE_ASYNC);
		if (ret != COMPACT_CONTINUE)
			return ret;
	}
	if (compaction_restarting(zone, cc->order))
		__reset_isolation_suitable(zone);
	if (cc->whole_zone) {
		cc->migrate_pfn = start_pfn;
		cc->free_pfn = pageblock_start_pfn(end_pfn - 1);
	} else {
		cc->migrate_pfn = zone->compact_cached_migrate_pfn[sync];
		cc->free_pfn = zone->compact_cached_free_pfn;
		/* the cached free pfn past what was ever used: start at the used end */
		if (cc->free_pfn < start_pfn || cc->free_pfn >= end_pfn) {
			cc->free_pfn = pageblock_start_pfn(end_pfn - 1);
			zone->compact_cached_free_pfn = cc->free_pfn;
		}
		if (cc->migrate_pfn < start_pfn || cc->migrate_pfn >= end_pfn) {
			cc->migrate_pfn = start_pfn;
			zone->compact_cached_migrate_pfn[0] = start_pfn;
			zone->compact_cached_migrate_pfn[1] = start_pfn;
		}
		if (cc->migrate_pfn <= zone->compact_init_migrate_pfn)
			cc->whole_zone = true;
	}
	update_cached = !sync &&
			zone->compact_cached_migrate_pfn[0] == zone->compact_cached_migrate_pfn[1];
	lru_add_drain();

	while ((ret = __compact_finished(cc)) == COMPACT_CONTINUE) {
		unsigned long iteration_start_pfn = cc->migrate_pfn;
		int err;

		cc->finish_pageblock = pageblock_start_pfn(last_migrated_pfn) ==
				       pageblock_start_pfn(iteration_start_pfn);
rescan:
		switch (isolate_migratepages(cc)) {
		case ISOLATE_ABORT:
			ret = COMPACT_CONTENDED;
			putback_movable_pages(&cc->migratepages);
			cc->nr_migratepages = 0;
			goto out;
		case ISOLATE_NONE:
			if (update_cached)
				zone->compact_cached_migrate_pfn[1] =
					zone->compact_cached_migrate_pfn[0];
			goto check_drain;
		case ISOLATE_SUCCESS:
			update_cached = false;
			last_migrated_pfn = fl_max_ul(start_pfn,
						      pageblock_start_pfn(cc->migrate_pfn - 1));
		}
		err = migrate_pages(&cc->migratepages, compaction_alloc, compaction_free,
				    (unsigned long)cc, cc->mode, MR_COMPACTION, &nr_succeeded);
		cc->nr_migratepages = 0;
		if (err) {
			putback_movable_pages(&cc->migratepages);
			if (err == -ENOMEM && !compact_scanners_met(cc)) {
				ret = COMPACT_CONTENDED;
				goto out;
			}
			/* a failure in an async or light block: scan the rest of it, then skip it */
			if ((cc->migrate_pfn & (pageblock_nr_pages - 1)) && !cc->ignore_skip_hint &&
			    !cc->finish_pageblock && cc->mode < MIGRATE_SYNC) {
				cc->finish_pageblock = true;
				if (cc->order == HPAGE_PMD_ORDER)
					last_migrated_pfn = 0;
				goto rescan;
			}
		}
check_drain:
		/* the scanner left the last migrated order block: let its frees merge */
		if (cc->order > 0 && last_migrated_pfn &&
		    last_migrated_pfn < (cc->migrate_pfn & ~((1ul << cc->order) - 1))) {
			lru_add_drain();
			drain_pages_zone(smp_processor_id(), zone);
			last_migrated_pfn = 0;
		}
	}
out:
	if (cc->nr_freepages > 0) {
		unsigned long free_pfn = pageblock_start_pfn(release_free_list(cc->freepages));

		cc->nr_freepages = 0;
		if (free_pfn > zone->compact_cached_free_pfn)
			zone->compact_cached_free_pfn = free_pfn;
	}
	count_vm_events(COMPACTMIGRATE_SCANNED, cc->total_migrate_scanned);
	count_vm_events(COMPACTFREE_SCANNED, cc->total_free_scanned);
	return ret;
}

/* ---- direct compaction ---- */

static enum compact_result compact_zone_order(struct zone *zone, int order, gfp_t gfp,
					      enum compact_priority prio, unsigned int alloc_flags)
{
	struct compact_control cc = {
		.order = order,
		.gfp_mask = gfp,
		.zone = zone,
		.mode = prio == COMPACT_PRIO_ASYNC ? MIGRATE_ASYNC : MIGRATE_SYNC_LIGHT,
		.alloc_flags = alloc_flags,
		.direct_compaction = true,
		.whole_zone = prio == MIN_COMPACT_PRIORITY,
		.ignore_skip_hint = prio == MIN_COMPACT_PRIORITY,
		.ignore_block_suitable = prio == MIN_COMPACT_PRIORITY,
	};

	return compact_zone(&cc);
}

/*
 * try_to_compact_pages() - direct compaction for an allocation of @order:
 * each zone from node @nid on (only @nid with __GFP_THISNODE) that is not
 * deferred, until one says the allocation should now succeed. A sync
 * compaction that scanned a zone without success defers it.
 * Return: the best result.
 */
enum compact_result try_to_compact_pages(gfp_t gfp, unsigned int order, unsigned int alloc_flags,
					 int nid, enum compact_priority prio)
{
	enum compact_result rc = COMPACT_SKIPPED;
	int i;

	if (!(gfp & __GFP_IO)) /* gfp_compaction_allowed() */
		return COMPACT_SKIPPED;
	for (i = 0; i < fl__nr_node_ids; i++) {
		struct zone *zone = &NODE_DATA((nid + i) % fl__nr_node_ids)->node_zones[0];
		enum compact_result status;

		if (i && (gfp & __GFP_THISNODE))
			break;
		if (prio > MIN_COMPACT_PRIORITY && compaction_deferred(zone, (int)order)) {
			rc = rc > COMPACT_DEFERRED ? rc : COMPACT_DEFERRED;
			continue;
		}
		status = compact_zone_order(zone, (int)order, gfp, prio, alloc_flags);
		rc = status > rc ? status : rc;
		if (status == COMPACT_SUCCESS) {
			compaction_defer_reset(zone, (int)order, false);
			break;
		}
		if (prio != COMPACT_PRIO_ASYNC &&
		    (status == COMPACT_COMPLETE || status == COMPACT_PARTIAL_SKIPPED))
			defer_compaction(zone, (int)order);
	}
	return rc;
}

/* the allocation that followed direct compaction succeeded in @zone */
void compaction_alloc_succeeded(struct zone *zone, unsigned int order)
{
	zone->compact_blockskip_flush = false;
	compaction_defer_reset(zone, (int)order, true);
}

/* ---- whole-node compaction: vm/compact_memory and proactive ---- */

static void compact_node(struct pglist_data *pgdat, bool proactive)
{
	struct compact_control cc = {
		.order = -1,
		.mode = proactive ? MIGRATE_SYNC_LIGHT : MIGRATE_SYNC,
		.ignore_skip_hint = true,
		.whole_zone = true,
		.gfp_mask = GFP_KERNEL,
		.proactive_compaction = proactive,
		.kcompactd = proactive,
		.zone = &pgdat->node_zones[0],
	};

	compact_zone(&cc);
	if (proactive) {
		count_vm_events(KCOMPACTD_MIGRATE_SCANNED, cc.total_migrate_scanned);
		count_vm_events(KCOMPACTD_FREE_SCANNED, cc.total_free_scanned);
	}
}

/* fl__compact_memory() - a write to /proc/sys/vm/compact_memory: every node, whole */
void fl__compact_memory(void)
{
	int nid;

	for_each_online_node (nid)
		compact_node(NODE_DATA(nid), false);
}

/* ---- kcompactd ---- */

static bool kcompactd_node_suitable(struct pglist_data *pgdat, int order)
{
	return compaction_suit_allocation_order(&pgdat->node_zones[0], order, WMARK_MIN, false) ==
	       COMPACT_CONTINUE;
}

/**
 * wakeup_kcompactd() - ask @pgdat's kcompactd for a block of @order. It
 * runs on kswapd's thread (kcompactd_run()): woken if it sleeps and
 * compaction could help, else when it next goes to sleep.
 */
void wakeup_kcompactd(struct pglist_data *pgdat, int order)
{
	int cur = fl_atomic_load(&pgdat->kcompactd_max_order, __ATOMIC_RELAXED);

	if (!order || pgdat->kswapd_cpu < 0)
		return;
	while (cur < order && !fl_atomic_cmpxchg(&pgdat->kcompactd_max_order, &cur, order, true,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (fl_waitq_active(&pgdat->kswapd_wait) && kcompactd_node_suitable(pgdat, order))
		fl_waitq_wake_all(&pgdat->kswapd_wait);
}

/* kcompactd_do_work(): compact the node toward the order asked, sync-light, with deferral */
static void kcompactd_do_work(struct pglist_data *pgdat, int order)
{
	struct zone *zone = &pgdat->node_zones[0];
	struct compact_control cc = {
		.order = order,
		.mode = MIGRATE_SYNC_LIGHT,
		.ignore_skip_hint = false,
		.gfp_mask = GFP_KERNEL,
		.alloc_flags = WMARK_MIN,
		.zone = zone,
		.kcompactd = true,
	};
	enum compact_result status;

	count_vm_event(KCOMPACTD_WAKE);
	if (compaction_deferred(zone, order) ||
	    compaction_suit_allocation_order(zone, order, WMARK_MIN, false) != COMPACT_CONTINUE)
		return;
	status = compact_zone(&cc);
	if (status == COMPACT_SUCCESS) {
		compaction_defer_reset(zone, order, false);
	} else if (status == COMPACT_PARTIAL_SKIPPED || status == COMPACT_COMPLETE) {
		drain_all_pages(zone);
		defer_compaction(zone, order);
	}
	count_vm_events(KCOMPACTD_MIGRATE_SCANNED, cc.total_migrate_scanned);
	count_vm_events(KCOMPACTD_FREE_SCANNED, cc.total_free_scanned);
}

/*
 * kcompactd_run() - kswapd's thread does kcompactd's work for its node:
 * toward @order or what wakeup_kcompactd() asked for, the larger, and, at
 * most every 500 ms (longer
 * after a round that did not lower the score), proactive compaction
 * while the fragmentation score is past vm.compaction_proactiveness's
 * high mark and kswapd has nothing to do.
 */
void kcompactd_run(struct pglist_data *pgdat, int order)
{
	int asked = fl_atomic_xchg(&pgdat->kcompactd_max_order, 0, __ATOMIC_RELAXED);
	uint64_t now;

	order = asked > order ? asked : order;

	if (order && kcompactd_node_suitable(pgdat, order)) {
		kcompactd_do_work(pgdat, order);
		return;
	}
	now = fl_clock_ns();
	if (!READ_ONCE(sysctl_compaction_proactiveness) || now < pgdat->kcompactd_proactive_ns)
		return;
	pgdat->kcompactd_proactive_ns = now + HPAGE_FRAG_CHECK_INTERVAL_NS;
	if (!kswapd_is_running(pgdat) &&
	    fragmentation_score_node(pgdat) > fragmentation_score_wmark(false)) {
		unsigned int prev = fragmentation_score_node(pgdat);

		compact_node(pgdat, true);
		if (fragmentation_score_node(pgdat) >= prev)
			pgdat->kcompactd_proactive_ns = now + (HPAGE_FRAG_CHECK_INTERVAL_NS
							       << COMPACT_MAX_DEFER_SHIFT);
	}
}

/* the zone's compaction state at boot: every position at its start, nothing deferred */
void fl__compaction_init(struct zone *zone)
{
	zone->compact_order_failed = 0;
	zone->compact_considered = 0;
	zone->compact_defer_shift = 0;
	zone->compact_init_migrate_pfn = zone->zone_start_pfn;
	zone->compact_init_free_pfn = pageblock_start_pfn(zone_end_pfn(zone) - 1);
	reset_cached_positions(zone);
}
