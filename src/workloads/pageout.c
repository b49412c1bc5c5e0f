// SPDX-License-Identifier: GPL-2.0-only
/*
 * pageout.c - MADV_PAGEOUT of anon memory, then reading it back: one
 * task maps --size bytes at a 2 MiB boundary, writes a tag to every page
 * (each fault allocates a folio of the --mthp size the knobs allow),
 * MADV_PAGEOUTs the whole mapping and reads every page back, --rounds
 * times over fresh memory.
 *
 * With swap (--swap zram:SIZE) each folio goes out whole when its order
 * finds slots (swpout per size, pswpout per page) and comes back through
 * do_swap_page(), as large as the knobs allow at swap-in (swpin per size,
 * pgmajfault per fault, pswpin per page). Without swap, reclaim splits
 * every large folio (swpout_fallback) and activates the pieces; nothing
 * leaves memory. Tags must read back either way.
 *
 * Two counting windows in the last round: "pageout" around the advice,
 * "swapin" around the read-back. pageout_us and swapin_us are medians
 * over the rounds.
 *
 * Conventions in this file: sizes are bytes; a "round" is map, write,
 * page out (timed), read back (timed), unmap.
 */
#include <errno.h>
#include <stdlib.h>
#include "workload.h"
#include "../platform/platform.h"

#define PMD_BYTES (2ull << 20)
#define MAX_ROUNDS 1000

struct po_params {
	uint64_t size;
	long rounds;
};

static const struct fl_workload_param_info po_param_info[] = {
	FL_PARAM_SIZE("size", "64M", 4096, 64ull << 30, 4096, struct po_params, size,
		      "bytes mapped, paged out and read back each round"),
	FL_PARAM_INT("rounds", "3", 1, MAX_ROUNDS, struct po_params, rounds,
		     "rounds, each of fresh memory"),
	FL_PARAM_END,
};

static int po_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	return fl__params_parse(cfg, &fl__wl_pageout.info, params, err, len);
}

static uint64_t po_mem_needed(const void *params)
{
	return fl__mem_for_mappings(1, ((const struct po_params *)params)->size + 2 * PMD_BYTES);
}

struct po_task {
	struct fl_timed_rounds tr; /* ns[0]: pageout, ns[1]: swap-in */
	const struct po_params *p;
};

static int po_round(struct fl_thread *th, long round, void *arg)
{
	struct po_task *t = arg;
	const struct po_params *p = t->p;
	struct fl_wl_ctx *ctx = t->tr.ctx;
	bool last = round == p->rounds - 1;
	uint64_t tag = (uint64_t)(round + 1) << 40, addr, t0;
	int ret, ret2;

	ret = fl_mmap_apart(th, p->size, &addr);
	if (ret)
		return ret;
	ret = fl_write(th, addr, p->size, 4096, tag, 1);
	if (!ret && last)
		ret = fl__window_begin(ctx);
	if (ret)
		goto unmap;
	t0 = fl_clock_ns();
	ret = fl_madvise(th, addr, p->size, FL_MADV_PAGEOUT);
	t->tr.ns[0][round] = fl_clock_ns() - t0;
	if (ret) {
		if (last)
			fl__window_discard(ctx);
		goto unmap;
	}
	if (last)
		ret = fl__window_end(ctx, "pageout");
	if (!ret && last)
		ret = fl__window_begin(ctx);
	if (ret)
		goto unmap;
	t0 = fl_clock_ns();
	ret = fl__check_tags(th, addr, p->size, tag, 1, &t->tr.tags);
	t->tr.ns[1][round] = fl_clock_ns() - t0;
	if (last) {
		if (ret)
			fl__window_discard(ctx);
		else
			ret = fl__window_end(ctx, "swapin");
	}
unmap:
	ret2 = fl_munmap(th, addr, p->size);
	return ret ? ret : ret2;
}

static int po_run(struct fl_wl_ctx *ctx, const void *params)
{
	static const char *const names[2] = { "pageout_us", "swapin_us" };
	const struct po_params *p = params;
	struct po_task t = { .p = p };

	return fl__run_timed_rounds(ctx, p->rounds, &t.tr, names, p->size / 4096, po_round, &t);
}

const struct fl_workload fl__wl_pageout = {
	.info =
		{
			.name = "pageout",
			.summary = "map and write anon memory, MADV_PAGEOUT it (to swap with "
				   "--swap zram:SIZE), read it back; tags checked",
			.params = po_param_info,
		},
	.params_size = sizeof(struct po_params),
	.parse = po_parse,
	.mem_needed = po_mem_needed,
	.run = po_run,
};
