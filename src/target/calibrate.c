// SPDX-License-Identifier: GPL-2.0-only
/*
 * calibrate.c - foliolab calibrate: measure this machine's kernel and
 * write the cost file the virtual-CPU platform charges from (cost.h).
 *
 * Only measurements of the real kernel and CPU go in; the seeds' figures
 * never do (they are the check of the whole model). Three sources:
 *
 *  1. Probes on this CPU: a system call (getppid), zeroing and copying
 *     4 KiB (rep stosb / rep movsb, as clear_page_erms and copy_page do),
 *     an uncontended lock and unlock (lock cmpxchg and a release store), a
 *     cache line moved between two CPUs (two pinned threads taking turns
 *     on one word), an XArray-like walk (dependent loads through 64-slot
 *     nodes), and a VMA made and removed (mmap + munmap minus two system
 *     calls).
 *  2. perf record over the host's lru-microbench at 4K and 16K (one
 *     thread): the share of the kernel's time in the allocator, the buddy
 *     lists, the frees, the LRU lists, the spinlocks and clear_page,
 *     divided by how often the model does each (its fl_cost_* counters in
 *     the same run on sim) gives those costs.
 *  3. The rest, from the host's phase times (access pass, read-back,
 *     madvise) against the model's on sim with the costs known so far:
 *     the read-back per page is user_access; what the access pass costs
 *     beyond the known parts, at 4K and 16K, solves for the fault's fixed
 *     cost and the per-page set_pte; the madvise's for zap_pte; a one-page
 *     loop for tlb_flush; the same loop on two threads of one process for
 *     the IPI; a tmpfs hole punch through PMD folios for split_page.
 *
 * The check at the end runs the host and the sim on lru-microbench and
 * page-fault1 at 1 and 2 threads, 4K and 16K, and prints how far apart
 * their times are (the bound: 15%).
 *
 * Conventions in this file: times in ns as doubles; "sim" is the model on
 * the virtual-CPU platform with the LRU rule of the host's kernel (order0).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <foliolab/foliolab.h>
#include "../platform/cost.h"
#include "../platform/platform.h"
#include "host.h"

extern char **environ;

#define CHECK_BOUND 0.15 /* the issue's: sim within 15% of the host */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define ROUNDS 7

/* ---- 1. probes on this CPU ---- */

static double probe_syscall(void)
{
	double r[ROUNDS];
	int k, i;

	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns();

		for (i = 0; i < 100000; i++)
			syscall(SYS_getppid);
		r[k] = (now_ns() - t0) / 100000;
	}
	return median(r, ROUNDS);
}

/* Zero (@src NULL) or copy 4 KiB pages over @len bytes, as the kernel's string ops do. */
static void pages_op(char *dst, const char *src, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += 4096) {
		void *d = dst + off;
		size_t n = 4096;

		if (src) {
			const void *s = src + off;

			__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
		} else {
			__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
		}
	}
}

/* pages_op()'s time per 4 KiB, the median of ROUNDS */
static double probe_pages(char *dst, const char *src, size_t len)
{
	double r[ROUNDS];
	int k;

	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns();

		pages_op(dst, src, len);
		r[k] = (now_ns() - t0) / (double)(len / 4096);
	}
	return median(r, ROUNDS);
}

static double probe_lock(void)
{
	static unsigned int word;
	double r[ROUNDS];
	int k, i;

	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns();

		for (i = 0; i < 1000000; i++) {
			unsigned int expected = 0;

			while (!__atomic_compare_exchange_n(&word, &expected, 1, false,
							    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				expected = 0;
			__atomic_store_n(&word, 0, __ATOMIC_RELEASE);
		}
		r[k] = (now_ns() - t0) / 1000000;
	}
	return median(r, ROUNDS);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

struct pingpong {
	unsigned long word; /* atomic: even, the first thread's turn; odd, the second's */
	long turns;
};

static void *pong_main(void *p)
{
	struct pingpong *pp = p;
	long i;

	pin_to(1);
	for (i = 0; i < pp->turns; i++) {
		while ((__atomic_load_n(&pp->word, __ATOMIC_ACQUIRE) & 1) == 0)
			__builtin_ia32_pause();
		__atomic_fetch_add(&pp->word, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* One cache line's move between CPU 0 and CPU 1: half a round trip. -1 with one CPU. */
static double probe_cacheline(void)
{
	double r[ROUNDS];
	int k;

	if (fl__host_nr_cpus() < 2)
		return -1;
	for (k = 0; k < ROUNDS; k++) {
		struct pingpong pp __attribute__((aligned(64))) = { .word = 0, .turns = 100000 };
		pthread_t tid;
		double t0;
		long i;

		pin_to(0);
		if (pthread_create(&tid, NULL, pong_main, &pp))
			return -1;
		t0 = now_ns();
		for (i = 0; i < pp.turns; i++) {
			while (__atomic_load_n(&pp.word, __ATOMIC_ACQUIRE) & 1)
				__builtin_ia32_pause();
			__atomic_fetch_add(&pp.word, 1, __ATOMIC_RELEASE);
		}
		pthread_join(tid, NULL);
		r[k] = (now_ns() - t0) / (2.0 * (double)pp.turns);
	}
	return median(r, ROUNDS);
}

/*
 * The clearing bandwidth: @n threads, one on each of CPUs 0..n-1, each
 * clears its own pre-faulted 16 MiB 4 KiB at a time (rep stosb, as
 * clear_page does) for BW_PASSES passes, all starting together.
 */
#define BW_BYTES (16ul << 20)
#define BW_PASSES 8
struct bw_thread {
	int cpu;
	char *buf;
	unsigned int *go; /* atomic: threads ready, then released at n + 1 */
	int n;
	double ns; /* per 4 KiB */
};

static void *bw_main(void *p)
{
	struct bw_thread *t = p;
	double t0;
	int pass;

	pin_to(t->cpu);
	memset(t->buf, 1, BW_BYTES);
	__atomic_fetch_add(t->go, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(t->go, __ATOMIC_ACQUIRE) <= (unsigned int)t->n)
		__builtin_ia32_pause();
	t0 = now_ns();
	for (pass = 0; pass < BW_PASSES; pass++)
		pages_op(t->buf, NULL, BW_BYTES);
	t->ns = (now_ns() - t0) / (double)(BW_PASSES * (BW_BYTES / 4096));
	return NULL;
}

/* ns per 4 KiB per thread with @n threads at once (the median of 3), or -1 */
static double probe_bandwidth_at(int n)
{
	double r[3];
	int k;

	for (k = 0; k < 3; k++) {
		struct bw_thread *t = calloc((size_t)n, sizeof(*t));
		pthread_t *tid = calloc((size_t)n, sizeof(*tid));
		unsigned int go = 0;
		double sum = 0;
		int i, started = 0;

		if (!t || !tid)
			goto fail;
		for (i = 0; i < n; i++) {
			t[i] = (struct bw_thread){ .cpu = i, .go = &go, .n = n };
			t[i].buf = mmap(NULL, BW_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (t[i].buf == MAP_FAILED) {
				t[i].buf = NULL;
				break;
			}
			if (pthread_create(&tid[i], NULL, bw_main, &t[i])) {
				munmap(t[i].buf, BW_BYTES);
				t[i].buf = NULL;
				break;
			}
			started++;
		}
		while (started == n && __atomic_load_n(&go, __ATOMIC_ACQUIRE) < (unsigned int)n)
			sched_yield();
		/* all ready (or a start failed: release those that started) */
		__atomic_store_n(&go, (unsigned int)n + 1, __ATOMIC_RELEASE);
		for (i = 0; i < started; i++) {
			pthread_join(tid[i], NULL);
			sum += t[i].ns;
			munmap(t[i].buf, BW_BYTES);
		}
		free(t);
		free(tid);
		if (started < n)
			return -1;
		r[k] = sum / n;
		continue;
fail:
		free(t);
		free(tid);
		return -1;
	}
	return median(r, 3);
}

/*
 * The curve at 1, 2, 4, 8 CPUs, then every 8 (wider on machines past 472
 * CPUs, to fit FL_BW_POINTS) and at all of them, into @bw, logged to
 * @log. On one CPU there is no curve (bandwidth unlimited).
 */
static void probe_bandwidth(struct fl_bw_curve *bw, FILE *log)
{
	int cpus = fl__host_nr_cpus(), step = 8, n;

	memset(bw, 0, sizeof(*bw));
	if (cpus < 2) {
		fprintf(log, "  bandwidth: one host CPU, no curve\n");
		return;
	}
	if (cpus / step > FL_BW_POINTS - 5)
		step = cpus / (FL_BW_POINTS - 5) + 1;
	for (n = 1; bw->n < FL_BW_POINTS; n = n < 8 ? n * 2 : n + step) {
		double ns;

		if (n > cpus)
			n = cpus;
		if (bw->n && n <= bw->cpus[bw->n - 1])
			break;
		ns = probe_bandwidth_at(n);
		if (ns <= 0) {
			fprintf(log,
				"  bandwidth: %d threads could not run; the curve ends there\n", n);
			break;
		}
		bw->cpus[bw->n] = n;
		bw->ps[bw->n++] = (uint64_t)llround(ns * 1000.0);
		fprintf(log, "  bandwidth.%-4d %8.2f ns per 4 KiB per CPU\n", n, ns);
	}
}

/* Dependent loads through 64-slot nodes (an XArray walk's shape), per node. */
static double probe_xa_node(void)
{
	enum { NODES = 4096, SLOTS = 64 };
	void ***nodes = malloc(NODES * sizeof(*nodes));
	double r[ROUNDS];
	unsigned long x = 88172645463325252ull;
	int k, i;

	if (!nodes)
		return -1;
	for (i = 0; i < NODES; i++)
		nodes[i] = calloc(SLOTS, sizeof(void *));
	for (i = 0; i < NODES; i++) {
		if (!nodes[i])
			goto out;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		nodes[i][x % SLOTS] = nodes[(x >> 8) % NODES];
	}
	for (k = 0; k < ROUNDS; k++) {
		void **n = nodes[0];
		double t0 = now_ns();
		unsigned long off = 0;

		for (i = 0; i < 1000000; i++) {
			void **next = n[off % SLOTS];

			while (!next) /* follow the one set slot */
				next = n[++off % SLOTS];
			n = next;
		}
		r[k] = (now_ns() - t0) / 1000000;
		if (!n)
			r[k] = 0;
	}
out:
	for (i = 0; i < NODES; i++)
		free(nodes[i]);
	free(nodes);
	return i == NODES ? median(r, ROUNDS) : -1;
}

/* mmap + munmap of one untouched page, less its two system calls, per VMA. */
static double probe_vma(double syscall_ns)
{
	double r[ROUNDS];
	int k, i;

	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns();

		for (i = 0; i < 20000; i++) {
			void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return -1;
			munmap(p, 4096);
		}
		r[k] = (now_ns() - t0) / 20000 - 2 * syscall_ns;
	}
	return fmax(median(r, ROUNDS), 0);
}

/* ---- 2. perf record over a host run ---- */

struct perf_group {
	enum fl_cost_id id;
	const char *const *prefixes;
};

/* Kernel symbols (6.x) by cost; tested in order, so "rmqueue_bulk" is buddy, not alloc. */
static const char *const buddy_syms[] = { "rmqueue_bulk",
					  "__rmqueue",
					  "expand",
					  "__free_one_page",
					  "free_one_page",
					  "free_pcppages_bulk",
					  "__del_page_from_free_list",
					  "__add_to_free_list",
					  "del_page_from_free_list",
					  "move_to_free_list",
					  NULL };
static const char *const alloc_syms[] = {
	"get_page_from_freelist", "__alloc_",	 "alloc_pages",	      "alloc_anon_folio",
	"vma_alloc_folio",	  "folio_alloc", "__folio_alloc",     "prep_new_page",
	"post_alloc_hook",	  "rmqueue",	 "__rmqueue_pcplist", NULL
};
static const char *const free_syms[] = { "free_unref_folios",
					 "free_frozen_page",
					 "free_unref_page",
					 "__free_pages_prepare",
					 "free_pages_prepare",
					 "__folio_put",
					 "folios_put_refs",
					 "free_pages_and_swap_cache",
					 "__tlb_batch_free_encoded_pages",
					 "release_pages",
					 NULL };
static const char *const lru_syms[] = { "folio_batch_move_lru",
					"lru_add",
					"__folio_batch_add_and_move",
					"folio_add_lru",
					"lru_gen_",
					"__page_cache_release",
					"lruvec_",
					"folio_lruvec_lock",
					"mem_cgroup_update_lru_size",
					NULL };
static const char *const lock_syms[] = { "_raw_spin_", "native_queued_spin_lock_slowpath",
					 "queued_spin_lock_slowpath", "__pv_queued_spin", NULL };
static const char *const clear_syms[] = { "clear_page",	   "folio_zero_user", "clear_huge_page",
					  "clear_subpage", "clear_user_page", NULL };

static const struct perf_group perf_groups[] = {
	{ FL_COST_BUDDY, buddy_syms },	   { FL_COST_FOLIO_ALLOC, alloc_syms },
	{ FL_COST_FOLIO_FREE, free_syms }, { FL_COST_LRU_MOVE, lru_syms },
	{ FL_COST_LOCK, lock_syms },	   { FL_COST_CLEAR_PAGE, clear_syms },
};
#define NR_GROUPS (sizeof(perf_groups) / sizeof(perf_groups[0]))

static pid_t perf_start(const char *data)
{
	char pid[16];
	/* -N: no build-id cache written under ~/.debug */
	char *argv[] = { "perf", "record", "-q", "-N", "-e",	     "cpu-clock", "-F",
			 "4999", "-p",	   pid,	 "-o", (char *)data, NULL };
	pid_t child;
	int st;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (posix_spawnp(&child, "perf", NULL, NULL, argv, environ))
		return -1;
	usleep(300000); /* attached, or gone */
	if (waitpid(child, &st, WNOHANG) == child)
		return -1;
	return child;
}

static void perf_stop(pid_t child)
{
	int st;

	kill(child, SIGINT);
	waitpid(child, &st, 0);
}

/* The shares (0..1) of @data's samples in each group. Return: 0, or -1 without a report. */
static int perf_shares(const char *data, double share[NR_GROUPS])
{
	char cmd[1024], line[512];
	FILE *p;
	int lines = 0;
	size_t g;

	memset(share, 0, NR_GROUPS * sizeof(*share));
	snprintf(cmd, sizeof(cmd),
		 "perf report -i '%s' --stdio --sort sym --percent-limit 0 2>/dev/null", data);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char sym[256], kind[8];
		double pct;

		if (sscanf(line, " %lf%% %7s %255s", &pct, kind, sym) != 3 || strcmp(kind, "[k]"))
			continue;
		lines++;
		for (g = 0; g < NR_GROUPS; g++) {
			const char *const *s;

			for (s = perf_groups[g].prefixes; *s; s++)
				if (!strncmp(sym, *s, strlen(*s)))
					break;
			if (*s) {
				share[g] += pct / 100.0;
				break;
			}
		}
	}
	pclose(p);
	return lines ? 0 : -1;
}

/* ---- runs on the host and on sim ---- */

struct runspec {
	const char *workload;
	const char *mthp;   /* "16kB" or NULL for 4K pages only */
	const char *params; /* "name=value name=value" */
};

static void runspec_config(struct fl_config *cfg, const struct runspec *rs, bool sim,
			   const char *costs)
{
	char buf[256], *save = NULL, *tok;
	char knob[96];

	fl_config_init(cfg, rs->workload);
	snprintf(buf, sizeof(buf), "%s", rs->params);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		fl_config_set_param(cfg, tok, eq + 1);
	}
	if (rs->mthp) {
		snprintf(knob, sizeof(knob), "transparent_hugepage/hugepages-%s/enabled", rs->mthp);
		fl_config_set_knob(cfg, knob, "always");
	}
	if (sim) {
		snprintf(cfg->target, sizeof(cfg->target), "model");
		cfg->sim = true;
		cfg->costs = costs;
		fl_config_set_knob(cfg, "foliolab/lru_cache", "order0");
	} else {
		snprintf(cfg->target, sizeof(cfg->target), "host");
	}
}

static int do_run(const struct runspec *rs, bool sim, const char *costs, struct fl_result *res,
		  char *err, size_t len)
{
	struct fl_config cfg;
	int ret;

	runspec_config(&cfg, rs, sim, costs);
	ret = fl_run(&cfg, res, err, len);
	if (!ret && res->status) {
		snprintf(err, len, "%s on %s: %s", rs->workload, sim ? "sim" : "the host",
			 res->error);
		fl_result_free(res);
		return -EIO;
	}
	return ret;
}

static double metric(const struct fl_result *r, const char *name);

/*
 * A fitted host run: the median of three by the time of its phases (the
 * host's fault speed moves from run to run).
 */
static int host_median_run(const struct runspec *rs, struct fl_result *res, char *err, size_t len)
{
	struct fl_result r[3];
	double t[3];
	int i, j, ret, mid = 0;

	for (i = 0; i < 3; i++) {
		ret = do_run(rs, false, NULL, &r[i], err, len);
		if (ret) {
			while (i-- > 0)
				fl_result_free(&r[i]);
			return ret;
		}
		t[i] = metric(&r[i], "access_ns") + metric(&r[i], "check_ns") +
		       metric(&r[i], "advice_ns");
	}
	for (i = 0; i < 3; i++) {
		int below = 0;

		for (j = 0; j < 3; j++)
			below += t[j] < t[i] || (t[j] == t[i] && j < i);
		if (below == 1)
			mid = i;
	}
	for (i = 0; i < 3; i++)
		if (i != mid)
			fl_result_free(&r[i]);
	*res = r[mid];
	return 0;
}

static double metric(const struct fl_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	return 0;
}

static double count(const struct fl_result *r, enum fl_cost_id id)
{
	char name[48];

	snprintf(name, sizeof(name), "fl_cost_%s", fl__cost_info[id].name);
	return (double)fl_counters_get(&r->counters, name);
}

/* What the sim charged for @id in @r, in ns. */
static double charged(const struct fl_result *r, const double *c, enum fl_cost_id id)
{
	return count(r, id) * c[id];
}

static void to_ps(const double *c, uint64_t *ps)
{
	int i;

	for (i = 0; i < FL_NR_COSTS; i++)
		ps[i] = (uint64_t)llround(fmax(c[i], 0) * 1000.0);
}

/* ---- the calibration ---- */

/* The measured host runs: [A] 4K and [B] 16K, one thread, the phase times. */
static const struct runspec RUN_A = { "lru-microbench", NULL, "threads=1 loops=100 size=8M" };
static const struct runspec RUN_B = { "lru-microbench", "16kB", "threads=1 loops=100 size=8M" };
/* [E] one page a loop (the TLB flush), [F] the same on two threads of one process (IPIs) */
static const struct runspec RUN_E = { "lru-microbench", NULL, "threads=1 loops=20000 size=4K" };
static const struct runspec RUN_F = { "lru-microbench", NULL,
				      "threads=2 loops=20000 size=4K vma=private" };
/* [S] a hole punched through every PMD folio of a tmpfs file: the split */
#define SPLIT_ROUNDS 3
static const struct runspec RUN_S = { "shmem-split", NULL, "method=punch file-size=64M rounds=3" };

static const struct runspec CHECKS[] = {
	{ "lru-microbench", NULL, "threads=1 loops=100 size=8M" },
	{ "lru-microbench", "16kB", "threads=1 loops=100 size=8M" },
	{ "lru-microbench", NULL, "threads=2 loops=100 size=8M" },
	{ "lru-microbench", "16kB", "threads=2 loops=100 size=8M" },
	{ "page-fault1", NULL, "threads=1 seconds=0.5 size=16M" },
	{ "page-fault1", "16kB", "threads=1 seconds=0.5 size=16M" },
	{ "page-fault1", NULL, "threads=2 seconds=0.5 size=16M" },
	{ "page-fault1", "16kB", "threads=2 seconds=0.5 size=16M" },
};
#define NR_CHECKS (sizeof(CHECKS) / sizeof(CHECKS[0]))

/* The time a check compares: the run's, or per page for page-fault1 (it runs for a time). */
static double check_time(const struct runspec *rs, const struct fl_result *r)
{
	if (!strcmp(rs->workload, "page-fault1")) {
		double pages = metric(r, "pages");

		return pages > 0 ? r->wall_s * 1e9 / pages : 0;
	}
	return r->wall_s * 1e9;
}

struct calib {
	double c[FL_NR_COSTS];
	char how[FL_NR_COSTS][96]; /* where each came from */
	char tmpdir[512];	   /* private (0700, outfile.c): the files below */
	char tmp_costs[600];	   /* the costs so far, for the sim's runs */
	struct fl_cost_prov prov;
	struct fl_bw_curve bw; /* the clearing bandwidth's curve */
	FILE *log;
};

static int write_tmp(struct calib *k)
{
	uint64_t ps[FL_NR_COSTS];
	FILE *f = fopen(k->tmp_costs, "w");
	int ret;

	if (!f)
		return -errno;
	to_ps(k->c, ps);
	ret = fl_costs_write(f, ps, &k->prov, &k->bw, NULL);
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

static int sim_run(struct calib *k, const struct runspec *rs, struct fl_result *r, char *err,
		   size_t len)
{
	int ret = write_tmp(k);

	if (ret) {
		snprintf(err, len, "cannot write %s: %s", k->tmp_costs, strerror(-ret));
		return ret;
	}
	return do_run(rs, true, k->tmp_costs, r, err, len);
}

static void set_cost(struct calib *k, enum fl_cost_id id, double ns, const char *how)
{
	k->c[id] = fmax(ns, 0);
	snprintf(k->how[id], sizeof(k->how[id]), "%s%s", how, ns < 0 ? " (negative: 0)" : "");
	fprintf(k->log, "  %-12s %9.2f ns  %s\n", fl__cost_info[id].name, k->c[id], k->how[id]);
}

/* Host runs A and B under perf record: the groups' costs per charge. */
static int perf_costs(struct calib *k, struct fl_result *ha, struct fl_result *hb, char *err,
		      size_t len)
{
	const struct runspec *rs[2] = { &RUN_A, &RUN_B };
	struct fl_result *hr[2] = { ha, hb }, sr;
	double share[2][NR_GROUPS], t[2], n[2][NR_GROUPS];
	char data[600];
	bool have_perf = true;
	size_t g;
	int i, ret;

	for (i = 0; i < 2; i++) {
		struct fl_result pr;
		pid_t perf;

		/* the phase times without perf (its sampling slows the run), the shares with */
		ret = host_median_run(rs[i], hr[i], err, len);
		if (ret)
			return ret;
		snprintf(data, sizeof(data), "%s/perf.data", k->tmpdir);
		perf = perf_start(data);
		ret = do_run(rs[i], false, NULL, &pr, err, len);
		if (perf > 0)
			perf_stop(perf);
		if (ret)
			return ret;
		fl_result_free(&pr);
		if (perf <= 0 || perf_shares(data, share[i]))
			have_perf = false;
		unlink(data);
		t[i] = metric(hr[i], "access_ns") + metric(hr[i], "check_ns") +
		       metric(hr[i], "advice_ns");
	}
	if (!have_perf) {
		fprintf(k->log, "  (perf record is not available: the allocator, buddy, free, "
				"LRU and lock costs stay 0 and land in the fault and zap costs)\n");
		return 0;
	}
	/* each group's host time over both runs, over the model's charges in the same runs */
	for (i = 0; i < 2; i++) {
		ret = sim_run(k, rs[i], &sr, err, len);
		if (ret)
			return ret;
		for (g = 0; g < NR_GROUPS; g++)
			n[i][g] = count(&sr, perf_groups[g].id);
		fl_result_free(&sr);
	}
	for (g = 0; g < NR_GROUPS; g++) {
		enum fl_cost_id id = perf_groups[g].id;
		double host = share[0][g] * t[0] + share[1][g] * t[1];

		if (n[0][g] + n[1][g] > 0) {
			char how[96];

			snprintf(how, sizeof(how),
				 "perf record: %.1f%% and %.1f%% of the 4K/16K runs",
				 100 * share[0][g], 100 * share[1][g]);
			set_cost(k, id, host / (n[0][g] + n[1][g]), how);
		}
	}
	return 0;
}

/* Sim A, B, E, F with the costs so far; solve the residual costs from the host's. */
static int residual_costs(struct calib *k, const struct fl_result *h[4], char *err, size_t len)
{
	const struct runspec *rs[4] = { &RUN_A, &RUN_B, &RUN_E, &RUN_F };
	struct fl_result s[4];
	double ra[2], n[2], p, rz[2], nz[2], fault, set_pte;
	int i, ret, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			ret = sim_run(k, rs[i], &s[i], err, len);
			if (ret) {
				while (i-- > 0)
					fl_result_free(&s[i]);
				return ret;
			}
		}
		/* access pass: fault * faults + set_pte * pages is what the rest leaves */
		for (i = 0; i < 2; i++) {
			ra[i] = metric(h[i], "access_ns") - metric(&s[i], "access_ns") +
				charged(&s[i], k->c, FL_COST_FAULT) +
				charged(&s[i], k->c, FL_COST_SET_PTE);
			n[i] = count(&s[i], FL_COST_FAULT);
		}
		p = count(&s[0], FL_COST_SET_PTE);
		fault = n[0] > n[1] ? (ra[0] - ra[1]) / (n[0] - n[1]) : 0;
		set_pte = p > 0 ? (ra[0] - fault * n[0]) / p : 0;
		/* madvise: zap_pte per page is what the rest leaves, over both sizes */
		for (i = 0; i < 2; i++) {
			rz[i] = metric(h[i], "advice_ns") - metric(&s[i], "advice_ns") +
				charged(&s[i], k->c, FL_COST_ZAP_PTE);
			nz[i] = count(&s[i], FL_COST_ZAP_PTE);
		}
		fprintf(k->log, " pass %d:\n", pass + 1);
		set_cost(k, FL_COST_FAULT, fault,
			 "host access pass at 4K and 16K, less the known parts");
		set_cost(k, FL_COST_SET_PTE, set_pte, "the same, per page");
		set_cost(k, FL_COST_ZAP_PTE,
			 nz[0] + nz[1] > 0 ? (rz[0] + rz[1]) / (nz[0] + nz[1]) : 0,
			 "host madvise at 4K and 16K, less the known parts");
		/* one page a loop: the flush is what the rest leaves */
		if (count(&s[2], FL_COST_TLB_FLUSH) > 0)
			set_cost(k, FL_COST_TLB_FLUSH,
				 (metric(h[2], "advice_ns") - metric(&s[2], "advice_ns") +
				  charged(&s[2], k->c, FL_COST_TLB_FLUSH)) /
					 count(&s[2], FL_COST_TLB_FLUSH),
				 "host 1-page madvise loop, less the known parts");
		if (count(&s[3], FL_COST_IPI) > 0)
			set_cost(k, FL_COST_IPI,
				 (metric(h[3], "advice_ns") - metric(&s[3], "advice_ns") +
				  charged(&s[3], k->c, FL_COST_IPI)) /
					 count(&s[3], FL_COST_IPI),
				 "host 1-page loop on 2 threads, less the 1-thread sim's parts");
		for (i = 0; i < 4; i++)
			fl_result_free(&s[i]);
	}
	return 0;
}

static int split_cost(struct calib *k, char *err, size_t len)
{
	struct fl_result h, s;
	double pages;
	int ret = do_run(&RUN_S, false, NULL, &h, err, len);

	if (ret) {
		fprintf(k->log, "  split_page: the host's tmpfs run failed (%s); kept at 0\n", err);
		return 0;
	}
	k->c[FL_COST_SPLIT_PAGE] = 0;
	ret = sim_run(k, &RUN_S, &s, err, len);
	if (ret) {
		fl_result_free(&h);
		return ret;
	}
	pages = (double)fl_counters_get(&s.counters, "fl_cost_split_page") / SPLIT_ROUNDS;
	/* split_us is the median round's; the charges are every round's */
	if (pages > 0)
		set_cost(k, FL_COST_SPLIT_PAGE,
			 (metric(&h, "split_us") - metric(&s, "split_us")) * 1000 / pages,
			 "host tmpfs hole punch through PMD folios, less the known parts");
	fl_result_free(&h);
	fl_result_free(&s);
	return 0;
}

static const char *tmp_base(void)
{
	const char *base = getenv("TMPDIR");

	return base && *base ? base : "/tmp";
}

FL_API int fl_calibrate_check(char *err, size_t len)
{
	const struct runspec *all[] = { &RUN_A, &RUN_B, &RUN_E, &RUN_F, &RUN_S };
	char why[400], dir[PATH_MAX];
	struct fl_config cfg;
	size_t i;
	int ret;

	if (geteuid() != 0) {
		snprintf(err, len,
			 "calibrate runs workloads on the host kernel with its THP knobs set and "
			 "a tmpfs mounted: it needs root");
		return -EPERM;
	}
	for (i = 0; i < sizeof(all) / sizeof(all[0]) + NR_CHECKS; i++) {
		runspec_config(&cfg,
			       i < sizeof(all) / sizeof(all[0])
				       ? all[i]
				       : &CHECKS[i - sizeof(all) / sizeof(all[0])],
			       false, NULL);
		if (fl_validate(&cfg, why, sizeof(why))) {
			snprintf(err, len, "calibrate: %s", why);
			return -EINVAL;
		}
	}
	/* its private folder can be made (made again by fl_calibrate()) */
	ret = fl__tmp_create(tmp_base(), "foliolab-calibrate", true, dir, sizeof(dir));
	if (ret < 0) {
		snprintf(err, len, "calibrate: cannot create a private folder in %s: %s",
			 tmp_base(), ret == -EEXIST ? "every name is taken" : strerror(-ret));
		return -EINVAL;
	}
	fl__tmp_remove(dir, true);
	return 0;
}

/* The private folder of the temporaries: the sim's cost file and perf's data. */
static int tmp_folder(struct calib *k, char *err, size_t len)
{
	const char *base = tmp_base();
	char data[600];
	int ret;

	ret = fl__tmp_create(base, "foliolab-calibrate", true, k->tmpdir, sizeof(k->tmpdir));
	if (ret < 0) {
		snprintf(err, len, "cannot create a private folder in %s: %s", base,
			 strerror(-ret));
		return ret;
	}
	snprintf(k->tmp_costs, sizeof(k->tmp_costs), "%s/costs", k->tmpdir);
	snprintf(data, sizeof(data), "%s/perf.data", k->tmpdir);
	if (fl__tmp_track(k->tmp_costs, false) || fl__tmp_track(data, false)) {
		snprintf(err, len, "too many temporary files");
		fl__tmp_remove(k->tmpdir, true);
		return -ENOSPC;
	}
	return 0;
}

static void tmp_folder_remove(struct calib *k)
{
	char data[600];

	snprintf(data, sizeof(data), "%s/perf.data", k->tmpdir);
	fl__tmp_remove(data, false);
	fl__tmp_remove(k->tmp_costs, false);
	fl__tmp_remove(k->tmpdir, true);
}

FL_API int fl_calibrate(FILE *out, const char *out_name, const char *command, FILE *log,
			int *check_failed, char *err, size_t len)
{
	struct fl_result ha, hb, he, hf;
	const struct fl_result *h[4] = { &ha, &hb, &he, &hf };
	struct calib k;
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	cpu_set_t saved;
	char *buf, comment[4096];
	size_t big = 64ull << 20, cl = 0;
	uint64_t ps[FL_NR_COSTS];
	double cache;
	int ret, i, fails = 0;

	memset(&k, 0, sizeof(k));
	k.log = log;
	*check_failed = 0;
	uname(&u);
	snprintf(k.prov.kernel, sizeof(k.prov.kernel), "%.63s", u.release);
	if (fl__host_cpuinfo("model name", k.prov.cpu, sizeof(k.prov.cpu)))
		snprintf(k.prov.cpu, sizeof(k.prov.cpu), "unknown CPU");
	gmtime_r(&now, &tm);
	strftime(k.prov.date, sizeof(k.prov.date), "%Y-%m-%dT%H:%MZ", &tm);
	snprintf(k.prov.command, sizeof(k.prov.command), "%s", command);
	ret = tmp_folder(&k, err, len);
	if (ret)
		return ret;

	fprintf(log, "foliolab calibrate: %s, %s, %d CPUs\n1. probes on this CPU\n", u.release,
		k.prov.cpu, fl__host_nr_cpus());
	sched_getaffinity(0, sizeof(saved), &saved);
	pin_to(0);
	set_cost(&k, FL_COST_SYSCALL, probe_syscall(), "probe: getppid()");
	buf = mmap(NULL, 2 * big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		sched_setaffinity(0, sizeof(saved), &saved);
		snprintf(err, len, "cannot map %zu MiB for the probes", 2 * big >> 20);
		ret = -ENOMEM;
		goto out;
	}
	memset(buf, 1, 2 * big);
	set_cost(&k, FL_COST_CLEAR_PAGE, probe_pages(buf, NULL, big), "probe: rep stosb, 4 KiB");
	set_cost(&k, FL_COST_COPY_PAGE, probe_pages(buf, buf + big, big),
		 "probe: rep movsb, 4 KiB");
	munmap(buf, 2 * big);
	set_cost(&k, FL_COST_LOCK, probe_lock(), "probe: lock cmpxchg + release store");
	cache = probe_cacheline();
	if (cache >= 0)
		set_cost(&k, FL_COST_CACHELINE, cache, "probe: a line between CPU 0 and CPU 1");
	else
		fprintf(log, "  cacheline: one host CPU, not measured: 0\n");
	set_cost(&k, FL_COST_XA_NODE, probe_xa_node(), "probe: dependent loads, 64-slot nodes");
	set_cost(&k, FL_COST_VMA, probe_vma(k.c[FL_COST_SYSCALL]),
		 "probe: mmap + munmap - 2 syscalls");
	sched_setaffinity(0, sizeof(saved), &saved);
	probe_bandwidth(&k.bw, log);

	fprintf(log, "2. perf record over the host's lru-microbench, 4K and 16K\n");
	ret = perf_costs(&k, &ha, &hb, err, len);
	if (ret)
		goto out;
	set_cost(&k, FL_COST_PTE_TABLE, k.c[FL_COST_FOLIO_ALLOC] + k.c[FL_COST_CLEAR_PAGE],
		 "a page allocated and zeroed (folio_alloc + clear_page)");
	set_cost(&k, FL_COST_USER_ACCESS, metric(&ha, "check_ns") / fmax(metric(&ha, "writes"), 1),
		 "host read-back pass per page");

	fprintf(log, "3. the rest, from the host's phase times against the sim's\n");
	ret = host_median_run(&RUN_E, &he, err, len);
	if (!ret) {
		ret = host_median_run(&RUN_F, &hf, err, len);
		if (ret)
			fl_result_free(&he);
	}
	if (!ret) {
		ret = residual_costs(&k, h, err, len);
		fl_result_free(&he);
		fl_result_free(&hf);
	}
	fl_result_free(&ha);
	fl_result_free(&hb);
	if (ret)
		goto out;
	ret = split_cost(&k, err, len);
	if (ret)
		goto out;

	fprintf(log, "4. check: the sim with these costs against the host\n");
	fprintf(log, "  %-16s %-5s %-26s %14s %14s %7s\n", "workload", "page", "options", "host",
		"sim", "sim/host");
	cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl,
			       "# check (sim with these costs against the host, bound %.0f%%):\n",
			       100 * CHECK_BOUND);
	for (i = 0; i < (int)NR_CHECKS; i++) {
		struct fl_result hr, sr;
		double th, ts, ratio;
		char line[256];

		ret = do_run(&CHECKS[i], false, NULL, &hr, err, len);
		if (ret)
			goto out;
		ret = sim_run(&k, &CHECKS[i], &sr, err, len);
		if (ret) {
			fl_result_free(&hr);
			goto out;
		}
		th = check_time(&CHECKS[i], &hr);
		ts = check_time(&CHECKS[i], &sr);
		ratio = th > 0 ? ts / th : 0;
		if (fabs(ratio - 1) > CHECK_BOUND)
			fails++;
		snprintf(line, sizeof(line), "%-16s %-5s %-26s %11.3f %s %11.3f %s %6.2fx%s",
			 CHECKS[i].workload, CHECKS[i].mthp ? "16K" : "4K", CHECKS[i].params,
			 th > 1e6 ? th / 1e6 : th, th > 1e6 ? "ms" : "ns", ts > 1e6 ? ts / 1e6 : ts,
			 ts > 1e6 ? "ms" : "ns", ratio,
			 fabs(ratio - 1) > CHECK_BOUND ? "  OUTSIDE" : "");
		fprintf(log, "  %s\n", line);
		if (cl < sizeof(comment))
			cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl, "#   %s\n",
					       line);
		fl_result_free(&hr);
		fl_result_free(&sr);
	}
	if (cl < sizeof(comment))
		cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl,
				       "# %d of %d within %.0f%%\n# where each cost came from:\n",
				       (int)NR_CHECKS - fails, (int)NR_CHECKS, 100 * CHECK_BOUND);
	for (i = 0; i < FL_NR_COSTS && cl < sizeof(comment); i++)
		cl += (size_t)snprintf(comment + cl, sizeof(comment) - cl, "#   %s: %s\n",
				       fl__cost_info[i].name,
				       k.how[i][0] ? k.how[i] : "not measured here: 0");
	fprintf(log, "  %d of %d within %.0f%%\n", (int)NR_CHECKS - fails, (int)NR_CHECKS,
		100 * CHECK_BOUND);
	*check_failed = fails;
	to_ps(k.c, ps);
	ret = fl_costs_write(out, ps, &k.prov, &k.bw, comment);
	if (ret)
		snprintf(err, len, "cannot write %s: %s", out_name, strerror(-ret));
out:
	tmp_folder_remove(&k);
	return ret;
}
