/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host.h - the pieces of the host target shared by its files: host.c (the
 * target API's setup, counters and results), host_proc.c (forked processes
 * and threads), host_mem.c (a process's mappings, loads and stores),
 * host_files.c (a tmpfs of the run's own, its files, debugfs's split),
 * host_rundir.c (the run folder, the restore file, signal-safe undo,
 * `foliolab host restore`), host_knobs.c (sysfs knobs), host_scope.c (the
 * workload's own counts: perf events, tracefs, a memory cgroup) and
 * host_perf.c (perf lock record / contention).
 *
 * Every file a host run creates lives in its run folder, <base>/<pid>,
 * where <base> is $FOLIOLAB_RUNDIR, else /run/foliolab for root (a tmpfs
 * that a reboot clears together with the knobs), else
 * $TMPDIR/foliolab-<uid>. The folder is removed when the run ends; only a
 * run killed by SIGKILL leaves it, with its restore file.
 *
 * Conventions in this file: a knob "name" is the sysfs-style name the
 * model uses ("transparent_hugepage/hugepages-16kB/enabled"); its "path"
 * is the file under $FOLIOLAB_HOST_SYSFS (default
 * /sys/kernel/mm/transparent_hugepage).
 */
#ifndef FL_TARGET_HOST_H
#define FL_TARGET_HOST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <foliolab/foliolab.h>
#include "target.h"

#define HOST_THP_PREFIX "transparent_hugepage/"
#define HOST_VM_PREFIX "vm/"
#define HOST_PATH_MAX 512

/* host_rundir.c: the run folder and everything a run changes, with its undo */
enum {
	HOST_UNDO_KNOB,
	HOST_UNDO_MOUNT,
	HOST_UNDO_CGROUP,
	HOST_UNDO_SUBTREE,
	HOST_UNDO_SWAP,
	HOST_UNDO_NR
};
struct fl__host_change {
	int kind;	  /* HOST_UNDO_* */
	const char *path; /* the knob file, mount point or cgroup folder */
	const char *old;  /* knob: its old value; cgroup: the cgroup.procs to go back to */
};
/*
 * The run folder and the handlers that undo the run on SIGINT, SIGTERM,
 * SIGHUP and on a crash (SIGSEGV, SIGBUS, SIGABRT, ...): undo every
 * change, stop perf, remove the folder, then die of the same signal.
 */
int fl__host_rundir_create(char *err, size_t len);
const char *fl__host_rundir(void);
/** fl__host_rundir_remove() - undo what is left, remove the folder. Return: 0 or -EIO. */
int fl__host_rundir_remove(void);
/*
 * The changes whose owners put them back (knobs: host_knobs.c; swap:
 * host_swap.c) register how: @undo, async-signal-safe, as the run that
 * made the change (its own undo log, also from a signal's handler);
 * @restore, a line a killed run left (`foliolab host restore`): it checks
 * that the line names what a run may have changed, puts it back and says
 * so on @out. Return of each: 0, or -1 / -errno. @tag is the restore
 * file's first field ("swap"), NULL for a knob (the line is its path).
 */
struct fl__host_undo_ops {
	const char *tag;
	int (*undo)(const char *path, const char *old);
	int (*restore)(const char *path, const char *old, const char *pidname, FILE *out);
};
void fl__host_undo_register(int kind, const struct fl__host_undo_ops *ops);
/* host_knobs.c, host_swap.c: register theirs; host.c calls both before anything is undone */
void fl__host_knobs_register(void);
void fl__host_swap_register(void);
/* host_rundir.c: every left-behind restore file applied (fl_host_restore()) */
int fl__host_restore_all(FILE *out, char *err, size_t len);
/**
 * fl__host_undo_record() - write @n changes to the restore file (synced)
 * before they are made.
 * Context: fl__host_rundir_create() succeeded.
 * Return: 0, or -errno with nothing recorded (message in @err).
 */
int fl__host_undo_record(const struct fl__host_change *c, int n, char *err, size_t len);
/** fl__host_undo() - undo the recorded changes of @kind (at @path, or all). */
int fl__host_undo(int kind, const char *path);
bool fl__host_undo_pending(int kind, const char *path);
/**
 * fl__host_other_runs() - a killed run left the host changed (always an
 * error), or, when this run is @changing knobs, a live one has.
 * Return: 0 or -EBUSY with the reason in @err.
 */
int fl__host_other_runs(bool changing, char *err, size_t len);
void fl__host_set_perf_pid(pid_t pid);
/* the run's forked processes, which the handler kills before leaving its cgroup */
void fl__host_child_add(pid_t pid);
void fl__host_child_forget(pid_t pid);
/* in a forked child of the run: the handlers must not undo the run */
void fl__host_forget_in_child(void);
/* async-signal-safe: write @value to @path as the shell's > does. Return: 0 or -errno. */
int fl__host_write_file(const char *path, const char *value);
void fl__host_trim(char *s);
/* host.c: the number at the start of a one-line file (a sysfs counter). Return: 0 or -errno. */
int fl__host_read_counter(const char *path, int64_t *v);
/*
 * host_swap.c: --swap zram:SIZE. check() changes nothing (no zram0, zram0
 * or other swap in use, no root: -errno and why in @err); setup() records
 * the undo, sizes zram0, writes its swap header and swaps on it; undo()
 * (async-signal-safe) swaps off @dev and resets its disk through @reset.
 */
int fl__host_swap_check(uint64_t bytes, char *err, size_t len);
int fl__host_swap_setup(uint64_t bytes, char *err, size_t len);
int fl__host_zram_counters(struct fl_counters *out);
/* is @path a mount point of type @type (any type if NULL)? */
bool fl__host_is_mount(const char *path, const char *type);

/* host_knobs.c */
const char *fl__host_sysfs_root(void);
/* is @path one of the vm sysctls a run may set (/proc/sys/vm/<knob table name>)? */
bool fl__host_is_vm_knob_path(const char *path);
/**
 * fl__host_knob_read() - the value in force of the knob file at @path: the
 * bracketed word of "always [madvise] never", else the trimmed contents.
 * Return: 0 or -errno.
 */
int fl__host_knob_read(const char *path, char *val, size_t len);
/**
 * fl__host_knobs_check() - can this process set @k on the host? Checks
 * names, values against the words each file offers, permission, and that
 * no other run holds or left changed knobs. Changes nothing.
 * Return: 0, -EINVAL (bad name or value, message in @err), -EPERM, -EBUSY.
 */
int fl__host_knobs_check(const struct fl_knobs *k, char *err, size_t len);
/**
 * fl__host_knobs_apply() - record the old value of every knob @k changes
 * for undo (the restore file is synced before the first change), then
 * write them. On any failure every knob already written is put back.
 * Context: fl__host_rundir_create() succeeded.
 */
int fl__host_knobs_apply(const struct fl_knobs *k, char *err, size_t len);
/** fl__host_knobs_read() - every THP knob the host has, with its value. */
int fl__host_knobs_read(struct fl_knobs *out);
/** fl__host_knobs_restore() - put back what fl__host_knobs_apply() changed. */
int fl__host_knobs_restore(void);

/* host_files.c: a tmpfs in the run folder, its files, debugfs's split_huge_pages */
int fl__host_tmpfs_mount(struct fl_thread *th, const char *options, struct fl_tmpfs **out,
			 char *err, size_t len);
int fl__host_tmpfs_umount(struct fl_thread *th, struct fl_tmpfs *m);
int fl__host_file_create(struct fl_thread *th, struct fl_tmpfs *m, const char *name,
			 struct fl_file **out);
int fl__host_file_unlink(struct fl_thread *th, struct fl_file *f);
int fl__host_file_close(struct fl_thread *th, struct fl_file *f);
int fl__host_fallocate(struct fl_thread *th, struct fl_file *f, int mode, uint64_t off,
		       uint64_t len);
int fl__host_ftruncate(struct fl_thread *th, struct fl_file *f, uint64_t size);
int fl__host_pwrite_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			 uint64_t tag, uint64_t tag_step);
int fl__host_pread_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			uint64_t *tags, uint64_t *sum);
int fl__host_split_huge_pages_file(struct fl_thread *th, struct fl_file *f, uint64_t first,
				   uint64_t end, int new_order, long in_folio_offset, char *err,
				   size_t len);
int fl__host_split_huge_pages_range(struct fl_thread *th, uint64_t addr, uint64_t len,
				    int new_order, long in_folio_offset, char *err, size_t errlen);
int fl__host_shrinker_count(struct fl_thread *th, const char *name, uint64_t *count, char *err,
			    size_t len);
int fl__host_shrinker_scan(struct fl_thread *th, const char *name, int nid, uint64_t nr, char *err,
			   size_t len);
int fl__host_drop_slab(struct fl_thread *th, char *err, size_t len);

/* host_mem.c: a process's mappings, recorded so stray accesses are refused */
#define HOST_MAX_MAPPINGS 4096
struct host_mapping {
	uint64_t addr;
	uint64_t len;
	int prot;
};
struct host_maps {
	pthread_mutex_t lock;
	struct host_mapping v[HOST_MAX_MAPPINGS]; /* lock */
	int nr;					  /* lock */
};
void fl__host_maps_init(struct host_maps *m);
/* forget the record; with @unmap, unmap what it still holds */
void fl__host_maps_destroy(struct host_maps *m, bool unmap);
int fl__host_mem_mmap(struct host_maps *m, uint64_t len, int prot, int flags, uint64_t *addr);
int fl__host_mem_mmap_fd(struct host_maps *m, uint64_t len, int prot, int flags, int fd,
			 uint64_t off, uint64_t *addr);
int fl__host_mmap_file(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
		       int prot, int flags, uint64_t *addr);
int fl__host_file_fd(const struct fl_file *f);
int fl__host_mem_munmap(struct host_maps *m, uint64_t addr, uint64_t len);
int fl__host_mem_madvise(struct host_maps *m, uint64_t addr, uint64_t len, int advice);
int fl__host_mem_write(struct host_maps *m, uint64_t addr, uint64_t len, uint64_t stride,
		       uint64_t tag, uint64_t tag_step);
int fl__host_mem_read(struct host_maps *m, uint64_t addr, uint64_t len, uint64_t stride,
		      uint64_t *tags, uint64_t *sum);

/* host_perf.c */
struct host_perf {
	pid_t pid;  /* the perf lock record process, 0 if none */
	int ctl_fd; /* --control fifo, our end */
	int ack_fd; /* its acknowledgements */
	char dir[HOST_PATH_MAX];
};

/**
 * fl__perf_lock_start() - start `perf lock record` on process @target with
 * events enabled only once it is ready to record.
 * Return: 0; or -errno with the reason in @note (no perf, no permission,
 * no tracefs), in which case the run goes on without a lock table.
 */
int fl__perf_lock_start(struct host_perf *hp, const char *dir, pid_t target, char *note,
			size_t len);
/**
 * fl__perf_lock_stop() - stop recording, run `perf lock contention` on the
 * data and fold its rows into @out, keyed by kernel caller.
 */
int fl__perf_lock_stop(struct host_perf *hp, struct fl_locks *out, char *note, size_t len);
/** fl__perf_fold_line() - add one line of perf lock contention output to @out. */
int fl__perf_fold_line(const char *line, struct fl_locks *out);

/* host_scope.c: the workload's own counts */
struct host_scope;
/**
 * fl__host_scope_open() - perf counters on this process and its future
 * children, and a memory cgroup of the run's own, as far as the host
 * allows; what it does not allow is said in @note. @files: the workload
 * allocates file folios, so large movable allocations are not counted as
 * its anon faults (those stay system-wide).
 * Return: 0 (*@out may be NULL: nothing could be scoped) or -ENOMEM.
 */
int fl__host_scope_open(struct host_scope **out, bool files, bool khugepaged, char *note,
			size_t len);

/*
 * khugepaged's scan results as the tracepoint huge_memory:mm_khugepaged_scan_pmd
 * names them: the { value, "string" } pairs of its format's
 * __print_symbolic(REC->status, ...).
 * fl__scan_symbols_parse() - @format's pairs into @out. Return: 0, or
 * -EINVAL if it has none.
 */
#define FL_SCAN_SYMBOLS_MAX 64
#define FL_SCAN_NAME_MAX 32
struct fl_scan_symbols {
	int nr;
	int val[FL_SCAN_SYMBOLS_MAX];
	char name[FL_SCAN_SYMBOLS_MAX][FL_SCAN_NAME_MAX];
};
int fl__scan_symbols_parse(const char *format, struct fl_scan_symbols *out);
/* count (or stop counting, while the run starts a helper of its own) */
void fl__host_scope_enable(struct host_scope *hsc, bool on);
/** fl__host_scope_read() - overlay the workload's counts on @out's system-wide ones. */
int fl__host_scope_read(struct host_scope *hsc, struct fl_counters *out);
void fl__host_scope_close(struct host_scope *hsc);
int fl__memcg_files_parse(FILE *stat, FILE *events, bool v2, struct fl_counters *out);
int fl__host_memcg_reclaim(struct fl_thread *th, uint64_t bytes, char *err, size_t len);
int fl__host_scope_reclaim(struct host_scope *hsc, uint64_t bytes, char *err, size_t len);
int fl__host_memcg_check(uint64_t max, uint64_t high, char *err, size_t len);
int fl__host_scope_limit(struct host_scope *hsc, uint64_t max, uint64_t high, const char *why,
			 char *err, size_t len);
int fl__memcg_v2_place(const char *mnt, const char *self, char *parent, size_t plen, char *origin,
		       size_t olen, bool *enable, char *why, size_t wlen);
int fl__memcg_stat_parse(FILE *f, bool v2, bool tracepoints, struct fl_counters *out);
/**
 * fl__host_tracefs_mount() - where tracefs is mounted, in @at; mounts it on
 * /sys/kernel/tracing (recorded for undo) when the host has not.
 * Return: 0, or -errno with the reason in @err.
 */
int fl__host_tracefs_mount(char *at, size_t len, char *err, size_t elen);
/* unmount tracefs if this run mounted it */
int fl__host_tracefs_unmount(void);

/*
 * host_proc.c: one step of the run's process machinery, as the log that
 * fl__host_machinery() replays keeps it: a process made (from the zygote,
 * or this process itself), forked, given threads to run, or ended.
 */
enum { HOST_STEP_CREATE, HOST_STEP_FORK, HOST_STEP_RUN, HOST_STEP_EXIT };
struct host_step {
	unsigned char op; /* HOST_STEP_* */
	bool local;	  /* CREATE: the process is this one (the runner) */
	short proc;	  /* the process's id (host_proc.id) */
	short from;	  /* FORK: the id of the process forked */
	short nr;	  /* RUN: threads in this process */
	int batch;	  /* RUN: the run_tasks() call, the same for its processes */
};
#define HOST_MAX_STEPS 512
#define HOST_MAX_PROCS 1024

/* host.c: the shared arena (shared_alloc()), made and filled at open */
#define SHARED_ARENA (4u << 20)

/* host.c: the target */
struct host_target {
	struct fl_target base;
	struct fl_target_config cfg;
	bool self_in_use;	    /* this process is one of the workload's processes */
	struct host_maps self_maps; /* its record of mappings then */
	/*
	 * host_proc.c: the zygote every further workload process is forked
	 * from (NULL: none, every process forks from this one), and the log
	 * of the run's process steps; steps_lost when it overflowed
	 */
	struct host_proc *zygote;
	struct host_step steps[HOST_MAX_STEPS];
	int nr_steps;
	int nr_ids; /* process ids handed out */
	int nr_batches;
	bool steps_lost;
	bool replaying; /* fl__host_machinery() runs the steps: log nothing */
	struct host_perf perf;
	bool recording;
	char locks_note[160];
	unsigned char *arena;
	size_t arena_used;
	pthread_mutex_t arena_lock;
	struct host_scope *scope; /* the workload's own counters, NULL if none */
	char scope_note[200];	  /* which counters stay system-wide, and why */
};

/* host_proc.c: the target API's processes, threads and calls */
int fl__host_nr_cpus_online(void);
int fl__host_proc_create(struct fl_target *t, struct fl_proc **out);
int fl__host_proc_exit(struct fl_proc *p);
int fl__host_proc_fork(struct fl_thread *th, struct fl_proc **out);
int fl__host_thp_sample(struct fl_thread *th, struct fl_thp_sample *out);
int fl__proc_stat_cpu_ticks(const char *text, long long *ticks);
int fl__host_khugepaged_ns(int64_t *ns);
struct fl_thread *fl__host_proc_main(struct fl_proc *p);
int fl__host_run_tasks(struct fl_target *t, struct fl_proc **procs, int n,
		       void (*fn)(struct fl_thread *th, void *arg), void *arg);
/**
 * fl__host_zygote_start() - fork the zygote that the workload's processes
 * after the first are forked from, let it fork once, and take this
 * process's own copy of every page it shares with it, so that nothing this
 * process writes in the run is copied on write.
 * Context: after the scope is open (the zygote and its forks are counted),
 * before the run's first counters.
 * Return: 0 or -errno (then processes fork from this one, as without it).
 */
int fl__host_zygote_start(struct fl_target *t);
void fl__host_zygote_stop(struct fl_target *t);
/* map every page of this process's code and read-only file data now */
void fl__host_map_text(void);
/**
 * fl__host_machinery() - the counts of the run's process machinery: its
 * logged steps (processes made and forked from the zygote, threads
 * started in them, exits) run again with no workload in them, counted as
 * the run is. Empty when the run made no process but this one.
 * Return: 0, or -errno (-E2BIG when the log overflowed).
 */
int fl__host_machinery(struct fl_target *t, struct fl_counters *out, int *nr_steps);
int fl__host_mmap(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr);
int fl__host_munmap(struct fl_thread *th, uint64_t addr, uint64_t len);
int fl__host_madvise(struct fl_thread *th, uint64_t addr, uint64_t len, int advice);
int fl__host_write(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride, uint64_t tag,
		   uint64_t tag_step);
int fl__host_read(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		  uint64_t *tags, uint64_t *sum);

#endif /* FL_TARGET_HOST_H */
