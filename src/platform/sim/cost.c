// SPDX-License-Identifier: GPL-2.0-only
/*
 * cost.c - the cost table (cost.h): names, the file format, the costs in
 * force and the cache-line owner rule.
 *
 * Conventions in this file: a cost file is text, one "KEY VALUE" per
 * line; VALUE runs to the end of the line (trailing blanks dropped).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "../cost.h"
#include "../../lib/util.h"
#include "../platform.h"
#include "sim.h"

const struct fl_cost_info fl__cost_info[FL_NR_COSTS] = {
	[FL_COST_FAULT] = { "fault", "page fault entry, walk and return, per fault" },
	[FL_COST_SYSCALL] = { "syscall", "system call entry and return" },
	[FL_COST_USER_ACCESS] = { "user_access", "the workload's access to one mapped page" },
	[FL_COST_CLEAR_PAGE] = { "clear_page", "zeroing 4 KiB" },
	[FL_COST_COPY_PAGE] = { "copy_page", "copying 4 KiB" },
	[FL_COST_SET_PTE] = { "set_pte", "mapping one page of a new folio" },
	[FL_COST_ZAP_PTE] = { "zap_pte", "unmapping one page" },
	[FL_COST_FOLIO_ALLOC] = { "folio_alloc", "a folio from the per-CPU lists" },
	[FL_COST_FOLIO_FREE] = { "folio_free", "a folio freed to the per-CPU lists" },
	[FL_COST_BUDDY] = { "buddy", "one block between the buddy and a per-CPU list" },
	[FL_COST_LRU_MOVE] = { "lru_move", "one folio onto or off an LRU list" },
	[FL_COST_LOCK] = { "lock", "an uncontended lock and unlock" },
	[FL_COST_CACHELINE] = { "cacheline", "a cache line fetched from another CPU" },
	[FL_COST_TLB_FLUSH] = { "tlb_flush", "a TLB flush on this CPU" },
	[FL_COST_IPI] = { "ipi", "a TLB-shootdown IPI to one other CPU" },
	[FL_COST_PTE_TABLE] = { "pte_table", "a page-table page allocated (and later freed)" },
	[FL_COST_VMA] = { "vma", "creating or removing a VMA" },
	[FL_COST_XA_NODE] = { "xa_node", "one XArray node visited" },
	[FL_COST_SPLIT_PAGE] = { "split_page", "splitting a folio, per page" },
	[FL_COST_SPLIT_FOLIO] = { "split_folio", "one folio a split makes", true },
	[FL_COST_MIGRATE_PTE] = { "migrate_pte", "a PTE to a migration entry, or back", true },
	[FL_COST_XA_NODE_HOT] = { "xa_node_hot", "an XArray node visited again, in cache", true },
	[FL_COST_WALK_PTE] = { "walk_pte", "a page walk to a 4 KiB translation (dTLB miss)", true },
	[FL_COST_WALK_PMD] = { "walk_pmd", "a page walk to a 2 MiB translation (dTLB miss)", true },
	[FL_COST_COLLAPSE] = { "collapse", "a PMD range made one THP, less its parts", true },
	[FL_COST_LRU_LINE] = { "lru_line", "a line an LRU list op fetches from another CPU", true },
	[FL_COST_WAKEUP] = { "wakeup", "a sleeping waiter woken: from the wake-up to running",
			     true },
	[FL_COST_IPI_RECV] = { "ipi_recv", "a shootdown IPI's receiver: interrupt and flush",
			       true },
};

struct fl_tlb_geometry fl__tlb_geo;

int fl__cost_id(const char *name, size_t n)
{
	int i;

	for (i = 0; i < FL_NR_COSTS; i++)
		if (strlen(fl__cost_info[i].name) == n && !strncmp(name, fl__cost_info[i].name, n))
			return i;
	return -1;
}

uint64_t fl__cost_ps[FL_NR_COSTS];
bool fl__bw_limited;
struct fl_bw_curve fl__bw_curve;
struct fl_page_clears fl__page_cleared;
uint64_t fl__cost_count[FL_NR_COSTS];
uint64_t fl__cost_time[FL_NR_COSTS];
uint64_t fl__line_waits, fl__line_wait_time;
struct fl_cost_prov fl__cost_prov;

/* build/.../gen/default_costs.c: the Makefile's DEFAULT_COSTS as a string */
extern const char fl__default_costs[];

static __always_inline void charge_transfer(void)
{
	fl__sim_debt += fl__cost_ps[FL_COST_CACHELINE];
	fl__cost_time[FL_COST_CACHELINE] += fl__cost_ps[FL_COST_CACHELINE];
	fl__cost_count[FL_COST_CACHELINE]++;
}

bool fl__cacheline_claim(struct fl_cacheline *cl)
{
	int me, was;

	if (!fl_sim_in_task())
		return false;
	me = fl__cpu + 1;
	if (cl->gen != fl__sim_gen) {
		cl->gen = fl__sim_gen;
		cl->cpu = 0;
		cl->busy_until = 0;
	}
	was = cl->cpu;
	cl->cpu = me;
	return was && was != me;
}

/*
 * A write to @cl from another CPU than its last writer's: one transfer,
 * which starts once the line's last transfer has ended (the writer's
 * store waits in the meantime: busy, its time apart, fl_time_line_wait).
 * So N CPUs writing one line with no lock around it get at most one write
 * a transfer time between them, as on the hardware, however their tasks
 * interleave. The order of two writes is the order the simulator runs
 * them in, their virtual-time order to within a task's run between
 * scheduling points.
 */
static noinline void cacheline_transfer(struct fl_cacheline *cl)
{
	uint64_t now = fl__sim_time(), start, xfer = fl__cost_ps[FL_COST_CACHELINE];

	start = cl->busy_until > now ? cl->busy_until : now;
	cl->busy_until = start + xfer;
	if (start > now) {
		fl__sim_debt += start - now;
		fl__line_waits++;
		fl__line_wait_time += start - now;
	}
	charge_transfer();
}

void fl__cacheline_take(struct fl_cacheline *cl)
{
	if (fl__cacheline_claim(cl))
		cacheline_transfer(cl);
}

bool fl_cost_on_cpu(int cpu, enum fl_cost_id id)
{
	if (!fl_sim_interrupt(cpu, fl__cost_ps[id]))
		return false;
	fl__cost_time[id] += fl__cost_ps[id];
	fl__cost_count[id]++;
	return true;
}

/*
 * Each CPU's last FL_XA_HOT_NODES XArray nodes, replaced oldest first:
 * a node among them is in the CPU's cache (a walk's path, the leaf it
 * steps along), another one is fetched.
 */
static struct {
	unsigned int gen, next;
	const void *node[FL_XA_HOT_NODES];
} xa_hot[FL_NR_CPUS_MAX];

void fl__cost_xa_node(const void *node)
{
	int cpu = fl_sim_in_task() ? fl__cpu : 0, i;

	if (xa_hot[cpu].gen != fl__sim_gen) {
		memset(&xa_hot[cpu], 0, sizeof(xa_hot[cpu]));
		xa_hot[cpu].gen = fl__sim_gen;
	}
	for (i = 0; i < FL_XA_HOT_NODES; i++)
		if (xa_hot[cpu].node[i] == node) {
			fl_cost(FL_COST_XA_NODE_HOT);
			return;
		}
	xa_hot[cpu].node[xa_hot[cpu].next++ % FL_XA_HOT_NODES] = node;
	fl_cost(FL_COST_XA_NODE);
}

void fl__line_table_reset(struct fl_line_table *t)
{
	memset(t->cpu, 0, t->nr * sizeof(*t->cpu));
	t->gen = fl__sim_gen;
}

void fl__line_table_take(struct fl_line_table *t, unsigned long i)
{
	if (fl_sim_in_task() && fl__line_table_claim(t, i))
		charge_transfer();
}

/*
 * Bandwidth demand. Each CPU's demand is the time it spent in memory
 * operations, decayed with a time constant of BW_TAU: x(t) = sum over its
 * operations of d / tau * exp(-(t - t_op) / tau), about d / P for
 * operations of length d every P < tau (a long operation adds its demand
 * in chunks as it goes, so that a fully busy CPU counts about 1). The machine's demand is the sum;
 * an operation sees N = 1 + the other CPUs' demand now. Kept as terms
 * scaled by exp((t_op - base) / tau), so that all decay at once; rebased
 * every 32 tau.
 */
#define BW_TAU_PS 10e6 /* 10 us */
#define BW_CHUNKS 8    /* a long clear is charged in chunks of at most tau / 8 */
static struct {
	unsigned int gen;
	double base, sum;
	double latest;	     /* the latest time a demand was added at */
	double latest_scale; /* exp((latest - base) / tau) */
	double term[FL_NR_CPUS_MAX];
} bw_state;

/* per CPU, per 4 KiB, when @n CPUs clear at once (n >= 1, real), on curve @c */
static double bw_cost(const struct fl_bw_points *c, double n)
{
	int i;

	if (c->n == 1)
		return (double)c->ps[0];
	for (i = 1; i < c->n; i++)
		if (n <= c->cpus[i]) {
			double f = (n - c->cpus[i - 1]) / (c->cpus[i] - c->cpus[i - 1]);

			return (double)c->ps[i - 1] + f * ((double)c->ps[i] - (double)c->ps[i - 1]);
		}
	/* past the last point: the aggregate is spent, each CPU gets its share */
	return (double)c->ps[c->n - 1] * n / c->cpus[c->n - 1];
}

/* the running task's time, and the terms rebased where it is far from the base */
static double bw_now(void)
{
	double t = fmax((double)fl__sim_time(), bw_state.base), f;
	int i;

	if (t - bw_state.base > 32 * BW_TAU_PS) {
		f = exp(-(t - bw_state.base) / BW_TAU_PS);
		bw_state.sum = 0;
		for (i = 0; i < FL_NR_CPUS_MAX; i++) {
			bw_state.term[i] *= f;
			bw_state.sum += bw_state.term[i];
		}
		bw_state.latest = fmax(bw_state.latest, t);
		bw_state.base = t;
		bw_state.latest_scale = exp((bw_state.latest - t) / BW_TAU_PS);
	}
	return t;
}

/*
 * The machine-wide count of pages cleared or copied, the clock of
 * fl__page_cleared (32 bits: differences are taken modulo 2^32). It runs
 * on from one simulation to the next, skipping an LLC's worth at each
 * start, so that no page is in the LLC when a simulation begins; it starts
 * half the range on, so that a page never written (0) is far behind.
 */
static uint32_t page_clears = 1u << 31;

/*
 * How many of the @pages from frame @pfn on the LLC still holds (fewer
 * than llc_bytes were cleared or copied since each was), each now the
 * latest written. None without an LLC curve and size.
 */
static uint64_t pages_in_llc(unsigned long pfn, uint64_t pages)
{
	const struct fl_bw_curve *c = &fl__bw_curve;
	uint32_t llc_pages = (uint32_t)fmin((double)(c->llc_bytes >> 12), (double)(1u << 30));
	uint32_t *at = fl__page_cleared.at;
	uint64_t hot = 0, i;

	if (!c->llc.n || !llc_pages || !at || pfn + pages > fl__page_cleared.nr)
		return 0;
	for (i = 0; i < pages; i++) {
		if (at[pfn + i] && (uint32_t)(page_clears - at[pfn + i]) < llc_pages)
			hot++;
		if (!++page_clears) /* 0 is "never" */
			page_clears++;
		at[pfn + i] = page_clears;
	}
	return hot;
}

/* @pages of @id, each meeting curve @c, in chunks */
static void cost_mem_on(enum fl_cost_id id, const struct fl_bw_points *c, double base,
			uint64_t pages)
{
	double t, others, per, d, e;
	uint64_t n;
	int cpu = fl__cpu;

	/*
	 * In chunks of at most BW_TAU / BW_CHUNKS, each a scheduling point: a long
	 * clear (a 2 MiB folio on a busy machine takes many tau) adds its
	 * demand as it goes and sees the others' as they go. The others' is
	 * read at the latest time anyone added to it (CPUs' clocks differ by a
	 * little: one that is behind would otherwise see a demand added after
	 * its time grow by exp(lead / tau) instead of decay).
	 */
	while (pages) {
		t = bw_now();
		e = exp((t - bw_state.base) / BW_TAU_PS);
		if (t >= bw_state.latest) {
			bw_state.latest = t;
			bw_state.latest_scale = e;
		}
		others = (bw_state.sum - bw_state.term[cpu]) / bw_state.latest_scale;
		if (others < 0)
			others = 0;
		/* sharing never speeds a CPU up: a point under the base is the probe's noise */
		per = (double)fl__cost_ps[id] * fmax(bw_cost(c, 1.0 + others) / base, 1.0);
		n = (uint64_t)(BW_TAU_PS / BW_CHUNKS / per);
		n = n < 1 ? 1 : n > pages ? pages : n;
		d = per * (double)n;
		fl__sim_debt += (uint64_t)d;
		fl__cost_time[id] += (uint64_t)d;
		bw_state.term[cpu] += d / BW_TAU_PS * e;
		bw_state.sum += d / BW_TAU_PS * e;
		pages -= n;
		if (pages)
			fl_sim_charge(0);
	}
}

void fl__cost_mem(enum fl_cost_id id, unsigned long pfn, uint64_t pages)
{
	const struct fl_bw_curve *c = &fl__bw_curve;
	const struct fl_bw_points *cold = c->mem.n ? &c->mem : &c->llc;
	const struct fl_bw_points *hot = c->llc.n ? &c->llc : &c->mem;
	uint64_t in_llc;

	if (!fl_sim_in_task() || !fl__bw_limited) {
		fl_cost_n(id, pages);
		return;
	}
	if (bw_state.gen != fl__sim_gen) {
		memset(&bw_state, 0, sizeof(bw_state));
		bw_state.gen = fl__sim_gen;
		bw_state.latest_scale = 1;
		page_clears += (uint32_t)fmin((double)(c->llc_bytes >> 12), (double)(1u << 30)) + 1;
	}
	fl__cost_count[id] += pages;
	in_llc = pages_in_llc(pfn, pages);
	if (in_llc)
		cost_mem_on(id, hot, (double)hot->ps[0], in_llc);
	/*
	 * clear_page is the in-fault clear of a page the LLC holds; copy_page
	 * a probe's copy through 64 MiB, which is priced as measured and only
	 * shared out
	 */
	if (pages > in_llc)
		cost_mem_on(id, cold, (double)(id == FL_COST_CLEAR_PAGE ? hot : cold)->ps[0],
			    pages - in_llc);
}

static void copy_value(char *dst, size_t n, const char *v, size_t vlen)
{
	if (vlen >= n)
		vlen = n - 1;
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
}

/*
 * "bandwidth.N VALUE" (@name "bandwidth") or "bandwidth.llc.N VALUE": the
 * next point of @bw. Return: 0 or -EINVAL with the reason.
 */
static int parse_bw(struct fl_bw_points *bw, const char *name, const char *k, size_t kl,
		    const char *v, size_t vlen, int lineno, char *err, size_t len)
{
	char num[64], *end;
	long n;
	double ns;

	snprintf(num, sizeof(num), "%.*s", (int)(kl < 63 ? kl : 63), k);
	n = strtol(num, &end, 10);
	if (!kl || *end || n < 1 || n > FL_NR_CPUS_MAX ||
	    (bw->n ? n <= bw->cpus[bw->n - 1] : n != 1) || bw->n == FL_BW_POINTS) {
		snprintf(err, len,
			 "line %d: %s.%.*s: accepted %s.N with N CPUs ascending "
			 "from 1 to %d, at most %d points",
			 lineno, name, (int)kl, k, name, FL_NR_CPUS_MAX, FL_BW_POINTS);
		return -EINVAL;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(vlen < 63 ? vlen : 63), v);
	ns = strtod(num, &end);
	if (!strcmp(end, " estimated") || !strcmp(end, "\testimated")) {
		bw->estimated = true;
		*end = '\0';
	}
	if (!vlen || *end || !(ns > 0) || ns > 1e9) {
		snprintf(err, len, "line %d: %s.%ld \"%.*s\": accepted a number of ns > 0", lineno,
			 name, n, (int)vlen, v);
		return -EINVAL;
	}
	bw->cpus[bw->n] = (int)n;
	bw->ps[bw->n] = (uint64_t)llround(ns * 1000.0);
	bw->n++;
	return 0;
}

/* "llc.bytes SIZE": the last-level cache's size, 1 .. 2^40 */
static int parse_llc(struct fl_bw_curve *bw, const char *v, size_t vlen, int lineno, char *err,
		     size_t len)
{
	char num[64], *end;
	unsigned long long b;

	snprintf(num, sizeof(num), "%.*s", (int)(vlen < 63 ? vlen : 63), v);
	errno = 0;
	b = strtoull(num, &end, 10);
	if (!vlen || *end || errno || !b || b > 1ull << 40 || num[0] == '-') {
		snprintf(err, len,
			 "line %d: llc.bytes \"%.*s\": accepted the last-level cache's size in "
			 "bytes, 1 to 2^40",
			 lineno, (int)vlen, v);
		return -EINVAL;
	}
	bw->llc_bytes = b;
	return 0;
}

/* "tlb.4k|2m ENTRIES WAYS [estimated]": entries a multiple of the ways, both > 0 */
static int parse_tlb(struct fl_tlb_geometry *g, int k, const char *v, size_t vlen, int lineno,
		     char *err, size_t len)
{
	char num[64], word[16] = "";
	unsigned int e, w;
	int n;

	snprintf(num, sizeof(num), "%.*s", (int)(vlen < 63 ? vlen : 63), v);
	n = sscanf(num, "%u %u %15s", &e, &w, word);
	if ((n != 2 && !(n == 3 && !strcmp(word, "estimated"))) || !e || !w || e % w ||
	    e > 1u << 20) {
		snprintf(err, len,
			 "line %d: tlb.%s \"%s\": accepted ENTRIES WAYS (entries a multiple of "
			 "the ways, at most 1048576), then estimated where not measured",
			 lineno, k ? "2m" : "4k", num);
		return -EINVAL;
	}
	g->entries[k] = e;
	g->ways[k] = w;
	g->estimated[k] = n == 3;
	return 0;
}

/* "clock.mhz MHZ [estimated]": the machine's CPU clock, 1..100000 MHz */
static int parse_clock(struct fl_cost_prov *prov, const char *v, size_t vlen, int lineno, char *err,
		       size_t len)
{
	char num[64], word[16] = "";
	double mhz;
	int n;

	snprintf(num, sizeof(num), "%.*s", (int)(vlen < 63 ? vlen : 63), v);
	n = sscanf(num, "%lf %15s", &mhz, word);
	if ((n != 1 && !(n == 2 && !strcmp(word, "estimated"))) || !(mhz >= 1 && mhz <= 100000)) {
		snprintf(err, len,
			 "line %d: clock.mhz \"%s\": accepted MHZ (1..100000), then estimated "
			 "where not measured",
			 lineno, num);
		return -EINVAL;
	}
	prov->clock_mhz = mhz;
	prov->clock_estimated = n == 2;
	return 0;
}

double fl__cpu_mhz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz > 0 ? mhz : 0;
}

int fl__costs_parse(const char *text, uint64_t *ps, struct fl_cost_prov *prov,
		    struct fl_bw_curve *bw, fl_costs_line_fn other, void *ctx, char *err,
		    size_t len)
{
	bool seen[FL_NR_COSTS] = { false };
	const char *p = text;
	int lineno = 0, i;

	memset(prov, 0, sizeof(*prov));
	memset(bw, 0, sizeof(*bw));
	while (*p) {
		const char *eol = strchr(p, '\n'), *key, *sp, *v;
		size_t klen, vlen;

		if (!eol)
			eol = p + strlen(p);
		lineno++;
		key = p;
		p = *eol ? eol + 1 : eol;
		while (key < eol && (*key == ' ' || *key == '\t'))
			key++;
		if (key == eol || *key == '#')
			continue;
		for (sp = key; sp < eol && *sp != ' ' && *sp != '\t'; sp++)
			;
		klen = (size_t)(sp - key);
		for (v = sp; v < eol && (*v == ' ' || *v == '\t'); v++)
			;
		vlen = (size_t)(eol - v);
		while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' || v[vlen - 1] == '\r'))
			vlen--;
		if (ps && klen > 5 && !strncmp(key, "cost.", 5)) {
			char num[64], *end;
			double ns;

			i = fl__cost_id(key + 5, klen - 5);
			if (i < 0) {
				snprintf(err, len, "line %d: unknown cost %.*s", lineno, (int)klen,
					 key);
				return -EINVAL;
			}
			if (seen[i]) {
				snprintf(err, len, "line %d: cost.%s given twice", lineno,
					 fl__cost_info[i].name);
				return -EINVAL;
			}
			copy_value(num, sizeof(num), v, vlen);
			errno = 0;
			ns = strtod(num, &end);
			if (!strcmp(end, " estimated") || !strcmp(end, "\testimated")) {
				prov->estimated[i] = true;
				*end = '\0';
			}
			if (!vlen || *end || errno || !isfinite(ns) || ns < 0 || ns > 1e9) {
				snprintf(err, len,
					 "line %d: cost.%s \"%.*s\": give nanoseconds, a number "
					 "from "
					 "0 to 1e9, and the word estimated after it where it was "
					 "not "
					 "measured",
					 lineno, fl__cost_info[i].name, (int)vlen, v);
				return -EINVAL;
			}
			ps[i] = (uint64_t)llround(ns * 1000.0);
			seen[i] = true;
		} else if (klen > 11 && !strncmp(key, "provenance.", 11)) {
			const char *k = key + 11;
			size_t kl = klen - 11;

			if (kl == 6 && !strncmp(k, "kernel", 6))
				copy_value(prov->kernel, sizeof(prov->kernel), v, vlen);
			else if (kl == 3 && !strncmp(k, "cpu", 3))
				copy_value(prov->cpu, sizeof(prov->cpu), v, vlen);
			else if (kl == 4 && !strncmp(k, "date", 4))
				copy_value(prov->date, sizeof(prov->date), v, vlen);
			else if (kl == 7 && !strncmp(k, "command", 7))
				copy_value(prov->command, sizeof(prov->command), v, vlen);
			/* other provenance lines (the measurements) are for the reader */
		} else if (klen == 6 &&
			   (!strncmp(key, "tlb.4k", 6) || !strncmp(key, "tlb.2m", 6))) {
			if (parse_tlb(&prov->tlb, key[4] == '2', v, vlen, lineno, err, len))
				return -EINVAL;
		} else if (klen == 9 && !strncmp(key, "clock.mhz", 9)) {
			if (parse_clock(prov, v, vlen, lineno, err, len))
				return -EINVAL;
		} else if (klen > 14 && !strncmp(key, "bandwidth.llc.", 14)) {
			if (parse_bw(&bw->llc, "bandwidth.llc", key + 14, klen - 14, v, vlen,
				     lineno, err, len))
				return -EINVAL;
		} else if (klen > 10 && !strncmp(key, "bandwidth.", 10)) {
			if (parse_bw(&bw->mem, "bandwidth", key + 10, klen - 10, v, vlen, lineno,
				     err, len))
				return -EINVAL;
		} else if (klen == 9 && !strncmp(key, "llc.bytes", 9)) {
			if (parse_llc(bw, v, vlen, lineno, err, len))
				return -EINVAL;
		} else if (other) {
			if (other(ctx, key, klen, v, vlen, lineno, err, len))
				return -EINVAL;
		} else {
			snprintf(err, len,
				 "line %d: \"%.*s\": accepted cost.NAME, bandwidth.N, "
				 "bandwidth.llc.N, "
				 "llc.bytes, tlb.4k, tlb.2m, clock.mhz, provenance.KEY or # "
				 "comments",
				 lineno, (int)klen, key);
			return -EINVAL;
		}
	}
	prov->bw_estimated = bw->mem.estimated || bw->llc.estimated;
	for (i = 0; ps && i < FL_NR_COSTS; i++)
		if (!seen[i] && fl__cost_info[i].optional)
			ps[i] = 0;
		else if (!seen[i]) {
			snprintf(err, len, "cost.%s is missing (a cost file gives all %d costs)",
				 fl__cost_info[i].name, FL_NR_COSTS);
			return -EINVAL;
		}
	return 0;
}

int fl_costs_parse(const char *text, uint64_t *ps, struct fl_cost_prov *prov,
		   struct fl_bw_curve *bw, char *err, size_t len)
{
	return fl__costs_parse(text, ps, prov, bw, NULL, NULL, err, len);
}

FL_API int fl_costs_check(const char *path, char *err, size_t len)
{
	uint64_t saved[FL_NR_COSTS];
	struct fl_cost_prov prov = fl__cost_prov;
	int ret;

	memcpy(saved, fl__cost_ps, sizeof(saved));
	ret = fl_costs_load(path, err, len);
	memcpy(fl__cost_ps, saved, sizeof(saved));
	fl__cost_prov = prov;
	return ret;
}

int fl_costs_load(const char *path, char *err, size_t len)
{
	uint64_t ps[FL_NR_COSTS];
	struct fl_cost_prov prov;
	static struct fl_bw_curve bwc;
	char *text = NULL, sub[200];
	const char *src = fl__default_costs;
	int ret;

	if (path) {
		text = fl_read_text(path, 1 << 20);
		if (!text) {
			ret = -errno;
			snprintf(err, len, "--costs %s: %s", path,
				 errno == EFBIG ? "not a readable file of at most 1 MiB"
				 : errno == EIO ? "cannot read it"
						: strerror(errno));
			return ret == -EFBIG ? -EINVAL : ret;
		}
		src = text;
	}
	ret = fl_costs_parse(src, ps, &prov, &bwc, sub, sizeof(sub));
	free(text);
	if (ret) {
		snprintf(err, len, "--costs %s: %s", path ? path : "(built in)", sub);
		return ret;
	}
	memcpy(fl__cost_ps, ps, sizeof(ps));
	fl__bw_curve = bwc;
	fl__bw_limited = bwc.mem.n + bwc.llc.n >= 2;
	fl__tlb_geo = prov.tlb;
	snprintf(prov.source, sizeof(prov.source), "%s", path ? path : "built in");
	fl__cost_prov = prov;
	return 0;
}

void fl__costs_estimated(const struct fl_cost_prov *prov, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < FL_NR_COSTS && n < len; i++)
		if (prov->estimated[i])
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      fl__cost_info[i].name);
	/* the machine's geometry and clock where the file estimates them */
	if (n < len && (prov->tlb.estimated[0] || prov->tlb.estimated[1]))
		n += (size_t)snprintf(buf + n, len - n, "%stlb", n ? ", " : "");
	if (n < len && prov->clock_mhz > 0 && prov->clock_estimated)
		n += (size_t)snprintf(buf + n, len - n, "%sclock", n ? ", " : "");
	if (n < len && prov->bw_estimated)
		snprintf(buf + n, len - n, "%sbandwidth", n ? ", " : "");
}

void fl__costs_write_bw(FILE *f, const struct fl_bw_curve *bw)
{
	static const char *const name[2] = { "bandwidth", "bandwidth.llc" };
	int k, i;

	for (k = 0; k < 2; k++) {
		const struct fl_bw_points *c = k ? &bw->llc : &bw->mem;

		for (i = 0; i < c->n; i++)
			fprintf(f, "%s.%d %.3f%s\n", name[k], c->cpus[i], (double)c->ps[i] / 1000.0,
				c->estimated ? " estimated" : "");
	}
	if (bw->llc_bytes)
		fprintf(f, "llc.bytes %llu\n", (unsigned long long)bw->llc_bytes);
}

void fl__costs_write_machine(FILE *f, const struct fl_cost_prov *prov)
{
	int i;

	for (i = 0; i < 2; i++)
		if (prov->tlb.entries[i])
			fprintf(f, "tlb.%s %u %u%s\n", i ? "2m" : "4k", prov->tlb.entries[i],
				prov->tlb.ways[i], prov->tlb.estimated[i] ? " estimated" : "");
	if (prov->clock_mhz > 0)
		fprintf(f, "clock.mhz %.0f%s\n", prov->clock_mhz,
			prov->clock_estimated ? " estimated" : "");
}

int fl_costs_write(FILE *f, const uint64_t *ps, const struct fl_cost_prov *prov,
		   const struct fl_bw_curve *bw, const char *comment)
{
	int i;

	fprintf(f,
		"# foliolab cost file: what each operation of the model costs on a CPU, in ns\n");
	if (comment)
		fputs(comment, f);
	fprintf(f, "provenance.kernel %s\n", prov->kernel);
	fprintf(f, "provenance.cpu %s\n", prov->cpu);
	fprintf(f, "provenance.date %s\n", prov->date);
	fprintf(f, "provenance.command %s\n", prov->command);
	for (i = 0; i < FL_NR_COSTS; i++)
		fprintf(f, "cost.%s %.3f%s\n", fl__cost_info[i].name, (double)ps[i] / 1000.0,
			prov->estimated[i] ? " estimated" : "");
	fl__costs_write_machine(f, prov);
	if (bw)
		fl__costs_write_bw(f, bw);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
