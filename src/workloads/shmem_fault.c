// SPDX-License-Identifier: GPL-2.0-only
/*
 * shmem_fault.c - faults in a mapping of a tmpfs file: a tmpfs mounted
 * size=2x,huge=--huge, a --file-size file (ftruncate; with --populate on
 * also written through pwrite, so the page cache holds it before the
 * mapping), mapped --map shared or private, every page written or read
 * (--access) through the mapping and read back, unmapped, the file read
 * back through pread; --rounds times, each with a fresh file and mount.
 *
 * What the kernel does here, and the model with it: a fault maps a
 * PMD-sized folio with one PMD (thp_file_mapped) and a smaller large folio
 * whole; a read fault first maps the 16 cached pages around it
 * (fault-around), so a populated file takes one fault per 16 pages; a
 * write to a private mapping copies the page (the file keeps its data).
 * The last round's access pass is the window "fault:".
 *
 * Tags: --populate writes BASE + page; the access pass writes its own
 * round's tags; each read back is checked against what the mapping and
 * the file must hold.
 *
 * Conventions in this file: sizes are bytes; a "round" is mount, create,
 * (populate), map, access (the window, timed), read back, unmap, pread,
 * unlink, umount.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "workload.h"
#include "../platform/platform.h"

#define MAX_ROUNDS 1000
#define BASE (1ull << 50)

struct sf_params {
	uint64_t file_size;
	int huge;		   /* index in huges[] */
	int map, access, populate; /* indices in their words */
	bool shared;
	bool write;
	bool populate_first;
	long rounds;
};

static const char *const huges[] = { "never", "always", "within_size", "advise", NULL };

static const char *const sf_maps[] = { "shared", "private", NULL };
static const char *const sf_accesses[] = { "write", "read", NULL };
static const char *const sf_on_off[] = { "on", "off", NULL };

static const struct fl_workload_param_info sf_param_info[] = {
	FL_PARAM_SIZE("file-size", "64M", 4096, 64ull << 30, 4096, struct sf_params, file_size,
		      "bytes mapped"),
	FL_PARAM_CHOICE("huge", "always", huges, struct sf_params, huge, "the tmpfs huge= option"),
	FL_PARAM_CHOICE("map", "shared", sf_maps, struct sf_params, map,
			"shared: MAP_SHARED; private: MAP_PRIVATE, writes copy"),
	FL_PARAM_CHOICE("access", "write", sf_accesses, struct sf_params, access,
			"write: a tag per page; read"),
	FL_PARAM_CHOICE("populate", "off", sf_on_off, struct sf_params, populate,
			"on: pwrite the file first (faults find the page cache full)"),
	FL_PARAM_INT("rounds", "3", 1, MAX_ROUNDS, struct sf_params, rounds,
		     "rounds, each of a fresh file"),
	FL_PARAM_END,
};

static int sf_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct sf_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_shmem_fault.info, p, err, len);

	p->shared = p->map == 0;
	p->write = p->access == 0;
	p->populate_first = p->populate == 0;
	return ret;
}

static uint64_t sf_mem_needed(const void *params)
{
	const struct sf_params *p = params;

	/* the file, a private copy of it, page tables */
	return 2 * p->file_size + fl__mem_for_mappings(1, p->file_size) + (64ull << 20);
}

struct sf_task {
	struct fl_wl_ctx *ctx;
	const struct sf_params *p;
	struct fl_tag_tally tags;
	uint64_t ns[MAX_ROUNDS];
};

/* Pages [0, n) of the file must read @tag + i, or 0 everywhere when @tag is 0. */
static int check_file(struct sf_task *t, struct fl_thread *th, struct fl_file *f, uint64_t tag)
{
	enum { CHUNK = 512 };
	uint64_t got[CHUNK], page, i, pages = t->p->file_size / 4096;

	for (page = 0; page < pages; page += CHUNK) {
		uint64_t n = pages - page < CHUNK ? pages - page : CHUNK, wrong = 0;
		int ret = fl_pread_tags(th, f, page * 4096, n * 4096, got, NULL);

		if (ret < 0)
			return ret;
		if ((uint64_t)ret != n)
			return -EIO;
		for (i = 0; i < n; i++)
			wrong += got[i] != (tag ? tag + page + i : 0);
		__atomic_fetch_add(&t->tags.checked, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->tags.wrong, wrong, __ATOMIC_RELAXED);
	}
	return 0;
}

static int sf_round(struct fl_thread *th, long round, void *arg)
{
	struct sf_task *t = arg;
	const struct sf_params *p = t->p;
	struct fl_wl_ctx *ctx = t->ctx;
	uint64_t tag = (uint64_t)(round + 1) << 40, addr, t0, in_file;
	char opts[96], err[sizeof(ctx->why)];
	struct fl_tmpfs *m;
	struct fl_file *f;
	int ret, ret2;

	snprintf(opts, sizeof(opts), "size=%lluk,huge=%s",
		 (unsigned long long)(2 * p->file_size / 1024 + 64), huges[p->huge]);
	ret = fl_tmpfs_mount(th, opts, &m, err, sizeof(err));
	if (ret) {
		snprintf(ctx->why, sizeof(ctx->why), "%s", err);
		return ret;
	}
	ret = fl_file_create(th, m, "mapped", &f);
	if (ret)
		goto umount;
	ret = fl_ftruncate(th, f, p->file_size);
	if (!ret && p->populate_first)
		ret = fl_pwrite_tags(th, f, 0, p->file_size, BASE, 1);
	if (!ret)
		ret = fl_mmap_file(th, f, 0, p->file_size, FL_PROT_READ | FL_PROT_WRITE,
				   p->shared ? FL_MAP_SHARED : 0, &addr);
	if (ret)
		goto close;
	if (round == p->rounds - 1)
		ret = fl__window_begin(ctx);
	t0 = fl_clock_ns();
	if (!ret && p->write)
		ret = fl_write(th, addr, p->file_size, 4096, tag, 1);
	else if (!ret)
		ret = fl__check_tags(th, addr, p->file_size, p->populate_first ? BASE : 0,
				     p->populate_first ? 1 : 0, &t->tags);
	t->ns[round] = fl_clock_ns() - t0;
	if (!ret && round == p->rounds - 1)
		ret = fl__window_end(ctx, "fault");
	if (!ret && p->write)
		ret = fl__check_tags(th, addr, p->file_size, tag, 1, &t->tags);
	ret2 = fl_munmap(th, addr, p->file_size);
	ret = ret ? ret : ret2;
	/* the file: a shared write's tags, else what the file held before */
	in_file = p->write && p->shared ? tag : p->populate_first ? BASE : 0;
	if (!ret)
		ret = check_file(t, th, f, in_file);
close:
	ret2 = fl_file_unlink(th, f);
	ret = ret ? ret : ret2;
	ret2 = fl_file_close(th, f);
	ret = ret ? ret : ret2;
umount:
	ret2 = fl_tmpfs_umount(th, m);
	return ret ? ret : ret2;
}

static int sf_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct sf_params *p = params;
	struct sf_task *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->p = p;
	ret = fl__run_rounds(ctx, p->rounds, sf_round, t);
	ctx->tags_checked = t->tags.checked;
	ctx->tags_wrong = t->tags.wrong;
	if (!ret) {
		fl__add_us_metrics(ctx->res, "access_us", t->ns, p->rounds, false);
		fl__add_metric(ctx->res, "pages", "", (double)(p->file_size / 4096));
	}
	free(t);
	return ret;
}

const struct fl_workload fl__wl_shmem_fault = {
	.info =
		{
			.name = "shmem-fault",
			.summary = "map a tmpfs file shared or private and write or read every "
				   "page through the mapping (file faults, fault-around, CoW)",
			.params = sf_param_info,
		},
	.files = true,
	.host_root = "mounts a tmpfs",
	.params_size = sizeof(struct sf_params),
	.parse = sf_parse,
	.mem_needed = sf_mem_needed,
	.run = sf_run,
};
