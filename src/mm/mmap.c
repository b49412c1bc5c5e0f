// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmap.c - address spaces: VMAs, mmap/munmap, the per-VMA lock and the
 * lockless VMA lookup faults use (mm/mmap.c, mm/vma.c, mm/mmap_lock.c).
 *
 * An mm keeps its VMAs in a sorted array. Changing the set takes mmap_lock
 * for writing and runs inside a sequence count (vma_seq odd while it
 * changes). A fault looks its VMA up without mmap_lock, as the kernel's
 * lock_vma_under_rcu() does: read the sequence, search the array, take the
 * VMA's read lock (a counter that a writer blocks), and check the sequence
 * did not move. Any doubt sends the fault to the mmap_lock path. VMA
 * structs and old arrays are only freed with the mm (the model's stand-in
 * for SLAB_TYPESAFE_BY_RCU and RCU), so a racing reader never touches
 * freed memory; it only finds its checks fail. As in the kernel, a change
 * to other VMAs does not fail the lookup: what makes the result right is
 * the VMA's read lock and the checks made under it (attached, holds the
 * address). The sequence only says whether this CPU's last VMA may be
 * used without a search. A VMA is born detached and attached once it is
 * in the array, so a reader holding a stale pointer never uses a VMA that
 * is not yet, or no longer, mapped.
 *
 * Placement is top-down from mmap_base; lengths that are a multiple of
 * PMD_SIZE get PMD alignment, as thp_get_unmapped_area() gives anonymous
 * mappings. A new mapping merges with a neighbour it touches that has the
 * same flags, as vma_merge_new_range() does; with both only if their
 * anon_vmas allow it (at most one has one, or they share it). madvise and
 * munmap split VMAs but never merge them back.
 *
 * Conventions in this file: "the array" is mm->vmas, guarded by mmap_lock
 * for writers and read under vma_seq by lockless readers.
 */
#include <string.h>
#include "internal.h"
#include "fs.h"

#define MMAP_BASE 0x7f0000000000ul
#define MMAP_MIN_ADDR 0x10000ul
#define MAX_MAP_COUNT 65530
#define VMA_CHUNK 64

struct vma_array {
	int cap;
	struct vm_area_struct *v[];
};

struct vma_chunk {
	struct vma_chunk *next;
	struct vm_area_struct v[VMA_CHUNK];
	int used;
};

struct retired_array {
	struct retired_array *next;
	struct vma_array *arr;
};

static const struct fl_lock_class mmap_lock_class = { .name = "mm->mmap_lock",
						      .rank = FL_RANK_MMAP_LOCK,
						      .kind = FL_LOCK_RWSEM };
static const struct fl_lock_class page_table_lock_class = { .name = "mm->page_table_lock",
							    .rank = FL_RANK_PAGE_TABLE_LOCK,
							    .kind = FL_LOCK_SPIN };

/* every live mm, for the split_huge_pages pid form (find_get_task_by_vpid()) */
static const struct fl_lock_class mm_list_class = { .name = "mmlist_lock",
						    .rank = FL_RANK_MMLIST,
						    .kind = FL_LOCK_SPIN };
static struct fl_spinlock mm_list_lock = { .cls = &mm_list_class };
static LIST_HEAD(mm_list);

static inline struct vma_array *mm_array(struct mm_struct *mm)
{
	return (struct vma_array *)((char *)mm->vmas - offsetof(struct vma_array, v));
}

/* CONFIG_MM_ID's ids; the kernel's come from an IDA and are reused, these wrap at 2^31 */
static unsigned int next_mm_id;

struct mm_struct *mm_alloc(int id)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm = fl_calloc(1, sizeof(*mm));
	struct vma_array *arr;

	if (!mm)
		return NULL;
	if (fl_rwsem_init(&mm->mmap_lock, &mmap_lock_class))
		goto err_free;
	fl_spin_lock_init(&mm->page_table_lock, &page_table_lock_class);
	fl__pgtable_pool_init(mm);
	arr = fl_calloc(1, sizeof(*arr) + 16 * sizeof(arr->v[0]));
	mm->rss = fl_aligned_alloc(FL_CACHELINE, sizeof(*mm->rss) * (size_t)nr_cpu_ids_get());
	if (!arr || !mm->rss) {
		fl_free(arr);
		goto err_rwsem;
	}
	memset(mm->rss, 0, sizeof(*mm->rss) * (size_t)nr_cpu_ids_get());
	arr->cap = 16;
	mm->vmas = arr->v;
	mm->vmas_cap = 16;
	mm->pgd = fl__pgtable_alloc(mm, 3);
	if (!mm->pgd) {
		fl_free(arr);
		goto err_rwsem;
	}
	mm->mmap_base = MMAP_BASE;
	mm->id = id;
	mm->mm_id = fl_atomic_add_fetch(&next_mm_id, 1, __ATOMIC_RELAXED) & FOLIO_MM_ID_MASK;
	if (!mm->mm_id) /* MM_ID_DUMMY is no mm's */
		mm->mm_id = fl_atomic_add_fetch(&next_mm_id, 1, __ATOMIC_RELAXED) &
			    FOLIO_MM_ID_MASK;
	mm->memcg = fl__run_memcg; /* the process is made in the run's cgroup */
	fl__dtlb_mm_init(mm);
	mm->mm_users = 1;
	mm->mm_count = 1;
	fl_spin_lock_at(&mm_list_lock, &site);
	list_add_tail(&mm->mmlist, &mm_list);
	spin_unlock(&mm_list_lock);
	return mm;
err_rwsem:
	fl_free(mm->rss);
	fl_rwsem_destroy(&mm->mmap_lock);
err_free:
	fl_free(mm);
	return NULL;
}

int64_t fl__mm_counter(struct mm_struct *mm, int member)
{
	int64_t s = 0;
	int cpu;

	for_each_online_cpu (cpu)
		s += READ_ONCE(mm->rss[cpu].count[member]);
	return s;
}

/* ---- VMA structs: a type-stable pool ---- */

static struct vm_area_struct *vma_alloc(struct mm_struct *mm)
{
	struct vm_area_struct *vma = mm->vma_pool;
	struct vma_chunk *chunk = mm->vma_chunks;

	if (vma) {
		mm->vma_pool = vma->next_free;
	} else {
		if (!chunk || chunk->used == VMA_CHUNK) {
			chunk = fl_aligned_alloc(FL_CACHELINE, sizeof(*chunk));
			if (!chunk)
				return NULL;
			memset(chunk, 0, sizeof(*chunk));
			chunk->next = mm->vma_chunks;
			mm->vma_chunks = chunk;
		}
		vma = &chunk->v[chunk->used++];
	}
	vma->vm_mm = mm;
	vma->vm_flags = 0;
	vma->anon_vma = NULL;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	vma->vm_pgoff = 0;
	vma->vm_file = NULL;
	vma->vm_ops = NULL;
	INIT_LIST_HEAD(&vma->shared);
	vma->swap_readahead_info = 0;
	fl_atomic_store(&vma->detached, true, __ATOMIC_RELAXED);
	vma->next_free = NULL;
	/* release: a stale reader's cmpxchg sees a consistent count */
	fl_atomic_store(&vma->vm_refcnt, 0, __ATOMIC_RELEASE);
	return vma;
}

/*
 * Context: the VMA is detached and write-locked; it stays write-locked.
 * Its reverse-map links are gone (unlink_anon_vmas(), unlink_file_vma()).
 * mmap_lock for writing, or for reading after do_munmap()'s downgrade:
 * then no other task frees or allocates a VMA of @mm, as both need the
 * write lock first, which waits for this reader.
 */
static void vma_free(struct mm_struct *mm, struct vm_area_struct *vma)
{
	VM_BUG_ON(!list_empty(&vma->anon_vma_chain) || !list_empty(&vma->shared));
	if (vma->vm_file)
		fput(vma->vm_file);
	vma->vm_file = NULL;
	vma->next_free = mm->vma_pool;
	mm->vma_pool = vma;
}

/* ---- the file reverse map: mapping->i_mmap ---- */

/* Context: the mapping's i_mmap_rwsem held for writing. */
void vma_link_file(struct vm_area_struct *vma, struct file *file)
{
	list_add_tail(&vma->shared, &file->f_mapping->i_mmap);
}

/* unlink_file_vma() - take @vma off its file's i_mmap, if it maps a file. */
void unlink_file_vma(struct vm_area_struct *vma)
{
	struct address_space *mapping;

	if (!vma->vm_file || list_empty(&vma->shared))
		return;
	mapping = vma->vm_file->f_mapping;
	i_mmap_lock_write(mapping);
	list_del_init(&vma->shared);
	i_mmap_unlock_write(mapping);
}

/* ---- the per-VMA lock ---- */

static bool vma_start_read(struct vm_area_struct *vma)
{
	unsigned int c = fl_atomic_load(&vma->vm_refcnt, __ATOMIC_RELAXED);

	/* sim: the increment and the decrement, and the line if another CPU had it */
	fl_cost(FL_COST_LOCK);
	fl_cacheline_write(&vma->refcnt_line);
	do {
		if (c & VMA_LOCK_WRITER)
			return false;
	} while (!fl_atomic_cmpxchg(&vma->vm_refcnt, &c, c + 1, true, __ATOMIC_ACQUIRE,
				    __ATOMIC_RELAXED));
	return true;
}

__always_inline void vma_end_read(struct vm_area_struct *vma)
{
	fl_cacheline_write(&vma->refcnt_line);
	/* release: our reads of the VMA happen before a writer's changes */
	fl_atomic_fetch_sub(&vma->vm_refcnt, 1, __ATOMIC_RELEASE);
}

/**
 * vma_start_write() - block new readers of @vma and wait for current ones.
 * Context: mmap_lock held for writing.
 */
void vma_start_write(struct vm_area_struct *vma)
{
	fl_atomic_fetch_or(&vma->vm_refcnt, VMA_LOCK_WRITER, __ATOMIC_ACQUIRE);
	/* acquire: the readers' accesses happen before our changes */
	smp_cond_load_acquire(&vma->vm_refcnt, !(VAL & ~VMA_LOCK_WRITER));
}

void vma_end_write(struct vm_area_struct *vma)
{
	fl_atomic_fetch_and(&vma->vm_refcnt, ~VMA_LOCK_WRITER, __ATOMIC_RELEASE);
}

static void mm_vmas_begin_change(struct mm_struct *mm)
{
	/* seq_cst RMW: readers that see any later write see the odd count */
	fl_atomic_fetch_add(&mm->vma_seq, 1, __ATOMIC_SEQ_CST);
}

static void mm_vmas_end_change(struct mm_struct *mm)
{
	/* release: the new array contents before the even count */
	fl_atomic_store(&mm->vma_seq, mm->vma_seq + 1, __ATOMIC_RELEASE);
}

/* ---- the array ---- */

/* Index of the first VMA with vm_end > @addr, reading racily but safely. */
static int vma_search(struct vm_area_struct **v, int n, unsigned long addr)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		struct vm_area_struct *vma = fl_atomic_load(&v[mid], __ATOMIC_RELAXED);

		if (vma_end(vma) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	int i = vma_search(mm->vmas, mm->nr_vmas, addr);

	return i < mm->nr_vmas ? mm->vmas[i] : NULL;
}

int fl__mm_nr_vmas(struct mm_struct *mm)
{
	return fl_atomic_load(&mm->nr_vmas, __ATOMIC_ACQUIRE);
}

struct vm_area_struct *fl__mm_vma(struct mm_struct *mm, int i)
{
	return mm->vmas[i];
}

/**
 * lock_vma_under_rcu() - find and read-lock the VMA holding @addr without
 * mmap_lock.
 * Return: the read-locked VMA, or NULL: take mmap_lock and look again.
 */
__always_inline struct vm_area_struct *lock_vma_under_rcu(struct mm_struct *mm, unsigned long addr)
{
	unsigned int seq = fl_atomic_load(&mm->vma_seq, __ATOMIC_ACQUIRE);
	struct mm_rss_cpu *pc = &mm->rss[smp_processor_id()];
	struct vm_area_struct **v, *vma;
	struct vma_array *arr;
	int n, i;

	/* this CPU's last VMA, if the set has not changed since: no search */
	vma = pc->vma_hint;
	if (vma && pc->hint_seq == seq && !(seq & 1) && addr >= vma_start(vma) &&
	    addr < vma_end(vma))
		goto found;
	v = fl_atomic_load(&mm->vmas, __ATOMIC_ACQUIRE);
	arr = (struct vma_array *)((char *)v - offsetof(struct vma_array, v));
	n = fl_atomic_load(&mm->nr_vmas, __ATOMIC_ACQUIRE);
	if (n > arr->cap)
		goto abort;
	i = vma_search(v, n, addr);
	if (i >= n)
		goto abort;
	vma = fl_atomic_load(&v[i], __ATOMIC_RELAXED);
	if (!(seq & 1)) {
		pc->vma_hint = vma;
		pc->hint_seq = seq;
	}
found:
	if (!vma_start_read(vma))
		goto abort;
	/*
	 * The VMA is read-locked: its fields are stable, and checking them
	 * is what makes the result right, whatever happened to the array
	 * meanwhile (a search that raced a change finds the wrong VMA and
	 * fails here).
	 */
	if (vma->vm_mm != mm || fl_atomic_load(&vma->detached, __ATOMIC_ACQUIRE) ||
	    addr < vma_start(vma) || addr >= vma_end(vma)) {
		vma_end_read(vma);
		goto abort;
	}
	return vma;
abort:
	/* the kernel counts these only with CONFIG_PER_VMA_LOCK_STATS (off) */
	return NULL;
}

/* Context: mmap_lock for writing, inside begin/end change. */
static int vma_array_insert(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int i, j, n = mm->nr_vmas;

	if (n == mm->vmas_cap) {
		int cap = mm->vmas_cap * 2;
		struct vma_array *arr = fl_calloc(1,
						  sizeof(*arr) + (size_t)cap * sizeof(arr->v[0]));
		struct retired_array *r = fl_malloc(sizeof(*r));

		if (!arr || !r) {
			fl_free(arr);
			fl_free(r);
			return -ENOMEM;
		}
		arr->cap = cap;
		memcpy(arr->v, mm->vmas, (size_t)n * sizeof(arr->v[0]));
		r->arr = mm_array(mm);
		r->next = mm->retired_arrays;
		mm->retired_arrays = r;
		fl_atomic_store(&mm->vmas, arr->v, __ATOMIC_RELEASE);
		mm->vmas_cap = cap;
	}
	i = vma_search(mm->vmas, n, vma->vm_start);
	for (j = n; j > i; j--)
		fl_atomic_store(&mm->vmas[j], mm->vmas[j - 1], __ATOMIC_RELAXED);
	fl_atomic_store(&mm->vmas[i], vma, __ATOMIC_RELAXED);
	fl_atomic_store(&mm->nr_vmas, n + 1, __ATOMIC_RELEASE);
	/* release: its fields before a lockless reader may use it */
	fl_atomic_store(&vma->detached, false, __ATOMIC_RELEASE);
	return 0;
}

static void vma_array_remove(struct mm_struct *mm, struct vm_area_struct *vma)
{
	int i = vma_search(mm->vmas, mm->nr_vmas, vma->vm_start);

	VM_BUG_ON(mm->vmas[i] != vma);
	for (; i < mm->nr_vmas - 1; i++)
		fl_atomic_store(&mm->vmas[i], mm->vmas[i + 1], __ATOMIC_RELAXED);
	fl_atomic_store(&mm->nr_vmas, mm->nr_vmas - 1, __ATOMIC_RELEASE);
	fl_atomic_store(&vma->detached, true, __ATOMIC_RELAXED);
}

/* Top-down first fit below mmap_base. Return: address or 0. */
static unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len, unsigned long align)
{
	unsigned long hi = mm->mmap_base;
	int i;

	for (i = mm->nr_vmas; i >= 0; i--) {
		unsigned long lo = i > 0 ? mm->vmas[i - 1]->vm_end : MMAP_MIN_ADDR;
		unsigned long top = i < mm->nr_vmas ? mm->vmas[i]->vm_start : TASK_SIZE;
		unsigned long cand;

		if (top > hi)
			top = hi;
		if (top < lo + len)
			continue;
		cand = ALIGN_DOWN(top - len, align);
		if (cand >= lo)
			return cand;
	}
	return 0;
}

static bool anon_vma_compatible(struct vm_area_struct *a, struct vm_area_struct *b)
{
	struct anon_vma *x = a->anon_vma, *y = b->anon_vma;

	return !x || !y || x == y;
}

/*
 * Try to take [@start, @end) into a neighbour with @vm_flags instead of a
 * VMA of its own: the neighbour is write-locked while its bounds move, so
 * faults in it wait or take mmap_lock, as in the kernel.
 * Context: mmap_lock for writing. Return: true if merged.
 */
static bool vma_merge_new_range(struct mm_struct *mm, unsigned long start, unsigned long end,
				unsigned long vm_flags)
{
	int i = vma_search(mm->vmas, mm->nr_vmas, start);
	struct vm_area_struct *prev = i > 0 ? mm->vmas[i - 1] : NULL;
	struct vm_area_struct *next = i < mm->nr_vmas ? mm->vmas[i] : NULL;

	struct anon_vma *av;

	if (prev && (prev->vm_end != start || prev->vm_flags != vm_flags || prev->vm_file))
		prev = NULL;
	if (next && (next->vm_start != end || next->vm_flags != vm_flags || next->vm_file))
		next = NULL;
	/* anonymous: the new range's page offset is start >> PAGE_SHIFT */
	if (prev &&
	    prev->vm_pgoff + ((prev->vm_end - prev->vm_start) >> PAGE_SHIFT) != start >> PAGE_SHIFT)
		prev = NULL;
	if (next && next->vm_pgoff != end >> PAGE_SHIFT)
		next = NULL;
	/* each joins the new range, so prev's offsets run on into next's */
	if (prev && next && !anon_vma_compatible(prev, next))
		next = NULL;
	if (!prev && !next)
		return false;
	if (prev)
		vma_start_write(prev);
	if (next)
		vma_start_write(next);
	/* prev takes next's pages: it must reach them through next's anon_vma */
	if (prev && next && !prev->anon_vma && next->anon_vma) {
		prev->anon_vma = next->anon_vma;
		if (anon_vma_clone(prev, next)) {
			vma_end_write(prev);
			vma_end_write(next);
			return false;
		}
	}
	/* rmap walkers read the bounds under the anon_vma's lock */
	av = prev ? prev->anon_vma : next->anon_vma;
	if (av)
		anon_vma_lock_write(av);
	mm_vmas_begin_change(mm);
	if (prev && next) {
		vma_array_remove(mm, next);
		fl_atomic_store(&prev->vm_end, next->vm_end, __ATOMIC_RELAXED);
	} else if (prev) {
		fl_atomic_store(&prev->vm_end, end, __ATOMIC_RELAXED);
	} else {
		fl_atomic_store(&next->vm_start, start, __ATOMIC_RELAXED);
		next->vm_pgoff = start >> PAGE_SHIFT;
	}
	mm_vmas_end_change(mm);
	if (av)
		anon_vma_unlock_write(av);
	if (prev) {
		vma_end_write(prev);
		if (next) {
			unlink_anon_vmas(next);
			vma_free(mm, next); /* detached, stays write-locked */
		}
	} else {
		vma_end_write(next);
	}
	return true;
}

/*
 * __do_mmap() - a mapping of @len bytes: anonymous (@file NULL) or of
 * @file from page @pgoff. A length of whole PMDs gets a PMD-aligned
 * address (thp_get_unmapped_area(); for a file, when the offset is
 * PMD-aligned too, as shmem_get_unmapped_area() gives a huge-capable
 * tmpfs). A file mapping joins the file's i_mmap and never merges.
 */
static int __do_mmap(struct mm_struct *mm, struct file *file, unsigned long len,
		     unsigned long vm_flags, pgoff_t pgoff, unsigned long *addr)
{
	struct vm_area_struct *vma;
	unsigned long start, align = PAGE_SIZE;
	int ret = -ENOMEM;

	if (!len)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (len > TASK_SIZE - MMAP_MIN_ADDR)
		return -ENOMEM;
	if (IS_ALIGNED(len, PMD_SIZE) && (!file || IS_ALIGNED(pgoff, HPAGE_PMD_NR)))
		align = PMD_SIZE;
	down_write(&mm->mmap_lock);
	fl_cost(FL_COST_VMA); /* sim: mmap_region()'s work, under the lock as in 6.18 */
	if (mm->nr_vmas >= MAX_MAP_COUNT)
		goto out;
	start = get_unmapped_area(mm, len, align);
	if (!start)
		goto out;
	if (!file && vma_merge_new_range(mm, start, start + len, vm_flags)) {
		khugepaged_enter_vma(find_vma(mm, start), vm_flags);
		*addr = start;
		ret = 0;
		goto out;
	}
	vma = vma_alloc(mm);
	if (!vma)
		goto out;
	fl_atomic_store(&vma->vm_start, start, __ATOMIC_RELAXED);
	fl_atomic_store(&vma->vm_end, start + len, __ATOMIC_RELAXED);
	vma->vm_flags = vm_flags;
	vma->vm_pgoff = file ? pgoff : start >> PAGE_SHIFT;
	if (file) {
		vma->vm_file = get_file(file);
		vma->vm_ops = &shmem_vm_ops; /* tmpfs files only */
	}
	mm_vmas_begin_change(mm);
	ret = vma_array_insert(mm, vma);
	mm_vmas_end_change(mm);
	if (ret) {
		vma_start_write(vma);
		vma_free(mm, vma);
		goto out;
	}
	if (file) {
		i_mmap_lock_write(file->f_mapping);
		vma_link_file(vma, file);
		i_mmap_unlock_write(file->f_mapping);
	}
	khugepaged_enter_vma(vma, vm_flags);
	*addr = start;
out:
	up_write(&mm->mmap_lock);
	return ret;
}

/**
 * do_mmap() - create an anonymous private mapping of @len bytes.
 * Return: 0 with the address in *@addr, -EINVAL, or -ENOMEM.
 */
int do_mmap(struct mm_struct *mm, unsigned long len, unsigned long vm_flags, unsigned long *addr)
{
	return __do_mmap(mm, NULL, len, vm_flags, 0, addr);
}

/**
 * do_mmap_file() - map @len bytes of the tmpfs @file from byte @off (a
 * multiple of 4 KiB), shared (VM_SHARED in @vm_flags) or private.
 * Return: 0 with the address in *@addr, -EINVAL, or -ENOMEM.
 */
int do_mmap_file(struct mm_struct *mm, struct file *file, loff_t off, unsigned long len,
		 unsigned long vm_flags, unsigned long *addr)
{
	if (off < 0 || (off & (loff_t)(PAGE_SIZE - 1)))
		return -EINVAL;
	if (vm_flags & VM_SHARED)
		vm_flags |= VM_MAYSHARE;
	return __do_mmap(mm, file, len, vm_flags, (pgoff_t)(off >> PAGE_SHIFT), addr);
}

/**
 * fl__split_vma() - split @vma at @addr into two VMAs.
 * Context: mmap_lock held for writing. Return: 0 or -ENOMEM.
 */
int fl__split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	struct vm_area_struct *new;
	struct anon_vma *av;
	int ret;

	if (addr <= vma->vm_start || addr >= vma->vm_end)
		return 0;
	if (mm->nr_vmas >= MAX_MAP_COUNT)
		return -ENOMEM;
	new = vma_alloc(mm);
	if (!new)
		return -ENOMEM;
	new->vm_flags = vma->vm_flags;
	new->vm_pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	new->vm_ops = vma->vm_ops;
	new->swap_readahead_info = fl_atomic_load(&vma->swap_readahead_info, __ATOMIC_RELAXED);
	if (vma->vm_file)
		new->vm_file = get_file(vma->vm_file);
	new->anon_vma = vma->anon_vma;
	if (anon_vma_clone(new, vma)) {
		vma_start_write(new);
		vma_free(mm, new);
		return -ENOMEM;
	}
	fl_atomic_store(&new->vm_start, addr, __ATOMIC_RELAXED);
	fl_atomic_store(&new->vm_end, vma->vm_end, __ATOMIC_RELAXED);
	vma_start_write(vma);
	/* rmap walkers see the two halves' bounds change together */
	av = vma->anon_vma;
	if (vma->vm_file)
		i_mmap_lock_write(vma->vm_file->f_mapping);
	if (av)
		anon_vma_lock_write(av);
	mm_vmas_begin_change(mm);
	fl_atomic_store(&vma->vm_end, addr, __ATOMIC_RELAXED);
	ret = vma_array_insert(mm, new);
	if (ret)
		fl_atomic_store(&vma->vm_end, new->vm_end, __ATOMIC_RELAXED);
	else if (vma->vm_file)
		vma_link_file(new, vma->vm_file);
	mm_vmas_end_change(mm);
	if (av)
		anon_vma_unlock_write(av);
	if (vma->vm_file)
		i_mmap_unlock_write(vma->vm_file->f_mapping);
	vma_end_write(vma);
	if (ret) {
		vma_start_write(new);
		unlink_anon_vmas(new);
		vma_free(mm, new);
	}
	return ret;
}

/*
 * Zap [start, end) of the detached VMAs in @v[0..n), take them off the
 * reverse map (no rmap walker may find them once their tables go), and
 * free the tables.
 */
static void unmap_region(struct mm_struct *mm, struct vm_area_struct **v, int n,
			 unsigned long start, unsigned long end, unsigned long floor,
			 unsigned long ceiling, bool fullmm)
{
	struct mmu_gather tlb;
	int i;

	tlb_gather_mmu(&tlb, mm, fullmm);
	for (i = 0; i < n; i++)
		unmap_page_range(&tlb, v[i], v[i]->vm_start, v[i]->vm_end, NULL);
	for (i = 0; i < n; i++) {
		unlink_anon_vmas(v[i]);
		unlink_file_vma(v[i]);
	}
	free_pgtables(&tlb, mm, start, end, floor, ceiling);
	tlb_finish_mmu(&tlb);
}

/*
 * The detached VMAs @v[0..n) of a munmap: no lookup finds them, and the
 * range's tables are theirs alone (@floor and @ceiling), so the zap, the
 * tables' freeing and the VMAs' own need mmap_lock only for reading: no
 * new VMA can take the range till its release (mm/vma.c).
 * Context: mmap_lock held for writing; released on return.
 */
static void vms_complete_munmap_vmas(struct mm_struct *mm, struct vm_area_struct **v, int n,
				     unsigned long floor, unsigned long ceiling)
{
	int i;

	downgrade_write(&mm->mmap_lock);
	unmap_region(mm, v, n, v[0]->vm_start, v[n - 1]->vm_end, floor, ceiling, false);
	for (i = 0; i < n; i++)
		vma_free(mm, v[i]);
	up_read(&mm->mmap_lock);
}

/**
 * do_munmap() - unmap [@start, @start + @len), as munmap(2) does in 6.18
 * (__vm_munmap() with unlock, mm/vma.c vms_complete_munmap_vmas()): the
 * VMAs are split and detached under mmap_lock for writing, which is then
 * downgraded to reading for the zap, the page tables' freeing and the
 * VMAs' own, so faults (their per-VMA lock, or mmap_lock for reading)
 * go on meanwhile while a new mapping waits.
 * Return: 0, -EINVAL for a misaligned or empty range, -ENOMEM when a VMA
 * could not be split.
 */
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	struct vm_area_struct *stack[16], **v = stack;
	unsigned long end, floor, ceiling;
	int i, first, n = 0, ret = 0;

	if (!IS_ALIGNED(start, PAGE_SIZE) || !len || start >= TASK_SIZE)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	end = start + len;
	if (end > TASK_SIZE || end < start)
		return -EINVAL;
	down_write(&mm->mmap_lock);
	fl_cost(FL_COST_VMA); /* sim: the lookup, split and detach, under the lock as in 6.18 */
	first = vma_search(mm->vmas, mm->nr_vmas, start);
	if (first < mm->nr_vmas && mm->vmas[first]->vm_start < start) {
		ret = fl__split_vma(mm, mm->vmas[first], start);
		if (ret)
			goto out;
		first++;
	}
	i = vma_search(mm->vmas, mm->nr_vmas, end - 1);
	if (i < mm->nr_vmas && mm->vmas[i]->vm_start < end && mm->vmas[i]->vm_end > end) {
		ret = fl__split_vma(mm, mm->vmas[i], end);
		if (ret)
			goto out;
	}
	for (i = first; i < mm->nr_vmas && mm->vmas[i]->vm_start < end; i++)
		n++;
	if (!n)
		goto out;
	if (n > (int)ARRAY_SIZE(stack)) {
		v = fl_malloc((size_t)n * sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
	}
	floor = first > 0 ? mm->vmas[first - 1]->vm_end : 0;
	ceiling = first + n < mm->nr_vmas ? mm->vmas[first + n]->vm_start : 0;
	for (i = 0; i < n; i++) {
		v[i] = mm->vmas[first + i];
		vma_start_write(v[i]);
	}
	mm_vmas_begin_change(mm);
	for (i = 0; i < n; i++)
		vma_array_remove(mm, v[i]);
	mm_vmas_end_change(mm);
	vms_complete_munmap_vmas(mm, v, n, floor, ceiling);
	if (v != stack)
		fl_free(v);
	flush_delayed_fput();
	return 0;
out:
	up_write(&mm->mmap_lock);
	flush_delayed_fput();
	return ret;
}

/**
 * dup_mmap() - fork: give the new, empty @mm a copy of every VMA of
 * @oldmm: the same bounds, flags and file, linked to the parent's
 * anon_vmas (anon_vma_fork()), and the page tables copied
 * (copy_page_range()). A VM_WIPEONFORK VMA comes empty. The parent's VMAs
 * are write-locked throughout, so its faults wait, and its TLBs are
 * flushed before they go on: its PTEs are read-only now. @mm is not
 * found by fl__find_get_mm() until it is complete.
 * Context: nobody runs in @mm yet. Return: 0 or -ENOMEM (@mm then holds
 * what was copied so far, for mmput()).
 */
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	int i, ret = 0;

	fl_atomic_store(&mm->mm_users, 0, __ATOMIC_RELAXED);
	down_write(&oldmm->mmap_lock);
	mm->mmap_base = oldmm->mmap_base;
	for (i = 0; i < oldmm->nr_vmas && !ret; i++) {
		struct vm_area_struct *mpnt = oldmm->vmas[i], *tmp;

		vma_start_write(mpnt);
		tmp = vma_alloc(mm);
		if (!tmp) {
			ret = -ENOMEM;
			break;
		}
		fl_atomic_store(&tmp->vm_start, mpnt->vm_start, __ATOMIC_RELAXED);
		fl_atomic_store(&tmp->vm_end, mpnt->vm_end, __ATOMIC_RELAXED);
		tmp->vm_flags = mpnt->vm_flags;
		tmp->vm_pgoff = mpnt->vm_pgoff;
		tmp->vm_ops = mpnt->vm_ops;
		tmp->swap_readahead_info = fl_atomic_load(&mpnt->swap_readahead_info,
							  __ATOMIC_RELAXED);
		if (mpnt->vm_file)
			tmp->vm_file = get_file(mpnt->vm_file);
		if (!(mpnt->vm_flags & VM_WIPEONFORK))
			ret = anon_vma_fork(tmp, mpnt);
		if (!ret) {
			mm_vmas_begin_change(mm);
			ret = vma_array_insert(mm, tmp);
			mm_vmas_end_change(mm);
		}
		if (ret) {
			unlink_anon_vmas(tmp);
			vma_start_write(tmp);
			vma_free(mm, tmp);
			break;
		}
		if (tmp->vm_file) {
			i_mmap_lock_write(tmp->vm_file->f_mapping);
			vma_link_file(tmp, tmp->vm_file);
			i_mmap_unlock_write(tmp->vm_file->f_mapping);
		}
		if (!(mpnt->vm_flags & VM_WIPEONFORK))
			ret = copy_page_range(tmp, mpnt);
	}
	if (!ret)
		khugepaged_fork(mm, oldmm);
	fl__dtlb_flush_mm(oldmm);
	flush_tlb_mm(oldmm);
	for (i = 0; i < oldmm->nr_vmas; i++)
		vma_end_write(oldmm->vmas[i]);
	up_write(&oldmm->mmap_lock);
	/* release: fl__find_get_mm() that takes it sees it whole */
	fl_atomic_store(&mm->mm_users, 1, __ATOMIC_RELEASE);
	return ret;
}

/**
 * exit_mmap() - tear the whole address space down.
 * Context: no other thread uses @mm any more.
 */
void exit_mmap(struct mm_struct *mm)
{
	int i, n;

	down_write(&mm->mmap_lock);
	n = mm->nr_vmas;
	for (i = 0; i < n; i++)
		vma_start_write(mm->vmas[i]);
	if (n)
		unmap_region(mm, mm->vmas, n, 0, TASK_SIZE, 0, 0, true);
	mm_vmas_begin_change(mm);
	for (i = n - 1; i >= 0; i--) {
		struct vm_area_struct *vma = mm->vmas[i];

		vma_array_remove(mm, vma);
		vma_free(mm, vma);
	}
	mm_vmas_end_change(mm);
	up_write(&mm->mmap_lock);
	flush_delayed_fput();
}

/* fl__mmap_exit() - at shutdown, forget the mms a failed run did not put. */
void fl__mmap_exit(void)
{
	INIT_LIST_HEAD(&mm_list);
}

/**
 * fl__find_get_mm() - the address space of process @pid with a reference
 * (mmput() drops it), or NULL if there is no such process.
 */
struct mm_struct *fl__find_get_mm(int pid)
{
	FL_LOCK_SITE(site);
	struct mm_struct *mm, *found = NULL;

	fl_spin_lock_at(&mm_list_lock, &site);
	list_for_each_entry(mm, &mm_list, mmlist)
	{
		int users = fl_atomic_load(&mm->mm_users, __ATOMIC_RELAXED);

		if (mm->id != pid || !users)
			continue;
		fl_atomic_fetch_add(&mm->mm_users, 1, __ATOMIC_ACQUIRE);
		found = mm;
		break;
	}
	spin_unlock(&mm_list_lock);
	return found;
}

/* The struct and its page tables' roots go: nobody refers to @mm any more. */
static void __mmdrop(struct mm_struct *mm)
{
	struct retired_array *r;
	struct vma_chunk *c;

	/* __mmdrop(): mostly in finish_task_switch(), with preemption off */
	fl__pgtable_free(mm, mm->pgd);
	count_fl_stat(FL_PGFREE_ATOMIC, 1);
	fl__pgtable_pool_destroy(mm);
	while ((r = mm->retired_arrays)) {
		mm->retired_arrays = r->next;
		fl_free(r->arr);
		fl_free(r);
	}
	fl_free(mm_array(mm));
	while ((c = mm->vma_chunks)) {
		mm->vma_chunks = c->next;
		fl_free(c);
	}
	fl_free(mm->rss);
	fl_rwsem_destroy(&mm->mmap_lock);
	fl_free(mm);
}

/** mmgrab() - keep the struct of @mm (not its address space) until mmdrop(). */
void mmgrab(struct mm_struct *mm)
{
	fl_atomic_fetch_add(&mm->mm_count, 1, __ATOMIC_RELAXED);
}

void mmdrop(struct mm_struct *mm)
{
	if (fl_atomic_sub_fetch(&mm->mm_count, 1, __ATOMIC_ACQ_REL) == 0)
		__mmdrop(mm);
}

/** mmput() - drop a reference; the last tears the address space down. */
void mmput(struct mm_struct *mm)
{
	FL_LOCK_SITE(site);
	bool last;

	/* under the list lock: fl__find_get_mm() never takes a dying mm */
	fl_spin_lock_at(&mm_list_lock, &site);
	last = fl_atomic_sub_fetch(&mm->mm_users, 1, __ATOMIC_ACQ_REL) == 0;
	if (last)
		list_del(&mm->mmlist);
	spin_unlock(&mm_list_lock);
	if (!last)
		return;
	khugepaged_exit(mm); /* before exit_mmap(), as __mmput() */
	exit_mmap(mm);
	mm_put_huge_zero_folio(mm);
	mmdrop(mm);
}
