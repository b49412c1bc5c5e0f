/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workload.h - how a workload plugs into the runner. Workloads see only
 * the target API (src/target/target.h), never mm/.
 *
 * Conventions in this file: @params is the workload's own parsed
 * parameter struct, filled by ->parse() from the configuration.
 */
#ifndef FL_WORKLOADS_WORKLOAD_H
#define FL_WORKLOADS_WORKLOAD_H

#include <stddef.h>
#include <foliolab/foliolab.h>
#include "../target/target.h"

struct fl_wl_ctx {
	struct fl_target *target;
	struct fl_result *res;
	uint64_t progress_total; /* units of work, for the progress line */
	uint64_t progress_done;	 /* atomic */
	/* the workload's read-back of its content tags: pages read, pages wrong */
	uint64_t tags_checked;
	uint64_t tags_wrong;
	/* why the run failed, when the target said more than an errno */
	char why[400];
	struct fl_counters window; /* counters at fl__window_begin() */
};

/* Tag counts the tasks of a workload add up, in memory every process sees. */
struct fl_tag_tally {
	uint64_t checked; /* atomic */
	uint64_t wrong;	  /* atomic */
};

struct fl_workload {
	struct fl_workload_info info;
	/* it uses files: the host cannot tell its anon from its file folios by order */
	bool files;
	/* on the host: what it does that needs root ("mounts a tmpfs"), or NULL */
	const char *host_root;
	size_t params_size;
	int (*parse)(const struct fl_config *cfg, void *params, char *err, size_t len);
	/* its tasks: nr_threads(params) where they depend on them, else @threads (0: one) */
	int (*nr_threads)(const void *params);
	int threads;
	uint64_t (*mem_needed)(const void *params);
	int (*run)(struct fl_wl_ctx *ctx, const void *params);
	/* optional: the run needs a memory cgroup (the model makes one) */
	bool (*needs_memcg)(const void *params);
	/* the model runs khugepaged's thread beside its tasks (the host's always runs) */
	bool needs_khugepaged;
	/* optional: its memory.max when --memcg-max is not given */
	uint64_t (*memcg_max_default)(const void *params);
};

#define FL_WORKLOAD(name) extern const struct fl_workload fl__wl_##name;
#include "list.h"
#undef FL_WORKLOAD
const struct fl_workload *fl__workload_find(const char *name);

static inline void fl_progress(struct fl_wl_ctx *ctx, uint64_t n)
{
	__atomic_fetch_add(&ctx->progress_done, n, __ATOMIC_RELAXED);
}

/*
 * The largest folio size, in KiB, that @cfg's knobs make anon faults
 * allocate: a hugepages-<N>kB/enabled set to always, or to inherit with
 * the top-level enabled set to always. 0 when the knobs set none.
 */
unsigned long fl__mthp_always_kb(const struct fl_config *cfg);

void fl__add_metric(struct fl_result *res, const char *name, const char *unit, double value);

/*
 * A window of the run that counts on its own: fl__window_end() adds every
 * counter's change since fl__window_begin() to the result as
 * "<name>:<counter>" (e.g. "split:nr_shmem"), which the agreement gate
 * holds against the host's like any counter. Gauges such as nr_shmem,
 * back to 0 by the run's end, are seen this way. Return: 0 or -errno.
 */
int fl__window_begin(struct fl_wl_ctx *ctx);
int fl__window_end(struct fl_wl_ctx *ctx, const char *name);
/*
 * fl__run_procs() - @tasks tasks of @fn(arg) in @nprocs fresh processes
 * (1 .. @tasks): task i runs in process i while i < @nprocs, in the first
 * one after (threads beside it); every process exits at the end.
 * Return: 0 or the first error of making, running or exiting them.
 */
int fl__run_procs(struct fl_wl_ctx *ctx, int tasks, int nprocs,
		  void (*fn)(struct fl_thread *th, void *arg), void *arg);
/*
 * fl__procs_create() and fl__procs_exit() - fl__run_procs()'s two ends, for
 * a workload that times what lies between: @procs (@tasks long) made as
 * fl__run_procs() makes them (none left on an error); then each of the
 * @nprocs exited. fl__procs_exit() returns @ret, or if that is 0 the first
 * exit's error.
 */
int fl__procs_create(struct fl_wl_ctx *ctx, struct fl_proc **procs, int tasks, int nprocs);
int fl__procs_exit(struct fl_wl_ctx *ctx, struct fl_proc **procs, int nprocs, int ret);
/*
 * fl__run_rounds() - @rounds calls of @round_fn in the workload's one task
 * (a thread of a fresh process, on CPU 0), stopping at the first error,
 * one progress unit a round. Return: 0 or the first error.
 */
int fl__run_rounds(struct fl_wl_ctx *ctx, long rounds,
		   int (*round_fn)(struct fl_thread *th, long round, void *arg), void *arg);

/*
 * fl__run_timed_rounds() - fl__run_rounds() for a workload whose rounds
 * time two steps each (lazyfree's free and press, pageout's pageout and
 * swap-in): @round_fn puts round r's two times in @tr->ns[0][r] and
 * @tr->ns[1][r] (allocated here, to @rounds) and counts the tags it
 * checks in @tr->tags. After a clean run the metrics @names[0] and
 * @names[1] (us: the median and range over the rounds) and @pages.
 * Return: 0 or the first error (-ENOMEM before anything ran).
 */
struct fl_timed_rounds {
	struct fl_wl_ctx *ctx;
	struct fl_tag_tally tags;
	uint64_t *ns[2]; /* [rounds]: sized to the run, so the host's process stays small */
};
int fl__run_timed_rounds(struct fl_wl_ctx *ctx, long rounds, struct fl_timed_rounds *tr,
			 const char *const names[2], uint64_t pages,
			 int (*round_fn)(struct fl_thread *th, long round, void *arg), void *arg);

/*
 * fl__add_us_metrics() - sort the @n times @ns and add their median as
 * @name (us); with @range also @name_min and @name_max.
 */
void fl__add_us_metrics(struct fl_result *res, const char *name, uint64_t *ns, long n, bool range);

/* Drop a window begun but not to be counted (the step could not run). */
void fl__window_discard(struct fl_wl_ctx *ctx);

/*
 * A parameter's declaration: its name, default, what it accepts, the field
 * of the workload's parameters @T it goes to (a long, a double, a
 * uint64_t or an int, by kind: a field of another type does not compile
 * under -Werror) and what it is, for `list`.
 */
#define FL__PARAM_FIELD(T, f, type) (offsetof(T, f) + 0 * sizeof((type *)0 == &((T *)0)->f))
#define FL_PARAM_INT(n, d, l, h, T, f, what)                                                       \
	{                                                                                          \
		.name = n, .def = d, .help = what, .kind = FL_PARAM_INT, .lo = l, .hi = h,         \
		.offset = FL__PARAM_FIELD(T, f, long)                                              \
	}
#define FL_PARAM_DOUBLE(n, d, l, h, T, f, what)                                                    \
	{                                                                                          \
		.name = n, .def = d, .help = what, .kind = FL_PARAM_DOUBLE, .lo = l, .hi = h,      \
		.offset = FL__PARAM_FIELD(T, f, double)                                            \
	}
#define FL_PARAM_SIZE(n, d, l, h, a, T, f, what)                                                   \
	{                                                                                          \
		.name = n, .def = d, .help = what, .kind = FL_PARAM_SIZE, .lo = (double)(l),       \
		.hi = (double)(h), .align = a, .offset = FL__PARAM_FIELD(T, f, uint64_t)           \
	}
#define FL_PARAM_CHOICE(n, d, words, T, f, what)                                                   \
	{                                                                                          \
		.name = n, .def = d, .help = what, .kind = FL_PARAM_CHOICE, .choices = words,      \
		.offset = FL__PARAM_FIELD(T, f, int)                                               \
	}
#define FL_PARAM_END                                                                               \
	{                                                                                          \
		.name = NULL                                                                       \
	}

/*
 * fl__params_parse() - every parameter @wi declares, from --NAME or its
 * default, checked against its declaration and stored in @params; the
 * first refused one says why in @err. Return: 0 or -EINVAL.
 */
int fl__params_parse(const struct fl_config *cfg, const struct fl_workload_info *wi, void *params,
		     char *err, size_t len);

/* param helpers: the value of --NAME (or its default), range-checked (a bound the
 * declaration cannot give: one that depends on another setting) */
int fl__param_int(const struct fl_config *cfg, const struct fl_workload_info *wi, const char *name,
		  long lo, long hi, long *out, char *err, size_t len);
int fl__param_size(const struct fl_config *cfg, const struct fl_workload_info *wi, const char *name,
		   uint64_t lo, uint64_t hi, uint64_t align, uint64_t *out, char *err, size_t len);
/* ... one of the NULL-terminated @choices: its index in *@out */
int fl__param_choice(const struct fl_config *cfg, const struct fl_workload_info *wi,
		     const char *name, const char *const *choices, int *out, char *err, size_t len);
int fl__param_double(const struct fl_config *cfg, const struct fl_workload_info *wi,
		     const char *name, double lo, double hi, double *out, char *err, size_t len);
/*
 * fl__param_only_with() - refuse --@name given on the command line where it
 * means nothing: unless @applies, say it is for @when ("--method punch").
 */
int fl__param_only_with(const struct fl_config *cfg, const char *name, bool applies,
			const char *when, char *err, size_t len);

/* Memory for @tasks mappings of @size bytes, with their page tables. */
static inline uint64_t fl__mem_for_mappings(long tasks, uint64_t size)
{
	/* a page-table page per 2 MiB and a few upper-level tables */
	return (uint64_t)tasks * (size + (size / (2u << 20) + 4) * 4096);
}

/**
 * fl__check_tags() - read back the tags of the pages of [@addr, @addr +
 * @len) and count, into @tally, those that are not @tag + i * @step for
 * the i-th page (pages in 4 KiB steps; reads in 2 MiB pieces).
 * Return: 0 or the first read's error.
 */
static inline int fl__check_tags(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t tag,
				 uint64_t step, struct fl_tag_tally *tally)
{
	enum { CHUNK = 512 };
	uint64_t got[CHUNK], off, i, wrong = 0, checked = 0;

	for (off = 0; off < len; off += CHUNK * 4096ull) {
		uint64_t n = len - off < CHUNK * 4096ull ? (len - off) / 4096 : CHUNK;
		int ret = fl_read(th, addr + off, n * 4096, 4096, got, NULL);

		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			wrong += got[i] != tag + (off / 4096 + i) * step;
		checked += n;
	}
	__atomic_fetch_add(&tally->checked, checked, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tally->wrong, wrong, __ATOMIC_RELAXED);
	return 0;
}

/* Keep the first error a thread reports in *@slot. */
static inline void fl__first_error(int *slot, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(slot, &zero, err, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

#endif /* FL_WORKLOADS_WORKLOAD_H */
