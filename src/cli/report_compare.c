// SPDX-License-Identifier: GPL-2.0-only
/*
 * report_compare.c - several result records side by side: one column per
 * configuration, ratio columns, the host's idle noise, and the agreement
 * gate's verdict for every host column (check[...]: ok or DIFFERS, and
 * "sys" where the host's value is system-wide).
 *
 * Conventions in this file: "c" is the table's column plan; a value of NAN
 * prints as '-' (the configuration has no such figure).
 */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define CMP_MAX 32

struct cmp {
	int nr;
	int nr_pairs;
	int w;			  /* width of a value or ratio column */
	int pair[2 * CMP_MAX][2]; /* ratio columns: v[pair[0]] / v[pair[1]] */
	char pair_head[2 * CMP_MAX][96];
	int noise_col[CMP_MAX]; /* results with an idle column */
	int nr_noise;
	/* the gate: one check column per host result with a model partner */
	struct fl_agreement check[CMP_MAX];
	int nr_checks;
	int check_w;
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

static bool same_size(const struct fl_result *a, const struct fl_result *b)
{
	return fl_result_same_knobs(a, b, "transparent_hugepage/hugepages-", "/enabled");
}

/* the model's LRU-cache settings; the host has none of its own to compare */
static bool same_policy(const struct fl_result *a, const struct fl_result *b)
{
	return fl_result_same_knobs(a, b, "foliolab/", "");
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
			host6 |= report_host_is_order0(&r[j]);
		else if (!strcmp(report_knob(&r[j], "foliolab/lru_cache"), "order0"))
			order0 = true;
	}
	if (host6 && !order0)
		fprintf(f,
			"  note: the host's 6.x kernel runs the order0 rule and no model column "
			"does; add --lru-cache=order0,%s to compare like with like\n",
			report_knob(&r[0], "foliolab/lru_cache"));
}

/*
 * Ratio columns. A column is divided by the first column of its target
 * with the same mTHP sizes (a policy ratio) and by the first with the
 * same policy (a size ratio); a column that is neither is divided by the
 * first column of its target. A host column is also divided by the model
 * column with the same sizes, preferring the order0 policy, which is the
 * rule of kernels before the seeds.
 */
static void plan_columns(struct cmp *c, const struct fl_result *r, int nr,
			 const struct fl_tolerance *tol)
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
		model = fl_result_model_partner(r, nr, j);
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
	c->check_w = 11;
	for (j = 0; j < nr; j++) {
		if (strcmp(r[j].target, "host") ||
		    fl_agreement_check(r, nr, j, tol, &c->check[c->nr_checks]))
			continue;
		i = (int)strlen(r[j].label) + 7;
		c->check_w = i > c->check_w ? i : c->check_w;
		c->nr_checks++;
	}
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

/* One row; a counter row (@noise given) also gets its check cells. */
static void cmp_row(FILE *f, const struct cmp *c, const struct fl_result *r, const char *name,
		    const double *v, const double *noise, bool integer)
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
	for (i = 0; noise && i < c->nr_checks; i++) {
		const struct fl_agreement *a = &c->check[i];
		const struct fl_agree_row *w = fl_agreement_find(a, name);
		const struct fl_counter *h = fl_counters_find(&r[a->host].counters, name);
		bool sys = h && h->scope == FL_SCOPE_SYSTEM;
		char cell[32];

		/* a system-wide row is reported, not held: lower case */
		snprintf(cell, sizeof(cell), "%s%s",
			 w ? (w->differs ? (w->held ? "DIFFERS" : "differs") : "ok") : "",
			 sys ? (w ? " sys" : "sys") : "");
		fprintf(f, " %*s", c->check_w, cell);
	}
	fputc('\n', f);
}

static bool metric_seen_before(const struct fl_result *r, int j, const char *name)
{
	int i;

	for (i = 0; i < j; i++)
		if (fl_result_metric(&r[i], name))
			return true;
	return false;
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
				cmp_row(f, c, r, name, v, NULL, true);
			}
			if (!contended)
				continue;
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->contended
					      : (r[jj].locks_note[0] ? NAN : 0);
			snprintf(name, sizeof(name), "%s @ %s contended", l->name, l->site);
			cmp_row(f, c, r, name, v, NULL, true);
			for (jj = 0; jj < nr; jj++)
				v[jj] = x[jj] ? (double)x[jj]->wait_total_ns / 1e6
					      : (r[jj].locks_note[0] ? NAN : 0);
			snprintf(name, sizeof(name), "%s @ %s wait ms", l->name, l->site);
			cmp_row(f, c, r, name, v, NULL, false);
		}
	}
	if (hidden)
		fprintf(f,
			"  (%d host lock rows below 1%% of the top contended count not shown; "
			"see run or --json)\n",
			hidden);
}

/*
 * What the check columns say, and which host values count the workload
 * only: what makes the gate's verdict readable.
 */
static void check_legend(FILE *f, const struct cmp *c, const struct fl_result *r)
{
	const struct fl_tolerance *t;
	int i, k, differs = 0, sys = 0;
	bool machinery = false;

	if (!c->nr_checks)
		return;
	t = &c->check[0].tol;
	for (i = 0; i < c->nr_checks; i++) {
		differs += c->check[i].nr_differs;
		sys += c->check[i].nr_differs_system;
	}
	for (i = 0; i < c->nr_checks; i++)
		machinery |= r[c->check[i].host].machinery_steps > 0;
	fprintf(f,
		"\n  check[...]: the host's value against the model column it is paired with, "
		"for the counters a\n  workload's rule fixes; DIFFERS when they are further "
		"apart than %g x the host's idle noise\n  + %g%% of the larger (at least %lld; "
		"faults and allocations the host has fewer of\n  get no such floor: its own "
		"start-up only adds to them%s). sys: the host's value is\n  system-wide (every "
		"process on the machine adds to it): reported (\"differs\"), never\n  held by "
		"--check; the others count the run's own processes only. %d held row%s\n  "
		"differ%s; %d system-wide row%s differ%s.\n",
		t->noise, t->pct, (long long)t->min,
		machinery
			? ";\n  but where its process machinery was measured apart and taken out, "
			  "the floor holds\n  both ways"
			: "",
		differs, differs == 1 ? "" : "s", differs == 1 ? "s" : "", sys, sys == 1 ? "" : "s",
		sys == 1 ? "s" : "");
	for (i = 0; i < c->nr_checks; i++) {
		const struct fl_agreement *a = &c->check[i];

		if (r[a->host].scope_note[0])
			fprintf(f, "  [%s] system-wide because %s\n", r[a->host].label,
				r[a->host].scope_note);
		for (k = 0; k < a->nr; k++)
			if (a->v[k].model_unseen < 0)
				fprintf(f,
					"  [%s] %s: held against the model's %lld plus its %lld "
					"swap-ins of that size (swpin): the host counts the run's "
					"movable allocations of the order, and cannot tell a "
					"swap-in's folio from a fault's\n",
					r[a->host].label, a->v[k].name,
					(long long)(a->v[k].model + a->v[k].model_unseen),
					(long long)-a->v[k].model_unseen);
			else if (a->v[k].model_unseen && strstr(a->v[k].name, "pgalloc_normal"))
				fprintf(f,
					"  [%s] %s: held against the model's %lld less its %lld "
					"upper-level page tables (PGD, PUD, PMD: "
					"fl_pgalloc_upper), "
					"which a host process has before the workload maps "
					"anything\n",
					r[a->host].label, a->v[k].name,
					(long long)(a->v[k].model + a->v[k].model_unseen),
					(long long)a->v[k].model_unseen);
			else if (a->v[k].model_unseen)
				fprintf(f,
					"  [%s] %s: held against the model's %lld less the %lld "
					"pages it frees after an RCU grace period or with "
					"preemption off (fl_pgfree_rcu, fl_pgfree_atomic), which "
					"the host counts for whichever task is on the CPU\n",
					r[a->host].label, a->v[k].name,
					(long long)(a->v[k].model + a->v[k].model_unseen),
					(long long)a->v[k].model_unseen);
	}
}

#define TIME_ROWS 64

/* @r's share of all CPU time in time row @name, in %; NAN off sim */
static double time_share(const struct fl_result *r, const char *name)
{
	struct fl_time_row rows[TIME_ROWS];
	double cpu;
	int i, n = fl_time_breakdown(r, rows, TIME_ROWS, &cpu);

	if (!n || cpu <= 0)
		return NAN;
	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return 100 * rows[i].ns / cpu;
	return 0;
}

/*
 * Where the virtual time went, a row per time row (fl_time_breakdown())
 * that took 1% or more in some column, largest first in the first column
 * that has them.
 */
static void cmp_time_rows(FILE *f, struct cmp *c, const struct fl_result *r, int nr, double *v)
{
	struct fl_time_row rows[TIME_ROWS], seen[TIME_ROWS];
	char name[FL_NAME_MAX + 16];
	double cpu;
	int i, j, k, n, nseen = 0;

	for (j = 0; j < nr; j++) {
		n = fl_time_breakdown(&r[j], rows, TIME_ROWS, &cpu);
		for (i = 0; i < n && nseen < TIME_ROWS; i++) {
			for (k = 0; k < nseen && strcmp(seen[k].name, rows[i].name); k++)
				;
			if (k == nseen && rows[i].ns >= cpu / 100)
				seen[nseen++] = rows[i];
		}
	}
	for (i = 0; i < nseen; i++) {
		for (j = 0; j < nr; j++)
			v[j] = time_share(&r[j], seen[i].name);
		snprintf(name, sizeof(name), "time %%: %.80s", seen[i].name);
		cmp_row(f, c, r, name, v, NULL, false);
	}
}

/* sim: the share of all CPU time spent waiting for lock class @name, in % */
static double lock_wait_pct(const struct fl_result *r, const char *name)
{
	double wait = 0, cpu = report_vcpu_ns(r);
	int i;

	for (i = 0; i < r->locks.nr; i++)
		if (!strcmp(r->locks.v[i].name, name))
			wait += (double)r->locks.v[i].wait_total_ns;
	return cpu > 0 ? 100 * wait / cpu : 0;
}

/* The label without its CPU count: the configurations one scaling row compares. */
static const char *other_settings(const char *label)
{
	const char *p = strstr(label, "cpus");

	if (!p)
		return label;
	return p[4] == '/' ? p + 5 : p + 4;
}

void report_scaling(FILE *f, const struct fl_result *r, int nr)
{
	const char *unit = r[0].nr_metrics ? r[0].metrics[0].name : "work";
	int i, j;

	fprintf(f,
		"\nscaling (virtual time; speedup and efficiency against the fewest CPUs with the "
		"same other settings):\n");
	fprintf(f, "  %-26s %5s %12s %14s %8s %10s %6s %10s %10s\n", "configuration", "CPUs",
		"virtual s", unit, "speedup", "efficiency", "busy%", "lru wait%", "zone wait%");
	for (j = 0; j < nr; j++) {
		double tput = r[j].wall_s > 0 && r[j].nr_metrics
				      ? r[j].metrics[0].value / r[j].wall_s
				      : 0;
		double base = 0;
		int cpus0 = 0;

		for (i = 0; i < nr; i++) {
			if (strcmp(other_settings(r[i].label), other_settings(r[j].label)) ||
			    (cpus0 && r[i].cpus >= cpus0))
				continue;
			cpus0 = r[i].cpus;
			base = r[i].wall_s > 0 && r[i].nr_metrics
				       ? r[i].metrics[0].value / r[i].wall_s
				       : 0;
		}
		fprintf(f, "  %-26s %5d %12.6f %12.4g/s %7.2fx %9.0f%% %5.1f%% %9.2f%% %9.2f%%\n",
			r[j].label, r[j].cpus, r[j].wall_s, tput, base > 0 ? tput / base : 0,
			base > 0 && r[j].cpus ? 100 * tput / base * cpus0 / r[j].cpus : 0,
			report_vcpu_busy_pct(&r[j]), lock_wait_pct(&r[j], "lruvec->lru_lock"),
			lock_wait_pct(&r[j], "zone->lock"));
	}
}

/*
 * compare --cpus LIST --plot: the scaling table's figures drawn, a line
 * per configuration apart from its CPU count: throughput against CPUs,
 * and the lruvec lock's wait share of all CPU time.
 */
int report_scaling_plot(FILE *out, const struct fl_result *r, int nr, char *err, size_t len)
{
	struct fl_plot_series *s = calloc(2 * (size_t)nr, sizeof(*s));
	const char *unit = r[0].nr_metrics ? r[0].metrics[0].name : "work";
	char ylabel[64], title[200];
	int ns = 0, i, j, ret;

	if (!s) {
		snprintf(err, len, "--plot: out of memory");
		return -ENOMEM;
	}
	for (j = 0; j < nr; j++) {
		for (i = 0; i < ns; i++)
			if (!strcmp(s[i].name, other_settings(r[j].label)))
				break;
		if (i == ns) {
			snprintf(s[ns].name, sizeof(s[ns].name), "%s", other_settings(r[j].label));
			snprintf(s[nr + ns].name, sizeof(s[nr + ns].name), "%s",
				 other_settings(r[j].label));
			ns++;
		}
		if (s[i].n < FL_PLOT_POINTS && r[j].wall_s > 0) {
			s[i].x[s[i].n] = r[j].cpus;
			s[i].y[s[i].n++] = r[j].nr_metrics
						   ? r[j].metrics[0].value / r[j].wall_s / 1e6
						   : 0;
			s[nr + i].x[s[nr + i].n] = r[j].cpus;
			s[nr + i].y[s[nr + i].n++] = lock_wait_pct(&r[j], "lruvec->lru_lock");
		}
	}
	snprintf(ylabel, sizeof(ylabel), "M %s per virtual second", unit);
	snprintf(title, sizeof(title), "foliolab compare %s on %s: scaling", r[0].workload,
		 r[0].platform[0] ? r[0].platform : "the model");
	{
		struct fl_plot_panel p[2] = {
			{ "throughput", "CPUs", ylabel, s, ns, true },
			{ "lruvec->lru_lock wait, % of all CPU time", "CPUs", "%", s + nr, ns,
			  true },
		};

		ret = fl_plot_svg(out, p, 2, title, err, len);
	}
	free(s);
	return ret;
}

int report_compare(FILE *f, const struct fl_result *r, int nr, const struct fl_tolerance *tol)
{
	double v[CMP_MAX] = { 0 }, nz[CMP_MAX] = { 0 };
	char name[2 * FL_NAME_MAX + 16];
	static struct cmp c;
	int i, j, jm, differs = 0;

	if (nr > CMP_MAX)
		nr = CMP_MAX;
	plan_columns(&c, r, nr, tol);
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
	for (j = 0; j < c.nr_checks; j++) {
		snprintf(name, sizeof(name), "check[%s]", r[c.check[j].host].label);
		fprintf(f, " %*s", c.check_w, name);
	}
	fputc('\n', f);
	for (j = 0, i = 0; j < nr; j++)
		i |= r[j].nr_vcpus > 0;
	if (i) {
		/*
		 * virtual time only where the CPUs were virtual; the host's own
		 * time for every column (a host or native run's is its wall time)
		 */
		for (j = 0; j < nr; j++)
			v[j] = r[j].nr_vcpus ? r[j].wall_s : NAN;
		cmp_row(f, &c, r, "time: virtual s", v, NULL, false);
		for (j = 0; j < nr; j++)
			v[j] = r[j].nr_vcpus ? r[j].host_wall_s : r[j].wall_s;
		cmp_row(f, &c, r, "time: host wall s", v, NULL, false);
		for (j = 0; j < nr; j++)
			v[j] = r[j].nr_vcpus ? report_vcpu_busy_pct(&r[j]) : NAN;
		cmp_row(f, &c, r, "virtual CPUs: busy %", v, NULL, false);
		cmp_time_rows(f, &c, r, nr, v);
	} else {
		for (j = 0; j < nr; j++)
			v[j] = r[j].wall_s;
		cmp_row(f, &c, r, "time: wall s", v, NULL, false);
		for (j = 0; j < nr; j++)
			v[j] = r[j].user_s + r[j].sys_s;
		cmp_row(f, &c, r, "time: cpu s", v, NULL, false);
	}
	/* the metrics, the union over the configurations: '-' where one has none */
	for (jm = 0; jm < nr; jm++) {
		for (i = 0; i < r[jm].nr_metrics; i++) {
			const char *mn = r[jm].metrics[i].name;
			bool whole = true; /* integers unless some value has a fraction */

			if (metric_seen_before(r, jm, mn))
				continue;
			for (j = 0; j < nr; j++) {
				const struct fl_metric *m = fl_result_metric(&r[j], mn);

				v[j] = m ? m->value : NAN;
				whole &= !m || report_whole(v[j]);
			}
			snprintf(name, sizeof(name), "result: %s", mn);
			cmp_row(f, &c, r, name, v, NULL, whole);
		}
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

			/*
			 * a host's system-wide value of a workload counter: in the
			 * JSON; the time a cost took: in the time rows
			 */
			if (counter_seen_before(r, j, cn) || !strncmp(cn, "system:", 7) ||
			    !strncmp(cn, "fl_time_", 8))
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
			cmp_row(f, &c, r, cn, v, nz, true);
		}
	}
	cmp_lock_rows(f, &c, r, nr);
	check_legend(f, &c, r);
	for (j = 0; j < nr; j++)
		if (r[j].locks_note[0] && strcmp(r[j].target, "model"))
			fprintf(f, "\n[%s] %s", r[j].label, r[j].locks_note);
	if (c.nr_noise)
		report_noise_note(f, r, nr);
	report_machinery_note(f, r, nr);
	for (j = 0; j < nr; j++)
		if (r[j].note[0])
			fprintf(f, "\nnote [%s]: %s\n", r[j].label, r[j].note);
	for (j = 0; j < nr; j++)
		if (r[j].status)
			fprintf(f, "\nFAILED [%s]: %s\n", r[j].label, r[j].error);
	for (j = 0; j < c.nr_checks; j++) {
		differs += c.check[j].nr_differs;
		fl_agreement_free(&c.check[j]);
	}
	return differs;
}
