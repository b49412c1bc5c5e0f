// SPDX-License-Identifier: GPL-2.0-only
/*
 * shmem_split.c - seed 002's experiment: a tmpfs mounted size=2x,huge=always,
 * a --file-size file (1 GiB) fallocated as PMD folios, then split, and only
 * the split is timed; --rounds times (12), the median reported (split_us).
 * The last round's split is also a counting window: its effect on every
 * counter is reported as "split:<counter>" (nr_shmem, nr_shmem_hugepages
 * and the rest are back to 0 by the run's end).
 *
 * --method debugfs writes split_huge_pages' path form for the whole file
 * (every PMD folio to --new-order, uniformly: the seed's table), which the
 * model does and a host in lockdown refuses (the run then fails with the
 * kernel's reason). --method punch punches a hole of --punch-len at
 * --punch-offset inside every PMD folio, which 6.18 answers with a
 * non-uniform split at the hole (truncate_inode_partial_folio()); that is
 * the host's way to split without debugfs.
 *
 * Every page is written with a tag before the split and read back after
 * it (a punched page reads 0), so a split that loses or mixes up pages
 * fails the run. `foliolab compare shmem-split --split-walk=forward,reverse`
 * sets the model's publication walk per column.
 *
 * Conventions in this file: sizes are bytes; a "round" is mount, create,
 * fallocate, write, split (timed), read back, unlink, umount.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload.h"
#include "../platform/platform.h"

#define PMD_BYTES (2ull << 20)
#define MAX_ROUNDS 1000

struct ss_params {
	uint64_t file_size;
	long new_order;
	long rounds;
	int method; /* 0 debugfs, 1 punch */
	bool punch;
	uint64_t punch_offset;
	uint64_t punch_len;
};

static const char *const ss_methods[] = { "debugfs", "punch", NULL };

static const struct fl_workload_param_info ss_param_info[] = {
	FL_PARAM_SIZE("file-size", "1G", PMD_BYTES, 64ull << 30, PMD_BYTES, struct ss_params,
		      file_size, "bytes fallocated"),
	FL_PARAM_INT("new-order", "0", 0, 8, struct ss_params, new_order,
		     "the order debugfs splits to"),
	FL_PARAM_INT("rounds", "12", 1, MAX_ROUNDS, struct ss_params, rounds,
		     "timed splits, each of a fresh file"),
	FL_PARAM_CHOICE("method", "debugfs", ss_methods, struct ss_params, method,
			"debugfs: split_huge_pages, uniform; punch: a hole per folio"),
	FL_PARAM_SIZE("punch-offset", "0", 0, PMD_BYTES - 4096, 4096, struct ss_params,
		      punch_offset, "where the hole starts inside each 2 MiB folio"),
	FL_PARAM_SIZE("punch-len", "4K", 4096, PMD_BYTES, 4096, struct ss_params, punch_len,
		      "the hole's length, inside the folio"),
	FL_PARAM_END,
};

static int ss_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct ss_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_shmem_split.info, p, err, len);

	if (!ret && p->punch_offset + p->punch_len > PMD_BYTES) {
		snprintf(err, len,
			 "--punch-offset %llu + --punch-len %llu: the hole must lie inside a "
			 "2 MiB folio (their sum at most 2M)",
			 (unsigned long long)p->punch_offset, (unsigned long long)p->punch_len);
		ret = -EINVAL;
	}
	p->punch = p->method == 1;
	if (!ret)
		ret = fl__param_only_with(cfg, "punch-offset", p->punch, "--method punch", err,
					  len);
	if (!ret)
		ret = fl__param_only_with(cfg, "punch-len", p->punch, "--method punch", err, len);
	if (!ret)
		ret = fl__param_only_with(cfg, "new-order", !p->punch,
					  "--method debugfs (a punched hole splits as the kernel "
					  "chooses)",
					  err, len);
	return ret;
}

static uint64_t ss_mem_needed(const void *params)
{
	return ((const struct ss_params *)params)->file_size + (64ull << 20);
}

/* Read every page back: @tag + i, except the hole of each folio (0) after a punch. */
static int check_tags(struct fl_thread *th, struct fl_file *f, const struct ss_params *p,
		      uint64_t tag, struct fl_wl_ctx *ctx)
{
	enum { CHUNK = 512 };
	uint64_t got[CHUNK];
	uint64_t page, pages = p->file_size / 4096, i;
	uint64_t hole = p->punch_offset / 4096, hole_end = hole + p->punch_len / 4096;

	for (page = 0; page < pages; page += CHUNK) {
		uint64_t n = pages - page < CHUNK ? pages - page : CHUNK;
		int ret = fl_pread_tags(th, f, page * 4096, n * 4096, got, NULL);

		if (ret < 0)
			return ret;
		if ((uint64_t)ret != n)
			return -EIO; /* the file is shorter than it was made */
		for (i = 0; i < n; i++) {
			uint64_t in_folio = (page + i) % (PMD_BYTES / 4096);
			bool punched = p->punch && in_folio >= hole && in_folio < hole_end;

			ctx->tags_checked++;
			ctx->tags_wrong += got[i] != (punched ? 0 : tag + page + i);
		}
	}
	return 0;
}

/* One round; the split's nanoseconds in *@ns. */
static int ss_round(struct fl_wl_ctx *ctx, struct fl_thread *th, const struct ss_params *p,
		    long round, uint64_t *ns)
{
	char opts[64], err[sizeof(((struct fl_wl_ctx *)0)->why)];
	struct fl_tmpfs *m;
	struct fl_file *f;
	uint64_t tag = (uint64_t)(round + 1) << 40, t0, off;
	int ret, ret2;

	snprintf(opts, sizeof(opts), "size=%lluk,huge=always",
		 (unsigned long long)(2 * p->file_size / 1024));
	ret = fl_tmpfs_mount(th, opts, &m, err, sizeof(err));
	if (ret) {
		snprintf(ctx->why, sizeof(ctx->why), "%s", err);
		return ret;
	}
	ret = fl_file_create(th, m, "big", &f);
	if (ret)
		goto umount;
	ret = fl_fallocate(th, f, 0, 0, p->file_size);
	if (!ret)
		ret = fl_pwrite_tags(th, f, 0, p->file_size, tag, 1);
	if (ret)
		goto close;
	/* the last round's split is a window of its own: what it does to the counters */
	if (round == p->rounds - 1)
		ret = fl__window_begin(ctx);
	t0 = fl_clock_ns();
	if (ret) {
		goto close;
	} else if (p->punch) {
		for (off = 0; off < p->file_size && !ret; off += PMD_BYTES)
			ret = fl_fallocate(th, f, FL_FALLOC_PUNCH_HOLE | FL_FALLOC_KEEP_SIZE,
					   off + p->punch_offset, p->punch_len);
	} else {
		ret = fl_split_huge_pages_file(th, f, 0, p->file_size / 4096, (int)p->new_order, -1,
					       err, sizeof(err));
		if (ret)
			snprintf(ctx->why, sizeof(ctx->why), "%s", err);
	}
	*ns = fl_clock_ns() - t0;
	if (!ret && round == p->rounds - 1)
		ret = fl__window_end(ctx, "split");
	if (!ret)
		ret = check_tags(th, f, p, tag, ctx);
close:
	ret2 = fl_file_unlink(th, f);
	ret = ret ? ret : ret2;
	ret2 = fl_file_close(th, f);
	ret = ret ? ret : ret2;
umount:
	ret2 = fl_tmpfs_umount(th, m);
	return ret ? ret : ret2;
}

struct ss_run {
	struct fl_wl_ctx *ctx;
	const struct ss_params *p;
	uint64_t ns[MAX_ROUNDS];
};

static int ss_round_fn(struct fl_thread *th, long round, void *arg)
{
	struct ss_run *r = arg;

	return ss_round(r->ctx, th, r->p, round, &r->ns[round]);
}

static int ss_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct ss_params *p = params;
	struct ss_run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->ctx = ctx;
	r->p = p;
	ret = fl__run_rounds(ctx, p->rounds, ss_round_fn, r);
	if (!ret) {
		fl__add_us_metrics(ctx->res, "split_us", r->ns, p->rounds, true);
		fl__add_metric(ctx->res, "folios", "",
			       (double)(p->file_size / PMD_BYTES * (uint64_t)p->rounds));
	}
	free(r);
	return ret;
}

const struct fl_workload fl__wl_shmem_split = {
	.info =
		{
			.name = "shmem-split",
			.summary = "seed 002: split a fallocated huge=always tmpfs file "
				   "(split_huge_pages, or a hole punched in every folio)",
			.params = ss_param_info,
		},
	.files = true,
	.host_root = "mounts a tmpfs and splits through debugfs",
	.params_size = sizeof(struct ss_params),
	.parse = ss_parse,
	.mem_needed = ss_mem_needed,
	.run = ss_run,
};
