// SPDX-License-Identifier: GPL-2.0-only
/*
 * migrate.c - moving the contents of isolated folios to new folios
 * (mm/migrate.c in the kernel), for compaction.
 *
 * migrate_pages() takes the folios a caller isolated (linked through
 * ->lru, counted in NR_ISOLATED_*) in batches of up to HPAGE_PMD_NR pages.
 * MIGRATE_ASYNC runs a batch through migrate_pages_batch() with up to
 * NR_MAX_MIGRATE_PAGES_RETRY passes; the sync modes (migrate_pages_sync())
 * first try the whole batch asynchronously with 3 passes, then each
 * folio that failed alone in the caller's mode with the 7 passes left.
 * A batch first unmaps every folio it can (migrate_folio_unmap(): a
 * destination from get_new_folio, the source locked, its mappings made
 * migration entries), then moves them (migrate_folio_move(): the
 * references checked and frozen, the page cache or swap cache entry
 * replaced, the data copied, the flags and memcg charge moved, the
 * migration entries pointed at the destination, which joins the LRU; the
 * source is freed). -EAGAIN (a lock not to be had in MIGRATE_ASYNC, a
 * reference more than its mappings and caches hold) is retried in the
 * next pass; what still fails goes back to the caller's list. A large
 * folio whose destination cannot be allocated is split and its pieces
 * are migrated once more asynchronously; so is a partially mapped one
 * on the deferred split queue. The return value counts the folios not
 * migrated (a split large folio counts as one), 0 when the list ends up
 * empty.
 *
 * Simplified against 6.18:
 * - no hugetlb folios, no movable_ops pages (zsmalloc, balloon), no
 *   buffer heads or fs callbacks: every folio the model has (anon,
 *   shmem, swap cache) uses migrate_folio(), as 6.18's do;
 * - a PMD-mapped THP is unmapped with TTU_SPLIT_HUGE_PMD: its PMD becomes
 *   512 PTE migration entries (counted in thp_split_pmd) and the new folio
 *   is mapped back by PTEs. 6.18 (CONFIG_ARCH_ENABLE_THP_MIGRATION on
 *   x86) installs one PMD migration entry (set_pmd_migration_entry()) and
 *   maps the new folio by a PMD again (remove_migration_pmd()); the model's
 *   page tables have no PMD migration entries yet;
 * - no PF_MEMALLOC test before sleeping on a folio lock, no TLB batching
 *   (try_to_migrate() flushes at once), no NUMA cpupid, KSM or page owner;
 * - writeback is synchronous in the model (zram, under the folio lock), so
 *   MIGRATE_SYNC has no writeback to wait for.
 *
 * Conventions in this file: @src is the folio migrated, @dst its
 * destination; both are locked from migrate_folio_unmap() until
 * migrate_folio_move() or the undo.
 */
#include "migrate.h"
#include "fs.h"
#include "swap.h"

/* ---- giving folios back ---- */

/**
 * putback_movable_pages() - every folio on @l goes back to the LRU,
 * leaving NR_ISOLATED_*, with the isolation's reference.
 */
void putback_movable_pages(struct list_head *l)
{
	struct folio *folio, *folio2;

	list_for_each_entry_safe(folio, folio2, l, lru)
	{
		list_del(&folio->lru);
		mod_node_page_state(folio_pgdat(folio), folio_isolated_item(folio),
				    -(long)folio_nr_pages(folio));
		folio_putback_lru(folio);
	}
}

/* ---- moving the mapping ---- */

/* NR_FILE_PAGES and the rest follow a cache folio to the node of its destination. */
static void migrate_cache_stats(struct folio *newfolio, struct folio *folio, long nr)
{
	struct pglist_data *oldpgdat = folio_pgdat(folio), *newpgdat = folio_pgdat(newfolio);
	struct mem_cgroup *memcg = folio_memcg(folio);
	struct lruvec *old_lruvec, *new_lruvec;

	if (oldpgdat == newpgdat)
		return;
	old_lruvec = mem_cgroup_lruvec(memcg, oldpgdat);
	new_lruvec = mem_cgroup_lruvec(memcg, newpgdat);
	if (folio_test_swapcache(newfolio)) {
		/* the swap cache's NR_FILE_PAGES is the node's only (swap_cache_add_folio()) */
		mod_node_page_state(oldpgdat, NR_FILE_PAGES, -nr);
		mod_node_page_state(newpgdat, NR_FILE_PAGES, nr);
		mod_lruvec_state(old_lruvec, NR_SWAPCACHE, -nr);
		mod_lruvec_state(new_lruvec, NR_SWAPCACHE, nr);
		return;
	}
	mod_lruvec_state(old_lruvec, NR_FILE_PAGES, -nr);
	mod_lruvec_state(new_lruvec, NR_FILE_PAGES, nr);
	if (folio_test_swapbacked(folio)) {
		mod_lruvec_state(old_lruvec, NR_SHMEM, -nr);
		mod_lruvec_state(new_lruvec, NR_SHMEM, nr);
		if (folio_test_pmd_mappable(folio)) {
			mod_lruvec_state(old_lruvec, NR_SHMEM_THPS, -nr);
			mod_lruvec_state(new_lruvec, NR_SHMEM_THPS, nr);
		}
	}
}

/* The identity @newfolio takes over from @folio: its place in the mapping, anon or not. */
static void migrate_identity(struct folio *newfolio, struct folio *folio)
{
	newfolio->index = folio->index;
	newfolio->mapping = folio->mapping;
	if (folio_test_anon(folio)) {
		__folio_set_anon(newfolio); /* the kernel's ->mapping low bit */
		if (folio_test_large(folio))
			mod_mthp_stat((int)folio_order(folio), MTHP_STAT_NR_ANON, 1);
	}
	if (folio_test_swapbacked(folio))
		__folio_set_swapbacked(newfolio);
}

/*
 * __folio_migrate_mapping() - @newfolio takes @folio's place: in the page
 * cache or the swap cache, under its lock, once @folio's count is frozen
 * at @expected_count (6.18 mm/migrate.c); an anon folio outside the swap
 * cache only takes the mapping (freezing a large one to leave the
 * deferred split queue).
 * Return: 0, or -EAGAIN when someone else holds a reference.
 */
static int __folio_migrate_mapping(struct address_space *mapping, struct folio *newfolio,
				   struct folio *folio, int expected_count)
{
	struct swap_cluster_info *ci = NULL;
	long nr = (long)folio_nr_pages(folio);
	bool swapcache = folio_test_swapcache(folio);
	XA_STATE_ORDER(xas, mapping ? &mapping->i_pages : NULL, folio->index, folio_order(folio));

	if (!mapping && !swapcache) {
		if (folio_test_large(folio)) {
			if (!folio_ref_freeze(folio, expected_count))
				return -EAGAIN;
			folio_unqueue_deferred_split(folio);
			folio_ref_unfreeze(folio, expected_count);
		}
		migrate_identity(newfolio, folio);
		return 0;
	}
	if (swapcache)
		ci = swap_cluster_lock(fl__swap_info, swp_offset(folio_swap_entry(folio, 0)));
	else
		xas_lock(&xas);
	if (!folio_ref_freeze(folio, expected_count)) {
		if (ci)
			swap_cluster_unlock(ci);
		else
			xas_unlock(&xas);
		return -EAGAIN;
	}
	folio_unqueue_deferred_split(folio);
	/* nobody else sees the folio now: no turning back */
	migrate_identity(newfolio, folio);
	folio_ref_add(newfolio, (int)nr); /* the cache's references */
	if (swapcache) {
		folio_set_swapcache(newfolio);
		newfolio->private = folio->private;
	}
	/* dirty moves while the count is frozen and the new folio is not yet seen */
	if (folio_test_dirty(folio)) {
		folio_clear_dirty(folio);
		folio_set_dirty(newfolio);
	}
	if (swapcache) {
		unsigned long off = swp_offset(folio_swap_entry(folio, 0));
		long i;

		/* __swap_cache_replace_folio(): every slot of the folio names the new one */
		for (i = 0; i < nr; i++) {
			VM_BUG_ON(fl__swap_info->table[off + (unsigned long)i] != folio);
			WRITE_ONCE(fl__swap_info->table[off + (unsigned long)i], newfolio);
		}
	} else {
		xas_store(&xas, newfolio);
	}
	/* the cache's references leave the old folio; ours stays */
	folio_ref_unfreeze(folio, expected_count - (int)nr);
	if (ci) {
		swap_cluster_unlock(ci);
	} else {
		xas_unlock(&xas);
		fl__xas_account(&xas);
	}
	migrate_cache_stats(newfolio, folio, nr);
	return 0;
}

/**
 * folio_migrate_mapping() - __folio_migrate_mapping() for a caller that
 * holds @extra_count references of its own besides the isolation's.
 */
int folio_migrate_mapping(struct address_space *mapping, struct folio *newfolio,
			  struct folio *folio, int extra_count)
{
	int expected_count = folio_expected_ref_count(folio) + extra_count + 1;

	if (folio_ref_count(folio) != expected_count)
		return -EAGAIN;
	return __folio_migrate_mapping(mapping, newfolio, folio, expected_count);
}

/* mem_cgroup_migrate() is in memcontrol.c */

/**
 * folio_migrate_flags() - the page flags and the memcg charge @newfolio
 * takes over from @folio (6.18: referenced, uptodate, active or
 * unevictable, workingset, the first page's anon-exclusive bit, dirty,
 * young, idle, readahead; the source
 * leaves the swap cache and drops its private data).
 */
void folio_migrate_flags(struct folio *newfolio, struct folio *folio)
{
	if (folio_test_referenced(folio))
		folio_set_referenced(newfolio);
	if (folio_test_uptodate(folio))
		folio_set_uptodate(newfolio);
	if (folio_test_clear_active(folio)) {
		VM_BUG_ON(folio_test_unevictable(folio));
		folio_set_active(newfolio);
	} else if (folio_test_clear_unevictable(folio)) {
		folio_set_unevictable(newfolio);
	}
	if (folio_test_workingset(folio))
		folio_set_workingset(newfolio);
	/*
	 * 6.18 carries PG_anon_exclusive of an unmapped first page here (its
	 * PG_mappedtodisk alias); mapped pages get it back through their
	 * migration entries
	 */
	if (folio_test_anon(folio) && PageAnonExclusive(folio_page(folio, 0)))
		fl_set_bit(PG_anon_exclusive, &newfolio->flags);
	if (folio_test_dirty(folio))
		folio_set_dirty(newfolio);
	if (folio_test_young(folio))
		folio_set_young(newfolio);
	if (folio_test_idle(folio))
		folio_set_idle(newfolio);
	if (folio_test_swapcache(folio))
		folio_clear_swapcache(folio);
	folio_clear_private(folio);
	folio->private = 0;
	if (folio_test_readahead(folio))
		folio_set_readahead(newfolio);
	mem_cgroup_migrate(folio, newfolio);
}

/* folio_mc_copy(): the data, page by page (the model's content tags), as a copy costs */
static void folio_mc_copy(struct folio *dst, struct folio *src)
{
	unsigned long i, nr = folio_nr_pages(src), dpfn = folio_pfn(dst), spfn = folio_pfn(src);

	fl_cost_mem(FL_COST_COPY_PAGE, dpfn, nr);
	for (i = 0; i < nr; i++)
		page_tag_set(dpfn + i, page_tag(spfn + i));
}

/*
 * migrate_folio() - the one migrate_folio callback of the model's folios
 * (anon, shmem's and the swap cache's a_ops in 6.18): no reference beyond
 * the mappings', the caches' and the isolation's, then copy and move.
 */
static int migrate_folio(struct address_space *mapping, struct folio *dst, struct folio *src)
{
	int rc, expected_count = folio_expected_ref_count(src) + 1;

	VM_BUG_ON(folio_test_writeback(src));
	/* no copying for a folio someone else still holds */
	if (folio_ref_count(src) != expected_count)
		return -EAGAIN;
	folio_mc_copy(dst, src);
	rc = __folio_migrate_mapping(mapping, dst, src, expected_count);
	if (rc)
		return rc;
	folio_migrate_flags(dst, src);
	return 0;
}

static int move_to_new_folio(struct folio *dst, struct folio *src)
{
	struct address_space *mapping = folio_mapping(src);
	int rc;

	VM_BUG_ON(!folio_test_locked(src) || !folio_test_locked(dst));
	rc = migrate_folio(mapping, dst, src);
	/* a page-cache folio leaves its mapping; an anon one stays anon until freed */
	if (!rc && !folio_test_anon(src))
		src->mapping = NULL;
	return rc;
}

/* ---- one folio: unmap, then move ---- */

/* what migrate_folio_unmap() leaves for the move, in dst->private */
enum {
	PAGE_WAS_MAPPED = 1,
	PAGE_WAS_MLOCKED = 2,
	PAGE_OLD_STATES = PAGE_WAS_MAPPED | PAGE_WAS_MLOCKED,
};

static void __migrate_folio_record(struct folio *dst, int old_page_state, struct anon_vma *anon_vma)
{
	dst->private = (unsigned long)anon_vma | (unsigned long)old_page_state;
}

static void __migrate_folio_extract(struct folio *dst, int *old_page_state,
				    struct anon_vma **anon_vmap)
{
	unsigned long private = dst->private;

	*anon_vmap = (struct anon_vma *)(private & ~(unsigned long)PAGE_OLD_STATES);
	*old_page_state = (int)(private & PAGE_OLD_STATES);
	dst->private = 0;
}

/* The source as it was: mapped again, unlocked, and on @ret (NULL: stays where it is). */
static void migrate_folio_undo_src(struct folio *src, int page_was_mapped,
				   struct anon_vma *anon_vma, bool locked, struct list_head *ret)
{
	if (page_was_mapped)
		remove_migration_ptes(src, src, 0);
	if (anon_vma)
		put_anon_vma(anon_vma);
	if (locked)
		folio_unlock(src);
	if (ret)
		list_move_tail(&src->lru, ret);
}

static void migrate_folio_undo_dst(struct folio *dst, bool locked, free_folio_t put_new_folio,
				   unsigned long private)
{
	if (locked)
		folio_unlock(dst);
	if (put_new_folio)
		put_new_folio(dst, private);
	else
		folio_put(dst);
}

/* A migrated source leaves NR_ISOLATED_* and goes with the isolation's reference. */
static void migrate_folio_done(struct folio *src, int reason)
{
	(void)reason; /* MR_DEMOTION and MR_MEMORY_FAILURE, which differ, are not the model's */
	mod_node_page_state(folio_pgdat(src), folio_isolated_item(src), -(long)folio_nr_pages(src));
	folio_put(src);
}

/*
 * migrate_folio_unmap() - a destination for @src, @src locked (only tried
 * in MIGRATE_ASYNC) and its mappings turned into migration entries.
 * Return: 0 (*@dstp locked, the state recorded in it); -ENOMEM (no
 * destination) and -EAGAIN leave @src on its list; another error puts it
 * on @ret.
 */
static int migrate_folio_unmap(new_folio_t get_new_folio, free_folio_t put_new_folio,
			       unsigned long private, struct folio *src, struct folio **dstp,
			       enum migrate_mode mode, struct list_head *ret)
{
	struct anon_vma *anon_vma = NULL;
	bool locked = false, dst_locked = false;
	int old_page_state = 0, rc = -EAGAIN;
	struct folio *dst;

	dst = get_new_folio(src, private);
	if (!dst)
		return -ENOMEM;
	*dstp = dst;
	dst->private = 0;

	if (!folio_trylock(src)) {
		if (mode == MIGRATE_ASYNC)
			goto out;
		/* SYNC_LIGHT waits for short locks, not for a read in flight */
		if (mode == MIGRATE_SYNC_LIGHT && !folio_test_uptodate(src))
			goto out;
		folio_lock(src);
	}
	locked = true;
	if (folio_test_mlocked(src))
		old_page_state |= PAGE_WAS_MLOCKED;
	/* only MIGRATE_SYNC would wait; the model's writes end under the folio lock */
	if (folio_test_writeback(src) && mode != MIGRATE_SYNC) {
		rc = -EBUSY;
		goto out;
	}
	/* the anon_vma must outlive the unmapped folio's walk back */
	if (folio_test_anon(src))
		anon_vma = folio_get_anon_vma(src);
	if (unlikely(!folio_trylock(dst)))
		goto out;
	dst_locked = true;
	if (src->mapping && folio_mapped(src)) {
		VM_BUG_ON(folio_test_anon(src) && !anon_vma);
		/* model: a PMD mapping becomes PTE migration entries (see the header) */
		try_to_migrate(src, folio_test_pmd_mappable(src) ? TTU_SPLIT_HUGE_PMD : 0);
		old_page_state |= PAGE_WAS_MAPPED;
	}
	if (!folio_mapped(src)) {
		__migrate_folio_record(dst, old_page_state, anon_vma);
		return 0;
	}
out:
	/* an -EAGAIN folio stays on its list for the next pass */
	if (rc == -EAGAIN)
		ret = NULL;
	migrate_folio_undo_src(src, old_page_state & PAGE_WAS_MAPPED, anon_vma, locked, ret);
	migrate_folio_undo_dst(dst, dst_locked, put_new_folio, private);
	return rc;
}

/*
 * migrate_folio_move() - move the unmapped @src to @dst and map @dst
 * where @src was. Return: 0 (@src freed); -EAGAIN leaves both as they are
 * for the next pass; another error puts @src back mapped on @ret.
 */
static int migrate_folio_move(free_folio_t put_new_folio, unsigned long private, struct folio *src,
			      struct folio *dst, enum migrate_mode mode, int reason,
			      struct list_head *ret)
{
	struct anon_vma *anon_vma = NULL;
	int old_page_state = 0, rc;
	struct list_head *prev;

	(void)mode;
	__migrate_folio_extract(dst, &old_page_state, &anon_vma);
	prev = dst->lru.prev;
	list_del(&dst->lru);

	rc = move_to_new_folio(dst, src);
	if (rc)
		goto out;
	/* on the LRU first, so that an mlocked folio's remapping finds it there */
	folio_add_lru(dst);
	if (old_page_state & PAGE_WAS_MLOCKED)
		lru_add_drain();
	if (old_page_state & PAGE_WAS_MAPPED)
		remove_migration_ptes(src, dst, 0);
	folio_unlock(dst);
	folio_put(dst); /* the allocation's: the mappings, caches and LRU hold it now */

	list_del(&src->lru);
	if (anon_vma)
		put_anon_vma(anon_vma);
	folio_unlock(src); /* faults waiting on its migration entries retry */
	migrate_folio_done(src, reason);
	return rc;
out:
	if (rc == -EAGAIN) {
		list_add(&dst->lru, prev);
		__migrate_folio_record(dst, old_page_state, anon_vma);
		return rc;
	}
	migrate_folio_undo_src(src, old_page_state & PAGE_WAS_MAPPED, anon_vma, true, ret);
	migrate_folio_undo_dst(dst, true, put_new_folio, private);
	return rc;
}

/* ---- batches ---- */

/*
 * try_split_folio() - split the isolated large @folio to order 0; its
 * pieces (isolated too, each with a reference) go to @split_folios.
 */
static int try_split_folio(struct folio *folio, struct list_head *split_folios,
			   enum migrate_mode mode)
{
	int rc;

	if (mode == MIGRATE_ASYNC) {
		if (!folio_trylock(folio))
			return -EAGAIN;
	} else {
		folio_lock(folio);
	}
	VM_BUG_ON(!split_folios);
	rc = split_huge_page_to_list_to_order((struct page *)folio, split_folios, 0);
	folio_unlock(folio);
	if (!rc)
		list_move_tail(&folio->lru, split_folios);
	return rc;
}

#define NR_MAX_BATCHED_MIGRATION HPAGE_PMD_NR
#define NR_MAX_MIGRATE_ASYNC_RETRY 3
#define NR_MAX_MIGRATE_SYNC_RETRY (NR_MAX_MIGRATE_PAGES_RETRY - NR_MAX_MIGRATE_ASYNC_RETRY)

struct migrate_pages_stats {
	int nr_succeeded;    /* pages migrated */
	int nr_failed_pages; /* pages tried and not migrated */
	int nr_thp_succeeded;
	int nr_thp_failed;
	int nr_thp_split; /* PMD-sized folios split to be migrated */
	int nr_split;	  /* large folios (THPs included) split */
};

/* Move each unmapped folio of @src_folios to its destination, the same place in @dst_folios. */
static void migrate_folios_move(struct list_head *src_folios, struct list_head *dst_folios,
				free_folio_t put_new_folio, unsigned long private,
				enum migrate_mode mode, int reason, struct list_head *ret_folios,
				struct migrate_pages_stats *stats, int *retry, int *thp_retry,
				int *nr_failed, int *nr_retry_pages)
{
	struct folio *folio, *folio2, *dst, *dst2;

	dst = list_first_entry(dst_folios, struct folio, lru);
	dst2 = list_next_entry(dst, lru);
	list_for_each_entry_safe(folio, folio2, src_folios, lru)
	{
		bool is_thp = folio_test_large(folio) && folio_test_pmd_mappable(folio);
		int nr_pages = (int)folio_nr_pages(folio);
		int rc = migrate_folio_move(put_new_folio, private, folio, dst, mode, reason,
					    ret_folios);

		switch (rc) {
		case -EAGAIN: /* stays on the unmapped list */
			*retry += 1;
			*thp_retry += is_thp;
			*nr_retry_pages += nr_pages;
			break;
		case 0:
			stats->nr_succeeded += nr_pages;
			stats->nr_thp_succeeded += is_thp;
			break;
		default:
			*nr_failed += 1;
			stats->nr_thp_failed += is_thp;
			stats->nr_failed_pages += nr_pages;
			break;
		}
		dst = dst2;
		dst2 = list_next_entry(dst, lru);
	}
}

/* The unmapped folios that were not moved: mapped again, onto @ret_folios. */
static void migrate_folios_undo(struct list_head *src_folios, struct list_head *dst_folios,
				free_folio_t put_new_folio, unsigned long private,
				struct list_head *ret_folios)
{
	struct folio *folio, *folio2, *dst, *dst2;

	dst = list_first_entry(dst_folios, struct folio, lru);
	dst2 = list_next_entry(dst, lru);
	list_for_each_entry_safe(folio, folio2, src_folios, lru)
	{
		struct anon_vma *anon_vma = NULL;
		int old_page_state = 0;

		__migrate_folio_extract(dst, &old_page_state, &anon_vma);
		migrate_folio_undo_src(folio, old_page_state & PAGE_WAS_MAPPED, anon_vma, true,
				       ret_folios);
		list_del(&dst->lru);
		migrate_folio_undo_dst(dst, true, put_new_folio, private);
		dst = dst2;
		dst2 = list_next_entry(dst, lru);
	}
}

/*
 * migrate_pages_batch() - unmap as many folios of @from as possible, then
 * move them, in up to @nr_pass passes each. Outside MIGRATE_ASYNC @from
 * holds one folio (no sleeping on a lock with others held).
 * Return: the folios not migrated, or -ENOMEM.
 */
static int migrate_pages_batch(struct list_head *from, new_folio_t get_new_folio,
			       free_folio_t put_new_folio, unsigned long private,
			       enum migrate_mode mode, int reason, struct list_head *ret_folios,
			       struct list_head *split_folios, struct migrate_pages_stats *stats,
			       int nr_pass)
{
	int retry = 1, thp_retry = 1, nr_failed = 0, nr_retry_pages = 0, pass;
	int rc, rc_saved = 0, nr_pages;
	struct folio *folio, *folio2, *dst = NULL;
	bool nosplit = reason == MR_NUMA_MISPLACED;
	bool is_thp, is_large;
	LIST_HEAD(unmap_folios);
	LIST_HEAD(dst_folios);

	VM_BUG_ON(mode != MIGRATE_ASYNC && !list_empty(from) && !list_is_singular(from));
	for (pass = 0; pass < nr_pass && retry; pass++) {
		retry = 0;
		thp_retry = 0;
		nr_retry_pages = 0;
		list_for_each_entry_safe(folio, folio2, from, lru)
		{
			is_large = folio_test_large(folio);
			is_thp = folio_test_pmd_mappable(folio);
			nr_pages = (int)folio_nr_pages(folio);

			/*
			 * A partially mapped folio waiting on the deferred split
			 * queue is split now: counted as failed (its pieces are
			 * migrated after the list), not as a THP split failure.
			 */
			if (nr_pages > 2 && !list_empty(&folio->_deferred_list) &&
			    folio_test_partially_mapped(folio)) {
				if (!try_split_folio(folio, split_folios, mode)) {
					nr_failed++;
					stats->nr_thp_failed += is_thp;
					stats->nr_thp_split += is_thp;
					stats->nr_split++;
					continue;
				}
			}
			/* ours is the last reference: it was freed under us */
			if (folio_ref_count(folio) == 1) {
				folio_clear_active(folio);
				folio_clear_unevictable(folio);
				list_del(&folio->lru);
				migrate_folio_done(folio, reason);
				stats->nr_succeeded += nr_pages;
				stats->nr_thp_succeeded += is_thp;
				continue;
			}
			rc = migrate_folio_unmap(get_new_folio, put_new_folio, private, folio, &dst,
						 mode, ret_folios);
			switch (rc) {
			case -ENOMEM:
				/* no memory: split a large folio to retry, else stop unmapping */
				nr_failed++;
				stats->nr_thp_failed += is_thp;
				if (is_large && !nosplit) {
					if (!try_split_folio(folio, split_folios, mode)) {
						stats->nr_thp_split += is_thp;
						stats->nr_split++;
						break;
					}
				}
				stats->nr_failed_pages += nr_pages + nr_retry_pages;
				stats->nr_thp_failed += thp_retry;
				rc_saved = rc;
				if (list_empty(&unmap_folios))
					goto out;
				goto move;
			case -EAGAIN:
				retry++;
				thp_retry += is_thp;
				nr_retry_pages += nr_pages;
				break;
			case 0:
				list_move_tail(&folio->lru, &unmap_folios);
				list_add_tail(&dst->lru, &dst_folios);
				break;
			default: /* a permanent failure: on ret_folios already */
				nr_failed++;
				stats->nr_thp_failed += is_thp;
				stats->nr_failed_pages += nr_pages;
				break;
			}
		}
	}
	nr_failed += retry;
	stats->nr_thp_failed += thp_retry;
	stats->nr_failed_pages += nr_retry_pages;
move:
	retry = 1;
	for (pass = 0; pass < nr_pass && retry; pass++) {
		retry = 0;
		thp_retry = 0;
		nr_retry_pages = 0;
		migrate_folios_move(&unmap_folios, &dst_folios, put_new_folio, private, mode,
				    reason, ret_folios, stats, &retry, &thp_retry, &nr_failed,
				    &nr_retry_pages);
	}
	nr_failed += retry;
	stats->nr_thp_failed += thp_retry;
	stats->nr_failed_pages += nr_retry_pages;
	rc = rc_saved ? rc_saved : nr_failed;
out:
	migrate_folios_undo(&unmap_folios, &dst_folios, put_new_folio, private, ret_folios);
	return rc;
}

/*
 * migrate_pages_sync() - the batch tried asynchronously first (3 passes),
 * then each folio that failed, alone, in @mode (7 passes).
 */
static int migrate_pages_sync(struct list_head *from, new_folio_t get_new_folio,
			      free_folio_t put_new_folio, unsigned long private,
			      enum migrate_mode mode, int reason, struct list_head *ret_folios,
			      struct list_head *split_folios, struct migrate_pages_stats *stats)
{
	struct migrate_pages_stats astats = { 0 };
	int rc, nr_failed = 0;
	LIST_HEAD(folios);

	rc = migrate_pages_batch(from, get_new_folio, put_new_folio, private, MIGRATE_ASYNC, reason,
				 &folios, split_folios, &astats, NR_MAX_MIGRATE_ASYNC_RETRY);
	stats->nr_succeeded += astats.nr_succeeded;
	stats->nr_thp_succeeded += astats.nr_thp_succeeded;
	stats->nr_thp_split += astats.nr_thp_split;
	stats->nr_split += astats.nr_split;
	if (rc < 0) {
		stats->nr_failed_pages += astats.nr_failed_pages;
		stats->nr_thp_failed += astats.nr_thp_failed;
		list_splice_tail(&folios, ret_folios);
		return rc;
	}
	stats->nr_thp_failed += astats.nr_thp_split;
	/* the folios retried below count when they fail there; the splits count now */
	nr_failed += astats.nr_split;
	list_splice_tail_init(&folios, from);
	while (!list_empty(from)) {
		list_move(from->next, &folios);
		rc = migrate_pages_batch(&folios, get_new_folio, put_new_folio, private, mode,
					 reason, ret_folios, split_folios, stats,
					 NR_MAX_MIGRATE_SYNC_RETRY);
		list_splice_tail_init(&folios, ret_folios);
		if (rc < 0)
			return rc;
		nr_failed += rc;
	}
	return nr_failed;
}

/**
 * migrate_pages() - migrate the isolated folios on @from to folios
 * @get_new_folio allocates (@put_new_folio, or folio_put() when NULL,
 * gives back an unused one; @private is passed to both).
 * Return: the folios not migrated (a large folio that was split counts
 * as one, however its pieces fared; 0 if none is left on @from), or
 * -ENOMEM. What is left on @from is the caller's to give back
 * (putback_movable_pages()); *@ret_succeeded (if not NULL) gets the
 * pages migrated.
 */
int migrate_pages(struct list_head *from, new_folio_t get_new_folio, free_folio_t put_new_folio,
		  unsigned long private, enum migrate_mode mode, int reason,
		  unsigned int *ret_succeeded)
{
	struct migrate_pages_stats stats = { 0 };
	int rc, rc_gather = 0, nr_pages;
	struct folio *folio, *folio2;
	LIST_HEAD(folios);
	LIST_HEAD(ret_folios);
	LIST_HEAD(split_folios);

again:
	nr_pages = 0;
	list_for_each_entry_safe(folio, folio2, from, lru)
	{
		nr_pages += (int)folio_nr_pages(folio);
		if (nr_pages >= NR_MAX_BATCHED_MIGRATION)
			break;
	}
	if (nr_pages >= NR_MAX_BATCHED_MIGRATION)
		list_cut_before(&folios, from, &folio2->lru);
	else
		list_splice_init(from, &folios);
	if (mode == MIGRATE_ASYNC)
		rc = migrate_pages_batch(&folios, get_new_folio, put_new_folio, private, mode,
					 reason, &ret_folios, &split_folios, &stats,
					 NR_MAX_MIGRATE_PAGES_RETRY);
	else
		rc = migrate_pages_sync(&folios, get_new_folio, put_new_folio, private, mode,
					reason, &ret_folios, &split_folios, &stats);
	list_splice_tail_init(&folios, &ret_folios);
	if (rc < 0) {
		rc_gather = rc;
		list_splice_tail(&split_folios, &ret_folios);
		goto out;
	}
	if (!list_empty(&split_folios)) {
		/* the pieces: once, asynchronously, their failures not counted again */
		migrate_pages_batch(&split_folios, get_new_folio, put_new_folio, private,
				    MIGRATE_ASYNC, reason, &ret_folios, NULL, &stats, 1);
		list_splice_tail_init(&split_folios, &ret_folios);
	}
	rc_gather += rc;
	if (!list_empty(from))
		goto again;
out:
	list_splice(&ret_folios, from);
	if (list_empty(from))
		rc_gather = 0;
	count_vm_events(PGMIGRATE_SUCCESS, (unsigned long)stats.nr_succeeded);
	count_vm_events(PGMIGRATE_FAIL, (unsigned long)stats.nr_failed_pages);
	count_vm_events(THP_MIGRATION_SUCCESS, (unsigned long)stats.nr_thp_succeeded);
	count_vm_events(THP_MIGRATION_FAIL, (unsigned long)stats.nr_thp_failed);
	count_vm_events(THP_MIGRATION_SPLIT, (unsigned long)stats.nr_thp_split);
	if (ret_succeeded)
		*ret_succeeded = (unsigned int)stats.nr_succeeded;
	return rc_gather;
}
