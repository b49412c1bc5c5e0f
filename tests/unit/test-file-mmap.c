// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-file-mmap.c - mappings of tmpfs files: shared write faults mapping
 * a PMD-sized folio with one PMD (thp_file_mapped) and a smaller large
 * folio whole (6.18's finish_fault()), read faults mapping the 16 cached
 * pages around them (fault-around) or allocating in a hole, private
 * mappings copying on write (the file keeps its data), SIGBUS past the end
 * of the file, a punched hole and a truncation taking the pages out of
 * every mapping (CoW copies only on truncation), the split of a mapped
 * shmem folio unmapping it (its pages fault back in), and a file unlinked
 * while mapped living until the munmap. Tags are checked through the
 * mapping and through the file after every step.
 *
 * Conventions in this file: the expected counts are worked out from the
 * rules in each case's comment (kernel-facts.md, "File mappings"), never
 * copied from a run; pages are numbered from the file's start; a file's
 * written tags are BASE + page.
 */
#include "../src/mm/pgtable.h"
#include "mm_harness.h"
#include "../src/mm/fs.h"

#define MB (1ul << 20)
#define BASE 0x6000000000ull

static struct shmem_sb_info *sb;
static struct inode *ino;
static struct file *file;

static bool up_file(const char *opts, unsigned long pages, unsigned long written)
{
	char err[256];

	ASSERT_TRUE(mm_up(256, 1, 1));
	ASSERT_EQ(fl__shmem_mount("/mnt", opts, &sb, err, sizeof(err)), 0);
	ASSERT_EQ(fl__shmem_create(sb, "f", &ino), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, (loff_t)pages * PAGE_SIZE), 0);
	if (written)
		ASSERT_EQ(fl__shmem_write_tags(ino, 0, written, BASE, 1), 0);
	file = fl__shmem_file_open(ino);
	ASSERT_TRUE(file != NULL);
	mm = mm_alloc(1);
	ASSERT_TRUE(mm != NULL);
	return true;
}

/* munmap everything, close and unlink the file, umount: every frame back */
static bool down_file(void)
{
	mmput(mm);
	fput(file);
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fl__iput(ino);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

static unsigned long map_file(loff_t off, unsigned long len, unsigned long flags)
{
	unsigned long a = 0;

	return do_mmap_file(mm, file, off, len, flags, &a) ? 0 : a;
}

static uint64_t file_tag(pgoff_t index)
{
	uint64_t t = ~0ull;

	return fl__shmem_read_tags(ino, index, 1, &t) == 1 ? t : ~1ull;
}

#define SHARED_RW (VM_READ | VM_WRITE | VM_SHARED)

/*
 * huge=always, a 4 MiB file mapped shared at a PMD boundary: a write
 * allocates a PMD folio (thp_file_alloc) and maps it with one PMD
 * (thp_file_mapped): 512 pages mapped, 1 fault, the write landing in the
 * file. A second PMD the same way. munmap unmaps both; the data stays.
 */
static bool test_shared_write_maps_pmd(void)
{
	unsigned long a;

	ASSERT_TRUE(up_file("size=64m,huge=always", 1024, 0));
	a = map_file(0, 4 * MB, SHARED_RW);
	ASSERT_NE(a, 0ul);
	ASSERT_EQ(a % (2 * MB), 0ul);
	ASSERT_EQ(touch(mm, a + 5 * PAGE_SIZE, 0x55), 0);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(counter("thp_file_alloc"), 1);
	ASSERT_EQ(counter("thp_file_mapped"), 1);
	ASSERT_EQ(counter("nr_shmem"), 512);
	ASSERT_EQ(counter("nr_shmem_hugepages"), 1);
	ASSERT_EQ(counter("nr_shmem_pmdmapped"), 1);
	ASSERT_EQ(counter("nr_mapped"), 512);
	ASSERT_EQ(fl__mm_counter(mm, MM_SHMEMPAGES), 512);
	ASSERT_EQ(file_tag(5), 0x55ull);
	ASSERT_EQ(peek(mm, a + 6 * PAGE_SIZE), 0ull); /* the rest of a new folio is clear */
	ASSERT_EQ(touch(mm, a + 600 * PAGE_SIZE, 0x600), 0);
	ASSERT_EQ(counter("thp_file_mapped"), 2);
	ASSERT_EQ(counter("pgfault"), 2);
	ASSERT_EQ(do_munmap(mm, a, 4 * MB), 0);
	ASSERT_EQ(counter("nr_mapped"), 0);
	ASSERT_EQ(counter("nr_shmem_pmdmapped"), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_SHMEMPAGES), 0);
	ASSERT_EQ(counter("nr_shmem"), 1024);
	ASSERT_EQ(file_tag(600), 0x600ull);
	return down_file();
}

/*
 * huge=never, a 2 MiB file whose first 64 pages were written: a read of
 * page 5 maps the cached pages 0..15 (the 16-page window around it); reads
 * of those pages fault no more; page 16 maps 16..31. Page 100 is a hole:
 * fault-around finds nothing, the fault allocates one page (read as 0).
 */
static bool test_read_fault_around(void)
{
	unsigned long a, i;

	ASSERT_TRUE(up_file("size=64m,huge=never", 512, 64));
	a = map_file(0, 2 * MB, VM_READ | VM_SHARED);
	ASSERT_NE(a, 0ul);
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), BASE + 5);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(counter("nr_mapped"), 16);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(peek(mm, a + i * PAGE_SIZE), BASE + i);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(peek(mm, a + 16 * PAGE_SIZE), BASE + 16);
	ASSERT_EQ(counter("pgfault"), 2);
	ASSERT_EQ(counter("nr_mapped"), 32);
	ASSERT_EQ(peek(mm, a + 100 * PAGE_SIZE), 0ull);
	ASSERT_EQ(counter("pgfault"), 3);
	ASSERT_EQ(counter("nr_mapped"), 33);
	ASSERT_EQ(counter("nr_shmem"), 65);
	ASSERT_EQ(fl__mm_counter(mm, MM_SHMEMPAGES), 33);
	/* a read-only mapping: a write is refused */
	ASSERT_EQ(touch(mm, a, 1), -EFAULT);
	return down_file();
}

/*
 * huge=always, a 4 MiB file mapped at a PMD boundary, then [1M, 2M) of
 * the mapping unmapped: a write at page 3 of the first VMA cannot have a
 * PMD folio (it would not fit the 1 MiB VMA) but can have a 1 MiB one,
 * aligned in the VMA and the file; 6.18 maps it whole: 256 pages, 1 fault.
 * The second VMA (pages 512..1023) gets a PMD.
 */
static bool test_large_folio_mapped_whole(void)
{
	unsigned long a, i;

	ASSERT_TRUE(up_file("size=64m,huge=always", 1024, 0));
	a = map_file(0, 4 * MB, SHARED_RW);
	ASSERT_EQ(a % (2 * MB), 0ul);
	ASSERT_EQ(do_munmap(mm, a + MB, MB), 0);
	ASSERT_EQ(touch(mm, a + 3 * PAGE_SIZE, 0x33), 0);
	ASSERT_EQ(mthp(1024, "shmem_alloc"), 1);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(counter("nr_mapped"), 256);
	for (i = 0; i < 256; i++)
		ASSERT_EQ(peek(mm, a + i * PAGE_SIZE), i == 3 ? 0x33ull : 0ull);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(touch(mm, a + 2 * MB, 0x200), 0);
	ASSERT_EQ(counter("thp_file_mapped"), 1);
	ASSERT_EQ(counter("nr_mapped"), 256 + 512);
	ASSERT_EQ(file_tag(512), 0x200ull);
	return down_file();
}

/*
 * huge=always, 2 MiB written through the file (a PMD folio in the page
 * cache), mapped with MADV_NOHUGEPAGE: 6.18's do_set_pmd() refuses a PMD
 * where THPs are off for the VMA, so a read maps the PMD folio with PTEs:
 * no thp_file_mapped, the pages mapped one by one; the folio itself stays
 * whole. Regression test for the review of issue 19.
 */
static bool test_nohugepage_vma_gets_no_pmd(void)
{
	unsigned long a;

	ASSERT_TRUE(up_file("size=64m,huge=always", 512, 512));
	ASSERT_EQ(counter("nr_shmem_hugepages"), 1);
	a = map_file(0, 2 * MB, VM_READ | VM_SHARED);
	ASSERT_EQ(a % (2 * MB), 0ul);
	ASSERT_EQ(do_madvise(mm, a, 2 * MB, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), BASE + 5);
	ASSERT_EQ(counter("thp_file_mapped"), 0);
	ASSERT_EQ(counter("nr_shmem_pmdmapped"), 0);
	ASSERT_TRUE(!(fl__pmd_entry(mm, a) & _PAGE_PSE));
	ASSERT_TRUE(fl__pte_lookup(mm, a + 5 * PAGE_SIZE, NULL) != NULL);
	ASSERT_EQ(counter("nr_shmem_hugepages"), 1);
	ASSERT_EQ(peek(mm, a + 300 * PAGE_SIZE), BASE + 300);
	ASSERT_EQ(do_munmap(mm, a, 2 * MB), 0);
	return down_file();
}

/*
 * Fault-around maps a large folio whole where it lies inside the VMA and
 * one PTE table (6.18's filemap_map_folio_range(), "map entire large
 * folio faultaround"): huge=within_size, 256 pages written (large folios
 * in the page cache), a read of page 100 maps the whole folio holding it,
 * not the 16-page window around it. Regression test for the review of
 * issue 19.
 */
static bool test_fault_around_maps_whole_folio(void)
{
	unsigned long a, i;
	struct folio *f;
	int order;

	ASSERT_TRUE(up_file("size=64m,huge=within_size", 256, 256));
	a = map_file(0, 2 * MB, VM_READ | VM_SHARED);
	ASSERT_EQ(a % (2 * MB), 0ul);
	ASSERT_EQ(peek(mm, a + 100 * PAGE_SIZE), BASE + 100);
	ASSERT_EQ(counter("pgfault"), 1);
	f = mapped_folio(mm, a + 100 * PAGE_SIZE);
	ASSERT_TRUE(f != NULL);
	order = (int)folio_order(f);
	ASSERT_GT(order, 4); /* larger than the 16-page window */
	ASSERT_EQ(counter("nr_mapped"), 1l << order);
	for (i = f->index; i < f->index + (1ul << order); i++)
		ASSERT_EQ(peek(mm, a + i * PAGE_SIZE), BASE + i);
	ASSERT_EQ(counter("pgfault"), 1);
	ASSERT_EQ(do_munmap(mm, a, 2 * MB), 0);
	return down_file();
}

/*
 * huge=within_size and a 1-page file: no order fits the size (order 1
 * would need 2 pages), and 6.18 falls through to the advise rule: in a
 * plain mapping a fault allocates a base page; in a MADV_HUGEPAGE one
 * (2 MiB, PMD-aligned) a PMD folio (thp_file_alloc). Regression test for
 * the review of issue 19.
 */
static bool test_within_size_falls_back_to_advise(void)
{
	unsigned long a;

	ASSERT_TRUE(up_file("size=64m,huge=within_size", 1, 0));
	a = map_file(0, 2 * MB, SHARED_RW);
	ASSERT_EQ(a % (2 * MB), 0ul);
	ASSERT_EQ(touch(mm, a, 7), 0);
	ASSERT_EQ(counter("thp_file_alloc"), 0);
	ASSERT_EQ(mapped_order(mm, a), 0);
	ASSERT_EQ(do_munmap(mm, a, 2 * MB), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, 0), 0);
	ASSERT_EQ(fl__shmem_truncate(ino, PAGE_SIZE), 0);
	a = map_file(0, 2 * MB, SHARED_RW);
	ASSERT_EQ(do_madvise(mm, a, 2 * MB, MADV_HUGEPAGE), 0);
	ASSERT_EQ(touch(mm, a, 8), 0);
	ASSERT_EQ(counter("thp_file_alloc"), 1);
	ASSERT_EQ(file_tag(0), 8ull);
	ASSERT_EQ(do_munmap(mm, a, 2 * MB), 0);
	return down_file();
}

/*
 * huge=never, 64 pages, the first 16 written, mapped private: a read maps
 * pages 0..15 read-only (fault-around); a write to page 2 copies it to an
 * anon page (the file keeps BASE + 2); a write to page 40, a hole, reads
 * the file's (new, clear) page and copies it. Past the file's end (the
 * mapping is 80 pages): SIGBUS.
 */
static bool test_private_copy_on_write(void)
{
	unsigned long a;

	ASSERT_TRUE(up_file("size=64m,huge=never", 64, 16));
	a = map_file(0, 80 * PAGE_SIZE, VM_READ | VM_WRITE);
	ASSERT_NE(a, 0ul);
	ASSERT_EQ(peek(mm, a + 2 * PAGE_SIZE), BASE + 2);
	ASSERT_EQ(fl__mm_counter(mm, MM_SHMEMPAGES), 16);
	ASSERT_EQ(touch(mm, a + 2 * PAGE_SIZE, 0x22), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_SHMEMPAGES), 15);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 1);
	ASSERT_EQ(peek(mm, a + 2 * PAGE_SIZE), 0x22ull);
	ASSERT_EQ(file_tag(2), BASE + 2);
	ASSERT_EQ(touch(mm, a + 40 * PAGE_SIZE, 0x40), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 2);
	ASSERT_EQ(counter("nr_shmem"), 17);
	ASSERT_EQ(file_tag(40), 0ull);
	ASSERT_EQ(peek(mm, a + 40 * PAGE_SIZE), 0x40ull);
	ASSERT_EQ(fl__mm_access(mm, a + 70 * PAGE_SIZE, false, &(uint64_t){ 0 }), -EIO);
	return down_file();
}

/*
 * huge=never, 32 pages written, mapped shared and read (2 faults map all
 * 32): punching pages 4..7 takes them out of the mapping (28 left) and
 * the file (they read 0, and a read through the mapping allocates a
 * fresh page). A private mapping's CoW copy survives a punched hole but
 * not a truncation below it; past the new end: SIGBUS.
 */
static bool test_punch_and_truncate_unmap(void)
{
	unsigned long a, p, i;
	uint64_t t = 0;

	ASSERT_TRUE(up_file("size=64m,huge=never", 32, 32));
	a = map_file(0, 32 * PAGE_SIZE, SHARED_RW);
	p = map_file(0, 32 * PAGE_SIZE, VM_READ | VM_WRITE);
	for (i = 0; i < 32; i++)
		ASSERT_EQ(peek(mm, a + i * PAGE_SIZE), BASE + i);
	ASSERT_EQ(counter("nr_mapped"), 32);
	ASSERT_EQ(touch(mm, p + 5 * PAGE_SIZE, 0x55), 0);  /* a CoW copy in the hole-to-be */
	ASSERT_EQ(touch(mm, p + 20 * PAGE_SIZE, 0x20), 0); /* and one past the new end */
	ASSERT_EQ(shmem_fallocate(ino, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4 * PAGE_SIZE,
				  4 * PAGE_SIZE),
		  0);
	/* shared: 28 of 32; private: 16 fault-around pages but the 2 copied, less 5..7 of 4..7 */
	ASSERT_EQ(counter("nr_shmem"), 28);
	ASSERT_EQ(peek(mm, p + 5 * PAGE_SIZE), 0x55ull); /* the copy stays */
	ASSERT_EQ(peek(mm, a + 5 * PAGE_SIZE), 0ull);	 /* refaults a fresh page */
	ASSERT_EQ(counter("nr_shmem"), 29);
	ASSERT_EQ(file_tag(6), 0ull);
	ASSERT_EQ(file_tag(8), BASE + 8);
	ASSERT_EQ(fl__shmem_truncate(ino, 8 * PAGE_SIZE), 0);
	ASSERT_EQ(fl__mm_counter(mm, MM_ANONPAGES), 1); /* page 20's copy went, page 5's stays */
	ASSERT_EQ(fl__mm_access(mm, p + 20 * PAGE_SIZE, false, &t), -EIO);
	ASSERT_EQ(fl__mm_access(mm, a + 20 * PAGE_SIZE, false, &t), -EIO);
	ASSERT_EQ(peek(mm, a + 7 * PAGE_SIZE), 0ull);
	ASSERT_EQ(peek(mm, a + 3 * PAGE_SIZE), BASE + 3);
	return down_file();
}

/*
 * huge=always, a 2 MiB file PMD-mapped: split_huge_pages' path form to
 * order 0 unmaps it first (the PMD goes: thp_split_pmd) and does not map
 * the pieces back; every page faults back in, 16 a fault (fault-around
 * over order-0 pieces), with its tag.
 */
static bool test_split_mapped_shmem_folio(void)
{
	unsigned long a, i;
	char in[128];

	ASSERT_TRUE(up_file("size=64m,huge=always", 512, 512));
	ASSERT_EQ(counter("thp_file_alloc"), 1);
	a = map_file(0, 2 * MB, VM_READ | VM_SHARED);
	ASSERT_EQ(peek(mm, a), BASE);
	ASSERT_EQ(counter("thp_file_mapped"), 1);
	snprintf(in, sizeof(in), "/mnt/f,0x0,0x200,0");
	ASSERT_EQ(fl__split_huge_pages_write(in), 0);
	ASSERT_EQ(counter("thp_split_page"), 1);
	ASSERT_EQ(counter("thp_split_pmd"), 1);
	ASSERT_EQ(counter("nr_mapped"), 0);
	ASSERT_EQ(counter("nr_shmem"), 512);
	for (i = 0; i < 512; i++)
		ASSERT_EQ(peek(mm, a + i * PAGE_SIZE), BASE + i);
	ASSERT_EQ(counter("pgfault"), 1 + 512 / 16);
	ASSERT_EQ(counter("nr_mapped"), 512);
	return down_file();
}

/* Unlinked and closed while mapped: the mapping keeps the file until munmap. */
static bool test_unlinked_while_mapped(void)
{
	unsigned long a;

	ASSERT_TRUE(up_file("size=64m,huge=never", 16, 16));
	a = map_file(0, 16 * PAGE_SIZE, SHARED_RW);
	ASSERT_EQ(fl__shmem_unlink(ino), 0);
	fput(file);
	file = NULL;
	ASSERT_EQ(peek(mm, a + PAGE_SIZE), BASE + 1);
	ASSERT_EQ(touch(mm, a + 2 * PAGE_SIZE, 0x2), 0);
	ASSERT_EQ(counter("nr_shmem"), 16);
	ASSERT_EQ(do_munmap(mm, a, 16 * PAGE_SIZE), 0);
	mmput(mm);
	fl__iput(ino);
	ASSERT_EQ(counter("nr_shmem"), 0);
	ASSERT_EQ(fl__shmem_umount(sb), 0);
	return mm_down();
}

TEST_MAIN(TEST(test_shared_write_maps_pmd), TEST(test_read_fault_around),
	  TEST(test_nohugepage_vma_gets_no_pmd), TEST(test_within_size_falls_back_to_advise),
	  TEST(test_fault_around_maps_whole_folio), TEST(test_large_folio_mapped_whole),
	  TEST(test_private_copy_on_write), TEST(test_punch_and_truncate_unmap),
	  TEST(test_split_mapped_shmem_folio), TEST(test_unlinked_while_mapped))
