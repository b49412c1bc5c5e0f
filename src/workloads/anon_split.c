// SPDX-License-Identifier: GPL-2.0-only
/*
 * anon_split.c - split mapped anonymous large folios through
 * split_huge_pages' pid form: one task maps --size bytes at a 2 MiB
 * boundary (with unmapped space either side, so the mapping is a VMA of
 * its own), writes a tag to every page (each fault allocates a folio of
 * the --mthp size the knobs allow), then writes "<pid>,<start>,<end>,
 * <new-order>[,<in-folio-offset>]" for the whole mapping, --rounds times
 * over fresh memory. The split is a counting window of its own: its effect
 * on every counter is "split:<counter>" in the result, and its time is
 * split_us (median over the rounds).
 *
 * --in-folio-offset N asks for a non-uniform split at page N of every
 * folio (pieces of halving orders around that page, the one holding it at
 * --new-order); -1, the default, a uniform split to --new-order.
 *
 * Every page's tag is read back after the split (a split may map
 * zero-filled order-0 pieces to the zero page, which a tag never is, so
 * every page must read back its own tag). A host in lockdown refuses the
 * debugfs write: the run then fails with the kernel's reason.
 *
 * Conventions in this file: sizes are bytes; a "round" is map, write,
 * split (timed), read back, unmap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload.h"
#include "../platform/platform.h"

#define PMD_BYTES (2ull << 20)
#define MAX_ROUNDS 1000

struct as_params {
	uint64_t size;
	long new_order;
	long in_folio_offset;
	long rounds;
};

static const struct fl_workload_param_info as_param_info[] = {
	FL_PARAM_SIZE("size", "64M", 4096, 64ull << 30, 4096, struct as_params, size,
		      "bytes mapped and split each round"),
	FL_PARAM_INT("new-order", "0", 0, 8, struct as_params, new_order,
		     "the order the folios are split to"),
	FL_PARAM_INT("in-folio-offset", "-1", -1, 511, struct as_params, in_folio_offset,
		     "-1: a uniform split; N: a non-uniform split at page N of each folio"),
	FL_PARAM_INT("rounds", "5", 1, MAX_ROUNDS, struct as_params, rounds,
		     "splits, each of fresh memory"),
	FL_PARAM_END,
};

static int as_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	return fl__params_parse(cfg, &fl__wl_anon_split.info, params, err, len);
}

static uint64_t as_mem_needed(const void *params)
{
	return fl__mem_for_mappings(1, ((const struct as_params *)params)->size + 2 * PMD_BYTES);
}

struct as_task {
	struct fl_wl_ctx *ctx;
	const struct as_params *p;
	struct fl_tag_tally tags;
	uint64_t ns[MAX_ROUNDS];
};

static int as_round(struct fl_thread *th, long round, void *arg)
{
	struct as_task *t = arg;
	const struct as_params *p = t->p;
	struct fl_wl_ctx *ctx = t->ctx;
	uint64_t tag = (uint64_t)(round + 1) << 40, addr, t0;
	char err[sizeof(ctx->why)];
	int ret, ret2;

	ret = fl_mmap_apart(th, p->size, &addr);
	if (ret)
		return ret;
	ret = fl_write(th, addr, p->size, 4096, tag, 1);
	if (!ret && round == p->rounds - 1)
		ret = fl__window_begin(ctx);
	if (ret)
		goto unmap;
	t0 = fl_clock_ns();
	ret = fl_split_huge_pages_range(th, addr, p->size, (int)p->new_order, p->in_folio_offset,
					err, sizeof(err));
	t->ns[round] = fl_clock_ns() - t0;
	if (ret) {
		snprintf(ctx->why, sizeof(ctx->why), "%s", err);
		goto unmap;
	}
	if (round == p->rounds - 1)
		ret = fl__window_end(ctx, "split");
	if (!ret)
		ret = fl__check_tags(th, addr, p->size, tag, 1, &t->tags);
unmap:
	ret2 = fl_munmap(th, addr, p->size);
	return ret ? ret : ret2;
}

static int as_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct as_params *p = params;
	struct as_task *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->p = p;
	ret = fl__run_rounds(ctx, p->rounds, as_round, t);
	ctx->tags_checked = t->tags.checked;
	ctx->tags_wrong = t->tags.wrong;
	if (!ret) {
		fl__add_us_metrics(ctx->res, "split_us", t->ns, p->rounds, true);
		fl__add_metric(ctx->res, "pages", "", (double)(p->size / 4096));
	}
	free(t);
	return ret;
}

const struct fl_workload fl__wl_anon_split = {
	.info =
		{
			.name = "anon-split",
			.summary = "map and write anon memory, then split its large folios "
				   "(split_huge_pages pid form); tags read back",
			.params = as_param_info,
		},
	.host_root = "splits through /sys/kernel/debug/split_huge_pages",
	.params_size = sizeof(struct as_params),
	.parse = as_parse,
	.mem_needed = as_mem_needed,
	.run = as_run,
};
