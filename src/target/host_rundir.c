// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_rundir.c - what a host run changes on the machine, and how it is put
 * back: a THP knob (its old value), a tracefs mount (to unmount), a memory
 * cgroup of the run's own (to leave and remove), swap on zram0 (to swap off
 * and reset). A knob and the swap are put back by what their owners
 * register (fl__host_undo_register(): host_knobs.c, host_swap.c); this
 * file calls no other host file. Each change is first
 * written to the run's restore file (complete and synced before the
 * change), undone when the run ends, also from the handlers of SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT and of crashes, and `foliolab host restore`
 * undoes what a SIGKILLed run left behind.
 *
 * The run folder is <base>/<pid>, where <base> is $FOLIOLAB_RUNDIR, else
 * /run/foliolab for root (a tmpfs that a reboot clears together with the
 * knobs, mounts and cgroups), else $TMPDIR/foliolab-<uid>. It holds the
 * restore file and perf's files, and is removed when the run ends.
 *
 * Restore file format, one change per line after a header:
 *   # foliolab host restore file: what this run changed, to put back
 *   pid <pid of the run>
 *   <absolute path of a knob file> TAB <old value>
 *   mount TAB <mount point>
 *   cgroup TAB <cgroup folder> TAB <cgroup.procs of the cgroup the run left>
 *   swap TAB /dev/zram<N> TAB <its /sys/block/zram<N>/reset> (to swap off and reset)
 *
 * Conventions in this file: "hs" is the one host run of this process; the
 * signal handler touches only hs and async-signal-safe calls (open, write,
 * close, unlink, rmdir, umount2, kill, waitpid, raise).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "host.h"

/* files a run may create in its folder, removed by name (also from a signal) */
static const char *const run_files[] = {
	"restore", "restore.tmp", "perf.data",	     "perf.data.old",
	"ctl",	   "ack",	  "perf-record.log", "contention.txt",
};
#define NR_RUN_FILES (sizeof(run_files) / sizeof(run_files[0]))

static const int undo_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
				    SIGBUS, SIGFPE,  SIGILL, SIGABRT };
#define NR_UNDO_SIGNALS (sizeof(undo_signals) / sizeof(undo_signals[0]))

#define MAX_UNDO (FL_MAX_KNOBS + 4)
#define MAX_CHILDREN 1024

struct undo {
	int kind; /* HOST_UNDO_* */
	char path[HOST_PATH_MAX];
	char old[HOST_PATH_MAX]; /* knob: old value; cgroup: the cgroup.procs to go back to */
};

/* run folder names stay short, so every path built from them fits */
#define RUN_BASE_MAX 256

static struct {
	pid_t owner; /* the process that owns the run folder; 0: none */
	char base[RUN_BASE_MAX];
	char dir[RUN_BASE_MAX + 24];
	char files[NR_RUN_FILES][RUN_BASE_MAX + 48];
	struct undo undo[MAX_UNDO];
	volatile sig_atomic_t nr_undo;
	volatile pid_t perf_pid;
	volatile pid_t children[MAX_CHILDREN]; /* forked workload processes, 0: free slot */
	struct sigaction old_act[NR_UNDO_SIGNALS];
	bool handlers;
} hs;

/* how the registered kinds are put back (fl__host_undo_register()) */
static const struct fl__host_undo_ops *undo_ops[HOST_UNDO_NR];

void fl__host_undo_register(int kind, const struct fl__host_undo_ops *ops)
{
	undo_ops[kind] = ops;
}

static void run_base(char *buf, size_t len)
{
	const char *r = getenv("FOLIOLAB_RUNDIR");
	const char *tmp = getenv("TMPDIR");

	if (r && *r)
		snprintf(buf, len, "%s", r);
	else if (geteuid() == 0)
		snprintf(buf, len, "/run/foliolab");
	else
		snprintf(buf, len, "%s/foliolab-%u", tmp && *tmp ? tmp : "/tmp",
			 (unsigned)geteuid());
}

void fl__host_trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	memmove(s, p, strlen(p) + 1);
}

int fl__host_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC); /* as the shell's > does */
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	return close(fd) ? -errno : 0;
}

/* The restore file, complete on disk before the change it records is made. */
static int write_restore_file(void)
{
	FILE *f;
	int i;

	if (!hs.nr_undo) {
		unlink(hs.files[0]);
		return 0;
	}
	f = fopen(hs.files[1], "w");
	if (!f)
		return -errno;
	fprintf(f, "# foliolab host restore file: what this run changed, to put back\npid %ld\n",
		(long)getpid());
	for (i = 0; i < hs.nr_undo; i++) {
		const struct undo *u = &hs.undo[i];

		if (undo_ops[u->kind] && undo_ops[u->kind]->tag)
			fprintf(f, "%s\t%s\t%s\n", undo_ops[u->kind]->tag, u->path, u->old);
		else if (u->kind == HOST_UNDO_KNOB)
			fprintf(f, "%s\t%s\n", u->path, u->old);
		else if (u->kind == HOST_UNDO_MOUNT)
			fprintf(f, "mount\t%s\n", u->path);
		else if (u->kind == HOST_UNDO_SUBTREE)
			fprintf(f, "subtree\t%s\t%s\n", u->path, u->old);
		else
			fprintf(f, "cgroup\t%s\t%s\n", u->path, u->old);
	}
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		unlink(hs.files[1]);
		return -EIO;
	}
	return rename(hs.files[1], hs.files[0]) ? -errno : 0;
}

int fl__host_undo_record(const struct fl__host_change *c, int n, char *err, size_t len)
{
	int i, ret, nr = hs.nr_undo;

	if (!hs.owner) {
		snprintf(err, len, "no run folder for the restore file");
		return -EINVAL;
	}
	if (nr + n > MAX_UNDO) {
		snprintf(err, len, "too many changes to the host in one run");
		return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		struct undo *u = &hs.undo[nr + i];

		u->kind = c[i].kind;
		snprintf(u->path, sizeof(u->path), "%s", c[i].path);
		snprintf(u->old, sizeof(u->old), "%s", c[i].old ? c[i].old : "");
	}
	hs.nr_undo = nr + n;
	ret = write_restore_file();
	if (ret) {
		hs.nr_undo = nr;
		snprintf(err, len, "cannot write the restore file %s (%s); nothing was changed",
			 hs.files[0], strerror(-ret));
	}
	return ret;
}

/* async-signal-safe: kill the run's forked processes and reap them */
static void kill_children(void)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		pid_t pid = hs.children[i];

		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			hs.children[i] = 0;
		}
	}
}

/*
 * async-signal-safe: the processes still in the run's cgroup @dir (the
 * servers the zygote forked are not ours to reap: killed with it, they
 * leave a moment later) killed and waited for, at most 2 s
 */
static void cgroup_drain(const char *dir)
{
	char path[HOST_PATH_MAX + 16], buf[4096];
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };
	size_t n = strlen(dir);
	int tries;

	if (n + sizeof("/cgroup.procs") > sizeof(path))
		return;
	memcpy(path, dir, n);
	memcpy(path + n, "/cgroup.procs", sizeof("/cgroup.procs"));
	for (tries = 0; tries < 200; tries++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
		ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		char *p;

		if (fd >= 0)
			close(fd);
		if (len <= 0)
			return;
		buf[len] = '\0';
		for (p = buf; *p;) {
			long pid = 0;

			while (*p >= '0' && *p <= '9')
				pid = pid * 10 + (*p++ - '0');
			while (*p && (*p < '0' || *p > '9'))
				p++;
			if (pid > 1 && (pid_t)pid != getpid()) {
				kill((pid_t)pid, SIGKILL);
				found = 1;
			}
		}
		if (!found)
			return;
		nanosleep(&ms10, NULL);
	}
}

/* async-signal-safe: undo one change, as the running process. Return: 0 or -errno. */
static int undo_one(const struct undo *u)
{
	if (undo_ops[u->kind])
		return undo_ops[u->kind]->undo(u->path, u->old);
	switch (u->kind) {
	case HOST_UNDO_MOUNT:
		if (umount2(u->path, 0) && errno != EINVAL && umount2(u->path, MNT_DETACH))
			return -errno; /* EINVAL: no longer a mount point */
		/* a mount point the run made in its folder goes with the mount */
		if (!strncmp(u->path, hs.dir, strlen(hs.dir)) && u->path[strlen(hs.dir)] == '/')
			rmdir(u->path);
		return 0;
	case HOST_UNDO_CGROUP:
		/* "0": this process; its forked ones must go before the folder can */
		kill_children();
		if (u->old[0])
			fl__host_write_file(u->old, "0");
		cgroup_drain(u->path);
		return rmdir(u->path) && errno != ENOENT ? -errno : 0;
	case HOST_UNDO_SUBTREE: {
		/* the controller this run enabled in a cgroup.subtree_control */
		char off[64] = "-";
		size_t i;

		for (i = 0; u->old[i] && i < sizeof(off) - 2; i++) /* a controller's name */
			off[i + 1] = u->old[i];
		off[i + 1] = '\0';
		return fl__host_write_file(u->path, off);
	}
	}
	return -EINVAL;
}

/* async-signal-safe: undo every change, newest first; 0 when all went back */
static int undo_all(void)
{
	int i, bad = 0;

	for (i = hs.nr_undo - 1; i >= 0; i--)
		bad |= undo_one(&hs.undo[i]) != 0;
	return bad;
}

int fl__host_undo(int kind, const char *path)
{
	int i, ret = 0;

	for (i = hs.nr_undo - 1; i >= 0; i--) {
		if (hs.undo[i].kind != kind || (path && strcmp(hs.undo[i].path, path)))
			continue;
		ret = undo_one(&hs.undo[i]);
		if (ret)
			return ret;
		memmove(&hs.undo[i], &hs.undo[i + 1],
			(size_t)(hs.nr_undo - i - 1) * sizeof(hs.undo[0]));
		hs.nr_undo = hs.nr_undo - 1;
	}
	return write_restore_file();
}

bool fl__host_undo_pending(int kind, const char *path)
{
	int i;

	for (i = 0; i < hs.nr_undo; i++)
		if (hs.undo[i].kind == kind && (!path || !strcmp(hs.undo[i].path, path)))
			return true;
	return false;
}

void fl__host_child_add(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!hs.children[i]) {
			hs.children[i] = pid;
			return;
		}
	}
}

void fl__host_child_forget(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (hs.children[i] == pid)
			hs.children[i] = 0;
}

/* Another run's folder: alive and changing things (busy) or dead with changes left (stale). */
int fl__host_other_runs(bool changing, char *err, size_t len)
{
	char base[RUN_BASE_MAX], path[RUN_BASE_MAX + 280];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	run_base(base, sizeof(base));
	d = opendir(base);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		snprintf(path, sizeof(path), "%s/%s/restore", base, de->d_name);
		if (access(path, F_OK))
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
			if (!changing)
				continue;
			snprintf(err, len,
				 "another foliolab host run (pid %ld) has changed knobs; wait for "
				 "it to end",
				 pid);
		} else {
			snprintf(err, len,
				 "a foliolab host run (pid %ld) was killed with the host changed; "
				 "run 'foliolab host restore' first",
				 pid);
		}
		ret = -EBUSY;
	}
	closedir(d);
	return ret;
}

static void remove_run_files(void)
{
	size_t i;

	for (i = 0; i < NR_RUN_FILES; i++)
		if (i != 0 || !hs.nr_undo)
			unlink(hs.files[i]);
	rmdir(hs.dir);
	rmdir(hs.base);
}

static void undo_handler(int sig)
{
	int saved_errno = errno;
	size_t i;

	if (hs.owner == getpid()) {
		pid_t perf = hs.perf_pid;

		if (perf > 0)
			kill(perf, SIGTERM);
		if (!undo_all())
			hs.nr_undo = 0;
		remove_run_files();
		hs.owner = 0;
	}
	errno = saved_errno;
	/*
	 * then whatever handled @sig before the run (the output files'
	 * temporaries: outfile.c), which dies of it; with none,
	 * SA_RESETHAND put the default action back: die of the same signal
	 */
	for (i = 0; i < NR_UNDO_SIGNALS; i++) {
		const struct sigaction *old = &hs.old_act[i];

		if (undo_signals[i] == sig && !(old->sa_flags & SA_SIGINFO) &&
		    old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
			old->sa_handler(sig);
	}
	raise(sig);
}

static void install_handlers(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = undo_handler;
	sa.sa_flags = (int)SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < NR_UNDO_SIGNALS; i++) {
		/*
		 * a signal the caller ignores stays ignored (nohup's SIGHUP, a
		 * background job's SIGINT): the run goes on and undoes its
		 * changes at its end, as outfile.c leaves its temporaries to
		 */
		if (!sigaction(undo_signals[i], NULL, &hs.old_act[i]) &&
		    hs.old_act[i].sa_handler == SIG_IGN && !(hs.old_act[i].sa_flags & SA_SIGINFO))
			continue;
		sigaction(undo_signals[i], &sa, &hs.old_act[i]);
	}
	hs.handlers = true;
}

int fl__host_rundir_create(char *err, size_t len)
{
	size_t i;

	if (hs.owner) {
		snprintf(err, len, "a host run is already open in this process");
		return -EBUSY;
	}
	run_base(hs.base, sizeof(hs.base));
	if (strlen(hs.base) >= RUN_BASE_MAX - 1) {
		snprintf(err, len, "the run folder's parent is too long a path (%.40s...)",
			 hs.base);
		return -ENAMETOOLONG;
	}
	if (mkdir(hs.base, 0700) && errno != EEXIST) {
		snprintf(err, len, "cannot create %s: %s", hs.base, strerror(errno));
		return -errno;
	}
	snprintf(hs.dir, sizeof(hs.dir), "%s/%ld", hs.base, (long)getpid());
	if (mkdir(hs.dir, 0700)) {
		snprintf(err, len, "cannot create the run folder %s: %s", hs.dir, strerror(errno));
		rmdir(hs.base);
		return -errno;
	}
	for (i = 0; i < NR_RUN_FILES; i++)
		snprintf(hs.files[i], sizeof(hs.files[i]), "%s/%s", hs.dir, run_files[i]);
	hs.nr_undo = 0;
	hs.perf_pid = 0;
	memset((void *)hs.children, 0, sizeof(hs.children));
	hs.owner = getpid();
	install_handlers();
	return 0;
}

const char *fl__host_rundir(void)
{
	return hs.dir;
}

void fl__host_set_perf_pid(pid_t pid)
{
	hs.perf_pid = pid;
}

int fl__host_rundir_remove(void)
{
	size_t i;
	int ret = 0;

	if (!hs.owner)
		return 0;
	if (hs.nr_undo && undo_all()) {
		fprintf(stderr,
			"foliolab: could not put back everything this run changed; the restore "
			"file %s stays for 'foliolab host restore'\n",
			hs.files[0]);
		ret = -EIO;
	} else {
		hs.nr_undo = 0;
	}
	if (hs.handlers) {
		for (i = 0; i < NR_UNDO_SIGNALS; i++)
			sigaction(undo_signals[i], &hs.old_act[i], NULL);
		hs.handlers = false;
	}
	remove_run_files();
	hs.owner = 0;
	return ret;
}

void fl__host_forget_in_child(void)
{
	size_t i;

	/* hs.owner stays the parent's pid, so the handler does nothing here */
	for (i = 0; i < NR_UNDO_SIGNALS; i++)
		signal(undo_signals[i], SIG_DFL);
}

/* Is @path a mount point of a file system of @type (from /proc/mounts)? */
bool fl__host_is_mount(const char *path, const char *type)
{
	char line[1024], dev[256], mnt[512], fs[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%255s %511s %63s", dev, mnt, fs) == 3 && !strcmp(mnt, path) &&
			(!type || !strcmp(fs, type));
	fclose(f);
	return found;
}

/* Is @path inside a mounted cgroup or cgroup2 file system? */
static bool in_cgroupfs(const char *path)
{
	char line[1024], dev[256], mnt[512], fs[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%255s %511s %63s", dev, mnt, fs) != 3 ||
		    (strcmp(fs, "cgroup") && strcmp(fs, "cgroup2")))
			continue;
		n = strlen(mnt);
		found = !strncmp(path, mnt, n) && path[n] == '/';
	}
	fclose(f);
	return found;
}

/*
 * Undo one line of a left-behind restore file. Only what a run could have
 * changed is touched: a knob file under the sysfs folder or a vm sysctl of
 * the knob table, a tracefs mount,
 * debugfs at /sys/kernel/debug, a tmpfs mounted in the run's own folder,
 * a cgroup folder named foliolab-<pid>. Return: 0 when it is back.
 */
/*
 * The processes a killed run left in its cgroup: its zygote and servers die
 * with the run (PR_SET_PDEATHSIG) but not at once. Killed, and waited for
 * (at most 5 s), so that the cgroup can go.
 */
static void cgroup_empty(const char *dir)
{
	char path[HOST_PATH_MAX + 16];
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };
	long pid;
	int tries, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	for (tries = 0; tries < 500; tries++) {
		f = fopen(path, "r");
		if (!f)
			return;
		for (n = 0; fscanf(f, "%ld", &pid) == 1; n++)
			if (pid > 1 && (pid_t)pid != getpid())
				kill((pid_t)pid, SIGKILL);
		fclose(f);
		if (!n)
			return;
		nanosleep(&ms10, NULL);
	}
}

static int restore_line(char *line, const char *pidname, FILE *out)
{
	char *tab = strchr(line, '\t'), *arg, *more;
	int k;

	if (line[0] == '#' || !tab)
		return 0;
	*tab = '\0';
	arg = tab + 1;
	arg[strcspn(arg, "\n")] = '\0';
	more = strchr(arg, '\t');
	if (more)
		*more++ = '\0';
	if (!strcmp(line, "mount")) {
		char base[RUN_BASE_MAX], dir[RUN_BASE_MAX + 80];
		bool in_dir;

		run_base(base, sizeof(base));
		snprintf(dir, sizeof(dir), "%s/%s/", base, pidname);
		in_dir = !strncmp(arg, dir, strlen(dir)) && !strstr(arg, "..");
		if (!fl__host_is_mount(arg, "tracefs") &&
		    !(fl__host_is_mount(arg, "debugfs") && !strcmp(arg, "/sys/kernel/debug")) &&
		    !(in_dir && fl__host_is_mount(arg, "tmpfs"))) {
			if (in_dir)
				rmdir(arg);
			fprintf(out, "%s is not mounted any more (run %s)\n", arg, pidname);
			return 0;
		}
		if (umount2(arg, 0) && umount2(arg, MNT_DETACH)) {
			fprintf(out, "could not unmount %s: %s\n", arg, strerror(errno));
			return -1;
		}
		if (in_dir)
			rmdir(arg);
		fprintf(out, "unmounted %s (run %s)\n", arg, pidname);
		return 0;
	}
	if (!strcmp(line, "cgroup")) {
		const char *slash = strrchr(arg, '/');

		if (!slash || strncmp(slash + 1, "foliolab-", 9) || strstr(arg, "..") ||
		    !in_cgroupfs(arg)) {
			fprintf(out, "skipped %s: not a foliolab cgroup\n", arg);
			return -1;
		}
		cgroup_empty(arg);
		if (rmdir(arg) && errno != ENOENT) {
			fprintf(out, "could not remove the cgroup %s: %s\n", arg, strerror(errno));
			return -1;
		}
		fprintf(out, "removed the cgroup %s (run %s)\n", arg, pidname);
		return 0;
	}
	if (!strcmp(line, "subtree")) {
		char off[64] = "-";
		const char *slash = strrchr(arg, '/');

		/* only memory, only in a cgroup.subtree_control of a cgroup file system */
		if (!more || strcmp(more, "memory") || !slash ||
		    strcmp(slash + 1, "cgroup.subtree_control") || strstr(arg, "..") ||
		    !in_cgroupfs(arg)) {
			fprintf(out, "skipped %s: not a cgroup.subtree_control a run changed\n",
				arg);
			return -1;
		}
		strncat(off, more, sizeof(off) - 2);
		if (fl__host_write_file(arg, off)) {
			fprintf(out, "could not disable %s in %s: %s\n", more, arg,
				strerror(errno));
			return -1;
		}
		fprintf(out, "disabled %s in %s again (run %s)\n", more, arg, pidname);
		return 0;
	}
	for (k = 0; k < HOST_UNDO_NR; k++)
		if (undo_ops[k] && undo_ops[k]->tag && !strcmp(line, undo_ops[k]->tag))
			return undo_ops[k]->restore(arg, more, pidname, out);
	/* a line without a tag is a knob's: its path, its old value */
	if (undo_ops[HOST_UNDO_KNOB])
		return undo_ops[HOST_UNDO_KNOB]->restore(line, arg, pidname, out);
	fprintf(out, "skipped %s: not a change this foliolab puts back\n", line);
	return -1;
}

/* Apply one left-behind restore file, newest change first; 0 when all is back. */
static int restore_one(const char *dir, const char *pidname, FILE *out)
{
	char path[RUN_BASE_MAX + 320], lines[MAX_UNDO + 2][HOST_PATH_MAX * 2 + 16];
	int n = 0, bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/restore", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < MAX_UNDO + 2 && fgets(lines[n], sizeof(lines[0]), f))
		n++;
	fclose(f);
	while (n--)
		bad |= restore_line(lines[n], pidname, out) != 0;
	if (!bad)
		unlink(path);
	return bad;
}

static void remove_dir_files(const char *dir)
{
	char path[RUN_BASE_MAX + 600];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && (errno == EISDIR || errno == EPERM))
			rmdir(path); /* an unmounted tmpfs's mount point */
	}
	closedir(d);
	rmdir(dir);
}

int fl__host_restore_all(FILE *out, char *err, size_t len)
{
	char base[RUN_BASE_MAX], dir[RUN_BASE_MAX + 260];
	struct dirent *de;
	int found = 0, bad = 0, busy = 0;
	DIR *d;

	run_base(base, sizeof(base));
	d = opendir(base);
	if (!d) {
		fprintf(out, "nothing to restore (no %s)\n", base);
		return 0;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
			fprintf(out, "run %ld is still going; it puts back its own changes\n", pid);
			busy++;
			continue;
		}
		found++;
		if (restore_one(dir, de->d_name, out)) {
			bad++;
			continue;
		}
		remove_dir_files(dir);
	}
	closedir(d);
	rmdir(base);
	if (!found && !busy)
		fprintf(out, "nothing to restore: no killed run left the host changed\n");
	if (bad) {
		snprintf(err, len, "%d restore file%s could not be applied in full (see above)",
			 bad, bad > 1 ? "s" : "");
		return -EIO;
	}
	return 0;
}
