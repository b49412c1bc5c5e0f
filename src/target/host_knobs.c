// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_knobs.c - the host's THP knobs under /sys/kernel/mm/transparent_hugepage,
 * changed only with a way back: the old value of every knob a run changes
 * goes into the run's restore file (written and synced before the first
 * change), is written back when the run ends, also from the handlers of
 * SIGINT/SIGTERM/SIGHUP and of crashes, and `foliolab host restore` applies
 * the file a SIGKILLed run left behind.
 *
 * Restore file format, one knob per line after a header:
 *   # foliolab host restore file
 *   pid <pid of the run>
 *   <absolute path of the knob file> TAB <old value>
 *
 * Conventions in this file: "hs" is the one host run of this process; the
 * signal handler touches only hs and async-signal-safe calls (open, write,
 * close, unlink, rmdir, kill, raise).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

struct saved_knob {
	char path[HOST_PATH_MAX];
	char old[FL_VALUE_MAX];
};

/* run folder names stay short, so every path built from them fits */
#define RUN_BASE_MAX 256

static struct {
	pid_t owner; /* the process that owns the run folder; 0: none */
	char base[RUN_BASE_MAX];
	char dir[RUN_BASE_MAX + 24];
	char files[NR_RUN_FILES][RUN_BASE_MAX + 48];
	struct saved_knob saved[FL_MAX_KNOBS];
	volatile sig_atomic_t nr_saved;
	volatile pid_t perf_pid;
	struct sigaction old_act[NR_UNDO_SIGNALS];
	bool handlers;
} hs;

const char *fl__host_sysfs_root(void)
{
	const char *r = getenv("FOLIOLAB_HOST_SYSFS");

	return r && *r ? r : "/sys/kernel/mm/transparent_hugepage";
}

/* the folder that holds run folders; truncated names are caught by their users */
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

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	memmove(s, p, strlen(p) + 1);
}

int fl__host_knob_read(const char *path, char *val, size_t len)
{
	char raw[512], *lb, *rb;
	int ret = read_small(path, raw, sizeof(raw));

	if (ret)
		return ret;
	lb = strchr(raw, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (lb && rb) {
		*rb = '\0';
		snprintf(val, len, "%s", lb + 1);
	} else {
		trim(raw);
		snprintf(val, len, "%s", raw);
	}
	return 0;
}

/* Does the knob file at @path take @value? Bracket lists name their words. */
static bool knob_accepts(const char *path, const char *value, char *words, size_t wlen)
{
	char raw[512], *tok, *save = NULL;
	bool ok = false;
	size_t i;

	words[0] = '\0';
	if (read_small(path, raw, sizeof(raw)))
		return false;
	if (!strchr(raw, '[')) {
		snprintf(words, wlen, "a whole number");
		for (i = 0; value[i]; i++)
			if (!isdigit((unsigned char)value[i]))
				return false;
		return i > 0 && i < 20;
	}
	for (tok = strtok_r(raw, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		size_t n;

		if (*tok == '[')
			tok++;
		n = strlen(tok);
		if (n && tok[n - 1] == ']')
			tok[n - 1] = '\0';
		if (!strcmp(tok, value))
			ok = true;
		strncat(words, words[0] ? ", " : "", wlen - strlen(words) - 1);
		strncat(words, tok, wlen - strlen(words) - 1);
	}
	return ok;
}

static int knob_path(const char *name, char *path, size_t len, char *err, size_t elen)
{
	const char *rest;
	struct stat st;

	if (!strncmp(name, "foliolab/", 9)) {
		snprintf(err, elen,
			 "%s is a model policy; the host kernel runs its own (use it with "
			 "--target=model)",
			 name);
		return -EINVAL;
	}
	if (strncmp(name, HOST_THP_PREFIX, strlen(HOST_THP_PREFIX)) != 0) {
		snprintf(err, elen, "host knob %s: accepted names under %s (e.g. %senabled)", name,
			 HOST_THP_PREFIX, HOST_THP_PREFIX);
		return -EINVAL;
	}
	rest = name + strlen(HOST_THP_PREFIX);
	if (!*rest || *rest == '/' || strstr(rest, "..")) {
		snprintf(err, elen, "host knob %s: not a knob name", name);
		return -EINVAL;
	}
	snprintf(path, len, "%s/%s", fl__host_sysfs_root(), rest);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, elen, "host knob %s: this kernel has no %s; nothing was changed",
			 name, path);
		return -EINVAL;
	}
	return 0;
}

/* Another run's folder: alive (busy) or dead with a restore file (stale). */
static int other_runs(char *err, size_t len)
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
			snprintf(err, len,
				 "another foliolab host run (pid %ld) has changed knobs; wait for "
				 "it "
				 "to end",
				 pid);
			ret = -EBUSY;
		} else {
			snprintf(err, len,
				 "a foliolab host run (pid %ld) was killed with knobs changed; run "
				 "'foliolab host restore' first",
				 pid);
			ret = -EBUSY;
		}
	}
	closedir(d);
	return ret;
}

int fl__host_knobs_check(const struct fl_knobs *k, char *err, size_t len)
{
	char path[HOST_PATH_MAX], words[256];
	int i, ret;

	for (i = 0; i < k->nr; i++) {
		ret = knob_path(k->v[i].name, path, sizeof(path), err, len);
		if (ret)
			return ret;
		if (!knob_accepts(path, k->v[i].value, words, sizeof(words))) {
			snprintf(err, len, "host knob %s: '%s' is not accepted; accepted: %s",
				 k->v[i].name, k->v[i].value, words);
			return -EINVAL;
		}
		if (access(path, W_OK)) {
			snprintf(err, len,
				 "changing host knobs needs root (%s: %s); run as root, or with "
				 "--no-knobs to use the host's settings",
				 path, strerror(errno));
			return -EPERM;
		}
	}
	return k->nr ? other_runs(err, len) : 0;
}

static int write_knob(const char *path, const char *value)
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

/* The restore file, complete before the first knob changes. */
static int write_restore_file(void)
{
	FILE *f = fopen(hs.files[1], "w");
	int i;

	if (!f)
		return -errno;
	fprintf(f, "# foliolab host restore file: knob values to put back\npid %ld\n",
		(long)getpid());
	for (i = 0; i < hs.nr_saved; i++)
		fprintf(f, "%s\t%s\n", hs.saved[i].path, hs.saved[i].old);
	if (fflush(f) || fsync(fileno(f)) || fclose(f)) {
		unlink(hs.files[1]);
		return -EIO;
	}
	return rename(hs.files[1], hs.files[0]) ? -errno : 0;
}

/* async-signal-safe: write back every saved knob, newest first */
static int restore_saved(void)
{
	int i, bad = 0;

	for (i = hs.nr_saved - 1; i >= 0; i--)
		bad |= write_knob(hs.saved[i].path, hs.saved[i].old) != 0;
	return bad;
}

int fl__host_knobs_apply(const struct fl_knobs *k, char *err, size_t len)
{
	char path[HOST_PATH_MAX], cur[FL_VALUE_MAX];
	int i, j, ret;

	ret = fl__host_knobs_check(k, err, len);
	if (ret)
		return ret;
	for (i = 0; i < k->nr; i++) {
		knob_path(k->v[i].name, path, sizeof(path), err, len);
		for (j = 0; j < hs.nr_saved; j++)
			if (!strcmp(hs.saved[j].path, path))
				break;
		if (j < hs.nr_saved)
			continue;
		if (fl__host_knob_read(path, cur, sizeof(cur)) || hs.nr_saved >= FL_MAX_KNOBS) {
			snprintf(err, len, "cannot read %s; nothing was changed", path);
			return -EIO;
		}
		if (!strcmp(cur, k->v[i].value))
			continue;
		snprintf(hs.saved[hs.nr_saved].path, HOST_PATH_MAX, "%s", path);
		snprintf(hs.saved[hs.nr_saved].old, FL_VALUE_MAX, "%s", cur);
		hs.nr_saved++;
	}
	if (!hs.nr_saved)
		return 0;
	ret = write_restore_file();
	if (ret) {
		hs.nr_saved = 0;
		snprintf(err, len, "cannot write the restore file %s (%s); nothing was changed",
			 hs.files[0], strerror(-ret));
		return ret;
	}
	for (i = 0; i < k->nr; i++) {
		knob_path(k->v[i].name, path, sizeof(path), err, len);
		ret = write_knob(path, k->v[i].value);
		if (!ret &&
		    (fl__host_knob_read(path, cur, sizeof(cur)) || strcmp(cur, k->v[i].value)))
			ret = -EIO;
		if (ret) {
			snprintf(err, len, "host knob %s=%s: %s; every knob was put back",
				 k->v[i].name, k->v[i].value, strerror(-ret));
			fl__host_knobs_restore();
			return ret;
		}
	}
	return 0;
}

int fl__host_knobs_restore(void)
{
	int bad;

	if (!hs.nr_saved)
		return 0;
	bad = restore_saved();
	if (bad) {
		fprintf(stderr,
			"foliolab: could not put back every host knob; the restore file %s "
			"stays for 'foliolab host restore'\n",
			hs.files[0]);
		return -EIO;
	}
	hs.nr_saved = 0;
	unlink(hs.files[0]);
	return 0;
}

static void add_knob(struct fl_knobs *out, const char *rel)
{
	char path[HOST_PATH_MAX], name[FL_NAME_MAX], val[FL_VALUE_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fl__host_sysfs_root(), rel);
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & S_IWUSR))
		return;
	if (fl__host_knob_read(path, val, sizeof(val)))
		return;
	snprintf(name, sizeof(name), HOST_THP_PREFIX "%s", rel);
	fl_knobs_set(out, name, val);
}

int fl__host_knobs_read(struct fl_knobs *out)
{
	static const char *const top[] = { "enabled", "defrag", "use_zero_page", "shrink_underused",
					   "shmem_enabled" };
	static const char *const khp[] = {
		"defrag",	 "max_ptes_none",	 "max_ptes_shared",	 "max_ptes_swap",
		"pages_to_scan", "scan_sleep_millisecs", "alloc_sleep_millisecs"
	};
	char rel[128];
	size_t i;
	int kb;

	out->nr = 0;
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		add_knob(out, top[i]);
	/* every size the kernel offers, smallest first */
	for (kb = 4; kb <= (1 << 20); kb *= 2) {
		struct stat st;

		snprintf(rel, sizeof(rel), "%s/hugepages-%dkB", fl__host_sysfs_root(), kb);
		if (stat(rel, &st))
			continue;
		snprintf(rel, sizeof(rel), "hugepages-%dkB/enabled", kb);
		add_knob(out, rel);
		snprintf(rel, sizeof(rel), "hugepages-%dkB/shmem_enabled", kb);
		add_knob(out, rel);
	}
	for (i = 0; i < sizeof(khp) / sizeof(khp[0]); i++) {
		snprintf(rel, sizeof(rel), "khugepaged/%s", khp[i]);
		add_knob(out, rel);
	}
	return 0;
}

static void remove_run_files(void)
{
	size_t i;

	for (i = 0; i < NR_RUN_FILES; i++)
		if (i != 0 || !hs.nr_saved)
			unlink(hs.files[i]);
	rmdir(hs.dir);
	rmdir(hs.base);
}

static void undo_handler(int sig)
{
	int saved_errno = errno;

	if (hs.owner == getpid()) {
		pid_t perf = hs.perf_pid;

		if (perf > 0)
			kill(perf, SIGTERM);
		if (!restore_saved())
			hs.nr_saved = 0;
		remove_run_files();
		hs.owner = 0;
	}
	errno = saved_errno;
	/* SA_RESETHAND put the default action back: die of the same signal */
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
	for (i = 0; i < NR_UNDO_SIGNALS; i++)
		sigaction(undo_signals[i], &sa, &hs.old_act[i]);
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
	hs.nr_saved = 0;
	hs.perf_pid = 0;
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
	int ret;

	if (!hs.owner)
		return 0;
	ret = fl__host_knobs_restore();
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

/* Apply one left-behind restore file; 0 when every knob is back. */
static int restore_one(const char *dir, const char *pidname, FILE *out)
{
	char path[RUN_BASE_MAX + 320], line[HOST_PATH_MAX + FL_VALUE_MAX + 8], cur[FL_VALUE_MAX];
	int bad = 0, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/restore", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		const char *root = fl__host_sysfs_root();

		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		trim(tab + 1);
		/* only knob files: never write anywhere a tampered file points */
		if (strncmp(line, root, strlen(root)) != 0 || strstr(line, "..")) {
			fprintf(out, "skipped %s: not a knob under %s\n", line, root);
			bad = 1;
			continue;
		}
		if (write_knob(line, tab + 1) || fl__host_knob_read(line, cur, sizeof(cur)) ||
		    strcmp(cur, tab + 1)) {
			fprintf(out, "could not restore %s to %s\n", line, tab + 1);
			bad = 1;
			continue;
		}
		fprintf(out, "restored %s = %s (run %s)\n", line, tab + 1, pidname);
		n++;
	}
	fclose(f);
	if (!bad)
		unlink(path);
	(void)n;
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
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

FL_API int fl_host_restore(FILE *out, char *err, size_t len)
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
			fprintf(out, "run %ld is still going; it restores its own knobs\n", pid);
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
		fprintf(out, "nothing to restore: no killed run left knobs changed\n");
	if (bad) {
		snprintf(err, len, "%d restore file%s could not be applied in full (see above)",
			 bad, bad > 1 ? "s" : "");
		return -EIO;
	}
	return 0;
}

FL_API int fl_host_knobs(struct fl_knobs *out)
{
	return fl__host_knobs_read(out);
}
