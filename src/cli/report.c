// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - text reports rendered from result records: one run in full
 * (the settings, times, counters and their scope, mTHP stats, the lock
 * table), and the pieces the side-by-side compare (report_compare.c) uses
 * too.
 *
 * The lock table uses perf lock's columns (Name, acquired, contended, avg
 * wait, total wait, max wait, min wait) with perf's time units, one row
 * per lock class and call site.
 *
 * Conventions in this file: "changed" means a non-zero delta over the run;
 * fl_* counters are the model's own and are listed apart.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define MTHP_PREFIX "hugepages-"

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else if (ns < 60000000000ull)
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	else
		snprintf(buf, len, "%.2f m", (double)ns / 6e10);
}

const char *report_knob(const struct fl_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->knobs.nr; i++)
		if (!strcmp(r->knobs.v[i].name, name))
			return r->knobs.v[i].value;
	return "?";
}

/* The lru cache flush rule in words, from the knobs in force. */
static void lru_rule(const struct fl_result *r, char *buf, size_t len)
{
	const char *fp = report_knob(r, "foliolab/lru_cache_folio_pages");
	const char *bp = report_knob(r, "foliolab/lru_cache_batch_pages");
	const char *bs = report_knob(r, "foliolab/lru_cache_batch_slots");

	if (!strcmp(bp, "0"))
		snprintf(buf, len, "%s: folios of < %s pages stay cached; flush at %s folios",
			 report_knob(r, "foliolab/lru_cache"), fp, bs);
	else
		snprintf(buf, len,
			 "%s: folios of < %s pages stay cached; flush at %s folios or > %s pages",
			 report_knob(r, "foliolab/lru_cache"), fp, bs, bp);
}

/*
 * 6.x kernels flush the lru_add batch on every large folio: the seeds'
 * caching of small large folios came with mainline 7.x.
 */
bool report_host_is_order0(const struct fl_result *r)
{
	return r->kernel_release[0] == '6' && r->kernel_release[1] == '.';
}

static bool any_set(const struct fl_result *r)
{
	int i;

	for (i = 0; i < r->knobs.nr; i++)
		if (r->knobs.v[i].set)
			return true;
	return false;
}

void report_settings(FILE *f, const struct fl_result *r, const char *indent)
{
	char rule[160];
	int i, others = 0;

	fprintf(f, "%sTHP: enabled=%s defrag=%s use_zero_page=%s; per size:", indent,
		report_knob(r, "transparent_hugepage/enabled"),
		report_knob(r, "transparent_hugepage/defrag"),
		report_knob(r, "transparent_hugepage/use_zero_page"));
	for (i = 0; i < r->knobs.nr; i++) {
		const char *n = r->knobs.v[i].name;

		if (strncmp(n, "transparent_hugepage/hugepages-", 31) != 0 ||
		    strcmp(n + strlen(n) - 8, "/enabled"))
			continue;
		if (!strcmp(r->knobs.v[i].value, "never")) {
			others++;
			continue;
		}
		fprintf(f, " %.*s=%s", (int)(strchr(n + 21, '/') - (n + 31)), n + 31,
			r->knobs.v[i].value);
	}
	fprintf(f, "%s\n", others ? " (others never)" : "");
	/* what else the run set (its options, --knob, the workload's own set-up) */
	for (i = 0, others = 0; i < r->knobs.nr; i++) {
		const char *n = r->knobs.v[i].name;

		if (!r->knobs.v[i].set || !strcmp(n, "foliolab/lru_cache") ||
		    !strcmp(n, "transparent_hugepage/enabled") ||
		    !strcmp(n, "transparent_hugepage/defrag") ||
		    !strcmp(n, "transparent_hugepage/use_zero_page") ||
		    !strncmp(n, "transparent_hugepage/hugepages-", 31))
			continue;
		if (!others++)
			fprintf(f, "%sknobs set: ", indent);
		else
			fputs(", ", f);
		fprintf(f, "%s=%s", n, r->knobs.v[i].value);
	}
	if (others)
		fputc('\n', f);
	if (!strcmp(r->target, "host")) {
		if (strcmp(report_knob(r, "cmdline/pvm_no_zero_page"), "?") &&
		    strcmp(report_knob(r, "cmdline/pvm_no_zero_page"), "0"))
			fprintf(f,
				"%sbooted with pvm_no_zero_page=%s (a boot option of PVM guest "
				"kernels, not in stock 6.18): read faults allocate a page or a "
				"THP where 6.18 maps the zero page or the huge zero folio\n",
				indent, report_knob(r, "cmdline/pvm_no_zero_page"));
		fprintf(f, "%sLRU cache: the host kernel's own rule%s; knobs %s\n", indent,
			report_host_is_order0(r) ? " (6.x: like the model's order0)" : "",
			any_set(r) ? "set by this run (restored after it)"
				   : "as the host had them");
		return;
	}
	lru_rule(r, rule, sizeof(rule));
	fprintf(f, "%sLRU cache: %s; lru_add_free_dead=%s\n", indent, rule,
		report_knob(r, "foliolab/lru_add_free_dead"));
	if (!strcmp(r->platform, "sim"))
		fprintf(f,
			"%splatform: sim, %d virtual CPUs in virtual time, seed %llu; costs %s\n",
			indent, r->cpus, (unsigned long long)r->seed, r->costs);
	if (r->locked_atomics || r->pin_cpus)
		fprintf(f, "%soptions:%s%s\n", indent,
			r->locked_atomics
				? " --locked-atomics (the LOCK prefix with one thread too)"
				: "",
			r->pin_cpus ? " --pin-cpus (CPU i's thread on host CPU i)" : "");
	if (!strcmp(report_knob(r, "foliolab/no_zero_page"), "on"))
		fprintf(f,
			"%sno_zero_page=on: read faults allocate a page or a THP, no zero page and "
			"no huge zero folio (emulating a host booted with pvm_no_zero_page=1)\n",
			indent);
	if (!strcmp(report_knob(r, "foliolab/huge_zero_folio"), "present"))
		fprintf(f,
			"%shuge_zero_folio=present: the huge zero folio exists before the run (as "
			"on the host, whose run makes sure of it)\n",
			indent);
}

static void report_header(FILE *f, const struct fl_result *r)
{
	char mem[32];
	int i;

	fl_format_size(r->mem_bytes, mem, sizeof(mem));
	fprintf(f, "%s on %s:", r->workload, r->target);
	for (i = 0; i < r->nr_params; i++)
		fprintf(f, " --%s %s", r->params[i].name, r->params[i].value);
	fprintf(f, "\n  machine: %d CPUs, %d node%s, %s", r->cpus, r->nodes,
		r->nodes > 1 ? "s" : "", mem);
	if (r->swap_bytes) {
		char swap[32];

		fl_format_size(r->swap_bytes, swap, sizeof(swap));
		fprintf(f, ", swap on zram %s", swap);
	}
	if (!strcmp(r->target, "host"))
		fprintf(f, "; kernel %s; %s", r->kernel_release, r->cpu_model);
	fputc('\n', f);
	report_settings(f, r, "  ");
}

static void report_locks(FILE *f, const struct fl_result *r)
{
	int i;

	/* sim: all the CPU time there was, for each lock's share of it */
	double cpu_ns = report_vcpu_ns(r);

	fprintf(f, "\nlocks (%s%s):\n", r->target, cpu_ns > 0 ? ", virtual time" : "");
	fprintf(f, "  %-46s %10s %10s %11s %11s %11s %11s", "Name", "acquired", "contended",
		"avg wait", "total wait", "max wait", "min wait");
	if (cpu_ns > 0)
		fprintf(f, " %11s %7s %7s", "total hold", "wait%", "hold%");
	fputc('\n', f);
	for (i = 0; i < r->locks.nr; i++) {
		const struct fl_lock_stat_row *l = &r->locks.v[i];
		char name[2 * FL_NAME_MAX + 4], avg[24], tot[24], mx[24], mn[24];

		snprintf(name, sizeof(name), "%s @ %s", l->name, l->site);
		fmt_time(l->contended ? l->wait_total_ns / l->contended : 0, avg, sizeof(avg));
		fmt_time(l->wait_total_ns, tot, sizeof(tot));
		fmt_time(l->wait_max_ns, mx, sizeof(mx));
		fmt_time(l->wait_min_ns, mn, sizeof(mn));
		if (l->no_acquired)
			fprintf(f, "  %-46s %10s", name, "-");
		else
			fprintf(f, "  %-46s %10llu", name, (unsigned long long)l->acquired);
		fprintf(f, " %10llu %11s %11s %11s %11s", (unsigned long long)l->contended, avg,
			tot, mx, mn);
		if (cpu_ns > 0) {
			char hold[24];

			fmt_time(l->hold_total_ns, hold, sizeof(hold));
			fprintf(f, " %11s %6.2f%% %6.2f%%", hold,
				100.0 * (double)l->wait_total_ns / cpu_ns,
				100.0 * (double)l->hold_total_ns / cpu_ns);
		}
		fputc('\n', f);
	}
	for (i = 0; i < r->locks.nr; i++) {
		const struct fl_lock_stat_row *l = &r->locks.v[i];

		if (l->stolen || l->handoffs)
			fprintf(f,
				"  %s @ %s: %llu taken free while others slept (stolen), "
				"%llu handed to a waiter that asked\n",
				l->name, l->site, (unsigned long long)l->stolen,
				(unsigned long long)l->handoffs);
	}
	if (r->locks_note[0])
		fprintf(f, "  (%s)\n", r->locks_note);
	else if (r->locks.nr && r->locks.v[0].no_acquired)
		fprintf(f, "  (perf lock counts contended acquisitions only: acquired is '-')\n");
	if (cpu_ns > 0)
		fprintf(f,
			"  (wait%% and hold%%: shares of all %d virtual CPUs' time; a spinning "
			"wait "
			"is what perf report shows under the lock function)\n",
			r->nr_vcpus);
}

/* mTHP stats per size: rows = sizes with a change, columns = items with one */
static void report_mthp(FILE *f, const struct fl_result *r)
{
	static const char *const items[] = {
		"anon_fault_alloc",
		"anon_fault_fallback",
		"anon_fault_fallback_charge",
		"split",
		"split_failed",
		"split_deferred",
		"nr_anon",
		"nr_anon_partially_mapped",
		"swpout",
		"swpout_fallback",
	};
	bool col[sizeof(items) / sizeof(items[0])] = { 0 };
	char name[FL_NAME_MAX];
	int kb, c, any = 0;

	for (kb = 16; kb <= 2048; kb *= 2) {
		for (c = 0; c < (int)(sizeof(items) / sizeof(items[0])); c++) {
			snprintf(name, sizeof(name), MTHP_PREFIX "%dkB/stats/%s", kb, items[c]);
			if (fl_counters_get(&r->counters, name)) {
				col[c] = true;
				any = 1;
			}
		}
	}
	if (!any) {
		fprintf(f, "\nmTHP stats: no change at any size\n");
		return;
	}
	fprintf(f, "\nmTHP stats (hugepages-<size>/stats):\n  %-8s", "size");
	for (c = 0; c < (int)(sizeof(items) / sizeof(items[0])); c++)
		if (col[c])
			fprintf(f, " %*s", (int)strlen(items[c]) > 12 ? (int)strlen(items[c]) : 12,
				items[c]);
	fputc('\n', f);
	for (kb = 16; kb <= 2048; kb *= 2) {
		bool row = false;

		for (c = 0; c < (int)(sizeof(items) / sizeof(items[0])); c++) {
			snprintf(name, sizeof(name), MTHP_PREFIX "%dkB/stats/%s", kb, items[c]);
			row |= fl_counters_get(&r->counters, name) != 0;
		}
		if (!row)
			continue;
		snprintf(name, sizeof(name), "%dkB", kb);
		fprintf(f, "  %-8s", name);
		for (c = 0; c < (int)(sizeof(items) / sizeof(items[0])); c++) {
			if (!col[c])
				continue;
			snprintf(name, sizeof(name), MTHP_PREFIX "%dkB/stats/%s", kb, items[c]);
			fprintf(f, " %*lld",
				(int)strlen(items[c]) > 12 ? (int)strlen(items[c]) : 12,
				(long long)fl_counters_get(&r->counters, name));
		}
		fputc('\n', f);
	}
}

/* The counters that changed; on the host with where each value comes from. */
/*
 * Who reclaimed, when anything was: kswapd beside the tasks or the
 * allocating tasks themselves (direct reclaim), their time (model; the
 * host kernel does not say), pages scanned and stolen, allocation stalls.
 */
static void report_reclaim(FILE *f, const struct fl_result *r)
{
	const struct fl_counters *c = &r->counters;
	int64_t sk = fl_counters_get(c, "pgscan_kswapd"), sd = fl_counters_get(c, "pgscan_direct");
	int64_t sp = fl_counters_get(c, "pgscan_proactive");
	bool model = !strcmp(r->target, "model");

	if (!sk && !sd && !sp)
		return;
	fprintf(f, "  reclaim: kswapd scanned %lld stole %lld", (long long)sk,
		(long long)fl_counters_get(c, "pgsteal_kswapd"));
	if (model)
		fprintf(f, " in %.1f ms", (double)fl_counters_get(c, "fl_kswapd_ns") / 1e6);
	fprintf(f, "; direct scanned %lld stole %lld", (long long)sd,
		(long long)fl_counters_get(c, "pgsteal_direct"));
	if (model)
		fprintf(f, " in %.1f ms", (double)fl_counters_get(c, "fl_direct_reclaim_ns") / 1e6);
	fprintf(f, " (%lld stalls)",
		(long long)(fl_counters_get(c, "allocstall_normal") +
			    fl_counters_get(c, "allocstall_movable")));
	if (sp)
		fprintf(f, "; proactive scanned %lld stole %lld", (long long)sp,
			(long long)fl_counters_get(c, "pgsteal_proactive"));
	fputc('\n', f);
}

/*
 * The run's memory cgroup, when it had a limit: memory.max and .high, the
 * peak, memory.events, and the reclaim its limit forced (memory.stat's
 * pgscan and pgsteal, which /proc/vmstat's do not count).
 */
static void report_memcg(FILE *f, const struct fl_result *r)
{
	const struct fl_counters *c = &r->counters;
	char max[32] = "max", high[32] = "max", peak[32];

	if (!r->memcg_max && !r->memcg_high)
		return;
	if (r->memcg_max)
		fl_format_size(r->memcg_max, max, sizeof(max));
	if (r->memcg_high)
		fl_format_size(r->memcg_high, high, sizeof(high));
	fl_format_size((uint64_t)fl_counters_get(c, "memory.peak"), peak, sizeof(peak));
	fprintf(f, "  memcg: memory.max %s, memory.high %s, peak %s", max, high, peak);
	/* cgroup v1 has no memory.events and no reclaim counts in memory.stat */
	if (!fl_counters_find(c, "memory.events.max")) {
		fprintf(f, " (cgroup v1: no memory.events, no reclaim in memory.stat)\n");
		return;
	}
	fprintf(f, "; events high %lld max %lld oom %lld oom_kill %lld\n",
		(long long)fl_counters_get(c, "memory.events.high"),
		(long long)fl_counters_get(c, "memory.events.max"),
		(long long)fl_counters_get(c, "memory.events.oom"),
		(long long)fl_counters_get(c, "memory.events.oom_kill"));
	fprintf(f,
		"  memcg reclaim: scanned %lld stole %lld (kswapd %lld/%lld, direct %lld/%lld); "
		"swapped out %lld, in %lld pages; lazily freed %lld\n",
		(long long)fl_counters_get(c, "memory.stat.pgscan"),
		(long long)fl_counters_get(c, "memory.stat.pgsteal"),
		(long long)fl_counters_get(c, "memory.stat.pgscan_kswapd"),
		(long long)fl_counters_get(c, "memory.stat.pgsteal_kswapd"),
		(long long)fl_counters_get(c, "memory.stat.pgscan_direct"),
		(long long)fl_counters_get(c, "memory.stat.pgsteal_direct"),
		(long long)fl_counters_get(c, "memory.stat.pswpout"),
		(long long)fl_counters_get(c, "memory.stat.pswpin"),
		(long long)fl_counters_get(c, "memory.stat.pglazyfreed"));
}

static void report_counters(FILE *f, const struct fl_result *r)
{
	static const char *const scopes[] = { "", "workload", "system" };
	char sys[FL_NAME_MAX + 8];
	int i, shown = 0, w = 32;

	/* a window's counters ("queue:hugepages-64kB/stats/...") widen the name column */
	for (i = 0; i < r->counters.nr; i++)
		if (r->counters.v[i].value && (int)strlen(r->counters.v[i].name) > w &&
		    strncmp(r->counters.v[i].name, "system:", 7))
			w = (int)strlen(r->counters.v[i].name);
	if (!r->noise.nr) {
		fprintf(f, "\ncounters that changed (/proc/vmstat names):\n");
	} else {
		fprintf(f, "\ncounters that changed (/proc/vmstat names): \"workload\" counts the "
			   "run's own processes, \"system\" the\n  whole machine (other processes "
			   "too); idle = the same counter over an idle interval (noise)\n");
		if (r->scope_note[0])
			fprintf(f, "  (system-wide because %s)\n", r->scope_note);
	}
	for (i = 0; i < r->counters.nr; i++) {
		const struct fl_counter *c = &r->counters.v[i];
		const struct fl_counter *s;

		if (!c->value || !strncmp(c->name, MTHP_PREFIX, strlen(MTHP_PREFIX)) ||
		    !strncmp(c->name, "fl_", 3) || !strncmp(c->name, "system:", 7))
			continue;
		shown++;
		if (!r->noise.nr) {
			fprintf(f, "  %-*s %14lld\n", w, c->name, (long long)c->value);
			continue;
		}
		fprintf(f, "  %-*s %14lld  %-8s  idle %lld", w, c->name, (long long)c->value,
			scopes[c->scope], (long long)fl_counters_get(&r->noise, c->name));
		snprintf(sys, sizeof(sys), "system:%s", c->name);
		s = fl_counters_find(&r->counters, sys);
		if (s)
			fprintf(f, "  (system-wide %lld)", (long long)s->value);
		fputc('\n', f);
	}
	if (!shown)
		fprintf(f, "  (none)\n");
}

/*
 * Platform sim: virtual time, with the host's own beside it, and how busy
 * the virtual CPUs were (all of them, and the least and most busy one).
 */
double report_vcpu_ns(const struct fl_result *r)
{
	return r->wall_s * 1e9 * r->nr_vcpus;
}

double report_vcpu_busy_pct(const struct fl_result *r)
{
	double busy = 0, idle = 0;
	int i;

	for (i = 0; i < r->nr_vcpus; i++) {
		busy += (double)r->vcpu_busy_ns[i];
		idle += (double)r->vcpu_idle_ns[i];
	}
	return busy + idle > 0 ? 100 * busy / (busy + idle) : 0;
}

static void report_vcpus(FILE *f, const struct fl_result *r)
{
	uint64_t mn = UINT64_MAX, mx = 0;
	double span = r->wall_s * 1e9, busy = report_vcpu_busy_pct(r);
	int i;

	for (i = 0; i < r->nr_vcpus; i++) {
		if (r->vcpu_busy_ns[i] < mn)
			mn = r->vcpu_busy_ns[i];
		if (r->vcpu_busy_ns[i] > mx)
			mx = r->vcpu_busy_ns[i];
	}
	fprintf(f,
		"  virtual CPUs: busy %.1f%%, idle %.1f%% of %d x the run; per CPU busy %.1f%% to "
		"%.1f%%\n",
		busy, busy > 0 ? 100.0 - busy : 0.0, r->nr_vcpus,
		span > 0 ? 100.0 * (double)mn / span : 0.0,
		span > 0 ? 100.0 * (double)mx / span : 0.0);
}

void report_run(FILE *f, const struct fl_result *r)
{
	const char *heading;
	int i, shown = 0;
	bool model;

	report_header(f, r);
	if (r->nr_vcpus)
		fprintf(f,
			"  time: virtual %.6f s (the host's: wall %.3f s, %llu task switches, "
			"%llu preemptions)",
			r->wall_s, r->host_wall_s, (unsigned long long)r->sim_switches,
			(unsigned long long)r->sim_preemptions);
	else
		fprintf(f, "  time: wall %.3f s, user %.3f s, sys %.3f s", r->wall_s, r->user_s,
			r->sys_s);
	if (r->steal_pct >= 0)
		fprintf(f, ", hypervisor steal %.1f%%", r->steal_pct);
	fputc('\n', f);
	if (r->nr_vcpus)
		report_vcpus(f, r);
	/* whole numbers and large ones as integers, the rest to 3 significant digits */
	for (i = 0; i < r->nr_metrics; i++) {
		double v = r->metrics[i].value;

		fprintf(f, report_whole(v) ? "%s%s %.0f%s%s" : "%s%s %.3g%s%s",
			i ? ", " : "  result: ", r->metrics[i].name, v,
			r->metrics[i].unit[0] ? " " : "", r->metrics[i].unit);
	}
	if (r->nr_metrics)
		fputc('\n', f);
	fprintf(f, "  data check: %lld page tags read back, %lld wrong\n",
		(long long)fl_counters_get(&r->counters, "fl_tag_checked"),
		(long long)fl_counters_get(&r->counters, "fl_tag_mismatch"));
	if (r->note[0])
		fprintf(f, "  note: %s\n", r->note);
	report_reclaim(f, r);
	report_memcg(f, r);
	report_counters(f, r);
	report_mthp(f, r);
	if (r->noise.nr)
		report_noise_note(f, r, 1);
	report_machinery_note(f, r, 1);
	/*
	 * The fl_* counters: the model's own; a host run has only what it
	 * counted under the model's names (khugepaged's), and no heading
	 * without them.
	 */
	model = !strcmp(r->target, "model");
	heading = model ? "model-only counters (not in the kernel):"
			: "under the model's names (system-wide: khugepaged's CPU time and scan "
			  "results since the run began):";
	for (i = 0, shown = 0; i < r->counters.nr; i++) {
		const struct fl_counter *c = &r->counters.v[i];

		if (!c->value || strncmp(c->name, "fl_", 3) || !strncmp(c->name, "fl_tag_", 7) ||
		    !strncmp(c->name, "fl_time_", 8))
			continue;
		if (!shown++)
			fprintf(f, "\n%s\n", heading);
		fprintf(f, "  %-32s %14lld\n", c->name, (long long)c->value);
	}
	if (model && !shown)
		fprintf(f, "\n%s\n  (none)\n", heading);
	report_locks(f, r);
	report_time(f, r);
	if (r->status)
		fprintf(f, "\nFAILED: %s\n", r->error);
}

/* by the site's share of all CPU time, wait and hold together */
static int by_site_time(const void *a, const void *b)
{
	const struct fl_lock_stat_row *x = *(const struct fl_lock_stat_row *const *)a;
	const struct fl_lock_stat_row *y = *(const struct fl_lock_stat_row *const *)b;
	uint64_t tx = x->wait_total_ns + x->hold_total_ns, ty = y->wait_total_ns + y->hold_total_ns;

	return tx < ty ? 1 : tx > ty ? -1 : 0;
}

#define TIME_ROWS 64
#define TIME_SITES 8

/*
 * Platform sim: where the virtual CPU time went. Self (each cost, the
 * spinning, the rest, idle: they add up to all CPU time), then the lock
 * sites that took most, children-style: a site's wait is its spinning
 * (perf's folio_lruvec_lock_irqsave), its hold all that ran under the lock.
 */
void report_time(FILE *f, const struct fl_result *r)
{
	struct fl_time_row rows[TIME_ROWS];
	const struct fl_lock_stat_row *site[TIME_SITES + 1];
	double cpu;
	int i, j, n = fl_time_breakdown(r, rows, TIME_ROWS, &cpu), nsites = 0;

	if (!n || cpu <= 0)
		return;
	fprintf(f,
		"\nwhere the time went (virtual CPU time, %d CPUs x %.6f s = %.6f s; self: each "
		"row once, adding up to 100%%):\n",
		r->nr_vcpus, r->wall_s, cpu / 1e9);
	for (i = 0; i < n; i++)
		if (rows[i].ns >= cpu * 5e-4)
			fprintf(f, "  %-40s %7.2f%%  %12.6f s\n", rows[i].name,
				100 * rows[i].ns / cpu, rows[i].ns / 1e9);
	for (i = 0; i < r->locks.nr; i++) {
		const struct fl_lock_stat_row *l = &r->locks.v[i];

		if ((double)(l->wait_total_ns + l->hold_total_ns) < cpu * 5e-3)
			continue;
		/* the largest TIME_SITES, kept sorted: a larger one replaces the last */
		if (nsites == TIME_SITES && by_site_time(&site[TIME_SITES - 1], &l) <= 0)
			continue;
		site[nsites < TIME_SITES ? nsites++ : TIME_SITES - 1] = l;
		for (j = nsites - 1; j > 0 && by_site_time(&site[j - 1], &site[j]) > 0; j--) {
			site[TIME_SITES] = site[j];
			site[j] = site[j - 1];
			site[j - 1] = site[TIME_SITES];
		}
	}
	if (!nsites)
		return;
	fprintf(f, "  lock sites (children: wait = the spinning or sleeping to take it, hold = "
		   "everything run under it):\n");
	for (j = 0; j < nsites; j++) {
		char name[2 * FL_NAME_MAX + 4];

		snprintf(name, sizeof(name), "%s @ %s", site[j]->name, site[j]->site);
		fprintf(f, "    %-52s wait %6.2f%%  hold %6.2f%%\n", name,
			100 * (double)site[j]->wait_total_ns / cpu,
			100 * (double)site[j]->hold_total_ns / cpu);
	}
}

/*
 * The noise line: the counters a host result's deltas are judged by, over
 * the idle interval, scaled to the run.
 */
void report_noise_note(FILE *f, const struct fl_result *r, int nr)
{
	static const char *const shown[] = { "pgfault",
					     "pgalloc_normal",
					     "pgfree",
					     "hugepages-16kB/stats/anon_fault_alloc",
					     "hugepages-64kB/stats/anon_fault_alloc",
					     "hugepages-2048kB/stats/anon_fault_alloc" };
	size_t k;
	int j;

	for (j = 0; j < nr; j++) {
		if (!r[j].noise.nr)
			continue;
		fprintf(f,
			"\nhost noise [%s]: the same counters over an idle %.2f s right after the "
			"run, scaled to its %.2f s:",
			r[j].label[0] ? r[j].label : r[j].target, r[j].noise_s, r[j].wall_s);
		for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			fprintf(f, "%s %s %lld", k ? "," : "", shown[k],
				(long long)fl_counters_get(&r[j].noise, shown[k]));
		fputc('\n', f);
	}
}

/*
 * The machinery line: what the host's own process machinery counted, run
 * again without the workload, and taken out of the rows above.
 */
void report_machinery_note(FILE *f, const struct fl_result *r, int nr)
{
	static const char *const shown[] = { "pgfault", "pgalloc_normal", "pgfree",
					     "nr_anon_pages" };
	size_t k;
	int i, j;

	for (j = 0; j < nr; j++) {
		if (!r[j].machinery_steps)
			continue;
		fprintf(f,
			"\nhost machinery [%s]: the run's %d process steps (the processes made, "
			"forked, given threads and ended) run again with no workload in them "
			"counted",
			r[j].label[0] ? r[j].label : r[j].target, r[j].machinery_steps);
		for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			fprintf(f, "%s %s %lld", k ? "," : "", shown[k],
				(long long)fl_counters_get(&r[j].machinery, shown[k]));
		for (i = 0; i < r[j].machinery.nr; i++) {
			const struct fl_counter *c = &r[j].machinery.v[i];

			if (c->value && !strncmp(c->name, "hugepages-", 10) &&
			    strstr(c->name, "/anon_fault_alloc") && !strchr(c->name, ':'))
				fprintf(f, ", %s %lld", c->name, (long long)c->value);
		}
		fputs("; taken out of every row above that counts the run alone (the windows, "
		      "such as cow:, hold the workload's steps without it)\n",
		      f);
	}
}
