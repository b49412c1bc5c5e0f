// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_perf.c - lock contention on the host: `perf lock record` on the
 * run's process (and its threads and children), started with events off
 * and switched on through its --control fifo once it is ready, so the
 * recording covers the workload and nothing else; afterwards
 * `perf lock contention` on the data, folded into the model's lock table.
 *
 * perf lock counts contended acquisitions only (the lock:contention_begin
 * tracepoint), so host rows carry no acquired count. perf names the
 * kernel function that called the lock ("folio_batch_move_lru+0x88");
 * rows are keyed by that function without its offset and compiler suffix
 * (".part.0", ".isra.0", ".constprop.0"), and given the model's lock
 * class where the function takes one lock only (lock_classes below).
 *
 * perf's output goes to files in the run folder: `perf lock record` must
 * be given one with -o (it writes to standard output otherwise).
 *
 * Conventions in this file: "note" receives the one-line reason when there
 * is no lock table; times in perf's text are "<number> <ns|us|ms|s|m|h>".
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "host.h"

#define PERF_READY_MS 15000

/*
 * Kernel callers whose contended lock is known, named as the model names
 * it. The page allocator only try-locks pcp->lock on these paths, so a
 * contended spinlock there is zone->lock (free_one_page,
 * free_pcppages_bulk, rmqueue_bulk and rmqueue_buddy are inlined into
 * the callers perf names).
 */
static const struct {
	const char *site;
	const char *kind; /* perf's type column, prefix match */
	const char *cls;
} lock_classes[] = {
	{ "folio_batch_move_lru", "spinlock", "lruvec->lru_lock" },
	{ "__page_cache_release", "spinlock", "lruvec->lru_lock" },
	{ "folios_put_refs", "spinlock", "lruvec->lru_lock" },
	{ "folio_lruvec_lock_irqsave", "spinlock", "lruvec->lru_lock" },
	{ "__lru_add_drain_all", "mutex", "lru_add_drain_all.lock" },
	{ "free_unref_folios", "spinlock", "zone->lock" },
	{ "free_frozen_pages", "spinlock", "zone->lock" },
	{ "__free_frozen_pages", "spinlock", "zone->lock" },
	{ "free_one_page", "spinlock", "zone->lock" },
	{ "free_frozen_page_commit", "spinlock", "zone->lock" },
	{ "free_pcppages_bulk", "spinlock", "zone->lock" },
	{ "rmqueue_bulk", "spinlock", "zone->lock" },
	{ "get_page_from_freelist", "spinlock", "zone->lock" },
	{ "__alloc_frozen_pages", "spinlock", "zone->lock" },
	{ "__alloc_frozen_pages_noprof", "spinlock", "zone->lock" },
	{ "do_anonymous_page", "spinlock", "pte->ptl" },
	{ "zap_pte_range", "spinlock", "pte->ptl" },
	{ "unmap_page_range", "spinlock", "pte->ptl" },
	{ "__pte_offset_map_lock", "spinlock", "pte->ptl" },
	{ "pmd_install", "spinlock", "pmd->ptl" },
	{ "__pmd_alloc", "spinlock", "mm->page_table_lock" },
	{ "__pud_alloc", "spinlock", "mm->page_table_lock" },
	{ "exc_page_fault", "rwsem", "mm->mmap_lock" },
	{ "do_user_addr_fault", "rwsem", "mm->mmap_lock" },
	{ "lock_mm_and_find_vma", "rwsem", "mm->mmap_lock" },
	{ "do_madvise", "rwsem", "mm->mmap_lock" },
	{ "__x64_sys_madvise", "rwsem", "mm->mmap_lock" },
	{ "__x64_sys_munmap", "rwsem", "mm->mmap_lock" },
	{ "__vm_munmap", "rwsem", "mm->mmap_lock" },
	{ "vm_mmap_pgoff", "rwsem", "mm->mmap_lock" },
	{ "exit_mmap", "rwsem", "mm->mmap_lock" },
};

static int find_in_path(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *dir ? dir : ".", prog);
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}

static bool tracefs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " tracefs ") != NULL;
	fclose(f);
	return found;
}

static long paranoid_level(void)
{
	char buf[32] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (!f)
		return 2;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? strtol(buf, NULL, 10) : 2;
}

/* fork + exec @argv with stdout and stderr to files; returns the pid or -errno */
static pid_t spawn(char *const argv[], const char *out, const char *errf)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		fl__host_forget_in_child();
		if (o < 0 || e < 0 || nul < 0)
			_exit(126);
		dup2(nul, 0);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Send a --control command and wait for perf's "ack". */
static int perf_command(struct host_perf *hp, const char *cmd)
{
	struct pollfd pfd = { .fd = hp->ack_fd, .events = POLLIN };
	char ack[16];
	ssize_t n;

	if (write(hp->ctl_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		return -EIO;
	if (poll(&pfd, 1, PERF_READY_MS) != 1)
		return -ETIMEDOUT;
	n = read(hp->ack_fd, ack, sizeof(ack) - 1);
	if (n <= 0)
		return -EIO;
	ack[n] = '\0';
	return strncmp(ack, "ack", 3) ? -EIO : 0;
}

static void perf_kill(struct host_perf *hp)
{
	if (hp->pid > 0) {
		kill(hp->pid, SIGTERM);
		waitpid(hp->pid, NULL, 0);
	}
	hp->pid = 0;
	fl__host_set_perf_pid(0);
	if (hp->ctl_fd >= 0)
		close(hp->ctl_fd);
	if (hp->ack_fd >= 0)
		close(hp->ack_fd);
	hp->ctl_fd = hp->ack_fd = -1;
}

/* The last line perf wrote to its log, for a one-line reason. */
static void log_tail(const char *path, char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0]) /* a long line is cut to @len: it is a one-line reason */
			snprintf(buf, len, "%.*s", (int)(len - 1), line);
	}
	fclose(f);
}

int fl__perf_lock_start(struct host_perf *hp, const char *dir, pid_t target, char *note, size_t len)
{
	char perf[1024], data[HOST_PATH_MAX + 16], ctl[HOST_PATH_MAX + 16], ack[HOST_PATH_MAX + 16],
		log[HOST_PATH_MAX + 24], control[2 * HOST_PATH_MAX + 48], pid[24], tail[160];
	char *argv[16];
	uint64_t deadline;
	int i = 0, status;

	memset(hp, 0, sizeof(*hp));
	hp->ctl_fd = hp->ack_fd = -1;
	snprintf(hp->dir, sizeof(hp->dir), "%s", dir);
	if (find_in_path("perf", perf, sizeof(perf))) {
		snprintf(note, len, "perf is not installed (Debian: linux-perf); no lock table");
		return -ENOENT;
	}
	if (geteuid() != 0 && paranoid_level() > -1) {
		snprintf(note, len,
			 "perf lock needs root or kernel.perf_event_paranoid=-1 (it is %ld); no "
			 "lock table",
			 paranoid_level());
		return -EPERM;
	}
	/* perf would mount tracefs itself; the host target mounts nothing */
	if (!tracefs_mounted()) {
		snprintf(note, len,
			 "tracefs is not mounted, perf lock cannot record; no lock table");
		return -ENODEV;
	}
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(ctl, sizeof(ctl), "%s/ctl", dir);
	snprintf(ack, sizeof(ack), "%s/ack", dir);
	snprintf(log, sizeof(log), "%s/perf-record.log", dir);
	if (mkfifo(ctl, 0600) || mkfifo(ack, 0600)) {
		snprintf(note, len, "cannot make perf's control fifos in %s: %s; no lock table",
			 dir, strerror(errno));
		return -errno;
	}
	/* our read end first: opening a fifo for reading never blocks with O_NONBLOCK */
	hp->ack_fd = open(ack, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	snprintf(control, sizeof(control), "fifo:%s,%s", ctl, ack);
	snprintf(pid, sizeof(pid), "%ld", (long)target);
	argv[i++] = perf;
	/* no build-id cache: perf would otherwise copy binaries into ~/.debug */
	argv[i++] = "--buildid-dir";
	argv[i++] = "/dev/null";
	argv[i++] = "lock";
	argv[i++] = "record";
	argv[i++] = "-o";
	argv[i++] = data;
	argv[i++] = "-D";
	argv[i++] = "-1";
	argv[i++] = "--control";
	argv[i++] = control;
	argv[i++] = "-p";
	argv[i++] = pid;
	argv[i] = NULL;
	hp->pid = spawn(argv, log, log);
	if (hp->pid < 0 || hp->ack_fd < 0) {
		snprintf(note, len, "cannot start perf: %s; no lock table", strerror(errno));
		hp->pid = 0;
		perf_kill(hp);
		return -EIO;
	}
	fl__host_set_perf_pid(hp->pid);
	/* perf opens the control fifo once set up; until then opening it fails */
	deadline = now_ms() + PERF_READY_MS;
	while (hp->ctl_fd < 0) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		hp->ctl_fd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (hp->ctl_fd >= 0)
			break;
		if (waitpid(hp->pid, &status, WNOHANG) == hp->pid) {
			hp->pid = 0;
			log_tail(log, tail, sizeof(tail));
			snprintf(note, len, "perf lock record exited: %s; no lock table",
				 tail[0] ? tail : "no message");
			perf_kill(hp);
			return -EIO;
		}
		if (now_ms() > deadline) {
			snprintf(note, len, "perf lock record did not start in %d s; no lock table",
				 PERF_READY_MS / 1000);
			perf_kill(hp);
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
	if (perf_command(hp, "enable\n")) {
		log_tail(log, tail, sizeof(tail));
		snprintf(note, len, "perf lock record did not start recording%s%s; no lock table",
			 tail[0] ? ": " : "", tail);
		perf_kill(hp);
		return -EIO;
	}
	return 0;
}

static uint64_t to_ns(double v, const char *unit)
{
	if (!strcmp(unit, "ns"))
		return (uint64_t)v;
	if (!strcmp(unit, "us"))
		return (uint64_t)(v * 1e3);
	if (!strcmp(unit, "ms"))
		return (uint64_t)(v * 1e6);
	if (!strcmp(unit, "s"))
		return (uint64_t)(v * 1e9);
	if (!strcmp(unit, "m"))
		return (uint64_t)(v * 60e9);
	if (!strcmp(unit, "h"))
		return (uint64_t)(v * 3600e9);
	return 0;
}

/* "folio_batch_move_lru+0x88" -> "folio_batch_move_lru"; ".part.0" etc. go too */
static void caller_function(const char *caller, char *out, size_t len)
{
	char *p;

	snprintf(out, len, "%s", caller);
	p = strchr(out, '+');
	if (p)
		*p = '\0';
	p = strchr(out, '.');
	if (p && p != out)
		*p = '\0';
}

int fl__perf_fold_line(const char *line, struct fl_locks *out)
{
	double c, tot, mx, mn, avg;
	char ut[8], ux[8], un[8], ua[8], type[32], caller[FL_NAME_MAX];
	struct fl_lock_stat_row row, *have = NULL;
	size_t i;
	int k;

	if (sscanf(line, " %lf %lf %7s %lf %7s %lf %7s %lf %7s %31s %79s", &c, &tot, ut, &mx, ux,
		   &mn, un, &avg, ua, type, caller) != 11)
		return 0; /* header, blank or a line of another shape */
	memset(&row, 0, sizeof(row));
	caller_function(caller, row.site, sizeof(row.site));
	snprintf(row.kind, sizeof(row.kind), "%.15s", type);
	snprintf(row.name, sizeof(row.name), "%s", type);
	for (i = 0; i < sizeof(lock_classes) / sizeof(lock_classes[0]); i++) {
		if (!strcmp(row.site, lock_classes[i].site) &&
		    !strncmp(type, lock_classes[i].kind, strlen(lock_classes[i].kind))) {
			snprintf(row.name, sizeof(row.name), "%s", lock_classes[i].cls);
			break;
		}
	}
	row.no_acquired = true;
	row.contended = (uint64_t)c;
	row.wait_total_ns = to_ns(tot, ut);
	row.wait_max_ns = to_ns(mx, ux);
	row.wait_min_ns = to_ns(mn, un);
	(void)avg;
	(void)ua;
	/* one row per (class, function): perf splits a caller by call stack */
	for (k = 0; k < out->nr; k++) {
		if (!strcmp(out->v[k].name, row.name) && !strcmp(out->v[k].site, row.site) &&
		    !strcmp(out->v[k].kind, row.kind)) {
			have = &out->v[k];
			break;
		}
	}
	if (!have)
		return fl_locks_add(out, &row) ? -ENOMEM : 1;
	have->contended += row.contended;
	have->wait_total_ns += row.wait_total_ns;
	if (row.wait_max_ns > have->wait_max_ns)
		have->wait_max_ns = row.wait_max_ns;
	if (row.wait_min_ns < have->wait_min_ns)
		have->wait_min_ns = row.wait_min_ns;
	return 1;
}

int fl__perf_lock_stop(struct host_perf *hp, struct fl_locks *out, char *note, size_t len)
{
	char perf[1024], data[HOST_PATH_MAX + 16], txt[HOST_PATH_MAX + 24], line[512], tail[160];
	char *argv[16];
	int i = 0, status, ret = 0;
	pid_t pid;
	FILE *f;

	if (hp->pid <= 0)
		return -ENOENT;
	if (perf_command(hp, "disable\n"))
		ret = -EIO;
	/* SIGINT: perf writes out what it has and exits */
	kill(hp->pid, SIGINT);
	waitpid(hp->pid, &status, 0);
	hp->pid = 0;
	perf_kill(hp);
	if (ret) {
		snprintf(note, len, "perf lock record stopped answering; no lock table");
		return ret;
	}
	if (find_in_path("perf", perf, sizeof(perf)))
		return -ENOENT;
	snprintf(data, sizeof(data), "%s/perf.data", hp->dir);
	snprintf(txt, sizeof(txt), "%s/contention.txt", hp->dir);
	argv[i++] = perf;
	argv[i++] = "--buildid-dir";
	argv[i++] = "/dev/null";
	argv[i++] = "lock";
	argv[i++] = "contention";
	argv[i++] = "-i";
	argv[i++] = data;
	argv[i++] = "-E";
	argv[i++] = "100000";
	argv[i++] = "-F";
	argv[i++] = "contended,wait_total,wait_max,wait_min,avg_wait";
	argv[i] = NULL;
	/* perf lock contention prints its table on standard error: keep both */
	pid = spawn(argv, txt, txt);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		log_tail(txt, tail, sizeof(tail));
		snprintf(note, len, "perf lock contention failed%s%s; no lock table",
			 tail[0] ? ": " : "", tail);
		return -EIO;
	}
	f = fopen(txt, "r");
	if (!f) {
		snprintf(note, len, "perf lock contention wrote nothing; no lock table");
		return -EIO;
	}
	while (fgets(line, sizeof(line), f)) {
		if (fl__perf_fold_line(line, out) < 0) {
			ret = -ENOMEM;
			break;
		}
	}
	fclose(f);
	if (!ret && !out->nr)
		snprintf(note, len, "perf lock saw no contended lock during the run");
	return ret;
}
