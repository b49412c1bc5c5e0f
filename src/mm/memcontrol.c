// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcontrol.c - memory cgroups, cgroup v2 semantics (mm/memcontrol.c and
 * mm/page_counter.c in 6.18).
 *
 * A folio is charged after it is allocated and before it is mapped
 * (mem_cgroup_charge(): the folio's memcg_data names the memcg), and
 * uncharged when it is freed. try_charge_memcg() takes pages from the
 * CPU's stock first; otherwise it charges a batch of MEMCG_CHARGE_BATCH up
 * the hierarchy and keeps the rest in the stock. At the limit it reclaims
 * from the memcg (try_to_free_mem_cgroup_pages()), drains the stocks once,
 * retries MAX_RECLAIM_RETRIES times, then declares a memcg OOM. A charge
 * that may not block (an mTHP fault under the default defrag setting)
 * fails at once, with no reclaim. Over memory.high, the task reclaims the
 * overage before it returns to user space and sleeps a penalty that grows
 * with the square of the overage.
 *
 * Swap: a folio's swap slots charge memory.swap.current and record the
 * memcg's id (the swap_cgroup), which a swap-in charges again.
 *
 * Not modelled: memory.min/low protection, swap.max and swap.high,
 * memory.oom.group, kmem charging (page tables are not charged), moving
 * tasks between memcgs, memcg offlining and reparenting.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "internal.h"
#include "memcontrol.h"
#include "swap.h"

#define MEMCG_DELAY_PRECISION_SHIFT 20
#define MEMCG_DELAY_SCALING_SHIFT 14
#define HZ 250 /* our hosts' CONFIG_HZ */
#define MEMCG_MAX_HIGH_DELAY_JIFFIES (2 * HZ)
#define NSEC_PER_JIFFY (1000000000ull / HZ)

struct mem_cgroup *fl__memcgs[MEMCG_MAX_CHILDREN + 1];
int fl__nr_memcgs;
struct mem_cgroup *fl__run_memcg;

/*
 * memcg_stock_pcp - pages a CPU charged ahead, per memcg (the kernel's
 * local_trylock is a lock here: a drain from another CPU takes it too)
 */
struct memcg_stock_pcp {
	struct fl_spinlock lock;
	struct mem_cgroup *cached[NR_MEMCG_STOCK];
	unsigned char nr_pages[NR_MEMCG_STOCK];
	unsigned char next_evict; /* the kernel picks a random slot */
} __cacheline_aligned;

static struct memcg_stock_pcp *memcg_stock; /* [nr_cpu_ids + 1] */
/*
 * memcg_nr_pages_over_high: what this CPU's running task charged over
 * memory.high since it last returned to user space (a task field in the
 * kernel; a task keeps its CPU through a fault here)
 */
static unsigned long *over_high;	/* [nr_cpu_ids + 1] */
static struct fl_waitq high_delay_wait; /* nobody wakes it: the penalty sleep */
static uint64_t flush_last_time;	/* atomic: ns of the last flush of the root */
static uint64_t flush_next_time;	/* atomic: the periodic flush's next time; 0: none yet */

static const struct fl_lock_class stock_lock_class = { .name = "memcg_stock.lock",
						       .rank = FL_RANK_MEMCG_STOCK,
						       .kind = FL_LOCK_SPIN };

int fl__memcg_init(void)
{
	size_t n = (size_t)fl__nr_cpu_ids + 1, i;

	memcg_stock = fl_aligned_alloc(FL_CACHELINE, n * sizeof(*memcg_stock));
	over_high = fl_calloc(n, sizeof(*over_high));
	if (!memcg_stock || !over_high) {
		fl__memcg_exit();
		return -ENOMEM;
	}
	memset(memcg_stock, 0, n * sizeof(*memcg_stock));
	for (i = 0; i < n; i++)
		fl_spin_lock_init(&memcg_stock[i].lock, &stock_lock_class);
	memset(&high_delay_wait, 0, sizeof(high_delay_wait));
	fl__run_memcg = NULL;
	flush_next_time = 0;
	flush_last_time = 0;
	return 0;
}

void fl__memcg_exit(void)
{
	int i;

	for (i = 1; i <= fl__nr_memcgs; i++) {
		fl_free(fl__memcgs[i]->vmstats_percpu);
		fl_free(fl__memcgs[i]->nodeinfo);
		fl_free(fl__memcgs[i]);
		fl__memcgs[i] = NULL;
	}
	fl__nr_memcgs = 0;
	fl__run_memcg = NULL;
	fl_free(memcg_stock);
	fl_free(over_high);
	memcg_stock = NULL;
	over_high = NULL;
}

/**
 * fl__mem_cgroup_create() - a child of the root with memory.max @max and
 * memory.high @high (pages; PAGE_COUNTER_MAX for "max").
 * Return: the memcg, or NULL (out of memory or ids).
 */
struct mem_cgroup *fl__mem_cgroup_create(const char *name, long max, long high)
{
	struct mem_cgroup *memcg;
	int nid;

	if (fl__nr_memcgs == MEMCG_MAX_CHILDREN)
		return NULL;
	memcg = fl_calloc(1, sizeof(*memcg));
	if (!memcg)
		return NULL;
	memcg->vmstats_percpu = fl_aligned_alloc(FL_CACHELINE,
						 sizeof(*memcg->vmstats_percpu) *
							 ((size_t)fl__nr_cpu_ids + 1));
	memcg->nodeinfo = fl_aligned_alloc(FL_CACHELINE,
					   sizeof(*memcg->nodeinfo) * (size_t)fl__nr_node_ids);
	if (!memcg->vmstats_percpu || !memcg->nodeinfo) {
		fl_free(memcg->vmstats_percpu);
		fl_free(memcg->nodeinfo);
		fl_free(memcg);
		return NULL;
	}
	memset(memcg->vmstats_percpu, 0,
	       sizeof(*memcg->vmstats_percpu) * ((size_t)fl__nr_cpu_ids + 1));
	memset(memcg->nodeinfo, 0, sizeof(*memcg->nodeinfo) * (size_t)fl__nr_node_ids);
	for_each_online_node (nid) {
		fl__lruvec_init(&memcg->nodeinfo[nid], NODE_DATA(nid));
		memcg->nodeinfo[nid].memcg = memcg;
	}
	fl__deferred_split_init(&memcg->deferred_split_queue);
	memcg->memory.max = max;
	memcg->memory.high = high;
	memcg->swap.max = PAGE_COUNTER_MAX;
	memcg->swap.high = PAGE_COUNTER_MAX;
	snprintf(memcg->name, sizeof(memcg->name), "%s", name);
	memcg->id = (unsigned short)++fl__nr_memcgs;
	fl__memcgs[memcg->id] = memcg;
	return memcg;
}

static struct mem_cgroup *mem_cgroup_from_id(unsigned short id)
{
	return id && id <= fl__nr_memcgs ? fl__memcgs[id] : NULL;
}

/* ---- page counters (mm/page_counter.c) ---- */

static void page_counter_uncharge(struct page_counter *counter, long nr)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent) {
		long left = fl_atomic_fetch_sub(&c->usage, nr, __ATOMIC_RELAXED) - nr;

		VM_BUG_ON(left < 0);
	}
}

static void page_counter_note_peak(struct page_counter *c, long usage)
{
	long peak = fl_atomic_load(&c->watermark, __ATOMIC_RELAXED);

	while (usage > peak && !fl_atomic_cmpxchg(&c->watermark, &peak, usage, false,
						  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* page_counter_charge(): charge without a limit (forced charges, swap) */
static void page_counter_charge(struct page_counter *counter, long nr)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent)
		page_counter_note_peak(c,
				       fl_atomic_fetch_add(&c->usage, nr, __ATOMIC_RELAXED) + nr);
}

/*
 * page_counter_try_charge(): charge @nr up the hierarchy unless a level
 * would go over its max; then undo and name that level in *@fail.
 */
static bool page_counter_try_charge(struct page_counter *counter, long nr,
				    struct page_counter **fail)
{
	struct page_counter *c, *u;

	for (c = counter; c; c = c->parent) {
		long usage = fl_atomic_fetch_add(&c->usage, nr, __ATOMIC_RELAXED) + nr;

		if (usage > c->max) {
			fl_atomic_fetch_sub(&c->usage, nr, __ATOMIC_RELAXED);
			for (u = counter; u != c; u = u->parent)
				fl_atomic_fetch_sub(&u->usage, nr, __ATOMIC_RELAXED);
			*fail = c;
			return false;
		}
		page_counter_note_peak(c, usage);
	}
	return true;
}

static long page_counter_read(struct page_counter *c)
{
	return fl_atomic_load(&c->usage, __ATOMIC_RELAXED);
}

/* mem_cgroup_margin(): pages that can still be charged before memory.max */
static long mem_cgroup_margin(struct mem_cgroup *memcg)
{
	long margin = memcg->memory.max - page_counter_read(&memcg->memory);

	return margin > 0 ? margin : 0;
}

static void memcg_memory_event(struct mem_cgroup *memcg, enum memcg_memory_event event)
{
	fl_atomic_fetch_add(&memcg->memory_events[event], 1, __ATOMIC_RELAXED);
}

/* ---- the per-CPU stock ---- */

static bool consume_stock(struct mem_cgroup *memcg, unsigned int nr_pages)
{
	FL_LOCK_SITE(site);
	struct memcg_stock_pcp *stock = &memcg_stock[memcg_cpu_slot()];
	bool ret = false;
	int i;

	if (nr_pages > MEMCG_CHARGE_BATCH || !fl_spin_trylock_at(&stock->lock, &site))
		return false;
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		if (stock->cached[i] != memcg)
			continue;
		if (stock->nr_pages[i] >= nr_pages) {
			stock->nr_pages[i] = (unsigned char)(stock->nr_pages[i] - nr_pages);
			ret = true;
		}
		break;
	}
	fl_spin_unlock(&stock->lock);
	return ret;
}

/* drain_stock(): give slot @i's pages back. Context: the stock's lock. */
static void drain_stock(struct memcg_stock_pcp *stock, int i)
{
	if (stock->nr_pages[i])
		page_counter_uncharge(&stock->cached[i]->memory, stock->nr_pages[i]);
	stock->nr_pages[i] = 0;
	stock->cached[i] = NULL;
}

static void refill_stock(struct mem_cgroup *memcg, unsigned int nr_pages)
{
	FL_LOCK_SITE(site);
	struct memcg_stock_pcp *stock = &memcg_stock[memcg_cpu_slot()];
	int i, empty = -1;

	if (!fl_spin_trylock_at(&stock->lock, &site)) {
		page_counter_uncharge(&memcg->memory, nr_pages);
		return;
	}
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		if (stock->cached[i] == memcg)
			break;
		if (!stock->cached[i] && empty < 0)
			empty = i;
	}
	if (i == NR_MEMCG_STOCK) {
		if (empty < 0) {
			empty = stock->next_evict;
			stock->next_evict = (unsigned char)((stock->next_evict + 1) %
							    NR_MEMCG_STOCK);
			drain_stock(stock, empty);
		}
		i = empty;
		stock->cached[i] = memcg;
	}
	if (stock->nr_pages[i] + nr_pages > MEMCG_CHARGE_BATCH) {
		page_counter_uncharge(&memcg->memory, nr_pages);
		drain_stock(stock, i);
	} else {
		stock->nr_pages[i] = (unsigned char)(stock->nr_pages[i] + nr_pages);
	}
	fl_spin_unlock(&stock->lock);
}

/* drain_all_stock(): every CPU's stocked pages go back (the kernel queues work per CPU) */
void drain_all_stock(void)
{
	FL_LOCK_SITE(site);
	int cpu, i;

	if (!memcg_stock)
		return;
	for (cpu = 0; cpu <= fl__nr_cpu_ids; cpu++) {
		struct memcg_stock_pcp *stock = &memcg_stock[cpu];

		fl_spin_lock_at(&stock->lock, &site);
		for (i = 0; i < NR_MEMCG_STOCK; i++)
			if (stock->cached[i])
				drain_stock(stock, i);
		fl_spin_unlock(&stock->lock);
	}
}

/* ---- memcg OOM ---- */

/*
 * mem_cgroup_oom(): the kernel kills a task of the memcg; the model
 * writes the report (the run ends with it), counts oom and oom_kill, and
 * the charge fails. Costly orders never OOM.
 */
static bool mem_cgroup_oom(struct mem_cgroup *memcg, gfp_t gfp, unsigned int nr_pages, int tries)
{
	char report[400];
	int zero = 0;

	if (nr_pages > (1u << PAGE_ALLOC_COSTLY_ORDER))
		return false;
	memcg_memory_event(memcg, MEMCG_OOM);
	if (!fl_atomic_cmpxchg(&memcg->oom_lock, &zero, 1, false, __ATOMIC_ACQ_REL,
			       __ATOMIC_RELAXED))
		return false;
	memcg_memory_event(memcg, MEMCG_OOM_KILL); /* fl__oom_record() counts oom_kill */
	snprintf(report, sizeof(report),
		 "memory cgroup out of memory: a charge of %u page(s) (%s) in %s: memory.current "
		 "%ld, memory.max %ld pages after %d reclaim tries; LRU (inactive + active) anon "
		 "%lu + %lu, file %lu + %lu; swap free %ld pages",
		 nr_pages, (gfp & __GFP_DIRECT_RECLAIM) ? "may reclaim" : "may not block",
		 memcg->name, page_counter_read(&memcg->memory), memcg->memory.max, tries,
		 memcg_lru_pages(memcg, LRU_INACTIVE_ANON), memcg_lru_pages(memcg, LRU_ACTIVE_ANON),
		 memcg_lru_pages(memcg, LRU_INACTIVE_FILE), memcg_lru_pages(memcg, LRU_ACTIVE_FILE),
		 get_nr_swap_pages());
	fl__oom_record(report);
	return false;
}

/* ---- memory.high ---- */

/* reclaim_high(): reclaim @nr_pages from each level over its memory.high */
static unsigned long reclaim_high(struct mem_cgroup *memcg, unsigned long nr_pages, gfp_t gfp)
{
	unsigned long nr_reclaimed = 0;

	if (page_counter_read(&memcg->memory) <= READ_ONCE(memcg->memory.high))
		return 0;
	memcg_memory_event(memcg, MEMCG_HIGH);
	nr_reclaimed += try_to_free_mem_cgroup_pages(memcg, nr_pages, gfp, MEMCG_RECLAIM_MAY_SWAP,
						     -1);
	return nr_reclaimed;
}

/* calculate_overage(): how far over high usage is, in 1/2^20 parts of high */
static uint64_t calculate_overage(long usage, long high)
{
	if (usage <= high)
		return 0;
	if (high < 1)
		high = 1;
	return ((uint64_t)(usage - high) << MEMCG_DELAY_PRECISION_SHIFT) / (uint64_t)high;
}

/* calculate_high_delay(): overage² scaled, times the share of a charge batch */
static unsigned long calculate_high_delay(unsigned long nr_pages, uint64_t overage)
{
	uint64_t penalty;

	if (!overage)
		return 0;
	penalty = overage * overage * HZ;
	penalty >>= MEMCG_DELAY_PRECISION_SHIFT;
	penalty >>= MEMCG_DELAY_SCALING_SHIFT;
	return (unsigned long)(penalty * nr_pages / MEMCG_CHARGE_BATCH);
}

/**
 * mem_cgroup_handle_over_high() - on the way back to user space: reclaim
 * what the task charged over memory.high, retrying while that makes
 * progress (16 fruitless tries at most), then sleep the penalty (at most
 * 2 s; none under HZ/100).
 */
void mem_cgroup_handle_over_high(void)
{
	struct mem_cgroup *memcg = fl__run_memcg;
	unsigned long nr_pages, nr_reclaimed, penalty, seen;
	int nr_retries = MAX_RECLAIM_RETRIES, slot = memcg_cpu_slot();
	bool in_retry = false;

	if (!over_high || !over_high[slot])
		return;
	nr_pages = over_high[slot];
	over_high[slot] = 0;
	if (!memcg)
		return;
retry_reclaim:
	nr_reclaimed = reclaim_high(memcg, in_retry ? SWAP_CLUSTER_MAX : nr_pages, GFP_KERNEL);
	penalty = calculate_high_delay(nr_pages,
				       calculate_overage(page_counter_read(&memcg->memory),
							 READ_ONCE(memcg->memory.high)));
	if (penalty <= HZ / 100)
		return;
	if (nr_reclaimed || nr_retries--) {
		in_retry = true;
		goto retry_reclaim;
	}
	if (penalty > MEMCG_MAX_HIGH_DELAY_JIFFIES)
		penalty = MEMCG_MAX_HIGH_DELAY_JIFFIES;
	seen = fl_waitq_prepare(&high_delay_wait);
	fl_waitq_sleep_timeout(&high_delay_wait, seen, penalty * NSEC_PER_JIFFY);
	fl_waitq_finish(&high_delay_wait);
}

/* ---- charging ---- */

static bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & __GFP_DIRECT_RECLAIM;
}

/*
 * try_charge_memcg() - charge @nr_pages to @memcg, reclaiming from it at
 * its limit as 6.18 does (see the top of the file).
 * Return: 0 or -ENOMEM.
 */
static int try_charge_memcg(struct mem_cgroup *memcg, gfp_t gfp, unsigned int nr_pages)
{
	unsigned int batch = nr_pages > MEMCG_CHARGE_BATCH ? nr_pages : MEMCG_CHARGE_BATCH;
	int nr_retries = MAX_RECLAIM_RETRIES, tries = 0;
	struct page_counter *fail;
	bool drained = false, raised_max_event = false, passed_oom = false;
	unsigned long nr_reclaimed;

retry:
	if (consume_stock(memcg, nr_pages))
		return 0;
	if (page_counter_try_charge(&memcg->memory, batch, &fail))
		goto done_restock;
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}
	if (gfp & __GFP_MEMALLOC) /* PF_MEMALLOC: reclaim itself charging */
		goto force;
	if (!gfpflags_allow_blocking(gfp))
		goto nomem;
	memcg_memory_event(memcg, MEMCG_MAX);
	raised_max_event = true;
	tries++;
	nr_reclaimed = try_to_free_mem_cgroup_pages(memcg, nr_pages, gfp, MEMCG_RECLAIM_MAY_SWAP,
						    -1);
	if (mem_cgroup_margin(memcg) >= nr_pages)
		goto retry;
	if (!drained) {
		drain_all_stock();
		drained = true;
		goto retry;
	}
	if (gfp & __GFP_NORETRY)
		goto nomem;
	if (nr_reclaimed && nr_pages <= (1u << PAGE_ALLOC_COSTLY_ORDER))
		goto retry;
	if (nr_retries--)
		goto retry;
	if (passed_oom)
		goto nomem;
	if (mem_cgroup_oom(memcg, gfp, nr_pages, tries)) {
		nr_retries = MAX_RECLAIM_RETRIES;
		passed_oom = true;
		goto retry;
	}
nomem:
	if (!(gfp & __GFP_HIGH))
		return -ENOMEM;
force:
	if (!raised_max_event)
		memcg_memory_event(memcg, MEMCG_MAX);
	page_counter_charge(&memcg->memory, nr_pages);
	return 0;
done_restock:
	if (batch > nr_pages)
		refill_stock(memcg, batch - nr_pages);
	/* over memory.high: the task reclaims on its way back to user space */
	if (page_counter_read(&memcg->memory) > READ_ONCE(memcg->memory.high)) {
		int slot = memcg_cpu_slot();

		over_high[slot] += batch;
		if (over_high[slot] > MEMCG_CHARGE_BATCH && gfpflags_allow_blocking(gfp))
			mem_cgroup_handle_over_high();
	}
	return 0;
}

static int charge_memcg(struct folio *folio, struct mem_cgroup *memcg, gfp_t gfp)
{
	int ret = try_charge_memcg(memcg, gfp, (unsigned int)folio_nr_pages(folio));

	if (!ret)
		WRITE_ONCE(folio->memcg_data, (unsigned long)memcg); /* commit_charge() */
	return ret;
}

/**
 * mem_cgroup_charge() - charge a new folio to @mm's memcg.
 * Return: 0, or -ENOMEM (the caller frees the folio).
 */
int mem_cgroup_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	struct mem_cgroup *memcg = mm ? mm->memcg : fl__run_memcg;

	if (!memcg)
		return 0; /* the root is never charged */
	return charge_memcg(folio, memcg, gfp);
}

/**
 * mem_cgroup_swapin_charge_folio() - charge a folio read from swap to the
 * memcg that swapped @entry out (the root's is never charged), or to
 * @mm's if that one is gone.
 */
int mem_cgroup_swapin_charge_folio(struct folio *folio, struct mm_struct *mm, gfp_t gfp,
				   swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned short id = si ? READ_ONCE(si->slot_memcg[swp_offset(entry)]) : 0;
	struct mem_cgroup *memcg;

	if (!id)
		return 0;
	memcg = mem_cgroup_from_id(id);
	if (!memcg)
		memcg = mm ? mm->memcg : fl__run_memcg;
	return memcg ? charge_memcg(folio, memcg, gfp) : 0;
}

/* __mem_cgroup_uncharge() - a freed folio of @nr pages leaves its memcg */
void __mem_cgroup_uncharge(struct folio *folio, unsigned long nr)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	page_counter_uncharge(&memcg->memory, (long)nr);
	folio->memcg_data = 0;
}

/*
 * mem_cgroup_migrate() - the charge moves from @old to @new as it is, no
 * page counter touched (6.18: commit_charge() on @new, then @old's
 * memcg_data cleared); @old leaves the deferred split queue first, as
 * that queue is its memcg's.
 * Context: both folios locked, @old off the LRU.
 */
void mem_cgroup_migrate(struct folio *old, struct folio *new)
{
	struct mem_cgroup *memcg = folio_memcg(old);

	VM_BUG_ON(folio_test_anon(old) != folio_test_anon(new));
	VM_BUG_ON(folio_nr_pages(old) != folio_nr_pages(new));
	VM_BUG_ON(folio_test_lru(old));
	if (!memcg)
		return; /* the root is never charged */
	WRITE_ONCE(new->memcg_data, (unsigned long)memcg);
	folio_unqueue_deferred_split(old);
	old->memcg_data = 0;
}

/**
 * mem_cgroup_try_charge_swap() - @folio's new slots at @entry charge its
 * memcg's memory.swap.current and record the memcg (the swap_cgroup).
 * Return: 0 (the model has no memory.swap.max).
 */
int mem_cgroup_try_charge_swap(struct folio *folio, swp_entry_t entry)
{
	struct mem_cgroup *memcg = folio_memcg(folio);
	unsigned long nr = folio_nr_pages(folio), i, off = swp_offset(entry);

	if (!memcg)
		return 0;
	page_counter_charge(&memcg->swap, (long)nr);
	for (i = 0; i < nr; i++)
		WRITE_ONCE(fl__swap_info->slot_memcg[off + i], memcg->id);
	return 0;
}

/* mem_cgroup_uncharge_swap() - @nr freed slots at @entry leave their memcg's swap */
void mem_cgroup_uncharge_swap(swp_entry_t entry, unsigned int nr)
{
	unsigned long off = swp_offset(entry), i;

	for (i = 0; i < nr; i++) {
		unsigned short id = fl__swap_info->slot_memcg[off + i];
		struct mem_cgroup *memcg = mem_cgroup_from_id(id);

		if (!memcg)
			continue;
		WRITE_ONCE(fl__swap_info->slot_memcg[off + i], 0);
		page_counter_uncharge(&memcg->swap, 1);
	}
}

/**
 * mem_cgroup_reclaim() - a write of @nr_pages to memory.reclaim
 * (user_proactive_reclaim()): tries of a quarter of what is left, the
 * last one after draining the per-CPU LRU caches, until 16 fruitless
 * tries. @swappiness: 0..200, SWAPPINESS_ANON_ONLY, or -1.
 * Return: 0, or -EAGAIN if less than asked came free.
 */
int mem_cgroup_reclaim(struct mem_cgroup *memcg, unsigned long nr_pages, int swappiness)
{
	unsigned long nr_reclaimed = 0;
	int nr_retries = MAX_RECLAIM_RETRIES;

	while (nr_reclaimed < nr_pages) {
		unsigned long batch = (nr_pages - nr_reclaimed) / 4, got;

		if (!nr_retries)
			lru_add_drain_all();
		/* the reclaim itself asks for SWAP_CLUSTER_MAX at least */
		got = try_to_free_mem_cgroup_pages(memcg, batch, GFP_KERNEL,
						   MEMCG_RECLAIM_MAY_SWAP | MEMCG_RECLAIM_PROACTIVE,
						   swappiness);
		if (!got && !nr_retries--)
			return -EAGAIN;
		nr_reclaimed += got;
	}
	return 0;
}

/* ---- the rstat flush (memcontrol.h) ---- */

#define FLUSH_TIME_NS (2ull * 1000000000ull) /* 2 * HZ */

static bool memcg_vmstats_needs_flush(struct mem_cgroup *memcg)
{
	return fl_atomic_load(&memcg->stats_updates, __ATOMIC_RELAXED) >
	       (long)MEMCG_CHARGE_BATCH * fl__nr_cpu_ids;
}

/* css_rstat_flush(): the sizes and WORKINGSET_ACTIVATE_ANON as they are now */
static void memcg_flush(struct mem_cgroup *memcg)
{
	int nid, lru;

	for_each_online_node (nid) {
		struct lruvec *lruvec = &memcg->nodeinfo[nid];

		for (lru = 0; lru < NR_LRU_LISTS; lru++)
			WRITE_ONCE(lruvec->nr_flushed[lru], READ_ONCE(lruvec->nr_pages[lru]));
	}
	WRITE_ONCE(memcg->activate_flushed, memcg_page_state(memcg, WORKINGSET_ACTIVATE_ANON));
	fl_atomic_store(&memcg->stats_updates, 0, __ATOMIC_RELAXED);
}

/*
 * __mem_cgroup_flush_stats() of the root (NULL): every memcg that needs
 * it, or all with @force (the periodic work), noting the time at @now
 */
static void flush_root(bool force, uint64_t now)
{
	int i;

	for (i = 1; i <= fl__nr_memcgs; i++)
		if (force || memcg_vmstats_needs_flush(fl__memcgs[i]))
			memcg_flush(fl__memcgs[i]);
	fl_atomic_store(&flush_last_time, now, __ATOMIC_RELAXED);
}

/*
 * flush_memcg_stats_dwork(), run where the model next looks: the periodic
 * flush's times passed since it last ran flush everything once (nothing a
 * flush reads changed in between, up to the updates still under a CPU's
 * batch, which the kernel's flush would take too)
 */
static void flush_periodic(void)
{
	uint64_t now = fl_clock_ns(), next = fl_atomic_load(&flush_next_time, __ATOMIC_RELAXED);

	if (!next) { /* the first look: as if the periodic flush had just run */
		if (fl_atomic_cmpxchg(&flush_next_time, &next, now + FLUSH_TIME_NS, false,
				      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			fl_atomic_store(&flush_last_time, now, __ATOMIC_RELAXED);
		return;
	}
	if (now < next)
		return;
	if (!fl_atomic_cmpxchg(&flush_next_time, &next,
			       now - (now - next) % FLUSH_TIME_NS + FLUSH_TIME_NS, false,
			       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return; /* another CPU flushes */
	flush_root(true, now - (now - next) % FLUSH_TIME_NS);
}

void memcg_rstat_spill(struct mem_cgroup *memcg, struct memcg_vmstats_percpu *statc)
{
	uint64_t n = __atomic_load_n(&statc->stats_updates, __ATOMIC_RELAXED);

	__atomic_store_n(&statc->stats_updates, 0, __ATOMIC_RELAXED);
	/* one already flushable needs no more counting */
	if (!memcg_vmstats_needs_flush(memcg))
		fl_atomic_add_fetch(&memcg->stats_updates, (long)n, __ATOMIC_RELAXED);
	flush_periodic();
}

void mem_cgroup_flush_stats(struct mem_cgroup *memcg)
{
	flush_periodic();
	if (!memcg)
		flush_root(false, fl_clock_ns());
	else if (memcg_vmstats_needs_flush(memcg))
		memcg_flush(memcg);
}

void mem_cgroup_flush_stats_ratelimited(struct mem_cgroup *memcg)
{
	flush_periodic();
	/* only if the periodic flush is a whole period late */
	if (fl_clock_ns() > fl_atomic_load(&flush_last_time, __ATOMIC_RELAXED) + 2 * FLUSH_TIME_NS)
		mem_cgroup_flush_stats(memcg);
}

bool fl__memcg_stats_flush = true;

unsigned long memcg_lruvec_flushed(struct lruvec *lruvec, enum lru_list lru)
{
	if (!READ_ONCE(fl__memcg_stats_flush))
		return READ_ONCE(lruvec->nr_pages[lru]);
	flush_periodic();
	return READ_ONCE(lruvec->nr_flushed[lru]);
}

int64_t memcg_activate_flushed(struct mem_cgroup *memcg)
{
	if (!READ_ONCE(fl__memcg_stats_flush))
		return memcg_page_state(memcg, WORKINGSET_ACTIVATE_ANON);
	return READ_ONCE(memcg->activate_flushed);
}

/* ---- reading ---- */

uint64_t memcg_events(struct mem_cgroup *memcg, enum vm_event_item item)
{
	uint64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= fl__nr_cpu_ids; cpu++)
		s += READ_ONCE(memcg->vmstats_percpu[cpu].events[item]);
	return s;
}

int64_t memcg_page_state(struct mem_cgroup *memcg, enum node_stat_item item)
{
	int64_t s = 0;
	int cpu;

	for (cpu = 0; cpu <= fl__nr_cpu_ids; cpu++)
		s += READ_ONCE(memcg->vmstats_percpu[cpu].state[item]);
	return s;
}

unsigned long memcg_lru_pages(struct mem_cgroup *memcg, enum lru_list lru)
{
	unsigned long s = 0;
	int nid;

	for_each_online_node (nid)
		s += READ_ONCE(memcg->nodeinfo[nid].nr_pages[lru]);
	return s;
}

/* memory.stat's sizes (bytes) and the node stat each one is */
static const struct {
	const char *name;
	enum node_stat_item item;
} memcg_stat_items[] = {
	{ "anon", NR_ANON_MAPPED },	{ "file", NR_FILE_PAGES },
	{ "shmem", NR_SHMEM },		{ "file_mapped", NR_FILE_MAPPED },
	{ "swapcached", NR_SWAPCACHE }, { "anon_thp", NR_ANON_THPS },
	{ "shmem_thp", NR_SHMEM_THPS },
};

/* memory.stat's events, in the file's order */
static const struct {
	const char *name;
	enum vm_event_item item;
} memcg_event_items[] = {
	{ "pswpin", PSWPIN },
	{ "pswpout", PSWPOUT },
	{ "pgscan_kswapd", PGSCAN_KSWAPD },
	{ "pgscan_direct", PGSCAN_DIRECT },
	{ "pgscan_khugepaged", PGSCAN_KHUGEPAGED },
	{ "pgscan_proactive", PGSCAN_PROACTIVE },
	{ "pgsteal_kswapd", PGSTEAL_KSWAPD },
	{ "pgsteal_direct", PGSTEAL_DIRECT },
	{ "pgsteal_khugepaged", PGSTEAL_KHUGEPAGED },
	{ "pgsteal_proactive", PGSTEAL_PROACTIVE },
	{ "pgfault", PGFAULT },
	{ "pgmajfault", PGMAJFAULT },
	{ "pgrefill", PGREFILL },
	{ "pgactivate", PGACTIVATE },
	{ "pgdeactivate", PGDEACTIVATE },
	{ "pglazyfree", PGLAZYFREE },
	{ "pglazyfreed", PGLAZYFREED },
	{ "swpin_zero", SWPIN_ZERO },
	{ "swpout_zero", SWPOUT_ZERO },
	{ "thp_fault_alloc", THP_FAULT_ALLOC },
	{ "thp_swpout", THP_SWPOUT },
	{ "thp_swpout_fallback", THP_SWPOUT_FALLBACK },
};

static const char *const memcg_event_names[] = { "low", "high", "max", "oom", "oom_kill" };

/**
 * fl__memcg_snapshot() - @memcg's files as counters: memory.current,
 * memory.peak, memory.swap.current (bytes), memory.events.<name> and
 * memory.stat.<name> (sizes in bytes, events in counts; pgscan and
 * pgsteal the sums of their reclaimers, as memcg_stat_format() prints).
 * Return: 0 or -ENOMEM.
 */
int fl__memcg_snapshot(struct mem_cgroup *memcg, struct fl_counters *c)
{
	static const char *const lru_names[NR_LRU_LISTS] = {
		"inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
	};
	char name[64];
	int64_t scan = 0, steal = 0;
	int ret = 0;
	size_t i;

	mem_cgroup_flush_stats(memcg); /* memory_stat_show() flushes what needs it */
	ret |= fl_counters_set(c, "memory.current",
			       page_counter_read(&memcg->memory) * (int64_t)PAGE_SIZE);
	ret |= fl_counters_set(c, "memory.peak",
			       fl_atomic_load(&memcg->memory.watermark, __ATOMIC_RELAXED) *
				       (int64_t)PAGE_SIZE);
	ret |= fl_counters_set(c, "memory.swap.current",
			       page_counter_read(&memcg->swap) * (int64_t)PAGE_SIZE);
	for (i = 0; i < sizeof(memcg_event_names) / sizeof(memcg_event_names[0]); i++) {
		snprintf(name, sizeof(name), "memory.events.%s", memcg_event_names[i]);
		ret |= fl_counters_set(c, name,
				       fl_atomic_load(&memcg->memory_events[i], __ATOMIC_RELAXED));
	}
	for (i = 0; i < sizeof(memcg_stat_items) / sizeof(memcg_stat_items[0]); i++) {
		snprintf(name, sizeof(name), "memory.stat.%s", memcg_stat_items[i].name);
		ret |= fl_counters_set(c, name,
				       memcg_page_state(memcg, memcg_stat_items[i].item) *
					       (int64_t)PAGE_SIZE);
	}
	for (i = 0; i < NR_LRU_LISTS; i++) {
		snprintf(name, sizeof(name), "memory.stat.%s", lru_names[i]);
		ret |= fl_counters_set(c, name,
				       (int64_t)memcg_lru_pages(memcg, (enum lru_list)i) *
					       (int64_t)PAGE_SIZE);
	}
	for (i = 0; i < sizeof(memcg_event_items) / sizeof(memcg_event_items[0]); i++) {
		int64_t v = (int64_t)memcg_events(memcg, memcg_event_items[i].item);

		snprintf(name, sizeof(name), "memory.stat.%s", memcg_event_items[i].name);
		ret |= fl_counters_set(c, name, v);
		if (memcg_event_items[i].item >= PGSCAN_KSWAPD &&
		    memcg_event_items[i].item <= PGSCAN_PROACTIVE)
			scan += v;
		if (memcg_event_items[i].item >= PGSTEAL_KSWAPD &&
		    memcg_event_items[i].item <= PGSTEAL_PROACTIVE)
			steal += v;
	}
	ret |= fl_counters_set(c, "memory.stat.pgscan", scan);
	ret |= fl_counters_set(c, "memory.stat.pgsteal", steal);
	return ret ? -ENOMEM : 0;
}
