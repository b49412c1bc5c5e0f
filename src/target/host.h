/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host.h - the pieces of the host target shared by its files: host.c (the
 * target API as real system calls), host_knobs.c (sysfs knobs, the restore
 * file, signal-safe cleanup, `foliolab host restore`) and host_perf.c
 * (perf lock record / contention).
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

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <foliolab/foliolab.h>

#define HOST_THP_PREFIX "transparent_hugepage/"
#define HOST_PATH_MAX 512

/* host_knobs.c */
const char *fl__host_sysfs_root(void);
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
 * in the restore file (written and synced before the first change), then
 * write them. On any failure every knob already written is put back.
 * Context: fl__host_rundir_create() succeeded.
 */
int fl__host_knobs_apply(const struct fl_knobs *k, char *err, size_t len);
/** fl__host_knobs_read() - every THP knob the host has, with its value. */
int fl__host_knobs_read(struct fl_knobs *out);
/** fl__host_knobs_restore() - put back what fl__host_knobs_apply() changed. */
int fl__host_knobs_restore(void);
/*
 * The run folder and the handlers that undo the run on SIGINT, SIGTERM,
 * SIGHUP and on a crash (SIGSEGV, SIGBUS, SIGABRT, ...): restore the
 * knobs, stop perf, remove the folder, then die of the same signal.
 */
int fl__host_rundir_create(char *err, size_t len);
const char *fl__host_rundir(void);
int fl__host_rundir_remove(void);
void fl__host_set_perf_pid(pid_t pid);
/* in a forked child of the run: the handlers must not undo the run */
void fl__host_forget_in_child(void);

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

#endif /* FL_TARGET_HOST_H */
