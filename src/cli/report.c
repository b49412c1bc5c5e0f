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
	const char *bs = knob(r, "foliolab/lru_cache_batch_slots");

	if (!strcmp(bp, "0"))
		snprintf(buf, len, "%s: folios of < %s pages stay cached; flush at %s folios",
			 knob(r, "foliolab/lru_cache"), fp, bs);
	else
		snprintf(buf, len,
			 "%s: folios of < %s pages stay cached; flush at %s folios or > %s pages",
			 knob(r, "foliolab/lru_cache"), fp, bs, bp);
}

/*
 * 6.x kernels flush the lru_add batch on every large folio: the seeds'
 * caching of small large folios came with mainline 7.x.
 */
static bool host_is_order0(const struct fl_result *r)
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
		knob(r, "transparent_hugepage/enabled"), knob(r, "transparent_hugepage/defrag"),
		knob(r, "transparent_hugepage/use_zero_page"));
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
	if (!strcmp(r->target, "host")) {
		fprintf(f, "%sLRU cache: the host kernel's own rule%s; knobs %s\n", indent,
			host_is_order0(r) ? " (6.x: like the model's order0)" : "",
			any_set(r) ? "set by this run (restored after it)"
				   : "as the host had them");
		return;
	}
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
	fprintf(f, "\n  machine: %d CPUs, %d node%s, %s", r->cpus, r->nodes,
		r->nodes > 1 ? "s" : "", mem);
	if (!strcmp(r->target, "host"))
		fprintf(f, "; kernel %s; %s", r->kernel_release, r->cpu_model);
	fputc('\n', f);
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
		if (l->no_acquired)
			fprintf(f, "  %-46s %10s", name, "-");
		else
			fprintf(f, "  %-46s %10llu", name, (unsigned long long)l->acquired);
		fprintf(f, " %10llu %11s %11s %11s %11s\n", (unsigned long long)l->contended, avg,
			tot, mx, mn);
	}
	if (r->locks_note[0])
		fprintf(f, "  (%s)\n", r->locks_note);
	else if (r->locks.nr && r->locks.v[0].no_acquired)
		fprintf(f, "  (perf lock counts contended acquisitions only: acquired is '-')\n");
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
	fprintf(f, "  time: wall %.3f s, user %.3f s, sys %.3f s", r->wall_s, r->user_s, r->sys_s);
	if (r->steal_pct >= 0)
		fprintf(f, ", hypervisor steal %.1f%%", r->steal_pct);
	fputc('\n', f);
	for (i = 0; i < r->nr_metrics; i++)
		fprintf(f, "%s%s %.0f%s%s", i ? ", " : "  result: ", r->metrics[i].name,
			r->metrics[i].value, r->metrics[i].unit[0] ? " " : "", r->metrics[i].unit);
	if (r->nr_metrics)
		fputc('\n', f);
	fprintf(f, "\ncounters that changed (/proc/vmstat names)%s:\n",
		r->noise.nr ? "; idle = the same counter over an idle interval (noise)" : "");
	for (i = 0; i < r->counters.nr; i++) {
		const struct fl_counter *c = &r->counters.v[i];

		if (!c->value || !strncmp(c->name, MTHP_PREFIX, strlen(MTHP_PREFIX)) ||
		    !strncmp(c->name, "fl_", 3))
			continue;
		if (r->noise.nr)
			fprintf(f, "  %-32s %14lld   idle %lld\n", c->name, (long long)c->value,
				(long long)fl_counters_get(&r->noise, c->name));
		else
			fprintf(f, "  %-32s %14lld\n", c->name, (long long)c->value);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");
	report_mthp(f, r);
	if (r->noise.nr)
		report_noise_note(f, r, 1);
	if (strcmp(r->target, "model")) {
		report_locks(f, r);
		if (r->status)
			fprintf(f, "\nFAILED: %s\n", r->error);
		return;
	}
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
			"\nhost noise [%s]: counters are system-wide; over an idle %.2f s right "
			"after the run, scaled to its %.2f s:",
			r[j].label[0] ? r[j].label : r[j].target, r[j].noise_s, r[j].wall_s);
		for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			fprintf(f, "%s %s %lld", k ? "," : "", shown[k],
				(long long)fl_counters_get(&r[j].noise, shown[k]));
		fputc('\n', f);
	}
}

#define CMP_MAX 32

struct cmp {
	int nr;
	int nr_pairs;
	int w;			  /* width of a value or ratio column */
	int pair[2 * CMP_MAX][2]; /* ratio columns: v[pair[0]] / v[pair[1]] */
	char pair_head[2 * CMP_MAX][96];
	int noise_col[CMP_MAX]; /* results with an idle column */
	int nr_noise;
};

/* split a label ("16K/model/pages31": size, target, policy) into its parts */
static int label_parts(const char *label, char *buf, size_t len, char *part[4])
{
	char *save = NULL;
	int n;

	snprintf(buf, len, "%s", label);
	for (n = 0; n < 3; n++) {
		part[n] = strtok_r(n ? NULL : buf, "/", &save);
		if (!part[n])
			break;
	}
	return n;
}

static bool has_part(char *const part[4], int n, const char *p)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(part[i], p))
			return true;
	return false;
}

/*
 * The head of a ratio column: what the two labels share, then what each
 * has of its own: "16K/model: pages31/order0", "host: 16K/4K".
 */
static void ratio_head(const char *label, const char *base, char *out, size_t len)
{
	char a[64], b[64], *pa[4], *pb[4];
	char common[64] = "", x[64] = "", y[64] = "";
	int na = label_parts(label, a, sizeof(a), pa);
	int nb = label_parts(base, b, sizeof(b), pb);
	int i;

	for (i = 0; i < na; i++) {
		char *dst = has_part(pb, nb, pa[i]) ? common : x;

		snprintf(dst + strlen(dst), 64 - strlen(dst), "%s%s", dst[0] ? "/" : "", pa[i]);
	}
	for (i = 0; i < nb; i++)
		if (!has_part(pa, na, pb[i]))
			snprintf(y + strlen(y), sizeof(y) - strlen(y), "%s%s", y[0] ? "/" : "",
				 pb[i]);
	snprintf(out, len, "%s%s%s/%s", common, common[0] ? ": " : "", x[0] ? x : label,
		 y[0] ? y : base);
}

/* same value of every knob whose name starts with @prefix and contains @part */
static bool same_knobs(const struct fl_result *a, const struct fl_result *b, const char *prefix,
		       const char *part)
{
	size_t n = strlen(prefix);
	int i;

	if (a->knobs.nr == 0 || b->knobs.nr == 0)
		return false;
	for (i = 0; i < a->knobs.nr; i++) {
		const char *name = a->knobs.v[i].name;

		if (!strncmp(name, prefix, n) && strstr(name, part) &&
		    strcmp(a->knobs.v[i].value, knob(b, name)))
			return false;
	}
	return true;
}

static bool same_size(const struct fl_result *a, const struct fl_result *b)
{
	return same_knobs(a, b, "transparent_hugepage/hugepages-", "/enabled");
}

/* the model's LRU-cache settings; the host has none of its own to compare */
static bool same_policy(const struct fl_result *a, const struct fl_result *b)
{
	return same_knobs(a, b, "foliolab/", "");
}

static void add_pair(struct cmp *c, const struct fl_result *r, int j, int base)
{
	int i;

	for (i = 0; i < c->nr_pairs; i++)
		if (c->pair[i][0] == j && c->pair[i][1] == base)
			return;
	if (c->nr_pairs == 2 * CMP_MAX)
		return;
	c->pair[c->nr_pairs][0] = j;
	c->pair[c->nr_pairs][1] = base;
	ratio_head(r[j].label, r[base].label, c->pair_head[c->nr_pairs], sizeof(c->pair_head[0]));
	c->nr_pairs++;
}

/* the first column before @j of @j's target that @match accepts, or -1 */
static int first_match(const struct fl_result *r, int j,
		       bool (*match)(const struct fl_result *, const struct fl_result *), bool want)
{
	int i;

	for (i = 0; i < j; i++)
		if (!strcmp(r[i].target, r[j].target) && match(&r[i], &r[j]) == want)
			return i;
	return -1;
}

/* a host column whose rule no model column runs: say how to add one */
static void like_for_like_hint(FILE *f, const struct fl_result *r, int nr)
{
	bool host6 = false, order0 = false;
	int j;

	for (j = 0; j < nr; j++) {
		if (!strcmp(r[j].target, "host"))
			host6 |= host_is_order0(&r[j]);
		else if (!strcmp(knob(&r[j], "foliolab/lru_cache"), "order0"))
			order0 = true;
	}
	if (host6 && !order0)
		fprintf(f,
			"  note: the host's 6.x kernel runs the order0 rule and no model column "
			"does; add --lru-cache=order0,%s to compare like with like\n",
			knob(&r[0], "foliolab/lru_cache"));
}

/*
 * Ratio columns. A column is divided by the first column of its target
 * with the same mTHP sizes (a policy ratio) and by the first with the
 * same policy (a size ratio); a column that is neither is divided by the
 * first column of its target. A host column is also divided by the model
 * column with the same sizes, preferring the order0 policy, which is the
 * rule of kernels before the seeds.
 */
static void plan_columns(struct cmp *c, const struct fl_result *r, int nr)
{
	int j, i, pol, size, model;
	int w = 14;

	memset(c, 0, sizeof(*c));
	c->nr = nr;
	for (j = 1; j < nr; j++) {
		pol = first_match(r, j, same_size, true);
		size = -1;
		for (i = 0; i < j && size < 0; i++)
			if (!strcmp(r[i].target, r[j].target) && same_policy(&r[i], &r[j]) &&
			    !same_size(&r[i], &r[j]))
				size = i;
		if (pol >= 0)
			add_pair(c, r, j, pol);
		if (size >= 0)
			add_pair(c, r, j, size);
		if (pol < 0 && size < 0 && (i = first_match(r, j, same_size, false)) >= 0)
			add_pair(c, r, j, i);
		if (strcmp(r[j].target, "host"))
			continue;
		model = -1;
		for (i = 0; i < nr; i++) {
			if (strcmp(r[i].target, "model") || !same_size(&r[i], &r[j]))
				continue;
			if (model < 0 || !strcmp(knob(&r[i], "foliolab/lru_cache"), "order0"))
				model = i;
			if (!strcmp(knob(&r[i], "foliolab/lru_cache"), "order0"))
				break;
		}
		if (model >= 0)
			add_pair(c, r, j, model);
	}
	for (j = 0; j < nr; j++)
		if (r[j].noise.nr)
			c->noise_col[c->nr_noise++] = j;
	for (j = 0; j < nr; j++) {
		i = (int)strlen(r[j].label) + (r[j].noise.nr ? 6 : 0);
		w = i > w ? i : w;
	}
	for (j = 0; j < c->nr_pairs; j++) {
		i = (int)strlen(c->pair_head[j]) - 1;
		w = i > w ? i : w;
	}
	c->w = w;
}

static void put_value(FILE *f, int w, double v, bool integer)
{
	if (v != v)
		fprintf(f, " %*s", w, "-");
	else if (integer)
		fprintf(f, " %*.0f", w, v);
	else
		fprintf(f, " %*.3f", w, v);
}

static void cmp_row(FILE *f, const struct cmp *c, const char *name, const double *v,
		    const double *noise, bool integer)
{
	int i;

	fprintf(f, "  %-58.58s", name);
	for (i = 0; i < c->nr; i++)
		put_value(f, c->w, v[i], integer);
	for (i = 0; i < c->nr_pairs; i++) {
		double a = v[c->pair[i][0]], b = v[c->pair[i][1]];

		if (a != a || b != b)
			fprintf(f, " %*s", c->w + 1, "-");
		else if (b == 0)
			fprintf(f, " %*s", c->w + 1, a == 0 ? "=" : "-");
		else
			fprintf(f, " %*.2fx", c->w, a / b);
	}
	for (i = 0; i < c->nr_noise; i++) {
		if (noise)
			put_value(f, c->w, noise[c->noise_col[i]], integer);
		else
			fprintf(f, " %*s", c->w, "");
	}
	fputc('\n', f);
}

static bool counter_seen_before(const struct fl_result *r, int j, const char *name)
{
	int i;

	for (i = 0; i < j; i++)
		if (fl_counters_find(&r[i].counters, name))
			return true;
	return false;
}

/* a host-only counter is shown when some host delta stands out of its noise */
static bool counter_worth_showing(const struct fl_result *r, int nr, const char *name,
				  bool model_knows)
{
	int j;

	for (j = 0; j < nr; j++) {
		int64_t v = fl_counters_get(&r[j].counters, name);
		int64_t n = fl_counters_get(&r[j].noise, name);

		if (!v)
			continue;
		if (model_knows || !r[j].noise.nr)
			return true;
		if ((v < 0 ? -v : v) > 2 * (n < 0 ? -n : n) + 16)
			return true;
	}
	return false;
}

static bool counts_acquisitions(const struct fl_result *r)
{
	return !strcmp(r->target, "model");
}

/*
 * Host rows the model has no counterpart for (scheduler, timers, ...) are
 * shown only when they hold at least 1% of the host's largest contended
 * count; the rest are summed up in one line.
 */
static bool model_row_or_big(const struct fl_result *r, int nr, const struct fl_lock_stat_row *l,
			     uint64_t max_host)
{
	int j;

	for (j = 0; j < nr; j++)
		if (counts_acquisitions(&r[j]) && fl_locks_find(&r[j].locks, l->name, l->site))
			return true;
	for (j = 0; j < nr; j++) {
		const struct fl_lock_stat_row *x = fl_locks_find(&r[j].locks, l->name, l->site);

		if (x && !counts_acquisitions(&r[j]) && x->contended * 100 >= max_host)
			return true;
	}
	return false;
}

static void cmp_lock_rows(FILE *f, const struct cmp *c, const struct fl_result *r, int nr)
{
	char name[2 * FL_NAME_MAX + 16];
	double v[CMP_MAX];
	uint64_t max_host = 0;
	int j, k, jj, hidden = 0;

	for (j = 0; j < nr; j++)
		for (k = 0; k < r[j].locks.nr && !counts_acquisitions(&r[j]); k++)
			if (r[j].locks.v[k].contended > max_host)
				max_host = r[j].locks.v[k].contended;
	for (j = 0; j < nr; j++)
		for (k = 0; k < r[j].locks.nr; k++)
			hidden += !model_row_or_big(r, nr, &r[j].locks.v[k], max_host);

	/*
	 * Lock rows: the union of (class, site) over the configurations;
	 * contention rows only where some configuration saw contention.
	 */
	for (j = 0; j < nr; j++) {
		for (k = 0; k < r[j].locks.nr; k++) {
			const struct fl_lock_stat_row *l = &r[j].locks.v[k];
			const struct fl_lock_stat_row *x[CMP_MAX];
			bool contended = false, acquired = false;
			int seen = 0;

			for (jj = 0; jj < j && !seen; jj++)
				seen = fl_locks_find(&r[jj].locks, l->name, l->site) != NULL;
			if (seen)
				continue;
			for (jj = 0; jj < nr; jj++) {
				x[jj] = fl_locks_find(&r[jj].locks, l->name, l->site);
				contended |= x[jj] && x[jj]->contended;
				acquired |= x[jj] && !x[jj]->no_acquired;
			}
			if (!model_row_or_big(r, nr, l, max_host))
				continue;
			if (acquired) {
				/* a target that counts contention only has no acquired figure */
				for (jj = 0; jj < nr; jj++)
					v[jj] = (x[jj] && x[jj]->no_acquired) ||
								!counts_acquisitions(&r[jj])
							? NAN
						: x[jj] ? (double)x[jj]->acquired
							: 0;
				snprintf(name, sizeof(name), "%s @ %s acquired", l->name, l->site);
				cmp_row(f, c, name, v, NULL, true);
			}
			if (!contended)
				continue;
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->contended
					      : (r[jj].locks_note[0] ? NAN : 0);
			snprintf(name, sizeof(name), "%s @ %s contended", l->name, l->site);
			cmp_row(f, c, name, v, NULL, true);
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->wait_total_ns / 1e6
					      : (r[jj].locks_note[0] ? NAN : 0);
			snprintf(name, sizeof(name), "%s @ %s wait ms", l->name, l->site);
			cmp_row(f, c, name, v, NULL, false);
		}
	}
	if (hidden)
		fprintf(f,
			"  (%d host lock rows below 1%% of the top contended count not shown; "
			"see run or --json)\n",
			hidden);
}

void report_compare(FILE *f, const struct fl_result *r, int nr)
{
	double v[CMP_MAX] = { 0 }, nz[CMP_MAX] = { 0 };
	char name[2 * FL_NAME_MAX + 16];
	struct cmp c;
	int i, j;

	if (nr > CMP_MAX)
		nr = CMP_MAX;
	plan_columns(&c, r, nr);
	fprintf(f, "compare %s on %s", r[0].workload, r[0].target);
	for (j = 1; j < nr; j++)
		if (strcmp(r[j].target, r[0].target)) {
			fprintf(f, " and %s (kernel %s, %d CPUs, %s)", r[j].target,
				r[j].kernel_release, r[j].cpus, r[j].cpu_model);
			break;
		}
	fputc(':', f);
	for (i = 0; i < r[0].nr_params; i++)
		fprintf(f, " --%s %s", r[0].params[i].name, r[0].params[i].value);
	fputc('\n', f);
	for (j = 0; j < nr; j++) {
		char head[80];

		snprintf(head, sizeof(head), "  [%s] ", r[j].label);
		report_settings(f, &r[j], head);
	}
	like_for_like_hint(f, r, nr);
	fprintf(f, "\n  %-58s", "");
	for (j = 0; j < nr; j++)
		fprintf(f, " %*s", c.w, r[j].label);
	for (j = 0; j < c.nr_pairs; j++)
		fprintf(f, " %*s", c.w + 1, c.pair_head[j]);
	for (j = 0; j < c.nr_noise; j++) {
		snprintf(name, sizeof(name), "idle[%s]", r[c.noise_col[j]].label);
		fprintf(f, " %*s", c.w, name);
	}
	fputc('\n', f);
	for (j = 0; j < nr; j++)
		v[j] = r[j].wall_s;
	cmp_row(f, &c, "time: wall s", v, NULL, false);
	for (j = 0; j < nr; j++)
		v[j] = r[j].user_s + r[j].sys_s;
	cmp_row(f, &c, "time: cpu s", v, NULL, false);
	for (i = 0; i < r[0].nr_metrics; i++) {
		for (j = 0; j < nr; j++) {
			const struct fl_metric *m = fl_result_metric(&r[j], r[0].metrics[i].name);

			v[j] = m ? m->value : 0;
		}
		snprintf(name, sizeof(name), "result: %s", r[0].metrics[i].name);
		cmp_row(f, &c, name, v, NULL, true);
	}
	/*
	 * Counters that changed, the union over the configurations in record
	 * order; a counter only the host has is shown where it stands out of
	 * the host's noise, and reads '-' in a model column.
	 */
	for (j = 0; j < nr; j++) {
		for (i = 0; i < r[j].counters.nr; i++) {
			const char *cn = r[j].counters.v[i].name;
			bool model_knows = false;
			int jj;

			if (counter_seen_before(r, j, cn))
				continue;
			for (jj = 0; jj < nr; jj++)
				model_knows |= !strcmp(r[jj].target, "model") &&
					       fl_counters_find(&r[jj].counters, cn);
			if (!counter_worth_showing(r, nr, cn, model_knows))
				continue;
			for (jj = 0; jj < nr; jj++) {
				const struct fl_counter *x = fl_counters_find(&r[jj].counters, cn);

				v[jj] = x ? (double)x->value : NAN;
				nz[jj] = (double)fl_counters_get(&r[jj].noise, cn);
			}
			cmp_row(f, &c, cn, v, nz, true);
		}
	}
	cmp_lock_rows(f, &c, r, nr);
	for (j = 0; j < nr; j++)
		if (r[j].locks_note[0] && strcmp(r[j].target, "model"))
			fprintf(f, "\n[%s] %s", r[j].label, r[j].locks_note);
	if (c.nr_noise)
		report_noise_note(f, r, nr);
	for (j = 0; j < nr; j++)
		if (r[j].status)
			fprintf(f, "\nFAILED [%s]: %s\n", r[j].label, r[j].error);
}
