// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcg_build.c - seed 000's second experiment, a kernel build (-j20) in
 * a memory cgroup of 1 GiB with zram swap, as a stream of compiler-like
 * jobs: --threads tasks, each a process of its own (a compiler per job
 * slot), in the run's memory cgroup (--memcg-max, default 1G), each
 * running --jobs jobs one after another. A job maps anon memory of a size
 * drawn from a build-like distribution, writes all of it (parsing), unmaps
 * what it does not keep (temporaries), reads the kept --keep percent back
 * --passes times (optimisation passes over the IR, which also check every
 * tag), and unmaps the rest at its end. The sizes are log-uniform over a
 * 16:1 range (many small jobs, a few large ones) with a mean of
 * --job-size; by default --job-size is the limit x --overcommit /
 * --threads, so the tasks' memory together exceeds the limit by
 * --overcommit and reclaim swaps the excess out and in again.
 *
 * Each task draws its jobs from its own stream, seeded by --seed and the
 * task's number, so a run is the same on both targets. A job's page i
 * holds ((task + 1) << 52 | job << 32) + i.
 *
 * Conventions in this file: sizes are bytes, whole pages.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "workload.h"
#include "../platform/platform.h"

#define MB_JOBS_MAX 100000
#define MB_CHUNK (2ull << 20)
#define MB_DEFAULT_MEMCG (1ull << 30)
#define MB_SPREAD 16.0 /* the largest job is 16 times the smallest */

struct mb_params {
	long threads;
	long jobs;
	uint64_t job_size; /* the mean */
	double overcommit;
	long keep; /* percent */
	long passes;
	long seed;
	long user_ns; /* per page written */
};

static const struct fl_workload_param_info mb_param_info[] = {
	FL_PARAM_INT("threads", "20", 1, 1024, struct mb_params, threads,
		     "tasks, each a process running jobs one after another"),
	FL_PARAM_INT("jobs", "16", 1, MB_JOBS_MAX, struct mb_params, jobs, "jobs per task"),
	FL_PARAM_SIZE("job-size", "0", 0, 64ull << 30, 4096, struct mb_params, job_size,
		      "mean bytes a job maps; 0: --memcg-max x --overcommit / --threads"),
	FL_PARAM_DOUBLE("overcommit", "1.5", 0.1, 100, struct mb_params, overcommit,
			"the tasks' memory together against the memcg's limit, for --job-size "
			"0"),
	FL_PARAM_INT("keep", "60", 0, 100, struct mb_params, keep,
		     "percent of a job's memory kept to its end and read back"),
	FL_PARAM_INT("passes", "2", 0, 100, struct mb_params, passes,
		     "read-backs of the kept memory per job"),
	FL_PARAM_INT("seed", "1", 0, 0x7fffffff, struct mb_params, seed,
		     "the job-size streams' seed"),
	FL_PARAM_INT("user-ns", "15000", 0, 1000000, struct mb_params, user_ns,
		     "user-mode CPU time per page a job writes, in ns, spent as each 2 MiB is "
		     "written: the compiler's own work"),
	FL_PARAM_END,
};

/* the memcg limit the jobs are sized against: --memcg-max, else the default 1G */
static uint64_t mb_limit(const struct fl_config *cfg)
{
	return cfg->memcg_max ? cfg->memcg_max : MB_DEFAULT_MEMCG;
}

static int mb_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct mb_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_memcg_build.info, p, err, len);

	if (!ret)
		ret = fl__param_only_with(cfg, "overcommit", !p->job_size,
					  "--job-size 0 (sized from the limit)", err, len);
	if (ret)
		return ret;
	if (!p->job_size)
		p->job_size = (uint64_t)((double)mb_limit(cfg) * p->overcommit /
					 (double)p->threads) /
			      4096 * 4096;
	if (p->job_size < 4096) {
		snprintf(err, len,
			 "memcg-build: jobs of %llu bytes on average are less than a page "
			 "(raise --memcg-max or --overcommit, or lower --threads)",
			 (unsigned long long)p->job_size);
		return -EINVAL;
	}
	if (!cfg->swap_bytes) {
		snprintf(err, len,
			 "memcg-build needs --swap zram:SIZE: its memory exceeds the memcg's "
			 "limit and the excess goes to swap");
		return -EINVAL;
	}
	return 0;
}

static int mb_threads(const void *params)
{
	return (int)((const struct mb_params *)params)->threads;
}

/* the smallest and largest job: log-uniform over [lo, 16 lo] with the mean given */
static void mb_range(const struct mb_params *p, double *lo, double *hi)
{
	/* the mean of a log-uniform variable on [a, 16a] is 15a / ln 16 */
	*lo = (double)p->job_size * log(MB_SPREAD) / (MB_SPREAD - 1.0);
	*hi = *lo * MB_SPREAD;
}

/* the machine holds the limit and swap holds the rest: one largest job per task at most */
static uint64_t mb_mem_needed(const void *params)
{
	const struct mb_params *p = params;
	double lo, hi;

	mb_range(p, &lo, &hi);
	return fl__mem_for_mappings(p->threads, (uint64_t)hi + 4096);
}

static bool mb_needs_memcg(const void *params)
{
	(void)params;
	return true;
}

static uint64_t mb_memcg_max(const void *params)
{
	(void)params;
	return MB_DEFAULT_MEMCG;
}

struct mb_shared {
	const struct mb_params *p;
	struct fl_wl_ctx *ctx;
	uint64_t jobs;	/* atomic */
	uint64_t pages; /* atomic: pages written */
	int error;	/* atomic */
	struct fl_tag_tally tags;
};

static uint64_t mb_next(uint64_t *r)
{
	*r = *r * 6364136223846793005ull + 1442695040888963407ull;
	return *r >> 11;
}

/* a job's size: log-uniform over the range, in whole pages, at least one */
static uint64_t mb_job_size(const struct mb_params *p, uint64_t *r)
{
	double lo, hi, u = (double)mb_next(r) / (double)(1ull << 53);
	uint64_t size;

	mb_range(p, &lo, &hi);
	size = (uint64_t)(lo * pow(hi / lo, u)) / 4096 * 4096;
	return size ? size : 4096;
}

static int mb_job(struct fl_thread *th, struct mb_shared *sh, uint64_t size, uint64_t tag)
{
	const struct mb_params *p = sh->p;
	uint64_t addr, off, keep = size / 4096 * (uint64_t)p->keep / 100 * 4096;
	long pass;
	int ret;

	ret = fl_mmap(th, size, FL_PROT_READ | FL_PROT_WRITE, 0, &addr);
	if (ret)
		return ret;
	for (off = 0; off < size && !ret; off += MB_CHUNK) {
		uint64_t n = size - off < MB_CHUNK ? size - off : MB_CHUNK;

		ret = fl_write(th, addr + off, n, 4096, tag + off / 4096, 1);
		if (!ret) {
			__atomic_fetch_add(&sh->pages, n / 4096, __ATOMIC_RELAXED);
			fl_cpu_work((uint64_t)p->user_ns * (n / 4096));
		}
	}
	/* the temporaries go, the kept part is worked over to the job's end */
	if (!ret && keep < size)
		ret = fl_munmap(th, addr + keep, size - keep);
	for (pass = 0; pass < p->passes && keep && !ret; pass++)
		ret = fl__check_tags(th, addr, keep, tag, 1, &sh->tags);
	if (keep) {
		int ret2 = fl_munmap(th, addr, keep);

		ret = ret ? ret : ret2;
	} else if (ret) {
		fl_munmap(th, addr, size);
	}
	return ret;
}

static void mb_thread(struct fl_thread *th, void *arg)
{
	struct mb_shared *sh = arg;
	const struct mb_params *p = sh->p;
	uint64_t r = (uint64_t)p->seed * 0x9e3779b97f4a7c15ull + (uint64_t)th->index + 1;
	long job;

	for (job = 0; job < p->jobs; job++) {
		uint64_t tag = ((uint64_t)(th->index + 1) << 52) | ((uint64_t)job << 32);
		int ret = mb_job(th, sh, mb_job_size(p, &r), tag);

		if (ret) {
			fl__first_error(&sh->error, ret);
			return;
		}
		__atomic_fetch_add(&sh->jobs, 1, __ATOMIC_RELAXED);
		fl_progress(sh->ctx, 1);
	}
}

static int mb_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct mb_params *p = params;
	struct fl_proc *procs[1024];
	int n = (int)p->threads, ret;
	struct mb_shared *sh = ctx->target->ops->shared_alloc(ctx->target, sizeof(*sh));
	double elapsed;
	uint64_t t0;

	if (!sh)
		return -ENOMEM;
	sh->p = p;
	sh->ctx = ctx;
	ret = fl__procs_create(ctx, procs, n, n);
	if (ret)
		return ret;
	ctx->progress_total = (uint64_t)n * (uint64_t)p->jobs;
	t0 = fl_clock_ns();
	ret = ctx->target->ops->run_tasks(ctx->target, procs, n, mb_thread, sh);
	elapsed = (double)(fl_clock_ns() - t0) / 1e9;
	if (!ret)
		ret = sh->error;
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	fl__add_metric(ctx->res, "jobs", "", (double)sh->jobs);
	fl__add_metric(ctx->res, "pages", "pages", (double)sh->pages);
	fl__add_metric(ctx->res, "job_size", "bytes", (double)p->job_size);
	fl__add_metric(ctx->res, "jobs_per_sec", "jobs/s",
		       elapsed > 0 ? (double)sh->jobs / elapsed : 0);
	return fl__procs_exit(ctx, procs, n, ret);
}

const struct fl_workload fl__wl_memcg_build = {
	.info =
		{
			.name = "memcg-build",
			.summary = "seed 000's kernel build in a memcg: processes running "
				   "compiler-like jobs whose memory together exceeds the limit",
			.params = mb_param_info,
		},
	.params_size = sizeof(struct mb_params),
	.parse = mb_parse,
	.nr_threads = mb_threads,
	.mem_needed = mb_mem_needed,
	.run = mb_run,
	.needs_memcg = mb_needs_memcg,
	.memcg_max_default = mb_memcg_max,
};
