// SPDX-License-Identifier: GPL-2.0-only
/*
 * swapfile.c - one swap device and its slots (mm/swapfile.c in the
 * kernel), with the zram disk behind it (drivers/block/zram/zram_drv.c).
 *
 * The device is what `mkswap /dev/zram0; swapon /dev/zram0` gives on
 * 6.18: slot 0 holds the swap header (a bad slot, so cluster 0 starts on
 * nonfull[0]), the rest in clusters of SWAPFILE_CLUSTER = 512 slots, and
 * the flags zram's disk implies: SWP_SYNCHRONOUS_IO (do_swap_page's
 * skip-swapcache path, mTHP swap-in), SWP_SOLIDSTATE, SWP_STABLE_WRITES.
 *
 * A slot's swap_map byte counts the swap PTEs that name it plus
 * SWAP_HAS_CACHE while a folio stands for it (swap cache, or a swap-in in
 * flight). Allocation is per order: the first allocation in a free
 * cluster fixes the cluster's order; order 0 alone may steal from other
 * orders; a PMD-order folio needs a wholly free cluster. After an
 * allocation the cluster goes to frag[order] (or full), after a free to
 * nonfull[order] (or free), as relocate_cluster() and
 * partial_free_cluster() file them; each CPU remembers where its last
 * allocation of an order ended and goes on from there (the per-CPU
 * cluster of swap_alloc_fast()).
 *
 * Locks: si->lock (the lists) is taken before a cluster's lock, never
 * inside it; the kernel takes the device lock inside a cluster lock and
 * trylocks the other way, and allocates without the device lock on its
 * per-CPU fast path. Here every allocation takes si->lock
 * (docs/fidelity.md).
 *
 * zram: a written page keeps its content tag. A page of tag 0 is all
 * zero: swap_writeout() takes it before zram does (the zeromap,
 * swpout_zero). Its compressed size is derived from the tag
 * (zram_comp_len()), and the compressed object takes room in a zsmalloc
 * pool whose pages come from the machine's memory (nr_zspages). A freed
 * slot tells zram (swap_slot_free_notify).
 *
 * Conventions in this file: "offset" is a slot number; a cluster's lock
 * covers its slots' swap_map bytes, its count and its swap table.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "swap.h"

static const struct fl_lock_class swap_info_lock_class = { .name = "swap_info_struct->lock",
							   .rank = FL_RANK_SWAP_INFO,
							   .kind = FL_LOCK_SPIN };
static const struct fl_lock_class zs_lock_class = { .name = "size_class->lock",
						    .rank = FL_RANK_ZS_POOL,
						    .kind = FL_LOCK_SPIN };
static const struct fl_lock_class swap_cluster_lock_class = { .name = "swap_cluster_info->lock",
							      .rank = FL_RANK_SWAP_CLUSTER,
							      .kind = FL_LOCK_SPIN };

struct swap_info_struct *fl__swap_info;

/* the device's and zram's counters change under different clusters' locks: atomic */
static inline void stat_add(unsigned long *v, long d)
{
	fl_atomic_fetch_add(v, (unsigned long)d, __ATOMIC_RELAXED);
}

static struct swap_cluster_info *offset_cluster(struct swap_info_struct *si, unsigned long off)
{
	return &si->cluster_info[off / SWAPFILE_CLUSTER];
}

static unsigned long cluster_offset(struct swap_info_struct *si, struct swap_cluster_info *ci)
{
	return (unsigned long)(ci - si->cluster_info) * SWAPFILE_CLUSTER;
}

/* the slot after @ci's last (the device's end for the last cluster) */
static unsigned long cluster_end(struct swap_info_struct *si, struct swap_cluster_info *ci)
{
	unsigned long end = cluster_offset(si, ci) + SWAPFILE_CLUSTER;

	return end < si->max ? end : si->max;
}

struct swap_cluster_info *__swap_cluster_lock(struct swap_info_struct *si, unsigned long offset,
					      struct fl_lock_site *site)
{
	struct swap_cluster_info *ci = offset_cluster(si, offset);

	fl_spin_lock_at(&ci->lock, site);
	return ci;
}

void swap_cluster_unlock(struct swap_cluster_info *ci)
{
	spin_unlock(&ci->lock);
}

/* ---- lists (si->lock held) ---- */

/*
 * A cluster's swap table (512 entries of 8 bytes, from a slab cache in the
 * kernel) takes a page of memory while the cluster is in use: allocated
 * when a free cluster is first used, freed when it is free again, under
 * its lock (the host counts that free for no task: fl_pgfree_atomic).
 */
static void swap_cluster_free_table(struct swap_cluster_info *ci)
{
	if (!ci->table_page)
		return;
	__free_pages(ci->table_page, 0);
	ci->table_page = NULL;
	count_fl_stat(FL_PGFREE_ATOMIC, 1);
}

static void cluster_move(struct swap_info_struct *si, struct swap_cluster_info *ci,
			 struct list_head *list, unsigned char flags)
{
	if (ci->flags != CLUSTER_FLAG_NONE)
		list_del(&ci->list);
	list_add_tail(&ci->list, list);
	ci->flags = flags;
	(void)si;
}

/* after an allocation: empty to free, partial to frag[order], else full */
static void relocate_cluster(struct swap_info_struct *si, struct swap_cluster_info *ci)
{
	if (!ci->count) {
		swap_cluster_free_table(ci);
		if (ci->flags != CLUSTER_FLAG_FREE)
			cluster_move(si, ci, &si->free_clusters, CLUSTER_FLAG_FREE);
	} else if (ci->count != SWAPFILE_CLUSTER) {
		if (ci->flags != CLUSTER_FLAG_FRAG)
			cluster_move(si, ci, &si->frag_clusters[ci->order], CLUSTER_FLAG_FRAG);
	} else if (ci->flags != CLUSTER_FLAG_FULL) {
		cluster_move(si, ci, &si->full_clusters, CLUSTER_FLAG_FULL);
	}
}

/* after a free: empty to free, partial to nonfull[order] */
static void partial_free_cluster(struct swap_info_struct *si, struct swap_cluster_info *ci)
{
	if (!ci->count) {
		swap_cluster_free_table(ci);
		if (ci->flags != CLUSTER_FLAG_FREE)
			cluster_move(si, ci, &si->free_clusters, CLUSTER_FLAG_FREE);
	} else if (ci->flags != CLUSTER_FLAG_NONFULL) {
		cluster_move(si, ci, &si->nonfull_clusters[ci->order], CLUSTER_FLAG_NONFULL);
	}
}

/* ---- allocation ---- */

static bool cluster_is_usable(const struct swap_cluster_info *ci, int order)
{
	return !ci->count || ci->order == order || !order;
}

/*
 * cluster_scan_range() - can the @nr slots at @start be had? Free ones
 * can; with swap more than half full, so can ones only the swap cache
 * holds (*@need_reclaim), once their folios leave it.
 * Context: the cluster's lock held.
 */
static bool cluster_scan_range(struct swap_info_struct *si, struct swap_cluster_info *ci,
			       unsigned long start, unsigned long nr, bool *need_reclaim)
{
	unsigned long i;

	if (!ci->count)
		return true;
	for (i = start; i < start + nr; i++) {
		unsigned char map = READ_ONCE(si->swap_map[i]);

		if (!map)
			continue;
		if (map != SWAP_HAS_CACHE || !vm_swap_full())
			return false;
		*need_reclaim = true;
	}
	return true;
}

/*
 * cluster_reclaim_range() - take the cache-only slots from @start to @end
 * back from their folios (TTRS_ANYWAY), with both locks dropped, as
 * reclaiming takes the cluster's lock and a free may refile it.
 * Return: whether the range is now free (rechecked: the locks were dropped).
 * Context: si->lock and the cluster's lock held, dropped and taken again.
 */
static bool cluster_reclaim_range(struct swap_info_struct *si, struct swap_cluster_info *ci,
				  unsigned long start, unsigned long end)
{
	FL_LOCK_SITE(site_si);
	FL_LOCK_SITE(site_ci);
	unsigned long off = start;

	spin_unlock(&ci->lock);
	spin_unlock(&si->lock);
	while (off < end) {
		unsigned char map = READ_ONCE(si->swap_map[off]);
		int ret;

		if (!map) {
			off++;
			continue;
		}
		if (map != SWAP_HAS_CACHE)
			break;
		ret = __try_to_reclaim_swap(si, off, TTRS_ANYWAY);
		if (ret <= 0)
			break;
		off += (unsigned long)ret;
	}
	fl_spin_lock_at(&si->lock, &site_si);
	fl_spin_lock_at(&ci->lock, &site_ci);
	for (off = start; off < end; off++)
		if (READ_ONCE(si->swap_map[off]))
			return false;
	return true;
}

/*
 * alloc_swap_scan_cluster() - @nr = 2^@order slots, aligned to @nr, from
 * @offset to the cluster's end (@percpu: this CPU's cluster, which must
 * still have its table):
 * free ones, or with swap more than half full ones that only the swap
 * cache holds, taken back (*@dropped: the locks were let go for that).
 * Marks them SWAP_HAS_CACHE, refiles the cluster and remembers this CPU's
 * next offset while the cluster has room for another.
 * Return: the first slot, or 0.
 * Context: si->lock held.
 */
static unsigned long alloc_swap_scan_cluster(struct swap_info_struct *si,
					     struct swap_cluster_info *ci, unsigned long offset,
					     int order, bool percpu, bool *dropped)
{
	FL_LOCK_SITE(site);
	unsigned long nr = 1ul << order, start = cluster_offset(si, ci);
	unsigned long end = cluster_end(si, ci), found = 0, i, next = 0;

	fl_spin_lock_at(&ci->lock, &site);
	if (!cluster_is_usable(ci, order) || ci->count + nr > SWAPFILE_CLUSTER)
		goto out;
	/* 6.18's cluster_is_usable(): the per-CPU path takes no cluster without a table */
	if (percpu && !ci->table_page)
		goto out;
	if (!ci->table_page) {
		/*
		 * swap_cluster_alloc_table(): first under the cluster lock down
		 * to half of min; then 6.18 drops the locks for a sleeping
		 * GFP_KERNEL | __GFP_HIGH | __GFP_NORETRY allocation, which in
		 * reclaim (PF_MEMALLOC: every caller here) takes the reserves
		 * and never reclaims. The model makes that one under the lock.
		 */
		ci->table_page = alloc_pages(__GFP_HIGH | __GFP_NOMEMALLOC | __GFP_NOWARN, 0);
		if (!ci->table_page)
			ci->table_page = alloc_pages(__GFP_HIGH | __GFP_NORETRY | __GFP_MEMALLOC,
						     0);
		if (!ci->table_page)
			goto out;
	}
	for (offset = ALIGN_UP(offset, nr); offset + nr <= end; offset += nr) {
		bool need_reclaim = false;

		if (!cluster_scan_range(si, ci, offset, nr, &need_reclaim))
			continue;
		if (need_reclaim) {
			bool freed = cluster_reclaim_range(si, ci, offset, offset + nr);

			*dropped = true;
			/* meanwhile another order may have it, or its last slot gone (no table) */
			if (!cluster_is_usable(ci, order) || !ci->table_page)
				goto out;
			if (!ci->count)
				offset = start;
			if (!freed)
				continue;
		}
		found = offset;
		break;
	}
	if (!found)
		goto out;
	if (!ci->count)
		ci->order = (unsigned char)order;
	for (i = 0; i < nr; i++)
		WRITE_ONCE(si->swap_map[found + i], SWAP_HAS_CACHE);
	ci->count += (unsigned short)nr;
	stat_add(&si->inuse_pages, (long)nr);
	if (ci->count < SWAPFILE_CLUSTER && found + 2 * nr <= end)
		next = found + nr;
out:
	relocate_cluster(si, ci);
	spin_unlock(&ci->lock);
	si->percpu_next[smp_processor_id()][order] = next;
	return found;
}

/*
 * The first cluster of @list that gives @order, trying each in turn; a
 * scan that let si->lock go ends the walk (the list may have changed).
 */
static unsigned long alloc_swap_scan_list(struct swap_info_struct *si, struct list_head *list,
					  int order, bool one)
{
	struct list_head *pos, *n;

	for (pos = list->next, n = pos->next; pos != list; pos = n, n = pos->next) {
		struct swap_cluster_info *ci = list_entry(pos, struct swap_cluster_info, list);
		bool dropped = false;
		unsigned long found = alloc_swap_scan_cluster(si, ci, cluster_offset(si, ci), order,
							      false, &dropped);

		if (found || one || dropped)
			return found;
	}
	return 0;
}

/*
 * swap_reclaim_full_clusters() - take the first full cluster off its list
 * and have every slot in it that only the swap cache holds back
 * (TTRS_ANYWAY), the locks let go for each; then refile it (a free may
 * have already). @force: as many clusters as the slots in use fill
 * (6.18's reclaim_work), else one.
 * Context: si->lock held, dropped and taken again.
 */
static void swap_reclaim_full_clusters(struct swap_info_struct *si, bool force)
{
	FL_LOCK_SITE(site_si);
	FL_LOCK_SITE(site_ci);
	long to_scan = force ? (long)(READ_ONCE(si->inuse_pages) / SWAPFILE_CLUSTER) : 1;

	while (!list_empty(&si->full_clusters)) {
		struct swap_cluster_info *ci = list_entry(si->full_clusters.next,
							  struct swap_cluster_info, list);
		unsigned long off = cluster_offset(si, ci), end = cluster_end(si, ci);

		fl_spin_lock_at(&ci->lock, &site_ci);
		list_del(&ci->list); /* isolated: CLUSTER_FLAG_NONE */
		ci->flags = CLUSTER_FLAG_NONE;
		spin_unlock(&ci->lock);
		spin_unlock(&si->lock);
		while (off < end) {
			int ret = 0;

			if (READ_ONCE(si->swap_map[off]) == SWAP_HAS_CACHE)
				ret = __try_to_reclaim_swap(si, off, TTRS_ANYWAY);
			off += ret ? (unsigned long)(ret < 0 ? -ret : ret) : 1;
		}
		fl_spin_lock_at(&si->lock, &site_si);
		fl_spin_lock_at(&ci->lock, &site_ci);
		if (ci->flags == CLUSTER_FLAG_NONE)
			relocate_cluster(si, ci);
		spin_unlock(&ci->lock);
		if (--to_scan <= 0)
			break;
	}
}

/*
 * cluster_alloc_swap_entry(): this CPU's cluster for @order, then
 * nonfull[order], a free cluster, (swap more than half full: one full
 * cluster's cache-only slots taken back), one frag[order] cluster, and for
 * order 0 the frag and nonfull clusters of the other orders.
 * Context: si->lock held (let go while cache-only slots are taken back).
 */
static unsigned long cluster_alloc_swap_entry(struct swap_info_struct *si, int order)
{
	unsigned long next = si->percpu_next[smp_processor_id()][order], found = 0;
	bool dropped = false;
	int o;

	if (next && next < si->max) {
		found = alloc_swap_scan_cluster(si, offset_cluster(si, next), next, order, true,
						&dropped);
		if (found)
			return found;
	}
	if (order < PMD_ORDER) {
		found = alloc_swap_scan_list(si, &si->nonfull_clusters[order], order, false);
		if (found)
			return found;
	}
	found = alloc_swap_scan_list(si, &si->free_clusters, order, true);
	if (found)
		return found;
	if (vm_swap_full())
		swap_reclaim_full_clusters(si, false);
	if (order < PMD_ORDER) {
		found = alloc_swap_scan_list(si, &si->frag_clusters[order], order, true);
		if (found)
			return found;
	}
	if (order)
		return 0;
	for (o = 1; o < SWAP_NR_ORDERS && !found; o++) {
		found = alloc_swap_scan_list(si, &si->frag_clusters[o], 0, false);
		if (!found)
			found = alloc_swap_scan_list(si, &si->nonfull_clusters[o], 0, false);
	}
	return found;
}

/**
 * folio_alloc_swap() - slots for the locked anon @folio, which then joins
 * the swap cache.
 * Return: 0, or -ENOMEM (no swap device, or no room for its order).
 */
int folio_alloc_swap(struct folio *folio)
{
	FL_LOCK_SITE(site);
	struct swap_info_struct *si = fl__swap_info;
	int order = (int)folio_order(folio);
	unsigned long offset;

	if (!si || order >= SWAP_NR_ORDERS)
		return -ENOMEM;
	/* a full device is off the avail list until a slot is freed */
	if (READ_ONCE(si->inuse_pages) >= si->pages)
		return -ENOMEM;
	fl_spin_lock_at(&si->lock, &site);
	offset = cluster_alloc_swap_entry(si, order);
	spin_unlock(&si->lock);
	if (!offset)
		return -ENOMEM;
	mem_cgroup_try_charge_swap(folio, swp_entry(0, offset)); /* no swap.max: cannot fail */
	swap_cache_add_folio(folio, swp_entry(0, offset));
	/*
	 * This allocation filled the device with swap more than half full:
	 * 6.18 queues reclaim_work (swap_range_alloc()), which takes the
	 * cache-only slots of the full clusters back; the model runs it at
	 * once, on this task.
	 */
	if (READ_ONCE(si->inuse_pages) >= si->pages && vm_swap_full()) {
		fl_spin_lock_at(&si->lock, &site);
		swap_reclaim_full_clusters(si, true);
		spin_unlock(&si->lock);
	}
	return 0;
}

/* ---- freeing ---- */

/*
 * The slot's data goes: the zeromap bit, or zram's copy
 * (swap_slot_free_notify()).
 */
static void swap_range_free(struct swap_info_struct *si, unsigned long offset)
{
	si->shadow[offset] = 0;
	mem_cgroup_uncharge_swap(swp_entry(0, offset), 1);
	stat_add(&si->zram.notify_free, 1); /* zram_slot_free_notify(): every slot freed */
	WRITE_ONCE(si->slot_flags[offset], (unsigned char)(si->slot_flags[offset] & ~SLOT_ZERO));
	if (si->slot_flags[offset] & SLOT_STORED)
		zram_free_page(si, offset);
}

/*
 * Drop @usage (a count of 1, or SWAP_HAS_CACHE) from @nr slots at
 * @offset; slots left with nothing are freed.
 * Return: whether the cluster must be refiled.
 * Context: the cluster's lock held.
 */
static bool swap_entries_put(struct swap_info_struct *si, struct swap_cluster_info *ci,
			     unsigned long offset, unsigned int nr, unsigned char usage)
{
	unsigned short before = ci->count;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		unsigned char *map = &si->swap_map[offset + i];

		/* WRITE_ONCE: __swap_count() and can_swapin_thp() read it without the lock */
		if (usage == SWAP_HAS_CACHE) {
			VM_BUG_ON(!(*map & SWAP_HAS_CACHE));
			WRITE_ONCE(*map, (unsigned char)(*map & ~SWAP_HAS_CACHE));
		} else {
			VM_BUG_ON(!(*map & SWAP_COUNT_MASK));
			WRITE_ONCE(*map, (unsigned char)(*map - 1));
		}
		if (!*map) {
			swap_range_free(si, offset + i);
			ci->count--;
			stat_add(&si->inuse_pages, -1);
		}
	}
	return ci->count != before && (!ci->count || ci->flags != CLUSTER_FLAG_NONFULL);
}

/* Refile the cluster of @offset after a free (partial_free_cluster()). */
static void swap_cluster_refile(struct swap_info_struct *si, unsigned long offset)
{
	FL_LOCK_SITE(site_si);
	FL_LOCK_SITE(site_ci);
	struct swap_cluster_info *ci = offset_cluster(si, offset);

	fl_spin_lock_at(&si->lock, &site_si);
	fl_spin_lock_at(&ci->lock, &site_ci);
	partial_free_cluster(si, ci); /* an isolated one (CLUSTER_FLAG_NONE) too, as 6.18 */
	spin_unlock(&ci->lock);
	spin_unlock(&si->lock);
}

static void swap_put_entries(swp_entry_t entry, unsigned int nr, unsigned char usage)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long offset = swp_offset(entry);
	struct swap_cluster_info *ci = swap_cluster_lock(si, offset);
	bool refile = swap_entries_put(si, ci, offset, nr, usage);

	swap_cluster_unlock(ci);
	if (refile)
		swap_cluster_refile(si, offset);
}

/* swap_free_nr() - a mapping's count on @nr slots goes (a swap-in mapped them). */
void swap_free_nr(swp_entry_t entry, int nr)
{
	swap_put_entries(entry, (unsigned int)nr, 1);
}

/* put_swap_folio() - the swap cache's SWAP_HAS_CACHE on the folio's slots goes. */
void put_swap_folio(struct folio *folio, swp_entry_t entry)
{
	swap_put_entries(entry, (unsigned int)folio_nr_pages(folio), SWAP_HAS_CACHE);
}

/* swapcache_clear() - a skip-swapcache swap-in is done with its slots' HAS_CACHE. */
void swapcache_clear(swp_entry_t entry, int nr)
{
	swap_put_entries(entry, (unsigned int)nr, SWAP_HAS_CACHE);
}

/**
 * swap_duplicate() - one more swap PTE names @entry's slot.
 * Context: the PTE table's lock held; the slot has its cache or a count.
 */
void swap_duplicate(swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;
	struct swap_cluster_info *ci = swap_cluster_lock(si, swp_offset(entry));
	unsigned char *map = &si->swap_map[swp_offset(entry)];

	VM_BUG_ON(!*map || (*map & SWAP_COUNT_MASK) >= SWAP_MAP_MAX);
	WRITE_ONCE(*map, (unsigned char)(*map + 1));
	swap_cluster_unlock(ci);
}

/**
 * swapcache_prepare() - claim @nr slots from @entry for a swap-in that
 * skips the swap cache: SWAP_HAS_CACHE on each.
 * Return: 0; -EEXIST if a folio stands for one already; -ENOENT if one
 * is free (a racing zap took it).
 */
int swapcache_prepare(swp_entry_t entry, int nr)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long offset = swp_offset(entry);
	struct swap_cluster_info *ci = swap_cluster_lock(si, offset);
	int i, ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		unsigned char m = si->swap_map[offset + (unsigned long)i];

		if (m & SWAP_HAS_CACHE)
			ret = -EEXIST;
		else if (!(m & SWAP_COUNT_MASK))
			ret = -ENOENT;
	}
	for (i = 0; i < nr && !ret; i++)
		WRITE_ONCE(si->swap_map[offset + (unsigned long)i],
			   (unsigned char)(si->swap_map[offset + (unsigned long)i] |
					   SWAP_HAS_CACHE));
	swap_cluster_unlock(ci);
	return ret;
}

/* __swap_count() - the swap PTEs that name @entry's slot (racy, as the kernel's). */
int __swap_count(swp_entry_t entry)
{
	struct swap_info_struct *si = fl__swap_info;

	return READ_ONCE(si->swap_map[swp_offset(entry)]) & SWAP_COUNT_MASK;
}

/* Does any of @nr slots from @entry have SWAP_HAS_CACHE? (can_swapin_thp()) */
bool swap_range_has_cache(swp_entry_t entry, int nr)
{
	struct swap_info_struct *si = fl__swap_info;
	int i;

	for (i = 0; i < nr; i++)
		if (READ_ONCE(si->swap_map[swp_offset(entry) + (unsigned long)i]) & SWAP_HAS_CACHE)
			return true;
	return false;
}

/* Are the @nr slots from @entry all zero pages, or none of them? (swap_zeromap_batch()) */
bool swap_zeromap_uniform(swp_entry_t entry, int nr, bool *zero)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long off = swp_offset(entry);
	bool first = READ_ONCE(si->slot_flags[off]) & SLOT_ZERO;
	int i;

	for (i = 1; i < nr; i++)
		if (((READ_ONCE(si->slot_flags[off + (unsigned long)i]) & SLOT_ZERO) != 0) != first)
			return false;
	*zero = first;
	return true;
}

/**
 * free_swap_and_cache_nr() - @nr swap PTEs from @entry were zapped: their
 * counts go, and each folio left holding its slots only in the swap cache
 * gives them up when nothing maps it or swap is more than half full
 * (TTRS_UNMAPPED | TTRS_FULL), a folio's slots at a time.
 * Context: the PTE table's lock held.
 */
void free_swap_and_cache_nr(swp_entry_t entry, int nr)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long offset = swp_offset(entry), end = offset + (unsigned long)nr, step;
	struct swap_cluster_info *ci = swap_cluster_lock(si, offset);
	bool refile = swap_entries_put(si, ci, offset, (unsigned int)nr, 1), cached = false;
	unsigned long i;

	for (i = offset; i < end; i++)
		if (si->swap_map[i] == SWAP_HAS_CACHE)
			cached = true;
	swap_cluster_unlock(ci);
	if (refile)
		swap_cluster_refile(si, offset);
	if (!cached)
		return;
	for (i = offset; i < end; i += step) {
		int ret = 0;

		if (READ_ONCE(si->swap_map[i]) == SWAP_HAS_CACHE)
			ret = __try_to_reclaim_swap(si, i, TTRS_UNMAPPED | TTRS_FULL);
		/* folios are aligned in swap: on to the next one's start */
		step = ALIGN_UP(i + 1, (unsigned long)(ret < 0 ? -ret : ret ? ret : 1)) - i;
	}
}

/* ---- zsmalloc ---- */

/* get_pages_per_zspage(): the chain length that wastes least of its pages */
static unsigned int pages_per_zspage(unsigned int size)
{
	unsigned int i, best = 1, best_pc = 0;

	for (i = 1; i <= ZS_MAX_PAGES_PER_ZSPAGE; i++) {
		unsigned int bytes = i * (unsigned int)PAGE_SIZE;
		unsigned int pc = (bytes - bytes % size) * 100 / bytes;

		if (pc > best_pc) {
			best_pc = pc;
			best = i;
		}
	}
	return best;
}

static void zs_pool_init(struct swap_info_struct *si)
{
	unsigned int i;

	fl_spin_lock_init(&si->zs_lock, &zs_lock_class);
	for (i = 0; i < ZS_NR_CLASSES; i++) {
		struct zs_class *c = &si->zs_class[i];

		c->size = ZS_MIN_ALLOC_SIZE + i * ZS_SIZE_CLASS_DELTA;
		c->pages_per_zspage = pages_per_zspage(c->size);
		c->objs_per_zspage = c->pages_per_zspage * (unsigned int)PAGE_SIZE / c->size;
		INIT_LIST_HEAD(&c->partial);
	}
}

static void zspage_free_pages(struct swap_info_struct *si, struct zspage *zs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__free_pages(zs->pages[i], 0);
	stat_add(&si->zram.pool_pages, -(long)n);
	mod_node_page_state(NODE_DATA(0), NR_ZSPAGES, -(long)n);
}

static void zs_free_handle(struct swap_info_struct *si)
{
	FL_LOCK_SITE(site);
	struct page *hp = NULL;

	fl_spin_lock_at(&si->zs_lock, &site);
	if (--si->zs_handles % ZS_HANDLES_PER_PAGE == 0)
		hp = si->zs_handle_pages[si->zs_handles / ZS_HANDLES_PER_PAGE];
	spin_unlock(&si->zs_lock);
	if (hp) {
		__free_pages(hp, 0);
		count_fl_stat(FL_PGFREE_ATOMIC, 1);
	}
}

/*
 * zs_malloc(): an object of @len bytes (and its handle) in the fullest
 * zspage of its class with room, or in a new zspage of movable pages.
 * Return: the zspage, or NULL when no page could be had.
 */
/*
 * zram asks zsmalloc for GFP_NOIO | __GFP_NOWARN (| __GFP_MOVABLE for the
 * zspage's pages); every swap write runs in reclaim or MADV_PAGEOUT with
 * PF_MEMALLOC set, which the model passes as __GFP_MEMALLOC: no watermark,
 * no reclaim in turn.
 */
#define ZS_GFP (GFP_NOIO | __GFP_NOWARN | __GFP_MEMALLOC)

static struct zspage *zs_malloc(struct swap_info_struct *si, unsigned int len)
{
	FL_LOCK_SITE(site);
	unsigned int size = len + ZS_HANDLE_SIZE, idx, i;
	struct zs_class *c;
	struct zspage *zs = NULL, *best = NULL;
	struct list_head *pos;

	if (size < ZS_MIN_ALLOC_SIZE)
		size = ZS_MIN_ALLOC_SIZE;
	idx = (size - ZS_MIN_ALLOC_SIZE + ZS_SIZE_CLASS_DELTA - 1) / ZS_SIZE_CLASS_DELTA;
	c = &si->zs_class[idx];
	fl_spin_lock_at(&si->zs_lock, &site);
	list_for_each (pos, &c->partial) {
		zs = list_entry(pos, struct zspage, list);
		if (!best || zs->inuse > best->inuse)
			best = zs;
	}
	if (si->zs_handles % ZS_HANDLES_PER_PAGE == 0) {
		/* cache_alloc_handle(): the handle cache grows by a page */
		struct page *hp = alloc_pages(ZS_GFP, 0);

		if (!hp) {
			spin_unlock(&si->zs_lock);
			return NULL;
		}
		si->zs_handle_pages[si->zs_handles / ZS_HANDLES_PER_PAGE] = hp;
	}
	si->zs_handles++;
	if (best) {
		if (++best->inuse == c->objs_per_zspage)
			list_del(&best->list);
		spin_unlock(&si->zs_lock);
		return best;
	}
	spin_unlock(&si->zs_lock);
	/* alloc_zspage(): its pages come from the machine's memory */
	zs = fl_calloc(1, sizeof(*zs));
	if (!zs)
		return NULL;
	for (i = 0; i < c->pages_per_zspage; i++) {
		zs->pages[i] = alloc_pages(ZS_GFP | __GFP_MOVABLE, 0);
		if (!zs->pages[i]) {
			while (i--)
				__free_pages(zs->pages[i], 0);
			fl_free(zs);
			zs_free_handle(si);
			return NULL;
		}
	}
	zs->class_idx = (unsigned char)idx;
	zs->inuse = 1;
	fl_spin_lock_at(&si->zs_lock, &site);
	stat_add(&si->zram.pool_pages, (long)c->pages_per_zspage);
	if (READ_ONCE(si->zram.pool_pages) > si->zram.max_used_pages)
		si->zram.max_used_pages = READ_ONCE(si->zram.pool_pages);
	if (zs->inuse < c->objs_per_zspage)
		list_add(&zs->list, &c->partial);
	spin_unlock(&si->zs_lock);
	mod_node_page_state(NODE_DATA(0), NR_ZSPAGES, (long)c->pages_per_zspage);
	return zs;
}

/*
 * zs_free(): the object leaves its zspage; an empty zspage gives its pages
 * back. The kernel frees them under the slot's cluster lock, preemption
 * off (fl_pgfree_atomic: the host counts such frees for nobody's task).
 */
static void zs_free(struct swap_info_struct *si, struct zspage *zs)
{
	FL_LOCK_SITE(site);
	struct zs_class *c = &si->zs_class[zs->class_idx];
	bool empty;

	fl_spin_lock_at(&si->zs_lock, &site);
	if (zs->inuse == c->objs_per_zspage)
		list_add(&zs->list, &c->partial);
	empty = --zs->inuse == 0;
	if (empty)
		list_del(&zs->list);
	spin_unlock(&si->zs_lock);
	zs_free_handle(si);
	if (!empty)
		return;
	zspage_free_pages(si, zs, c->pages_per_zspage);
	count_fl_stat(FL_PGFREE_ATOMIC, (long)c->pages_per_zspage);
	fl_free(zs);
}

/* ---- zram ---- */

/*
 * zram_comp_len() - the bytes lzo-rle makes of a page that holds @tag in
 * its first 8 bytes and zeros after (the host target's pages). Measured
 * on this host's 6.18 zram (docs/fidelity.md, 2026-12-05): 41 bytes with
 * the tag's highest non-zero byte among the first two, 42 with it at byte
 * 5, 44 with all eight non-zero; bytes 2..4 and 6 are interpolated.
 */
unsigned int zram_comp_len(uint64_t tag)
{
	static const unsigned char len[9] = { 0, 41, 41, 41, 42, 42, 42, 43, 44 };
	int bytes = 0;

	while (bytes < 8 && (tag >> (8 * bytes)))
		bytes++;
	return len[bytes];
}

/*
 * zram_write_page(): store @tag in slot @offset; an all-zero page (tag 0)
 * is same-filled, kept as its fill word (ZRAM_SAME), no memory; any other
 * goes to the pool compressed.
 * Return: 0, or -ENOMEM when the pool could not grow (failed_writes).
 */
int zram_write_page(struct swap_info_struct *si, unsigned long offset, uint64_t tag)
{
	struct zram_stats *z = &si->zram;

	/* a slot written again (its folio stayed in the swap cache): the old copy goes */
	if (si->slot_flags[offset] & SLOT_STORED)
		zram_free_page(si, offset);
	if (tag) {
		struct zspage *zs = zs_malloc(si, zram_comp_len(tag));

		if (!zs) {
			stat_add(&z->failed_writes, 1);
			return -ENOMEM;
		}
		si->slot_zspage[offset] = zs;
		stat_add(&z->compr_data_size, zram_comp_len(tag));
	} else {
		stat_add(&z->same_pages, 1);
	}
	si->slot_tag[offset] = tag;
	WRITE_ONCE(si->slot_flags[offset],
		   (unsigned char)(si->slot_flags[offset] | SLOT_STORED | (tag ? 0 : SLOT_SAME)));
	stat_add(&z->pages_stored, 1);
	return 0;
}

/* zram_free_page(): the slot's copy goes (swap_slot_free_notify(), or a failed write). */
void zram_free_page(struct swap_info_struct *si, unsigned long offset)
{
	struct zram_stats *z = &si->zram;
	unsigned char f = si->slot_flags[offset];

	VM_BUG_ON(!(f & SLOT_STORED));
	stat_add(&z->pages_stored, -1);
	if (f & SLOT_SAME) {
		stat_add(&z->same_pages, -1);
	} else {
		stat_add(&z->compr_data_size, -(long)zram_comp_len(si->slot_tag[offset]));
		zs_free(si, si->slot_zspage[offset]);
		si->slot_zspage[offset] = NULL;
	}
	WRITE_ONCE(si->slot_flags[offset],
		   (unsigned char)(si->slot_flags[offset] & ~(SLOT_STORED | SLOT_SAME)));
	si->slot_tag[offset] = 0;
}

/* ---- swapon / swapoff ---- */

/**
 * fl__swapon() - a zram disk of @nr_pages pages, formatted and enabled as
 * the model's one swap device.
 * Return: 0, -EINVAL (fewer than two clusters' worth), -ENOMEM.
 */
int fl__swapon(unsigned long nr_pages)
{
	struct swap_info_struct *si;
	unsigned long nr_clusters = DIV_ROUND_UP(nr_pages, SWAPFILE_CLUSTER), c;
	int i, cpus = nr_cpu_ids_get();

	if (nr_pages < 2 * SWAPFILE_CLUSTER)
		return -EINVAL;
	si = fl_calloc(1, sizeof(*si));
	if (!si)
		return -ENOMEM;
	si->max = nr_pages;
	si->pages = nr_pages - 1; /* the header page */
	si->flags = SWP_USED | SWP_WRITEOK | SWP_SYNCHRONOUS_IO | SWP_SOLIDSTATE |
		    SWP_STABLE_WRITES;
	si->swap_map = fl_calloc(nr_pages, 1);
	si->slot_flags = fl_calloc(nr_pages, 1);
	si->slot_tag = fl_calloc(nr_pages, sizeof(*si->slot_tag));
	si->slot_memcg = fl_calloc(nr_pages, sizeof(*si->slot_memcg));
	si->cluster_info = fl_calloc(nr_clusters, sizeof(*si->cluster_info));
	si->table = fl_calloc(nr_pages, sizeof(*si->table));
	si->shadow = fl_calloc(nr_pages, sizeof(*si->shadow));
	si->percpu_next = fl_calloc((size_t)cpus, sizeof(*si->percpu_next));
	si->slot_zspage = fl_calloc(nr_pages, sizeof(*si->slot_zspage));
	si->zs_handle_pages = fl_calloc(nr_pages / ZS_HANDLES_PER_PAGE + 1,
					sizeof(*si->zs_handle_pages));
	if (!si->swap_map || !si->slot_flags || !si->slot_tag || !si->slot_memcg ||
	    !si->cluster_info || !si->table || !si->shadow || !si->percpu_next ||
	    !si->slot_zspage || !si->zs_handle_pages) {
		si->nr_clusters = 0;
		fl__swap_info = si;
		fl__swapoff();
		return -ENOMEM;
	}
	si->nr_clusters = nr_clusters;
	fl_spin_lock_init(&si->lock, &swap_info_lock_class);
	zs_pool_init(si);
	INIT_LIST_HEAD(&si->free_clusters);
	INIT_LIST_HEAD(&si->full_clusters);
	for (i = 0; i < SWAP_NR_ORDERS; i++) {
		INIT_LIST_HEAD(&si->nonfull_clusters[i]);
		INIT_LIST_HEAD(&si->frag_clusters[i]);
	}
	/* the header slot is bad (SWAP_MAP_BAD): its cluster starts nonfull, order 0 */
	si->swap_map[0] = SWAP_MAP_BAD;
	for (c = 0; c < nr_clusters; c++) {
		struct swap_cluster_info *ci = &si->cluster_info[c];

		fl_spin_lock_init(&ci->lock, &swap_cluster_lock_class);
		ci->flags = CLUSTER_FLAG_NONE;
		if (c == 0) {
			ci->count = 1;
			ci->table_page = alloc_pages(GFP_KERNEL, 0);
			if (!ci->table_page) {
				fl__swap_info = si;
				fl__swapoff();
				return -ENOMEM;
			}
			cluster_move(si, ci, &si->nonfull_clusters[0], CLUSTER_FLAG_NONFULL);
		} else if ((c + 1) * SWAPFILE_CLUSTER > nr_pages) {
			/* a cluster past the disk's end is never handed out */
			continue;
		} else {
			cluster_move(si, ci, &si->free_clusters, CLUSTER_FLAG_FREE);
		}
	}
	fl__swap_info = si;
	return 0;
}

void fl__swapoff(void)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long c;

	if (!si)
		return;
	fl__swap_info = NULL;
	if (si->cluster_info)
		for (c = 0; c < si->nr_clusters; c++)
			swap_cluster_free_table(&si->cluster_info[c]);
	fl_free(si->swap_map);
	fl_free(si->slot_flags);
	fl_free(si->slot_tag);
	fl_free(si->slot_memcg);
	fl_free(si->cluster_info);
	fl_free(si->table);
	fl_free(si->shadow);
	fl_free(si->percpu_next);
	fl_free(si->slot_zspage);
	fl_free(si->zs_handle_pages);
	fl_free(si);
}

/**
 * fl__swap_drop_cache() - what swapoff's try_to_unuse() does to a folio
 * only the swap cache still holds, a slot no swap PTE names (a zap found
 * it locked, so it stayed for reclaim to free): it leaves the cache.
 * Context: after every process exited, nothing else running.
 */
void fl__swap_drop_cache(void)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long off;

	if (!si)
		return;
	for (off = 1; off < si->max; off++)
		if (READ_ONCE(si->swap_map[off]) == SWAP_HAS_CACHE && READ_ONCE(si->table[off]))
			__try_to_reclaim_swap(si, off, TTRS_UNMAPPED);
}

/* The pages swap keeps while it is on: the header cluster's swap table. */
long fl__swap_resident_pages(void)
{
	struct swap_info_struct *si = fl__swap_info;

	return si && si->cluster_info[0].table_page ? 1 : 0;
}

/**
 * fl__swap_check() - after every process exited: no slot in use but the
 * header, no stored page, and the clusters' counts add up.
 * Return: 0, or -EUCLEAN with what is wrong in @msg.
 */
int fl__swap_check(char *msg, size_t len)
{
	struct swap_info_struct *si = fl__swap_info;
	unsigned long off, c, counted = 0;

	if (!si)
		return 0;
	for (c = 0; c < si->nr_clusters; c++)
		counted += si->cluster_info[c].count;
	for (off = 1; off < si->max; off++)
		if (si->swap_map[off]) {
			snprintf(msg, len, "swap slot %lu still in use (map 0x%x) after exit", off,
				 si->swap_map[off]);
			return -EUCLEAN;
		}
	if (si->inuse_pages || counted != 1 || si->zram.pages_stored || si->zram.pool_pages) {
		snprintf(msg, len,
			 "swap: %lu slots in use, clusters count %lu (1: the header), zram holds "
			 "%lu pages in %lu pool pages after exit",
			 si->inuse_pages, counted, si->zram.pages_stored, si->zram.pool_pages);
		return -EUCLEAN;
	}
	return 0;
}
