/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cost.h - the virtual-CPU platform's cost model: named costs, each the
 * CPU time one operation takes in the kernel, charged by mm/ where the
 * kernel pays it.
 *
 * On the native platform a charge is a no-op (jump_label.h: a static
 * branch, patched into a jump when the simulator starts). On sim it adds to the running task's debt, in
 * picoseconds, which the simulator turns into virtual time at the task's
 * next scheduling point (a lock, an unlock, a wait, a clock read): time
 * needs to be exact only where CPUs can see each other.
 *
 * The costs come from a cost file (fl_costs_load()); `foliolab
 * calibrate` writes one from measurements of the host kernel, and the
 * tree's costs/intel16-kvm.costs is compiled in as the default.
 *
 * Conventions in this file: costs are in picoseconds; a cost's name is
 * the key in the cost file ("cost.NAME").
 */
#ifndef FL_PLATFORM_COST_H
#define FL_PLATFORM_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "compiler.h"
#include "jump_label.h"

enum fl_cost_id {
	FL_COST_FAULT,	     /* exception entry, the fault's walk and the return, per fault */
	FL_COST_SYSCALL,     /* system call entry and return */
	FL_COST_USER_ACCESS, /* the workload's first store or load to a mapped page */
	FL_COST_CLEAR_PAGE,  /* zeroing 4 KiB */
	FL_COST_COPY_PAGE,   /* copying 4 KiB */
	FL_COST_SET_PTE,     /* mapping one page of a new folio: PTE, rmap, counters */
	FL_COST_ZAP_PTE,     /* unmapping one page: PTE cleared, rmap, counters */
	FL_COST_FOLIO_ALLOC, /* a folio from the per-CPU lists, prepared */
	FL_COST_FOLIO_FREE,  /* a folio freed: its last reference, to the per-CPU lists */
	FL_COST_BUDDY,	     /* one block between the buddy lists and a per-CPU list */
	FL_COST_LRU_MOVE,    /* one folio onto or off an LRU list */
	FL_COST_LOCK,	     /* an uncontended lock and unlock */
	FL_COST_CACHELINE,   /* a cache line fetched from another CPU */
	FL_COST_TLB_FLUSH,   /* a TLB flush on this CPU */
	FL_COST_IPI,	     /* a TLB-shootdown IPI to another CPU, the sender's share */
	FL_COST_PTE_TABLE,   /* a page-table page allocated (and later freed) */
	FL_COST_VMA,	     /* creating or removing a VMA */
	FL_COST_XA_NODE,     /* one XArray node visited */
	FL_COST_SPLIT_PAGE,  /* splitting a folio, per page: its struct page */
	FL_COST_SPLIT_FOLIO, /* one folio a split makes: set up, unfrozen, on the LRU, unlocked */
	FL_COST_MIGRATE_PTE, /* a PTE rewritten outside a fault: to a migration entry, or back */
	FL_COST_XA_NODE_HOT, /* an XArray node visited again, still in this CPU's cache */
	FL_COST_WALK_PTE,    /* a page walk to a 4 KiB translation (a dTLB miss) */
	FL_COST_WALK_PMD,    /* a page walk to a 2 MiB translation */
	FL_COST_COLLAPSE,    /* a PMD range made one THP, beyond its parts charged apart */
	FL_COST_LRU_LINE,    /* a line an LRU list operation fetches from another CPU */
	FL_COST_WAKEUP,	     /* a sleeping lock's waiter woken: from the wake-up to running */
	FL_COST_IPI_RECV,    /* a shootdown IPI taken by its receiver: interrupt and flush */
	FL_NR_COSTS
};

struct fl_cost_info {
	const char *name;
	const char *what;
	bool optional; /* added after the first cost files: a file without it reads 0 */
};
extern const struct fl_cost_info fl__cost_info[FL_NR_COSTS];
/* fl__cost_id() - the cost named by the @n bytes at @name, or -1 */
int fl__cost_id(const char *name, size_t n);

/* The costs in force, in picoseconds. */
extern uint64_t fl__cost_ps[FL_NR_COSTS];
/* sim: how many of each were charged (the counters fl_cost_NAME) */
extern uint64_t fl__cost_count[FL_NR_COSTS];
/* sim: the virtual time each has taken, in ps, stretches included (fl_time_NAME, in ns) */
extern uint64_t fl__cost_time[FL_NR_COSTS];
/* sim: writes that waited for a line still in transfer to another CPU, and the ps they waited */
extern uint64_t fl__line_waits, fl__line_wait_time;

/* sim.c: what the running task has been charged since its last scheduling point */
extern uint64_t fl__sim_debt;

/*
 * fl_sim_only() - @stmt is the simulator's bookkeeping (a line's owner, an
 * IPI's receivers): mm/ names it so and runs it on sim only, behind the
 * static branch (jump_label.h: a no-op on native), as the kernel's
 * static_branch_unlikely() guards what only some machines need. mm/ tests
 * no platform flag itself.
 */
#define fl_sim_only(stmt)                                                                          \
	do {                                                                                       \
		if (fl_sim_branch()) {                                                             \
			stmt;                                                                      \
		}                                                                                  \
	} while (0)

static __always_inline void fl_cost_n(enum fl_cost_id id, uint64_t n)
{
	if (fl_sim_branch()) {
		uint64_t t = fl__cost_ps[id] * n;

		fl__sim_debt += t;
		fl__cost_time[id] += t;
		fl__cost_count[id] += n;
	}
}

static __always_inline void fl_cost(enum fl_cost_id id)
{
	fl_cost_n(id, 1);
}

/*
 * fl_cost_on_cpu() - sim: charge @id to @cpu, not the running task's (an
 * interrupt it takes: fl_sim_interrupt() moves its clock now); nothing if
 * no task is on that CPU (an idle CPU absorbs it). Return: whether charged.
 */
bool fl_cost_on_cpu(int cpu, enum fl_cost_id id);

/*
 * A cache line that moves between CPUs (a lock word, a list head, a
 * shared counter): its last writer's CPU, so that a write by another CPU
 * is charged one transfer, as the coherence protocol charges it, and the
 * virtual time its last transfer ends: a line is in one CPU's cache at a
 * time, so writes from other CPUs queue for it, one transfer each, with
 * no scheduling point (fl__cacheline_take()).
 */
struct fl_cacheline {
	int cpu;	     /* its last writer + 1; 0: nobody yet */
	unsigned int gen;    /* the simulation that wrote it (fl__sim_gen): older is nobody */
	uint64_t busy_until; /* ps: its last transfer ends */
};

/* platform.h: this thread's CPU (a simulated task's while it runs), -1 if none */
extern _Thread_local int fl__cpu;

/* sim.c: counts the simulations a process has run, so none sees another's state */
extern unsigned int fl__sim_gen;

void fl__cacheline_take(struct fl_cacheline *cl);
/*
 * fl__cacheline_claim() - make this CPU @cl's last writer, charging
 * nothing. Return: whether another CPU wrote it last (a transfer, which
 * the caller charges: transfers with no dependency between them overlap,
 * see fl_cost_transfers()).
 */
bool fl__cacheline_claim(struct fl_cacheline *cl);
static __always_inline void fl_cacheline_write(struct fl_cacheline *cl)
{
	if (fl_sim_branch())
		fl__cacheline_take(cl);
}

/*
 * Many lines of the same kind (one per struct page): their last writers
 * in one table, @cpu[i] the last writer + 1 of line @i (0: nobody yet),
 * cleared when a new simulation first writes one. mm/ sizes it.
 */
struct fl_line_table {
	uint16_t *cpu;
	unsigned long nr;
	unsigned int gen; /* the simulation its entries belong to */
};

void fl__line_table_reset(struct fl_line_table *t);
/*
 * fl__line_table_claim() - make this CPU the last writer of line @i of
 * @t, charging nothing. Return: whether another CPU wrote it last. Only
 * in a simulated task (fl__cpu >= 0 there); elsewhere nothing happens.
 */
static __always_inline bool fl__line_table_claim(struct fl_line_table *t, unsigned long i)
{
	uint16_t me = (uint16_t)(fl__cpu + 1), was;

	if (unlikely(!me || i >= t->nr))
		return false;
	if (unlikely(t->gen != fl__sim_gen))
		fl__line_table_reset(t);
	was = t->cpu[i];
	t->cpu[i] = me;
	return was && was != me;
}
void fl__line_table_take(struct fl_line_table *t, unsigned long i);

/*
 * fl_cost_transfers() - @n cache-line transfers one after another: an
 * operation whose misses depend on each other (a load whose value gives
 * the next address) pays each; misses with no dependency between them
 * (independent stores, a counter beside a list update) are in flight at
 * once, as out-of-order execution and the store buffer keep them, and
 * pay as one.
 */
static __always_inline void fl_cost_transfers(unsigned int n)
{
	fl_cost_n(FL_COST_CACHELINE, n);
}
static __always_inline void fl_line_table_write(struct fl_line_table *t, unsigned long i)
{
	if (fl_sim_branch())
		fl__line_table_take(t, i);
}

/*
 * Memory bandwidth, a machine-wide resource: the time one CPU takes to
 * clear 4 KiB while @cpus[i] CPUs clear at once (ns[i], in ps here),
 * measured by calibrate (N threads each clearing its own memory). Two
 * curves: @mem for memory that no cache holds ("bandwidth.N"), @llc for
 * pages the last-level cache holds ("bandwidth.llc.N"), and the LLC's
 * size ("llc.bytes"). A clear meets @llc when fewer than @llc_bytes were
 * cleared or copied machine-wide since its page last was (the page is
 * still in the LLC), @mem otherwise; with one curve, every clear meets
 * it. clear_page (the in-fault clear of a page the cache holds) is
 * stretched by curve(N) / llc(1), at least 1, where N is 1 + how many
 * other CPUs are busy with such operations at this virtual moment
 * (cost.c); copy_page (a probe's copy through 64 MiB, priced as
 * measured) by curve(N) / curve(1); without an @llc curve, both by
 * mem(N) / mem(1). With no points at all, bandwidth is unlimited.
 */
#define FL_BW_POINTS 64
struct fl_bw_points {
	int n;
	int cpus[FL_BW_POINTS];	   /* ascending, cpus[0] == 1 */
	uint64_t ps[FL_BW_POINTS]; /* per CPU, per 4 KiB */
	bool estimated;		   /* its lines say "estimated" */
};
struct fl_bw_curve {
	struct fl_bw_points mem, llc;
	uint64_t llc_bytes; /* 0: not known, every clear meets @mem */
};
extern struct fl_bw_curve fl__bw_curve;

/*
 * The pages cleared or copied machine-wide when each page last was
 * (@at[pfn], 0: never), for the LLC rule above; mm/ sizes it.
 */
struct fl_page_clears {
	uint32_t *at;
	unsigned long nr;
};
extern struct fl_page_clears fl__page_cleared;

/* whether a curve is in force (two points or more): kept beside the costs, read on every clear */
extern bool fl__bw_limited;
void fl__cost_mem(enum fl_cost_id id, unsigned long pfn, uint64_t pages);
/*
 * An XArray node visited: xa_node, or xa_node_hot if it is among the last
 * FL_XA_HOT_NODES nodes this CPU visited (still in its cache).
 */
#define FL_XA_HOT_NODES 8
void fl__cost_xa_node(const void *node);
static __always_inline void fl_cost_xa_node(const void *node)
{
	if (fl_sim_branch())
		fl__cost_xa_node(node);
}

/*
 * fl_cost_mem() - @pages of @id (clear_page, copy_page) written from frame
 * @pfn on: they draw on the bandwidth.
 */
static __always_inline void fl_cost_mem(enum fl_cost_id id, unsigned long pfn, uint64_t pages)
{
	if (fl_sim_branch()) {
		if (fl__bw_limited)
			fl__cost_mem(id, pfn, pages);
		else
			fl_cost_n(id, pages);
	}
}

/* A cost file's provenance: what was measured, where, when and how. */
/*
 * The last-level data TLB's geometry: [0] 4 KiB entries, [1] 2 MiB ones,
 * from the cost file's "tlb.4k ENTRIES WAYS" and "tlb.2m ENTRIES WAYS"
 * (either may be marked estimated); 0 entries: no TLB is modelled.
 */
struct fl_tlb_geometry {
	unsigned int entries[2];
	unsigned int ways[2];
	bool estimated[2];
};
extern struct fl_tlb_geometry fl__tlb_geo;

struct fl_cost_prov {
	char kernel[64];
	char cpu[96];
	char date[32];
	char command[256];
	char source[256]; /* the file it came from, or "built in" */
	/*
	 * costs the file marks "estimated" (cost.NAME VALUE estimated): not
	 * measured on its machine, derived by a rule the file's comment gives
	 */
	bool estimated[FL_NR_COSTS];
	struct fl_tlb_geometry tlb; /* the machine's TLB, where the file gives it */
	/* its CPU clock in MHz (clock.mhz; 0: not given), what "cycles" are counted at */
	double clock_mhz;
	bool clock_estimated;
	bool bw_estimated; /* a bandwidth curve's lines say "estimated" */
};
/* fl__cpu_mhz() - this host's CPU clock from /proc/cpuinfo ("cpu MHz"), 0 if none */
double fl__cpu_mhz(void);
/* the lines "tlb.4k", "tlb.2m" and "clock.mhz" of @prov, where it gives them */
void fl__costs_write_machine(FILE *f, const struct fl_cost_prov *prov);
/* fl__costs_write_bw() - @bw's lines (bandwidth.N, bandwidth.llc.N, llc.bytes) to @f */
void fl__costs_write_bw(FILE *f, const struct fl_bw_curve *bw);
/* "a, b, c": the costs in force marked estimated, "" when none */
void fl__costs_estimated(const struct fl_cost_prov *prov, char *buf, size_t len);
extern struct fl_cost_prov fl__cost_prov;

/*
 * fl_costs_parse() - read cost-file text @text into @ps and @prov. Every
 * cost must be given once, in ns (a decimal number >= 0), as
 * "cost.NAME VALUE", or "cost.NAME VALUE estimated" for one the machine
 * did not measure; "provenance.KEY VALUE" lines and "#" comments are
 * kept or skipped; "bandwidth.N VALUE" and "bandwidth.llc.N VALUE" lines
 * (N CPUs at once, ascending from 1, VALUE in ns per 4 KiB) and
 * "llc.bytes SIZE" give @bw. Return: 0, or -EINVAL with the
 * line and the reason in @err.
 */
int fl_costs_parse(const char *text, uint64_t *ps, struct fl_cost_prov *prov,
		   struct fl_bw_curve *bw, char *err, size_t len);
/*
 * fl__costs_parse() - the same reader for files in the cost file's form
 * (calibrate's measurements): with @ps NULL no cost.NAME line is read or
 * required; a line whose key is none of the above goes to @other (NULL:
 * refused), which returns 0 or -EINVAL with the reason in @err.
 */
typedef int (*fl_costs_line_fn)(void *ctx, const char *key, size_t klen, const char *v, size_t vlen,
				int lineno, char *err, size_t len);
int fl__costs_parse(const char *text, uint64_t *ps, struct fl_cost_prov *prov,
		    struct fl_bw_curve *bw, fl_costs_line_fn other, void *ctx, char *err,
		    size_t len);
/*
 * fl_costs_load() - make the costs of @path (NULL: the built-in default)
 * the ones in force. Return: 0 or -errno with the reason in @err.
 */
int fl_costs_load(const char *path, char *err, size_t len);
/* fl_costs_write() - @ps, @prov and @bw (NULL: none) as a cost file, to @f. Return: 0 or -EIO. */
int fl_costs_write(FILE *f, const uint64_t *ps, const struct fl_cost_prov *prov,
		   const struct fl_bw_curve *bw, const char *comment);

#endif /* FL_PLATFORM_COST_H */
