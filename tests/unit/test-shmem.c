// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-shmem.c - tmpfs and the split of file folios: the orders fallocate
 * allocates under huge=never/always/within_size and when the PMD order
 * cannot be allocated; writes and reads of tags (an fallocated folio reads
 * 0 until written); split_huge_pages' path form splitting uniformly to
 * orders 0, 2 and 4 and non-uniformly at a page, with the counters, the
 * page-cache orders and every tag kept, forward and reverse publication
 * (same slots written, fewer nodes visited backwards); a folio with an
 * extra reference failing with -EAGAIN; hole punching as 6.18 does it
 * (4K at a folio's start, the folio but its first page, a whole folio);
 * size= limits, unlink and umount giving every page back.
 *
 * Conventions in this file: the expected pieces of a non-uniform split
 * are worked out by halving by hand (the rule in kernel-6.18-audit.md B);
 * F is the 8 MiB test file: four PMD folios.
 */
#include "mm_harness.h"
#include "../src/mm/fs.h"

#define MB (1ul << 20)
#define FPAGES (8 * MB / PAGE_SIZE) /* 2048 pages */

static struct shmem_sb_info *sb;
static struct inode *ino;

static bool up_mount(const char *opts)
{
	char err[256];

	ASSERT_TRUE(mm_up(256, 1, 1));
	ASSERT_EQ(fl__shmem_mount("/mnt", opts, &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "big", &ino), 0);
	return true;
}

static bool down_umount(void)
{
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

/* The order of the page-cache entry at @index, -1 for none. */
static int cache_order(pgoff_t index)
{
	if (!xa_load(&ino->i_mapping->i_pages, index))
		return -1;
	return xa_get_order(&ino->i_mapping->i_pages, index);
}

/*
 * Every cached index finds the folio that holds it (a stale entry would
 * still name the folio the page was split from), and the folios tile the
 * file: each is where its own index says.
 */
static bool cache_consistent(unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++) {
		struct folio *folio = xa_load(&ino->i_mapping->i_pages, i);

		if (!folio)
			continue;
		if (folio->index > i || folio_next_index(folio) <= i ||
		    folio->mapping != ino->i_mapping) {
			printf("# index %lu: folio of [%lu, %lu)\n", i, folio->index,
			       folio_next_index(folio));
			return false;
		}
		ASSERT_EQ(xa_get_order(&ino->i_mapping->i_pages, i), (int)folio_order(folio));
	}
	return true;
}

/* Write tag 1000 + i to every page i of the file, and check they read back. */
static bool fill(unsigned long pages)
{
	static uint64_t got[FPAGES];
	unsigned long i;

	ASSERT_EQ(fl__shmem_write_tags(ino, 0, pages, 1000, 1), 0);
	ASSERT_EQ(fl__shmem_read_tags(ino, 0, pages, got), (int)pages);
	for (i = 0; i < pages; i++)
		ASSERT_EQ(got[i], 1000 + i);
	return true;
}

/* Every page but those in [hole, hole_end) reads 1000 + i; the hole reads 0. */
static bool tags_kept(unsigned long pages, unsigned long hole, unsigned long hole_end)
{
	static uint64_t got[FPAGES];
	unsigned long i;

	ASSERT_EQ(fl__shmem_read_tags(ino, 0, pages, got), (int)pages);
	for (i = 0; i < pages; i++)
		ASSERT_EQ(got[i], i >= hole && i < hole_end ? 0 : 1000 + i);
	return true;
}

static bool test_mount_options(void)
{
	struct shmem_sb_info *other;
	char err[256];

	ASSERT_TRUE(mm_up(64, 1, 1));
	ASSERT_EQ(fl__shmem_mount("/a", "huge=sometimes", &other, err, sizeof(err)), -EINVAL);
	ASSERT_TRUE(strstr(err, "never, always, within_size, advise") != NULL);
	ASSERT_EQ(fl__shmem_mount("/a", "size=lots", &other, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(fl__shmem_mount("/a", "nr_inodes=5", &other, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(fl__shmem_mount("relative", "", &other, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(fl__shmem_mount("/a", "size=2G,huge=within_size", &sb, err, sizeof(err)), 0);
	ASSERT_EQ(sb->max_blocks, 2ul << 18);
	ASSERT_EQ(sb->huge, SHMEM_HUGE_WITHIN_SIZE);
	ASSERT_EQ(fl__shmem_mount("/a", "", &other, err, sizeof(err)), -EBUSY);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), -EEXIST);
	ASSERT_EQ(fl__shmem_umount(sb), -EBUSY); /* "f" is open */
	ASSERT_TRUE(fl__shmem_lookup_path("/a/f") == ino);
	fl__iput(ino);
	fl__iput(ino);
	ASSERT_TRUE(fl__shmem_lookup_path("/a/nothing") == NULL);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

/* huge=always: 8 MiB fallocated is four PMD folios, counted as the kernel counts them. */
static bool test_fallocate_always_gives_pmd_folios(void)
{
	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), 0);
	ASSERT_EQ(ino->i_size, (loff_t)(8 * MB));
	ASSERT_EQ(counter("thp_file_alloc"), 4);
	ASSERT_EQ(mthp(2048, "shmem_alloc"), 4);
	ASSERT_EQ(counter("nr_shmem"), (int64_t)FPAGES);
	ASSERT_EQ(counter("nr_file_pages"), (int64_t)FPAGES);
	ASSERT_EQ(counter("nr_shmem_hugepages"), 4);
	ASSERT_EQ(ino->i_mapping->nrpages, FPAGES);
	ASSERT_EQ(cache_order(0), 9);
	ASSERT_EQ(cache_order(FPAGES - 1), 9);
	/* fallocated, not written: reads are zeros */
	ASSERT_TRUE(tags_kept(FPAGES, 0, FPAGES));
	ASSERT_TRUE(down_umount());
	return true;
}

static bool test_fallocate_never_gives_pages(void)
{
	ASSERT_TRUE(up_mount("huge=never"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), 0);
	ASSERT_EQ(counter("thp_file_alloc"), 0);
	ASSERT_EQ(counter("nr_shmem"), (int64_t)FPAGES);
	ASSERT_EQ(cache_order(1234), 0);
	return down_umount();
}

/*
 * No PMD folio to be had: at each 2 MiB boundary the PMD order is tried
 * and counted as a fallback, then order 8 fits twice (the second time the
 * order-9 range is no longer empty, so it is not tried).
 */
static bool test_fallocate_falls_back_an_order(void)
{
	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "9"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), 0);
	ASSERT_EQ(counter("thp_file_fallback"), 4);
	ASSERT_EQ(mthp(2048, "shmem_fallback"), 4);
	ASSERT_EQ(mthp(1024, "shmem_alloc"), 8);
	ASSERT_EQ(counter("thp_file_alloc"), 0);
	ASSERT_EQ(cache_order(256), 8);
	ASSERT_TRUE(knob("foliolab/fail_page_alloc_orders", "none"));
	return down_umount();
}

/* within_size: 3 MiB is an order-9 folio and, past 2 MiB, the order-8 one that fits. */
static bool test_within_size(void)
{
	ASSERT_TRUE(up_mount("huge=within_size"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 3 * MB), 0);
	ASSERT_EQ(cache_order(0), 9);
	ASSERT_EQ(cache_order(512), 8);
	ASSERT_EQ(ino->i_mapping->nrpages, 768ul);
	return down_umount();
}

/* Writing part of an fallocated folio clears its other pages; tags read back. */
static bool test_write_read_tags(void)
{
	uint64_t got[4];

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 2 * MB), 0);
	ASSERT_EQ(fl__shmem_write_tags(ino, 10, 2, 77, 1), 0);
	ASSERT_EQ(fl__shmem_read_tags(ino, 9, 4, got), 4);
	ASSERT_EQ(got[0], 0);
	ASSERT_EQ(got[1], 77);
	ASSERT_EQ(got[2], 78);
	ASSERT_EQ(got[3], 0);
	/* a read stops at i_size */
	ASSERT_EQ(fl__shmem_read_tags(ino, 510, 4, got), 2);
	/* a write past the end grows the file with a new folio */
	ASSERT_EQ(fl__shmem_write_tags(ino, 600, 1, 5, 0), 0);
	ASSERT_EQ(ino->i_size, (loff_t)601 * (loff_t)PAGE_SIZE);
	ASSERT_TRUE(fill(601));
	return down_umount();
}

/* split_huge_pages, path form, uniform to @order: counters, orders, tags. */
static bool split_uniform_case(unsigned int order, bool reverse, int64_t *visits)
{
	char cmd[128];
	unsigned long i;
	int64_t v0;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_TRUE(knob("foliolab/split_walk", reverse ? "reverse" : "forward"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), 0);
	ASSERT_TRUE(fill(FPAGES));
	v0 = counter("fl_xa_visit");
	snprintf(cmd, sizeof(cmd), "/mnt/big,0x0,0x%lx,%u", FPAGES, order);
	ASSERT_EQ(fl__split_huge_pages_write(cmd), 0);
	*visits = counter("fl_xa_visit") - v0;
	ASSERT_EQ(counter("thp_split_page"), 4);
	ASSERT_EQ(mthp(2048, "split"), 4);
	ASSERT_EQ(counter("nr_shmem_hugepages"), 0);
	ASSERT_EQ(counter("nr_shmem"), (int64_t)FPAGES);
	/* every piece after the first of each folio was published once */
	ASSERT_EQ(counter("fl_split_walk"), (int64_t)(4 * ((512 >> order) - 1)));
	for (i = 0; i < FPAGES; i += 1ul << order)
		ASSERT_EQ(cache_order(i), (int)order);
	ASSERT_TRUE(cache_consistent(FPAGES));
	ASSERT_TRUE(tags_kept(FPAGES, 0, 0));
	ASSERT_EQ(counter("nr_inactive_anon") + counter("nr_active_anon"), (int64_t)FPAGES);
	return down_umount();
}

static bool test_split_uniform(void)
{
	int64_t fwd, rev;

	ASSERT_TRUE(split_uniform_case(0, false, &fwd));
	ASSERT_TRUE(split_uniform_case(0, true, &rev));
	/*
	 * Forward publishes each of 511 pieces a folio with a walk from the
	 * root (a two-level tree here: 2 nodes); backward walks once and
	 * steps, entering a node only at each of the 7 leaf boundaries (up
	 * to the shift-6 node, down to the leaf).
	 */
	ASSERT_EQ(fwd - rev, 4 * (511 * 2 - (2 + 7 * 2)));
	ASSERT_TRUE(split_uniform_case(2, false, &fwd));
	ASSERT_TRUE(split_uniform_case(4, true, &rev));
	return true;
}

/*
 * Non-uniform at page 3 to order 0 (the in_folio_offset form): halving
 * towards page 3 leaves [0,1] o1, [2] o0, [3] o0, [4,7] o2, [8,15] o3,
 * [16,31] o4, [32,63] o5, [64,127] o6, [128,255] o7, [256,511] o8.
 */
static bool test_split_non_uniform_at_a_page(void)
{
	static const int want[][2] = { { 0, 1 },  { 2, 0 },  { 3, 0 },	{ 4, 2 },   { 8, 3 },
				       { 16, 4 }, { 32, 5 }, { 64, 6 }, { 128, 7 }, { 256, 8 } };
	unsigned int k;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 2 * MB), 0);
	ASSERT_TRUE(fill(512));
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0,0x200,0,3"), 0);
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		ASSERT_EQ(cache_order((pgoff_t)want[k][0]), want[k][1]);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_TRUE(cache_consistent(512));
	ASSERT_TRUE(tags_kept(512, 0, 0));
	return down_umount();
}

/*
 * Seed 000 3/4: under pages31 a 16K folio may sit in this CPU's lru_add
 * batch, which holds a reference; the split then finds one reference too
 * many. With the drain it drains the batch first and splits; without, it
 * fails with -EAGAIN and counts split_failed. Under order0 no large folio is
 * cached: nothing to drain, the split works either way.
 */
static bool split_cached_case(const char *policy, const char *drain, int split, int failed)
{
	ASSERT_TRUE(up_mount("huge=within_size"));
	ASSERT_TRUE(knob("foliolab/lru_cache", policy));
	ASSERT_TRUE(knob("foliolab/split_drain", drain));
	/* 4 pages within a 4-page size: one order-2 folio */
	ASSERT_EQ(fl__shmem_write_tags(ino, 0, 4, 1000, 1), 0);
	ASSERT_EQ(cache_order(0), 2);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0,0x4,0"), 0);
	ASSERT_EQ(mthp(16, "split"), split);
	ASSERT_EQ(mthp(16, "split_failed"), failed);
	ASSERT_EQ(cache_order(0), split ? 0 : 2);
	ASSERT_TRUE(tags_kept(4, 0, 0));
	return down_umount();
}

static bool test_drain_before_split(void)
{
	ASSERT_TRUE(split_cached_case("pages31", "on", 1, 0));
	ASSERT_TRUE(split_cached_case("pages31", "off", 0, 1));
	ASSERT_TRUE(split_cached_case("pages31", "auto", 1, 0)); /* pages31 implies the drain */
	ASSERT_TRUE(split_cached_case("order0", "off", 1, 0));
	return true;
}

/* Bad input the kernel refuses; a path that does not open. */
static bool test_split_huge_pages_input(void)
{
	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big"), -EINVAL);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0"), -EINVAL);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,10,20"), -EINVAL);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/none,0x0,0x10"), -EINVAL);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0,0x200"), 0); /* nothing cached */
	ASSERT_EQ(counter("thp_split_page"), 0);
	return down_umount();
}

/*
 * 6.18's parsing and walk (review of issue 19): a new order no folio is
 * larger than, -1 (read as an unsigned int) and 10 included, splits
 * nothing and succeeds; the path form steps by the folio's size from
 * wherever its index was, so [1, 513) reaches the first PMD folio (at
 * index 1) and then index 513, past the end: the second PMD folio is not
 * split, though its first page (512) is inside the range.
 */
static bool test_split_huge_pages_kernel_walk(void)
{
	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 4 * MB), 0);
	ASSERT_TRUE(fill(1024));
	ASSERT_EQ(cache_order(0), PMD_ORDER);
	ASSERT_EQ(cache_order(512), PMD_ORDER);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0,0x400,10"), 0);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x0,0x400,-1"), 0);
	ASSERT_EQ(counter("thp_split_page"), 0);
	ASSERT_EQ(fl__split_huge_pages_write("/mnt/big,0x1,0x201,0"), 0);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(cache_order(0), 0);
	ASSERT_EQ(cache_order(512), PMD_ORDER);
	ASSERT_TRUE(cache_consistent(1024));
	ASSERT_TRUE(tags_kept(1024, 0, 0));
	return down_umount();
}

/* An extra reference (a pin, a per-CPU batch) makes the split fail: -EAGAIN, counted. */
static bool test_extra_reference_fails_the_split(void)
{
	struct folio *folio;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 2 * MB), 0);
	folio = filemap_lock_folio(ino->i_mapping, 0);
	ASSERT_TRUE(folio != NULL);
	folio_get(folio); /* somebody else's */
	ASSERT_EQ(split_folio(folio), -EAGAIN);
	ASSERT_EQ(counter("thp_split_page_failed"), 1);
	ASSERT_EQ(mthp(2048, "split_failed"), 1);
	ASSERT_EQ(split_folio_to_order(folio, 9), -EINVAL);
	folio_put(folio);
	ASSERT_EQ(split_folio_to_order(folio, 4), 0);
	ASSERT_EQ(cache_order(16), 4);
	folio_unlock(folio);
	folio_put(folio);
	return down_umount();
}

/*
 * Punching 4K at the start of each PMD folio: each splits non-uniformly
 * at page 0 ([0] o0, [1] o0, [2,3] o1, ... [256,511] o8), then the page
 * in the hole goes: one split and one page freed per folio.
 */
static bool test_punch_4k_at_each_folio_start(void)
{
	unsigned long f;
	int64_t freed;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), 0);
	ASSERT_TRUE(fill(FPAGES));
	freed = counter("pgfree");
	for (f = 0; f < 4; f++)
		ASSERT_EQ(shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					  (loff_t)(f * 2 * MB), 4096),
			  0);
	ASSERT_EQ(counter("thp_split_page"), 4);
	ASSERT_EQ(mthp(2048, "split"), 4);
	ASSERT_EQ(counter("nr_shmem_hugepages"), 0);
	ASSERT_EQ(counter("nr_shmem"), (int64_t)(FPAGES - 4));
	ASSERT_EQ(counter("pgfree") - freed, 4);
	ASSERT_EQ(cache_order(0), -1);
	ASSERT_EQ(cache_order(1), 0);
	ASSERT_EQ(cache_order(2), 1);
	ASSERT_EQ(cache_order(256), 8);
	ASSERT_EQ(cache_order(512), -1);
	ASSERT_EQ(cache_order(513), 0);
	ASSERT_TRUE(tags_kept(2, 0, 1));
	ASSERT_TRUE(cache_consistent(FPAGES));
	ASSERT_EQ(ino->i_size, (loff_t)(8 * MB));
	return down_umount();
}

/* Punching a whole folio frees it without a split; [4K, 2M) keeps page 0 alone. */
static bool test_punch_whole_and_all_but_the_first_page(void)
{
	uint64_t got;
	int64_t freed;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 4 * MB), 0);
	ASSERT_TRUE(fill(1024));
	freed = counter("pgfree");
	ASSERT_EQ(shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 2 * MB), 0);
	ASSERT_EQ(counter("thp_split_page"), 0);
	ASSERT_EQ(counter("pgfree") - freed, 512);
	ASSERT_EQ(shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (loff_t)(2 * MB + 4096), (loff_t)(2 * MB - 4096)),
		  0);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(counter("pgfree") - freed, 512 + 511);
	ASSERT_EQ(cache_order(512), 0);
	ASSERT_EQ(cache_order(513), -1);
	ASSERT_EQ(ino->i_mapping->nrpages, 1ul);
	/* the kept page reads its tag; the holes read 0 */
	ASSERT_EQ(fl__shmem_read_tags(ino, 512, 1, &got), 1);
	ASSERT_EQ(got, 1000 + 512);
	ASSERT_EQ(fl__shmem_read_tags(ino, 700, 1, &got), 1);
	ASSERT_EQ(got, 0);
	ASSERT_EQ(fl__shmem_read_tags(ino, 100, 1, &got), 1);
	ASSERT_EQ(got, 0);
	return down_umount();
}

/* size= caps what the files hold; a failed fallocate gives its folios back. */
static bool test_size_limit(void)
{
	ASSERT_TRUE(up_mount("size=4M,huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 8 * MB), -ENOSPC);
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 4 * MB), 0);
	ASSERT_EQ(sb->used_blocks, 1024ul);
	ASSERT_EQ(fl__shmem_write_tags(ino, 1024, 1, 1, 0), -ENOSPC);
	ASSERT_EQ(counter("nr_shmem"), 1024);
	return down_umount();
}

/* ftruncate down into a PMD folio: the part beyond goes, the folio is split. */
static bool test_truncate_splits(void)
{
	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 2 * MB), 0);
	ASSERT_TRUE(fill(512));
	ASSERT_EQ(fl__shmem_truncate(ino, (loff_t)(100 * PAGE_SIZE)), 0);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(ino->i_mapping->nrpages, 100ul);
	ASSERT_TRUE(cache_consistent(512));
	ASSERT_TRUE(tags_kept(100, 0, 0));
	return down_umount();
}

/* Unlinking an open file keeps it until the close; umount frees the rest. */
static bool test_unlink_and_umount_free_everything(void)
{
	struct inode *two;

	ASSERT_TRUE(up_mount("huge=always"));
	ASSERT_EQ(shmem_fallocate(ino, 0, 0, 4 * MB), 0);
	ASSERT_EQ(fl__shmem_create(sb, "two", &two), 0);
	ASSERT_EQ(shmem_fallocate(two, 0, 0, 2 * MB), 0);
	ASSERT_EQ(fl__shmem_unlink(two), 0);
	ASSERT_EQ(counter("nr_shmem"), 1536);
	fl__iput(two);
	ASSERT_EQ(counter("nr_shmem"), 1024);
	ASSERT_EQ(sb->used_blocks, 1024ul);
	fl__iput(ino); /* still linked: umount frees it */
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	ASSERT_EQ(counter("nr_shmem"), 0);
	ASSERT_EQ(counter("nr_file_pages"), 0);
	return mm_down();
}

TEST_MAIN(TEST(test_mount_options), TEST(test_fallocate_always_gives_pmd_folios),
	  TEST(test_fallocate_never_gives_pages), TEST(test_fallocate_falls_back_an_order),
	  TEST(test_within_size), TEST(test_write_read_tags), TEST(test_split_uniform),
	  TEST(test_split_non_uniform_at_a_page), TEST(test_drain_before_split),
	  TEST(test_split_huge_pages_input), TEST(test_split_huge_pages_kernel_walk),
	  TEST(test_extra_reference_fails_the_split), TEST(test_punch_4k_at_each_folio_start),
	  TEST(test_punch_whole_and_all_but_the_first_page), TEST(test_size_limit),
	  TEST(test_truncate_splits), TEST(test_unlink_and_umount_free_everything))
