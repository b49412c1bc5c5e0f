/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * target.h - the target API: what a workload may do to a machine, whether
 * that machine is the model (model.c) or the host kernel (host.c).
 *
 * A workload creates processes, runs threads in them (each on its own
 * CPU), maps, unmaps and advises memory, and loads and stores one 64-bit
 * content tag per 4 KiB page. Around the workload the runner sets knobs
 * and reads counters and lock statistics under the kernel's names.
 * Nothing here assumes the model: addresses are plain 64-bit numbers,
 * knobs are sysfs-style names, counters are /proc/vmstat names.
 *
 * Conventions in this file: calls return 0 or a negative errno (-EFAULT is
 * what a real program would get as SIGSEGV); @th is the calling thread.
 */
#ifndef FL_TARGET_TARGET_H
#define FL_TARGET_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <foliolab/foliolab.h>

#define FL_PROT_READ 0x1
#define FL_PROT_WRITE 0x2
#define FL_MAP_DROPPABLE 0x1 /* MAP_DROPPABLE: lazy-free from birth */
#define FL_MAP_SHARED 0x2    /* mmap_file(): MAP_SHARED (else MAP_PRIVATE) */

enum fl_advice {
	FL_MADV_DONTNEED,
	FL_MADV_FREE,
	FL_MADV_COLD,
	FL_MADV_PAGEOUT,
	FL_MADV_HUGEPAGE,
	FL_MADV_NOHUGEPAGE,
	FL_MADV_COLLAPSE,
};

struct fl_target;
struct fl_proc;
struct fl_tmpfs; /* a tmpfs a workload mounted */
struct fl_file;	 /* a file open in one */

/* fallocate() modes of the target API (Linux's values) */
#define FL_FALLOC_KEEP_SIZE 0x01
#define FL_FALLOC_PUNCH_HOLE 0x02

/* What THP does for a process's memory, at one moment. */
struct fl_thp_sample {
	uint64_t anon_huge_bytes; /* its anon memory mapped by huge PMDs (AnonHugePages) */
	/*
	 * model: the pages the calling thread's CPU reached through a PTE and
	 * through a huge PMD so far (a stand-in for dTLB misses); -1 on the host
	 */
	int64_t pte_accesses;
	int64_t pmd_accesses;
	/*
	 * the calling thread's dTLB-load-misses so far: the model's TLB on its
	 * CPU, the host's perf counter of the thread; -1 where none counts
	 * them, and then dtlb_errno says why: perf_event_open's errno on the
	 * host, 0 on the model (no TLB modelled)
	 */
	int64_t dtlb_load_misses;
	int dtlb_errno;
};

struct fl_thread {
	struct fl_proc *proc;
	int index; /* position in run_threads(); -1 for the process's main thread */
	int cpu;
};

struct fl_proc {
	struct fl_target *target;
};

struct fl_target_config {
	uint64_t mem_bytes;
	int nodes;
	int cpus;
	uint64_t swap_bytes; /* swap on a zram disk of this size; 0: none */
	uint64_t memcg_max;  /* the run's memory cgroup's memory.max; 0: max */
	uint64_t memcg_high; /* its memory.high; 0: max */
	bool memcg;	     /* model: a memory cgroup for the run even without limits */
	bool locks;	     /* host: record lock contention (perf lock) */
	bool no_knobs;	     /* host: change no knob, run with what the host has */
	bool locked_atomics; /* model: the LOCK prefix with one thread too */
	bool pin_cpus;	     /* model: CPU i's thread on host CPU i */
	bool sim;	     /* model: virtual CPUs in virtual time */
	uint64_t seed;	     /* sim: the seed */
	const char *costs;   /* sim: the cost file, NULL for the built-in one */
	bool files;	     /* the workload allocates file folios too */
	bool khugepaged;     /* model: khugepaged's thread beside the tasks, on a CPU of its own */
};

struct fl_target_ops {
	const char *name;
	int (*open)(const struct fl_target_config *cfg, struct fl_target **out, char *err,
		    size_t len);
	/* after the workload: settle the machine; non-zero if its checks fail */
	int (*quiesce)(struct fl_target *t, char *err, size_t len);
	/* frees the target; non-zero if the machine could not be put back */
	int (*close)(struct fl_target *t);
	/*
	 * check_knobs() tries @k without changing any machine (bad name or
	 * value, missing permission); set_knobs() applies them all or, on
	 * error, none.
	 */
	int (*check_knobs)(const struct fl_target_config *cfg, const struct fl_knobs *k, char *err,
			   size_t len);
	int (*set_knobs)(struct fl_target *t, const struct fl_knobs *k, char *err, size_t len);
	int (*knobs)(struct fl_target *t, struct fl_knobs *out);
	int (*counters)(struct fl_target *t, struct fl_counters *out);
	/* memory inventory in kB under /proc/meminfo names (levels, not deltas) */
	int (*meminfo)(struct fl_target *t, struct fl_counters *out);
	/* the workload starts / ended: lock recording brackets exactly this */
	int (*begin)(struct fl_target *t, char *err, size_t len);
	void (*end)(struct fl_target *t);
	int (*locks)(struct fl_target *t, struct fl_locks *out);
	/* kernel release and CPU model of the machine, for the record */
	void (*describe)(struct fl_target *t, struct fl_result *res);
	/* optional: 1 and why, if the machine ran out of memory (the model's OOM report) */
	int (*oom_report)(struct fl_target *t, char *buf, size_t len);
	/* zeroed memory every process of the target sees; freed at close */
	void *(*shared_alloc)(struct fl_target *t, size_t size);
	int (*proc_create)(struct fl_target *t, struct fl_proc **out);
	/* -EBUSY while a process it forked lives */
	int (*proc_exit)(struct fl_proc *p);
	/*
	 * fork(2) the process of @th, which must be its main thread
	 * (proc_main()): the new process has the parent's mappings, its
	 * anonymous memory shared copy-on-write (MAP_DROPPABLE memory comes
	 * empty), and runs tasks and exits as any process; it exits before
	 * its parent does.
	 */
	int (*proc_fork)(struct fl_thread *th, struct fl_proc **out);
	struct fl_thread *(*proc_main)(struct fl_proc *p);
	/*
	 * optional, after the run's last counters: the counts of the target's
	 * own process machinery in the run (what starting, forking and ending
	 * its processes and threads cost, with no workload in them), for the
	 * run's counts to leave out; *@nr_steps: the steps measured, 0 when
	 * the target had none to measure
	 */
	int (*machinery)(struct fl_target *t, struct fl_counters *out, int *nr_steps);
	/*
	 * run @fn in @n threads at once, thread i in process @procs[i], on CPU
	 * i; state the threads of several processes share must come from
	 * shared_alloc()
	 */
	int (*run_tasks)(struct fl_target *t, struct fl_proc **procs, int n,
			 void (*fn)(struct fl_thread *th, void *arg), void *arg);
	int (*mmap)(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr);
	/*
	 * Map @len bytes of @f from byte @off (a multiple of 4 KiB), shared
	 * (FL_MAP_SHARED) or private; the mapping keeps the file alive after
	 * unlink and close; munmap, madvise, write and read take it as any.
	 * The host maps files in a workload's first process only (-EOPNOTSUPP
	 * in a forked one).
	 */
	int (*mmap_file)(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			 int prot, int flags, uint64_t *addr);
	/* the whole of a mapping or any page-aligned part of one, as munmap(2) */
	int (*munmap)(struct fl_thread *th, uint64_t addr, uint64_t len);
	int (*madvise)(struct fl_thread *th, uint64_t addr, uint64_t len, int advice);
	/* how @th's process's memory is mapped now, for samples over time */
	int (*thp_sample)(struct fl_thread *th, struct fl_thp_sample *out);
	/* store tag + i * tag_step into the page at addr + i * stride, i < len / stride */
	int (*write)(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		     uint64_t tag, uint64_t tag_step);
	/* load the tags (into @tags if not NULL) and their sum (into @sum) */
	int (*read)(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		    uint64_t *tags, uint64_t *sum);

	/*
	 * Files, in a tmpfs of the run's own: mount one with @options
	 * ("size=2G,huge=always"; the host mounts it in the run folder and
	 * undoes the mount at the end, on signals and by host restore), create
	 * a file in it, and act on the file as the system calls do. Offsets
	 * and lengths are bytes, multiples of 4 KiB; a file's page i holds a
	 * tag as a mapping's page does.
	 */
	int (*tmpfs_mount)(struct fl_thread *th, const char *options, struct fl_tmpfs **out,
			   char *err, size_t len);
	/* unmount; every file of it must be closed */
	int (*tmpfs_umount)(struct fl_thread *th, struct fl_tmpfs *m);
	int (*file_create)(struct fl_thread *th, struct fl_tmpfs *m, const char *name,
			   struct fl_file **out);
	/* unlink the file's name (the file lives on until closed) */
	int (*file_unlink)(struct fl_thread *th, struct fl_file *f);
	int (*file_close)(struct fl_thread *th, struct fl_file *f);
	/* fallocate(2): 0, FL_FALLOC_KEEP_SIZE, or PUNCH_HOLE | KEEP_SIZE */
	int (*fallocate)(struct fl_thread *th, struct fl_file *f, int mode, uint64_t off,
			 uint64_t len);
	int (*ftruncate)(struct fl_thread *th, struct fl_file *f, uint64_t size);
	/* store tag + i * tag_step into page i of [off, off + len) */
	int (*pwrite_tags)(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			   uint64_t tag, uint64_t tag_step);
	/* load the tags of [off, off + len) (into @tags if not NULL); stops at the end
	 * of the file. Return: pages read, or -errno */
	int (*pread_tags)(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			  uint64_t *tags, uint64_t *sum);
	/*
	 * Write the path form of debugfs's split_huge_pages for @f: split the
	 * large folios of pages [@first, @end) to @new_order, or
	 * non-uniformly at page @in_folio_offset of each when it is >= 0.
	 * Return: 0, or -errno with the kernel's reason in @err (a host in
	 * lockdown refuses debugfs writes).
	 */
	int (*split_huge_pages_file)(struct fl_thread *th, struct fl_file *f, uint64_t first,
				     uint64_t end, int new_order, long in_folio_offset, char *err,
				     size_t len);
	/*
	 * The pid form of split_huge_pages for the calling thread's process:
	 * the large folios mapped in [@addr, @addr + @len) (bytes), split as
	 * the path form splits; @len 0 writes "1" instead (every large folio
	 * of the machine, to order 0). Return: as split_huge_pages_file().
	 */
	int (*split_huge_pages_range)(struct fl_thread *th, uint64_t addr, uint64_t len,
				      int new_order, long in_folio_offset, char *err,
				      size_t errlen);
	/*
	 * A shrinker as debugfs's shrinker/<name>-<id>/ offers it: its count
	 * (summed over nodes and memcgs), and a scan of @nr objects on node
	 * @nid (in every memcg that has any). The model has one shrinker,
	 * "thp-deferred_split". Return: 0, or -errno with the reason in @err
	 * (a host in lockdown refuses the scan).
	 */
	int (*shrinker_count)(struct fl_thread *th, const char *name, uint64_t *count, char *err,
			      size_t len);
	int (*shrinker_scan)(struct fl_thread *th, const char *name, int nid, uint64_t nr,
			     char *err, size_t len);
	/*
	 * drop_caches(): "echo 2 > /proc/sys/vm/drop_caches", every
	 * shrinker run to the end (drop_slab(): the deferred split queue
	 * among them; on the host also the dentry and inode caches).
	 * Return: 0, or -errno with the reason in @err.
	 */
	int (*drop_slab)(struct fl_thread *th, char *err, size_t len);
	/*
	 * Reclaim @bytes from the run's memory cgroup, as a write of @bytes
	 * to its memory.reclaim does (cgroup v2; on v1 the host lowers
	 * memory.limit_in_bytes by @bytes below the usage and puts it back).
	 * Less than @bytes coming free is not an error (the kernel's EAGAIN):
	 * the counters say what went. Return: 0, or -errno with the reason
	 * in @err (no memory cgroup).
	 */
	int (*memcg_reclaim)(struct fl_thread *th, uint64_t bytes, char *err, size_t len);
};

struct fl_target {
	const struct fl_target_ops *ops;
	int nr_cpus;
	/* counters are system-wide: the runner measures an idle interval too */
	bool counters_have_noise;
	/*
	 * the clock a workload counts cycles at, in MHz (0: unknown): on sim
	 * the cost file's clock.mhz, else this host's (/proc/cpuinfo)
	 */
	double clock_mhz;
};

extern const struct fl_target_ops fl__model_target_ops;
extern const struct fl_target_ops fl__host_target_ops;
const struct fl_target_ops *fl__target_find(const char *name);

static inline struct fl_target *fl_thread_target(struct fl_thread *th)
{
	return th->proc->target;
}

/* fl_run_threads() - @n threads of one process */
int fl_run_threads(struct fl_proc *p, int n, void (*fn)(struct fl_thread *th, void *arg),
		   void *arg);

static inline int fl_mmap(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr)
{
	return fl_thread_target(th)->ops->mmap(th, len, prot, flags, addr);
}

static inline int fl_mmap_file(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			       int prot, int flags, uint64_t *addr)
{
	return fl_thread_target(th)->ops->mmap_file(th, f, off, len, prot, flags, addr);
}

static inline int fl_proc_fork(struct fl_thread *th, struct fl_proc **out)
{
	return fl_thread_target(th)->ops->proc_fork(th, out);
}

static inline int fl_munmap(struct fl_thread *th, uint64_t addr, uint64_t len)
{
	return fl_thread_target(th)->ops->munmap(th, addr, len);
}

/**
 * fl_mmap_apart() - map @len bytes (a multiple of 4 KiB) read-write at a
 * 2 MiB-aligned address with unmapped space right below and right above,
 * so that the mapping never merges with a neighbour into one VMA: map
 * @len + 4 MiB, then unmap the head up to the first 2 MiB boundary at
 * least a page in, and the tail after @len.
 * Return: 0 with the address in *@addr, or the first error (nothing left mapped).
 */
static inline int fl_mmap_apart(struct fl_thread *th, uint64_t len, uint64_t *addr)
{
	const uint64_t pmd = 2ull << 20;
	uint64_t a, start, end;
	int ret = fl_mmap(th, len + 2 * pmd, FL_PROT_READ | FL_PROT_WRITE, 0, &a);

	if (ret)
		return ret;
	start = (a + 4096 + pmd - 1) & ~(pmd - 1);
	end = a + len + 2 * pmd;
	ret = fl_munmap(th, a, start - a);
	if (ret) {
		fl_munmap(th, a, end - a);
		return ret;
	}
	ret = fl_munmap(th, start + len, end - start - len);
	if (ret) {
		fl_munmap(th, start, end - start);
		return ret;
	}
	*addr = start;
	return 0;
}

static inline int fl_madvise(struct fl_thread *th, uint64_t addr, uint64_t len, int advice)
{
	return fl_thread_target(th)->ops->madvise(th, addr, len, advice);
}

static inline int fl_thp_sample(struct fl_thread *th, struct fl_thp_sample *out)
{
	return fl_thread_target(th)->ops->thp_sample(th, out);
}

static inline int fl_write(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
			   uint64_t tag, uint64_t tag_step)
{
	return fl_thread_target(th)->ops->write(th, addr, len, stride, tag, tag_step);
}

static inline int fl_read(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
			  uint64_t *tags, uint64_t *sum)
{
	return fl_thread_target(th)->ops->read(th, addr, len, stride, tags, sum);
}

static inline int fl_tmpfs_mount(struct fl_thread *th, const char *options, struct fl_tmpfs **out,
				 char *err, size_t len)
{
	return fl_thread_target(th)->ops->tmpfs_mount(th, options, out, err, len);
}

static inline int fl_tmpfs_umount(struct fl_thread *th, struct fl_tmpfs *m)
{
	return fl_thread_target(th)->ops->tmpfs_umount(th, m);
}

static inline int fl_file_create(struct fl_thread *th, struct fl_tmpfs *m, const char *name,
				 struct fl_file **out)
{
	return fl_thread_target(th)->ops->file_create(th, m, name, out);
}

static inline int fl_file_unlink(struct fl_thread *th, struct fl_file *f)
{
	return fl_thread_target(th)->ops->file_unlink(th, f);
}

static inline int fl_file_close(struct fl_thread *th, struct fl_file *f)
{
	return fl_thread_target(th)->ops->file_close(th, f);
}

static inline int fl_fallocate(struct fl_thread *th, struct fl_file *f, int mode, uint64_t off,
			       uint64_t len)
{
	return fl_thread_target(th)->ops->fallocate(th, f, mode, off, len);
}

static inline int fl_ftruncate(struct fl_thread *th, struct fl_file *f, uint64_t size)
{
	return fl_thread_target(th)->ops->ftruncate(th, f, size);
}

static inline int fl_pwrite_tags(struct fl_thread *th, struct fl_file *f, uint64_t off,
				 uint64_t len, uint64_t tag, uint64_t tag_step)
{
	return fl_thread_target(th)->ops->pwrite_tags(th, f, off, len, tag, tag_step);
}

static inline int fl_pread_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
				uint64_t *tags, uint64_t *sum)
{
	return fl_thread_target(th)->ops->pread_tags(th, f, off, len, tags, sum);
}

static inline int fl_split_huge_pages_file(struct fl_thread *th, struct fl_file *f, uint64_t first,
					   uint64_t end, int new_order, long in_folio_offset,
					   char *err, size_t len)
{
	return fl_thread_target(th)->ops->split_huge_pages_file(th, f, first, end, new_order,
								in_folio_offset, err, len);
}

static inline int fl_split_huge_pages_range(struct fl_thread *th, uint64_t addr, uint64_t len,
					    int new_order, long in_folio_offset, char *err,
					    size_t errlen)
{
	return fl_thread_target(th)->ops->split_huge_pages_range(th, addr, len, new_order,
								 in_folio_offset, err, errlen);
}

static inline int fl_shrinker_count(struct fl_thread *th, const char *name, uint64_t *count,
				    char *err, size_t len)
{
	return fl_thread_target(th)->ops->shrinker_count(th, name, count, err, len);
}

static inline int fl_shrinker_scan(struct fl_thread *th, const char *name, int nid, uint64_t nr,
				   char *err, size_t len)
{
	return fl_thread_target(th)->ops->shrinker_scan(th, name, nid, nr, err, len);
}

static inline int fl_drop_slab(struct fl_thread *th, char *err, size_t len)
{
	return fl_thread_target(th)->ops->drop_slab(th, err, len);
}

static inline int fl_memcg_reclaim(struct fl_thread *th, uint64_t bytes, char *err, size_t len)
{
	return fl_thread_target(th)->ops->memcg_reclaim(th, bytes, err, len);
}

#endif /* FL_TARGET_TARGET_H */
