// SPDX-License-Identifier: GPL-2.0-only
/*
 * lazyfree.c - what reclaim does with MADV_FREE memory (seed 003's
 * premise): one task maps --size bytes at a 2 MiB boundary and writes a
 * tag to every page (folios of the --mthp size), MADV_FREEs all of it,
 * writes the first --redirty percent of the pages again with new tags,
 * then presses the memory: --press pageout MADV_PAGEOUTs the whole
 * mapping (reclaim_pages(), the path the host takes without memory
 * pressure); --press memcg asks the run's memory cgroup to reclaim --size
 * bytes (memory.reclaim: the LRU scan, which needs two looks at a page
 * used since it was last looked at, and counts pgscan/pgsteal in
 * memory.stat). A folio still clean is dropped without swap (pglazyfreed); a
 * folio written again since the advice is anon again (PG_swapbacked) and
 * is activated, not freed, in this pass. The pages read back: the
 * written ones hold their new tags, the dropped ones read as fresh memory
 * (0). --rounds times over fresh memory.
 *
 * Counting windows in the last round: "free" around the MADV_FREE,
 * "press" around the pageout, "read" around the read-back. free_us and
 * press_us are medians over the rounds.
 *
 * Conventions in this file: sizes are bytes; a folio written again in
 * part counts as written (the kernel decides per folio).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "workload.h"
#include "../platform/platform.h"

#define PMD_BYTES (2ull << 20)
#define MAX_ROUNDS 1000

struct lf_params {
	uint64_t size;
	long redirty; /* percent */
	long rounds;
	int press; /* 0 pageout, 1 memcg */
};

static const char *const lf_presses[] = { "pageout", "memcg", NULL };

static const struct fl_workload_param_info lf_param_info[] = {
	FL_PARAM_SIZE("size", "64M", 4096, 64ull << 30, 4096, struct lf_params, size,
		      "bytes mapped, freed and pressed each round"),
	FL_PARAM_INT("redirty", "50", 0, 100, struct lf_params, redirty,
		     "percent of the pages written again after MADV_FREE, from the start"),
	FL_PARAM_CHOICE("press", "pageout", lf_presses, struct lf_params, press,
			"how the memory is pressed: pageout (MADV_PAGEOUT of the whole "
			"mapping) or memcg (the run's memory cgroup asked to reclaim --size "
			"bytes: memory.reclaim)"),
	FL_PARAM_INT("rounds", "3", 1, MAX_ROUNDS, struct lf_params, rounds,
		     "rounds, each of fresh memory"),
	FL_PARAM_END,
};

static int lf_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	return fl__params_parse(cfg, &fl__wl_lazyfree.info, params, err, len);
}

static bool lf_needs_memcg(const void *params)
{
	return ((const struct lf_params *)params)->press == 1;
}

static uint64_t lf_mem_needed(const void *params)
{
	return fl__mem_for_mappings(1, ((const struct lf_params *)params)->size + 2 * PMD_BYTES);
}

struct lf_task {
	struct fl_timed_rounds tr; /* ns[0]: free, ns[1]: press */
	const struct lf_params *p;
};

/* Bracket one step of the last round in a counting window called @name. */
static int lf_step(struct lf_task *t, bool last, const char *name, uint64_t *ns,
		   int (*step)(struct fl_thread *, struct lf_task *, uint64_t, uint64_t),
		   struct fl_thread *th, uint64_t addr, uint64_t tag)
{
	uint64_t t0;
	int ret = last ? fl__window_begin(t->tr.ctx) : 0;

	if (ret)
		return ret;
	t0 = fl_clock_ns();
	ret = step(th, t, addr, tag);
	if (ns)
		*ns = fl_clock_ns() - t0;
	if (last) {
		if (ret)
			fl__window_discard(t->tr.ctx);
		else
			ret = fl__window_end(t->tr.ctx, name);
	}
	return ret;
}

static int step_free(struct fl_thread *th, struct lf_task *t, uint64_t addr, uint64_t tag)
{
	(void)tag;
	return fl_madvise(th, addr, t->p->size, FL_MADV_FREE);
}

static int step_press(struct fl_thread *th, struct lf_task *t, uint64_t addr, uint64_t tag)
{
	char err[256];
	int ret;

	(void)tag;
	if (t->p->press != 1)
		return fl_madvise(th, addr, t->p->size, FL_MADV_PAGEOUT);
	ret = fl_memcg_reclaim(th, t->p->size, err, sizeof(err));
	if (ret)
		snprintf(t->tr.ctx->why, sizeof(t->tr.ctx->why), "%s", err);
	return ret;
}

/* The written part reads its new tags, the rest 0 (dropped, or never written again). */
static int step_read(struct fl_thread *th, struct lf_task *t, uint64_t addr, uint64_t tag)
{
	uint64_t dirty = t->p->size / 4096 * (uint64_t)t->p->redirty / 100 * 4096;
	int ret = dirty ? fl__check_tags(th, addr, dirty, tag, 1, &t->tr.tags) : 0;

	if (!ret && dirty < t->p->size)
		ret = fl__check_tags(th, addr + dirty, t->p->size - dirty, 0, 0, &t->tr.tags);
	return ret;
}

static int lf_round(struct fl_thread *th, long round, void *arg)
{
	struct lf_task *t = arg;
	const struct lf_params *p = t->p;
	bool last = round == p->rounds - 1;
	uint64_t tag = (uint64_t)(round + 1) << 40, tag2 = tag | (1ull << 39), addr, dirty;
	int ret, ret2;

	dirty = p->size / 4096 * (uint64_t)p->redirty / 100 * 4096;
	ret = fl_mmap_apart(th, p->size, &addr);
	if (ret)
		return ret;
	ret = fl_write(th, addr, p->size, 4096, tag, 1);
	if (!ret)
		ret = lf_step(t, last, "free", &t->tr.ns[0][round], step_free, th, addr, 0);
	if (!ret && dirty)
		ret = fl_write(th, addr, dirty, 4096, tag2, 1);
	if (!ret)
		ret = lf_step(t, last, "press", &t->tr.ns[1][round], step_press, th, addr, 0);
	if (!ret)
		ret = lf_step(t, last, "read", NULL, step_read, th, addr, tag2);
	ret2 = fl_munmap(th, addr, p->size);
	return ret ? ret : ret2;
}

static int lf_run(struct fl_wl_ctx *ctx, const void *params)
{
	static const char *const names[2] = { "free_us", "press_us" };
	const struct lf_params *p = params;
	struct lf_task t = { .p = p };

	return fl__run_timed_rounds(ctx, p->rounds, &t.tr, names, p->size / 4096, lf_round, &t);
}

const struct fl_workload fl__wl_lazyfree = {
	.info =
		{
			.name = "lazyfree",
			.summary = "map and write anon memory, MADV_FREE it, write a share again, "
				   "press it (MADV_PAGEOUT): clean folios dropped, written ones kept",
			.params = lf_param_info,
		},
	.params_size = sizeof(struct lf_params),
	.parse = lf_parse,
	.mem_needed = lf_mem_needed,
	.run = lf_run,
	.needs_memcg = lf_needs_memcg,
};
