// SPDX-License-Identifier: GPL-2.0-only
/*
 * host.c - the target API on the host kernel: the workload's mmap, munmap,
 * madvise, stores and loads are real system calls and memory accesses of
 * this process, its threads and its forked children; counters are
 * /proc/vmstat and the per-size mTHP stats; knobs are sysfs
 * (host_knobs.c); lock contention is perf lock (host_perf.c).
 *
 * Processes: the first process a workload creates is this process
 * itself. Every further one is a forked child that serves requests over
 * a socket: the calls of its main thread, and "run these threads" from
 * run_tasks(). A child is forked before the workload's threads start
 * and dies with its parent (PR_SET_PDEATHSIG). Memory all processes
 * share (shared_alloc) is a MAP_SHARED arena made at open, before any fork.
 *
 * Threads are pthreads, thread i pinned to host CPU i where the host has
 * one (and left to the scheduler where it has not).
 *
 * Every mapping is recorded, so a store or load outside one returns
 * -EFAULT rather than killing the run, and proc_exit() unmaps what a
 * workload left behind.
 *
 * Conventions in this file: "ht" is the host target, "hp" a host process;
 * a process is "local" when it is the calling process (hp->pid == getpid()).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "target.h"
#include "host.h"
#include "../platform/platform.h"

#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define SHARED_ARENA (4u << 20)
#define MAX_MAPPINGS 4096

struct host_mapping {
	uint64_t addr;
	uint64_t len;
	int prot;
};

struct host_proc {
	struct fl_proc base;
	pid_t pid;
	int sock; /* the parent's end to a child server; -1 when local */
	struct fl_thread main;
	pthread_mutex_t maps_lock;
	struct host_mapping maps[MAX_MAPPINGS]; /* maps_lock; meaningful where local */
	int nr_maps;
};

struct host_target {
	struct fl_target base;
	struct fl_target_config cfg;
	bool self_in_use; /* this process is one of the workload's processes */
	struct host_perf perf;
	bool recording;
	char locks_note[160];
	unsigned char *arena;
	size_t arena_used;
	pthread_mutex_t arena_lock;
};

enum req_op { REQ_MMAP, REQ_MUNMAP, REQ_MADVISE, REQ_WRITE, REQ_READ, REQ_RUN, REQ_EXIT };

struct request {
	int op;
	int arg;
	uint64_t a, b, c, d, e;
	void (*fn)(struct fl_thread *th, void *arg);
	void *fn_arg;
	int nr_threads; /* REQ_RUN: thread indices follow */
	bool want_tags; /* REQ_READ: the tags follow the reply */
};

struct reply {
	int ret;
	uint64_t v;
};

static struct host_proc *to_hp(struct fl_proc *p)
{
	return (struct host_proc *)p;
}

static bool is_local(const struct host_proc *hp)
{
	return hp->pid == getpid();
}

static int host_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int host_check_knobs(const struct fl_target_config *cfg, const struct fl_knobs *k, char *err,
			    size_t len)
{
	if (cfg && cfg->no_knobs && k->nr) {
		snprintf(err, len, "--no-knobs runs with the host's settings; drop %s",
			 k->v[0].name);
		return -EINVAL;
	}
	return fl__host_knobs_check(k, err, len);
}

static int host_open(const struct fl_target_config *cfg, struct fl_target **out, char *err,
		     size_t len)
{
	struct host_target *ht;
	int ret;

	ht = fl_calloc(1, sizeof(*ht));
	if (!ht) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ht->cfg = *cfg;
	ht->base.ops = &fl__host_target_ops;
	ht->base.nr_cpus = 1024;
	ht->base.counters_have_noise = true;
	ht->arena = mmap(NULL, SHARED_ARENA, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
			 0);
	if (ht->arena == MAP_FAILED) {
		snprintf(err, len, "cannot map the shared arena: %s", strerror(errno));
		fl_free(ht);
		return -ENOMEM;
	}
	pthread_mutex_init(&ht->arena_lock, NULL);
	ret = fl__host_rundir_create(err, len);
	if (ret) {
		munmap(ht->arena, SHARED_ARENA);
		fl_free(ht);
		return ret;
	}
	*out = &ht->base;
	return 0;
}

static int host_close(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;
	int ret;

	if (ht->recording) {
		struct fl_locks none = { 0 };
		char note[160];

		fl__perf_lock_stop(&ht->perf, &none, note, sizeof(note));
		fl_locks_free(&none);
	}
	ret = fl__host_rundir_remove();
	munmap(ht->arena, SHARED_ARENA);
	fl_free(ht);
	return ret;
}

static int host_quiesce(struct fl_target *t, char *err, size_t len)
{
	(void)t;
	(void)err;
	(void)len;
	return 0;
}

static int host_set_knobs(struct fl_target *t, const struct fl_knobs *k, char *err, size_t len)
{
	struct host_target *ht = (struct host_target *)t;
	int ret = host_check_knobs(&ht->cfg, k, err, len);

	return ret ? ret : fl__host_knobs_apply(k, err, len);
}

static int host_knobs(struct fl_target *t, struct fl_knobs *out)
{
	(void)t;
	return fl__host_knobs_read(out);
}

static int read_counter_file(const char *path, int64_t *v)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*v = strtoll(buf, NULL, 10);
	return 0;
}

static int host_counters(struct fl_target *t, struct fl_counters *out)
{
	static const char *const items[] = {
		"anon_fault_alloc",
		"anon_fault_fallback",
		"anon_fault_fallback_charge",
		"anon_fault_declined",
		"split",
		"split_failed",
		"split_deferred",
		"nr_anon",
		"nr_anon_partially_mapped",
		"swpout",
		"swpout_fallback",
		"swpin",
		"swpin_fallback",
		"swpin_fallback_charge",
		"zswpout",
		"shmem_alloc",
		"shmem_fallback",
		"shmem_fallback_charge",
	};
	char line[256], name[FL_NAME_MAX], path[HOST_PATH_MAX];
	long long v;
	int64_t val;
	size_t i;
	int kb, ret = 0;
	FILE *f;

	(void)t;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%79s %lld", name, &v) == 2)
			ret |= fl_counters_set(out, name, v);
	}
	fclose(f);
	for (kb = 16; kb <= 2048; kb *= 2) {
		for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
			snprintf(path, sizeof(path), "%s/hugepages-%dkB/stats/%s",
				 fl__host_sysfs_root(), kb, items[i]);
			if (read_counter_file(path, &val))
				continue;
			snprintf(name, sizeof(name), "hugepages-%dkB/stats/%s", kb, items[i]);
			ret |= fl_counters_set(out, name, val);
		}
	}
	for (i = 0; i < 2; i++) {
		const char *k = i ? "full_scans" : "pages_collapsed";

		snprintf(path, sizeof(path), "%s/khugepaged/%s", fl__host_sysfs_root(), k);
		if (read_counter_file(path, &val))
			continue;
		snprintf(name, sizeof(name), "khugepaged/%s", k);
		ret |= fl_counters_set(out, name, val);
	}
	return ret ? -ENOMEM : 0;
}

static int host_meminfo(struct fl_target *t, struct fl_counters *out)
{
	char line[256], name[FL_NAME_MAX];
	long long v;
	int ret = 0;
	FILE *f;

	(void)t;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (size_t)(colon - line) >= sizeof(name))
			continue;
		memcpy(name, line, (size_t)(colon - line));
		name[colon - line] = '\0';
		if (sscanf(colon + 1, "%lld", &v) == 1)
			ret |= fl_counters_set(out, name, v);
	}
	fclose(f);
	return ret ? -ENOMEM : 0;
}

static int host_begin(struct fl_target *t, char *err, size_t len)
{
	struct host_target *ht = (struct host_target *)t;

	(void)err;
	(void)len;
	ht->locks_note[0] = '\0';
	if (!ht->cfg.locks) {
		snprintf(ht->locks_note, sizeof(ht->locks_note),
			 "no lock table: give --locks to record one with perf lock");
		return 0;
	}
	if (fl__perf_lock_start(&ht->perf, fl__host_rundir(), getpid(), ht->locks_note,
				sizeof(ht->locks_note)) == 0)
		ht->recording = true;
	else
		fprintf(stderr, "foliolab: %s\n", ht->locks_note);
	return 0;
}

static struct fl_locks pending_locks;

static void host_end(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;

	if (!ht->recording)
		return;
	ht->recording = false;
	fl_locks_free(&pending_locks);
	if (fl__perf_lock_stop(&ht->perf, &pending_locks, ht->locks_note, sizeof(ht->locks_note)) &&
	    ht->locks_note[0])
		fprintf(stderr, "foliolab: %s\n", ht->locks_note);
}

static int host_locks(struct fl_target *t, struct fl_locks *out)
{
	int i;

	(void)t;
	for (i = 0; i < pending_locks.nr; i++)
		if (fl_locks_add(out, &pending_locks.v[i]))
			return -ENOMEM;
	fl_locks_free(&pending_locks);
	return 0;
}

static void host_describe(struct fl_target *t, struct fl_result *res)
{
	struct host_target *ht = (struct host_target *)t;
	struct utsname u;
	FILE *f;

	if (!uname(&u))
		snprintf(res->kernel_release, sizeof(res->kernel_release), "%.63s", u.release);
	fl__host_cpuinfo("model name", res->cpu_model, sizeof(res->cpu_model));
	res->cpus = host_nr_cpus();
	res->nodes = 1;
	f = fopen("/proc/meminfo", "r");
	if (f) {
		unsigned long long kb;

		if (fscanf(f, "MemTotal: %llu kB", &kb) == 1)
			res->mem_bytes = (uint64_t)kb * 1024;
		fclose(f);
	}
	snprintf(res->locks_note, sizeof(res->locks_note), "%s", ht->locks_note);
}

static void *host_shared_alloc(struct fl_target *t, size_t size)
{
	struct host_target *ht = (struct host_target *)t;
	void *p = NULL;
	size_t need = (size + 63) & ~(size_t)63;

	pthread_mutex_lock(&ht->arena_lock);
	if (ht->arena_used + need <= SHARED_ARENA) {
		p = ht->arena + ht->arena_used;
		ht->arena_used += need;
		memset(p, 0, size);
	}
	pthread_mutex_unlock(&ht->arena_lock);
	return p;
}

/* --- the calls, local ---------------------------------------------------- */

static int maps_add(struct host_proc *hp, uint64_t addr, uint64_t len, int prot)
{
	int ret = 0;

	pthread_mutex_lock(&hp->maps_lock);
	if (hp->nr_maps == MAX_MAPPINGS)
		ret = -ENOMEM;
	else
		hp->maps[hp->nr_maps++] = (struct host_mapping){ addr, len, prot };
	pthread_mutex_unlock(&hp->maps_lock);
	return ret;
}

/* Is [addr, addr + len) inside one recorded mapping that allows @prot? */
static bool maps_cover(struct host_proc *hp, uint64_t addr, uint64_t len, int prot)
{
	bool ok = false;
	int i;

	pthread_mutex_lock(&hp->maps_lock);
	for (i = 0; i < hp->nr_maps && !ok; i++) {
		const struct host_mapping *m = &hp->maps[i];

		ok = addr >= m->addr && addr + len <= m->addr + m->len && addr + len >= addr &&
		     (m->prot & prot) == prot;
	}
	pthread_mutex_unlock(&hp->maps_lock);
	return ok;
}

static int local_mmap(struct host_proc *hp, uint64_t len, int prot, int flags, uint64_t *addr)
{
	int p = 0, f = MAP_PRIVATE | MAP_ANONYMOUS;
	void *a;
	int ret;

	if (!len)
		return -EINVAL;
	if (prot & FL_PROT_READ)
		p |= PROT_READ;
	if (prot & FL_PROT_WRITE)
		p |= PROT_READ | PROT_WRITE;
	if (flags & FL_MAP_DROPPABLE)
		f = MAP_DROPPABLE | MAP_ANONYMOUS;
	a = mmap(NULL, (size_t)len, p, f, -1, 0);
	if (a == MAP_FAILED)
		return -errno;
	ret = maps_add(hp, (uint64_t)(uintptr_t)a, (len + 4095) & ~4095ull,
		       prot & FL_PROT_WRITE ? FL_PROT_READ | FL_PROT_WRITE : prot);
	if (ret) {
		munmap(a, (size_t)len);
		return ret;
	}
	*addr = (uint64_t)(uintptr_t)a;
	return 0;
}

/*
 * Unmap [addr, addr + len), which must lie inside one recorded mapping: the
 * whole of it, its head, its tail, or a middle part (the record splits in
 * two, as the kernel's VMA does).
 */
static int local_munmap(struct host_proc *hp, uint64_t addr, uint64_t len)
{
	uint64_t end;
	int i, ret = -EINVAL;

	len = (len + 4095) & ~4095ull;
	end = addr + len;
	if (!len || addr % 4096 || end < addr)
		return -EINVAL;
	pthread_mutex_lock(&hp->maps_lock);
	for (i = 0; i < hp->nr_maps; i++) {
		struct host_mapping *m = &hp->maps[i];
		uint64_t m_end = m->addr + m->len;

		if (addr < m->addr || end > m_end)
			continue;
		ret = 0;
		if (addr == m->addr && end == m_end) {
			*m = hp->maps[--hp->nr_maps];
		} else if (addr == m->addr) {
			m->addr = end;
			m->len = m_end - end;
		} else if (end == m_end) {
			m->len = addr - m->addr;
		} else if (hp->nr_maps == MAX_MAPPINGS) {
			ret = -ENOMEM;
		} else {
			hp->maps[hp->nr_maps++] = (struct host_mapping){ end, m_end - end,
									 m->prot };
			m->len = addr - m->addr;
		}
		break;
	}
	pthread_mutex_unlock(&hp->maps_lock);
	if (ret)
		return ret;
	return munmap((void *)(uintptr_t)addr, (size_t)len) ? -errno : 0;
}

static int local_madvise(struct host_proc *hp, uint64_t addr, uint64_t len, int advice)
{
	static const int map[] = {
		[FL_MADV_DONTNEED] = MADV_DONTNEED, [FL_MADV_FREE] = MADV_FREE,
		[FL_MADV_COLD] = MADV_COLD,	    [FL_MADV_PAGEOUT] = MADV_PAGEOUT,
		[FL_MADV_HUGEPAGE] = MADV_HUGEPAGE, [FL_MADV_NOHUGEPAGE] = MADV_NOHUGEPAGE,
		[FL_MADV_COLLAPSE] = MADV_COLLAPSE,
	};

	if (advice < 0 || advice >= (int)(sizeof(map) / sizeof(map[0])))
		return -EINVAL;
	if (!maps_cover(hp, addr, len, 0))
		return -ENOMEM; /* what madvise says of an unmapped range */
	return madvise((void *)(uintptr_t)addr, (size_t)len, map[advice]) ? -errno : 0;
}

static int local_write(struct host_proc *hp, uint64_t addr, uint64_t len, uint64_t stride,
		       uint64_t tag, uint64_t tag_step)
{
	uint64_t i, n;

	if (!stride || stride % 8)
		return -EINVAL;
	n = len / stride;
	if (!maps_cover(hp, addr, n * stride, FL_PROT_WRITE))
		return -EFAULT;
	for (i = 0; i < n; i++)
		*(volatile uint64_t *)(uintptr_t)(addr + i * stride) = tag + i * tag_step;
	return 0;
}

static int local_read(struct host_proc *hp, uint64_t addr, uint64_t len, uint64_t stride,
		      uint64_t *tags, uint64_t *sum)
{
	uint64_t i, n, s = 0;

	if (!stride || stride % 8)
		return -EINVAL;
	n = len / stride;
	if (!maps_cover(hp, addr, n * stride, FL_PROT_READ))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		uint64_t v = *(volatile uint64_t *)(uintptr_t)(addr + i * stride);

		if (tags)
			tags[i] = v;
		s += v;
	}
	if (sum)
		*sum = s;
	return 0;
}

/* --- threads --------------------------------------------------------------- */

struct task {
	struct fl_thread th;
	void (*fn)(struct fl_thread *th, void *arg);
	void *arg;
	pthread_t tid;
};

static void *task_main(void *p)
{
	struct task *tk = p;

	if (tk->th.cpu < host_nr_cpus()) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(tk->th.cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	tk->fn(&tk->th, tk->arg);
	return NULL;
}

/* Run the threads of one local process; joins them all. */
static int run_local(struct fl_proc *p, const int *idx, int n,
		     void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct task *tk = fl_calloc((size_t)n, sizeof(*tk));
	int i, started = 0, ret = 0;

	if (!tk)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		tk[i].th.proc = p;
		tk[i].th.index = idx[i];
		tk[i].th.cpu = idx[i];
		tk[i].fn = fn;
		tk[i].arg = arg;
		ret = -pthread_create(&tk[i].tid, NULL, task_main, &tk[i]);
		if (ret)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tk[i].tid, NULL);
	fl_free(tk);
	return ret;
}

/* --- child processes ------------------------------------------------------ */

static int full_io(int fd, void *buf, size_t len, bool out)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void serve(struct host_proc *hp, int sock)
{
	struct request rq;
	struct reply rp;

	while (!full_io(sock, &rq, sizeof(rq), false)) {
		uint64_t *tags = NULL;
		int *idx = NULL;

		memset(&rp, 0, sizeof(rp));
		switch (rq.op) {
		case REQ_MMAP:
			rp.ret = local_mmap(hp, rq.a, rq.arg, (int)rq.b, &rp.v);
			break;
		case REQ_MUNMAP:
			rp.ret = local_munmap(hp, rq.a, rq.b);
			break;
		case REQ_MADVISE:
			rp.ret = local_madvise(hp, rq.a, rq.b, rq.arg);
			break;
		case REQ_WRITE:
			rp.ret = local_write(hp, rq.a, rq.b, rq.c, rq.d, rq.e);
			break;
		case REQ_READ:
			if (rq.want_tags && rq.c)
				tags = calloc((size_t)(rq.b / rq.c) + 1, sizeof(*tags));
			rp.ret = rq.want_tags && !tags
					 ? -ENOMEM
					 : local_read(hp, rq.a, rq.b, rq.c, tags, &rp.v);
			break;
		case REQ_RUN:
			idx = calloc((size_t)rq.nr_threads, sizeof(*idx));
			if (!idx || full_io(sock, idx, (size_t)rq.nr_threads * sizeof(*idx), false))
				_exit(1);
			rp.ret = run_local(&hp->base, idx, rq.nr_threads, rq.fn, rq.fn_arg);
			free(idx);
			break;
		case REQ_EXIT:
		default:
			_exit(0);
		}
		if (full_io(sock, &rp, sizeof(rp), true))
			_exit(1);
		if (rq.op == REQ_READ && rq.want_tags && !rp.ret &&
		    full_io(sock, tags, (size_t)(rq.b / rq.c) * sizeof(*tags), true))
			_exit(1);
		free(tags);
	}
	_exit(0);
}

static int call(struct host_proc *hp, struct request *rq, struct reply *rp)
{
	if (full_io(hp->sock, rq, sizeof(*rq), true) || full_io(hp->sock, rp, sizeof(*rp), false))
		return -EPIPE;
	return rp->ret;
}

static int host_proc_create(struct fl_target *t, struct fl_proc **out)
{
	struct host_target *ht = (struct host_target *)t;
	struct host_proc *hp = fl_calloc(1, sizeof(*hp));
	int sv[2];
	pid_t pid, parent = getpid();

	if (!hp)
		return -ENOMEM;
	hp->base.target = t;
	hp->main.proc = &hp->base;
	hp->main.index = -1;
	hp->main.cpu = 0;
	hp->sock = -1;
	pthread_mutex_init(&hp->maps_lock, NULL);
	if (!ht->self_in_use) {
		ht->self_in_use = true;
		hp->pid = getpid();
		*out = &hp->base;
		return 0;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fl_free(hp);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		fl_free(hp);
		return -errno;
	}
	if (pid == 0) {
		close(sv[0]);
		fl__host_forget_in_child();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		hp->pid = getpid();
		serve(hp, sv[1]);
	}
	close(sv[1]);
	hp->pid = pid;
	hp->sock = sv[0];
	*out = &hp->base;
	return 0;
}

static int host_proc_exit(struct fl_proc *p)
{
	struct host_target *ht = (struct host_target *)p->target;
	struct host_proc *hp = to_hp(p);
	int i;

	if (is_local(hp)) {
		for (i = 0; i < hp->nr_maps; i++)
			munmap((void *)(uintptr_t)hp->maps[i].addr, (size_t)hp->maps[i].len);
		ht->self_in_use = false;
	} else {
		struct request rq = { .op = REQ_EXIT };

		full_io(hp->sock, &rq, sizeof(rq), true);
		close(hp->sock);
		waitpid(hp->pid, NULL, 0);
	}
	pthread_mutex_destroy(&hp->maps_lock);
	fl_free(hp);
	return 0;
}

static struct fl_thread *host_proc_main(struct fl_proc *p)
{
	return &to_hp(p)->main;
}

static int host_run_tasks(struct fl_target *t, struct fl_proc **procs, int n,
			  void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	int *idx, i, j, k, m, ret = 0, r;
	struct fl_proc **done;

	(void)t;
	if (n < 1)
		return -EINVAL;
	idx = fl_calloc((size_t)n, sizeof(*idx));
	done = fl_calloc((size_t)n, sizeof(*done));
	if (!idx || !done) {
		fl_free(idx);
		fl_free(done);
		return -ENOMEM;
	}
	/* start the children's threads first, then ours, then collect */
	for (k = 0, m = 0; k < n; k++) {
		struct host_proc *hp = to_hp(procs[k]);
		struct request rq = { .op = REQ_RUN, .fn = fn, .fn_arg = arg };
		bool seen = false;

		for (j = 0; j < m && !seen; j++)
			seen = done[j] == procs[k];
		if (seen || is_local(hp))
			continue;
		done[m++] = procs[k];
		for (i = 0, rq.nr_threads = 0; i < n; i++)
			if (procs[i] == procs[k])
				idx[rq.nr_threads++] = i;
		if (full_io(hp->sock, &rq, sizeof(rq), true) ||
		    full_io(hp->sock, idx, (size_t)rq.nr_threads * sizeof(*idx), true))
			ret = -EPIPE;
	}
	for (k = 0, j = 0; k < n; k++)
		if (is_local(to_hp(procs[k])))
			idx[j++] = k;
	if (j) {
		r = run_local(procs[idx[0]], idx, j, fn, arg);
		if (r && !ret)
			ret = r;
	}
	for (k = 0; k < m; k++) {
		struct reply rp;

		if (full_io(to_hp(done[k])->sock, &rp, sizeof(rp), false))
			r = -EPIPE;
		else
			r = rp.ret;
		if (r && !ret)
			ret = r;
	}
	fl_free(idx);
	fl_free(done);
	return ret;
}

static int host_mmap(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MMAP, .a = len, .arg = prot, .b = (uint64_t)flags };
	struct reply rp;
	int ret;

	if (is_local(hp))
		return local_mmap(hp, len, prot, flags, addr);
	ret = call(hp, &rq, &rp);
	if (!ret)
		*addr = rp.v;
	return ret;
}

static int host_munmap(struct fl_thread *th, uint64_t addr, uint64_t len)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MUNMAP, .a = addr, .b = len };
	struct reply rp;

	return is_local(hp) ? local_munmap(hp, addr, len) : call(hp, &rq, &rp);
}

static int host_madvise(struct fl_thread *th, uint64_t addr, uint64_t len, int advice)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MADVISE, .a = addr, .b = len, .arg = advice };
	struct reply rp;

	return is_local(hp) ? local_madvise(hp, addr, len, advice) : call(hp, &rq, &rp);
}

static int host_write(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		      uint64_t tag, uint64_t tag_step)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = {
		.op = REQ_WRITE, .a = addr, .b = len, .c = stride, .d = tag, .e = tag_step
	};
	struct reply rp;

	return is_local(hp) ? local_write(hp, addr, len, stride, tag, tag_step)
			    : call(hp, &rq, &rp);
}

static int host_read(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		     uint64_t *tags, uint64_t *sum)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = {
		.op = REQ_READ, .a = addr, .b = len, .c = stride, .want_tags = tags != NULL
	};
	struct reply rp;
	int ret;

	if (is_local(hp))
		return local_read(hp, addr, len, stride, tags, sum);
	if (!stride)
		return -EINVAL;
	ret = call(hp, &rq, &rp);
	if (ret)
		return ret;
	if (tags && full_io(hp->sock, tags, (size_t)(len / stride) * sizeof(*tags), false))
		return -EPIPE;
	if (sum)
		*sum = rp.v;
	return 0;
}

const struct fl_target_ops fl__host_target_ops = {
	.name = "host",
	.open = host_open,
	.quiesce = host_quiesce,
	.close = host_close,
	.check_knobs = host_check_knobs,
	.set_knobs = host_set_knobs,
	.knobs = host_knobs,
	.counters = host_counters,
	.meminfo = host_meminfo,
	.begin = host_begin,
	.end = host_end,
	.locks = host_locks,
	.describe = host_describe,
	.shared_alloc = host_shared_alloc,
	.proc_create = host_proc_create,
	.proc_exit = host_proc_exit,
	.proc_main = host_proc_main,
	.run_tasks = host_run_tasks,
	.mmap = host_mmap,
	.munmap = host_munmap,
	.madvise = host_madvise,
	.write = host_write,
	.read = host_read,
};
