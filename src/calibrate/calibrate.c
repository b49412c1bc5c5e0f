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
#include <glob.h>
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
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <foliolab/foliolab.h>
#include "../platform/cost.h"
#include "../platform/platform.h"
#include "../lib/json_read.h"
#include "../lib/xarray.h"
#include "../lib/util.h"
#include "../target/host.h"
#include "../record/outfile.h"

extern char **environ;

#define CHECK_BOUND 0.15 /* the issue's: sim within 15% of the host */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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
	return fl_median(r, ROUNDS);
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
	return fl_median(r, ROUNDS);
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
	return fl_median(r, ROUNDS);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Threads on CPUs 0 and 1 taking turns at one word (even: CPU 0's turn,
 * odd: CPU 1's), @n turns each: spinning on it, a turn is one cache
 * line's move (cacheline); sleeping on it in FUTEX_WAIT and waking the
 * other with FUTEX_WAKE (@futex), each CPU idles while the other runs, as
 * a sleeping lock's waiter does, and a turn is one wake-up (wakeup:
 * try_to_wake_up(), the IPI to an idle CPU and its return from idle,
 * microseconds in a guest).
 */
struct turns {
	unsigned int word; /* atomic */
	bool futex;
	long n;
} __attribute__((aligned(64)));

static void take_turns(struct turns *t, unsigned int me)
{
	long i;

	for (i = 0; i < t->n; i++) {
		unsigned int w;

		while (((w = __atomic_load_n(&t->word, __ATOMIC_ACQUIRE)) & 1) != me) {
			if (t->futex)
				syscall(SYS_futex, &t->word, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
			else
				__builtin_ia32_pause();
		}
		__atomic_fetch_add(&t->word, 1, __ATOMIC_RELEASE);
		if (t->futex)
			syscall(SYS_futex, &t->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

static void *turns_main(void *p)
{
	pin_to(1);
	take_turns(p, 1);
	return NULL;
}

/* ns a turn (half a round trip), the median of ROUNDS; -1 with one CPU */
static double probe_turns(bool futex, long n)
{
	double r[ROUNDS];
	int k;

	if (fl__host_nr_cpus() < 2)
		return -1;
	for (k = 0; k < ROUNDS; k++) {
		struct turns t = { .word = 0, .futex = futex, .n = n };
		pthread_t tid;
		double t0;

		pin_to(0);
		if (pthread_create(&tid, NULL, turns_main, &t))
			return -1;
		t0 = now_ns();
		take_turns(&t, 0);
		pthread_join(tid, NULL);
		r[k] = (now_ns() - t0) / (2.0 * (double)n);
	}
	return fl_median(r, ROUNDS);
}

/*
 * What a shootdown's receiver loses (ipi_recv): a thread on CPU 1 counts
 * in a loop while the one on CPU 0 first waits (quiet), then calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) over and over, each an IPI
 * to CPU 1 that runs a handler and returns, as flush_tlb_func() is sent
 * (smp_call_function_many_cond()): the counting lost per IPI, in time, is
 * the interrupt's cost to its receiver, less the flush itself (tlb_flush,
 * which the model charges beside it). -1 with one CPU or no membarrier.
 */
#define IPI_PHASE_NS 40000000.0
struct ipi_probe {
	unsigned long count; /* atomic: the counter's progress */
	unsigned int stop;   /* atomic */
};

static void *ipi_counter(void *p)
{
	struct ipi_probe *ip = p;
	unsigned long n = 0;

	pin_to(1);
	while (!__atomic_load_n(&ip->stop, __ATOMIC_RELAXED))
		__atomic_store_n(&ip->count, ++n, __ATOMIC_RELAXED);
	return NULL;
}

/* counts a ns on CPU 1 over a phase; with @ipis, IPIs sent to it all along, *@ipis of them */
static double ipi_phase(struct ipi_probe *ip, double *ipis)
{
	unsigned long c0 = __atomic_load_n(&ip->count, __ATOMIC_RELAXED), c1;
	double t0 = now_ns(), t;
	long n = 0;

	do {
		if (ipis && !syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
			n++;
		t = now_ns();
	} while (t - t0 < IPI_PHASE_NS);
	c1 = __atomic_load_n(&ip->count, __ATOMIC_RELAXED);
	if (ipis)
		*ipis = (double)n;
	return (double)(c1 - c0) / (t - t0);
}

static double probe_ipi_recv(void)
{
	double r[ROUNDS];
	int k;

	if (fl__host_nr_cpus() < 2 ||
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		return -1;
	for (k = 0; k < ROUNDS; k++) {
		struct ipi_probe ip = { 0, 0 };
		double quiet, storm, quiet2, ipis;
		pthread_t tid;

		pin_to(0);
		if (pthread_create(&tid, NULL, ipi_counter, &ip))
			return -1;
		ipi_phase(&ip, NULL); /* the counter settles on its CPU */
		quiet = ipi_phase(&ip, NULL);
		storm = ipi_phase(&ip, &ipis);
		quiet2 = ipi_phase(&ip, NULL);
		__atomic_store_n(&ip.stop, 1, __ATOMIC_RELAXED);
		pthread_join(tid, NULL);
		quiet = (quiet + quiet2) / 2;
		/* the share of the phase the counter lost, per IPI */
		r[k] = ipis > 0 ? fmax(quiet - storm, 0) / quiet * IPI_PHASE_NS / ipis : -1;
	}
	return fl_median(r, ROUNDS);
}

/*
 * A line an LRU list operation fetches from another CPU inside a batched
 * section (lru_line): CPUs 0 and 1 take turns at one doubly linked list
 * under a lock, as two CPUs' folio_batch_move_lru() and
 * __page_cache_release() do at one lruvec: each turn deletes the nodes the
 * other just added (each node a line of its own, as a struct page, last
 * written by the other CPU) and adds as many of its own. A turn of K
 * nodes against a turn of 1: what each node more costs, whose one line
 * (the node's, then the next one's as a neighbour) comes from the other
 * CPU; the hand-off and the list head's line are in both and cancel.
 */
#define LIST_NODES 32
struct list_node {
	struct list_node *next, *prev;
} __attribute__((aligned(64)));

struct list_probe {
	unsigned int lock __attribute__((aligned(64)));
	unsigned int turn __attribute__((aligned(64))); /* atomic: whose turn, 0 or 1 */
	struct list_node head;
	struct list_node node[2][LIST_NODES];
	int k;
	long turns;
};

static void list_turn(struct list_probe *lp, int me)
{
	int i;

	while (__atomic_exchange_n(&lp->lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	for (i = 0; i < lp->k && lp->head.next != &lp->head; i++) {
		struct list_node *n = lp->head.next;

		n->next->prev = &lp->head;
		lp->head.next = n->next;
		n->next = n->prev = NULL;
	}
	for (i = 0; i < lp->k; i++) {
		struct list_node *n = &lp->node[me][i];

		n->next = lp->head.next;
		n->prev = &lp->head;
		lp->head.next->prev = n;
		lp->head.next = n;
	}
	__atomic_store_n(&lp->lock, 0, __ATOMIC_RELEASE);
}

static void list_turns(struct list_probe *lp, int me)
{
	long i;

	for (i = 0; i < lp->turns; i++) {
		while (__atomic_load_n(&lp->turn, __ATOMIC_ACQUIRE) != (unsigned int)me)
			__builtin_ia32_pause();
		list_turn(lp, me);
		__atomic_store_n(&lp->turn, (unsigned int)!me, __ATOMIC_RELEASE);
	}
}

static void *list_main(void *p)
{
	pin_to(1);
	list_turns(p, 1);
	return NULL;
}

/* ns per turn of @k nodes each way, the median of ROUNDS, or -1 */
static double list_probe_at(int k)
{
	double r[ROUNDS];
	int j;

	for (j = 0; j < ROUNDS; j++) {
		struct list_probe *lp = aligned_alloc(64, sizeof(*lp));
		pthread_t tid;
		double t0;

		if (!lp)
			return -1;
		memset(lp, 0, sizeof(*lp));
		lp->head.next = lp->head.prev = &lp->head;
		lp->k = k;
		lp->turns = 20000;
		pin_to(0);
		if (pthread_create(&tid, NULL, list_main, lp)) {
			free(lp);
			return -1;
		}
		t0 = now_ns();
		list_turns(lp, 0);
		pthread_join(tid, NULL);
		r[j] = (now_ns() - t0) / (2.0 * (double)lp->turns);
		free(lp);
	}
	return fl_median(r, ROUNDS);
}

/* lru_line: a node more a turn, 31 against 1; -1 with one CPU */
static double probe_lru_line(void)
{
	double one, many;

	if (fl__host_nr_cpus() < 2)
		return -1;
	one = list_probe_at(1);
	many = list_probe_at(LIST_NODES - 1);
	if (one < 0 || many < 0)
		return -1;
	return (many - one) / (LIST_NODES - 2);
}

static double probe_cacheline(void)
{
	return probe_turns(false, 100000);
}

static double probe_wakeup(void)
{
	return probe_turns(true, 5000);
}

/* the probes that need two host CPUs, each giving one cost */
static const struct {
	enum fl_cost_id id;
	double (*probe)(void);
	const char *how;
} two_cpu_probes[] = {
	{ FL_COST_CACHELINE, probe_cacheline, "probe: a line between CPU 0 and CPU 1" },
	{ FL_COST_LRU_LINE, probe_lru_line,
	  "probe: two CPUs taking turns at one list, each deleting the other's nodes, per node" },
	{ FL_COST_IPI_RECV, probe_ipi_recv,
	  "probe: a counting loop on CPU 1 slowed by membarrier IPIs from CPU 0, per IPI" },
	{ FL_COST_WAKEUP, probe_wakeup,
	  "probe: two CPUs waking each other in turn with futexes, half a round trip" },
};

/*
 * The clearing bandwidth: @n threads, one on each of CPUs 0..n-1, each
 * faults its own @bytes in, then, all starting together, clears it 4 KiB
 * at a time (rep stosb, as clear_page does) @passes times over.
 */
struct bw_thread {
	int cpu;
	char *buf;
	size_t bytes;
	int passes;
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
	memset(t->buf, 1, t->bytes);
	__atomic_fetch_add(t->go, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(t->go, __ATOMIC_ACQUIRE) <= (unsigned int)t->n)
		__builtin_ia32_pause();
	t0 = now_ns();
	for (pass = 0; pass < t->passes; pass++)
		pages_op(t->buf, NULL, t->bytes);
	t->ns = (now_ns() - t0) / (double)((size_t)t->passes * (t->bytes / 4096));
	return NULL;
}

/* ns per 4 KiB per thread with @n threads at once (the median of 3), or -1 */
static double probe_bandwidth_at(int n, size_t bytes, int passes)
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
			t[i] = (struct bw_thread){
				.cpu = i, .bytes = bytes, .passes = passes, .go = &go, .n = n
			};
			t[i].buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (t[i].buf == MAP_FAILED) {
				t[i].buf = NULL;
				break;
			}
			if (pthread_create(&tid[i], NULL, bw_main, &t[i])) {
				munmap(t[i].buf, bytes);
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
			munmap(t[i].buf, bytes);
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
	return fl_median(r, 3);
}

/* the last-level cache's size in bytes (CPUID through sysconf, else sysfs), 0 if unknown */
static uint64_t llc_bytes(void)
{
	static const int level[] = { _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE };
	unsigned long long kib;
	char *text;
	size_t i;

	for (i = 0; i < sizeof(level) / sizeof(level[0]); i++) {
		long b = sysconf(level[i]);

		if (b > 0)
			return (uint64_t)b;
	}
	text = fl_read_text("/sys/devices/system/cpu/cpu0/cache/index3/size", 64);
	if (text && sscanf(text, "%lluK", &kib) == 1 && kib) {
		free(text);
		return kib << 10;
	}
	free(text);
	return 0;
}

#define BW_MIN_BYTES (16ul << 20)  /* a thread's least in memory, most in the LLC */
#define BW_LLC_BYTES (128ul << 20) /* what a thread clears in all, in the LLC */

/*
 * The curve at 1, 2, 4, 8 CPUs, then every 8 (wider on machines past 472
 * CPUs, to fit FL_BW_POINTS) and at all of them, into @c, logged to @log
 * as @name: in the LLC (@in_llc: each thread clears its share of half the
 * LLC, at most 16 MiB, over and over: a virtual machine's CPUID may give
 * the whole host's LLC, of which its CPUs see a part) or in memory no cache holds (the threads' buffers
 * together at least four LLCs, cleared once after they were faulted in:
 * every line was last written four LLCs' worth of writes before).
 */
static void probe_bw_curve(struct fl_bw_points *c, bool in_llc, uint64_t llc, const char *name,
			   FILE *log)
{
	int cpus = fl__host_nr_cpus(), step = 8, n;

	memset(c, 0, sizeof(*c));
	if (cpus / step > FL_BW_POINTS - 5)
		step = cpus / (FL_BW_POINTS - 5) + 1;
	for (n = 1; c->n < FL_BW_POINTS; n = n < 8 ? n * 2 : n + step) {
		size_t bytes;
		int passes = 1;
		double ns;

		if (n > cpus)
			n = cpus;
		if (c->n && n <= c->cpus[c->n - 1])
			break;
		if (in_llc) {
			bytes = (size_t)(llc / 2 / (uint64_t)n) & ~4095ul;
			if (bytes > BW_MIN_BYTES)
				bytes = BW_MIN_BYTES;
			if (bytes < 64 << 10) {
				fprintf(log,
					"  %s: at %d threads a share under 64 KiB; the curve ends "
					"there\n",
					name, n);
				break;
			}
			passes = (int)(BW_LLC_BYTES / bytes) + 1;
		} else {
			bytes = (size_t)(4 * llc / (uint64_t)n + 4095) & ~4095ul;
			if (bytes < BW_MIN_BYTES)
				bytes = BW_MIN_BYTES;
		}
		ns = probe_bandwidth_at(n, bytes, passes);
		if (ns <= 0) {
			fprintf(log, "  %s: %d threads could not run; the curve ends there\n", name,
				n);
			break;
		}
		c->cpus[c->n] = n;
		c->ps[c->n++] = (uint64_t)llround(ns * 1000.0);
		fprintf(log, "  %s.%-4d %8.2f ns per 4 KiB per CPU (%zu MiB a thread)\n", name, n,
			ns, bytes >> 20);
	}
}

/*
 * Both curves, the memory's (bandwidth.N) and the LLC's (bandwidth.llc.N),
 * and the LLC's size, into @bw; without a known LLC size, the memory's
 * curve alone, 64 MiB a thread.
 */
static void probe_bandwidth(struct fl_bw_curve *bw, FILE *log)
{
	uint64_t llc = llc_bytes();

	memset(bw, 0, sizeof(*bw));
	if (llc)
		fprintf(log, "  llc.bytes %llu (the last-level cache)\n", (unsigned long long)llc);
	else
		fprintf(log, "  llc: size unknown: the memory's curve alone\n");
	probe_bw_curve(&bw->mem, false, llc ? llc : 16ull << 20, "bandwidth", log);
	if (!llc)
		return;
	bw->llc_bytes = llc;
	probe_bw_curve(&bw->llc, true, llc, "bandwidth.llc", log);
}

/* Dependent loads through 64-slot nodes (an XArray walk's shape), per node. */
/*
 * Store walks from the root through a small XArray (its root and 64
 * leaves stay in cache), as a split's forward publish walks: the time per
 * node visited, with lib/xarray.c's own walk (the kernel's, ported).
 */
static double probe_xa_node_hot(void)
{
	enum { ENTRIES = 4096 };
	struct xarray xa;
	double r[ROUNDS];
	unsigned long i, visits;
	int k;

	xa_init(&xa);
	xa_lock(&xa);
	for (i = 0; i < ENTRIES; i++)
		__xa_store(&xa, i, xa_mk_value(i));
	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns();

		visits = 0;
		for (i = 0; i < ENTRIES; i++) {
			XA_STATE(xas, &xa, i);

			xas_store(&xas, xa_mk_value(i + (unsigned long)k));
			visits += xas.xa_visits;
		}
		r[k] = (now_ns() - t0) / (double)(visits ? visits : 1);
	}
	xa_unlock(&xa);
	xa_destroy(&xa);
	return fl_median(r, ROUNDS);
}

/* the next of Marsaglia's xorshift64 numbers from the state *@x */
static unsigned long xorshift(unsigned long *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

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
		xorshift(&x);
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
	return i == NODES ? fl_median(r, ROUNDS) : -1;
}

/*
 * A page walk to a 4 KiB translation: dependent loads through one line of
 * each of WALK_PAGES pages, many more than any TLB holds, against the same
 * number of lines packed 64 to a page in pages it holds (the same data in
 * the caches, and the page tables small enough to stay there): the
 * difference per load is the walk. Pages of the mapping's own, 4 KiB
 * (MADV_NOHUGEPAGE), filled first; the order of the lines is random.
 */
#define WALK_PAGES 32768
static double chase(char *base, const unsigned long *off, unsigned long n)
{
	double r[ROUNDS];
	unsigned long i;
	int k;

	for (i = 0; i < n; i++)
		*(char **)(base + off[i]) = base + off[(i + 1) % n];
	/* a first round untimed: the lines and the page tables into the caches */
	for (k = -1; k < ROUNDS; k++) {
		char *p = base + off[0];
		double t0 = now_ns();

		for (i = 0; i < 4 * n; i++)
			p = *(char **)p;
		if (k >= 0)
			r[k] = p ? (now_ns() - t0) / (double)(4 * n) : 0;
	}
	return fl_median(r, ROUNDS);
}

/* @off[0..n) in an order drawn from the xorshift state *@x (Fisher-Yates) */
static void shuffle(unsigned long *off, unsigned long n, unsigned long *x)
{
	unsigned long i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = xorshift(x) % (i + 1);
		t = off[i], off[i] = off[j], off[j] = t;
	}
}

static double probe_walk_pte(void)
{
	size_t len = (size_t)WALK_PAGES * 4096;
	unsigned long *off = malloc(WALK_PAGES * sizeof(*off)), x = 88172645463325252ull, i;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double spread, packed = -1;

	if (buf == MAP_FAILED || !off) {
		free(off);
		if (buf != MAP_FAILED)
			munmap(buf, len);
		return -1;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);
	memset(buf, 1, len);
	/* one line a page, a different line in each, in random order */
	for (i = 0; i < WALK_PAGES; i++)
		off[i] = i * 4096 + (i % 64) * 64;
	shuffle(off, WALK_PAGES, &x);
	spread = chase(buf, off, WALK_PAGES);
	/* the same number of lines, 64 to a page: WALK_PAGES / 64 pages */
	for (i = 0; i < WALK_PAGES; i++)
		off[i] = (i / 64) * 4096 + (i % 64) * 64;
	shuffle(off, WALK_PAGES, &x);
	packed = chase(buf, off, WALK_PAGES);
	munmap(buf, len);
	free(off);
	return spread - packed;
}

/*
 * The last-level data TLB of CPU 0 from CPUID: Intel's leaf 0x18 (each
 * subleaf a TLB: type, level, page sizes, ways, sets), AMD's 0x80000006
 * (the L2 DTLB's 2M and 4K entries and associativity). Return: 0 with
 * @g set, or -1 where CPUID says nothing of it.
 */
static int probe_tlb(struct fl_tlb_geometry *g)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d, max, sub, nsub, level[2] = { 0, 0 };

	memset(g, 0, sizeof(*g));
	__asm__ volatile("cpuid" : "=a"(max), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (max >= 0x18) {
		__asm__ volatile("cpuid"
				 : "=a"(nsub), "=b"(b), "=c"(c), "=d"(d)
				 : "a"(0x18), "c"(0));
		for (sub = 0; sub <= nsub && sub < 64; sub++) {
			unsigned int type, lvl, ways, sets;
			int k;

			__asm__ volatile("cpuid"
					 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
					 : "a"(0x18), "c"(sub));
			type = d & 0x1f;
			lvl = (d >> 5) & 7;
			ways = b >> 16;
			sets = c;
			/* data (1) or unified (3); the highest level of each page size */
			if ((type != 1 && type != 3) || !ways || !sets)
				continue;
			for (k = 0; k < 2; k++)
				if ((b & (k ? 2u : 1u)) && lvl >= level[k]) {
					level[k] = lvl;
					g->entries[k] = ways * sets;
					g->ways[k] = ways;
				}
		}
		if (g->entries[0] && g->entries[1])
			return 0;
	}
	__asm__ volatile("cpuid" : "=a"(max), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000), "c"(0));
	if (max >= 0x80000006) {
		/* AMD's associativity code: 2 ways 2, 4 4, 6 8, 8 16, 0xa 32, ... 0xf full */
		static const unsigned int ways_of[16] = { 0,  1, 2,  3,	 4,  6,	 8,   0,
							  16, 0, 32, 48, 64, 96, 128, 0 };
		unsigned int reg[2];
		int k;

		__asm__ volatile("cpuid"
				 : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
				 : "a"(0x80000006), "c"(0));
		reg[0] = b; /* 4K */
		reg[1] = a; /* 2M/4M */
		for (k = 0; k < 2; k++) {
			unsigned int n = (reg[k] >> 16) & 0xfff, code = reg[k] >> 28;

			g->entries[k] = n;
			g->ways[k] = code == 0xf ? n : ways_of[code];
			if (!g->ways[k] || !n || n % g->ways[k]) {
				memset(g, 0, sizeof(*g));
				return -1;
			}
		}
		return 0;
	}
#else
	(void)g;
#endif
	return -1;
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
	return fmax(fl_median(r, ROUNDS), 0);
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
	char workload[32];
	char mthp[16];	  /* "16kB", or "" for 4K pages only */
	char params[160]; /* "name=value name=value" */
};

static void runspec_config(struct fl_config *cfg, const struct runspec *rs, bool sim,
			   const char *costs)
{
	char buf[sizeof(rs->params)], *save = NULL, *tok;
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
	if (rs->mthp[0]) {
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

/* @rs's parameter @name as a number, or @dflt */
static double runspec_param(const struct runspec *rs, const char *name, double dflt)
{
	size_t n = strlen(name);
	const char *p;

	for (p = rs->params; (p = strstr(p, name)); p += n)
		if ((p == rs->params || p[-1] == ' ') && p[n] == '=')
			return strtod(p + n + 1, NULL);
	return dflt;
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

static double metric(const struct fl_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return r->metrics[i].value;
	return 0;
}

static double phase_time(const struct fl_result *r)
{
	return metric(r, "access_ns") + metric(r, "check_ns") + metric(r, "advice_ns");
}

/*
 * Which of the @n (at most 16) values @t is the median: an odd count's
 * middle, an even count's lower middle (always one of the runs measured).
 */
static int median_index(const double *t, int n)
{
	double sorted[16];
	int k = 0;

	memcpy(sorted, t, sizeof(double) * (size_t)n);
	fl_median(sorted, n);
	while (t[k] != sorted[(n - 1) / 2])
		k++;
	return k;
}

/*
 * A fitted host run: the median of three by the time of its phases (the
 * host's fault speed moves from run to run).
 */
static int host_median_run(const struct runspec *rs, struct fl_result *res, char *err, size_t len)
{
	struct fl_result r[3];
	double t[3];
	int i, ret, mid;

	for (i = 0; i < 3; i++) {
		ret = do_run(rs, false, NULL, &r[i], err, len);
		if (ret) {
			while (i-- > 0)
				fl_result_free(&r[i]);
			return ret;
		}
		/* a run of phases by their time, the shrink run by its shrink */
		t[i] = phase_time(&r[i]) + metric(&r[i], "shrink_us");
	}
	mid = median_index(t, 3);
	for (i = 0; i < 3; i++)
		if (i != mid)
			fl_result_free(&r[i]);
	*res = r[mid];
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

/* The time a check compares: the run's, or per page for page-fault1 (it runs for a time). */
static double check_time(const struct runspec *rs, const struct fl_result *r)
{
	if (!strcmp(rs->workload, "page-fault1")) {
		double pages = metric(r, "pages");

		return pages > 0 ? r->wall_s * 1e9 / pages : 0;
	}
	return r->wall_s * 1e9;
}

/* ---- what calibrate measures: the fit's input (calibrate.measured) ---- */

/*
 * The host runs the fit reads, by role: [A] 4K and [B] 16K, one thread
 * (the phase times, perf's shares); [E] one page a loop (the TLB flush);
 * [F] the same on two threads of one process (IPIs); [S] a hole punched
 * through every PMD folio of a tmpfs file (the split).
 */
enum { RUN_A, RUN_B, RUN_E, RUN_F, RUN_S, RUN_D, RUN_D2, RUN_C, NR_FIT_RUNS };
static const char *const run_ids[NR_FIT_RUNS] = {
	[RUN_A] = "A", [RUN_B] = "B", [RUN_E] = "E",   [RUN_F] = "F",
	[RUN_S] = "S", [RUN_D] = "D", [RUN_D2] = "D2", [RUN_C] = "C",
};
static const struct runspec fit_runs[NR_FIT_RUNS] = {
	{ "lru-microbench", "", "threads=1 loops=100 size=8M" },
	{ "lru-microbench", "16kB", "threads=1 loops=100 size=8M" },
	{ "lru-microbench", "", "threads=1 loops=20000 size=4K" },
	{ "lru-microbench", "", "threads=2 loops=20000 size=4K vma=private" },
	{ "shmem-split", "", "method=punch file-size=64M rounds=3" },
	{ "deferred-split", "2048kB", "threads=1 size=256M shrink=drop-caches" },
	{ "deferred-split", "2048kB", "threads=1 size=256M shrink=drop-caches advise-pages=511" },
	{ "lru-microbench", "", "threads=1 loops=1 size=64M vma=private advice=collapse" },
};

static const struct runspec CHECKS[] = {
	{ "lru-microbench", "", "threads=1 loops=100 size=8M" },
	{ "lru-microbench", "16kB", "threads=1 loops=100 size=8M" },
	{ "lru-microbench", "", "threads=2 loops=100 size=8M" },
	{ "lru-microbench", "16kB", "threads=2 loops=100 size=8M" },
	{ "page-fault1", "", "threads=1 seconds=0.5 size=16M" },
	{ "page-fault1", "16kB", "threads=1 seconds=0.5 size=16M" },
	{ "page-fault1", "", "threads=2 seconds=0.5 size=16M" },
	{ "page-fault1", "16kB", "threads=2 seconds=0.5 size=16M" },
};
#define NR_CHECKS (int)(sizeof(CHECKS) / sizeof(CHECKS[0]))
#define MAX_CHECKS 32

/* A host run's figures the fit reads (time_ns: check_time()'s) */
enum { HM_ACCESS, HM_CHECK, HM_ADVICE, HM_WRITES, HM_SPLIT, HM_SHRINK, HM_TIME, NR_HM };
static const char *const hm_names[NR_HM] = {
	[HM_ACCESS] = "access_ns", [HM_CHECK] = "check_ns", [HM_ADVICE] = "advice_ns",
	[HM_WRITES] = "writes",	   [HM_SPLIT] = "split_us", [HM_SHRINK] = "shrink_us",
	[HM_TIME] = "time_ns",
};

struct host_run {
	bool have;
	struct runspec rs;
	double v[NR_HM];
};

struct measured {
	struct fl_cost_prov prov;
	struct fl_bw_curve bw;
	bool given[FL_NR_COSTS]; /* measured directly (a probe), not fitted */
	double given_ns[FL_NR_COSTS];
	char given_how[FL_NR_COSTS][96];
	struct host_run run[NR_FIT_RUNS];
	bool have_perf[2];	   /* runs A and B under perf record */
	double perf[2][NR_GROUPS]; /* each group's share of the run's phase time */
	int nr_checks;
	struct host_run check[MAX_CHECKS];
};

static double host_phase(const struct host_run *h)
{
	return h->v[HM_ACCESS] + h->v[HM_CHECK] + h->v[HM_ADVICE];
}

static void host_run_set(struct host_run *h, const struct runspec *rs, const struct fl_result *r)
{
	h->have = true;
	h->rs = *rs;
	h->v[HM_ACCESS] = metric(r, "access_ns");
	h->v[HM_CHECK] = metric(r, "check_ns");
	h->v[HM_ADVICE] = metric(r, "advice_ns");
	h->v[HM_WRITES] = metric(r, "writes");
	h->v[HM_SPLIT] = metric(r, "split_us");
	h->v[HM_SHRINK] = metric(r, "shrink_us");
	h->v[HM_TIME] = check_time(rs, r);
}

static void given_set(struct measured *m, enum fl_cost_id id, double ns, const char *how, FILE *log)
{
	m->given[id] = true;
	m->given_ns[id] = fmax(ns, 0);
	snprintf(m->given_how[id], sizeof(m->given_how[id]), "%s", how);
	if (log)
		fprintf(log, "  %-12s %9.2f ns  %s\n", fl__cost_info[id].name, m->given_ns[id],
			how);
}

static void run_write(FILE *f, const char *id, const struct host_run *h)
{
	int i;

	fprintf(f, "run.%s %s %s %s\n", id, h->rs.workload, h->rs.mthp[0] ? h->rs.mthp : "-",
		h->rs.params);
	for (i = 0; i < NR_HM; i++)
		if (h->v[i] != 0)
			fprintf(f, "host.%s.%s %.3f\n", id, hm_names[i], h->v[i]);
}

static int measured_write(FILE *f, const struct measured *m)
{
	size_t g;
	int i;

	fprintf(f, "# foliolab calibrate: what it measured on this machine, the input of\n"
		   "# 'foliolab calibrate --fit' (docs/foliolab-calibrate.md says each line)\n");
	fprintf(f, "provenance.kernel %s\n", m->prov.kernel);
	fprintf(f, "provenance.cpu %s\n", m->prov.cpu);
	fprintf(f, "provenance.date %s\n", m->prov.date);
	fprintf(f, "provenance.command %s\n", m->prov.command);
	for (i = 0; i < FL_NR_COSTS; i++)
		if (m->given[i])
			fprintf(f, "given.%s %.3f %s\n", fl__cost_info[i].name, m->given_ns[i],
				m->given_how[i]);
	fl__costs_write_machine(f, &m->prov);
	fl__costs_write_bw(f, &m->bw);
	for (i = 0; i < NR_FIT_RUNS; i++) {
		if (!m->run[i].have)
			continue;
		run_write(f, run_ids[i], &m->run[i]);
		for (g = 0; i < 2 && m->have_perf[i] && g < NR_GROUPS; g++)
			fprintf(f, "perf.%s.%s %.6f\n", run_ids[i],
				fl__cost_info[perf_groups[g].id].name, m->perf[i][g]);
	}
	for (i = 0; i < m->nr_checks; i++) {
		char id[24];

		snprintf(id, sizeof(id), "check%d", i + 1);
		run_write(f, id, &m->check[i]);
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* @v as calibrate.measured writes it with @digits decimals, and --fit reads it back */
static double as_written(double v, int digits)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", digits, v);
	return strtod(buf, NULL);
}

/*
 * The measurements as calibrate.measured holds them: the fit of a run
 * that measures takes these, so `calibrate --fit` of its bundle gives the
 * same cost file to the last digit (a value fitted at full precision and
 * again from its 3 printed decimals could round apart)
 */
static void measured_as_written(struct measured *m)
{
	size_t g;
	int i, j;

	for (i = 0; i < FL_NR_COSTS; i++)
		if (m->given[i])
			m->given_ns[i] = as_written(m->given_ns[i], 3);
	for (i = 0; i < NR_FIT_RUNS; i++) {
		for (j = 0; j < NR_HM; j++)
			m->run[i].v[j] = as_written(m->run[i].v[j], 3);
		for (g = 0; i < 2 && g < NR_GROUPS; g++)
			m->perf[i][g] = as_written(m->perf[i][g], 6);
	}
	for (i = 0; i < m->nr_checks; i++)
		for (j = 0; j < NR_HM; j++)
			m->check[i].v[j] = as_written(m->check[i].v[j], 3);
}

/* "A" .. "S" or "checkN": its run in @m, or NULL */
static struct host_run *run_slot(struct measured *m, const char *id, size_t n, int *role)
{
	int i;

	*role = -1;
	for (i = 0; i < NR_FIT_RUNS; i++)
		if (strlen(run_ids[i]) == n && !strncmp(id, run_ids[i], n)) {
			*role = i;
			return &m->run[i];
		}
	if (n > 5 && n < 8 && !strncmp(id, "check", 5)) {
		char num[4], *end;
		long k;

		snprintf(num, sizeof(num), "%.*s", (int)(n - 5), id + 5);
		k = strtol(num, &end, 10);
		if (*end || k < 1 || k > MAX_CHECKS)
			return NULL;
		if (k > m->nr_checks)
			m->nr_checks = (int)k;
		return &m->check[k - 1];
	}
	return NULL;
}

/* A number at the start of @v (@vlen bytes), ended by a blank or the end; *@rest after it. */
static int num_field(const char *v, size_t vlen, double *out, const char **rest)
{
	char num[64], *end;
	size_t n = 0;

	while (n < vlen && v[n] != ' ' && v[n] != '\t')
		n++;
	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, v, n);
	num[n] = '\0';
	errno = 0;
	*out = strtod(num, &end);
	if (*end || errno || !isfinite(*out))
		return -1;
	for (*rest = v + n; *rest < v + vlen && (**rest == ' ' || **rest == '\t'); (*rest)++)
		;
	return 0;
}

static int measured_line(void *ctx, const char *key, size_t klen, const char *v, size_t vlen,
			 int lineno, char *err, size_t len)
{
	struct measured *m = ctx;
	const char *rest, *dot;
	struct host_run *h;
	double x;
	int i, role;

	if (klen > 6 && !strncmp(key, "given.", 6)) {
		i = fl__cost_id(key + 6, klen - 6);
		if (i < 0 || num_field(v, vlen, &x, &rest) || x < 0 || x > 1e9) {
			snprintf(err, len,
				 "line %d: %.*s: accepted given.COST NS [how], a cost's name and "
				 "0 to 1e9 ns",
				 lineno, (int)klen, key);
			return -EINVAL;
		}
		given_set(m, i, x, "", NULL);
		snprintf(m->given_how[i], sizeof(m->given_how[i]), "%.*s", (int)(v + vlen - rest),
			 rest);
		return 0;
	}
	if (klen > 4 && !strncmp(key, "run.", 4)) {
		char wl[sizeof(h->rs.workload)], mthp[sizeof(h->rs.mthp)];
		int used = 0;
		char line[512];

		h = run_slot(m, key + 4, klen - 4, &role);
		snprintf(line, sizeof(line), "%.*s", (int)vlen, v);
		if (!h || sscanf(line, "%31s %15s %n", wl, mthp, &used) != 2 || !used ||
		    strlen(line + used) >= sizeof(h->rs.params)) {
			snprintf(err, len,
				 "line %d: %.*s: accepted run.ID WORKLOAD MTHP|- PARAMS, ID one of "
				 "A B E F S D D2 check1 .. check%d",
				 lineno, (int)klen, key, MAX_CHECKS);
			return -EINVAL;
		}
		h->have = true;
		snprintf(h->rs.workload, sizeof(h->rs.workload), "%s", wl);
		snprintf(h->rs.mthp, sizeof(h->rs.mthp), "%s", strcmp(mthp, "-") ? mthp : "");
		snprintf(h->rs.params, sizeof(h->rs.params), "%s", line + used);
		return 0;
	}
	dot = klen > 5 ? memchr(key + 5, '.', klen - 5) : NULL;
	if (dot && !strncmp(key, "host.", 5)) {
		h = run_slot(m, key + 5, (size_t)(dot - key - 5), &role);
		for (i = 0; i < NR_HM; i++)
			if (strlen(hm_names[i]) == (size_t)(key + klen - dot - 1) &&
			    !strncmp(dot + 1, hm_names[i], strlen(hm_names[i])))
				break;
		if (!h || i == NR_HM || num_field(v, vlen, &x, &rest) || rest < v + vlen || x < 0) {
			snprintf(err, len,
				 "line %d: %.*s: accepted host.ID.METRIC VALUE, METRIC one of "
				 "access_ns check_ns advice_ns writes split_us shrink_us time_ns, "
				 "VALUE >= 0",
				 lineno, (int)klen, key);
			return -EINVAL;
		}
		h->v[i] = x;
		return 0;
	}
	if (dot && !strncmp(key, "perf.", 5)) {
		int id = fl__cost_id(dot + 1, (size_t)(key + klen - dot - 1));
		size_t g;

		h = run_slot(m, key + 5, (size_t)(dot - key - 5), &role);
		for (g = 0; g < NR_GROUPS && (int)perf_groups[g].id != id; g++)
			;
		if (!h || role < 0 || role > RUN_B || g == NR_GROUPS ||
		    num_field(v, vlen, &x, &rest) || rest < v + vlen || x < 0 || x > 1) {
			snprintf(err, len,
				 "line %d: %.*s: accepted perf.A.COST or perf.B.COST SHARE, COST "
				 "one of buddy folio_alloc folio_free lru_move lock clear_page, "
				 "SHARE 0 to 1",
				 lineno, (int)klen, key);
			return -EINVAL;
		}
		m->have_perf[role] = true;
		m->perf[role][g] = x;
		return 0;
	}
	snprintf(err, len,
		 "line %d: \"%.*s\": accepted given.COST, bandwidth.N, run.ID, host.ID.METRIC, "
		 "perf.ID.COST, provenance.KEY or # comments",
		 lineno, (int)klen, key);
	return -EINVAL;
}

/* What the fit needs of @m: runs A and B, every run named, each a run foliolab can do. */
static int measured_complete(const struct measured *m, char *err, size_t len)
{
	/* the figure each run must have */
	static const int needs[NR_FIT_RUNS] = {
		[RUN_A] = HM_ACCESS, [RUN_B] = HM_ACCESS, [RUN_E] = HM_ADVICE,	[RUN_F] = HM_ADVICE,
		[RUN_S] = HM_SPLIT,  [RUN_D] = HM_SHRINK, [RUN_D2] = HM_SHRINK, [RUN_C] = HM_ADVICE,
	};
	char why[400];
	int i, j;

	for (i = 0; i < NR_FIT_RUNS + m->nr_checks; i++) {
		const struct host_run *h = i < NR_FIT_RUNS ? &m->run[i]
							   : &m->check[i - NR_FIT_RUNS];
		char id[16];
		struct fl_config cfg;

		if (i < NR_FIT_RUNS)
			snprintf(id, sizeof(id), "%s", run_ids[i]);
		else
			snprintf(id, sizeof(id), "check%d", i - NR_FIT_RUNS + 1);
		if (!h->have) {
			for (j = 0; j < NR_HM && !h->v[j]; j++)
				;
			if (i <= RUN_B || i >= NR_FIT_RUNS || j < NR_HM) {
				snprintf(err, len, "no run.%s line%s", id,
					 i <= RUN_B ? " (the fit needs runs A and B: the host's "
						      "1-thread lru-microbench at 4K and 16K)"
						    : "");
				return -EINVAL;
			}
			continue;
		}
		runspec_config(&cfg, &h->rs, true, NULL);
		if (fl_validate(&cfg, why, sizeof(why))) {
			snprintf(err, len, "run.%s: %s", id, why);
			return -EINVAL;
		}
		j = i >= NR_FIT_RUNS ? HM_TIME : needs[i];
		if (!(h->v[j] > 0)) {
			snprintf(err, len,
				 "run.%s has no host.%s.%s (the figure the fit reads of it)", id,
				 id, hm_names[j]);
			return -EINVAL;
		}
	}
	if ((m->have_perf[0] || m->have_perf[1]) && !(m->have_perf[0] && m->have_perf[1])) {
		snprintf(err, len, "perf shares of one run only: give perf.A.* and perf.B.*");
		return -EINVAL;
	}
	return 0;
}

/* ---- a bundle from before calibrate.measured ---- */

static const char *or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* the costs the fit solves from runs A and B: a log's values of them are not taken */
static bool fitted_from_ab(enum fl_cost_id id)
{
	return id == FL_COST_FAULT || id == FL_COST_SET_PTE || id == FL_COST_ZAP_PTE ||
	       id == FL_COST_PTE_TABLE || id == FL_COST_USER_ACCESS;
}

/* "  NAME  VALUE ns  HOW": a cost's line of calibrate's log */
static void log_cost_line(struct measured *m, const char *line)
{
	char name[48], how[96];
	double ns;
	int used = 0, i;

	if (sscanf(line, " %47s %lf ns %n", name, &ns, &used) != 2 || !used)
		return;
	i = fl__cost_id(name, strlen(name));
	if (i >= 0 && !fitted_from_ab(i)) {
		snprintf(how, sizeof(how), "calibrate.log: %s", line + used);
		given_set(m, i, ns, how, NULL);
	}
}

/* "  WORKLOAD PAGE PARAMS... HOST UNIT SIM UNIT RATIO": a check row of calibrate's log */
static void log_check_line(struct measured *m, char *line)
{
	char *tok, *save = NULL, params[160] = "";
	struct host_run *h;
	int field = 0;

	if (m->nr_checks == MAX_CHECKS ||
	    (strncmp(line, "  lru-microbench ", 17) && strncmp(line, "  page-fault1 ", 14)))
		return;
	h = &m->check[m->nr_checks];
	memset(h, 0, sizeof(*h));
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), field++) {
		char *end;
		double x;

		if (field == 0) {
			snprintf(h->rs.workload, sizeof(h->rs.workload), "%s", tok);
		} else if (field == 1) {
			snprintf(h->rs.mthp, sizeof(h->rs.mthp), "%s",
				 !strcmp(tok, "16K") ? "16kB" : "");
		} else if (strchr(tok, '=')) {
			size_t n = strlen(params);

			snprintf(params + n, sizeof(params) - n, "%s%s", n ? " " : "", tok);
		} else {
			x = strtod(tok, &end);
			tok = strtok_r(NULL, " \n", &save);
			if (*end || !tok || (strcmp(tok, "ms") && strcmp(tok, "ns")))
				return;
			h->v[HM_TIME] = x * (strcmp(tok, "ms") ? 1 : 1e6);
			snprintf(h->rs.params, sizeof(h->rs.params), "%s", params);
			h->have = true;
			m->nr_checks++;
			return;
		}
	}
}

/* the median (by phase time) of the records matching @pattern, as run @role */
static int records_run(struct measured *m, int role, const char *pattern, char *err, size_t len)
{
	struct host_run runs[16];
	double t[16];
	glob_t g;
	size_t i;
	int n = 0;

	if (glob(pattern, 0, NULL, &g)) {
		snprintf(err, len, "no records %s (the fit's run %s)", pattern, run_ids[role]);
		return -EINVAL;
	}
	for (i = 0; i < g.gl_pathc && n < 16; i++) {
		char *text = fl_read_text(g.gl_pathv[i], 64ul << 20), why[200];
		struct fl_json *j = text ? fl_json_parse(text, why, sizeof(why)) : NULL;
		const struct fl_json *res = fl_json_get(j, "results"), *r = NULL, *p, *mt;
		struct host_run *h = &runs[n];

		/* the file's first result */
		if (res && res->type == FL_JSON_ARR && res->n > 0)
			r = res->v[0];
		p = fl_json_get(r, "params");
		mt = fl_json_get(r, "metrics");
		if (r && p && mt) {
			memset(h, 0, sizeof(*h));
			h->have = true;
			snprintf(h->rs.workload, sizeof(h->rs.workload), "lru-microbench");
			snprintf(h->rs.mthp, sizeof(h->rs.mthp), "%s", role == RUN_B ? "16kB" : "");
			snprintf(h->rs.params, sizeof(h->rs.params), "threads=1 loops=%.0f size=%s",
				 fl_json_num(fl_json_get(p, "loops"), 0),
				 or_str(fl_json_str(fl_json_get(p, "size")), "0"));
			h->v[HM_ACCESS] = fl_json_num(fl_json_get(mt, "access_ns"), 0);
			h->v[HM_CHECK] = fl_json_num(fl_json_get(mt, "check_ns"), 0);
			h->v[HM_ADVICE] = fl_json_num(fl_json_get(mt, "advice_ns"), 0);
			h->v[HM_WRITES] = fl_json_num(fl_json_get(mt, "writes"), 0);
			h->v[HM_TIME] = fl_json_num(fl_json_get(fl_json_get(r, "time"), "wall_s"),
						    0) *
					1e9;
			t[n] = host_phase(h);
			n++;
		}
		fl_json_free(j);
		free(text);
	}
	globfree(&g);
	if (!n) {
		snprintf(err, len, "no readable lru-microbench record %s", pattern);
		return -EINVAL;
	}
	m->run[role] = runs[median_index(t, n)];
	return 0;
}

static int measured_from_log(const char *dir, struct measured *m, char *err, size_t len)
{
	char path[4200], *text, *line, *save = NULL, sub[300];
	uint64_t ps[FL_NR_COSTS];
	int ret;

	snprintf(path, sizeof(path), "%s/calibrate.costs", dir);
	text = fl_read_text(path, 1 << 20);
	if (!text) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	ret = fl_costs_parse(text, ps, &m->prov, &m->bw, sub, sizeof(sub));
	free(text);
	if (ret) {
		snprintf(err, len, "%s: %s", path, sub);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/calibrate.log", dir);
	text = fl_read_text(path, 1 << 20);
	if (!text) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		log_cost_line(m, line);
		log_check_line(m, line);
	}
	free(text);
	snprintf(path, sizeof(path), "%s/records/lru-4K-1-*.json", dir);
	ret = records_run(m, RUN_A, path, err, len);
	if (!ret) {
		snprintf(path, sizeof(path), "%s/records/lru-16K-1-*.json", dir);
		ret = records_run(m, RUN_B, path, err, len);
	}
	return ret;
}

/*
 * The measurements at @src: a file in calibrate.measured's form, or a
 * bundle folder (its calibrate.measured, or an older bundle's log and
 * records). Return: 0 or -EINVAL with the reason in @err.
 */
static int measured_load(const char *src, struct measured *m, char *err, size_t len)
{
	char path[4200], sub[4600];
	struct stat st;
	char *text;
	int ret;

	memset(m, 0, sizeof(*m));
	if (stat(src, &st)) {
		snprintf(err, len, "--fit %s: %s", src, strerror(errno));
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s", src);
	if (S_ISDIR(st.st_mode)) {
		snprintf(path, sizeof(path), "%s/calibrate.measured", src);
		if (access(path, F_OK)) {
			snprintf(path, sizeof(path), "%s/calibrate.log", src);
			if (access(path, F_OK)) {
				snprintf(err, len,
					 "--fit %s: no calibrate.measured (calibrate --collect's) "
					 "and no calibrate.log in it",
					 src);
				return -EINVAL;
			}
			ret = measured_from_log(src, m, sub, sizeof(sub));
			goto done;
		}
	}
	text = fl_read_text(path, 1 << 20);
	if (!text) {
		snprintf(err, len, "--fit %s: %s", path,
			 errno == EFBIG ? "more than 1 MiB: not calibrate's measurements"
					: strerror(errno));
		return -EINVAL;
	}
	ret = fl__costs_parse(text, NULL, &m->prov, &m->bw, measured_line, m, sub, sizeof(sub));
	free(text);
done:
	if (!ret)
		ret = measured_complete(m, sub, sizeof(sub));
	if (ret) {
		snprintf(err, len, "--fit %s: %s", path, sub);
		return -EINVAL;
	}
	return 0;
}

/* ---- the fit: the costs from the measurements, on sim ---- */

struct calib {
	const struct measured *m;
	double c[FL_NR_COSTS];
	char how[FL_NR_COSTS][224]; /* where each came from */
	bool est[FL_NR_COSTS];	    /* derived by a rule, not measured: marked "estimated" */
	char tmpdir[512];	    /* private (0700, outfile.c): the files below */
	char tmp_costs[600];	    /* the costs so far, for the sim's runs */
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
	ret = fl_costs_write(f, ps, &k->m->prov, &k->m->bw, NULL);
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

/*
 * A fitted cost; one that comes out negative (what the host left for it is
 * less than the rest of the model charges) is written as 0, estimated,
 * with its value in the reason.
 */
static void set_cost(struct calib *k, enum fl_cost_id id, double ns, const char *how)
{
	k->c[id] = fmax(ns, 0);
	k->est[id] = ns <= 0;
	if (ns <= 0)
		snprintf(k->how[id], sizeof(k->how[id]), "%s: came out %s (%.2f ns): 0", how,
			 ns < 0 ? "negative" : "0", ns);
	else
		snprintf(k->how[id], sizeof(k->how[id]), "%s", how);
	fprintf(k->log, "  %-12s %9.2f ns  %s%s\n", fl__cost_info[id].name, k->c[id],
		k->est[id] ? "estimated: " : "", k->how[id]);
}

static void set_estimate(struct calib *k, enum fl_cost_id id, double ns, const char *how)
{
	set_cost(k, id, ns, how);
	k->est[id] = true;
}

/*
 * The reference machine's measurements that estimates are scaled from:
 * costs/pvm-epyc2.measured (our development host, `foliolab calibrate
 * --collect`, 2026-12-05), whose probes measured both XArray costs.
 */
#define REF_XA_NODE 9.883	/* given.xa_node: dependent loads, 64-slot nodes */
#define REF_XA_NODE_HOT 5.106	/* given.xa_node_hot: store walks through a small XArray */
#define REF_COPY_PAGE 225.266	/* given.copy_page: rep movsb, 4 KiB */
#define REF_WAKEUP 7701.325	/* given.wakeup: futex ping-pong, half a round trip */
#define REF_IPI_RECV 11316.77	/* given.ipi_recv: a counter slowed by membarrier IPIs */
#define REF_IPI 31073.175	/* ipi, fitted from its run F with that ipi_recv */
#define REF_COLLAPSE 245204.375 /* collapse, fitted from its run C */

/*
 * Costs the measurements leave unknown (an older bundle has no probe for
 * them, or its runs do not separate them), derived by documented rules
 * (docs/foliolab-calibrate.md, "Estimated costs") and marked estimated:
 *
 * - xa_node_hot: this machine's xa_node times the reference's xa_node_hot
 *   / xa_node (the same two probes);
 * - split_folio: a piece's own work in __split_unmapped_folio() is an LRU
 *   add (lru_add_split_folio(): lru_move) and two locked atomics (the
 *   unlock and the put after the lock: as lock's lock and unlock); a
 *   split_page measured with split_folio at 0 (the hole punch alone) held
 *   the punch's pieces too, so it keeps what is left of it: less
 *   split_folio x pieces / pages of the punch on sim;
 * - migrate_pte: a PTE to a migration entry is a zap's clear and rmap
 *   (zap_pte), back is a fault's set (set_pte): their mean;
 * - lru_line: cacheline (the ping-pong of one line between two CPUs);
 * - wakeup: the reference machine's (a guest too: a wake-up is an IPI to
 *   an idle virtual CPU and its return from halt, the hypervisor's work
 *   more than the CPU's);
 * - ipi_recv: this machine's ipi times the reference's ipi_recv / ipi (a
 *   receiver's interrupt in proportion to the sender's round trip; fitted
 *   after ipi, once the runs are);
 * - collapse: this machine's copy_page times the reference's collapse /
 *   copy_page (a collapse's own work beside its copy, in proportion);
 * - walk_pte: half the host's read-back per page in run A (a sweep larger
 *   than any TLB: each page's load and its walk, which nothing else in
 *   such a bundle separates); walk_pmd: walk_pte (one level fewer, the
 *   same last load);
 * - any other cost nothing measured: 0, estimated.
 */
/* the estimates from the probes alone, before the runs are fitted with them */
static void fit_estimates_early(struct calib *k)
{
	if (!k->how[FL_COST_XA_NODE_HOT][0] && k->c[FL_COST_XA_NODE] > 0)
		set_estimate(k, FL_COST_XA_NODE_HOT,
			     k->c[FL_COST_XA_NODE] * REF_XA_NODE_HOT / REF_XA_NODE,
			     "xa_node x 0.517, the reference machine's xa_node_hot / xa_node "
			     "(pvm-epyc2, 2026-12-05: 5.106 / 9.883 ns)");
	if (!k->how[FL_COST_WALK_PTE][0] && k->m->run[RUN_A].v[HM_WRITES] > 0)
		set_estimate(k, FL_COST_WALK_PTE,
			     k->m->run[RUN_A].v[HM_CHECK] / k->m->run[RUN_A].v[HM_WRITES] / 2,
			     "half the host's read-back per page in run A: a sweep that misses "
			     "the TLB on every page costs the load and its walk, which nothing "
			     "measured here separates");
	if (!k->how[FL_COST_LRU_LINE][0] && k->c[FL_COST_CACHELINE] > 0)
		set_estimate(k, FL_COST_LRU_LINE, k->c[FL_COST_CACHELINE],
			     "cacheline: a line between two CPUs, the probe this machine has");
	if (!k->how[FL_COST_WAKEUP][0])
		set_estimate(k, FL_COST_WAKEUP, REF_WAKEUP,
			     "the reference machine's (pvm-epyc2, 2026-12-07: 7701.33 ns), a guest "
			     "too: the IPI to an idle CPU and its return from halt");
	if (!k->how[FL_COST_WALK_PMD][0] && k->c[FL_COST_WALK_PTE] > 0)
		set_estimate(k, FL_COST_WALK_PMD, k->c[FL_COST_WALK_PTE],
			     "walk_pte: one level fewer, the same one dependent load of the last "
			     "entry");
}

static int fit_estimates(struct calib *k, char *err, size_t len)
{
	const struct measured *m = k->m;
	int i, ret;

	if (!k->how[FL_COST_SPLIT_FOLIO][0]) {
		const struct runspec *rs = m->run[RUN_S].have ? &m->run[RUN_S].rs
							      : &fit_runs[RUN_S];
		double sf = k->c[FL_COST_LRU_MOVE] + k->c[FL_COST_LOCK], pages, pieces;
		struct fl_result sr;

		set_estimate(k, FL_COST_SPLIT_FOLIO, sf,
			     "lru_move + lock: a piece's LRU add and two locked atomics");
		ret = sim_run(k, rs, &sr, err, len);
		if (ret)
			return ret;
		pages = count(&sr, FL_COST_SPLIT_PAGE);
		pieces = count(&sr, FL_COST_SPLIT_FOLIO);
		fl_result_free(&sr);
		if (pages > 0 && k->c[FL_COST_SPLIT_PAGE] > 0) {
			char how[sizeof(k->how[0]) + 96];

			snprintf(how, sizeof(how),
				 "%s, less split_folio x %.5f (the punch's pieces / pages on sim), "
				 "which it held",
				 k->how[FL_COST_SPLIT_PAGE], pieces / pages);
			set_estimate(k, FL_COST_SPLIT_PAGE,
				     k->c[FL_COST_SPLIT_PAGE] - sf * pieces / pages, how);
		}
	}
	if (!k->how[FL_COST_MIGRATE_PTE][0])
		set_estimate(k, FL_COST_MIGRATE_PTE,
			     (k->c[FL_COST_ZAP_PTE] + k->c[FL_COST_SET_PTE]) / 2,
			     "(zap_pte + set_pte) / 2: a PTE cleared to a migration entry, set "
			     "back");
	if (!k->how[FL_COST_COLLAPSE][0] && k->c[FL_COST_COPY_PAGE] > 0)
		set_estimate(k, FL_COST_COLLAPSE,
			     k->c[FL_COST_COPY_PAGE] * REF_COLLAPSE / REF_COPY_PAGE,
			     "copy_page x 1088.5, the reference machine's collapse / copy_page "
			     "(pvm-epyc2, run C, 2026-12-07: 245204 / 225.3 ns)");
	for (i = 0; i < FL_NR_COSTS; i++)
		if (!k->how[i][0])
			set_estimate(k, (enum fl_cost_id)i, 0, "nothing measured it, no rule: 0");
	return 0;
}

/* perf's shares of runs A and B: each group's host time over the model's charges */
static int fit_perf(struct calib *k, char *err, size_t len)
{
	const struct measured *m = k->m;
	double n[2][NR_GROUPS];
	struct fl_result sr;
	size_t g;
	int i, ret;

	if (!m->have_perf[0]) {
		fprintf(k->log, "  (no perf shares: the allocator, buddy, free, LRU and lock costs "
				"are the given ones, or 0 and in the fault and zap costs)\n");
		return 0;
	}
	for (i = 0; i < 2; i++) {
		ret = sim_run(k, &m->run[i].rs, &sr, err, len);
		if (ret)
			return ret;
		for (g = 0; g < NR_GROUPS; g++)
			n[i][g] = count(&sr, perf_groups[g].id);
		fl_result_free(&sr);
	}
	for (g = 0; g < NR_GROUPS; g++) {
		enum fl_cost_id id = perf_groups[g].id;
		double host = m->perf[0][g] * host_phase(&m->run[RUN_A]) +
			      m->perf[1][g] * host_phase(&m->run[RUN_B]);

		if (n[0][g] + n[1][g] > 0) {
			char how[96];

			snprintf(how, sizeof(how),
				 "perf record: %.1f%% and %.1f%% of the 4K/16K runs",
				 100 * m->perf[0][g], 100 * m->perf[1][g]);
			set_cost(k, id, host / (n[0][g] + n[1][g]), how);
		}
	}
	return 0;
}

/* Sim A, B (E, F) with the costs so far; solve the residual costs from the host's. */
static int fit_residuals(struct calib *k, char *err, size_t len)
{
	const struct host_run *h = k->m->run;
	struct fl_result s[4];
	double ra[2], n[2], p, rz[2], nz[2], fault, set_pte;
	int i, ret, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			ret = h[i].have ? sim_run(k, &h[i].rs, &s[i], err, len) : 0;
			if (ret) {
				while (i-- > 0)
					if (h[i].have)
						fl_result_free(&s[i]);
				return ret;
			}
		}
		/* access pass: fault * faults + set_pte * pages is what the rest leaves */
		for (i = 0; i < 2; i++) {
			ra[i] = h[i].v[HM_ACCESS] - metric(&s[i], "access_ns") +
				charged(&s[i], k->c, FL_COST_FAULT) +
				charged(&s[i], k->c, FL_COST_SET_PTE);
			n[i] = count(&s[i], FL_COST_FAULT);
		}
		p = count(&s[0], FL_COST_SET_PTE);
		fault = n[0] > n[1] ? (ra[0] - ra[1]) / (n[0] - n[1]) : 0;
		set_pte = p > 0 ? (ra[0] - fault * n[0]) / p : 0;
		/*
		 * read-back: user_access per page is what the rest leaves (the
		 * TLB's walks there are known: the sim charges them apart)
		 */
		if (h[RUN_A].v[HM_WRITES] > 0)
			set_cost(k, FL_COST_USER_ACCESS,
				 k->c[FL_COST_USER_ACCESS] +
					 (h[RUN_A].v[HM_CHECK] - metric(&s[RUN_A], "check_ns")) /
						 h[RUN_A].v[HM_WRITES],
				 "host read-back pass per page, less the known parts");
		/* madvise: zap_pte per page is what the rest leaves, over both sizes */
		for (i = 0; i < 2; i++) {
			rz[i] = h[i].v[HM_ADVICE] - metric(&s[i], "advice_ns") +
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
		if (h[RUN_E].have && count(&s[RUN_E], FL_COST_TLB_FLUSH) > 0)
			set_cost(k, FL_COST_TLB_FLUSH,
				 (h[RUN_E].v[HM_ADVICE] - metric(&s[RUN_E], "advice_ns") +
				  charged(&s[RUN_E], k->c, FL_COST_TLB_FLUSH)) /
					 count(&s[RUN_E], FL_COST_TLB_FLUSH),
				 "host 1-page madvise loop, less the known parts");
		if (h[RUN_F].have && count(&s[RUN_F], FL_COST_IPI) > 0)
			set_cost(k, FL_COST_IPI,
				 (h[RUN_F].v[HM_ADVICE] - metric(&s[RUN_F], "advice_ns") +
				  charged(&s[RUN_F], k->c, FL_COST_IPI)) /
					 count(&s[RUN_F], FL_COST_IPI),
				 "host 1-page loop on 2 threads, less the 1-thread sim's parts");
		/* the receiver's share in proportion: the second pass refits ipi without it */
		if (!k->m->given[FL_COST_IPI_RECV] && REF_IPI > 0 && k->c[FL_COST_IPI] > 0)
			set_estimate(k, FL_COST_IPI_RECV,
				     k->c[FL_COST_IPI] * REF_IPI_RECV / REF_IPI,
				     "ipi x the reference machine's ipi_recv / ipi (pvm-epyc2, "
				     "2026-12-07), a receiver's interrupt in proportion to the "
				     "sender's round trip");
		for (i = 0; i < 4; i++)
			if (h[i].have)
				fl_result_free(&s[i]);
	}
	return 0;
}

/* the costs the split runs solve, in the order the runs S, D, D2 bring them in */
static const enum fl_cost_id split_ids[3] = { FL_COST_SPLIT_PAGE, FL_COST_SPLIT_FOLIO,
					      FL_COST_MIGRATE_PTE };

/*
 * One split run on sim: per round, how many of each split_ids cost it
 * charged (@x) and what the host's time leaves for them (*@rest: the
 * host's time less the sim's, plus what the sim charged for them).
 */
static int split_equation(struct calib *k, const struct host_run *h, double host_us,
			  const char *sim_metric, double x[3], double *rest, char *err, size_t len)
{
	double rounds = fmax(runspec_param(&h->rs, "rounds", 1), 1);
	struct fl_result s;
	int j, ret = sim_run(k, &h->rs, &s, err, len);

	if (ret)
		return ret;
	*rest = (host_us - metric(&s, sim_metric)) * 1000;
	for (j = 0; j < 3; j++) {
		x[j] = count(&s, split_ids[j]) / rounds;
		*rest += x[j] * k->c[split_ids[j]];
	}
	fl_result_free(&s);
	return 0;
}

/*
 * Solve the first @n rows of @a for the first @n of split_ids (the others'
 * parts, at their costs @c, go to the right side), in place: a[j][3] /
 * a[j][j] is the j-th. Gauss-Jordan with partial pivoting. Return: 0, or
 * -1 if the rows do not determine them.
 */
static int split_solve(double a[3][4], int n, const double *c)
{
	double m[3][4];
	int i, j, r;

	for (i = 0; i < n; i++) {
		memcpy(m[i], a[i], sizeof(m[i]));
		for (j = n; j < 3; j++)
			m[i][3] -= m[i][j] * c[split_ids[j]];
	}
	for (j = 0; j < n; j++) {
		int p = j;

		for (i = j + 1; i < n; i++)
			if (fabs(m[i][j]) > fabs(m[p][j]))
				p = i;
		if (fabs(m[p][j]) < 1e-9)
			return -1;
		for (r = 0; r < 4; r++) {
			double t = m[j][r];

			m[j][r] = m[p][r];
			m[p][r] = t;
		}
		for (i = 0; i < n; i++) {
			double f = m[i][j] / m[j][j];

			for (r = j; r < 4 && i != j; r++)
				m[i][r] -= f * m[j][r];
		}
	}
	for (i = 0; i < n; i++)
		memcpy(a[i], m[i], sizeof(m[i]));
	return 0;
}

/*
 * split_page, split_folio and migrate_pte: each run gives rest = pages x
 * split_page + pieces x split_folio + PTEs x migrate_pte. S (a hole punch
 * through unmapped PMD folios of tmpfs: a few pieces of many pages each),
 * D (the deferred split shrinker under drop_caches: PMD folios with their
 * first page advised away, uniformly to order 0, a piece a page, 511 PTEs
 * a folio to a migration entry and back) and D2 (the same with 511 pages
 * advised away: one PTE) solve the three; with fewer runs, the first
 * costs of that list are solved and the rest kept.
 */
static int fit_split(struct calib *k, char *err, size_t len)
{
	static const int runs[3] = { RUN_S, RUN_D, RUN_D2 };
	double a[3][4];
	int n = 0, i, j, ret;

	for (i = 0; i < 3 && k->m->run[runs[i]].have; i++) {
		const struct host_run *h = &k->m->run[runs[i]];

		ret = split_equation(k, h, i ? h->v[HM_SHRINK] : h->v[HM_SPLIT],
				     i ? "shrink_us" : "split_us", a[n], &a[n][3], err, len);
		if (ret)
			return ret;
		n++;
	}
	/* the first n unknowns, or fewer where the runs do not separate them */
	for (; n > 0; n--)
		if (!split_solve(a, n, k->c))
			break;
		else
			fprintf(k->log, "  (the split runs do not separate %s: kept)\n",
				fl__cost_info[split_ids[n - 1]].name);
	for (j = 0; j < n; j++)
		set_cost(k, split_ids[j], a[j][3] / a[j][j],
			 j == 0	  ? "host splits (tmpfs hole punch; drop_caches' deferred split of "
				    "PMD folios, 1 and 511 pages advised away), less the known "
				    "parts: per page"
			 : j == 1 ? "the same, per piece"
				  : "the same, per PTE each way");
	return 0;
}

/*
 * Run C, MADV_COLLAPSE over 32 PMD ranges faulted 4 KiB a page: collapse
 * is what the host's advice time leaves per collapse, once the sim's
 * parts (the scan, the allocation, the copy, the PTE clears, the flush)
 * are taken out.
 */
static int fit_collapse(struct calib *k, char *err, size_t len)
{
	const struct host_run *h = &k->m->run[RUN_C];
	struct fl_result s;
	double n;
	int ret;

	if (!h->have)
		return 0;
	ret = sim_run(k, &h->rs, &s, err, len);
	if (ret)
		return ret;
	n = count(&s, FL_COST_COLLAPSE);
	if (n > 0)
		set_cost(k, FL_COST_COLLAPSE,
			 (h->v[HM_ADVICE] - metric(&s, "advice_ns") +
			  charged(&s, k->c, FL_COST_COLLAPSE)) /
				 n,
			 "host MADV_COLLAPSE of PMD ranges faulted 4K (run C), less the known "
			 "parts: per collapse");
	fl_result_free(&s);
	return 0;
}

/* The check: the sim with the fitted costs against the host's times; the file's comment. */
static int fit_check(struct calib *k, char *comment, size_t csize, int *fails, char *err,
		     size_t len)
{
	const struct measured *m = k->m;
	size_t cl = 0;
	int i, ret;

	*fails = 0;
	fprintf(k->log, "  %-16s %-5s %-26s %14s %14s %7s\n", "workload", "page", "options", "host",
		"sim", "sim/host");
	cl += (size_t)snprintf(comment + cl, csize - cl,
			       "# check (sim with these costs against the host, bound %.0f%%):\n",
			       100 * CHECK_BOUND);
	for (i = 0; i < m->nr_checks; i++) {
		const struct host_run *h = &m->check[i];
		struct fl_result sr;
		double th = h->v[HM_TIME], ts, ratio;
		char line[256];

		ret = sim_run(k, &h->rs, &sr, err, len);
		if (ret)
			return ret;
		ts = check_time(&h->rs, &sr);
		fl_result_free(&sr);
		ratio = th > 0 ? ts / th : 0;
		if (fabs(ratio - 1) > CHECK_BOUND)
			(*fails)++;
		snprintf(line, sizeof(line), "%-16s %-5s %-26s %11.3f %s %11.3f %s %6.2fx%s",
			 h->rs.workload, h->rs.mthp[0] ? "16K" : "4K", h->rs.params,
			 th > 1e6 ? th / 1e6 : th, th > 1e6 ? "ms" : "ns", ts > 1e6 ? ts / 1e6 : ts,
			 ts > 1e6 ? "ms" : "ns", ratio,
			 fabs(ratio - 1) > CHECK_BOUND ? "  OUTSIDE" : "");
		fprintf(k->log, "  %s\n", line);
		if (cl < csize)
			cl += (size_t)snprintf(comment + cl, csize - cl, "#   %s\n", line);
	}
	if (cl < csize)
		cl += (size_t)snprintf(comment + cl, csize - cl,
				       "# %d of %d within %.0f%%\n# where each cost came from:\n",
				       m->nr_checks - *fails, m->nr_checks, 100 * CHECK_BOUND);
	for (i = 0; i < FL_NR_COSTS && cl < csize; i++)
		cl += (size_t)snprintf(comment + cl, csize - cl, "#   %s: %s%s\n",
				       fl__cost_info[i].name, k->est[i] ? "estimated: " : "",
				       k->how[i]);
	for (i = 0; i < 2 && cl < csize; i++) {
		const struct fl_bw_points *c = i ? &m->bw.llc : &m->bw.mem;

		if (c->n)
			cl += (size_t)snprintf(comment + cl, csize - cl,
					       "#   %s: %s%d point%s, %s\n",
					       i ? "bandwidth.llc" : "bandwidth",
					       c->estimated ? "estimated: " : "", c->n,
					       c->n > 1 ? "s" : "",
					       c->estimated ? "the measurements' comment says how"
					       : i ? "calibrate's probe: 16 MiB a thread (at most "
						     "half the LLC), cleared over and over"
						   : "calibrate's probe: memory no cache holds, "
						     "four LLCs in all, each line cleared once");
	}
	fprintf(k->log, "  %d of %d within %.0f%%\n", m->nr_checks - *fails, m->nr_checks,
		100 * CHECK_BOUND);
	return 0;
}

static const char *tmp_base(void)
{
	const char *base = getenv("TMPDIR");

	return base && *base ? base : "/tmp";
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

/*
 * The cost file of @m to @out, deterministically: the given costs, perf's
 * groups, the residuals and the split on sim, then the check. @fitted_by:
 * the command when the measurements were made elsewhere, or NULL.
 */
static int fit(struct calib *k, FILE *out, const char *out_name, const char *fitted_by,
	       int *check_failed, char *err, size_t len)
{
	const struct measured *m = k->m;
	struct fl_cost_prov prov;
	uint64_t ps[FL_NR_COSTS];
	char comment[8192];
	size_t cl = 0;
	int ret, i;

	for (i = 0; i < FL_NR_COSTS; i++)
		if (m->given[i]) {
			k->c[i] = m->given_ns[i];
			k->est[i] = m->given_ns[i] <= 0;
			snprintf(k->how[i], sizeof(k->how[i]), "%s%s", m->given_how[i],
				 k->est[i] ? ": measured 0" : "");
		}
	fit_estimates_early(k);
	fprintf(k->log, "3. the fit: the sim with the costs so far against the host's times\n");
	ret = fit_perf(k, err, len);
	if (ret)
		return ret;
	if (!m->given[FL_COST_PTE_TABLE])
		set_cost(k, FL_COST_PTE_TABLE, k->c[FL_COST_FOLIO_ALLOC] + k->c[FL_COST_CLEAR_PAGE],
			 "a page allocated and zeroed (folio_alloc + clear_page)");
	if (m->run[RUN_A].v[HM_WRITES] > 0)
		set_cost(k, FL_COST_USER_ACCESS,
			 m->run[RUN_A].v[HM_CHECK] / m->run[RUN_A].v[HM_WRITES],
			 "host read-back pass per page");
	ret = fit_residuals(k, err, len);
	if (!ret)
		ret = fit_split(k, err, len);
	if (!ret)
		ret = fit_collapse(k, err, len);
	if (!ret)
		ret = fit_estimates(k, err, len);
	if (ret)
		return ret;
	fprintf(k->log, "4. check: the sim with these costs against the host\n");
	if (fitted_by)
		cl = (size_t)snprintf(comment, sizeof(comment), "# fitted: %s\n", fitted_by);
	ret = fit_check(k, comment + cl, sizeof(comment) - cl, check_failed, err, len);
	if (ret)
		return ret;
	to_ps(k->c, ps);
	prov = m->prov;
	for (i = 0; i < FL_NR_COSTS; i++)
		prov.estimated[i] = k->est[i];
	ret = fl_costs_write(out, ps, &prov, &m->bw, comment);
	if (ret)
		snprintf(err, len, "cannot write %s: %s", out_name, strerror(-ret));
	return ret;
}

/* ---- the commands ---- */

FL_API int fl_calibrate_check(char *err, size_t len)
{
	char why[400], dir[PATH_MAX];
	struct fl_config cfg;
	int ret, i;

	if (geteuid() != 0) {
		snprintf(err, len,
			 "calibrate runs workloads on the host kernel with its THP knobs set and "
			 "a tmpfs mounted: it needs root");
		return -EPERM;
	}
	for (i = 0; i < NR_FIT_RUNS + NR_CHECKS; i++) {
		runspec_config(&cfg, i < NR_FIT_RUNS ? &fit_runs[i] : &CHECKS[i - NR_FIT_RUNS],
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

/* Runs A and B under perf record: each group's share of the run's time. */
static void measure_perf(struct measured *m, const char *tmpdir, char *err, size_t len)
{
	char data[600];
	int i;

	snprintf(data, sizeof(data), "%s/perf.data", tmpdir);
	for (i = 0; i < 2; i++) {
		struct fl_result pr;
		pid_t perf = perf_start(data);
		int ret = do_run(&fit_runs[i], false, NULL, &pr, err, len);

		if (perf > 0)
			perf_stop(perf);
		if (!ret)
			fl_result_free(&pr);
		m->have_perf[i] = !ret && perf > 0 && !perf_shares(data, m->perf[i]);
		unlink(data);
	}
	if (!m->have_perf[0] || !m->have_perf[1])
		m->have_perf[0] = m->have_perf[1] = false;
}

static void log_run(FILE *log, const char *id, const struct host_run *h)
{
	fprintf(log, "  %-2s %s %s %s: ", id, h->rs.workload, h->rs.mthp[0] ? h->rs.mthp : "4K",
		h->rs.params);
	if (h->v[HM_SPLIT] > 0)
		fprintf(log, "split %.1f us (the median round)\n", h->v[HM_SPLIT]);
	else if (h->v[HM_SHRINK] > 0)
		fprintf(log, "drop_caches %.1f us\n", h->v[HM_SHRINK]);
	else
		fprintf(log, "access %.3f ms, read-back %.3f ms, madvise %.3f ms\n",
			h->v[HM_ACCESS] / 1e6, h->v[HM_CHECK] / 1e6, h->v[HM_ADVICE] / 1e6);
}

/* The host runs: A, B, E, F (the median of three), perf over A and B, S once, the checks. */
static int measure_host(struct measured *m, const char *tmpdir, FILE *log, char *err, size_t len)
{
	struct fl_result r;
	size_t g;
	int i, ret;

	for (i = 0; i < NR_FIT_RUNS; i++) {
		ret = i == RUN_S ? do_run(&fit_runs[i], false, NULL, &r, err, len)
				 : host_median_run(&fit_runs[i], &r, err, len);
		if (ret && i >= RUN_S) {
			fprintf(log, "  %s: the host's run failed (%s): the %s costs without it\n",
				run_ids[i], err, i == RUN_C ? "collapse" : "split");
			continue;
		}
		if (ret)
			return ret;
		host_run_set(&m->run[i], &fit_runs[i], &r);
		fl_result_free(&r);
		log_run(log, run_ids[i], &m->run[i]);
	}
	measure_perf(m, tmpdir, err, len);
	if (!m->have_perf[0])
		fprintf(log, "  perf record is not available: no shares\n");
	for (i = 0; i < 2 && m->have_perf[0]; i++) {
		fprintf(log, "  perf record over %s:", run_ids[i]);
		for (g = 0; g < NR_GROUPS; g++)
			fprintf(log, " %s %.1f%%", fl__cost_info[perf_groups[g].id].name,
				100 * m->perf[i][g]);
		fprintf(log, "\n");
	}
	for (i = 0; i < NR_CHECKS; i++) {
		ret = do_run(&CHECKS[i], false, NULL, &r, err, len);
		if (ret)
			return ret;
		host_run_set(&m->check[i], &CHECKS[i], &r);
		fl_result_free(&r);
	}
	m->nr_checks = NR_CHECKS;
	fprintf(log, "  the check's %d runs\n", NR_CHECKS);
	return 0;
}

FL_API int fl_calibrate(FILE *out, const char *out_name, const char *command, FILE *measured_out,
			FILE *log, int *check_failed, char *err, size_t len)
{
	struct measured *m = calloc(1, sizeof(*m));
	struct calib k;
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	cpu_set_t saved;
	char *buf;
	size_t big = 64ull << 20;
	int i, ret;

	if (!m) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	memset(&k, 0, sizeof(k));
	k.m = m;
	k.log = log;
	*check_failed = 0;
	uname(&u);
	snprintf(m->prov.kernel, sizeof(m->prov.kernel), "%.63s", u.release);
	if (fl__host_cpuinfo("model name", m->prov.cpu, sizeof(m->prov.cpu)))
		snprintf(m->prov.cpu, sizeof(m->prov.cpu), "unknown CPU");
	gmtime_r(&now, &tm);
	strftime(m->prov.date, sizeof(m->prov.date), "%Y-%m-%dT%H:%MZ", &tm);
	snprintf(m->prov.command, sizeof(m->prov.command), "%s", command);
	ret = tmp_folder(&k, err, len);
	if (ret) {
		free(m);
		return ret;
	}

	fprintf(log, "foliolab calibrate: %s, %s, %d CPUs\n1. probes on this CPU\n", u.release,
		m->prov.cpu, fl__host_nr_cpus());
	sched_getaffinity(0, sizeof(saved), &saved);
	pin_to(0);
	given_set(m, FL_COST_SYSCALL, probe_syscall(), "probe: getppid()", log);
	buf = mmap(NULL, 2 * big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		sched_setaffinity(0, sizeof(saved), &saved);
		snprintf(err, len, "cannot map %zu MiB for the probes", 2 * big >> 20);
		ret = -ENOMEM;
		goto out;
	}
	memset(buf, 1, 2 * big);
	given_set(m, FL_COST_CLEAR_PAGE, probe_pages(buf, NULL, big), "probe: rep stosb, 4 KiB",
		  log);
	given_set(m, FL_COST_COPY_PAGE, probe_pages(buf, buf + big, big), "probe: rep movsb, 4 KiB",
		  log);
	munmap(buf, 2 * big);
	given_set(m, FL_COST_LOCK, probe_lock(), "probe: lock cmpxchg + release store", log);
	for (i = 0; i < (int)ARRAY_SIZE(two_cpu_probes); i++) {
		double v = two_cpu_probes[i].probe();

		if (v >= 0)
			given_set(m, two_cpu_probes[i].id, v, two_cpu_probes[i].how, log);
		else
			fprintf(log, "  %s: one host CPU, not measured: 0\n",
				fl__cost_info[two_cpu_probes[i].id].name);
	}
	given_set(m, FL_COST_XA_NODE_HOT, probe_xa_node_hot(),
		  "probe: store walks through a small XArray, per node", log);
	given_set(m, FL_COST_XA_NODE, probe_xa_node(), "probe: dependent loads, 64-slot nodes",
		  log);
	given_set(m, FL_COST_VMA, probe_vma(m->given_ns[FL_COST_SYSCALL]),
		  "probe: mmap + munmap - 2 syscalls", log);
	given_set(m, FL_COST_WALK_PTE, probe_walk_pte(),
		  "probe: dependent loads a line a page over 32768 pages, less 64 lines a page",
		  log);
	if (!probe_tlb(&m->prov.tlb))
		fprintf(log, "  tlb: 4K %u entries %u ways, 2M %u entries %u ways (CPUID)\n",
			m->prov.tlb.entries[0], m->prov.tlb.ways[0], m->prov.tlb.entries[1],
			m->prov.tlb.ways[1]);
	else
		fprintf(log, "  tlb: CPUID gives no TLB geometry: none modelled\n");
	m->prov.clock_mhz = fl__cpu_mhz();
	if (m->prov.clock_mhz > 0)
		fprintf(log, "  clock: %.0f MHz (/proc/cpuinfo: cpu MHz)\n", m->prov.clock_mhz);
	else
		fprintf(log, "  clock: /proc/cpuinfo gives no cpu MHz: cycles not reported\n");
	sched_setaffinity(0, sizeof(saved), &saved);
	probe_bandwidth(&m->bw, log);

	fprintf(log, "2. the host's runs (phase times the median of three; perf record)\n");
	ret = measure_host(m, k.tmpdir, log, err, len);
	if (ret)
		goto out;
	measured_as_written(m);
	if (measured_out && measured_write(measured_out, m)) {
		snprintf(err, len, "cannot write the measurements: %s", strerror(EIO));
		ret = -EIO;
		goto out;
	}
	ret = fit(&k, out, out_name, NULL, check_failed, err, len);
out:
	tmp_folder_remove(&k);
	free(m);
	return ret;
}

FL_API int fl_calibrate_fit_check(const char *src, char *err, size_t len)
{
	struct measured *m = malloc(sizeof(*m));
	int ret;

	if (!m) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = measured_load(src, m, err, len);
	free(m);
	return ret;
}

FL_API int fl_calibrate_fit(const char *src, FILE *out, const char *out_name, const char *command,
			    FILE *measured_out, FILE *log, int *check_failed, char *err, size_t len)
{
	struct measured *m = malloc(sizeof(*m));
	struct calib k;
	int ret, i;

	if (!m) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	memset(&k, 0, sizeof(k));
	k.m = m;
	k.log = log;
	*check_failed = 0;
	ret = measured_load(src, m, err, len);
	if (!ret)
		ret = tmp_folder(&k, err, len);
	if (ret) {
		free(m);
		return ret;
	}
	fprintf(log,
		"foliolab calibrate --fit %s: measured on %s, %s, %s\n1. given (measured there)\n",
		src, m->prov.kernel, m->prov.cpu, m->prov.date);
	for (i = 0; i < FL_NR_COSTS; i++)
		if (m->given[i])
			fprintf(log, "  %-12s %9.2f ns  %s\n", fl__cost_info[i].name,
				m->given_ns[i], m->given_how[i]);
	fl__costs_write_bw(log, &m->bw);
	fprintf(log, "2. the host's runs there\n");
	for (i = 0; i < NR_FIT_RUNS; i++)
		if (m->run[i].have)
			log_run(log, run_ids[i], &m->run[i]);
	if (measured_out && measured_write(measured_out, m)) {
		snprintf(err, len, "cannot write the measurements: %s", strerror(EIO));
		ret = -EIO;
	} else {
		ret = fit(&k, out, out_name, command, check_failed, err, len);
	}
	tmp_folder_remove(&k);
	free(m);
	return ret;
}
