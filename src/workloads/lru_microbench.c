// SPDX-License-Identifier: GPL-2.0-only
/*
 * lru_microbench.c - the microbenchmark of "mm: enable lru cache for
 * smaller large folios": T threads of one process each map --size bytes,
 * then --loops times write one byte per 4 KiB page, read every page's tag
 * back, and MADV_DONTNEED the whole mapping, then unmap it.
 *
 * Every write faults (the DONTNEED emptied the mapping), so each loop of
 * each thread is size / folio-size faults, each queueing one folio on the
 * CPU's lru_add batch, and one zap that frees them all.
 *
 * The threads map at about the same time, so their mappings are adjacent
 * and, as in the kernel, merge into one VMA whose per-VMA lock every fault
 * of every thread takes (--vma shared, the seed's program). --vma private
 * leaves unmapped space around each thread's mapping (fl_mmap_apart()), so
 * each has a VMA of its own: the same faults without that shared line.
 *
 * Variants for the model-against-host checks: --access read loads instead
 * of storing (read faults map the shared zero page, and every tag must
 * read back as 0); --advice free or cold advises MADV_FREE or MADV_COLD
 * instead of DONTNEED, which keep the pages mapped, so only the first loop
 * faults; --advice collapse MADV_COLLAPSEs them into PMD THPs (every whole
 * 2 MiB range of the mapping, the first loop; later ones find them
 * PMD-mapped); --advice none advises nothing, so the threads write the
 * same pages over and over (in a memcg smaller than their mappings, a
 * press: reclaim against pages in use).
 *
 * Tags: loop l of thread t stores ((t + 1) << 52 | l << 26) + page index,
 * so a page holding another page's, loop's or thread's data is caught by
 * the read-back, which runs before every advice, on both targets.
 *
 * Each thread times its three phases (the access pass with its faults,
 * the read-back, the madvise); the result has their sums over the threads
 * (access_ns, check_ns, advice_ns), which foliolab calibrate divides into
 * the kernel's costs. span_ns is the time from the first thread's first
 * loop to the last thread's last (the run's wall time less it is start-up
 * and teardown), start_skew_ns and end_skew_ns how far apart the threads
 * began and ended their loops.
 *
 * Conventions in this file: a "loop" is one write (or read) pass, the
 * read-back, and one madvise.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include "workload.h"
#include "../platform/platform.h"

struct mb_params {
	long threads;
	long loops;
	uint64_t size;
	int vma;	   /* --vma: 0 shared, 1 private */
	int access;	   /* --access: 0 write, 1 read */
	int advice_word;   /* --advice, its index in mb_advices[] */
	bool private_vmas; /* --vma private */
	bool read;	   /* --access read */
	int advice;	   /* FL_MADV_* of --advice, -1 for none */
};

struct mb_shared {
	const struct mb_params *p;
	struct fl_wl_ctx *ctx;
	int error; /* first failure, atomic */
	struct fl_tag_tally tags;
	uint64_t phase_ns[3]; /* atomic: access pass, read-back, madvise; summed */
	/* atomic: the threads' first loop starts and last loop ends, earliest and latest */
	uint64_t first_start, last_start, first_end, last_end;
};

/* *@v = min(*@v, @x) or max, atomically */
static void atomic_min(uint64_t *v, uint64_t x)
{
	uint64_t old = __atomic_load_n(v, __ATOMIC_RELAXED);

	while (x < old &&
	       !__atomic_compare_exchange_n(v, &old, x, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void atomic_max(uint64_t *v, uint64_t x)
{
	uint64_t old = __atomic_load_n(v, __ATOMIC_RELAXED);

	while (x > old &&
	       !__atomic_compare_exchange_n(v, &old, x, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static const char *const mb_vmas[] = { "shared", "private", NULL };
static const char *const mb_accesses[] = { "write", "read", NULL };
static const char *const mb_advices[] = { "dontneed", "free", "cold", "collapse", "none", NULL };

static const struct fl_workload_param_info mb_param_info[] = {
	FL_PARAM_INT("threads", "20", 1, 1024, struct mb_params, threads,
		     "threads of the one process, each on its own CPU"),
	FL_PARAM_INT("loops", "1000", 1, 10000000, struct mb_params, loops,
		     "write + MADV_DONTNEED passes per thread"),
	FL_PARAM_SIZE("size", "16M", 4096, 64ull << 30, 4096, struct mb_params, size,
		      "bytes each thread maps"),
	FL_PARAM_CHOICE("vma", "shared", mb_vmas, struct mb_params, vma,
			"shared: the threads' adjacent mappings merge into one VMA; private: a "
			"gap around each, a VMA per thread"),
	FL_PARAM_CHOICE("access", "write", mb_accesses, struct mb_params, access,
			"write: store a tag per page; read: load (the zero page)"),
	FL_PARAM_CHOICE("advice", "dontneed", mb_advices, struct mb_params, advice_word,
			"the madvise after each pass (collapse: MADV_COLLAPSE)"),
	FL_PARAM_END,
};

static int mb_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	static const int advice_of[] = { FL_MADV_DONTNEED, FL_MADV_FREE, FL_MADV_COLD,
					 FL_MADV_COLLAPSE, -1 };
	struct mb_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_lru_microbench.info, p, err, len);

	p->private_vmas = p->vma == 1;
	p->read = p->access == 1;
	p->advice = advice_of[p->advice_word];
	return ret;
}

static int mb_threads(const void *params)
{
	return (int)((const struct mb_params *)params)->threads;
}

static uint64_t mb_mem_needed(const void *params)
{
	const struct mb_params *p = params;

	return fl__mem_for_mappings(p->threads, p->size);
}

static void mb_thread(struct fl_thread *th, void *arg)
{
	struct mb_shared *sh = arg;
	const struct mb_params *p = sh->p;
	uint64_t addr, phase[3] = { 0 }, t0, t1, t2, t3 = 0, start = 0;
	long i;
	int ret, k;

	ret = p->private_vmas ? fl_mmap_apart(th, p->size, &addr)
			      : fl_mmap(th, p->size, FL_PROT_READ | FL_PROT_WRITE, 0, &addr);
	if (ret) {
		fl__first_error(&sh->error, ret);
		return;
	}
	for (i = 0; i < p->loops; i++) {
		uint64_t tag = ((uint64_t)(th->index + 1) << 52) | ((uint64_t)i << 26);

		t0 = fl_clock_ns();
		if (!i)
			start = t0;
		if (p->read) {
			/* the loads fault in the zero page: every tag reads 0 */
			ret = fl__check_tags(th, addr, p->size, 0, 0, &sh->tags);
			t1 = t2 = fl_clock_ns();
		} else {
			ret = fl_write(th, addr, p->size, 4096, tag, 1);
			t1 = fl_clock_ns();
			if (!ret)
				ret = fl__check_tags(th, addr, p->size, tag, 1, &sh->tags);
			t2 = fl_clock_ns();
		}
		if (!ret && p->advice >= 0)
			ret = fl_madvise(th, addr, p->size, p->advice);
		t3 = fl_clock_ns();
		phase[0] += t1 - t0;
		phase[1] += t2 - t1;
		phase[2] += t3 - t2;
		if (ret)
			break;
		fl_progress(sh->ctx, 1);
	}
	for (k = 0; k < 3; k++)
		__atomic_fetch_add(&sh->phase_ns[k], phase[k], __ATOMIC_RELAXED);
	if (t3) {
		atomic_min(&sh->first_start, start);
		atomic_max(&sh->last_start, start);
		atomic_min(&sh->first_end, t3);
		atomic_max(&sh->last_end, t3);
	}
	if (ret)
		fl__first_error(&sh->error, ret);
	ret = fl_munmap(th, addr, p->size);
	if (ret)
		fl__first_error(&sh->error, ret);
}

static int mb_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct mb_params *p = params;
	struct mb_shared *sh = ctx->target->ops->shared_alloc(ctx->target, sizeof(*sh));
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->p = p;
	sh->ctx = ctx;
	sh->first_start = sh->first_end = UINT64_MAX;

	ctx->progress_total = (uint64_t)p->threads * (uint64_t)p->loops;
	ret = fl__run_procs(ctx, (int)p->threads, 1, mb_thread, sh);
	if (!ret)
		ret = sh->error;
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	fl__add_metric(ctx->res, "writes", "pages",
		       (double)p->threads * (double)p->loops * (double)(p->size / 4096));
	fl__add_metric(ctx->res, "loops", "", (double)p->threads * (double)p->loops);
	fl__add_metric(ctx->res, "access_ns", "ns", (double)sh->phase_ns[0]);
	fl__add_metric(ctx->res, "check_ns", "ns", (double)sh->phase_ns[1]);
	fl__add_metric(ctx->res, "advice_ns", "ns", (double)sh->phase_ns[2]);
	if (sh->last_end) {
		/* the loops' span: the run's time outside it is start-up and teardown */
		fl__add_metric(ctx->res, "span_ns", "ns", (double)(sh->last_end - sh->first_start));
		fl__add_metric(ctx->res, "start_skew_ns", "ns",
			       (double)(sh->last_start - sh->first_start));
		fl__add_metric(ctx->res, "end_skew_ns", "ns",
			       (double)(sh->last_end - sh->first_end));
	}
	return ret;
}

const struct fl_workload fl__wl_lru_microbench = {
	.info =
		{
			.name = "lru-microbench",
			.summary = "the seed's LRU microbenchmark: threads write one byte per 4 "
				   "KiB, then MADV_DONTNEED, in a loop",
			.params = mb_param_info,
		},
	.params_size = sizeof(struct mb_params),
	.parse = mb_parse,
	.nr_threads = mb_threads,
	.mem_needed = mb_mem_needed,
	.run = mb_run,
};
