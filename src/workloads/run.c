// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the runner: validate a configuration, open its target, apply the
 * knobs, snapshot counters, run the workload, settle the machine, and fill
 * the result record with the deltas, locks, times and checks.
 *
 * Validation happens before anything runs, so bad input never leaves a
 * half-made result: fl_validate() parses every parameter, checks the
 * memory fits, and tries the knobs on a throwaway model.
 *
 * Conventions in this file: @wl is the workload, @params its parsed
 * parameters (a buffer of wl->params_size bytes).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "workload.h"
#include "../platform/platform.h"

#define PARAMS_MAX 256
#define ALIGN_UP_U64(x, a) (((x) + (a)-1) / (a) * (a))

static const struct fl_workload *const workloads[] = {
#define FL_WORKLOAD(name) &fl__wl_##name,
#include "list.h"
#undef FL_WORKLOAD
};

unsigned long fl__mthp_always_kb(const struct fl_config *cfg)
{
	const char *top = "madvise";
	unsigned long best = 0, kb;
	int i, n;

	for (i = 0; i < cfg->knobs.nr; i++)
		if (!strcmp(cfg->knobs.v[i].name, "transparent_hugepage/enabled"))
			top = cfg->knobs.v[i].value;
	for (i = 0; i < cfg->knobs.nr; i++) {
		const struct fl_knob *k = &cfg->knobs.v[i];

		n = 0;
		if (sscanf(k->name, "transparent_hugepage/hugepages-%lukB/enabled%n", &kb, &n) !=
			    1 ||
		    k->name[n])
			continue;
		if ((!strcmp(k->value, "always") ||
		     (!strcmp(k->value, "inherit") && !strcmp(top, "always"))) &&
		    kb > best)
			best = kb;
	}
	return best;
}

FL_API int fl_workload_count(void)
{
	return (int)(sizeof(workloads) / sizeof(workloads[0]));
}

FL_API const struct fl_workload_info *fl_workload_get(int i)
{
	if (i < 0 || i >= fl_workload_count())
		return NULL;
	return &workloads[i]->info;
}

const struct fl_workload *fl__workload_find(const char *name)
{
	int i;

	for (i = 0; i < fl_workload_count(); i++)
		if (!strcmp(workloads[i]->info.name, name))
			return workloads[i];
	return NULL;
}

FL_API const struct fl_workload_info *fl_workload_find(const char *name)
{
	const struct fl_workload *wl = fl__workload_find(name);

	return wl ? &wl->info : NULL;
}

void fl__add_metric(struct fl_result *res, const char *name, const char *unit, double value)
{
	struct fl_metric *m;

	if (res->nr_metrics >= FL_MAX_METRICS)
		return;
	m = &res->metrics[res->nr_metrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
}

static const char *param_value(const struct fl_config *cfg, const struct fl_workload_info *wi,
			       const char *name)
{
	const char *v = fl_config_param(cfg, name);
	const struct fl_workload_param_info *pi;

	if (v)
		return v;
	for (pi = wi->params; pi->name; pi++)
		if (!strcmp(pi->name, name))
			return pi->def;
	return NULL;
}

int fl__param_int(const struct fl_config *cfg, const struct fl_workload_info *wi, const char *name,
		  long lo, long hi, long *out, char *err, size_t len)
{
	const char *s = param_value(cfg, wi, name);
	char *end;
	long v;

	errno = 0;
	v = s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < lo || v > hi) {
		snprintf(err, len, "--%s %s: accepted a whole number %ld..%ld", name,
			 s ? s : "(none)", lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int fl__param_only_with(const struct fl_config *cfg, const char *name, bool applies,
			const char *when, char *err, size_t len)
{
	if (applies || !fl_config_param(cfg, name))
		return 0;
	snprintf(err, len, "--%s means nothing here: it is for %s", name, when);
	return -EINVAL;
}

int fl__param_choice(const struct fl_config *cfg, const struct fl_workload_info *wi,
		     const char *name, const char *const *choices, int *out, char *err, size_t len)
{
	const char *s = param_value(cfg, wi, name);
	size_t off = 0;
	int i;

	for (i = 0; s && choices[i]; i++) {
		if (!strcmp(s, choices[i])) {
			*out = i;
			return 0;
		}
	}
	off = (size_t)snprintf(err, len, "--%s %s: accepted ", name, s ? s : "(none)");
	for (i = 0; choices[i] && off < len; i++)
		off += (size_t)snprintf(err + off, len - off, "%s%s", i ? ", " : "", choices[i]);
	return -EINVAL;
}

int fl__param_size(const struct fl_config *cfg, const struct fl_workload_info *wi, const char *name,
		   uint64_t lo, uint64_t hi, uint64_t align, uint64_t *out, char *err, size_t len)
{
	const char *s = param_value(cfg, wi, name);
	char a[32], b[32];
	uint64_t v;

	if (!s || fl_parse_size(s, &v) || v < lo || v > hi) {
		fl_format_size(lo, a, sizeof(a));
		fl_format_size(hi, b, sizeof(b));
		snprintf(err, len, "--%s %s: accepted a size %s..%s such as 16M or 2G", name,
			 s ? s : "(none)", a, b);
		return -EINVAL;
	}
	if (v % align) {
		fl_format_size(align, a, sizeof(a));
		snprintf(err, len, "--%s %s: must be a multiple of %s", name, s, a);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int fl__param_double(const struct fl_config *cfg, const struct fl_workload_info *wi,
		     const char *name, double lo, double hi, double *out, char *err, size_t len)
{
	const char *s = param_value(cfg, wi, name);
	char *end;
	double v;

	v = s ? strtod(s, &end) : 0;
	if (!s || !*s || *end || !(v >= lo && v <= hi)) {
		snprintf(err, len, "--%s %s: accepted a number %g..%g", name, s ? s : "(none)", lo,
			 hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int fl__params_parse(const struct fl_config *cfg, const struct fl_workload_info *wi, void *params,
		     char *err, size_t len)
{
	const struct fl_workload_param_info *pi;
	int ret = 0;

	for (pi = wi->params; pi->name && !ret; pi++) {
		void *field = (char *)params + pi->offset;

		switch (pi->kind) {
		case FL_PARAM_INT:
			ret = fl__param_int(cfg, wi, pi->name, (long)pi->lo, (long)pi->hi, field,
					    err, len);
			break;
		case FL_PARAM_DOUBLE:
			ret = fl__param_double(cfg, wi, pi->name, pi->lo, pi->hi, field, err, len);
			break;
		case FL_PARAM_SIZE:
			ret = fl__param_size(cfg, wi, pi->name, (uint64_t)pi->lo, (uint64_t)pi->hi,
					     pi->align, field, err, len);
			break;
		case FL_PARAM_CHOICE:
			ret = fl__param_choice(cfg, wi, pi->name, pi->choices, field, err, len);
			break;
		}
	}
	return ret;
}

FL_API void fl_workload_param_accepted(const struct fl_workload_param_info *pi, char *buf,
				       size_t len)
{
	char a[32], b[32], c[32];
	size_t n = 0;
	int i;

	switch (pi->kind) {
	case FL_PARAM_INT:
		snprintf(buf, len, "%ld..%ld", (long)pi->lo, (long)pi->hi);
		return;
	case FL_PARAM_DOUBLE:
		snprintf(buf, len, "%g..%g", pi->lo, pi->hi);
		return;
	case FL_PARAM_SIZE:
		fl_format_size((uint64_t)pi->lo, a, sizeof(a));
		fl_format_size((uint64_t)pi->hi, b, sizeof(b));
		fl_format_size(pi->align, c, sizeof(c));
		snprintf(buf, len, "%s..%s, a multiple of %s", pi->lo ? a : "0", b, c);
		return;
	case FL_PARAM_CHOICE:
		buf[0] = '\0';
		for (i = 0; pi->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
					      pi->choices[i]);
		return;
	}
}

struct plan {
	const struct fl_workload *wl;
	const struct fl_target_ops *ops;
	struct fl_target_config tcfg;
	int threads;
	uint64_t needed;
	unsigned char params[PARAMS_MAX];
};

static int check_param_names(const struct fl_config *cfg, const struct fl_workload_info *wi,
			     char *err, size_t len)
{
	const struct fl_workload_param_info *pi;
	char accepted[256] = "";
	int i;

	for (i = 0; i < cfg->nr_params; i++) {
		for (pi = wi->params; pi->name; pi++)
			if (!strcmp(pi->name, cfg->params[i].name))
				break;
		if (pi->name)
			continue;
		for (pi = wi->params; pi->name; pi++) {
			strncat(accepted, " --", sizeof(accepted) - strlen(accepted) - 1);
			strncat(accepted, pi->name, sizeof(accepted) - strlen(accepted) - 1);
		}
		snprintf(err, len, "unknown option --%s for %s; accepted:%s", cfg->params[i].name,
			 wi->name, accepted);
		return -EINVAL;
	}
	return 0;
}

static int make_plan(const struct fl_config *cfg, struct plan *pl, char *err, size_t len)
{
	char need[32], have[32];
	uint64_t unit;
	int i, nodes;

	memset(pl, 0, sizeof(*pl));
	pl->wl = fl__workload_find(cfg->workload);
	if (!pl->wl) {
		char names[128] = "";

		for (i = 0; i < fl_workload_count(); i++) {
			strncat(names, i ? ", " : "", sizeof(names) - strlen(names) - 1);
			strncat(names, workloads[i]->info.name, sizeof(names) - strlen(names) - 1);
		}
		snprintf(err, len, "unknown workload '%s'; accepted: %s", cfg->workload, names);
		return -EINVAL;
	}
	pl->ops = fl__target_find(cfg->target[0] ? cfg->target : "model");
	if (!pl->ops) {
		snprintf(err, len, "unknown target '%s'; accepted: model, host", cfg->target);
		return -EINVAL;
	}
	if (pl->ops == &fl__host_target_ops && (cfg->mem_bytes || cfg->nodes || cfg->cpus)) {
		snprintf(err, len,
			 "--mem, --nodes and --cpus size the model; the host target runs on the "
			 "host's own memory and CPUs");
		return -EINVAL;
	}
	if (pl->ops == &fl__host_target_ops && (cfg->locked_atomics || cfg->pin_cpus)) {
		snprintf(err, len,
			 "--locked-atomics and --pin-cpus set up the model's CPUs; the host target "
			 "runs on the host's");
		return -EINVAL;
	}
	if (pl->ops != &fl__host_target_ops && cfg->sim && (cfg->locked_atomics || cfg->pin_cpus)) {
		snprintf(err, len,
			 "--locked-atomics and --pin-cpus are for --platform native (host threads "
			 "as the model's CPUs); sim's CPUs are virtual");
		return -EINVAL;
	}
	if (pl->ops != &fl__host_target_ops && (cfg->no_knobs || cfg->locks)) {
		snprintf(err, len,
			 "--no-knobs and --locks are for --target=host; the model always counts "
			 "its locks and changes only its own knobs");
		return -EINVAL;
	}
	pl->tcfg.locks = cfg->locks;
	pl->tcfg.no_knobs = cfg->no_knobs;
	pl->tcfg.locked_atomics = cfg->locked_atomics;
	pl->tcfg.pin_cpus = cfg->pin_cpus;
	pl->tcfg.sim = cfg->sim && pl->ops != &fl__host_target_ops; /* the host has real CPUs */
	pl->tcfg.seed = cfg->seed;
	pl->tcfg.costs = cfg->costs;
	pl->tcfg.files = pl->wl->files;
	if (pl->ops == &fl__host_target_ops && pl->wl->host_root && geteuid() != 0) {
		snprintf(err, len, "%s on the host %s: it needs root (or use --target=model)",
			 pl->wl->info.name, pl->wl->host_root);
		return -EINVAL;
	}
	if (check_param_names(cfg, &pl->wl->info, err, len))
		return -EINVAL;
	if (pl->wl->params_size > PARAMS_MAX || pl->wl->parse(cfg, pl->params, err, len))
		return -EINVAL;
	pl->threads = pl->wl->nr_threads ? pl->wl->nr_threads(pl->params)
		      : pl->wl->threads	 ? pl->wl->threads
					 : 1;
	nodes = cfg->nodes ? cfg->nodes : 1;
	if (nodes < 1 || nodes > 8) {
		snprintf(err, len, "--nodes %d: accepted 1..8", cfg->nodes);
		return -EINVAL;
	}
	/* sim queues several tasks on a CPU; native binds one thread to each */
	if (cfg->cpus && (cfg->cpus > 1024 || (!cfg->sim && cfg->cpus < pl->threads))) {
		snprintf(err, len,
			 "--cpus %d: accepted %d..1024 on --platform native (a CPU per thread), "
			 "1..1024 on sim",
			 cfg->cpus, pl->threads);
		return -EINVAL;
	}
	pl->needed = pl->wl->mem_needed(pl->params);
	unit = (4ull << 20) * (uint64_t)nodes;
	if (cfg->mem_bytes) {
		/* with swap, reclaim makes room: memory and swap together must hold it */
		if (cfg->mem_bytes + cfg->swap_bytes < pl->needed || cfg->mem_bytes < unit) {
			fl_format_size(ALIGN_UP_U64(pl->needed > unit ? pl->needed : unit,
						    1ull << 20),
				       need, sizeof(need));
			fl_format_size(cfg->mem_bytes, have, sizeof(have));
			snprintf(err, len,
				 "--mem %s is too small: %s with these options needs at least %s%s",
				 have, cfg->workload, need,
				 cfg->swap_bytes ? " of memory and swap together" : "");
			return -EINVAL;
		}
		pl->tcfg.mem_bytes = cfg->mem_bytes;
	} else {
		/*
		 * At least 4 GiB, so the zone's pcp batch (63) and high are those
		 * of a real machine rather than of a tiny zone; untouched memory
		 * costs the model nothing.
		 */
		pl->tcfg.mem_bytes = ALIGN_UP_U64(pl->needed + pl->needed / 4 + (64ull << 20),
						  unit);
		if (pl->tcfg.mem_bytes < (4ull << 30))
			pl->tcfg.mem_bytes = ALIGN_UP_U64(4ull << 30, unit);
	}
	pl->tcfg.nodes = nodes;
	pl->tcfg.cpus = cfg->cpus ? cfg->cpus : pl->threads;
	pl->tcfg.swap_bytes = cfg->swap_bytes;
	pl->tcfg.memcg_max = cfg->memcg_max;
	if (!pl->tcfg.memcg_max && pl->wl->memcg_max_default)
		pl->tcfg.memcg_max = pl->wl->memcg_max_default(pl->params);
	pl->tcfg.memcg_high = cfg->memcg_high;
	pl->tcfg.memcg = pl->wl->needs_memcg && pl->wl->needs_memcg(pl->params);
	pl->tcfg.khugepaged = pl->wl->needs_khugepaged;
	return 0;
}

FL_API int fl_validate(const struct fl_config *cfg, char *err, size_t errlen)
{
	struct plan pl;
	int ret;

	ret = make_plan(cfg, &pl, err, errlen);
	if (ret)
		return ret;
	ret = pl.ops->check_knobs(&pl.tcfg, &cfg->knobs, err, errlen);
	return ret == -EINVAL || ret == -EPERM || ret == -ENOENT ? -EINVAL : ret;
}

struct progress {
	pthread_t tid;
	struct fl_wl_ctx *ctx;
	const char *name;
	const char *label;
	int mode;    /* enum fl_progress */
	int started; /* atomic */
	int stop;    /* atomic */
};

/*
 * The host target forks its processes while the progress thread runs. A
 * child gets only the forking thread, with every lock as it was: a
 * thread that was starting up (a sanitizer runtime allocates then) or
 * printing at that instant would leave the allocator's or stderr's lock
 * held in the child for good (an ASan child hung in free() so). So
 * fl_run waits for the thread to be in its loop before the workload
 * starts, and the thread does anything but sleep only under progress_mu,
 * which fork takes first (pthread_atfork).
 */
static pthread_mutex_t progress_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t progress_once = PTHREAD_ONCE_INIT;

static void progress_fork_prepare(void)
{
	pthread_mutex_lock(&progress_mu);
}

static void progress_fork_done(void)
{
	pthread_mutex_unlock(&progress_mu);
}

static void progress_register_fork(void)
{
	pthread_atfork(progress_fork_prepare, progress_fork_done, progress_fork_done);
}

/* the host's own time, also on sim (where fl_clock_ns() is virtual) */
static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define HEARTBEAT_S 10.0

static void *progress_main(void *arg)
{
	struct progress *pg = arg;
	bool line = pg->mode == FL_PROGRESS_LINE;
	double t0 = mono_s(), next = t0 + (line ? 2.0 : HEARTBEAT_S);
	bool shown = false;

	__atomic_store_n(&pg->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&pg->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		char done[16] = "";
		double now;

		nanosleep(&ts, NULL);
		now = mono_s();
		if (now < next)
			continue;
		next = now + (line ? 0.5 : HEARTBEAT_S);
		shown = true;
		pthread_mutex_lock(&progress_mu);
		if (pg->ctx->progress_total)
			snprintf(done, sizeof(done), "%3.0f%% ",
				 100.0 *
					 (double)__atomic_load_n(&pg->ctx->progress_done,
								 __ATOMIC_RELAXED) /
					 (double)pg->ctx->progress_total);
		if (line)
			fprintf(stderr, "\r%s [%s]: %s%6.1f s", pg->name, pg->label, done,
				now - t0);
		else
			fprintf(stderr, "foliolab: %s [%s] running: %s%.0f s\n", pg->name,
				pg->label, done, now - t0);
		pthread_mutex_unlock(&progress_mu);
	}
	if (shown && line) {
		pthread_mutex_lock(&progress_mu);
		fprintf(stderr, "\r\033[K");
		pthread_mutex_unlock(&progress_mu);
	}
	return NULL;
}

static void record_params(struct fl_result *res, const struct fl_config *cfg,
			  const struct fl_workload_info *wi)
{
	const struct fl_workload_param_info *pi;

	for (pi = wi->params; pi->name && res->nr_params < FL_MAX_PARAMS; pi++) {
		struct fl_param *p = &res->params[res->nr_params++];

		snprintf(p->name, sizeof(p->name), "%s", pi->name);
		snprintf(p->value, sizeof(p->value), "%s", param_value(cfg, wi, pi->name));
	}
}

/* after - before for every name, times @scale (rounded) */
static int counter_deltas(struct fl_counters *out, const struct fl_counters *before,
			  const struct fl_counters *after, double scale)
{
	int i;

	for (i = 0; i < after->nr; i++) {
		int64_t d = after->v[i].value - fl_counters_get(before, after->v[i].name);

		if (scale != 1.0)
			d = (int64_t)((double)d * scale + (d < 0 ? -0.5 : 0.5));
		if (fl_counters_set_scoped(out, after->v[i].name, d, after->v[i].scope))
			return -ENOMEM;
	}
	return 0;
}

int fl__window_begin(struct fl_wl_ctx *ctx)
{
	fl_counters_free(&ctx->window);
	return ctx->target->ops->counters(ctx->target, &ctx->window);
}

struct rounds_run {
	struct fl_wl_ctx *ctx;
	long rounds;
	int (*round_fn)(struct fl_thread *th, long round, void *arg);
	void *arg;
	int error;
};

static void rounds_task(struct fl_thread *th, void *p)
{
	struct rounds_run *rr = p;
	long r;

	for (r = 0; r < rr->rounds && !rr->error; r++) {
		rr->error = rr->round_fn(th, r, rr->arg);
		fl_progress(rr->ctx, 1);
	}
}

int fl__procs_create(struct fl_wl_ctx *ctx, struct fl_proc **procs, int tasks, int nprocs)
{
	int i, ret;

	for (i = 0; i < nprocs; i++) {
		ret = ctx->target->ops->proc_create(ctx->target, &procs[i]);
		if (ret) {
			fl__procs_exit(ctx, procs, i, 0);
			return ret;
		}
	}
	for (; i < tasks; i++)
		procs[i] = procs[0];
	return 0;
}

int fl__procs_exit(struct fl_wl_ctx *ctx, struct fl_proc **procs, int nprocs, int ret)
{
	int i, ret2;

	for (i = 0; i < nprocs; i++) {
		ret2 = ctx->target->ops->proc_exit(procs[i]);
		if (!ret)
			ret = ret2;
	}
	return ret;
}

int fl__run_procs(struct fl_wl_ctx *ctx, int tasks, int nprocs,
		  void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct fl_proc **procs;
	int ret;

	if (tasks < 1 || nprocs < 1 || nprocs > tasks)
		return -EINVAL;
	procs = fl_calloc((size_t)tasks, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	ret = fl__procs_create(ctx, procs, tasks, nprocs);
	if (!ret)
		ret = fl__procs_exit(ctx, procs, nprocs,
				     ctx->target->ops->run_tasks(ctx->target, procs, tasks, fn,
								 arg));
	fl_free(procs);
	return ret;
}

int fl__run_rounds(struct fl_wl_ctx *ctx, long rounds,
		   int (*round_fn)(struct fl_thread *th, long round, void *arg), void *arg)
{
	struct rounds_run rr = { ctx, rounds, round_fn, arg, 0 };
	int ret;

	ctx->progress_total = (uint64_t)rounds;
	ret = fl__run_procs(ctx, 1, 1, rounds_task, &rr);
	return ret ? ret : rr.error;
}

int fl__run_timed_rounds(struct fl_wl_ctx *ctx, long rounds, struct fl_timed_rounds *tr,
			 const char *const names[2], uint64_t pages,
			 int (*round_fn)(struct fl_thread *th, long round, void *arg), void *arg)
{
	int ret = -ENOMEM, i;

	tr->ctx = ctx;
	tr->ns[0] = calloc((size_t)rounds, sizeof(uint64_t));
	tr->ns[1] = calloc((size_t)rounds, sizeof(uint64_t));
	if (tr->ns[0] && tr->ns[1]) {
		ret = fl__run_rounds(ctx, rounds, round_fn, arg);
		ctx->tags_checked = tr->tags.checked;
		ctx->tags_wrong = tr->tags.wrong;
	}
	if (!ret) {
		for (i = 0; i < 2; i++)
			fl__add_us_metrics(ctx->res, names[i], tr->ns[i], rounds, true);
		fl__add_metric(ctx->res, "pages", "", (double)pages);
	}
	free(tr->ns[0]);
	free(tr->ns[1]);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void fl__add_us_metrics(struct fl_result *res, const char *name, uint64_t *ns, long n, bool range)
{
	char full[32];

	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	fl__add_metric(res, name, "us", (double)ns[n / 2] / 1e3);
	if (!range)
		return;
	snprintf(full, sizeof(full), "%s_min", name);
	fl__add_metric(res, full, "us", (double)ns[0] / 1e3);
	snprintf(full, sizeof(full), "%s_max", name);
	fl__add_metric(res, full, "us", (double)ns[n - 1] / 1e3);
}

void fl__window_discard(struct fl_wl_ctx *ctx)
{
	fl_counters_free(&ctx->window);
}

int fl__window_end(struct fl_wl_ctx *ctx, const char *name)
{
	struct fl_counters now = { 0 };
	char full[FL_NAME_MAX];
	int i, ret = ctx->target->ops->counters(ctx->target, &now);

	for (i = 0; !ret && i < now.nr; i++) {
		const struct fl_counter *c = &now.v[i];

		if (!strncmp(c->name, "system:", 7) ||
		    (size_t)snprintf(full, sizeof(full), "%s:%s", name, c->name) >= sizeof(full))
			continue;
		ret = fl_counters_set_scoped(&ctx->res->counters, full,
					     c->value - fl_counters_get(&ctx->window, c->name),
					     c->scope);
	}
	fl_counters_free(&now);
	fl_counters_free(&ctx->window);
	return ret;
}

/*
 * The target's own process machinery, measured without the workload
 * (target.h: machinery), out of every whole-run counter that counts the
 * run alone; the windows ("cow:pgfault") hold the workload's steps alone
 * already, and a system-wide counter keeps everything the machine did
 * (its gauges would also take the replay's page tables still waiting for
 * RCU). A target that cannot measure it says so in the run's note, and
 * the counts keep it.
 */
static int leave_out_machinery(struct fl_target *t, struct fl_result *res)
{
	int i, ret = t->ops->machinery(t, &res->machinery, &res->machinery_steps);

	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		fl_counters_free(&res->machinery);
		res->machinery_steps = 0;
		snprintf(res->note + strlen(res->note), sizeof(res->note) - strlen(res->note),
			 "%sthe process machinery was not measured (%s): its counts are in the "
			 "run's",
			 res->note[0] ? "; " : "", strerror(-ret));
		return 0;
	}
	for (i = 0; i < res->machinery.nr; i++) {
		const struct fl_counter *m = &res->machinery.v[i];
		const struct fl_counter *c = fl_counters_find(&res->counters, m->name);

		if (!m->value || !c || strchr(m->name, ':') || c->scope == FL_SCOPE_SYSTEM)
			continue;
		if (fl_counters_set_scoped(&res->counters, m->name, c->value - m->value, c->scope))
			return -ENOMEM;
	}
	return 0;
}

/* A knob in force is "set" when the configuration asked for it. */
static void mark_set_knobs(struct fl_knobs *in_force, const struct fl_knobs *asked)
{
	int i, j;

	for (i = 0; i < in_force->nr; i++)
		for (j = 0; j < asked->nr; j++)
			if (!strcmp(in_force->v[i].name, asked->v[j].name))
				in_force->v[i].set = true;
}

#define NOISE_MAX_S 10.0
#define NOISE_MIN_S 0.2

/*
 * System-wide counters move without us: measure them over an idle
 * interval as long as the run (at most NOISE_MAX_S) right after it, and
 * scale to the run's wall time, so a report can say how far off the
 * workload's own deltas may be.
 */
static int measure_noise(struct fl_target *t, struct fl_result *res)
{
	struct fl_counters b = { 0 }, a = { 0 };
	double idle = res->wall_s;
	struct timespec ts;
	uint64_t t0;
	int ret;

	if (idle > NOISE_MAX_S)
		idle = NOISE_MAX_S;
	if (idle < NOISE_MIN_S)
		idle = NOISE_MIN_S;
	ts.tv_sec = (time_t)idle;
	ts.tv_nsec = (long)((idle - (double)ts.tv_sec) * 1e9);
	ret = t->ops->counters(t, &b);
	t0 = fl_clock_ns();
	while (!ret && nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (!ret)
		ret = t->ops->counters(t, &a);
	res->noise_s = (double)(fl_clock_ns() - t0) / 1e9;
	if (!ret)
		ret = counter_deltas(&res->noise, &b, &a,
				     res->noise_s > 0 ? res->wall_s / res->noise_s : 1.0);
	fl_counters_free(&b);
	fl_counters_free(&a);
	return ret;
}

FL_API int fl_run(const struct fl_config *cfg, struct fl_result *res, char *err, size_t errlen)
{
	struct fl_counters before = { 0 }, after = { 0 };
	double u0, s0, u1, s1;
	struct progress pg = { 0 };
	struct fl_wl_ctx ctx = { 0 };
	struct fl_cpu_ticks ticks0, ticks1;
	struct fl_target *t;
	struct plan pl;
	bool have_ticks;
	double w0;
	int ret;

	memset(res, 0, sizeof(*res));
	res->steal_pct = -1;
	ret = make_plan(cfg, &pl, err, errlen);
	if (ret)
		return ret;
	ret = pl.ops->open(&pl.tcfg, &t, err, errlen);
	if (ret)
		return ret;
	ret = t->ops->set_knobs(t, &cfg->knobs, err, errlen);
	if (ret)
		goto out_close;
	snprintf(res->workload, sizeof(res->workload), "%s", pl.wl->info.name);
	snprintf(res->target, sizeof(res->target), "%s", pl.ops->name);
	snprintf(res->label, sizeof(res->label), "%s", cfg->label ? cfg->label : "");
	record_params(res, cfg, &pl.wl->info);
	t->ops->knobs(t, &res->knobs);
	mark_set_knobs(&res->knobs, &cfg->knobs);
	res->mem_bytes = pl.tcfg.mem_bytes;
	res->swap_bytes = pl.tcfg.swap_bytes;
	res->memcg_max = pl.tcfg.memcg_max;
	res->memcg_high = pl.tcfg.memcg_high;
	res->nodes = pl.tcfg.nodes;
	res->cpus = pl.tcfg.cpus;
	res->locked_atomics = cfg->locked_atomics;
	res->pin_cpus = cfg->pin_cpus;
	if (pl.ops != &fl__host_target_ops)
		snprintf(res->platform, sizeof(res->platform), "%s", cfg->sim ? "sim" : "native");
	res->seed = cfg->sim ? cfg->seed : 0;
	if (t->ops->begin) {
		ret = t->ops->begin(t, err, errlen);
		if (ret)
			goto out_close;
	}
	/*
	 * The record's room, written before the first count: its windows add
	 * a counter set each, and on the host the heap that grows for them
	 * would count as the run's anon pages (the run's cgroup holds us too)
	 */
	ret = fl_counters_reserve(&res->counters, 4096) | fl_counters_reserve(&ctx.window, 1024) |
	      fl_counters_reserve(&before, 1024) | fl_counters_reserve(&after, 1024);
	if (!ret)
		ret = t->ops->counters(t, &before);
	if (ret)
		goto out_end;

	ctx.target = t;
	ctx.res = res;
	fl_cpu_times(&u0, &s0);
	have_ticks = !fl__host_cpu_ticks(&ticks0);
	w0 = mono_s();
	if (cfg->progress) {
		pg.ctx = &ctx;
		pg.name = pl.wl->info.name;
		pg.label = cfg->label ? cfg->label : "";
		pg.mode = cfg->progress;
		pthread_once(&progress_once, progress_register_fork);
		if (pthread_create(&pg.tid, NULL, progress_main, &pg)) {
			pg.ctx = NULL;
		} else {
			struct timespec ms = { 0, 1000 * 1000 };

			while (!__atomic_load_n(&pg.started, __ATOMIC_ACQUIRE))
				nanosleep(&ms, NULL);
		}
	}
	ret = pl.wl->run(&ctx, pl.params);
	fl_counters_free(&ctx.window);
	if (pg.ctx) {
		__atomic_store_n(&pg.stop, 1, __ATOMIC_RELEASE);
		pthread_join(pg.tid, NULL);
	}
	res->wall_s = mono_s() - w0;
	if (have_ticks && !fl__host_cpu_ticks(&ticks1)) {
		res->steal_pct = fl__steal_pct(&ticks0, &ticks1);
		if (res->steal_pct >= 0) {
			res->machine_busy_ticks = ticks1.busy - ticks0.busy;
			res->machine_steal_ticks = ticks1.steal - ticks0.steal;
		}
	}
	fl_cpu_times(&u1, &s1);
	res->user_s = u1 - u0;
	res->sys_s = s1 - s0;
	if (ret) {
		char oom[sizeof(ctx.why)];

		res->status = 1;
		if (ret == -ENOMEM && t->ops->oom_report && t->ops->oom_report(t, oom, sizeof(oom)))
			snprintf(ctx.why, sizeof(ctx.why), "%s", oom);
		snprintf(res->error, sizeof(res->error), "%s failed: %s", pl.wl->info.name,
			 ctx.why[0] ? ctx.why : strerror(-ret));
	} else if (ctx.tags_wrong) {
		res->status = 1;
		snprintf(
			res->error, sizeof(res->error),
			"data check: %llu of %llu pages read back a tag that was not written there",
			(unsigned long long)ctx.tags_wrong, (unsigned long long)ctx.tags_checked);
	}
	if (t->ops->quiesce(t, err, errlen) && !res->status) {
		res->status = 1;
		snprintf(res->error, sizeof(res->error), "end-of-run check: %s", err);
	}
	ret = t->ops->counters(t, &after);
	if (!ret)
		ret = counter_deltas(&res->counters, &before, &after, 1.0);
	if (!ret && t->ops->machinery)
		ret = leave_out_machinery(t, res);
	/* the workload's own data check, the same on every target */
	if (!ret)
		ret = fl_counters_set(&res->counters, "fl_tag_checked", (int64_t)ctx.tags_checked) |
		      fl_counters_set(&res->counters, "fl_tag_mismatch", (int64_t)ctx.tags_wrong);
	if (t->ops->end)
		t->ops->end(t);
	if (!ret)
		ret = t->ops->locks(t, &res->locks);
	if (t->ops->describe)
		t->ops->describe(t, res);
	if (!ret && t->counters_have_noise)
		ret = measure_noise(t, res);
	if (ret)
		snprintf(err, errlen, "out of memory while collecting the results");
	goto out_close;
out_end:
	if (t->ops->end)
		t->ops->end(t);
out_close:
	if (t->ops->close(t) && !ret && !res->status) {
		res->status = 1;
		snprintf(res->error, sizeof(res->error),
			 "could not put back every host knob; run 'foliolab host restore'");
	}
	fl_counters_free(&before);
	fl_counters_free(&after);
	if (ret)
		fl_result_free(res);
	return ret;
}
