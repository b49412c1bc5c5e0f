// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - text reports rendered from result records: one run in full,
 * or several side by side with ratios to the first.
 *
 * The lock table uses perf lock's columns (Name, acquired, contended, avg
 * wait, total wait, max wait, min wait) with perf's time units, one row
 * per lock class and call site.
 *
 * Conventions in this file: "changed" means a non-zero delta over the run;
 * fl_* counters are the model's own and are listed apart.
 */
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

static const char *knob(const struct fl_result *r, const char *name)
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
	const char *fp = knob(r, "foliolab/lru_cache_folio_pages");
	const char *bp = knob(r, "foliolab/lru_cache_batch_pages");

	if (!strcmp(bp, "0"))
		snprintf(buf, len, "%s: folios of < %s pages stay cached; flush at 31 folios",
			 knob(r, "foliolab/lru_cache"), fp);
	else
		snprintf(buf, len,
			 "%s: folios of < %s pages stay cached; flush at 31 folios or > %s pages",
			 knob(r, "foliolab/lru_cache"), fp, bp);
}

void report_settings(FILE *f, const struct fl_result *r, const char *indent)
{
	char rule[160];
	int i, others = 0;

	fprintf(f, "%sTHP: enabled=%s defrag=%s use_zero_page=%s; per size:", indent,
		knob(r, "transparent_hugepage/enabled"), knob(r, "transparent_hugepage/defrag"),
		knob(r, "transparent_hugepage/use_zero_page"));
	for (i = 0; i < r->knobs.nr; i++) {
		const char *n = r->knobs.v[i].name;

		if (strncmp(n, "transparent_hugepage/hugepages-", 31) != 0)
			continue;
		if (!strcmp(r->knobs.v[i].value, "never")) {
			others++;
			continue;
		}
		fprintf(f, " %.*s=%s", (int)(strchr(n + 21, '/') - (n + 31)), n + 31,
			r->knobs.v[i].value);
	}
	fprintf(f, "%s\n", others ? " (others never)" : "");
	lru_rule(r, rule, sizeof(rule));
	fprintf(f, "%sLRU cache: %s; lru_add_free_dead=%s\n", indent, rule,
		knob(r, "foliolab/lru_add_free_dead"));
}

static void report_header(FILE *f, const struct fl_result *r)
{
	char mem[32];
	int i;

	fl_format_size(r->mem_bytes, mem, sizeof(mem));
	fprintf(f, "%s on %s:", r->workload, r->target);
	for (i = 0; i < r->nr_params; i++)
		fprintf(f, " --%s %s", r->params[i].name, r->params[i].value);
	fprintf(f, "\n  machine: %d CPUs, %d node%s, %s\n", r->cpus, r->nodes,
		r->nodes > 1 ? "s" : "", mem);
	report_settings(f, r, "  ");
}

static void report_locks(FILE *f, const struct fl_result *r)
{
	int i;

	fprintf(f, "\nlocks (%s):\n", r->target);
	fprintf(f, "  %-46s %10s %10s %11s %11s %11s %11s\n", "Name", "acquired", "contended",
		"avg wait", "total wait", "max wait", "min wait");
	for (i = 0; i < r->locks.nr; i++) {
		const struct fl_lock_stat_row *l = &r->locks.v[i];
		char name[2 * FL_NAME_MAX + 4], avg[24], tot[24], mx[24], mn[24];

		snprintf(name, sizeof(name), "%s @ %s", l->name, l->site);
		fmt_time(l->contended ? l->wait_total_ns / l->contended : 0, avg, sizeof(avg));
		fmt_time(l->wait_total_ns, tot, sizeof(tot));
		fmt_time(l->wait_max_ns, mx, sizeof(mx));
		fmt_time(l->wait_min_ns, mn, sizeof(mn));
		fprintf(f, "  %-46s %10llu %10llu %11s %11s %11s %11s\n", name,
			(unsigned long long)l->acquired, (unsigned long long)l->contended, avg, tot,
			mx, mn);
	}
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

void report_run(FILE *f, const struct fl_result *r)
{
	int i, shown = 0;

	report_header(f, r);
	fprintf(f, "  time: wall %.3f s, user %.3f s, sys %.3f s\n", r->wall_s, r->user_s,
		r->sys_s);
	for (i = 0; i < r->nr_metrics; i++)
		fprintf(f, "%s%s %.0f%s%s", i ? ", " : "  result: ", r->metrics[i].name,
			r->metrics[i].value, r->metrics[i].unit[0] ? " " : "", r->metrics[i].unit);
	if (r->nr_metrics)
		fputc('\n', f);
	fprintf(f, "\ncounters that changed (/proc/vmstat names):\n");
	for (i = 0; i < r->counters.nr; i++) {
		const struct fl_counter *c = &r->counters.v[i];

		if (!c->value || !strncmp(c->name, MTHP_PREFIX, strlen(MTHP_PREFIX)) ||
		    !strncmp(c->name, "fl_", 3))
			continue;
		fprintf(f, "  %-32s %14lld\n", c->name, (long long)c->value);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");
	report_mthp(f, r);
	fprintf(f, "\nmodel-only counters (not in the kernel):\n");
	for (i = 0, shown = 0; i < r->counters.nr; i++) {
		const struct fl_counter *c = &r->counters.v[i];

		if (!c->value || strncmp(c->name, "fl_", 3))
			continue;
		fprintf(f, "  %-32s %14lld\n", c->name, (long long)c->value);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");
	report_locks(f, r);
	if (r->status)
		fprintf(f, "\nFAILED: %s\n", r->error);
}

static void ratio(FILE *f, double base, double v)
{
	if (base == 0)
		fprintf(f, " %15s", v == 0 ? "=" : "-");
	else
		fprintf(f, " %14.2fx", v / base);
}

static void cmp_row(FILE *f, const char *name, const double *v, int nr, bool integer)
{
	int i;

	fprintf(f, "  %-58.58s", name);
	for (i = 0; i < nr; i++) {
		if (integer)
			fprintf(f, " %14.0f", v[i]);
		else
			fprintf(f, " %14.3f", v[i]);
	}
	for (i = 1; i < nr; i++)
		ratio(f, v[0], v[i]);
	fputc('\n', f);
}

void report_compare(FILE *f, const struct fl_result *r, int nr)
{
	double v[64] = { 0 };
	char name[2 * FL_NAME_MAX + 16];
	int i, j, k;

	if (nr > 64)
		nr = 64;
	fprintf(f, "compare %s on %s:", r[0].workload, r[0].target);
	for (i = 0; i < r[0].nr_params; i++)
		fprintf(f, " --%s %s", r[0].params[i].name, r[0].params[i].value);
	fputc('\n', f);
	for (j = 0; j < nr; j++) {
		char head[80];

		snprintf(head, sizeof(head), "  [%s] ", r[j].label);
		report_settings(f, &r[j], head);
	}
	fprintf(f, "\n  %-58s", "");
	for (j = 0; j < nr; j++)
		fprintf(f, " %14.14s", r[j].label);
	for (j = 1; j < nr; j++) {
		snprintf(name, sizeof(name), "%s/%s", r[j].label, r[0].label);
		fprintf(f, " %15.15s", name);
	}
	fputc('\n', f);
	for (j = 0; j < nr; j++)
		v[j] = r[j].wall_s;
	cmp_row(f, "time: wall s", v, nr, false);
	for (j = 0; j < nr; j++)
		v[j] = r[j].user_s + r[j].sys_s;
	cmp_row(f, "time: cpu s", v, nr, false);
	for (i = 0; i < r[0].nr_metrics; i++) {
		for (j = 0; j < nr; j++) {
			const struct fl_metric *m = fl_result_metric(&r[j], r[0].metrics[i].name);

			v[j] = m ? m->value : 0;
		}
		snprintf(name, sizeof(name), "result: %s", r[0].metrics[i].name);
		cmp_row(f, name, v, nr, true);
	}
	/* counters that changed in any configuration, in record order */
	for (i = 0; i < r[0].counters.nr; i++) {
		bool any = false;

		for (j = 0; j < nr; j++) {
			v[j] = (double)fl_counters_get(&r[j].counters, r[0].counters.v[i].name);
			any |= v[j] != 0;
		}
		if (any)
			cmp_row(f, r[0].counters.v[i].name, v, nr, true);
	}
	/*
	 * Lock rows: the union of (class, site) over the configurations;
	 * contention rows only where some configuration saw contention.
	 */
	for (j = 0; j < nr; j++) {
		for (k = 0; k < r[j].locks.nr; k++) {
			const struct fl_lock_stat_row *l = &r[j].locks.v[k];
			const struct fl_lock_stat_row *x[64];
			bool contended = false;
			int seen = 0, jj;

			for (jj = 0; jj < j && !seen; jj++)
				seen = fl_locks_find(&r[jj].locks, l->name, l->site) != NULL;
			if (seen)
				continue;
			for (jj = 0; jj < nr; jj++) {
				x[jj] = fl_locks_find(&r[jj].locks, l->name, l->site);
				v[jj] = x[jj] ? (double)x[jj]->acquired : 0;
				contended |= x[jj] && x[jj]->contended;
			}
			snprintf(name, sizeof(name), "%s @ %s acquired", l->name, l->site);
			cmp_row(f, name, v, nr, true);
			if (!contended)
				continue;
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->contended : 0;
			snprintf(name, sizeof(name), "%s @ %s contended", l->name, l->site);
			cmp_row(f, name, v, nr, true);
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->wait_total_ns / 1e6 : 0;
			snprintf(name, sizeof(name), "%s @ %s wait ms", l->name, l->site);
			cmp_row(f, name, v, nr, false);
		}
	}
	for (j = 0; j < nr; j++)
		if (r[j].status)
			fprintf(f, "\nFAILED [%s]: %s\n", r[j].label, r[j].error);
}
