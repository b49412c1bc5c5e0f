// SPDX-License-Identifier: GPL-2.0-only
/*
 * shmem.c - tmpfs (mm/shmem.c): mounts with size= and huge=, files in one
 * flat directory, the folio order a file allocates at (the mount's huge=
 * and the top-level shmem_enabled, as 6.18 decides for tmpfs files),
 * fallocate, writes and reads of content tags, truncation and hole
 * punching (which split large folios: truncate.c), unlink and umount.
 *
 * Not modelled yet: mmap of a file (no file faults, no file rmap), swap,
 * the huge-beyond-EOF shrinker (shmem_unused_huge_shrink), anonymous
 * shared memory (whose orders come from the per-size shmem_enabled knobs),
 * and mount-time options other than size= and huge=.
 *
 * Conventions in this file: "pages" count 4 KiB pages; the superblock's
 * used_blocks is what its files have charged (size= caps it); i_rwsem
 * serialises fallocate, writes and truncation of a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fs.h"

static const struct fl_lock_class shmem_inode_class = { .name = "shmem_inode->lock",
							.rank = FL_RANK_SHMEM_INODE,
							.kind = FL_LOCK_SPIN };
static const struct fl_lock_class i_rwsem_class = { .name = "inode->i_rwsem",
						    .rank = FL_RANK_I_RWSEM,
						    .kind = FL_LOCK_MUTEX };
static const struct fl_lock_class sb_lock_class = { .name = "shmem_sb->lock",
						    .rank = FL_RANK_SHMEM_SB,
						    .kind = FL_LOCK_MUTEX };
static const struct fl_lock_class mounts_class = { .name = "tmpfs mounts",
						   .rank = FL_RANK_SHMEM_SB - 1,
						   .kind = FL_LOCK_MUTEX };

static struct fl_mutex mounts_lock = { .sl = { .cls = &mounts_class } };
static struct list_head mounts = LIST_HEAD_INIT(mounts);

#define MAX_LFS_FILESIZE ((loff_t)1 << 62)

/* ---- mounts ---- */

static int parse_size(const char *v, unsigned long *pages)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	unsigned int shift = 0;

	if (end == v)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || n > (1ull << 50) >> shift)
		return -EINVAL;
	*pages = (unsigned long)(((n << shift) + PAGE_SIZE - 1) >> PAGE_SHIFT);
	return 0;
}

static int parse_options(const char *options, struct shmem_sb_info *sb, char *err, size_t len)
{
	static const char *const huge_words[] = { "never", "always", "within_size", "advise" };
	char buf[256], *tok, *save = NULL;
	int i;

	snprintf(buf, sizeof(buf), "%s", options ? options : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq && !strncmp(tok, "size", (size_t)(eq - tok)) && eq - tok == 4) {
			if (parse_size(eq + 1, &sb->max_blocks)) {
				snprintf(err, len,
					 "tmpfs size=%s: accepted a size such as 512M or 2G",
					 eq + 1);
				return -EINVAL;
			}
			continue;
		}
		if (eq && eq - tok == 4 && !strncmp(tok, "huge", 4)) {
			for (i = 0; i < 4; i++)
				if (!strcmp(eq + 1, huge_words[i]))
					break;
			if (i == 4) {
				snprintf(err, len,
					 "tmpfs huge=%s: accepted never, always, within_size, "
					 "advise",
					 eq + 1);
				return -EINVAL;
			}
			sb->huge = i;
			continue;
		}
		snprintf(err, len, "tmpfs option '%s': accepted size=SIZE and huge=WHEN", tok);
		return -EINVAL;
	}
	return 0;
}

static struct shmem_sb_info *find_mount(const char *path)
{
	struct shmem_sb_info *sb;

	list_for_each_entry(sb, &mounts, mnt_list) if (!strcmp(sb->path, path)) return sb;
	return NULL;
}

/**
 * fl__shmem_mount() - a tmpfs at @path with @options ("size=2G,huge=always").
 * Return: 0, -EINVAL (bad option, in @err) or -EBUSY (@path is mounted).
 */
int fl__shmem_mount(const char *path, const char *options, struct shmem_sb_info **sbp, char *err,
		    size_t len)
{
	struct shmem_sb_info *sb;
	int ret;

	if (!path || path[0] != '/' || strlen(path) >= sizeof(sb->path)) {
		snprintf(err, len, "tmpfs: '%s' is not an absolute path of at most %zu bytes",
			 path ? path : "", sizeof(sb->path) - 1);
		return -EINVAL;
	}
	sb = fl_calloc(1, sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	ret = parse_options(options, sb, err, len);
	if (ret) {
		fl_free(sb);
		return ret;
	}
	snprintf(sb->path, sizeof(sb->path), "%s", path);
	fl_mutex_init(&sb->lock, &sb_lock_class);
	INIT_LIST_HEAD(&sb->inodes);
	sb->next_ino = 2;
	mutex_lock(&mounts_lock);
	if (find_mount(path)) {
		mutex_unlock(&mounts_lock);
		fl_free(sb);
		snprintf(err, len, "tmpfs: %s is mounted already", path);
		return -EBUSY;
	}
	list_add_tail(&sb->mnt_list, &mounts);
	mutex_unlock(&mounts_lock);
	*sbp = sb;
	return 0;
}

/* ---- orders (shmem_huge_global_enabled for a tmpfs file without a VMA) ---- */

static unsigned long highest_order(unsigned long orders)
{
	return orders ? 63ul - (unsigned long)__builtin_clzl(orders) : 0;
}

static unsigned long next_order(unsigned long *orders, unsigned long prev)
{
	*orders &= ~(1ul << prev);
	return highest_order(*orders);
}

/* Orders from @orders whose aligned folio around @index lies within i_size. */
static unsigned long orders_within_size(struct inode *inode, unsigned long orders, pgoff_t index,
					loff_t write_end)
{
	unsigned long order = highest_order(orders);
	loff_t size = inode->i_size > write_end ? inode->i_size : write_end;

	size = (size + (loff_t)PAGE_SIZE - 1) & ~((loff_t)PAGE_SIZE - 1);
	while (orders) {
		pgoff_t aligned = (index + 1 + (1ul << order) - 1) & ~((1ul << order) - 1);

		if ((pgoff_t)(size >> PAGE_SHIFT) >= aligned)
			return orders;
		order = next_order(&orders, order);
	}
	return 0;
}

/*
 * The orders a tmpfs file may allocate at @index, writing up to
 * @write_end, for a fault in @vma or none: MADV_NOHUGEPAGE refuses all,
 * deny refuses all, force allows PMD, else the mount's huge= decides:
 * always (every page-cache order), within_size (those within the size;
 * where none is, the advise rule), advise (every order for a
 * MADV_HUGEPAGE VMA, else none), never (none).
 */
static unsigned long shmem_allowable_huge_orders(struct inode *inode, pgoff_t index,
						 loff_t write_end, struct vm_area_struct *vma)
{
	int top = READ_ONCE(fl__thp.shmem_huge);

	if (vma && (vma->vm_flags & VM_NOHUGEPAGE))
		return 0;
	if (top == SHMEM_HUGE_DENY)
		return 0;
	if (top == SHMEM_HUGE_FORCE)
		return 1ul << PMD_ORDER;
	switch (inode->i_sb->huge) {
	case SHMEM_HUGE_ALWAYS:
		return THP_ORDERS_ALL_FILE_DEFAULT;
	case SHMEM_HUGE_WITHIN_SIZE: {
		unsigned long orders = orders_within_size(inode, THP_ORDERS_ALL_FILE_DEFAULT, index,
							  write_end);

		if (orders)
			return orders;
		/* 6.18: no order fits the size, so the advise rule decides */
		__attribute__((fallthrough));
	}
	case SHMEM_HUGE_ADVISE:
		return vma && (vma->vm_flags & VM_HUGEPAGE) ? THP_ORDERS_ALL_FILE_DEFAULT : 0;
	default:
		return 0;
	}
}

/* Something is cached in [@first, @last]. */
static bool xa_any(struct address_space *mapping, pgoff_t first, pgoff_t last)
{
	XA_STATE(xas, &mapping->i_pages, first);
	void *entry;

	xa_lock(&mapping->i_pages);
	entry = xas_find(&xas, last);
	xa_unlock(&mapping->i_pages);
	fl__xas_account(&xas);
	return entry != NULL;
}

/*
 * The highest of @orders whose aligned range around @index is empty, and
 * those below; for a fault, only orders whose folio would lie inside the
 * VMA at a file offset it can map (thp_vma_suitable_order()).
 */
static unsigned long shmem_suitable_orders(struct address_space *mapping, pgoff_t index,
					   unsigned long orders, struct vm_fault *vmf)
{
	unsigned long order;

	if (vmf) {
		unsigned long o, all = orders;

		for (o = 0; all; o++, all >>= 1)
			if ((all & 1) && !thp_vma_suitable_order(vmf->vma, vmf->address, (int)o))
				orders &= ~(1ul << o);
	}
	order = highest_order(orders);
	while (orders) {
		pgoff_t aligned = index & ~((1ul << order) - 1);

		if (!xa_any(mapping, aligned, aligned + (1ul << order) - 1))
			break;
		order = next_order(&orders, order);
	}
	return orders;
}

/* ---- charging ---- */

static int shmem_inode_acct_blocks(struct inode *inode, long pages)
{
	struct shmem_sb_info *sb = inode->i_sb;
	unsigned long used = fl_atomic_fetch_add(&sb->used_blocks, (unsigned long)pages,
						 __ATOMIC_RELAXED);

	if (sb->max_blocks && used + (unsigned long)pages > sb->max_blocks) {
		fl_atomic_fetch_sub(&sb->used_blocks, (unsigned long)pages, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	return 0;
}

/*
 * Give back the charge of pages that left the cache, under the inode's
 * lock: a fault adds pages without i_rwsem while a hole punch takes them.
 */
static void shmem_recalc_inode(struct inode *inode, long alloced)
{
	FL_LOCK_SITE(site);
	long freed;

	fl_spin_lock_at(&inode->lock, &site);
	inode->alloced += (unsigned long)alloced;
	freed = (long)inode->alloced - (long)READ_ONCE(inode->i_mapping->nrpages);
	if (freed > 0)
		inode->alloced -= (unsigned long)freed;
	spin_unlock(&inode->lock);
	if (freed > 0)
		fl_atomic_fetch_sub(&inode->i_sb->used_blocks, (unsigned long)freed,
				    __ATOMIC_RELAXED);
}

void shmem_uncharge(struct inode *inode, long pages)
{
	(void)pages;
	shmem_recalc_inode(inode, 0);
}

/* ---- the page cache of a file ---- */

/* shmem_add_to_page_cache() - @folio (locked) at @index, with a cache reference per page. */
static int shmem_add_to_page_cache(struct folio *folio, struct address_space *mapping,
				   pgoff_t index)
{
	unsigned int order = folio_order(folio);
	long nr = (long)folio_nr_pages(folio);
	XA_STATE_ORDER(xas, &mapping->i_pages, index, order);

	VM_BUG_ON(index & (unsigned long)(nr - 1));
	VM_BUG_ON(!folio_test_locked(folio));
	folio_ref_add(folio, (int)nr);
	folio->mapping = mapping;
	folio->index = index;
	do {
		XA_STATE(probe, &mapping->i_pages, index);

		xas_lock(&xas);
		if (xas_find(&probe, index + (unsigned long)nr - 1)) {
			xas_set_err(&xas, -EEXIST);
		} else {
			xas_store(&xas, folio);
			if (!xas_error(&xas)) {
				lruvec_stat_mod_folio(folio, NR_FILE_PAGES, nr);
				lruvec_stat_mod_folio(folio, NR_SHMEM, nr);
				if (folio_test_pmd_mappable(folio))
					lruvec_stat_mod_folio(folio, NR_SHMEM_THPS, nr);
				WRITE_ONCE(mapping->nrpages, mapping->nrpages + (unsigned long)nr);
			}
		}
		xas_unlock(&xas);
		fl__xas_account(&probe);
		fl__xas_account(&xas);
		xas.xa_visits = xas.xa_stores = xas.xa_nodes_alloc = 0;
	} while (xas_nomem(&xas));
	if (xas_error(&xas)) {
		folio->mapping = NULL;
		folio_ref_add(folio, -(int)nr);
		return xas_error(&xas);
	}
	return 0;
}

/*
 * A locked folio for @index of one of @orders (the highest that fits and
 * allocates; order 0 when @orders is empty), in the cache, charged and on
 * the LRU; counts the fallbacks from each order that failed.
 */
static struct folio *shmem_alloc_and_add_folio(struct inode *inode, pgoff_t index,
					       unsigned long orders, struct vm_fault *vmf,
					       int *errp)
{
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio = NULL;
	unsigned long order, pages = 1, suitable;
	int error;

	if (orders) {
		suitable = shmem_suitable_orders(mapping, index, orders, vmf);
		order = highest_order(suitable);
		while (suitable) {
			pages = 1ul << order;
			folio = folio_alloc(GFP_HIGHUSER_MOVABLE, (unsigned int)order);
			if (folio) {
				index &= ~(pages - 1);
				break;
			}
			if (pages == HPAGE_PMD_NR)
				count_vm_event(THP_FILE_FALLBACK);
			count_mthp_stat((int)order, MTHP_STAT_SHMEM_FALLBACK);
			order = next_order(&suitable, order);
		}
	} else {
		folio = folio_alloc(GFP_HIGHUSER_MOVABLE, 0);
	}
	if (!folio) {
		*errp = -ENOMEM;
		return NULL;
	}
	__folio_set_locked(folio);
	__folio_set_swapbacked(folio);
	error = mem_cgroup_charge(folio, vmf ? vmf->vma->vm_mm : NULL, GFP_HIGHUSER_MOVABLE);
	if (error) {
		if (pages == HPAGE_PMD_NR) {
			count_vm_event(THP_FILE_FALLBACK);
			count_vm_event(THP_FILE_FALLBACK_CHARGE);
		}
		if (pages > 1) {
			count_mthp_stat((int)folio_order(folio), MTHP_STAT_SHMEM_FALLBACK);
			count_mthp_stat((int)folio_order(folio), MTHP_STAT_SHMEM_FALLBACK_CHARGE);
		}
		goto unlock;
	}
	error = shmem_add_to_page_cache(folio, mapping, index);
	if (error)
		goto unlock;
	error = shmem_inode_acct_blocks(inode, (long)pages);
	if (error) {
		filemap_remove_folio(folio);
		goto unlock;
	}
	shmem_recalc_inode(inode, (long)pages);
	folio_add_lru(folio);
	return folio;
unlock:
	folio_unlock(folio);
	folio_put(folio);
	*errp = error;
	return NULL;
}

static void folio_clear_tags(struct folio *folio)
{
	unsigned long i;

	for (i = 0; i < folio_nr_pages(folio); i++)
		page_tag_set(folio_pfn(folio) + i, 0);
}

/*
 * __shmem_get_folio() - shmem_get_folio() for a fault too (@vmf, whose
 * VMA narrows the orders), as the kernel's shmem_get_folio_gfp().
 */
static int __shmem_get_folio(struct inode *inode, pgoff_t index, loff_t write_end,
			     struct folio **foliop, enum sgp_type sgp, struct vm_fault *vmf)
{
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio;
	unsigned long orders;
	int error = 0;

	if (index > (unsigned long)(MAX_LFS_FILESIZE >> PAGE_SHIFT))
		return -EFBIG;
repeat:
	if (sgp <= SGP_CACHE && ((loff_t)index << PAGE_SHIFT) >= READ_ONCE(inode->i_size))
		return -EINVAL;
	folio = filemap_get_entry(mapping, index);
	if (folio) {
		folio_lock(folio);
		if (folio->mapping != mapping) {
			folio_unlock(folio);
			folio_put(folio);
			goto repeat;
		}
		if (sgp == SGP_WRITE)
			folio_mark_accessed(folio);
		if (folio_test_uptodate(folio))
			goto out;
		if (sgp != SGP_READ)
			goto clear; /* an fallocated folio */
		folio_unlock(folio);
		folio_put(folio);
	}
	*foliop = NULL;
	if (sgp == SGP_READ)
		return 0;
	if (sgp == SGP_NOALLOC)
		return -ENOENT;
	orders = shmem_allowable_huge_orders(inode, index, write_end, vmf ? vmf->vma : NULL);
	if (orders) {
		folio = shmem_alloc_and_add_folio(inode, index, orders, vmf, &error);
		if (folio) {
			if (folio_test_pmd_mappable(folio))
				count_vm_event(THP_FILE_ALLOC);
			count_mthp_stat((int)folio_order(folio), MTHP_STAT_SHMEM_ALLOC);
			goto alloced;
		}
		if (error == -EEXIST)
			goto repeat;
	}
	folio = shmem_alloc_and_add_folio(inode, index, 0, vmf, &error);
	if (!folio) {
		if (error == -EEXIST)
			goto repeat;
		return error;
	}
alloced:
	if (sgp == SGP_WRITE)
		folio_set_referenced(folio);
	if (sgp == SGP_FALLOC)
		sgp = SGP_WRITE;
clear:
	/* a write fills what it writes and clears the rest itself */
	if (sgp != SGP_WRITE && !folio_test_uptodate(folio)) {
		folio_clear_tags(folio);
		folio_set_uptodate(folio);
	}
out:
	*foliop = folio;
	return 0;
}

/**
 * shmem_get_folio() - the folio at @index, locked and referenced: found,
 * or (but for SGP_READ, which gives NULL for a hole or an fallocated
 * folio not yet written, and SGP_NOALLOC) allocated at the largest order
 * the mount allows. SGP_READ and SGP_CACHE stop at i_size (-EINVAL).
 * Return: 0 or -errno.
 */
int shmem_get_folio(struct inode *inode, pgoff_t index, loff_t write_end, struct folio **foliop,
		    enum sgp_type sgp)
{
	return __shmem_get_folio(inode, index, write_end, foliop, sgp, NULL);
}

/*
 * shmem_fault() - vm_ops->fault of a tmpfs mapping: the folio at
 * vmf->pgoff (SGP_CACHE: allocated at the order the mount and the VMA
 * allow, an fallocated one cleared), locked and referenced, in vmf->page.
 * Beyond the end of the file: SIGBUS.
 */
static int shmem_fault(struct vm_fault *vmf)
{
	struct inode *inode = vmf->vma->vm_file->f_inode;
	struct folio *folio;
	int error = __shmem_get_folio(inode, vmf->pgoff, 0, &folio, SGP_CACHE, vmf);

	if (error)
		return error == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	vmf->page = folio_page(folio, vmf->pgoff - folio->index);
	return 0;
}

const struct vm_operations_struct shmem_vm_ops = {
	.fault = shmem_fault,
	.map_pages = filemap_map_pages,
};

/* ---- inodes ---- */

/**
 * fl__shmem_create() - a new empty file @name in @sb, opened (i_count 1).
 * Return: 0, -EEXIST, -EINVAL (a bad name) or -ENOMEM.
 */
int fl__shmem_create(struct shmem_sb_info *sb, const char *name, struct inode **inodep)
{
	struct inode *inode, *other;

	if (!name || !*name || strchr(name, '/') || strlen(name) >= sizeof(inode->i_name))
		return -EINVAL;
	inode = fl_calloc(1, sizeof(*inode));
	if (!inode)
		return -ENOMEM;
	fl_mutex_init(&inode->i_rwsem, &i_rwsem_class);
	fl_spin_lock_init(&inode->lock, &shmem_inode_class);
	inode->i_mapping = &inode->i_data;
	if (fl__address_space_init(&inode->i_data, inode)) {
		fl_free(inode);
		return -ENOMEM;
	}
	inode->i_sb = sb;
	inode->i_nlink = 1;
	inode->i_count = 1;
	snprintf(inode->i_name, sizeof(inode->i_name), "%s", name);
	mutex_lock(&sb->lock);
	list_for_each_entry(other, &sb->inodes, i_list)
	{
		if (!strcmp(other->i_name, name)) {
			mutex_unlock(&sb->lock);
			fl__address_space_destroy(&inode->i_data);
			fl_free(inode);
			return -EEXIST;
		}
	}
	inode->i_ino = sb->next_ino++;
	list_add_tail(&inode->i_list, &sb->inodes);
	mutex_unlock(&sb->lock);
	*inodep = inode;
	return 0;
}

/* Free everything the file holds, and the inode (shmem_evict_inode()). */
static void shmem_evict_inode(struct inode *inode)
{
	shmem_truncate_range(inode, 0, -1);
	VM_BUG_ON(inode->i_mapping->nrpages || inode->alloced);
	fl__address_space_destroy(inode->i_mapping);
	fl_free(inode);
}

/** fl__iput() - close: the last close of an unlinked file frees it. */
void fl__iput(struct inode *inode)
{
	struct shmem_sb_info *sb = inode->i_sb;
	bool evict;

	mutex_lock(&sb->lock);
	evict = --inode->i_count == 0 && inode->i_nlink == 0;
	if (evict)
		list_del(&inode->i_list);
	mutex_unlock(&sb->lock);
	if (evict)
		shmem_evict_inode(inode);
}

/**
 * fl__shmem_file_open() - an open file of @inode (f_count 1), holding an
 * inode reference of its own. Return: NULL on -ENOMEM.
 */
struct file *fl__shmem_file_open(struct inode *inode)
{
	struct shmem_sb_info *sb = inode->i_sb;
	struct file *file = fl_malloc(sizeof(*file));

	if (!file)
		return NULL;
	file->f_inode = inode;
	file->f_mapping = inode->i_mapping;
	file->f_count = 1;
	mutex_lock(&sb->lock);
	inode->i_count++;
	mutex_unlock(&sb->lock);
	return file;
}

static struct file *delayed_fput_list; /* atomic: a stack of files to close */

/** fput() - drop a file reference; the last closes the inode (later). */
void fput(struct file *file)
{
	struct file *head;

	if (fl_atomic_sub_fetch(&file->f_count, 1, __ATOMIC_ACQ_REL))
		return;
	/*
	 * The last reference may go under mmap_lock (a munmap): the close
	 * waits for flush_delayed_fput(), as the kernel's __fput() waits for
	 * the task's return to user space.
	 */
	head = fl_atomic_load(&delayed_fput_list, __ATOMIC_RELAXED);
	do {
		file->f_next_delayed = head;
	} while (!fl_atomic_cmpxchg(&delayed_fput_list, &head, file, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED));
}

/** flush_delayed_fput() - close every file fput() left for later. Context: no locks held. */
void flush_delayed_fput(void)
{
	struct file *file = fl_atomic_xchg(&delayed_fput_list, (struct file *)NULL,
					   __ATOMIC_ACQUIRE);

	while (file) {
		struct file *next = file->f_next_delayed;

		fl__iput(file->f_inode);
		fl_free(file);
		file = next;
	}
}

/** fl__shmem_lookup_path() - open "<mount path>/<name>"; NULL if there is none. */
struct inode *fl__shmem_lookup_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct shmem_sb_info *sb;
	struct inode *inode, *found = NULL;
	char dir[sizeof(sb->path)];

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return NULL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	mutex_lock(&mounts_lock);
	sb = find_mount(dir);
	if (sb) {
		mutex_lock(&sb->lock);
		list_for_each_entry(inode, &sb->inodes, i_list)
		{
			if (inode->i_nlink && !strcmp(inode->i_name, slash + 1)) {
				inode->i_count++;
				found = inode;
				break;
			}
		}
		mutex_unlock(&sb->lock);
	}
	mutex_unlock(&mounts_lock);
	return found;
}

/** fl__shmem_unlink() - remove the name; the file goes with its last close. */
int fl__shmem_unlink(struct inode *inode)
{
	struct shmem_sb_info *sb = inode->i_sb;

	mutex_lock(&sb->lock);
	if (!inode->i_nlink) {
		mutex_unlock(&sb->lock);
		return -ENOENT;
	}
	inode->i_nlink = 0;
	mutex_unlock(&sb->lock);
	return 0;
}

/**
 * fl__shmem_umount() - unmount @sb, freeing every file in it.
 * Return: 0, or -EBUSY while a file of it is open.
 */
int fl__shmem_umount(struct shmem_sb_info *sb)
{
	struct inode *inode, *tmp;

	flush_delayed_fput();
	mutex_lock(&mounts_lock);
	mutex_lock(&sb->lock);
	list_for_each_entry(inode, &sb->inodes, i_list)
	{
		if (inode->i_count) {
			mutex_unlock(&sb->lock);
			mutex_unlock(&mounts_lock);
			return -EBUSY;
		}
	}
	list_del(&sb->mnt_list);
	mutex_unlock(&sb->lock);
	mutex_unlock(&mounts_lock);
	list_for_each_entry_safe(inode, tmp, &sb->inodes, i_list)
	{
		list_del(&inode->i_list);
		shmem_evict_inode(inode);
	}
	VM_BUG_ON(sb->used_blocks);
	fl_free(sb);
	return 0;
}

/* ---- taking pages out: truncation and holes ---- */

/* Folios wholly inside [@start, @end], locked and referenced (find_lock_entries()). */
static unsigned int find_lock_entries(struct address_space *mapping, pgoff_t *start, pgoff_t end,
				      struct folio_batch *fbatch)
{
	struct folio_batch all;
	pgoff_t first = *start;
	unsigned int i;

	folio_batch_init(fbatch);
	if (!find_get_entries(mapping, start, end, &all))
		return 0;
	for (i = 0; i < folio_batch_count(&all); i++) {
		struct folio *folio = all.folios[i];
		pgoff_t base = folio->index, last = folio_next_index(folio) - 1;

		if (base < first || last > end || !folio_trylock(folio))
			goto put;
		if (folio->mapping != mapping) {
			folio_unlock(folio);
			goto put;
		}
		folio_batch_add(fbatch, folio);
		continue;
put:
		folio_put(folio);
	}
	return folio_batch_count(fbatch);
}

static void folio_batch_release(struct folio_batch *fbatch)
{
	unsigned int i;

	for (i = 0; i < folio_batch_count(fbatch); i++)
		folio_put(fbatch->folios[i]);
	folio_batch_reinit(fbatch);
}

/* The folio at @index, locked, if it is still this file's. */
static struct folio *shmem_get_partial_folio(struct inode *inode, pgoff_t index)
{
	return filemap_lock_folio(inode->i_mapping, index);
}

/*
 * shmem_undo_range() - free the pages of [@lstart, @lend] (bytes, @lend
 * inclusive; -1 for the end): whole folios first, then the folios at the
 * two ends in part (zeroed, and split when large), then what the splits
 * left inside. @unfalloc: undo a failed fallocate, freeing only folios
 * not yet written.
 */
static void shmem_undo_range(struct inode *inode, loff_t lstart, loff_t lend, bool unfalloc)
{
	struct address_space *mapping = inode->i_mapping;
	pgoff_t start = (pgoff_t)((lstart + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT);
	pgoff_t end = lend == -1 ? (pgoff_t)-1 : (pgoff_t)((lend + 1) >> PAGE_SHIFT);
	struct folio_batch fbatch;
	struct folio *folio;
	bool same_folio;
	pgoff_t index;
	unsigned int i;

	if (inode->fallocend > start && inode->fallocend <= end && !unfalloc)
		inode->fallocend = start;
	index = start;
	while (index < end && find_lock_entries(mapping, &index, end - 1, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			folio = fbatch.folios[i];
			if (!unfalloc || !folio_test_uptodate(folio))
				truncate_inode_folio(mapping, folio);
			folio_unlock(folio);
		}
		folio_batch_release(&fbatch);
	}
	if (unfalloc)
		goto whole_folios;
	same_folio = (lstart >> PAGE_SHIFT) == (lend >> PAGE_SHIFT);
	folio = shmem_get_partial_folio(inode, (pgoff_t)(lstart >> PAGE_SHIFT));
	if (folio) {
		same_folio = lend < folio_pos(folio) + (loff_t)folio_size(folio);
		folio_set_dirty(folio);
		if (!truncate_inode_partial_folio(folio, lstart, lend)) {
			start = folio_next_index(folio);
			if (same_folio)
				end = folio->index;
		}
		folio_unlock(folio);
		folio_put(folio);
		folio = NULL;
	}
	if (!same_folio && lend != -1)
		folio = shmem_get_partial_folio(inode, (pgoff_t)(lend >> PAGE_SHIFT));
	if (folio) {
		folio_set_dirty(folio);
		if (!truncate_inode_partial_folio(folio, lstart, lend))
			end = folio->index;
		folio_unlock(folio);
		folio_put(folio);
	}
whole_folios:
	index = start;
	while (index < end) {
		if (!find_get_entries(mapping, &index, end - 1, &fbatch)) {
			/* all gone, or a hole punched, or an undo: done */
			if (index == start || end != (pgoff_t)-1)
				break;
			index = start; /* truncating: again until all are gone */
			continue;
		}
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			folio = fbatch.folios[i];
			folio_lock(folio);
			if (!unfalloc || !folio_test_uptodate(folio)) {
				if (folio->mapping != mapping) {
					folio_unlock(folio);
					continue;
				}
				if (!folio_test_large(folio)) {
					truncate_inode_folio(mapping, folio);
				} else if (truncate_inode_partial_folio(folio, lstart, lend)) {
					/* a split: start again to see the pieces */
					if (!folio_test_large(folio)) {
						folio_unlock(folio);
						index = start;
						break;
					}
				}
			}
			folio_unlock(folio);
		}
		folio_batch_release(&fbatch);
	}
	shmem_recalc_inode(inode, 0);
}

void shmem_truncate_range(struct inode *inode, loff_t lstart, loff_t lend)
{
	shmem_undo_range(inode, lstart, lend, false);
}

/* ---- fallocate, write, read, truncate ---- */

/**
 * shmem_fallocate() - allocate [@offset, @offset + @len) (folios left not
 * uptodate until written, the size grown unless FALLOC_FL_KEEP_SIZE), or
 * with FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE free it.
 * Return: 0, -EOPNOTSUPP (mode), -EINVAL, -EFBIG, -ENOSPC, -ENOMEM.
 */
int shmem_fallocate(struct inode *inode, int mode, loff_t offset, loff_t len)
{
	struct shmem_sb_info *sb = inode->i_sb;
	pgoff_t start, index, end, undo_fallocend;
	int error = 0;

	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	mutex_lock(&inode->i_rwsem);
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		/* the whole pages of the hole leave every mapping first, CoW copies stay */
		loff_t unmap_start = (offset + (loff_t)PAGE_SIZE - 1) & ~((loff_t)PAGE_SIZE - 1);
		loff_t unmap_end = ((offset + len) & ~((loff_t)PAGE_SIZE - 1)) - 1;

		if (unmap_end > unmap_start)
			unmap_mapping_range(inode->i_mapping, unmap_start,
					    1 + unmap_end - unmap_start, 0);
		shmem_truncate_range(inode, offset, offset + len - 1);
		goto out;
	}
	if (offset + len > MAX_LFS_FILESIZE) {
		error = -EFBIG;
		goto out;
	}
	start = (pgoff_t)(offset >> PAGE_SHIFT);
	end = (pgoff_t)((offset + len + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT);
	if (sb->max_blocks && end - start > sb->max_blocks) {
		error = -ENOSPC;
		goto out;
	}
	undo_fallocend = inode->fallocend;
	if (inode->fallocend < end)
		inode->fallocend = end;
	for (index = start; index < end;) {
		struct folio *folio;

		error = shmem_get_folio(inode, index, offset + len, &folio, SGP_FALLOC);
		if (error) {
			inode->fallocend = undo_fallocend;
			if (index > start)
				shmem_undo_range(inode, (loff_t)start << PAGE_SHIFT,
						 ((loff_t)index << PAGE_SHIFT) - 1, true);
			goto out;
		}
		index = folio_next_index(folio);
		folio_set_dirty(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && offset + len > inode->i_size)
		WRITE_ONCE(inode->i_size, offset + len);
out:
	mutex_unlock(&inode->i_rwsem);
	return error;
}

/**
 * fl__shmem_write_tags() - write pages @index..@index + @nr - 1, page i
 * getting @tag + i * @step, as pwrite() would: folio by folio, a new
 * folio's other pages cleared, the size grown to cover the write.
 * Return: 0 or -errno (the pages before the error are written).
 */
int fl__shmem_write_tags(struct inode *inode, pgoff_t index, unsigned long nr, uint64_t tag,
			 uint64_t step)
{
	pgoff_t end = index + nr, i = index;
	loff_t write_end = (loff_t)end << PAGE_SHIFT;
	int error = 0;

	mutex_lock(&inode->i_rwsem);
	while (i < end) {
		struct folio *folio;
		pgoff_t first, last, p;

		error = shmem_get_folio(inode, i, write_end, &folio, SGP_WRITE);
		if (error)
			break;
		first = i;
		last = folio_next_index(folio) < end ? folio_next_index(folio) : end;
		for (p = first; p < last; p++)
			page_tag_set(folio_pfn(folio) + (p - folio->index),
				     tag_to_store(tag + (p - index) * step));
		if (!folio_test_uptodate(folio)) {
			for (p = folio->index; p < folio_next_index(folio); p++)
				if (p < first || p >= last)
					page_tag_set(folio_pfn(folio) + (p - folio->index), 0);
			folio_set_uptodate(folio);
		}
		folio_set_dirty(folio);
		folio_unlock(folio);
		folio_put(folio);
		i = last;
		if (((loff_t)i << PAGE_SHIFT) > inode->i_size)
			WRITE_ONCE(inode->i_size, (loff_t)i << PAGE_SHIFT);
	}
	mutex_unlock(&inode->i_rwsem);
	return error;
}

/**
 * fl__shmem_read_tags() - read up to @nr pages from @index into @tags, as
 * pread() would: holes and folios fallocated but not written read 0, the
 * read stops at i_size, and each folio read is marked accessed once.
 * Return: the pages read.
 */
int fl__shmem_read_tags(struct inode *inode, pgoff_t index, unsigned long nr, uint64_t *tags)
{
	pgoff_t size = (pgoff_t)((READ_ONCE(inode->i_size) + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT);
	pgoff_t end = index + nr < size ? index + nr : size, i = index;

	while (i < end) {
		struct folio *folio;
		pgoff_t last, p;

		if (shmem_get_folio(inode, i, 0, &folio, SGP_READ) || !folio) {
			tags[i - index] = 0;
			i++;
			continue;
		}
		last = folio_next_index(folio) < end ? folio_next_index(folio) : end;
		for (p = i; p < last; p++)
			tags[p - index] = page_tag(folio_pfn(folio) + (p - folio->index));
		/* a read from a page's start marks the folio accessed, as shmem's does */
		folio_mark_accessed(folio);
		folio_unlock(folio);
		folio_put(folio);
		i = last;
	}
	return i > index ? (int)(i - index) : 0;
}

/** fl__shmem_truncate() - ftruncate(): shrinking frees (and splits) what lies beyond. */
int fl__shmem_truncate(struct inode *inode, loff_t size)
{
	if (size < 0 || size > MAX_LFS_FILESIZE)
		return -EINVAL;
	mutex_lock(&inode->i_rwsem);
	if (size < inode->i_size) {
		loff_t holebegin = (size + (loff_t)PAGE_SIZE - 1) & ~((loff_t)PAGE_SIZE - 1);
		bool mapped_past = inode->i_size > holebegin;

		WRITE_ONCE(inode->i_size, size);
		/* the pages past the end leave every mapping, CoW copies too (shmem_setattr()) */
		if (mapped_past)
			unmap_mapping_range(inode->i_mapping, holebegin, 0, 1);
		shmem_truncate_range(inode, size, -1);
		if (mapped_past)
			unmap_mapping_range(inode->i_mapping, holebegin, 0, 1);
	} else {
		WRITE_ONCE(inode->i_size, size);
	}
	mutex_unlock(&inode->i_rwsem);
	return 0;
}

/* ---- the run's end ---- */

/** fl__shmem_mounts_check() - 0 when no tmpfs is mounted, else the count (and a message). */
int fl__shmem_mounts_check(char *msg, size_t len)
{
	struct shmem_sb_info *sb;
	int n = 0;

	mutex_lock(&mounts_lock);
	list_for_each_entry(sb, &mounts, mnt_list) if (!n++)
		snprintf(msg, len, "a tmpfs is still mounted at %s", sb->path);
	mutex_unlock(&mounts_lock);
	return n;
}

/** fl__shmem_exit() - at shutdown, forget what a failed run left mounted. */
void fl__shmem_exit(void)
{
	struct shmem_sb_info *sb, *tmp;
	struct inode *inode, *itmp;

	list_for_each_entry_safe(sb, tmp, &mounts, mnt_list)
	{
		list_for_each_entry_safe(inode, itmp, &sb->inodes, i_list)
		{
			INIT_LIST_HEAD(&inode->i_mapping->i_mmap); /* its mms are gone */
			fl__address_space_destroy(inode->i_mapping);
			fl_free(inode);
		}
		list_del(&sb->mnt_list);
		fl_free(sb);
	}
	xa_node_cache_shrink();
}
