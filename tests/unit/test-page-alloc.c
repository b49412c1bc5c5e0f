// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-page-alloc.c - the buddy allocator splits and merges blocks as the
 * buddy rule says, the pcp lists refill and drain in batches, nodes fall
 * back in order, and the conservation check catches a leak.
 *
 * Conventions in this file: each case boots its own machine.
 */
#include <sys/mman.h>
#include "mm_harness.h"

static struct zone *zone0(void)
{
	return &NODE_DATA(0)->node_zones[0];
}

/* An order-4 block from a fresh zone splits one max-order block. */
static bool test_buddy_split_then_merge(void)
{
	struct zone *z;
	struct page *p;
	int o;

	ASSERT_TRUE(mm_up(64, 1, 1));
	z = zone0();
	p = alloc_pages(GFP_KERNEL, 4);
	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(page_to_pfn(p) % 16, 0);
	/* the split leaves exactly one free block at each order 4..9 */
	for (o = 0; o < NR_PAGE_ORDERS; o++)
		ASSERT_EQ(z->free_area[o].nr_free, o >= 4 && o <= 9 ? 1 : 0);
	ASSERT_EQ(z->free_pages, (long)z->managed_pages - 16);
	__free_pages(p, 4);
	/* freeing merges every buddy back into one max-order block */
	for (o = 0; o < MAX_PAGE_ORDER; o++)
		ASSERT_EQ(z->free_area[o].nr_free, 0);
	ASSERT_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 1);
	ASSERT_EQ(z->free_pages, (long)z->managed_pages);
	return mm_down();
}

/* Two buddies merge only once both are free. */
static bool test_buddy_merge_needs_both(void)
{
	struct zone *z;
	struct page *a, *b;

	ASSERT_TRUE(mm_up(64, 1, 1));
	z = zone0();
	a = alloc_pages(GFP_KERNEL, 5);
	b = alloc_pages(GFP_KERNEL, 5);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(page_to_pfn(a) ^ page_to_pfn(b), 32); /* b is a's buddy */
	__free_pages(a, 5);
	ASSERT_EQ(z->free_area[5].nr_free, 1); /* a waits for its buddy */
	ASSERT_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 0);
	__free_pages(b, 5);
	ASSERT_EQ(z->free_area[5].nr_free, 0);
	ASSERT_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 1);
	return mm_down();
}

/* Order 0 comes from the pcp list, refilled by one batch from the zone. */
static bool test_pcp_refill_and_drain(void)
{
	struct per_cpu_pages *pcp;
	struct zone *z;
	struct page *p;
	int64_t refills;

	ASSERT_TRUE(mm_up(1024, 1, 1));
	z = zone0();
	pcp = &z->per_cpu_pageset[0];
	ASSERT_EQ(pcp->batch, 63); /* zone_batchsize() of a 1 GiB zone */
	refills = counter("fl_pcp_refill");
	p = alloc_pages(GFP_KERNEL, 0);
	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(counter("fl_pcp_refill"), refills + 1);
	ASSERT_EQ(pcp->count, pcp->batch - 1);
	ASSERT_EQ(z->free_pages, (long)z->managed_pages - pcp->batch);
	__free_pages(p, 0);
	ASSERT_EQ(pcp->count, pcp->batch);
	/* the pcp pages are not "free" to the zone until drained */
	ASSERT_EQ(z->free_pages, (long)z->managed_pages - pcp->batch);
	drain_all_pages(NULL);
	ASSERT_EQ(pcp->count, 0);
	ASSERT_EQ(z->free_pages, (long)z->managed_pages);
	return mm_down();
}

/* Freeing past pcp->high gives a batch back to the buddy lists. */
static bool test_pcp_high_frees_in_batches(void)
{
	static struct page *pages[40000];
	struct per_cpu_pages *pcp;
	int64_t bulk;
	int i, n;

	ASSERT_TRUE(mm_up(1024, 1, 1));
	pcp = &zone0()->per_cpu_pageset[0];
	/* refills may raise high up to high_max: free more than that */
	n = pcp->high_max + 2 * pcp->batch;
	ASSERT_LT(n, 40000);
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 0);
		ASSERT_TRUE(pages[i] != NULL);
	}
	/* refills raised high on the way (adaptive high), within its bounds */
	ASSERT_GE(pcp->high, pcp->high_min);
	ASSERT_LE(pcp->high, pcp->high_max);
	bulk = counter("fl_pcp_free_bulk");
	for (i = 0; i < n; i++) {
		__free_pages(pages[i], 0);
		ASSERT_LT(pcp->count, pcp->high + (1 << 0));
	}
	/* more pages came back than the lists may ever hold: some went to the zone */
	ASSERT_GT(n, pcp->high_max);
	ASSERT_GT(counter("fl_pcp_free_bulk"), bulk);
	return mm_down();
}

/*
 * The pcp rule of 6.18 for order-0 pages, written here from the kernel's
 * description to check the model against, step by step:
 *  - an allocation halves free_count; a refill (list empty) takes
 *    batch << alloc_factor pages, at most high - count - batch (but a
 *    batch at least), raises high by batch << alloc_factor up to high_max,
 *    and doubles the next refill (alloc_factor + 1, up to 5) if the
 *    whole of it fitted;
 *  - a free halves alloc_factor, adds to free_count (up to batch << 5);
 *    one that finds the count at high raises high to free_count + batch
 *    (within high_min..high_max) for later frees, and gives back
 *    free_count pages (at least a batch, at most high - batch).
 */
struct pcp_sim {
	int count, high, high_min, high_max, batch, free_count, alloc_factor;
	long refills, bulk_frees;
	int max_factor; /* the largest alloc_factor seen */
};

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void sim_alloc(struct pcp_sim *p)
{
	p->free_count >>= 1;
	if (!p->count) {
		int want = p->batch << p->alloc_factor, room;

		p->high = clampi(p->high, p->high_min, p->high_max);
		p->high = p->high + want < p->high_max ? p->high + want : p->high_max;
		room = p->high - p->count - p->batch;
		if (room < p->batch)
			room = p->batch;
		if (want <= room && p->alloc_factor < 5)
			p->alloc_factor++;
		if (p->alloc_factor > p->max_factor)
			p->max_factor = p->alloc_factor;
		p->count += want < room ? want : room;
		p->refills++;
	}
	p->count--;
}

static void sim_free(struct pcp_sim *p)
{
	int high;

	p->alloc_factor >>= 1;
	p->count++;
	if (p->free_count < p->batch << 5)
		p->free_count++;
	high = p->high = clampi(p->high, p->high_min, p->high_max);
	if (p->count >= high && p->high < p->free_count + p->batch)
		p->high = clampi(p->free_count + p->batch, p->high_min, p->high_max);
	if (p->count >= high) {
		int n = clampi(p->free_count, p->batch, high - p->batch);

		p->count -= n < p->count ? n : p->count;
		p->bulk_frees++;
	}
}

/* Runs of order-0 allocations and frees of random lengths, seeded, in a @mb zone. */
static bool pcp_follows_the_rule(unsigned long mb)
{
	static struct page *pages[40000];
	struct per_cpu_pages *pcp;
	struct pcp_sim sim;
	unsigned long rng = 12345;
	int64_t refill0, bulk0;
	int live = 0, run, step = 0;

	ASSERT_TRUE(mm_up(mb, 1, 1));
	pcp = &zone0()->per_cpu_pageset[0];
	ASSERT_EQ(pcp->count, 0);
	ASSERT_LT(pcp->high_min, pcp->high_max); /* the adaptive case */
	sim = (struct pcp_sim){ .high = pcp->high,
				.high_min = pcp->high_min,
				.high_max = pcp->high_max,
				.batch = pcp->batch };
	refill0 = counter("fl_pcp_refill");
	bulk0 = counter("fl_pcp_free_bulk");
	for (run = 0; run < 120; run++) {
		bool alloc;
		int len, i;

		rng = rng * 6364136223846793005ul + 1442695040888963407ul;
		alloc = live == 0 || (live < 36000 && (rng >> 40) % 2);
		len = 1 + (int)((rng >> 20) % 16000);
		for (i = 0; i < len; i++, step++) {
			if (alloc && live < 40000) {
				pages[live] = alloc_pages(GFP_KERNEL, 0);
				ASSERT_TRUE(pages[live] != NULL);
				live++;
				sim_alloc(&sim);
			} else if (!alloc && live > 0) {
				__free_pages(pages[--live], 0);
				sim_free(&sim);
			}
			if (pcp->count != sim.count || pcp->high != sim.high ||
			    (int)pcp->alloc_factor != sim.alloc_factor ||
			    pcp->free_count != sim.free_count)
				printf("# step %d (%s): count %d/%d high %d/%d factor %u/%d "
				       "free_count %d/%d (model/rule)\n",
				       step, alloc ? "alloc" : "free", pcp->count, sim.count,
				       pcp->high, sim.high, pcp->alloc_factor, sim.alloc_factor,
				       pcp->free_count, sim.free_count);
			ASSERT_EQ(pcp->count, sim.count);
			ASSERT_EQ(pcp->high, sim.high);
			ASSERT_EQ((int)pcp->alloc_factor, sim.alloc_factor);
			ASSERT_EQ(pcp->free_count, sim.free_count);
		}
	}
	ASSERT_EQ(counter("fl_pcp_refill") - refill0, sim.refills);
	ASSERT_EQ(counter("fl_pcp_free_bulk") - bulk0, sim.bulk_frees);
	/* both kinds of step happened, and the refills doubled a few times */
	ASSERT_GT(sim.refills, 10);
	ASSERT_GT(sim.bulk_frees, 10);
	ASSERT_GE(sim.max_factor, 3);
	while (live)
		__free_pages(pages[--live], 0);
	return mm_down();
}

static bool test_pcp_follows_the_6_18_rule(void)
{
	return pcp_follows_the_rule(1024) && pcp_follows_the_rule(256);
}

/*
 * A node that an allocation would take below its low watermark is passed
 * over for the next; when every node is below, a costly order fails
 * after one reclaim try (nothing here to reclaim), and __GFP_THISNODE
 * stays on its node.
 */
static bool test_node_fallback(void)
{
	struct page *a, *b, *c;
	struct zone *z0, *z1;

	ASSERT_TRUE(mm_up(8, 2, 2)); /* 1024 pages per node */
	z0 = zone0();
	z1 = &NODE_DATA(1)->node_zones[0];
	/* min_free_kbytes = sqrt(8192 KiB * 16) = 362: 90 pages, 45 a node */
	ASSERT_EQ(min_wmark_pages(z0), 45);
	ASSERT_EQ(min_wmark_pages(z1), 45);
	/* low and high a step of max(min / 4, 1024 * 10 / 10000) = 11 above */
	ASSERT_EQ(low_wmark_pages(z0), 56);
	ASSERT_EQ(high_wmark_pages(z0), 67);
	a = alloc_pages(GFP_KERNEL, PMD_ORDER);
	b = alloc_pages(GFP_KERNEL, PMD_ORDER); /* node 0 would keep 1: below low */
	ASSERT_TRUE(a && b);
	ASSERT_EQ(page_to_nid(a), 0); /* CPU 0 is on node 0 */
	ASSERT_EQ(page_to_nid(b), 1);
	c = alloc_pages(GFP_KERNEL, PMD_ORDER);
	ASSERT_TRUE(c == NULL);
	ASSERT_EQ(__alloc_pages(GFP_KERNEL | __GFP_THISNODE, PMD_ORDER, 0), NULL);
	/*
	 * one reclaim try each, counted twice: a try that frees nothing
	 * walks the memcg tree again in full (memcg_full_walk, 6.10 on)
	 */
	ASSERT_EQ(counter("allocstall_normal"), 2 * 2);
	__free_pages(a, PMD_ORDER);
	__free_pages(b, PMD_ORDER);
	return mm_down();
}

/*
 * The vm sysctls as knobs: vm/min_free_kbytes 1024 on two nodes of 1024
 * pages is 256 pages of min, 128 a node, with a step of max(128 / 4,
 * 1024 * 10 / 10000) = 32; vm/watermark_scale_factor 1000 makes the step
 * 1024 * 1000 / 10000 = 102. Out of range is refused, the value kept.
 */
static bool test_vm_knobs_set_the_watermarks(void)
{
	struct zone *z0;

	ASSERT_TRUE(mm_up(8, 2, 2));
	z0 = zone0();
	ASSERT_TRUE(knob("vm/min_free_kbytes", "1024"));
	ASSERT_EQ(min_wmark_pages(z0), 128);
	ASSERT_EQ(low_wmark_pages(z0), 160);
	ASSERT_EQ(high_wmark_pages(z0), 192);
	ASSERT_TRUE(knob("vm/watermark_scale_factor", "1000"));
	ASSERT_EQ(low_wmark_pages(z0), 230);
	ASSERT_EQ(high_wmark_pages(z0), 332);
	ASSERT_TRUE(!knob("vm/watermark_scale_factor", "3001"));
	ASSERT_EQ(high_wmark_pages(z0), 332);
	ASSERT_TRUE(!knob("vm/swappiness", "201"));
	ASSERT_TRUE(knob("vm/swappiness", "0"));
	ASSERT_EQ(vm_swappiness, 0);
	return mm_down();
}

/*
 * Below min: a plain allocation reclaims, finds nothing and ends in the
 * OOM report (oom_kill 1); __GFP_HIGH may go down to half of min;
 * __GFP_MEMALLOC (reclaim's own allocations) to nothing.
 */
static bool test_watermarks_and_oom(void)
{
	struct page *pages[1024];
	unsigned long min, n = 0, high_got = 0, memalloc_got = 0;
	char report[512];
	struct zone *z;

	ASSERT_TRUE(mm_up(4, 1, 1)); /* 1024 pages */
	z = zone0();
	min = min_wmark_pages(z); /* sqrt(4096 * 16) = 256 KiB: 64 pages */
	ASSERT_EQ(min, 64);
	ASSERT_EQ(fl__oom_report(report, sizeof(report)), 0);
	/* a drain after each one: the pcp refills take no more than that page */
	while ((pages[n] = alloc_pages(GFP_KERNEL, 0)) != NULL) {
		n++;
		drain_all_pages(NULL);
	}
	/* order-0 allocations stop where one more would leave min or fewer free */
	ASSERT_EQ(z->free_pages, (long)min);
	ASSERT_EQ(counter("oom_kill"), 1);
	ASSERT_EQ(fl__oom_report(report, sizeof(report)), 1);
	ASSERT_TRUE(strstr(report, "out of memory: an order-0 GFP_KERNEL allocation") != NULL);
	/*
	 * nothing to reclaim: free + reclaimable could not reach min, so one
	 * try, which counts allocstall twice (its full memcg walk again)
	 */
	ASSERT_EQ(counter("allocstall_normal"), 2);
	ASSERT_TRUE(strstr(report, "after 1 reclaim tries") != NULL);
	while ((pages[n] = alloc_pages(GFP_ATOMIC, 0)) != NULL) {
		n++;
		high_got++;
		drain_all_pages(NULL);
	}
	ASSERT_EQ(z->free_pages, (long)(min - min / 2));
	ASSERT_EQ(high_got, min / 2);
	while (n < 1024 && (pages[n] = alloc_pages(__GFP_MEMALLOC, 0)) != NULL) {
		n++;
		memalloc_got++;
		drain_all_pages(NULL);
	}
	ASSERT_EQ(z->free_pages, 0);
	ASSERT_EQ(memalloc_got, min - min / 2);
	while (n)
		__free_pages(pages[--n], 0);
	return mm_down();
}

/* The end-of-run check reports a frame nobody freed. */
static bool test_leak_is_reported(void)
{
	char msg[256];
	struct page *p;

	ASSERT_TRUE(mm_up(64, 1, 1));
	p = alloc_pages(GFP_KERNEL, 3);
	ASSERT_EQ(fl__page_alloc_check(msg, sizeof(msg)), 8);
	ASSERT_TRUE(strstr(msg, "leaked") != NULL);
	__free_pages(p, 3);
	ASSERT_EQ(fl__page_alloc_check(msg, sizeof(msg)), 0);
	return mm_down();
}

/* Host pages of [@p, @p + @len) that are resident (mincore(2)). */
static long resident_pages(const void *p, size_t len)
{
	static unsigned char vec[1 << 21];
	size_t i, n = (len + 4095) / 4096;
	long r = 0;

	if (n > sizeof(vec) || mincore((void *)((uintptr_t)p & ~4095ul), len, vec))
		return -1;
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

/*
 * A 256 GiB machine boots, and the descriptors and tags of memory never
 * handed out stay untouched: of the 4 GiB of descriptors, what is resident
 * after an allocation is a few huge pages, not the array.
 */
static bool test_huge_machine_boots(void)
{
	size_t desc_bytes = ((256ul << 30) / PAGE_SIZE) * sizeof(struct page);
	struct page *p;
	long res;

	ASSERT_TRUE(mm_up(256ul << 10, 1, 1));
	ASSERT_EQ(sizeof(struct page) + sizeof(uint64_t), 72);
	p = alloc_pages(GFP_KERNEL, 9);
	ASSERT_TRUE(p != NULL);
	res = resident_pages(mem_map, desc_bytes);
	ASSERT_GE(res, 1); /* the descriptors in use */
	ASSERT_LT(res * 4096, 16l << 20);
	res = resident_pages(fl__page_tags, (256ul << 30) / PAGE_SIZE * sizeof(uint64_t));
	ASSERT_LT(res * 4096, 16l << 20);
	__free_pages(p, 9);
	return mm_down();
}

/*
 * Order-2 pages freed in a row with no allocation: once free_count (4 per
 * free) reaches batch + high_min / 2 and the list holds a batch
 * (PCPF_FREE_HIGH_BATCH), a free drains the whole list to the zone and
 * lowers high by 32 batches, down to high_min. Before that no free drains,
 * as long as the count stays under high.
 */
static bool test_pcp_free_high_drains_consecutive_high_order_frees(void)
{
	static struct page *pages[4096];
	struct per_cpu_pages *pcp;
	int64_t bulk;
	int i, k, n, batch, threshold, first, high, drains = 0;

	ASSERT_TRUE(mm_up(1024, 1, 1));
	pcp = &zone0()->per_cpu_pageset[0];
	ASSERT_TRUE(pcp->flags & PCPF_FREE_HIGH_BATCH);
	batch = pcp->batch;
	threshold = batch + pcp->high_min / 2;
	ASSERT_LT(threshold, pcp->high_min); /* no ordinary high drain before it */
	n = threshold / 4 + 8 * batch;
	ASSERT_LT(n, 4096);
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 2);
		ASSERT_TRUE(pages[i] != NULL);
	}
	drain_all_pages(NULL);
	ASSERT_EQ(pcp->count, 0);
	ASSERT_EQ(pcp->free_count, 0); /* every allocation halved it */
	bulk = counter("fl_pcp_free_bulk");
	high = pcp->high; /* the refills above may have raised it */
	/* free i (from 0) sees free_count 4 * i before adding its own 4 */
	first = (threshold + 3) / 4;
	for (i = 0; i < n; i++) {
		int before = pcp->count;

		__free_pages(pages[i], 2);
		if (i < first) {
			ASSERT_EQ(pcp->count, before + 4);
			continue;
		}
		if (before + 4 >= batch) {
			/* drained whole: the list held fewer than 32 batches */
			ASSERT_EQ(pcp->count, 0);
			high = high - (batch << 5) > pcp->high_min ? high - (batch << 5)
								   : pcp->high_min;
			ASSERT_EQ(pcp->high, high);
			drains++;
		} else {
			ASSERT_EQ(pcp->count, before + 4);
		}
	}
	/* the first eligible free drains, then every ceil(batch / 4) frees */
	k = (batch + 3) / 4;
	ASSERT_EQ(drains, 1 + (n - 1 - first) / k);
	ASSERT_EQ(counter("fl_pcp_free_bulk"), bulk + drains);
	return mm_down();
}

/* An order-0 free between two high-order frees, or an allocation, resets the rule. */
static bool test_pcp_free_high_needs_a_run(void)
{
	static struct page *pages[2048];
	struct per_cpu_pages *pcp;
	struct page *small, *again;
	int i, n, threshold;

	ASSERT_TRUE(mm_up(1024, 1, 1));
	pcp = &zone0()->per_cpu_pageset[0];
	threshold = pcp->batch + pcp->high_min / 2;
	n = threshold / 4 + 2;
	ASSERT_LT(n + 2, 2048);
	for (i = 0; i < n + 2; i++)
		ASSERT_TRUE((pages[i] = alloc_pages(GFP_KERNEL, 2)) != NULL);
	small = alloc_pages(GFP_KERNEL, 0);
	ASSERT_TRUE(small != NULL);
	drain_all_pages(NULL);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 2);
	ASSERT_EQ(pcp->count, 0); /* the run drained */
	ASSERT_GE(pcp->free_count, threshold);
	/* an order-0 free clears PCPF_PREV_FREE_HIGH_ORDER: no drain on the next */
	__free_pages(small, 0);
	ASSERT_EQ(pcp->flags & PCPF_PREV_FREE_HIGH_ORDER, 0u);
	__free_pages(pages[n], 2);
	ASSERT_EQ(pcp->count, 1 + 4);
	/* an allocation halves free_count */
	i = pcp->free_count;
	again = alloc_pages(GFP_KERNEL, 0);
	ASSERT_TRUE(again != NULL);
	ASSERT_EQ(pcp->free_count, i / 2);
	__free_pages(again, 0);
	__free_pages(pages[n + 1], 2);
	return mm_down();
}

/* ---- pageblocks and migratetypes ---- */

static int block_mt(unsigned long pfn)
{
	return fl__pageblock_mt[pfn >> pageblock_order];
}

/*
 * A fresh machine's first unmovable page finds no unmovable block and
 * claims the largest movable one, a never-touched max-order block: both
 * its pageblocks become unmovable (a claim of a pageblock or more takes
 * the whole range, with no boost). A movable page then comes from another
 * max-order block, and an unmovable one again from the claimed block.
 */
static bool test_unmovable_claims_a_block(void)
{
	struct page *u, *m, *u2;
	unsigned long base;

	ASSERT_TRUE(mm_up(64, 1, 1));
	u = alloc_pages(GFP_KERNEL, 0);
	ASSERT_TRUE(u != NULL);
	base = page_to_pfn(u) & ~((1ul << MAX_PAGE_ORDER) - 1);
	ASSERT_EQ(block_mt(base), MIGRATE_UNMOVABLE);
	ASSERT_EQ(block_mt(base + pageblock_nr_pages), MIGRATE_UNMOVABLE);
	ASSERT_EQ(counter("fl_extfrag_claim"), 1);
	ASSERT_EQ(counter("pagetypeinfo/blocks/Unmovable"), 2);
	ASSERT_EQ(zone0()->watermark_boost, 0);
	m = alloc_pages(GFP_HIGHUSER_MOVABLE, 0);
	ASSERT_TRUE(m != NULL);
	ASSERT_NE(page_to_pfn(m) >> MAX_PAGE_ORDER, base >> MAX_PAGE_ORDER);
	ASSERT_EQ(block_mt(page_to_pfn(m)), MIGRATE_MOVABLE);
	u2 = alloc_pages(GFP_KERNEL, 3); /* another pcp list, refilled from the claimed block */
	ASSERT_TRUE(u2 != NULL);
	ASSERT_EQ(page_to_pfn(u2) >> MAX_PAGE_ORDER, base >> MAX_PAGE_ORDER);
	ASSERT_EQ(counter("fl_extfrag_claim") + counter("fl_extfrag_steal"), 1);
	__free_pages(u, 0);
	__free_pages(u2, 3);
	__free_pages(m, 0);
	return mm_down();
}

/*
 * Merging at pageblock order and above: the three types merge with each
 * other, and the buddy pageblock takes the freed block's type. In a 4 MiB
 * machine (one max-order block), a movable order-9 block p and, next to
 * it, an unmovable one q (claimed whole: its pageblock turns unmovable;
 * __GFP_MEMALLOC, as the watermarks would not let half the machine go). q freed first waits on
 * the unmovable list; p freed merges with it into one movable order-10
 * block.
 */
static bool test_merge_retypes_the_buddy_block(void)
{
	struct zone *z;
	struct page *p, *q;

	ASSERT_TRUE(mm_up(4, 1, 1));
	z = zone0();
	p = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_COMP, 9);
	ASSERT_TRUE(p != NULL);
	drain_all_pages(NULL); /* the refill took both halves: give the other back */
	q = alloc_pages(__GFP_MEMALLOC | __GFP_COMP, 9);
	ASSERT_TRUE(q != NULL);
	ASSERT_EQ(page_to_pfn(p) ^ page_to_pfn(q), pageblock_nr_pages); /* buddies */
	ASSERT_EQ(block_mt(page_to_pfn(q)), MIGRATE_UNMOVABLE);
	ASSERT_EQ(block_mt(page_to_pfn(p)), MIGRATE_MOVABLE);
	__free_pages(q, 9);
	drain_all_pages(NULL);
	ASSERT_TRUE(!(list_empty(&z->free_area[9].free_list[MIGRATE_UNMOVABLE])));
	__free_pages(p, 9);
	drain_all_pages(NULL);
	ASSERT_EQ(block_mt(page_to_pfn(q)), MIGRATE_MOVABLE);
	ASSERT_TRUE(list_empty(&z->free_area[9].free_list[MIGRATE_UNMOVABLE]));
	ASSERT_EQ(z->free_area[9].nr_free, 0);
	ASSERT_EQ(z->free_area[MAX_PAGE_ORDER].nr_free, 1);
	ASSERT_TRUE(!list_empty(&z->free_area[MAX_PAGE_ORDER].free_list[MIGRATE_MOVABLE]));
	return mm_down();
}

/*
 * A fallback inside a pageblock. An 8 MiB machine (two max-order blocks,
 * four pageblocks): the mm's tables claim the first block; @anon_pages of
 * anon on the LRU fill the third pageblock and part of the fourth.
 * Unmovable pages are then taken (__GFP_MEMALLOC, below every watermark)
 * until one has to fall back into the fourth pageblock. Each fallback
 * inside a pageblock boosts the watermarks by a pageblock (kswapd exists;
 * the high watermark times 1.5 is below 512 here). The pageblock is
 * claimed when half of it is free or neither free nor on an LRU (the
 * alike pages of a movable block, for an unmovable request); else the
 * page is stolen and the pageblock stays movable.
 */
static bool fallback_in_fourth_block(unsigned long anon_pages, bool *claimed)
{
	static struct page *held[2048];
	uint64_t tag = 0x35ull << 40;
	unsigned long a, n = 0, fallbacks;
	struct zone *z;

	mm_kswapd = true;
	ASSERT_TRUE(mm_up_with_mm(8));
	mm_kswapd = false;
	z = zone0();
	a = map(anon_pages * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, anon_pages, tag));
	lru_add_drain();
	drain_all_pages(NULL);
	ASSERT_EQ(block_mt(0), MIGRATE_UNMOVABLE);
	ASSERT_EQ(block_mt(3 * pageblock_nr_pages), MIGRATE_MOVABLE);
	fallbacks = (unsigned long)(counter("fl_extfrag_claim") + counter("fl_extfrag_steal"));
	while (n < 2048 && (unsigned long)(counter("fl_extfrag_claim") +
					   counter("fl_extfrag_steal")) == fallbacks) {
		held[n] = alloc_pages(__GFP_MEMALLOC | __GFP_KSWAPD_RECLAIM, 0);
		ASSERT_TRUE(held[n] != NULL);
		n++;
	}
	/* a steal goes on stealing for the rest of its pcp refill */
	ASSERT_GE(counter("fl_extfrag_claim") + counter("fl_extfrag_steal"), fallbacks + 1);
	ASSERT_EQ(z->watermark_boost, pageblock_nr_pages);
	ASSERT_EQ(wmark_pages(z, WMARK_MIN), z->_watermark[WMARK_MIN] + pageblock_nr_pages);
	ASSERT_TRUE(fl_test_bit(ZONE_BOOSTED_WATERMARK_BIT, &z->flags) ||
		    READ_ONCE(NODE_DATA(0)->kswapd_order) == 0);
	*claimed = block_mt(3 * pageblock_nr_pages) == MIGRATE_UNMOVABLE;
	while (n)
		__free_pages(held[--n], 0);
	ASSERT_EQ(wrong_tags(a, anon_pages, tag), 0);
	return mm_down_with_mm();
}

/* 768 anon pages: 256 of the fourth pageblock on the LRU, the rest free: claimed */
static bool test_fallback_claims_a_half_free_pageblock(void)
{
	bool claimed = false;

	ASSERT_TRUE(fallback_in_fourth_block(768, &claimed));
	ASSERT_TRUE(claimed);
	return true;
}

/* 900 anon pages: 388 of the fourth pageblock on the LRU: stolen, the block stays movable */
static bool test_fallback_steals_from_a_busy_pageblock(void)
{
	bool claimed = true;

	ASSERT_TRUE(fallback_in_fourth_block(900, &claimed));
	ASSERT_TRUE(!(claimed));
	return true;
}

/*
 * Without kswapd to take it back, a boost would stay for good: a machine
 * with no kswapd CPU boosts nothing (the model's rule).
 */
static bool test_no_boost_without_kswapd(void)
{
	struct page *held[1100];
	unsigned long a;
	int n = 0;

	ASSERT_TRUE(mm_up_with_mm(8));
	a = map(768 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 768, 1));
	lru_add_drain();
	drain_all_pages(NULL);
	while (n < 1100 && counter("fl_extfrag_claim") + counter("fl_extfrag_steal") < 2)
		ASSERT_TRUE((held[n++] = alloc_pages(__GFP_MEMALLOC, 0)) != NULL);
	ASSERT_EQ(zone0()->watermark_boost, 0);
	while (n)
		__free_pages(held[--n], 0);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_buddy_split_then_merge), TEST(test_buddy_merge_needs_both),
	  TEST(test_pcp_refill_and_drain), TEST(test_pcp_high_frees_in_batches),
	  TEST(test_pcp_follows_the_6_18_rule),
	  TEST(test_pcp_free_high_drains_consecutive_high_order_frees),
	  TEST(test_pcp_free_high_needs_a_run), TEST(test_node_fallback),
	  TEST(test_vm_knobs_set_the_watermarks), TEST(test_watermarks_and_oom),
	  TEST(test_leak_is_reported), TEST(test_huge_machine_boots),
	  TEST(test_unmovable_claims_a_block), TEST(test_merge_retypes_the_buddy_block),
	  TEST(test_fallback_claims_a_half_free_pageblock),
	  TEST(test_fallback_steals_from_a_busy_pageblock), TEST(test_no_boost_without_kswapd))
