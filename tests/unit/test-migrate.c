// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-migrate.c - migrate_pages() as compaction calls it: folios
 * isolated from the LRU (and counted in nr_isolated_*, as
 * isolate_migratepages_block() does), destinations from the page
 * allocator. An order-0 anon folio two processes map after fork; a 16K
 * mTHP; a PMD-mapped THP whole, and split when its destination cannot be
 * allocated; a folio someone else holds a reference to; a locked folio
 * in MIGRATE_ASYNC; a shmem folio mapped shared, a 2 MiB shmem folio, a
 * shmem folio moved to another node; a swap-cache folio; a memcg's folio;
 * a partially mapped mTHP split first.
 *
 * Conventions in this file: the expected counts follow 6.18's
 * mm/migrate.c rules (migrate_pages(), migrate_pages_batch(),
 * migrate_pages_sync(), migrate_folio_unmap(), __migrate_folio()), worked
 * out by hand in each case's comment, never from a run.
 */
#include "../src/mm/pgtable.h"
#include "mm_harness.h"
#include "../src/mm/fs.h"
#include "../src/mm/swap.h"
#include "../src/mm/migrate.h"

#define SZ_2M (2ul << 20)
#define THP "transparent_hugepage/"
#define BASE 0x7000000000ull

static unsigned int nr_new, nr_put; /* destinations allocated, given back */

static struct folio *new_folio(struct folio *src, unsigned long private)
{
	struct folio *dst = folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, folio_order(src));

	(void)private;
	nr_new += dst != NULL;
	return dst;
}

static void put_new_folio(struct folio *dst, unsigned long private)
{
	(void)private;
	nr_put++;
	folio_put(dst);
}

/* Isolate @folio onto @list as compaction does: off the LRU, counted as isolated. */
static bool isolate(struct folio *folio, struct list_head *list)
{
	ASSERT_TRUE(folio_isolate_lru(folio));
	mod_node_page_state(folio_pgdat(folio), folio_isolated_item(folio),
			    (long)folio_nr_pages(folio));
	list_add_tail(&folio->lru, list);
	return true;
}

static int migrate(struct list_head *list, enum migrate_mode mode, unsigned int *succeeded)
{
	nr_new = nr_put = 0;
	return migrate_pages(list, new_folio, put_new_folio, 0, mode, MR_COMPACTION, succeeded);
}

/* The pfn a present PTE at @addr of @m maps, or ~0ul. */
static unsigned long pte_pfn_at(struct mm_struct *m, unsigned long addr)
{
	pteval_t *pte = fl__pte_lookup(m, addr, NULL);

	if (!pte || !(*pte & _PAGE_PRESENT))
		return ~0ul;
	return pte_pfn(*pte);
}

/*
 * An order-0 anon folio mapped by a parent and its child after fork:
 * both read-only PTEs become readable migration entries, and both map
 * the new folio afterwards (mapcount 2). One folio migrated, 1 page:
 * pgmigrate_success 1, return 0, *ret_succeeded 1; the source is freed
 * (the frame count is unchanged: one destination taken, one source
 * given back) and nr_isolated_anon is back to 0. The child's write then
 * copies (CoW) and leaves the parent's page alone.
 */
static bool test_order0_after_fork(void)
{
	struct mm_struct *child;
	struct folio *folio, *dst;
	unsigned long a, old_pfn;
	unsigned int succeeded = 0;
	int64_t free_before;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 1, BASE));
	lru_add_drain();
	child = mm_alloc(2);
	ASSERT_TRUE(child && dup_mmap(child, mm) == 0);
	folio = mapped_folio(mm, a);
	ASSERT_TRUE(folio && mapped_folio(child, a) == folio);
	old_pfn = folio_pfn(folio);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(counter("nr_isolated_anon"), 1);
	drain_all_pages(NULL); /* the per-CPU lists' pages count as free once drained */
	free_before = counter("nr_free_pages");
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, &succeeded), 0);
	ASSERT_TRUE(list_empty(&l));
	ASSERT_EQ(succeeded, 1u);
	ASSERT_EQ(nr_new, 1u);
	ASSERT_EQ(nr_put, 0u);
	dst = mapped_folio(mm, a);
	ASSERT_TRUE(dst && folio_pfn(dst) != old_pfn);
	ASSERT_TRUE(mapped_folio(child, a) == dst);
	ASSERT_EQ(folio_mapcount(dst), 2);
	ASSERT_TRUE(folio_test_anon(dst));
	ASSERT_EQ(folio_ref_count(pfn_folio(old_pfn)), 0);
	drain_all_pages(NULL);
	ASSERT_EQ(counter("nr_free_pages"), free_before);
	ASSERT_EQ(counter("pgmigrate_success"), 1);
	ASSERT_EQ(counter("pgmigrate_fail"), 0);
	ASSERT_EQ(counter("thp_migration_success"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	ASSERT_EQ(counter("nr_anon_pages"), 1);
	lru_add_drain();
	ASSERT_TRUE(folio_test_lru(dst));
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(peek(child, a), BASE);
	ASSERT_EQ(touch(child, a, BASE + 1), 0);
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(peek(child, a), BASE + 1);
	mmput(child);
	return mm_down_with_mm();
}

/*
 * A 16K mTHP (order 2) migrates whole to an order-2 destination: its 4
 * PTEs map the new folio's 4 pages in order, writable as before (a
 * rewrite faults nowhere). pgmigrate_success counts pages (4); not
 * PMD-sized, so no thp_migration_success; hugepages-16kB nr_anon stays
 * 1 (the new folio counted, the freed one uncounted).
 */
static bool test_mthp_whole(void)
{
	struct folio *folio, *dst;
	unsigned long a, i;
	int64_t faults;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob(THP "hugepages-16kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(a && write_tags(a, 4, BASE));
	folio = mapped_folio(mm, a);
	ASSERT_EQ((int)folio_order(folio), 2);
	ASSERT_EQ(mthp(16, "nr_anon"), 1);
	lru_add_drain();
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_ASYNC, NULL), 0);
	dst = mapped_folio(mm, a);
	ASSERT_TRUE(dst && dst != folio);
	ASSERT_EQ((int)folio_order(dst), 2);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pte_pfn_at(mm, a + i * PAGE_SIZE), folio_pfn(dst) + i);
	ASSERT_EQ(wrong_tags(a, 4, BASE), 0ul);
	ASSERT_EQ(counter("pgmigrate_success"), 4);
	ASSERT_EQ(counter("thp_migration_success"), 0);
	ASSERT_EQ(mthp(16, "nr_anon"), 1);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	faults = counter("pgfault");
	ASSERT_TRUE(write_tags(a, 4, BASE + 100));
	ASSERT_EQ(counter("pgfault"), faults);
	return mm_down_with_mm();
}

static bool thp_up(unsigned long *a)
{
	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob(THP "enabled", "always"));
	*a = map(SZ_2M);
	ASSERT_TRUE(*a && *a % SZ_2M == 0);
	ASSERT_TRUE(write_tags(*a, 512, BASE));
	ASSERT_TRUE(pmd_trans_huge(fl__pmd_entry(mm, *a)));
	lru_add_drain();
	return true;
}

/*
 * A PMD-mapped THP migrates whole: thp_migration_success 1,
 * pgmigrate_success 512. The model turns the PMD into PTE migration
 * entries (thp_split_pmd 1) and maps the new order-9 folio back by PTEs
 * (6.18 uses a PMD migration entry and maps it by a PMD again).
 */
static bool test_pmd_thp_whole(void)
{
	struct folio *folio, *dst;
	unsigned long a, i;
	LIST_HEAD(l);

	ASSERT_TRUE(thp_up(&a));
	folio = pfn_folio(pte_pfn(fl__pmd_entry(mm, a)));
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(counter("nr_isolated_anon"), 512);
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, NULL), 0);
	dst = mapped_folio(mm, a);
	ASSERT_TRUE(dst && dst != folio);
	ASSERT_EQ((int)folio_order(dst), 9);
	for (i = 0; i < 512; i++)
		ASSERT_EQ(pte_pfn_at(mm, a + i * PAGE_SIZE), folio_pfn(dst) + i);
	ASSERT_EQ(wrong_tags(a, 512, BASE), 0ul);
	ASSERT_EQ(counter("pgmigrate_success"), 512);
	ASSERT_EQ(counter("thp_migration_success"), 1);
	ASSERT_EQ(counter("thp_migration_fail"), 0);
	ASSERT_EQ(counter("thp_migration_split"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	ASSERT_EQ(mthp(2048, "nr_anon"), 1);
	return mm_down_with_mm();
}

/*
 * A PMD-mapped THP whose order-9 destination cannot be allocated, in
 * MIGRATE_SYNC: the first, asynchronous batch gets -ENOMEM from
 * migrate_folio_unmap(), counts the THP failed and splits it
 * (thp_migration_split 1; migrate_pages_sync() counts the split as the
 * THP's failure: thp_migration_fail 1); its 512 order-0 pieces are then
 * migrated once, asynchronously: pgmigrate_success 512, pgmigrate_fail 0.
 * Every piece migrated, so the list is empty and the return is 0.
 */
static bool test_thp_split_when_no_destination(void)
{
	struct folio *folio;
	unsigned long a, i, old_pfn;
	unsigned int succeeded = 0;
	LIST_HEAD(l);

	ASSERT_TRUE(thp_up(&a));
	folio = pfn_folio(pte_pfn(fl__pmd_entry(mm, a)));
	old_pfn = folio_pfn(folio);
	ASSERT_TRUE(isolate(folio, &l));
	fl__fail_page_alloc_orders = 1ul << PMD_ORDER;
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, &succeeded), 0);
	fl__fail_page_alloc_orders = 0;
	ASSERT_TRUE(list_empty(&l));
	ASSERT_EQ(succeeded, 512u);
	ASSERT_EQ(nr_new, 512u);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(counter("thp_migration_split"), 1);
	ASSERT_EQ(counter("thp_migration_fail"), 1);
	ASSERT_EQ(counter("thp_migration_success"), 0);
	ASSERT_EQ(counter("pgmigrate_success"), 512);
	ASSERT_EQ(counter("pgmigrate_fail"), 0);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	for (i = 0; i < 512; i++) {
		unsigned long pfn = pte_pfn_at(mm, a + i * PAGE_SIZE);

		ASSERT_TRUE(pfn != old_pfn + i);
		ASSERT_EQ(mapped_order(mm, a + i * PAGE_SIZE), 0);
	}
	ASSERT_EQ(wrong_tags(a, 512, BASE), 0ul);
	return mm_down_with_mm();
}

/*
 * A folio someone else holds a reference to (a racing lookup, a pin):
 * it unmaps, but __migrate_folio() finds one reference more than its
 * mappings', caches' and the isolation's and returns -EAGAIN, 10 passes
 * in MIGRATE_ASYNC; then migrate_folios_undo() maps it back and it stays
 * on the list. Return 1, pgmigrate_fail 1; the one destination is given
 * back. putback_movable_pages() returns it to the LRU, mapped writable
 * as before.
 */
static bool test_extra_reference_fails(void)
{
	struct folio *folio;
	unsigned long a;
	int64_t faults;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 1, BASE));
	lru_add_drain();
	folio = mapped_folio(mm, a);
	folio_get(folio);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_ASYNC, NULL), 1);
	ASSERT_EQ(nr_new, 1u);
	ASSERT_EQ(nr_put, 1u);
	ASSERT_TRUE(!list_empty(&l) && list_first_entry(&l, struct folio, lru) == folio);
	ASSERT_EQ(counter("pgmigrate_fail"), 1);
	ASSERT_EQ(counter("pgmigrate_success"), 0);
	ASSERT_TRUE(mapped_folio(mm, a) == folio);
	ASSERT_TRUE(folio_test_locked(folio) == false);
	putback_movable_pages(&l);
	ASSERT_TRUE(list_empty(&l));
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	folio_put(folio);
	lru_add_drain();
	ASSERT_TRUE(folio_test_lru(folio));
	faults = counter("pgfault");
	ASSERT_EQ(touch(mm, a, BASE + 1), 0);
	ASSERT_EQ(counter("pgfault"), faults);
	ASSERT_EQ(peek(mm, a), BASE + 1);
	return mm_down_with_mm();
}

/*
 * MIGRATE_ASYNC on a folio locked by someone else: each of the 10 passes
 * allocates a destination, fails folio_trylock(), gives it back and
 * leaves the folio as it was (never unmapped); it fails without waiting.
 */
static bool test_async_locked_fails(void)
{
	struct folio *folio;
	unsigned long a;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 1, BASE));
	lru_add_drain();
	folio = mapped_folio(mm, a);
	ASSERT_TRUE(folio_trylock(folio));
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_ASYNC, NULL), 1);
	ASSERT_EQ(nr_new, (unsigned int)NR_MAX_MIGRATE_PAGES_RETRY);
	ASSERT_EQ(nr_put, (unsigned int)NR_MAX_MIGRATE_PAGES_RETRY);
	ASSERT_EQ(counter("pgmigrate_fail"), 1);
	ASSERT_EQ(counter("fl_migration_entry_wait"), 0);
	ASSERT_TRUE(mapped_folio(mm, a) == folio);
	folio_unlock(folio);
	putback_movable_pages(&l);
	ASSERT_EQ(peek(mm, a), BASE);
	return mm_down_with_mm();
}

/*
 * A shmem folio mapped shared: try_to_migrate() makes its PTE a
 * migration entry, the page cache's entry is replaced under the i_pages
 * lock, the old folio leaves the mapping, and the PTE maps the new one.
 * Shmem is swap-backed: nr_isolated_anon. nr_shmem and nr_file_pages do
 * not change (same node).
 */
static bool test_shmem_folio(void)
{
	struct shmem_sb_info *sb;
	struct inode *ino;
	struct file *file;
	struct folio *folio, *dst;
	unsigned long a = 0;
	int64_t shmem, filep;
	uint64_t t = 0;
	char err[256];
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_EQ(fl__shmem_mount("/mnt", "size=16m,huge=never", &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, 4 * PAGE_SIZE), 0);
	ASSERT_EQ(fl__shmem_write_tags(ino, 0, 4, BASE, 1), 0);
	file = fl__shmem_file_open(ino);
	ASSERT_TRUE(file != NULL);
	ASSERT_EQ(do_mmap_file(mm, file, 0, 4 * PAGE_SIZE, VM_READ | VM_WRITE | VM_SHARED, &a), 0);
	ASSERT_EQ(peek(mm, a), BASE);
	lru_add_drain();
	folio = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(folio && mapped_folio(mm, a) == folio);
	shmem = counter("nr_shmem");
	filep = counter("nr_file_pages");
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(counter("nr_isolated_anon"), 1);
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC_LIGHT, NULL), 0);
	dst = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(dst && dst != folio);
	ASSERT_TRUE(dst->mapping == ino->i_mapping && dst->index == 0);
	ASSERT_TRUE(mapped_folio(mm, a) == dst);
	ASSERT_TRUE(folio_test_swapbacked(dst) && !folio_test_anon(dst));
	ASSERT_EQ(counter("pgmigrate_success"), 1);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	ASSERT_EQ(counter("nr_shmem"), shmem);
	ASSERT_EQ(counter("nr_file_pages"), filep);
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(fl__shmem_read_tags(ino, 0, 1, &t), 1);
	ASSERT_EQ(t, BASE);
	ASSERT_EQ(touch(mm, a, BASE + 7), 0);
	ASSERT_EQ(fl__shmem_read_tags(ino, 0, 1, &t), 1);
	ASSERT_EQ(t, BASE + 7);
	mmput(mm);
	fput(file);
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

/*
 * A 2 MiB shmem folio (huge=always), not mapped: the page cache's
 * multi-index entry is replaced whole (every index of the range finds the
 * new folio, still of order 9); thp_migration_success 1 (PMD-sized),
 * pgmigrate_success 512; nr_shmem_hugepages does not change (same node).
 */
static bool test_shmem_thp(void)
{
	static uint64_t tags[512];
	struct shmem_sb_info *sb;
	struct inode *ino;
	struct folio *folio, *dst;
	int64_t shmem_thps;
	char err[256];
	unsigned long i;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_EQ(fl__shmem_mount("/mnt", "size=16m,huge=always", &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, SZ_2M), 0);
	ASSERT_EQ(fl__shmem_write_tags(ino, 0, 512, BASE, 1), 0);
	lru_add_drain();
	folio = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(folio && folio_order(folio) == PMD_ORDER);
	shmem_thps = counter("nr_shmem_hugepages");
	ASSERT_EQ(shmem_thps, 1);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, NULL), 0);
	dst = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(dst && dst != folio && folio_order(dst) == PMD_ORDER);
	ASSERT_EQ(xa_get_order(&ino->i_mapping->i_pages, 0), PMD_ORDER);
	for (i = 0; i < 512; i += 37)
		ASSERT_TRUE(xa_load(&ino->i_mapping->i_pages, i) == dst);
	ASSERT_TRUE(xa_load(&ino->i_mapping->i_pages, 511) == dst);
	ASSERT_EQ(counter("thp_migration_success"), 1);
	ASSERT_EQ(counter("pgmigrate_success"), 512);
	ASSERT_EQ(counter("nr_shmem_hugepages"), shmem_thps);
	ASSERT_EQ(fl__shmem_read_tags(ino, 0, 512, tags), 512);
	for (i = 0; i < 512; i++)
		ASSERT_EQ(tags[i], BASE + i);
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

static struct folio *new_folio_node1(struct folio *src, unsigned long private)
{
	(void)private;
	return (struct folio *)__alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_COMP | __GFP_THISNODE,
					     folio_order(src), 1);
}

/*
 * Two nodes, a shmem folio on node 0 migrated to node 1 (as move_pages()
 * would): __folio_migrate_mapping() moves nr_file_pages and nr_shmem from
 * node 0 to node 1 (the zone changed); their sums do not change.
 */
static bool test_shmem_to_other_node(void)
{
	struct shmem_sb_info *sb;
	struct inode *ino;
	struct folio *folio, *dst;
	unsigned long f0, s0, f1, s1;
	char err[256];
	uint64_t t = 0;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up(64, 2, 1));
	ASSERT_EQ(fl__shmem_mount("/mnt", "size=16m,huge=never", &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, PAGE_SIZE), 0);
	ASSERT_EQ(fl__shmem_write_tags(ino, 0, 1, BASE, 1), 0);
	lru_add_drain();
	folio = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(folio && folio_nid(folio) == 0);
	f0 = node_page_state(NODE_DATA(0), NR_FILE_PAGES);
	s0 = node_page_state(NODE_DATA(0), NR_SHMEM);
	f1 = node_page_state(NODE_DATA(1), NR_FILE_PAGES);
	s1 = node_page_state(NODE_DATA(1), NR_SHMEM);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate_pages(&l, new_folio_node1, NULL, 0, MIGRATE_SYNC, MR_SYSCALL, NULL), 0);
	dst = xa_load(&ino->i_mapping->i_pages, 0);
	ASSERT_TRUE(dst && dst != folio && folio_nid(dst) == 1);
	ASSERT_EQ(node_page_state(NODE_DATA(0), NR_FILE_PAGES), f0 - 1);
	ASSERT_EQ(node_page_state(NODE_DATA(0), NR_SHMEM), s0 - 1);
	ASSERT_EQ(node_page_state(NODE_DATA(1), NR_FILE_PAGES), f1 + 1);
	ASSERT_EQ(node_page_state(NODE_DATA(1), NR_SHMEM), s1 + 1);
	ASSERT_EQ(node_page_state(NODE_DATA(0), NR_ISOLATED_ANON), 0ul);
	ASSERT_EQ(fl__shmem_read_tags(ino, 0, 1, &t), 1);
	ASSERT_EQ(t, BASE);
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

/*
 * A swap-cache folio (swapped out, the slot shared by a fork, read back
 * by the parent: mapped and in the cache): the slot's swap-table entry
 * names the new folio, which is in the swap cache with the same entry;
 * the child's swap PTE reads it from there.
 */
static bool test_swapcache_folio(void)
{
	struct mm_struct *child;
	struct folio *folio, *dst;
	swp_entry_t entry;
	unsigned long a;
	LIST_HEAD(l);

	mm_swap_mb = 16;
	ASSERT_TRUE(mm_up_with_mm(64));
	mm_swap_mb = 0;
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 1, BASE));
	lru_add_drain();
	ASSERT_EQ(do_madvise(mm, a, PAGE_SIZE, MADV_PAGEOUT), 0);
	ASSERT_EQ(counter("pswpout"), 1);
	child = mm_alloc(2);
	ASSERT_TRUE(child && dup_mmap(child, mm) == 0);
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(counter("nr_swapcached"), 1);
	lru_add_drain();
	folio = mapped_folio(mm, a);
	ASSERT_TRUE(folio && folio_test_swapcache(folio));
	entry = folio_swap_entry(folio, 0);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, NULL), 0);
	dst = mapped_folio(mm, a);
	ASSERT_TRUE(dst && dst != folio);
	ASSERT_TRUE(folio_test_swapcache(dst));
	ASSERT_EQ(folio_swap_entry(dst, 0).val, entry.val);
	ASSERT_TRUE(fl__swap_info->table[swp_offset(entry)] == dst);
	ASSERT_EQ(counter("nr_swapcached"), 1);
	ASSERT_EQ(counter("pgmigrate_success"), 1);
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(peek(child, a), BASE);
	ASSERT_TRUE(mapped_folio(child, a) == dst);
	mmput(child);
	return mm_down_with_mm();
}

/*
 * A folio charged to a memcg: mem_cgroup_migrate() hands the charge to
 * the destination (which the test's allocation did not charge) and
 * uncharges nothing: memory.current stays as it was, the memcg's
 * nr_anon_pages stays 4 (unmapped from the source, mapped to the
 * destination, both in the memcg), and the destination is on the
 * memcg's LRU.
 */
static bool test_memcg_charge_moves(void)
{
	struct mem_cgroup *memcg;
	struct folio *folio, *dst;
	unsigned long a;
	long usage;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up(64, 1, 1));
	memcg = fl__mem_cgroup_create("test", 1024, PAGE_COUNTER_MAX);
	ASSERT_TRUE(memcg != NULL);
	fl__run_memcg = memcg;
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	a = map(4 * PAGE_SIZE);
	ASSERT_TRUE(a && write_tags(a, 4, BASE));
	lru_add_drain();
	usage = fl_atomic_load(&memcg->memory.usage, __ATOMIC_RELAXED); /* 4 and the stock's */
	folio = mapped_folio(mm, a + PAGE_SIZE);
	ASSERT_TRUE(folio_memcg(folio) == memcg);
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_SYNC, NULL), 0);
	dst = mapped_folio(mm, a + PAGE_SIZE);
	ASSERT_TRUE(dst && dst != folio);
	ASSERT_TRUE(folio_memcg(dst) == memcg);
	ASSERT_EQ(fl_atomic_load(&memcg->memory.usage, __ATOMIC_RELAXED), usage);
	ASSERT_EQ(memcg_page_state(memcg, NR_ANON_MAPPED), 4);
	lru_add_drain();
	ASSERT_TRUE(folio_test_lru(dst) && folio_lruvec(dst) == &memcg->nodeinfo[0]);
	ASSERT_EQ(wrong_tags(a, 4, BASE), 0ul);
	return mm_down_with_mm();
}

/*
 * A 64K mTHP half unmapped (MADV_DONTNEED on pages 8-15) is partially
 * mapped and on the deferred split queue: migrate_pages_batch() splits it
 * before anything else (not a PMD-sized folio: no thp_migration_*
 * counts), counting it as one failure. Its 16 pieces are migrated once,
 * asynchronously: the 8 still mapped move; the 8 unmapped ones hold only
 * the isolation's reference and are released as migrated ("freed under
 * us"): pgmigrate_success 16. Nothing is left on the list: return 0.
 */
static bool test_partially_mapped_split_first(void)
{
	struct folio *folio;
	unsigned long a, i, old_pfn;
	unsigned int succeeded = 0;
	LIST_HEAD(l);

	ASSERT_TRUE(mm_up_with_mm(64));
	ASSERT_TRUE(knob(THP "hugepages-64kB/enabled", "always"));
	a = map(SZ_2M);
	ASSERT_TRUE(a && write_tags(a, 16, BASE));
	folio = mapped_folio(mm, a);
	ASSERT_EQ((int)folio_order(folio), 4);
	old_pfn = folio_pfn(folio);
	ASSERT_EQ(do_madvise(mm, a + 8 * PAGE_SIZE, 8 * PAGE_SIZE, MADV_DONTNEED), 0);
	ASSERT_TRUE(folio_test_partially_mapped(folio));
	lru_add_drain();
	ASSERT_TRUE(isolate(folio, &l));
	ASSERT_EQ(migrate(&l, MIGRATE_ASYNC, &succeeded), 0);
	ASSERT_TRUE(list_empty(&l));
	ASSERT_EQ(succeeded, 16u);
	ASSERT_EQ(nr_new, 8u);
	ASSERT_EQ(counter("pgmigrate_success"), 16);
	ASSERT_EQ(counter("pgmigrate_fail"), 0);
	ASSERT_EQ(counter("thp_migration_split"), 0);
	ASSERT_EQ(counter("thp_migration_fail"), 0);
	ASSERT_EQ(mthp(64, "split"), 1);
	ASSERT_EQ(counter("nr_isolated_anon"), 0);
	for (i = 0; i < 8; i++) {
		/* moved off its frame (a freed piece's frame may be a later destination) */
		ASSERT_TRUE(pte_pfn_at(mm, a + i * PAGE_SIZE) != old_pfn + i);
		ASSERT_EQ(mapped_order(mm, a + i * PAGE_SIZE), 0);
	}
	ASSERT_EQ(wrong_tags(a, 8, BASE), 0ul);
	ASSERT_EQ(wrong_tags(a + 8 * PAGE_SIZE, 8, 0), 0ul);
	return mm_down_with_mm();
}

TEST_MAIN(TEST(test_order0_after_fork), TEST(test_mthp_whole), TEST(test_pmd_thp_whole),
	  TEST(test_thp_split_when_no_destination), TEST(test_extra_reference_fails),
	  TEST(test_async_locked_fails), TEST(test_shmem_folio), TEST(test_shmem_thp),
	  TEST(test_shmem_to_other_node), TEST(test_swapcache_folio), TEST(test_memcg_charge_moves),
	  TEST(test_partially_mapped_split_first))
