// SPDX-License-Identifier: GPL-2.0-only
/*
 * deferred_split.c - the deferred split queue and its shrinker: --threads
 * threads of one process each map --size bytes (a VMA each) and write a
 * tag to every page, so each fault allocates a folio of the --mthp size;
 * then each thread MADV_DONTNEEDs the first 4 KiB of every folio, which
 * leaves the folio partially mapped: 6.18 queues it on the deferred split
 * queue (thp_deferred_split_page, split_deferred). Then one task runs the
 * thp-deferred_split shrinker, as debugfs's shrinker/ files do: read its
 * count, scan --batch objects on node 0, until the count is 0 (or stops
 * falling). Each scanned folio is split and its unmapped page freed
 * (thp_split_page, split). The threads then read every page back (the
 * advised page reads 0) and unmap.
 *
 * Two counting windows: "queue" around the MADV_DONTNEEDs, "scan" around
 * the shrinker. Results: queued (the count after the advice), scans, left
 * (the count at the end).
 *
 * The folio size is the largest one --mthp sets to always (the advice
 * strides by it). A host in lockdown lets the count be read but refuses
 * the scan, and a kernel built without CONFIG_SHRINKER_DEBUG has no
 * shrinker files at all: the run then says so in its note (never
 * silently), and the folios stay queued until the unmap frees them.
 *
 * Conventions in this file: sizes are bytes; "folio" is the --mthp size
 * unit of the mapping, whatever the fault could allocate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "workload.h"

#define SHRINKER "thp-deferred_split"
#define MAX_THREADS 1024

struct ds_params {
	long threads;
	uint64_t size;
	uint64_t folio; /* bytes */
	long batch;
};

struct ds_shared {
	const struct ds_params *p;
	struct fl_wl_ctx *ctx;
	uint64_t addr[MAX_THREADS];
	int error; /* atomic */
	struct fl_tag_tally tags;
	/* the shrinker task's results */
	uint64_t queued, left, scans;
	char note[200];
};

static const struct fl_workload_param_info ds_param_info[] = {
	{ "threads", "2", "threads of the one process, a mapping each (1..1024)" },
	{ "size", "16M", "bytes each thread maps (a multiple of the folio size, up to 64G)" },
	{ "batch", "128", "objects per shrinker scan, sc->nr_to_scan (1..1000000)" },
	{ NULL, NULL, NULL },
};

static int ds_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	const struct fl_workload_info *wi = &fl__wl_deferred_split.info;
	struct ds_params *p = params;
	unsigned long kb = fl__mthp_always_kb(cfg);
	int ret;

	if (!kb) {
		snprintf(err, len,
			 "deferred-split needs a large folio size: give --mthp SIZE=always "
			 "(16K..2M)");
		return -EINVAL;
	}
	p->folio = (uint64_t)kb << 10;
	ret = fl__param_int(cfg, wi, "threads", 1, MAX_THREADS, &p->threads, err, len);
	if (!ret)
		ret = fl__param_size(cfg, wi, "size", p->folio, 64ull << 30, p->folio, &p->size,
				     err, len);
	if (!ret)
		ret = fl__param_int(cfg, wi, "batch", 1, 1000000, &p->batch, err, len);
	return ret;
}

static int ds_threads(const void *params)
{
	return (int)((const struct ds_params *)params)->threads;
}

static uint64_t ds_mem_needed(const void *params)
{
	const struct ds_params *p = params;

	return fl__mem_for_mappings(p->threads, p->size + (4ull << 20));
}

static uint64_t tag_of(int thread)
{
	return (uint64_t)(thread + 1) << 44;
}

/* Map and write. */
static void ds_fill(struct fl_thread *th, void *arg)
{
	struct ds_shared *sh = arg;
	int ret = fl_mmap_apart(th, sh->p->size, &sh->addr[th->index]);

	if (!ret)
		ret = fl_write(th, sh->addr[th->index], sh->p->size, 4096, tag_of(th->index), 1);
	if (ret)
		fl__first_error(&sh->error, ret);
}

/* MADV_DONTNEED the first page of every folio. */
static void ds_advise(struct fl_thread *th, void *arg)
{
	struct ds_shared *sh = arg;
	uint64_t off;
	int ret = 0;

	for (off = 0; off < sh->p->size && !ret; off += sh->p->folio)
		ret = fl_madvise(th, sh->addr[th->index] + off, 4096, FL_MADV_DONTNEED);
	if (ret)
		fl__first_error(&sh->error, ret);
}

/* Scan until the queue is empty, or three scans in a row leave it as it was. */
static void ds_shrink(struct fl_thread *th, void *arg)
{
	struct ds_shared *sh = arg;
	char err[sizeof(sh->note) - 40];
	uint64_t count, before;
	int ret, stuck = 0;

	/* a target without the shrinker's files: said in the note, the run goes on */
	ret = fl_shrinker_count(th, SHRINKER, &count, err, sizeof(err));
	if (ret) {
		snprintf(sh->note, sizeof(sh->note), "shrinker not run: %s", err);
		return;
	}
	sh->queued = count;
	while (count && stuck < 3) {
		before = count;
		ret = fl_shrinker_scan(th, SHRINKER, 0, (uint64_t)sh->p->batch, err, sizeof(err));
		if (ret) {
			/* lockdown: the queue stays for the unmap; said, not skipped */
			snprintf(sh->note, sizeof(sh->note), "shrinker scan not run: %s", err);
			break;
		}
		sh->scans++;
		ret = fl_shrinker_count(th, SHRINKER, &count, err, sizeof(err));
		if (ret) {
			snprintf(sh->note, sizeof(sh->note), "shrinker count: %s", err);
			return;
		}
		stuck = count < before ? 0 : stuck + 1;
	}
	sh->left = count;
	if (count && !sh->note[0])
		snprintf(sh->note, sizeof(sh->note),
			 "%llu objects stayed queued after three scans that freed none",
			 (unsigned long long)count);
}

/* Read every page back (the advised first page of each folio reads 0), then unmap. */
static void ds_check(struct fl_thread *th, void *arg)
{
	enum { CHUNK = 512 };
	struct ds_shared *sh = arg;
	const struct ds_params *p = sh->p;
	uint64_t got[CHUNK], page, i, addr = sh->addr[th->index], wrong = 0, checked = 0;
	uint64_t pages = p->size / 4096, per_folio = p->folio / 4096;
	int ret = 0;

	for (page = 0; page < pages && !ret; page += CHUNK) {
		uint64_t n = pages - page < CHUNK ? pages - page : CHUNK;

		ret = fl_read(th, addr + page * 4096, n * 4096, 4096, got, NULL);
		for (i = 0; i < n && !ret; i++) {
			uint64_t pg = page + i;

			wrong += got[i] != (pg % per_folio ? tag_of(th->index) + pg : 0);
			checked++;
		}
	}
	__atomic_fetch_add(&sh->tags.checked, checked, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->tags.wrong, wrong, __ATOMIC_RELAXED);
	if (!ret)
		ret = fl_munmap(th, addr, p->size);
	if (ret)
		fl__first_error(&sh->error, ret);
}

static int ds_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct ds_params *p = params;
	struct ds_shared *sh = ctx->target->ops->shared_alloc(ctx->target, sizeof(*sh));
	struct fl_proc *proc;
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->p = p;
	sh->ctx = ctx;
	ctx->progress_total = 4;
	ret = ctx->target->ops->proc_create(ctx->target, &proc);
	if (ret)
		return ret;
	ret = fl_run_threads(proc, (int)p->threads, ds_fill, sh);
	ret = ret ? ret : sh->error;
	fl_progress(ctx, 1);
	if (!ret)
		ret = fl__window_begin(ctx);
	if (!ret)
		ret = fl_run_threads(proc, (int)p->threads, ds_advise, sh);
	ret = ret ? ret : sh->error;
	if (!ret)
		ret = fl__window_end(ctx, "queue");
	fl_progress(ctx, 1);
	if (!ret)
		ret = fl__window_begin(ctx);
	if (!ret)
		ret = fl_run_threads(proc, 1, ds_shrink, sh);
	ret = ret ? ret : sh->error;
	if (!ret)
		ret = fl__window_end(ctx, "scan");
	fl_progress(ctx, 1);
	if (!ret)
		ret = fl_run_threads(proc, (int)p->threads, ds_check, sh);
	ret = ret ? ret : sh->error;
	fl_progress(ctx, 1);
	ctx->target->ops->proc_exit(proc);
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	snprintf(ctx->res->note, sizeof(ctx->res->note), "%s", sh->note);
	if (ret && sh->note[0])
		snprintf(ctx->why, sizeof(ctx->why), "%s", sh->note);
	fl__add_metric(ctx->res, "folios", "", (double)p->threads * (double)(p->size / p->folio));
	fl__add_metric(ctx->res, "queued", "", (double)sh->queued);
	fl__add_metric(ctx->res, "scans", "", (double)sh->scans);
	fl__add_metric(ctx->res, "left", "", (double)sh->left);
	return ret;
}

const struct fl_workload fl__wl_deferred_split = {
	.info =
		{
			.name = "deferred-split",
			.summary = "partially unmap every mTHP (MADV_DONTNEED of its first 4K), "
				   "then run the deferred split shrinker until its queue is empty",
			.params = ds_param_info,
		},
	.params_size = sizeof(struct ds_params),
	.parse = ds_parse,
	.nr_threads = ds_threads,
	.mem_needed = ds_mem_needed,
	.run = ds_run,
};
