// SPDX-License-Identifier: GPL-2.0-only
/*
 * validate.c - `foliolab validate DIR`: every host record in a folder (a
 * calibration bundle, or `--json` records) against the same workload on
 * sim, at the same CPU count, with a cost file.
 *
 * Records group into configurations: the same workload, mTHP size and
 * parameters but the thread count. Within one, the records of a thread
 * count are repeats (their median is the measurement) and the 1-thread
 * record is the base of the scaling (time at T threads / time at 1: the
 * work grows with T, so a flat line is perfect scaling). For each lock
 * table (perf lock's, which counts contended acquisitions only) the
 * contended share takes the sim's acquisitions at the same call site as
 * the denominator: the workload's rule fixes how often the site takes the
 * lock, on the host as in the model.
 *
 * Judged (--check makes one outside its bound exit 1): each scaling
 * figure within VAL_SCALING of the kernel's, each contended share within
 * VAL_SHARE, each average wait within a factor VAL_WAIT. Absolute times
 * are shown, not judged: how well the cost file fits that machine's
 * single-CPU speed is calibrate's check.
 *
 * Conventions in this file: "meas" is the host record, "pred" the sim;
 * sim runs with the LRU rule of the kernels the records come from
 * (6.18: order0).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <foliolab/foliolab.h>
#include "../lib/json_read.h"
#include "../lib/util.h"

#define VAL_SCALING 0.20 /* the bounds */
#define VAL_SHARE 0.15
#define VAL_WAIT 2.0
#define VAL_MAX_RECORDS 1024
#define VAL_MAX_LOCKS 16

struct vlock {
	char name[FL_NAME_MAX], site[FL_NAME_MAX];
	double contended, avg_wait_ns;
};

struct vrec {
	char file[256];
	char workload[32];
	char mthp[16];	   /* "16kB" or "" (4K pages only) */
	char params[512];  /* "name=value ..." sorted, without threads */
	int threads, cpus; /* cpus: the machine's */
	double wall_s;
	struct vlock locks[VAL_MAX_LOCKS];
	int nr_locks;
};

struct vbundle {
	struct vrec *r;
	int nr;
	char machine[256];
};

static const char *or_str(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the record's mTHP size: the one hugepages-SIZE/enabled set to always, or "" */
static void record_mthp(const struct fl_json *knobs, char *out, size_t len)
{
	int i;

	out[0] = '\0';
	for (i = 0; knobs && knobs->type == FL_JSON_OBJ && i < knobs->n; i++) {
		const char *k = knobs->keys[i], *v = fl_json_str(knobs->v[i]);
		const char *p = strstr(k, "hugepages-"), *e;

		if (!p || !v || strcmp(v, "always") || !(e = strstr(p, "/enabled")) || e[8])
			continue;
		if (strncmp(k, "transparent_hugepage/", 21))
			continue;
		snprintf(out, len, "%.*s", (int)(e - p - 10), p + 10);
		return;
	}
}

static int add_record(struct vbundle *b, const char *file, const struct fl_json *res)
{
	const struct fl_json *params = fl_json_get(res, "params"), *locks;
	const char *names[FL_MAX_PARAMS];
	struct vrec *r;
	size_t n = 0;
	int i, nn = 0;

	if (b->nr == VAL_MAX_RECORDS)
		return -E2BIG;
	r = &b->r[b->nr];
	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", file);
	snprintf(r->workload, sizeof(r->workload), "%s",
		 or_str(fl_json_str(fl_json_get(res, "workload")), ""));
	record_mthp(fl_json_get(res, "knobs"), r->mthp, sizeof(r->mthp));
	r->wall_s = fl_json_num(fl_json_get(fl_json_get(res, "time"), "wall_s"), -1);
	r->cpus = (int)fl_json_num(fl_json_get(fl_json_get(res, "machine"), "cpus"), 0);
	r->threads = 1;
	for (i = 0; params && params->type == FL_JSON_OBJ && i < params->n; i++) {
		if (!strcmp(params->keys[i], "threads"))
			r->threads = (int)fl_json_num(params->v[i], 1);
		else if (nn < FL_MAX_PARAMS && fl_json_str(params->v[i]))
			names[nn++] = params->keys[i];
	}
	qsort(names, (size_t)nn, sizeof(names[0]), cmp_str);
	for (i = 0; i < nn && n < sizeof(r->params); i++)
		n += (size_t)snprintf(r->params + n, sizeof(r->params) - n, "%s%s=%s", i ? " " : "",
				      names[i], fl_json_str(fl_json_get(params, names[i])));
	locks = fl_json_get(res, "locks");
	for (i = 0;
	     locks && locks->type == FL_JSON_ARR && i < locks->n && r->nr_locks < VAL_MAX_LOCKS;
	     i++) {
		const struct fl_json *l = locks->v[i];
		struct vlock *vl = &r->locks[r->nr_locks];

		if (!fl_json_str(fl_json_get(l, "name")) || !fl_json_str(fl_json_get(l, "site")))
			continue;
		snprintf(vl->name, sizeof(vl->name), "%s", fl_json_str(fl_json_get(l, "name")));
		snprintf(vl->site, sizeof(vl->site), "%s", fl_json_str(fl_json_get(l, "site")));
		vl->contended = fl_json_num(fl_json_get(l, "contended"), 0);
		vl->avg_wait_ns = fl_json_num(fl_json_get(l, "avg_wait_ns"), 0);
		r->nr_locks++;
	}
	if (!r->workload[0] || r->wall_s <= 0 || r->threads < 1)
		return 0; /* not a run with a time: skipped */
	if (!b->machine[0]) {
		const struct fl_json *m = fl_json_get(res, "machine");

		snprintf(b->machine, sizeof(b->machine), "%d CPUs, %s, %s", r->cpus,
			 or_str(fl_json_str(fl_json_get(m, "cpu_model")), "unknown CPU"),
			 or_str(fl_json_str(fl_json_get(m, "kernel_release")), "unknown kernel"));
	}
	b->nr++;
	return 0;
}

/* Every host record of @path's *.json files (and its records/ folder's). */
static int load_dir(struct vbundle *b, const char *path, bool top, char *err, size_t len)
{
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort), i, ret = 0;

	if (n < 0) {
		if (!top)
			return 0;
		snprintf(err, len, "validate %s: %s; accepted a folder of JSON records", path,
			 strerror(errno));
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);
		char file[4096], sub[200];
		struct fl_json *j;
		const struct fl_json *results;
		char *text;
		int k;

		if (ret || l < 6 || strcmp(nm + l - 5, ".json"))
			goto next;
		snprintf(file, sizeof(file), "%s/%s", path, nm);
		text = fl_read_text(file, 64ul << 20);
		if (!text) {
			ret = -EINVAL;
			snprintf(err, len, "validate: cannot read %s", file);
			goto next;
		}
		j = fl_json_parse(text, sub, sizeof(sub));
		free(text);
		if (!j) {
			ret = -EINVAL;
			snprintf(err, len, "validate: %s is not JSON (%s)", file, sub);
			goto next;
		}
		results = fl_json_get(j, "results");
		if (!results || results->type != FL_JSON_ARR ||
		    !fl_json_get(j, "foliolab_result_version")) {
			ret = -EINVAL;
			snprintf(err, len, "validate: %s is not a foliolab record (no results)",
				 file);
		}
		for (k = 0; !ret && k < results->n; k++) {
			const struct fl_json *r = results->v[k];
			const char *t = fl_json_str(fl_json_get(r, "target"));

			if (!t || strcmp(t, "host") || fl_json_num(fl_json_get(r, "status"), 1))
				continue;
			ret = add_record(b, nm, r);
			if (ret)
				snprintf(err, len, "validate: more than %d records",
					 VAL_MAX_RECORDS);
		}
		fl_json_free(j);
next:
		free(names[i]);
	}
	free(names);
	if (!ret && top) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/records", path);
		ret = load_dir(b, sub, false, err, len);
	}
	return ret;
}

/* ---- the sim's runs ---- */

struct vpred {
	const struct vrec *key; /* the configuration and thread count it is for */
	struct fl_result res;
	bool have;
};

static int sim_run(const struct vrec *r, const char *costs, struct fl_result *res, char *err,
		   size_t len)
{
	struct fl_config cfg;
	char buf[512], *save = NULL, *tok, knob[96], num[16];
	int ret;

	fl_config_init(&cfg, r->workload);
	snprintf(buf, sizeof(buf), "%s", r->params);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq) {
			*eq = '\0';
			fl_config_set_param(&cfg, tok, eq + 1);
		}
	}
	snprintf(num, sizeof(num), "%d", r->threads);
	fl_config_set_param(&cfg, "threads", num);
	if (r->mthp[0]) {
		snprintf(knob, sizeof(knob), "transparent_hugepage/hugepages-%s/enabled", r->mthp);
		fl_config_set_knob(&cfg, knob, "always");
	}
	fl_config_set_knob(&cfg, "foliolab/lru_cache", "order0");
	snprintf(cfg.target, sizeof(cfg.target), "model");
	cfg.sim = true;
	cfg.costs = costs;
	cfg.cpus = r->cpus > r->threads ? r->cpus : r->threads;
	ret = fl_run(&cfg, res, err, len);
	if (!ret && res->status) {
		snprintf(err, len, "validate: %s on sim (%s): %s", r->workload, r->file,
			 res->error);
		fl_result_free(res);
		return -EIO;
	}
	return ret;
}

static bool same_config(const struct vrec *a, const struct vrec *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->mthp, b->mthp) &&
	       !strcmp(a->params, b->params);
}

/* the median wall time of @b's records like @r at @threads threads, or -1 */
static double measured(const struct vbundle *b, const struct vrec *r, int threads, int *reps)
{
	double v[VAL_MAX_RECORDS];
	int i, n = 0;

	for (i = 0; i < b->nr; i++)
		if (same_config(&b->r[i], r) && b->r[i].threads == threads)
			v[n++] = b->r[i].wall_s;
	*reps = n;
	if (!n)
		return -1;
	return fl_median(v, n);
}

static const char *pages(const struct vrec *r)
{
	static char buf[16];

	if (!r->mthp[0])
		return "4K";
	snprintf(buf, sizeof(buf), "%.*sK", (int)strcspn(r->mthp, "k"), r->mthp);
	return buf;
}

#define VAL_SERIES 32

/* the next series of @ser (at most VAL_SERIES), named, or NULL */
static struct fl_plot_series *new_series(struct fl_plot_series *ser, int *n, bool points,
					 const char *a, const char *b, const char *what)
{
	struct fl_plot_series *s;

	if (*n == VAL_SERIES)
		return NULL;
	s = &ser[(*n)++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s%s%s%s%s", a, b[0] ? " " : "", b, what[0] ? ", " : "",
		 what);
	s->points = points;
	return s;
}

static void add_point(struct fl_plot_series *s, double x, double y)
{
	if (s && s->n < FL_PLOT_POINTS && y == y) {
		s->x[s->n] = x;
		s->y[s->n++] = y;
	}
}

/* what the judging collects: the figures within and outside bounds, the plots' series */
struct vjudge {
	FILE *out;
	struct fl_plot_series *ser; /* scaling from 0, lock shares from VAL_SERIES */
	int nscal, nlock;
	int rows, bad;
};

/* One sim run per configuration and thread count: the first record of each. */
static int predict(const struct vbundle *b, struct vpred *pred, const char *costs, char *err,
		   size_t len)
{
	int i, k, ret;

	for (i = 0; i < b->nr; i++) {
		for (k = 0; k < i; k++)
			if (same_config(&b->r[k], &b->r[i]) && b->r[k].threads == b->r[i].threads &&
			    b->r[k].cpus == b->r[i].cpus)
				break;
		if (k < i)
			continue;
		ret = sim_run(&b->r[i], costs, &pred[i].res, err, len);
		if (ret)
			return ret;
		pred[i].have = true;
		pred[i].key = &b->r[i];
	}
	return 0;
}

/* Times and scaling, a table per configuration: the scaling judged. */
static void judge_scaling(const struct vbundle *b, const struct vpred *pred, struct vjudge *j)
{
	int i;

	fprintf(j->out,
		"\ntimes and scaling (scaling: time at T threads / time at 1; bound %.0f%%):\n",
		100 * VAL_SCALING);
	for (i = 0; i < b->nr; i++) {
		struct fl_plot_series *sm, *sp;
		char name[64];
		int threads, k;

		for (k = 0; k < i; k++)
			if (same_config(&b->r[k], &b->r[i]))
				break;
		if (k < i)
			continue; /* the configuration was printed with its first record */
		snprintf(name, sizeof(name), "%s %.40s", pages(&b->r[i]),
			 strstr(b->r[i].params, "loops=") ? strstr(b->r[i].params, "loops=")
							  : b->r[i].params);
		sp = new_series(j->ser, &j->nscal, false, name, "", "predicted");
		sm = new_series(j->ser, &j->nscal, true, name, "", "measured");
		fprintf(j->out, "  %s %s %s\n", b->r[i].workload, pages(&b->r[i]), b->r[i].params);
		fprintf(j->out, "    %7s %5s %10s %10s %6s %10s %10s %6s\n", "threads", "runs",
			"measured", "predicted", "ratio", "scal meas", "scal pred", "diff");
		for (threads = 0;;) {
			double m, m1, p = -1, p1 = -1, d;
			int reps, reps1, next = 0;

			/* the next thread count of this configuration, in ascending order */
			for (k = 0; k < b->nr; k++)
				if (pred[k].have && same_config(&b->r[k], &b->r[i]) &&
				    b->r[k].threads > threads && (!next || b->r[k].threads < next))
					next = b->r[k].threads;
			if (!next)
				break;
			threads = next;
			for (k = 0; k < b->nr; k++) {
				if (!pred[k].have || !same_config(&b->r[k], &b->r[i]))
					continue;
				if (b->r[k].threads == threads)
					p = pred[k].res.wall_s;
				if (b->r[k].threads == 1)
					p1 = pred[k].res.wall_s;
			}
			m = measured(b, &b->r[i], threads, &reps);
			m1 = measured(b, &b->r[i], 1, &reps1);
			fprintf(j->out, "    %7d %5d %9.3fs %9.3fs %5.2fx", threads, reps, m, p,
				p / m);
			if (m1 > 0 && p1 > 0) {
				add_point(sm, threads, m / m1);
				add_point(sp, threads, p / p1);
			}
			if (threads == 1 || m1 <= 0 || p1 <= 0) {
				fprintf(j->out, " %10s %10s\n", threads == 1 ? "base" : "no base",
					"");
				continue;
			}
			d = (p / p1) / (m / m1) - 1;
			if (fabs(d) < 0.005)
				d = 0; /* the record's rounding, not a difference: no "-0%" */
			j->rows++;
			j->bad += fabs(d) > VAL_SCALING;
			fprintf(j->out, " %9.2fx %9.2fx %+5.0f%%%s\n", m / m1, p / p1, 100 * d,
				fabs(d) > VAL_SCALING ? "  OUTSIDE" : "");
		}
	}
}

/* The host's perf lock rows against the sim's at the same site: shares and waits judged. */
static void judge_locks(const struct vbundle *b, const struct vpred *pred, struct vjudge *j)
{
	int i;

	fprintf(j->out,
		"\nlocks (the host's perf lock table; contended share = contended / the sim's "
		"acquisitions\n  at the site; bounds %.2f and a factor %.0f on the average "
		"wait):\n",
		VAL_SHARE, VAL_WAIT);
	fprintf(j->out, "  %-15s %-5s %7s %-45s %9s %9s %10s %10s\n", "workload", "pages",
		"threads", "lock @ site", "shr meas", "shr pred", "wait meas", "wait pred");
	for (i = 0; i < b->nr; i++) {
		const struct vrec *r = &b->r[i];
		const struct fl_result *sr = NULL;
		int l, k;

		for (k = 0; k < b->nr; k++)
			if (pred[k].have && same_config(&b->r[k], r) &&
			    b->r[k].threads == r->threads)
				sr = &pred[k].res;
		for (l = 0; sr && l < r->nr_locks; l++) {
			const struct vlock *hl = &r->locks[l];
			const struct fl_lock_stat_row *s = fl_locks_find(&sr->locks, hl->name,
									 hl->site);
			double shm, shp, wp, ratio;
			char what[2 * FL_NAME_MAX + 4];
			bool out_share, out_wait;

			snprintf(what, sizeof(what), "%s @ %s", hl->name, hl->site);
			if (!s || !s->acquired) {
				if (hl->contended >= 100)
					fprintf(j->out,
						"  %-15s %-5s %7d %-45.45s %9s (the model never "
						"takes it here)\n",
						r->workload, pages(r), r->threads, what, "-");
				continue;
			}
			shm = hl->contended / (double)s->acquired;
			shp = (double)s->contended / (double)s->acquired;
			wp = s->contended ? (double)s->wait_total_ns / (double)s->contended : 0;
			ratio = wp > 0 && hl->avg_wait_ns > 0 ? wp / hl->avg_wait_ns : 0;
			if (hl->contended < 100 && s->contended < 100)
				continue; /* too few to judge either way */
			{
				char nm[64];

				snprintf(nm, sizeof(nm), "%d threads", r->threads);
				add_point(new_series(j->ser + VAL_SERIES, &j->nlock, true, pages(r),
						     hl->site, nm),
					  100 * fmin(shm, 1.0), 100 * shp);
			}
			out_share = fabs(shp - fmin(shm, 1.0)) > VAL_SHARE;
			out_wait = !(ratio >= 1 / VAL_WAIT && ratio <= VAL_WAIT);
			j->rows += 2;
			j->bad += out_share + out_wait;
			fprintf(j->out,
				"  %-15s %-5s %7d %-45.45s %8.0f%% %8.0f%% %8.2fus %8.2fus%s\n",
				r->workload, pages(r), r->threads, what, 100 * shm, 100 * shp,
				hl->avg_wait_ns / 1000, wp / 1000,
				out_share && out_wait ? "  OUTSIDE (share, wait)"
				: out_share	      ? "  OUTSIDE (share)"
				: out_wait	      ? "  OUTSIDE (wait)"
						      : "");
		}
	}
}

/* The scaling and the lock shares drawn, the diagonal and the share bounds with them. */
static int draw(const struct vbundle *b, struct vjudge *j, const char *costs, FILE *plot, char *err,
		size_t len)
{
	struct fl_plot_panel panels[2] = {
		{ "scaling: time at T threads / time at 1", "threads", "x the 1-thread time",
		  j->ser, j->nscal, true },
		{ "lock contended share, % of acquisitions", "measured", "predicted",
		  j->ser + VAL_SERIES, j->nlock, false },
	};
	char title[700];
	struct fl_plot_series *d;

	/* the diagonal and the bounds around it */
	d = new_series(j->ser + VAL_SERIES, &j->nlock, false, "equal", "", "");
	add_point(d, 0, 0);
	add_point(d, 100, 100);
	d = new_series(j->ser + VAL_SERIES, &j->nlock, false, "bound", "", "+0.15");
	add_point(d, 0, 100 * VAL_SHARE);
	add_point(d, 100 - 100 * VAL_SHARE, 100);
	d = new_series(j->ser + VAL_SERIES, &j->nlock, false, "bound", "", "-0.15");
	add_point(d, 100 * VAL_SHARE, 0);
	add_point(d, 100, 100 - 100 * VAL_SHARE);
	panels[1].ns = j->nlock;

	snprintf(title, sizeof(title), "foliolab validate: %s against sim (%s)", b->machine,
		 costs ? costs : "built-in costs");
	return fl_plot_svg(plot, panels, j->nlock > 3 ? 2 : 1, title, err, len);
}

int fl_validate_bundle(const char *dir, const char *costs, FILE *out, int *outside, FILE *plot,
		       char *err, size_t len)
{
	struct vbundle b = { 0 };
	struct vjudge j = { .out = out };
	struct vpred *pred;
	int i, ret;

	*outside = 0;
	b.r = calloc(VAL_MAX_RECORDS, sizeof(*b.r));
	if (!b.r) {
		snprintf(err, len, "validate: out of memory");
		return -ENOMEM;
	}
	ret = load_dir(&b, dir, true, err, len);
	if (!ret && !b.nr) {
		snprintf(err, len,
			 "validate %s: no host records (*.json with target host and a time) in it "
			 "or in its records/",
			 dir);
		ret = -EINVAL;
	}
	if (ret) {
		free(b.r);
		return ret;
	}
	pred = calloc((size_t)b.nr, sizeof(*pred));
	j.ser = calloc(2 * VAL_SERIES, sizeof(*j.ser));
	if (!pred || !j.ser) {
		free(pred);
		free(j.ser);
		free(b.r);
		snprintf(err, len, "validate: out of memory");
		return -ENOMEM;
	}
	fprintf(out, "validate: %d host records from %s (%s)\n", b.nr, dir, b.machine);
	fprintf(out, "  against sim with %s, the kernel's LRU rule (order0), as many CPUs\n",
		costs ? costs : "the built-in costs");
	ret = predict(&b, pred, costs, err, len);
	if (!ret) {
		judge_scaling(&b, pred, &j);
		judge_locks(&b, pred, &j);
		fprintf(out, "\n%d of %d judged figures within bounds\n", j.rows - j.bad, j.rows);
		*outside = j.bad;
		if (plot)
			ret = draw(&b, &j, costs, plot, err, len);
	}
	for (i = 0; i < b.nr; i++)
		if (pred[i].have)
			fl_result_free(&pred[i].res);
	free(pred);
	free(j.ser);
	free(b.r);
	return ret;
}
