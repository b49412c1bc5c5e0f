/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fs.h - files in the model kernel: the page cache of a file (struct
 * address_space, an XArray of folios by page index), the inode, and the
 * tmpfs superblock and inode fields (include/linux/fs.h, pagemap.h and
 * shmem_fs.h in the kernel).
 *
 * A file's folios each hold one page-cache reference per page (taken by
 * shmem_add_to_page_cache(), dropped by filemap_free_folio()); the XArray
 * holds each folio as a multi-index entry of its order.
 *
 * Conventions in this file: "index" is a page index in the file; folio
 * locks are the PG_locked bit, waited on through the platform
 * (folio_lock()); i_rwsem serialises size changes, fallocate and
 * truncation of one inode.
 */
#ifndef FL_MM_FS_H
#define FL_MM_FS_H

#include "../lib/xarray.h"
#include "mm_types.h"

#include <sys/types.h> /* loff_t */

struct inode;
struct shmem_sb_info;

struct address_space {
	struct xarray i_pages; /* the folios; xa_lock */
	unsigned long nrpages; /* xa_lock */
	struct inode *host;
	/*
	 * The VMAs that map this file (vma->shared; the kernel's interval
	 * tree, a list here), and the lock rmap walkers and mmap take.
	 */
	struct list_head i_mmap;
	struct fl_rwsem i_mmap_rwsem;
	unsigned int min_order; /* mapping_min_folio_order() */
	bool large_folios;	/* mapping_large_folio_support() */
};

struct inode {
	unsigned long i_ino;
	loff_t i_size;		 /* i_rwsem; racy readers */
	struct fl_mutex i_rwsem; /* inode_lock() */
	struct address_space i_data;
	struct address_space *i_mapping;
	struct shmem_sb_info *i_sb;
	unsigned int i_nlink; /* names left; 0 after unlink */
	unsigned int i_count; /* open files (the model's iget/iput) */
	/* struct shmem_inode_info */
	struct fl_spinlock lock; /* alloced */
	unsigned long alloced;	 /* pages charged to the superblock; lock */
	pgoff_t fallocend;	 /* fallocate()d range reaches here */
	struct list_head i_list; /* sb->inodes; sb->lock */
	char i_name[64];	 /* the model's tmpfs is one flat directory */
};

/*
 * struct file - an open file: what mmap keeps in vma->vm_file. A mapping
 * holds a reference (get_file()), so the inode outlives its VMAs.
 */
struct file {
	struct inode *f_inode;
	struct address_space *f_mapping;
	int f_count;		     /* atomic */
	struct file *f_next_delayed; /* on the delayed-fput list after the last fput() */
};

/* tmpfs mount option huge= and the top-level shmem_enabled knob */
enum {
	SHMEM_HUGE_NEVER,
	SHMEM_HUGE_ALWAYS,
	SHMEM_HUGE_WITHIN_SIZE,
	SHMEM_HUGE_ADVISE,
	SHMEM_HUGE_DENY = -1,
	SHMEM_HUGE_FORCE = -2,
};

struct shmem_sb_info {
	unsigned long max_blocks;  /* size= in pages; 0: no limit */
	unsigned long used_blocks; /* atomic */
	int huge;		   /* SHMEM_HUGE_NEVER..ADVISE */
	struct fl_mutex lock;	   /* the inode list, names and numbers */
	struct list_head inodes;
	unsigned long next_ino;
	struct list_head mnt_list; /* every tmpfs mount; the mount table's lock */
	char path[128];		   /* where it is mounted */
};

/* fallocate() modes */
#define FALLOC_FL_KEEP_SIZE 0x01
#define FALLOC_FL_PUNCH_HOLE 0x02

/* shmem_get_folio() modes, in the kernel's order */
enum sgp_type {
	SGP_READ,    /* don't exceed i_size, don't allocate page */
	SGP_NOALLOC, /* similar, but fail on hole or use fallocated page */
	SGP_CACHE,   /* don't exceed i_size, may allocate page */
	SGP_WRITE,   /* may exceed i_size, may allocate !Uptodate page */
	SGP_FALLOC,  /* like SGP_WRITE, but make existing page Uptodate */
};

static inline pgoff_t folio_next_index(const struct folio *folio)
{
	return folio->index + folio_nr_pages(folio);
}

static inline loff_t folio_pos(const struct folio *folio)
{
	return (loff_t)folio->index << PAGE_SHIFT;
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline bool folio_test_pmd_mappable(const struct folio *folio)
{
	return folio_order(folio) >= PMD_ORDER;
}

static inline struct address_space *folio_mapping(const struct folio *folio)
{
	return folio_test_anon(folio) ? NULL : (struct address_space *)folio->mapping;
}

static inline bool shmem_mapping(const struct address_space *mapping)
{
	return mapping && mapping->host && mapping->host->i_sb;
}

#define i_mmap_lock_read(m) down_read(&(m)->i_mmap_rwsem)
#define i_mmap_unlock_read(m) up_read(&(m)->i_mmap_rwsem)
#define i_mmap_lock_write(m) down_write(&(m)->i_mmap_rwsem)
#define i_mmap_unlock_write(m) up_write(&(m)->i_mmap_rwsem)

/* filemap.c */
void folio_lock(struct folio *folio);
static inline bool folio_trylock(struct folio *folio)
{
	return !folio_test_set_locked(folio);
}
void folio_unlock(struct folio *folio);
void folio_wait_locked(struct folio *folio);
void migration_entry_wait_on_locked(struct folio *folio, struct fl_spinlock *ptl);
int fl__address_space_init(struct address_space *mapping, struct inode *host);
void fl__address_space_destroy(struct address_space *mapping);
void *filemap_get_entry(struct address_space *mapping, pgoff_t index);
struct folio *filemap_lock_folio(struct address_space *mapping, pgoff_t index);
void __filemap_remove_folio(struct folio *folio);
void filemap_remove_folio(struct folio *folio);
unsigned int find_get_entries(struct address_space *mapping, pgoff_t *start, pgoff_t end,
			      struct folio_batch *fbatch);
void fl__xas_account(const struct xa_state *xas);

/* mmap.c */
void vma_link_file(struct vm_area_struct *vma, struct file *file);
/* memory.c: zap the mappings of a file range (or of one folio) in every VMA */
void unmap_mapping_range(struct address_space *mapping, loff_t holebegin, loff_t holelen,
			 int even_cows);
void unmap_mapping_folio(struct folio *folio);
/* filemap.c: fault-around for a file mapping (vm_ops->map_pages) */
int filemap_map_pages(struct vm_fault *vmf, pgoff_t start_pgoff, pgoff_t end_pgoff);
/* shmem.c: what a tmpfs mapping does on a fault */
extern const struct vm_operations_struct shmem_vm_ops;
/* mmap.c: a mapping of a tmpfs file */
int do_mmap_file(struct mm_struct *mm, struct file *file, loff_t off, unsigned long len,
		 unsigned long vm_flags, unsigned long *addr);
void unlink_file_vma(struct vm_area_struct *vma);

/* truncate.c */
void truncate_inode_folio(struct address_space *mapping, struct folio *folio);
bool truncate_inode_partial_folio(struct folio *folio, loff_t start, loff_t end);

/* shmem.c */
int fl__shmem_mount(const char *path, const char *options, struct shmem_sb_info **sbp, char *err,
		    size_t len);
int fl__shmem_umount(struct shmem_sb_info *sb);
int fl__shmem_create(struct shmem_sb_info *sb, const char *name, struct inode **inodep);
struct inode *fl__shmem_lookup_path(const char *path);
void fl__iput(struct inode *inode);
struct file *fl__shmem_file_open(struct inode *inode);
static inline struct file *get_file(struct file *file)
{
	fl_atomic_fetch_add(&file->f_count, 1, __ATOMIC_RELAXED);
	return file;
}
void fput(struct file *file);
/* Close the files whose last reference went under a lock (the kernel's task_work). */
void flush_delayed_fput(void);
void shmem_uncharge(struct inode *inode, long pages);
int fl__shmem_unlink(struct inode *inode);
int shmem_fallocate(struct inode *inode, int mode, loff_t offset, loff_t len);
int shmem_get_folio(struct inode *inode, pgoff_t index, loff_t write_end, struct folio **foliop,
		    enum sgp_type sgp);
int fl__shmem_write_tags(struct inode *inode, pgoff_t index, unsigned long nr, uint64_t tag,
			 uint64_t step);
int fl__shmem_read_tags(struct inode *inode, pgoff_t index, unsigned long nr, uint64_t *tags);
int fl__shmem_truncate(struct inode *inode, loff_t size);
void shmem_truncate_range(struct inode *inode, loff_t lstart, loff_t lend);
int fl__shmem_mounts_check(char *msg, size_t len);
void fl__shmem_exit(void);

#endif /* FL_MM_FS_H */
