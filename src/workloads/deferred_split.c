// SPDX-License-Identifier: GPL-2.0-only
/*
 * deferred_split.c - the deferred split queue and its shrinker: --threads
 * threads of one process each map --size bytes (a VMA each) and write a
 * tag to every page, so each fault allocates a folio of the --mthp size;
 * then each thread MADV_DONTNEEDs the first 4 KiB of every folio
 * (--advise-pages: that many pages from each folio's start), which
 * leaves the folio partially mapped: 6.18 queues it on the deferred split
 * queue (thp_deferred_split_page, split_deferred). Then one task runs the
 * thp-deferred_split shrinker, as debugfs's shrinker/ files do: read its
 * count, scan --batch objects on node 0, until the count is 0 (or stops
 * falling). Each scanned folio is split and its unmapped page freed
 * (thp_split_page, split). The threads then read every page back (the
 * advised page reads 0) and unmap. --shrink off leaves the queue to the
 * unmap (what a host that cannot run the shrinker does anyway).
 *
 * Two counting windows: "queue" around the MADV_DONTNEEDs, "scan" around
 * the shrinker (left out where the shrinker could not run). Results:
 * queued (the count after the advice), scans, left (the count at the end).
 * The steps are one set of threads meeting at barriers, so the host's
 * thread start-up is paid once.
 *
 * The folio size is the largest one --mthp sets to always (the advice
 * strides by it). A host in lockdown lets the count be read but refuses
 * the scan, and a kernel built without CONFIG_SHRINKER_DEBUG has no
 * shrinker files at all: the run then says so in its note (never
 * silently), and the folios stay queued until the unmap frees them;
 * compare with --shrink off then holds the rest of the run against the
 * model. --shrink drop-caches writes 2 to /proc/sys/vm/drop_caches
 * instead (every shrinker to the end, as drop_slab() runs them; no debugfs
 * needed; on the host it also drops the machine's dentries and inodes,
 * so a first drop before the advice, untimed, empties those). shrink_us
 * is the time the shrinking took.
 *
 * Conventions in this file: sizes are bytes; "folio" is the --mthp size
 * unit of the mapping, whatever the fault could allocate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "workload.h"
#include "../platform/platform.h"

#define SHRINKER "thp-deferred_split"
#define MAX_THREADS 1024

struct ds_params {
	long threads;
	uint64_t size;
	uint64_t folio;	   /* bytes */
	long advise_pages; /* pages of each folio advised away, from its start */
	long batch;
	int shrink_word;  /* --shrink: 0 on, 1 off, 2 drop-caches */
	bool shrink;	  /* --shrink on or drop-caches */
	bool drop_caches; /* --shrink drop-caches */
};

/* All threads wait here for each other (a spin-and-yield barrier in shared memory). */
struct ds_barrier {
	unsigned int arrived; /* atomic */
	unsigned int round;   /* atomic */
};

struct ds_shared {
	const struct ds_params *p;
	struct fl_wl_ctx *ctx;
	uint64_t addr[MAX_THREADS];
	struct ds_barrier barrier;
	int error; /* atomic */
	struct fl_tag_tally tags;
	/* the shrinker task's results */
	uint64_t queued, left, scans, shrink_ns;
	char note[256];
};

static const char *const ds_shrinks[] = { "on", "off", "drop-caches", NULL };

static const struct fl_workload_param_info ds_param_info[] = {
	FL_PARAM_INT("threads", "2", 1, MAX_THREADS, struct ds_params, threads,
		     "threads of the one process, a mapping each"),
	FL_PARAM_SIZE("size", "16M", 4096, 64ull << 30, 4096, struct ds_params, size,
		      "bytes each thread maps: at least a folio, whole folios"),
	FL_PARAM_INT("advise-pages", "1", 1, 511, struct ds_params, advise_pages,
		     "pages MADV_DONTNEEDed at the start of each folio, fewer than the folio's"),
	FL_PARAM_INT("batch", "128", 1, 1000000, struct ds_params, batch,
		     "objects per shrinker scan, sc->nr_to_scan"),
	FL_PARAM_CHOICE("shrink", "on", ds_shrinks, struct ds_params, shrink_word,
			"on: run the shrinker until the queue is empty; drop-caches: write 2 to "
			"/proc/sys/vm/drop_caches (every shrinker to the end; no debugfs "
			"needed); off: leave the queue to the unmap"),
	FL_PARAM_END,
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
	ret = fl__params_parse(cfg, wi, p, err, len);
	/* the bounds the folio size sets */
	if (!ret)
		ret = fl__param_size(cfg, wi, "size", p->folio, 64ull << 30, p->folio, &p->size,
				     err, len);
	if (!ret)
		ret = fl__param_int(cfg, wi, "advise-pages", 1, (long)(p->folio / 4096) - 1,
				    &p->advise_pages, err, len);
	p->shrink = p->shrink_word != 1;
	p->drop_caches = p->shrink_word == 2;
	if (!ret)
		ret = fl__param_only_with(cfg, "batch", p->shrink_word == 0, "--shrink on", err,
					  len);
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

static void barrier_wait(struct ds_barrier *b, unsigned int n)
{
	unsigned int round = __atomic_load_n(&b->round, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == n) {
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->round, round + 1, __ATOMIC_RELEASE);
		return;
	}
	/* fl_yield(): on virtual CPUs a wait must let the others' time pass */
	while (__atomic_load_n(&b->round, __ATOMIC_ACQUIRE) == round)
		fl_yield();
}

static bool failed(struct ds_shared *sh)
{
	return __atomic_load_n(&sh->error, __ATOMIC_RELAXED) != 0;
}

/* Map and write. */
static void ds_fill(struct fl_thread *th, struct ds_shared *sh)
{
	int ret = fl_mmap_apart(th, sh->p->size, &sh->addr[th->index]);

	if (!ret)
		ret = fl_write(th, sh->addr[th->index], sh->p->size, 4096, tag_of(th->index), 1);
	if (ret) {
		sh->addr[th->index] = 0;
		fl__first_error(&sh->error, ret);
	}
}

/* MADV_DONTNEED the first --advise-pages pages of every folio. */
static void ds_advise(struct fl_thread *th, struct ds_shared *sh)
{
	uint64_t off;
	int ret = 0;

	for (off = 0; off < sh->p->size && !ret; off += sh->p->folio)
		ret = fl_madvise(th, sh->addr[th->index] + off,
				 (uint64_t)sh->p->advise_pages * 4096, FL_MADV_DONTNEED);
	if (ret)
		fl__first_error(&sh->error, ret);
}

/*
 * Scan until the queue is empty, or three scans in a row leave it as it
 * was. Return: true if the shrinker could be run (the scan window
 * counts), false if the target has no such shrinker or refused it (the
 * note says which).
 */
static bool ds_shrink(struct fl_thread *th, struct ds_shared *sh)
{
	static const char hint[] = "; compare with --shrink off to hold the rest";
	char err[160];
	uint64_t count, before;
	int ret, stuck = 0;

	ret = fl_shrinker_count(th, SHRINKER, &count, err, sizeof(err));
	if (ret) {
		snprintf(sh->note, sizeof(sh->note), "shrinker not run: %s%s", err, hint);
		return false;
	}
	sh->queued = count;
	while (count && stuck < 3) {
		before = count;
		ret = fl_shrinker_scan(th, SHRINKER, 0, (uint64_t)sh->p->batch, err, sizeof(err));
		if (ret) {
			/* lockdown: the queue stays for the unmap; said, not skipped */
			snprintf(sh->note, sizeof(sh->note), "shrinker scan not run: %s%s", err,
				 hint);
			return sh->scans > 0;
		}
		sh->scans++;
		ret = fl_shrinker_count(th, SHRINKER, &count, err, sizeof(err));
		if (ret) {
			snprintf(sh->note, sizeof(sh->note), "shrinker count: %s", err);
			return true;
		}
		stuck = count < before ? 0 : stuck + 1;
	}
	sh->left = count;
	if (count)
		snprintf(sh->note, sizeof(sh->note),
			 "%llu objects stayed queued after three scans that freed none",
			 (unsigned long long)count);
	return true;
}

/*
 * "echo 2 > /proc/sys/vm/drop_caches": every shrinker run to the end, the
 * deferred split queue's among them. Return: true if it ran.
 */
static bool ds_drop_caches(struct fl_thread *th, struct ds_shared *sh)
{
	char err[160];

	if (fl_drop_slab(th, err, sizeof(err))) {
		snprintf(sh->note, sizeof(sh->note), "drop_caches not run: %s", err);
		return false;
	}
	sh->scans = 1;
	return true;
}

/* Read every page back (the advised first page of each folio reads 0), then unmap. */
static void ds_check(struct fl_thread *th, struct ds_shared *sh)
{
	enum { CHUNK = 512 };
	const struct ds_params *p = sh->p;
	uint64_t got[CHUNK], page, i, addr = sh->addr[th->index], wrong = 0, checked = 0;
	uint64_t pages = p->size / 4096, per_folio = p->folio / 4096;
	int ret = 0;

	if (!addr)
		return;
	for (page = 0; page < pages && !ret; page += CHUNK) {
		uint64_t n = pages - page < CHUNK ? pages - page : CHUNK;

		ret = fl_read(th, addr + page * 4096, n * 4096, 4096, got, NULL);
		for (i = 0; i < n && !ret; i++) {
			uint64_t pg = page + i;

			wrong += got[i] != (pg % per_folio >= (uint64_t)p->advise_pages
						    ? tag_of(th->index) + pg
						    : 0);
			checked++;
		}
	}
	__atomic_fetch_add(&sh->tags.checked, checked, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->tags.wrong, wrong, __ATOMIC_RELAXED);
	if (fl_munmap(th, addr, p->size) && !ret)
		ret = -EFAULT;
	if (ret)
		fl__first_error(&sh->error, ret);
}

/*
 * Every thread: map and write; advise; (thread 0 alone: the shrinker);
 * read back and unmap, the threads meeting at a barrier between steps.
 * One set of threads for the whole run: the host's thread start-up
 * (stacks, TLS) is counted once, not per step.
 */
static void ds_thread(struct fl_thread *th, void *arg)
{
	struct ds_shared *sh = arg;
	struct fl_wl_ctx *ctx = sh->ctx;
	unsigned int n = (unsigned int)sh->p->threads;
	int ret;

	ds_fill(th, sh);
	barrier_wait(&sh->barrier, n);
	/*
	 * --shrink drop-caches: a first, untimed drop empties the machine's
	 * other caches (dentries, inodes), so that the timed one is mostly
	 * the queue's splits
	 */
	if (th->index == 0 && sh->p->drop_caches && !failed(sh)) {
		char err[160];

		if (fl_drop_slab(th, err, sizeof(err)))
			snprintf(sh->note, sizeof(sh->note), "drop_caches not run: %s", err);
	}
	barrier_wait(&sh->barrier, n);
	if (th->index == 0 && !failed(sh) && (ret = fl__window_begin(ctx)))
		fl__first_error(&sh->error, ret);
	fl_progress(ctx, th->index == 0);
	barrier_wait(&sh->barrier, n);
	if (!failed(sh))
		ds_advise(th, sh);
	barrier_wait(&sh->barrier, n);
	if (th->index == 0 && !failed(sh)) {
		ret = fl__window_end(ctx, "queue");
		if (!ret && sh->p->shrink)
			ret = fl__window_begin(ctx);
		if (!ret && sh->p->shrink) {
			uint64_t t0 = fl_clock_ns();
			bool ran = sh->p->drop_caches ? ds_drop_caches(th, sh) : ds_shrink(th, sh);

			sh->shrink_ns = ran ? fl_clock_ns() - t0 : 0;
			if (ran)
				ret = fl__window_end(ctx, "scan");
			else
				fl__window_discard(ctx);
		}
		if (ret)
			fl__first_error(&sh->error, ret);
		fl_progress(ctx, 2);
	}
	barrier_wait(&sh->barrier, n);
	ds_check(th, sh);
	fl_progress(ctx, th->index == 0);
}

static int ds_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct ds_params *p = params;
	struct ds_shared *sh = ctx->target->ops->shared_alloc(ctx->target, sizeof(*sh));
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->p = p;
	sh->ctx = ctx;
	ctx->progress_total = 4;
	ret = fl__run_procs(ctx, (int)p->threads, 1, ds_thread, sh);
	ret = ret ? ret : sh->error;
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	snprintf(ctx->res->note, sizeof(ctx->res->note), "%s", sh->note);
	fl__add_metric(ctx->res, "folios", "", (double)p->threads * (double)(p->size / p->folio));
	fl__add_metric(ctx->res, "queued", "", (double)sh->queued);
	fl__add_metric(ctx->res, "scans", "", (double)sh->scans);
	fl__add_metric(ctx->res, "left", "", (double)sh->left);
	if (p->shrink)
		fl__add_metric(ctx->res, "shrink_us", "us", (double)sh->shrink_ns / 1000.0);
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
