// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_fault1.c - will-it-scale's page_fault1: each task maps --size
 * (128 MiB), writes one byte to every 4 KiB page, unmaps, and again; the
 * score is pages written. --mode threads runs the tasks as threads of one
 * process (page_fault1_threads), --mode processes as separate processes
 * (page_fault1_processes). It runs for --seconds, or exactly --iterations
 * full map-write-unmap cycles per task when that is given.
 *
 * Each task's cycle c stores ((task + 1) << 52 | c << 26) + page index
 * and reads every written page's tag back before the munmap.
 *
 * Conventions in this file: a "cycle" is one mmap, write pass, read-back
 * and munmap; writes go in 2 MiB chunks so the deadline is checked often.
 */
#include <errno.h>
#include <stdio.h>
#include "workload.h"
#include "../platform/platform.h"

#define PF1_CHUNK (2u << 20)

struct pf1_params {
	long threads;
	double seconds;
	long iterations; /* 0: run for seconds */
	uint64_t size;
	int mode; /* 0 threads, 1 processes */
};

struct pf1_shared {
	const struct pf1_params *p;
	struct fl_wl_ctx *ctx;
	uint64_t deadline_ns;
	uint64_t pages;	 /* atomic */
	uint64_t cycles; /* atomic */
	int error;	 /* atomic */
	struct fl_tag_tally tags;
};

static const char *const pf1_modes[] = { "threads", "processes", NULL };

static const struct fl_workload_param_info pf1_param_info[] = {
	FL_PARAM_INT("threads", "1", 1, 1024, struct pf1_params, threads, "tasks"),
	FL_PARAM_DOUBLE("seconds", "5", 0.01, 86400, struct pf1_params, seconds,
			"run time when --iterations is 0"),
	FL_PARAM_INT("iterations", "0", 0, 1000000, struct pf1_params, iterations,
		     "full cycles per task; 0 = run for --seconds"),
	FL_PARAM_SIZE("size", "128M", 4096, 64ull << 30, 4096, struct pf1_params, size,
		      "bytes each task maps per cycle"),
	FL_PARAM_CHOICE("mode", "threads", pf1_modes, struct pf1_params, mode,
			"the tasks are threads of one process, or processes"),
	FL_PARAM_END,
};

static int pf1_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	const struct fl_workload_info *wi = &fl__wl_page_fault1.info;
	struct pf1_params *p = params;
	int ret = fl__params_parse(cfg, wi, p, err, len);

	if (!ret)
		ret = fl__param_only_with(cfg, "seconds", !p->iterations,
					  "--iterations 0 (a run for a time, not a count)", err,
					  len);
	return ret;
}

static int pf1_threads(const void *params)
{
	return (int)((const struct pf1_params *)params)->threads;
}

static uint64_t pf1_mem_needed(const void *params)
{
	const struct pf1_params *p = params;

	return fl__mem_for_mappings(p->threads, p->size);
}

static void pf1_thread(struct fl_thread *th, void *arg)
{
	struct pf1_shared *sh = arg;
	const struct pf1_params *p = sh->p;
	long cycle;

	for (cycle = 0; !p->iterations || cycle < p->iterations; cycle++) {
		uint64_t addr, off,
			tag = ((uint64_t)(th->index + 1) << 52) | ((uint64_t)cycle << 26);
		bool stop = false;
		int ret;

		ret = fl_mmap(th, p->size, FL_PROT_READ | FL_PROT_WRITE, 0, &addr);
		if (ret) {
			fl__first_error(&sh->error, ret);
			return;
		}
		for (off = 0; off < p->size && !stop; off += PF1_CHUNK) {
			uint64_t n = p->size - off < PF1_CHUNK ? p->size - off : PF1_CHUNK;

			ret = fl_write(th, addr + off, n, 4096, tag + off / 4096, 1);
			if (ret) {
				fl__first_error(&sh->error, ret);
				stop = true;
				break;
			}
			__atomic_fetch_add(&sh->pages, n / 4096, __ATOMIC_RELAXED);
			if (!p->iterations)
				stop = fl_clock_ns() >= sh->deadline_ns;
		}
		/* what was written reads back before the munmap zaps it */
		ret = fl__check_tags(th, addr, off < p->size ? off : p->size, tag, 1, &sh->tags);
		if (ret) {
			fl__first_error(&sh->error, ret);
			stop = true;
		}
		ret = fl_munmap(th, addr, p->size);
		if (ret)
			fl__first_error(&sh->error, ret);
		if (stop || ret)
			return;
		__atomic_fetch_add(&sh->cycles, 1, __ATOMIC_RELAXED);
		fl_progress(sh->ctx, p->iterations ? 1 : 0);
	}
}

static int pf1_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct pf1_params *p = params;
	struct fl_proc *procs[1024];
	int n = (int)p->threads, nprocs = p->mode == 1 ? n : 1, ret;
	/* the counters are shared by the tasks, which may be processes */
	struct pf1_shared *shp = ctx->target->ops->shared_alloc(ctx->target, sizeof(*shp));
	double elapsed;
	uint64_t t0;

	if (!shp)
		return -ENOMEM;
	shp->p = p;
	shp->ctx = ctx;

	ret = fl__procs_create(ctx, procs, n, nprocs);
	if (ret)
		return ret;
	ctx->progress_total = p->iterations ? (uint64_t)n * (uint64_t)p->iterations : 0;
	t0 = fl_clock_ns();
	shp->deadline_ns = t0 + (uint64_t)(p->seconds * 1e9);
	ret = ctx->target->ops->run_tasks(ctx->target, procs, n, pf1_thread, shp);
	elapsed = (double)(fl_clock_ns() - t0) / 1e9;
	if (!ret)
		ret = shp->error;
	ctx->tags_checked = shp->tags.checked;
	ctx->tags_wrong = shp->tags.wrong;
	fl__add_metric(ctx->res, "pages", "pages", (double)shp->pages);
	fl__add_metric(ctx->res, "cycles", "", (double)shp->cycles);
	fl__add_metric(ctx->res, "pages_per_sec", "pages/s",
		       elapsed > 0 ? (double)shp->pages / elapsed : 0);
	return fl__procs_exit(ctx, procs, nprocs, ret);
}

const struct fl_workload fl__wl_page_fault1 = {
	.info =
		{
			.name = "page-fault1",
			.summary = "will-it-scale page_fault1: map 128 MiB, write every page, "
				   "unmap, repeat",
			.params = pf1_param_info,
		},
	.params_size = sizeof(struct pf1_params),
	.parse = pf1_parse,
	.nr_threads = pf1_threads,
	.mem_needed = pf1_mem_needed,
	.run = pf1_run,
};
