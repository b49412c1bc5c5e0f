// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_scope.c - the workload's own counts on the host, apart from the
 * rest of the machine: /proc/vmstat and the mTHP stats are system-wide, so
 * every other process's faults and allocations land in them too.
 *
 * - perf events on this process, inherited by every thread and process it
 *   makes afterwards (perf_event_open(2) with inherit): the software page
 *   fault event, and the kmem:mm_page_alloc and kmem:mm_page_free
 *   tracepoints, one counter per order through a tracepoint filter
 *   ("order == N"; allocations also "&& migratetype == 1", the movable
 *   ones, which are what anonymous faults allocate). They give pgfault,
 *   pgalloc_normal, pgfree, thp_fault_alloc and per-size anon_fault_alloc.
 *   A frees counter counts only the run's tasks' own frees: those in task
 *   context (no hardirq, softirq or NMI flag) at the task's plain
 *   preemption level. A task-bound counter also sees what the kernel does
 *   on a task's CPU while the task is current, for other processes: RCU
 *   callbacks in softirq (page tables and stacks of exited processes), an
 *   exited process's PGD freed in finish_task_switch() and dead folios of
 *   other processes freed when this task's fault flushes the CPU's lru_add
 *   batch (under its local lock). Measured on 2026-12-04 under a fork and
 *   exec loop, those added 300 to 1900 frees to a 66,000-page run. What
 *   the filter leaves out of the run's own frees is what the kernel frees
 *   after an RCU grace period or with preemption off, which the model
 *   counts apart (fl_pgfree_rcu, fl_pgfree_atomic; check.c holds the
 *   host's pgfree against the model's less those). The plain level is the
 *   lower of 0 and 1 at which the run freed anything: 1 where the
 *   tracepoint itself disables preemption, as in 6.18.
 *   The tracepoints need root and tracefs, which is mounted for the moment
 *   it takes to read their ids when the host has not mounted it.
 * - a memory cgroup of the run's own: the process moves into it before the
 *   workload starts, so its memory.stat is the workload's. On cgroup v1
 *   (the memory hierarchy at /sys/fs/cgroup/memory) it is made under the
 *   run's own memory cgroup, and gives the gauges nr_anon_pages,
 *   nr_anon_transparent_hugepages, nr_active_anon, nr_inactive_anon,
 *   nr_shmem and nr_file_pages (rss, rss_huge, ...). On cgroup v2 (where
 *   the memory controller is in the unified hierarchy's cgroup.controllers)
 *   it is made under the nearest ancestor whose cgroup.subtree_control has
 *   memory (a v2 cgroup with processes cannot have children with
 *   controllers); at the root, which may, memory is enabled in
 *   cgroup.subtree_control when it is not and disabled again after. v2's
 *   memory.stat adds nr_page_table_pages, nr_shmem_hugepages and the
 *   events pgactivate, pgdeactivate, pglazyfree and pglazyfreed (and
 *   thp_fault_alloc where the tracepoints are missing).
 *
 * Every mount and cgroup is recorded for undo first (host_rundir.c), so a
 * signal or `foliolab host restore` puts the host back.
 *
 * What the scoped counts include: everything this process and its
 * children do between begin and end: the workload, and its own start-up
 * (thread stacks, the forked processes' copy-on-write faults). What they
 * miss: pages freed on the process's behalf in another context (page
 * tables freed after an RCU grace period). Counters not listed stay
 * system-wide, and the report says so.
 *
 * Conventions in this file: "hsc" is the scope of the one host run.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "host.h"
#include "../lib/util.h"

#define NR_ORDERS 11 /* 0..MAX_PAGE_ORDER */
#define PMD_ORDER 9
#define MIGRATE_MOVABLE 1
/* struct trace_entry's common_flags: TRACE_FLAG_HARDIRQ, _SOFTIRQ, _NMI */
#define TRACE_FLAGS_IRQ (0x08 | 0x10 | 0x40)
#define TRACEFS_AT "/sys/kernel/tracing"
#define MEMCG_V1 "/sys/fs/cgroup/memory"

struct host_scope {
	int fd_faults;
	int fd_alloc[NR_ORDERS];
	int fd_movable[NR_ORDERS];
	int fd_free[2][NR_ORDERS]; /* task context, at preempt count 0 and 1 */
	bool tracepoints;
	char memcg[HOST_PATH_MAX];   /* the run's cgroup folder; "" if none */
	char origin[HOST_PATH_MAX];  /* cgroup.procs of the cgroup the run came from */
	bool v2;		     /* memcg is a cgroup v2 one */
	char tracefs[HOST_PATH_MAX]; /* where tracefs was mounted by the run; "" if not */
	bool files; /* large movable allocations may be file folios: not anon faults */
	/*
	 * khugepaged's scan results (huge_memory:mm_khugepaged_scan_pmd): one
	 * event per result and CPU, system-wide (khugepaged is no task of the
	 * run's), fd_scan[result * nr_cpus + cpu]; -1 where none opened.
	 */
	struct fl_scan_symbols scan;
	int nr_cpus;
	int *fd_scan;
};

/* An event on @pid (0: this process) or @cpu (pid -1), disabled, with @filter. */
static int perf_open_on(struct perf_event_attr *a, const char *filter, int pid, int cpu)
{
	int fd;

	a->size = sizeof(*a);
	a->disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* An event on this process, its threads and its children to come. */
static int perf_open(struct perf_event_attr *a, const char *filter)
{
	a->inherit = 1;
	return perf_open_on(a, filter, 0, -1);
}

static int tracepoint_open(int id, const char *filter)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	return perf_open(&a, filter);
}

/* The first mount point of a file system of @type, or "" */
static void first_mount(const char *type, char *buf, size_t len)
{
	char line[1024], dev[256], mnt[512], fs[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	buf[0] = '\0';
	if (!f)
		return;
	while (!buf[0] && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %511s %63s", dev, mnt, fs) == 3 && !strcmp(fs, type))
			snprintf(buf, len, "%s", mnt);
	fclose(f);
}

int fl__host_tracefs_mount(char *at, size_t len, char *err, size_t elen)
{
	struct fl__host_change c = { HOST_UNDO_MOUNT, TRACEFS_AT, NULL };
	struct stat st;

	first_mount("tracefs", at, len);
	if (at[0])
		return 0;
	if (geteuid() != 0) {
		snprintf(err, elen, "tracefs is not mounted and mounting it needs root");
		return -EPERM;
	}
	if (stat(TRACEFS_AT, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, elen, "tracefs is not mounted and this kernel has no %s", TRACEFS_AT);
		return -ENOENT;
	}
	if (fl__host_undo_record(&c, 1, err, elen))
		return -EIO;
	if (mount("nodev", TRACEFS_AT, "tracefs", 0, NULL)) {
		int e = -errno;

		snprintf(err, elen, "cannot mount tracefs on %s: %s", TRACEFS_AT, strerror(errno));
		fl__host_undo(HOST_UNDO_MOUNT, TRACEFS_AT);
		return e;
	}
	snprintf(at, len, "%s", TRACEFS_AT);
	return 0;
}

int fl__host_tracefs_unmount(void)
{
	return fl__host_undo_pending(HOST_UNDO_MOUNT, TRACEFS_AT)
		       ? fl__host_undo(HOST_UNDO_MOUNT, TRACEFS_AT)
		       : 0;
}

static int tracepoint_id_in(const char *tracefs, const char *sys, const char *event)
{
	char path[HOST_PATH_MAX], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, event);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? atoi(buf) : -ENOENT;
}

static int tracepoint_id(const char *tracefs, const char *event)
{
	return tracepoint_id_in(tracefs, "kmem", event);
}

int fl__scan_symbols_parse(const char *format, struct fl_scan_symbols *out)
{
	const char *p = strstr(format, "__print_symbolic(REC->status");
	int val, n;
	char name[FL_SCAN_NAME_MAX];

	out->nr = 0;
	if (!p)
		return -EINVAL;
	p = strchr(p, ',');
	while (p && out->nr < FL_SCAN_SYMBOLS_MAX &&
	       sscanf(p, " , { %d , \"%31[a-z0-9_]\" }%n", &val, name, &n) == 2) {
		out->val[out->nr] = val;
		snprintf(out->name[out->nr], sizeof(out->name[0]), "%s", name);
		out->nr++;
		p += n;
	}
	return out->nr ? 0 : -EINVAL;
}

static void close_scan_fds(struct host_scope *hsc)
{
	int i;

	for (i = 0; hsc->fd_scan && i < hsc->scan.nr * hsc->nr_cpus; i++)
		if (hsc->fd_scan[i] >= 0)
			close(hsc->fd_scan[i]);
	free(hsc->fd_scan);
	hsc->fd_scan = NULL;
}

/*
 * open_scan_tracepoints() - the events counting khugepaged's scan results
 * (names and values from the tracepoint's format in @tracefs), on every
 * CPU. Return: 0 or -errno with @note set; nothing stays open on failure.
 */
static int open_scan_tracepoints(struct host_scope *hsc, const char *tracefs, char *note,
				 size_t len)
{
	char path[HOST_PATH_MAX + 64], filter[64], *text;
	struct perf_event_attr a;
	int id = tracepoint_id_in(tracefs, "huge_memory", "mm_khugepaged_scan_pmd"), r, c, i;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	snprintf(path, sizeof(path), "%s/events/huge_memory/mm_khugepaged_scan_pmd/format",
		 tracefs);
	text = id < 0 ? NULL : fl_read_text(path, 1 << 16);
	if (!text || fl__scan_symbols_parse(text, &hsc->scan) || cpus < 1) {
		free(text);
		snprintf(note, len,
			 "this kernel has no huge_memory:mm_khugepaged_scan_pmd tracepoint with "
			 "the results in its format");
		return -ENOENT;
	}
	free(text);
	hsc->nr_cpus = (int)cpus;
	hsc->fd_scan = malloc(sizeof(int) * (size_t)hsc->scan.nr * (size_t)cpus);
	if (!hsc->fd_scan)
		return -ENOMEM;
	for (i = 0; i < hsc->scan.nr * hsc->nr_cpus; i++)
		hsc->fd_scan[i] = -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	for (r = 0; r < hsc->scan.nr; r++) {
		snprintf(filter, sizeof(filter), "status == %d", hsc->scan.val[r]);
		for (c = 0; c < hsc->nr_cpus; c++) {
			int fd = perf_open_on(&a, filter, -1, c);

			if (fd == -ENODEV)
				continue; /* a CPU not present */
			if (fd < 0) {
				snprintf(note, len,
					 "perf_event_open of huge_memory:mm_khugepaged_scan_pmd "
					 "on CPU %d: %s",
					 c, strerror(-fd));
				close_scan_fds(hsc);
				return -EIO;
			}
			hsc->fd_scan[r * hsc->nr_cpus + c] = fd;
		}
	}
	return 0;
}

/*
 * The kmem tracepoints, one counter per order, and with @khugepaged its
 * scan results (a failure there only adds to @scan_note).
 * Return: 0 or -errno (note set).
 */
static int open_tracepoints(struct host_scope *hsc, bool khugepaged, char *note, size_t len,
			    char *scan_note, size_t scan_len)
{
	char tracefs[HOST_PATH_MAX], filter[128];
	int alloc, freed, o, ret;

	ret = fl__host_tracefs_mount(tracefs, sizeof(tracefs), note, len);
	if (ret)
		return ret;
	alloc = tracepoint_id(tracefs, "mm_page_alloc");
	freed = tracepoint_id(tracefs, "mm_page_free");
	if (alloc < 0 || freed < 0) {
		snprintf(note, len, "this kernel has no kmem:mm_page_alloc/free tracepoints");
		return -ENOENT;
	}
	for (o = 0; o < NR_ORDERS; o++) {
		int pc, bad;

		snprintf(filter, sizeof(filter), "order == %d", o);
		hsc->fd_alloc[o] = tracepoint_open(alloc, filter);
		bad = hsc->fd_alloc[o] < 0 ? hsc->fd_alloc[o] : 0;
		for (pc = 0; pc < 2; pc++) {
			snprintf(filter, sizeof(filter),
				 "order == %d && !(common_flags & %#x) && common_preempt_count == "
				 "%d",
				 o, TRACE_FLAGS_IRQ, pc);
			hsc->fd_free[pc][o] = tracepoint_open(freed, filter);
			if (!bad && hsc->fd_free[pc][o] < 0)
				bad = hsc->fd_free[pc][o];
		}
		snprintf(filter, sizeof(filter), "order == %d && migratetype == %d", o,
			 MIGRATE_MOVABLE);
		hsc->fd_movable[o] = o >= 2 && o <= PMD_ORDER ? tracepoint_open(alloc, filter) : -1;
		if (!bad && o >= 2 && o <= PMD_ORDER && hsc->fd_movable[o] < 0)
			bad = hsc->fd_movable[o];
		if (bad) {
			snprintf(note, len, "perf_event_open of a kmem tracepoint failed: %s",
				 strerror(-bad));
			return -EIO;
		}
	}
	hsc->tracepoints = true;
	if (khugepaged)
		open_scan_tracepoints(hsc, tracefs, scan_note, scan_len);
	return 0;
}

/* This process's cgroup in the v1 memory hierarchy, from /proc/self/cgroup. */
static int memcg_v1_self(char *buf, size_t len)
{
	char line[1024];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
		char *tok, *save = NULL;

		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		for (tok = strtok_r(ctl + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (!strcmp(tok, "memory")) {
				snprintf(buf, len, "%s%s", MEMCG_V1, strcmp(path, "/") ? path : "");
				ret = 0;
			}
		}
	}
	fclose(f);
	return ret;
}

/* Does the cgroup file @path (a list of words) hold @word? */
static bool has_word(const char *path, const char *word)
{
	char buf[1024], *tok, *save = NULL;
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		for (tok = strtok_r(buf, " \n", &save); tok && !found;
		     tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

/* This process's cgroup v2 path ("/" or "/a/b"), from /proc/self/cgroup's "0::" line. */
static int cgroup2_self(char *buf, size_t len)
{
	char line[1024];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 3);
			ret = 0;
		}
	fclose(f);
	return ret;
}

/**
 * fl__memcg_v2_place() - where the run's cgroup v2 memory cgroup goes, for
 * a process in @self (a path from /proc/self/cgroup) of the hierarchy
 * mounted at @mnt: under the nearest proper ancestor whose
 * cgroup.subtree_control has memory; for a process in the root, the root,
 * with *@enable set when memory must first be enabled there.
 * @parent: out, the folder to create the cgroup in; @origin: out, the
 * cgroup.procs to move back to.
 * Return: 0, or -ENOENT with the reason in @why.
 */
int fl__memcg_v2_place(const char *mnt, const char *self, char *parent, size_t plen, char *origin,
		       size_t olen, bool *enable, char *why, size_t wlen)
{
	char cur[HOST_PATH_MAX], file[HOST_PATH_MAX + 32];
	size_t root_len = strlen(mnt);

	*enable = false;
	snprintf(file, sizeof(file), "%s/cgroup.controllers", mnt);
	if (!has_word(file, "memory")) {
		snprintf(why, wlen,
			 "the memory controller is in neither cgroup v1 nor the cgroup v2 "
			 "hierarchy at %.100s",
			 mnt);
		return -ENOENT;
	}
	snprintf(cur, sizeof(cur), "%s%s", mnt, strcmp(self, "/") ? self : "");
	snprintf(origin, olen, "%s/cgroup.procs", cur);
	if (strlen(cur) == root_len) {
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control", mnt);
		*enable = !has_word(file, "memory");
		snprintf(parent, plen, "%s", mnt);
		return 0;
	}
	for (;;) {
		char *slash = strrchr(cur, '/');

		if (!slash || (size_t)(slash - cur) < root_len)
			break;
		*slash = '\0'; /* the parent */
		snprintf(file, sizeof(file), "%s/cgroup.subtree_control", cur);
		if (has_word(file, "memory")) {
			snprintf(parent, plen, "%s", cur);
			return 0;
		}
		if (strlen(cur) == root_len)
			break;
	}
	snprintf(why, wlen,
		 "no cgroup above %.100s enables memory in its cgroup.subtree_control (cgroup v2)",
		 self);
	return -ENOENT;
}

/*
 * The v1 memory hierarchy's place: under this process's own memory cgroup
 * (v1 lets a cgroup with processes have children). Return: 0 or -ENOENT.
 */
static int memcg_v1_place(char *parent, size_t plen, char *origin, size_t olen)
{
	if (!fl__host_is_mount(MEMCG_V1, "cgroup") || memcg_v1_self(parent, plen))
		return -ENOENT;
	if (snprintf(origin, olen, "%s/cgroup.procs", parent) >= (int)olen)
		return -ENOENT; /* a path too long to move back into */
	return 0;
}

/*
 * Create the run's memory cgroup and move into it: on cgroup v1 where the
 * host has its memory controller, else on cgroup v2.
 */
static int enter_memcg(struct host_scope *hsc, char *note, size_t len)
{
	char parent[HOST_PATH_MAX - 40], procs[HOST_PATH_MAX + 16], pid[24];
	char mnt[512], self[1024];
	char subtree[HOST_PATH_MAX];
	struct fl__host_change c;
	bool enable = false;

	if (geteuid() != 0) {
		snprintf(note, len, "a memory cgroup needs root");
		return -EPERM;
	}
	if (memcg_v1_place(parent, sizeof(parent), hsc->origin, sizeof(hsc->origin))) {
		first_mount("cgroup2", mnt, sizeof(mnt));
		if (!mnt[0] || cgroup2_self(self, sizeof(self))) {
			snprintf(note, len,
				 "the host has no memory cgroup (no v1 memory "
				 "hierarchy, no cgroup2 mount)");
			return -ENOENT;
		}
		if (fl__memcg_v2_place(mnt, self, parent, sizeof(parent), hsc->origin,
				       sizeof(hsc->origin), &enable, note, len))
			return -ENOENT;
		hsc->v2 = true;
	}
	if (enable) {
		/* the root may hold processes and enable controllers; put it back after */
		snprintf(subtree, sizeof(subtree), "%s/cgroup.subtree_control", parent);
		c = (struct fl__host_change){ HOST_UNDO_SUBTREE, subtree, "memory" };
		if (fl__host_undo_record(&c, 1, note, len))
			return -EIO;
		if (fl__host_write_file(subtree, "+memory")) {
			snprintf(note, len, "cannot enable memory in %.100s", subtree);
			fl__host_undo(HOST_UNDO_SUBTREE, subtree);
			return -EIO;
		}
	}
	snprintf(hsc->memcg, sizeof(hsc->memcg), "%s/foliolab-%ld", parent, (long)getpid());
	c = (struct fl__host_change){ HOST_UNDO_CGROUP, hsc->memcg, hsc->origin };
	if (fl__host_undo_record(&c, 1, note, len))
		goto fail;
	if (mkdir(hsc->memcg, 0755)) {
		snprintf(note, len, "cannot create the cgroup %.100s: %s", hsc->memcg,
			 strerror(errno));
		fl__host_undo(HOST_UNDO_CGROUP, hsc->memcg);
		goto fail;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", hsc->memcg);
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (fl__host_write_file(procs, pid)) {
		snprintf(note, len, "cannot move into the cgroup %.100s", hsc->memcg);
		fl__host_undo(HOST_UNDO_CGROUP, hsc->memcg);
		goto fail;
	}
	return 0;
fail:
	hsc->memcg[0] = '\0';
	if (enable)
		fl__host_undo(HOST_UNDO_SUBTREE, NULL);
	return -EIO;
}

/**
 * fl__host_memcg_check() - whether the host can give the run's memory
 * cgroup memory.max @max and memory.high @high (bytes; 0: none): root,
 * and, for memory.high, cgroup v2 (v1 has no memory.high).
 * Return: 0, or -EINVAL with the reason in @err.
 */
int fl__host_memcg_check(uint64_t max, uint64_t high, char *err, size_t len)
{
	char parent[HOST_PATH_MAX], origin[HOST_PATH_MAX];

	if (!max && !high)
		return 0;
	if (geteuid() != 0) {
		snprintf(err, len, "--memcg-max and --memcg-high on the host need root");
		return -EINVAL;
	}
	if (high && !memcg_v1_place(parent, sizeof(parent), origin, sizeof(origin))) {
		snprintf(err, len,
			 "--memcg-high needs cgroup v2's memory.high; this host's memory cgroup "
			 "is v1 (use --memcg-max, memory.limit_in_bytes there)");
		return -EINVAL;
	}
	return 0;
}

/**
 * fl__host_scope_limit() - give the run's memory cgroup its limits:
 * memory.max and memory.high on v2, memory.limit_in_bytes on v1 (the
 * cgroup goes after the run, and its limits with it).
 * Return: 0, or -EIO with the reason in @err.
 */
int fl__host_scope_limit(struct host_scope *hsc, uint64_t max, uint64_t high, const char *why,
			 char *err, size_t len)
{
	char path[HOST_PATH_MAX + 32], val[32];

	if (!hsc || !hsc->memcg[0]) {
		snprintf(err, len, "--memcg-max/--memcg-high: the run has no memory cgroup (%s)",
			 why && why[0] ? why : "no workload counts");
		return -EIO;
	}
	if (max) {
		snprintf(path, sizeof(path), "%s/%s", hsc->memcg,
			 hsc->v2 ? "memory.max" : "memory.limit_in_bytes");
		snprintf(val, sizeof(val), "%llu", (unsigned long long)max);
		if (fl__host_write_file(path, val)) {
			snprintf(err, len, "cannot write %s to %.200s", val, path);
			return -EIO;
		}
	}
	if (high) {
		snprintf(path, sizeof(path), "%s/memory.high", hsc->memcg);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)high);
		if (!hsc->v2 || fl__host_write_file(path, val)) {
			snprintf(err, len, "cannot write %s to %.200s", val, path);
			return -EIO;
		}
	}
	return 0;
}

/* read one number from @dir/@file; -1 if there is none */
static long long read_one(const char *dir, const char *file)
{
	char path[HOST_PATH_MAX + 64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#define MAX_RECLAIM_TRIES 16 /* memory.reclaim's MAX_RECLAIM_RETRIES */

/**
 * fl__host_scope_reclaim() - reclaim @bytes from the run's memory cgroup:
 * a write to memory.reclaim on v2 (EAGAIN, less came free, is no error);
 * on v1, which has none, memory.limit_in_bytes lowered to the usage less
 * @bytes (the kernel reclaims down to it, or gives up with EBUSY, no
 * error either: written again while that makes progress, as memory.reclaim
 * retries) and put back.
 * Return: 0, or -errno with the reason in @err.
 */
int fl__host_scope_reclaim(struct host_scope *hsc, uint64_t bytes, char *err, size_t len)
{
	char path[HOST_PATH_MAX + 32], val[32], old[32];
	long long usage, limit, target, last;
	int ret, tries;

	if (!hsc || !hsc->memcg[0]) {
		snprintf(err, len, "the run has no memory cgroup to reclaim from");
		return -ENOENT;
	}
	if (hsc->v2) {
		snprintf(path, sizeof(path), "%s/memory.reclaim", hsc->memcg);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)bytes);
		ret = fl__host_write_file(path, val);
		if (ret == -EAGAIN)
			ret = 0;
		if (ret)
			snprintf(err, len, "cannot write %s to %.200s: %s", val, path,
				 strerror(-ret));
		return ret;
	}
	usage = read_one(hsc->memcg, "memory.usage_in_bytes");
	limit = read_one(hsc->memcg, "memory.limit_in_bytes");
	if (usage < 0 || limit < 0) {
		snprintf(err, len, "cannot read the usage and limit of %.200s", hsc->memcg);
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", hsc->memcg);
	snprintf(old, sizeof(old), "%lld", limit);
	target = usage > (long long)bytes + 4096 ? usage - (long long)bytes : 4096;
	snprintf(val, sizeof(val), "%lld", target);
	/*
	 * the kernel's limit write gives up (EBUSY) at the first reclaim try
	 * that frees nothing; memory.reclaim tries 16 more times: so do we,
	 * while the usage stays above the target
	 */
	ret = 0;
	for (tries = 0, last = usage; tries <= MAX_RECLAIM_TRIES && last > target; tries++) {
		ret = fl__host_write_file(path, val);
		if (ret == -EBUSY)
			ret = 0;
		if (ret) {
			snprintf(err, len, "cannot write %s to %.200s: %s", val, path,
				 strerror(-ret));
			break;
		}
		usage = read_one(hsc->memcg, "memory.usage_in_bytes");
		if (usage < last)
			tries = -1; /* progress: the fruitless tries start over */
		last = usage;
	}
	if (fl__host_write_file(path, old) && !ret) {
		ret = -EIO;
		snprintf(err, len, "cannot put %s back into %.200s", old, path);
	}
	return ret;
}

static void close_fds(struct host_scope *hsc)
{
	int o;

	if (hsc->fd_faults >= 0)
		close(hsc->fd_faults);
	for (o = 0; o < NR_ORDERS; o++) {
		if (hsc->fd_alloc[o] >= 0)
			close(hsc->fd_alloc[o]);
		if (hsc->fd_movable[o] >= 0)
			close(hsc->fd_movable[o]);
		if (hsc->fd_free[0][o] >= 0)
			close(hsc->fd_free[0][o]);
		if (hsc->fd_free[1][o] >= 0)
			close(hsc->fd_free[1][o]);
	}
	close_scan_fds(hsc);
}

int fl__host_scope_open(struct host_scope **out, bool files, bool khugepaged, char *note,
			size_t len)
{
	struct host_scope *hsc = calloc(1, sizeof(*hsc));
	struct perf_event_attr a;
	char why_tp[160] = "", why_cg[160] = "", why_scan[200] = "";
	int o;

	note[0] = '\0';
	*out = NULL;
	if (!hsc)
		return -ENOMEM;
	hsc->fd_faults = -1;
	hsc->files = files;
	for (o = 0; o < NR_ORDERS; o++)
		hsc->fd_alloc[o] = hsc->fd_movable[o] = hsc->fd_free[0][o] = hsc->fd_free[1][o] = -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_kernel = geteuid() != 0; /* what perf_event_paranoid allows a user */
	hsc->fd_faults = perf_open(&a, NULL);
	if (hsc->fd_faults < 0) {
		snprintf(note, len, "no workload counts: perf_event_open: %s",
			 strerror(-hsc->fd_faults));
		free(hsc);
		return 0;
	}
	if (geteuid() != 0)
		snprintf(why_tp, sizeof(why_tp), "the kmem tracepoints need root");
	else if (open_tracepoints(hsc, khugepaged, why_tp, sizeof(why_tp), why_scan,
				  sizeof(why_scan)))
		hsc->tracepoints = false;
	if (khugepaged && !hsc->fd_scan)
		fprintf(stderr, "foliolab: no khugepaged scan results: %s\n",
			why_scan[0] ? why_scan : "they need the tracepoints");
	enter_memcg(hsc, why_cg, sizeof(why_cg));
	if (why_tp[0] || why_cg[0])
		snprintf(note, len, "%s%s%s", why_tp, why_tp[0] && why_cg[0] ? "; " : "", why_cg);
	*out = hsc;
	return 0;
}

void fl__host_scope_enable(struct host_scope *hsc, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int o;

	ioctl(hsc->fd_faults, req, 0);
	for (o = 0; hsc->tracepoints && o < NR_ORDERS; o++) {
		ioctl(hsc->fd_alloc[o], req, 0);
		ioctl(hsc->fd_free[0][o], req, 0);
		ioctl(hsc->fd_free[1][o], req, 0);
		if (hsc->fd_movable[o] >= 0)
			ioctl(hsc->fd_movable[o], req, 0);
	}
	for (o = 0; hsc->fd_scan && o < hsc->scan.nr * hsc->nr_cpus; o++)
		if (hsc->fd_scan[o] >= 0)
			ioctl(hsc->fd_scan[o], req, 0);
}

static int64_t count(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return (int64_t)v;
}

/* Replace the system-wide @name with the workload's @v, keeping the former as "system:" */
static int overlay(struct fl_counters *out, const char *name, int64_t v)
{
	char sys[FL_NAME_MAX];
	const struct fl_counter *c = fl_counters_find(out, name);
	int ret = 0;

	if (c) {
		snprintf(sys, sizeof(sys), "system:%s", name);
		ret = fl_counters_set_scoped(out, sys, c->value, FL_SCOPE_SYSTEM);
	}
	return ret | fl_counters_set_scoped(out, name, v, FL_SCOPE_WORKLOAD);
}

/*
 * memory.stat's lines under the model's names, in its units. v1's gauges
 * are bytes (rss counts THPs too); v2's are bytes and its events counts.
 */
static const struct memcg_key {
	const char *stat, *name;
	int64_t unit;
	char version;		  /* 1, 2, or 0: both */
	bool without_tracepoints; /* only when the tracepoints could not count it */
} memcg_keys[] = {
	{ "rss", "nr_anon_pages", 4096, 1, false },
	{ "rss_huge", "nr_anon_transparent_hugepages", 2 << 20, 1, false },
	{ "cache", "nr_file_pages", 4096, 1, false },
	{ "anon", "nr_anon_pages", 4096, 2, false },
	{ "anon_thp", "nr_anon_transparent_hugepages", 2 << 20, 2, false },
	{ "file", "nr_file_pages", 4096, 2, false },
	{ "shmem_thp", "nr_shmem_hugepages", 2 << 20, 2, false },
	{ "pagetables", "nr_page_table_pages", 4096, 2, false },
	{ "pgactivate", "pgactivate", 1, 2, false },
	{ "pgdeactivate", "pgdeactivate", 1, 2, false },
	{ "pglazyfree", "pglazyfree", 1, 2, false },
	{ "pglazyfreed", "pglazyfreed", 1, 2, false },
	{ "thp_fault_alloc", "thp_fault_alloc", 1, 2, true },
	{ "active_anon", "nr_active_anon", 4096, 0, false },
	{ "inactive_anon", "nr_inactive_anon", 4096, 0, false },
	{ "shmem", "nr_shmem", 4096, 0, false },
};

/**
 * fl__memcg_stat_parse() - overlay the counters a memory cgroup's
 * memory.stat (@f, cgroup @v2 or v1) gives on @out's system-wide ones;
 * @tracepoints: the kmem tracepoints count thp_fault_alloc already.
 * Return: 0 or -ENOMEM.
 */
int fl__memcg_stat_parse(FILE *f, bool v2, bool tracepoints, struct fl_counters *out)
{
	char line[256], key[64];
	long long v, swapcached = 0;
	const struct fl_counter *file;
	size_t i;
	int ret = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld", key, &v) != 2)
			continue;
		if (!strcmp(key, "swapcached"))
			swapcached = v / 4096;
		for (i = 0; i < sizeof(memcg_keys) / sizeof(memcg_keys[0]); i++) {
			const struct memcg_key *k = &memcg_keys[i];

			if (strcmp(key, k->stat) || (k->version && k->version != (v2 ? 2 : 1)) ||
			    (k->without_tracepoints && tracepoints))
				continue;
			ret |= overlay(out, k->name, v / k->unit);
		}
	}
	/*
	 * The swap cache is in the node's nr_file_pages but not in a memcg's
	 * file (6.18's swap_cache_add_folio() counts NR_FILE_PAGES at node
	 * level only), and in the memcg's swapcached: the run's share of
	 * nr_file_pages is the two together.
	 */
	file = fl_counters_find(out, "nr_file_pages");
	if (swapcached && file && file->scope == FL_SCOPE_WORKLOAD)
		ret |= fl_counters_set_scoped(out, "nr_file_pages", file->value + swapcached,
					      FL_SCOPE_WORKLOAD);
	return ret;
}

/* v1's memory.stat names that are v2's under another name (mm/memcontrol-v1.c) */
static const struct {
	const char *v1, *v2;
} memcg_v1_names[] = {
	{ "rss", "anon" },
	{ "rss_huge", "anon_thp" },
	{ "cache", "file" },
	{ "mapped_file", "file_mapped" },
	{ "shmem", "shmem" },
	{ "pgfault", "pgfault" },
	{ "pgmajfault", "pgmajfault" },
	{ "inactive_anon", "inactive_anon" },
	{ "active_anon", "active_anon" },
	{ "inactive_file", "inactive_file" },
	{ "active_file", "active_file" },
	{ "unevictable", "unevictable" },
};

/*
 * fl__memcg_files_parse() - a memory cgroup's own files as counters, as
 * the model names them: memory.stat's lines as memory.stat.<key> (on v1
 * only those v2 has, under v2's names), memory.events' as
 * memory.events.<key> (v2; NULL @events on v1).
 * Return: 0 or -ENOMEM.
 */
int fl__memcg_files_parse(FILE *stat, FILE *events, bool v2, struct fl_counters *out)
{
	char line[256], key[64], name[FL_NAME_MAX];
	long long v;
	size_t i;
	int ret = 0;

	while (stat && fgets(line, sizeof(line), stat)) {
		const char *k = NULL;

		if (sscanf(line, "%63s %lld", key, &v) != 2)
			continue;
		for (i = 0; !v2 && i < sizeof(memcg_v1_names) / sizeof(memcg_v1_names[0]); i++)
			if (!strcmp(key, memcg_v1_names[i].v1))
				k = memcg_v1_names[i].v2;
		if (v2)
			k = key;
		if (!k)
			continue;
		snprintf(name, sizeof(name), "memory.stat.%s", k);
		ret |= fl_counters_set_scoped(out, name, v, FL_SCOPE_WORKLOAD);
	}
	while (events && fgets(line, sizeof(line), events)) {
		if (sscanf(line, "%63s %lld", key, &v) != 2)
			continue;
		snprintf(name, sizeof(name), "memory.events.%s", key);
		ret |= fl_counters_set_scoped(out, name, v, FL_SCOPE_WORKLOAD);
	}
	return ret;
}

/* a file of one number (bytes) as counter @name; nothing if it is not there */
static int read_number(const char *dir, const char *file, const char *name, struct fl_counters *out)
{
	long long v = read_one(dir, file);

	return v >= 0 ? fl_counters_set_scoped(out, name, v, FL_SCOPE_WORKLOAD) : 0;
}

static int read_memcg_files(struct host_scope *hsc, struct fl_counters *out)
{
	char path[HOST_PATH_MAX + 32];
	FILE *stat, *events = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/memory.stat", hsc->memcg);
	stat = fopen(path, "r");
	if (hsc->v2) {
		snprintf(path, sizeof(path), "%s/memory.events", hsc->memcg);
		events = fopen(path, "r");
	}
	ret = fl__memcg_files_parse(stat, events, hsc->v2, out);
	if (stat)
		fclose(stat);
	if (events)
		fclose(events);
	if (hsc->v2) {
		ret |= read_number(hsc->memcg, "memory.current", "memory.current", out);
		ret |= read_number(hsc->memcg, "memory.peak", "memory.peak", out);
		ret |= read_number(hsc->memcg, "memory.swap.current", "memory.swap.current", out);
	} else {
		ret |= read_number(hsc->memcg, "memory.usage_in_bytes", "memory.current", out);
		ret |= read_number(hsc->memcg, "memory.max_usage_in_bytes", "memory.peak", out);
	}
	return ret;
}

static int read_memcg(struct host_scope *hsc, struct fl_counters *out)
{
	char path[HOST_PATH_MAX + 16];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/memory.stat", hsc->memcg);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ret = fl__memcg_stat_parse(f, hsc->v2, hsc->tracepoints, out);
	fclose(f);
	return ret | read_memcg_files(hsc, out);
}

int fl__host_scope_read(struct host_scope *hsc, struct fl_counters *out)
{
	char name[FL_NAME_MAX];
	int64_t alloc = 0, freed[2] = { 0, 0 };
	int o, ret;

	ret = overlay(out, "pgfault", count(hsc->fd_faults));
	if (hsc->tracepoints) {
		for (o = 0; o < NR_ORDERS; o++) {
			alloc += count(hsc->fd_alloc[o]) << o;
			freed[0] += count(hsc->fd_free[0][o]) << o;
			freed[1] += count(hsc->fd_free[1][o]) << o;
		}
		/* the tracepoints see every zone; this host's allocations are all Normal */
		ret |= overlay(out, "pgalloc_normal", alloc);
		/* the plain level: 0 where the run freed anything there, else 1 */
		ret |= overlay(out, "pgfree", freed[0] ? freed[0] : freed[1]);
		for (o = 2; o <= PMD_ORDER && !hsc->files; o++) {
			snprintf(name, sizeof(name), "hugepages-%dkB/stats/anon_fault_alloc",
				 4 << o);
			ret |= overlay(out, name, count(hsc->fd_movable[o]));
		}
		if (!hsc->files)
			ret |= overlay(out, "thp_fault_alloc", count(hsc->fd_movable[PMD_ORDER]));
	}
	for (o = 0; hsc->fd_scan && o < hsc->scan.nr; o++) {
		int64_t n = 0;
		int c;

		for (c = 0; c < hsc->nr_cpus; c++)
			n += count(hsc->fd_scan[o * hsc->nr_cpus + c]);
		/* the model's names: fl_scan_<the tracepoint's string> */
		snprintf(name, sizeof(name), "fl_scan_%s", hsc->scan.name[o]);
		ret |= fl_counters_set_scoped(out, name, n, FL_SCOPE_SYSTEM);
	}
	if (hsc->memcg[0])
		ret |= read_memcg(hsc, out);
	return ret ? -ENOMEM : 0;
}

void fl__host_scope_close(struct host_scope *hsc)
{
	if (!hsc)
		return;
	close_fds(hsc);
	if (hsc->memcg[0])
		fl__host_undo(HOST_UNDO_CGROUP, hsc->memcg);
	/* after the cgroup is gone: memory enabled at the root for it goes too */
	if (fl__host_undo_pending(HOST_UNDO_SUBTREE, NULL))
		fl__host_undo(HOST_UNDO_SUBTREE, NULL);
	free(hsc);
}
