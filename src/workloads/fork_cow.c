// SPDX-License-Identifier: GPL-2.0-only
/*
 * fork_cow.c - fork and the copy-on-write faults after it, two workloads
 * on one sequence:
 *
 * - cow-reuse (seed 000 2/4's case): a process maps --size bytes at a
 *   2 MiB boundary and writes a tag to every page (folios of the --mthp
 *   size), forks; the child reads the parent's tags and exits; the parent
 *   writes every page again. Each page's write faults on a read-only PTE:
 *   6.18 reuses the page when its folio is the parent's alone and has no
 *   reference but its mappings (a folio in a per-CPU LRU cache has one
 *   more: copied, unless seed 000 2/4 drains the cache first,
 *   --cow-reuse-drain), and copies it to an order-0 page otherwise.
 * - fork-cow: the same with --children children that stay: each child in
 *   turn writes every page, then the parent. A page is copied while
 *   another process maps its folio (for a large folio: while the MM_IDS
 *   shared bit is set), reused otherwise.
 *
 * fork-cow --pageout on: the parent pages its memory out (MADV_PAGEOUT,
 * needs --swap) before the fork, so every slot is named by each process
 * and the children's reads come back through the swap cache with 6.18's
 * VMA readahead (window "swapin": pgmajfault, swap_ra, swap_ra_hit,
 * pswpin); the writes then meet folios the swap cache still holds.
 *
 * fork-cow --free on: after the fork (and the children's reads) the
 * parent MADV_FREEs its memory while the children still map it (window
 * "free": pglazyfree). 6.18 makes a clean small folio lazy-free however
 * many map it, a dirty or swap-cache one only if the parent alone maps
 * it, and skips a PMD-mapped THP that may be mapped shared; the writes
 * after it make the freed folios anon again.
 *
 * The writes after the fork are counted in the window "cow"
 * (cow:pgfault, cow:pgreuse, cow:thp_split_pmd, ...). Every process reads
 * back its own tags at the end, so a write that leaked into another
 * process's memory shows as a wrong tag.
 *
 * Conventions in this file: the tasks run one at a time on CPU 0, in
 * order: parent, children, parent; sizes are bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "workload.h"

#define PMD_BYTES (2ull << 20)
#define MAX_CHILDREN 32

struct fc_params {
	uint64_t size;
	long children;
	bool stay;   /* fork-cow: the children write and stay; cow-reuse: one exits at once */
	int pageout; /* fork-cow --pageout on (1): swapped out before the fork */
	int free;    /* fork-cow --free on (1): the parent MADV_FREEs after the fork */
};

static const char *const fc_off_on[] = { "off", "on", NULL };

static const struct fl_workload_param_info cr_param_info[] = {
	FL_PARAM_SIZE("size", "64M", 4096, 64ull << 30, 4096, struct fc_params, size,
		      "bytes mapped, shared by fork and written again"),
	FL_PARAM_END,
};

static const struct fl_workload_param_info fc_param_info[] = {
	FL_PARAM_SIZE("size", "64M", 4096, 64ull << 30, 4096, struct fc_params, size,
		      "bytes mapped, shared by fork and written by all"),
	FL_PARAM_INT("children", "1", 1, MAX_CHILDREN, struct fc_params, children,
		     "children forked, each writing every page in turn"),
	FL_PARAM_CHOICE("pageout", "off", fc_off_on, struct fc_params, pageout,
			"on: the parent pages its memory out before the fork (MADV_PAGEOUT; "
			"needs --swap zram:SIZE), so the children read it back through the swap "
			"cache with readahead"),
	FL_PARAM_CHOICE("free", "off", fc_off_on, struct fc_params, free,
			"on: after the fork the parent MADV_FREEs its memory (counted in the "
			"window free): 6.18 makes a clean shared small folio lazy-free, skips a "
			"PMD-mapped THP that may be shared"),
	FL_PARAM_END,
};

static int cr_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct fc_params *p = params;

	p->children = 1;
	p->stay = false;
	return fl__params_parse(cfg, &fl__wl_cow_reuse.info, p, err, len);
}

static int fc_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct fc_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_fork_cow.info, p, err, len);

	p->stay = true;
	if (!ret && p->pageout && !cfg->swap_bytes) {
		snprintf(err, len,
			 "fork-cow --pageout on needs --swap zram:SIZE: the memory goes to swap "
			 "before the fork");
		ret = -EINVAL;
	}
	return ret;
}

static uint64_t fc_mem_needed(const void *params)
{
	const struct fc_params *p = params;

	/* the parent's memory, a copy per child that writes, the page tables of each */
	return fl__mem_for_mappings(1 + (p->stay ? p->children : 0), p->size + 2 * PMD_BYTES) +
	       (uint64_t)p->children * (p->size / PMD_BYTES + 4) * 4096;
}

enum { FC_MAP, FC_PAGEOUT, FC_FREE, FC_WRITE, FC_READ, FC_READ_UNMAP };

/*
 * The step a task takes and what the tasks of every process share: in
 * shared_alloc() memory, as a forked host process has its own copy of
 * everything else, taken at the fork.
 */
struct fc_shared {
	struct fl_tag_tally tags;
	int error;
	int kind;      /* FC_MAP, FC_PAGEOUT, FC_FREE, FC_WRITE, FC_READ, FC_READ_UNMAP */
	uint64_t size; /* of the mapping */
	uint64_t addr; /* the mapping, the same in every process */
	uint64_t tag;  /* what the step writes (or reads) at page 0, + 1 a page */
};

static void fc_task(struct fl_thread *th, void *arg)
{
	struct fc_shared *sh = arg;
	int ret = 0;

	switch (sh->kind) {
	case FC_MAP:
		ret = fl_mmap_apart(th, sh->size, &sh->addr);
		if (!ret)
			ret = fl_write(th, sh->addr, sh->size, 4096, sh->tag, 1);
		break;
	case FC_PAGEOUT:
		ret = fl_madvise(th, sh->addr, sh->size, FL_MADV_PAGEOUT);
		break;
	case FC_FREE:
		ret = fl_madvise(th, sh->addr, sh->size, FL_MADV_FREE);
		break;
	case FC_WRITE:
		ret = fl_write(th, sh->addr, sh->size, 4096, sh->tag, 1);
		break;
	case FC_READ:
	case FC_READ_UNMAP:
		ret = fl__check_tags(th, sh->addr, sh->size, sh->tag, 1, &sh->tags);
		/* its memory goes in the task: on the host an exit's frees are not the run's */
		if (!ret && sh->kind == FC_READ_UNMAP)
			ret = fl_munmap(th, sh->addr, sh->size);
		break;
	}
	if (ret)
		fl__first_error(&sh->error, ret);
}

/* One step in @proc's one task; the step's error, or the run's. */
static int fc_do(struct fl_proc *proc, struct fc_shared *sh, int kind, uint64_t tag)
{
	int ret;

	sh->kind = kind;
	sh->tag = tag;
	ret = fl_run_threads(proc, 1, fc_task, sh);
	return ret ? ret : __atomic_load_n(&sh->error, __ATOMIC_RELAXED);
}

static uint64_t proc_tag(long i)
{
	return ((uint64_t)i + 1) << 40;
}

static int fc_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct fc_params *p = params;
	const struct fl_target_ops *ops = ctx->target->ops;
	struct fc_shared *sh = ops->shared_alloc(ctx->target, sizeof(*sh));
	struct fl_proc *self, *parent, *child[MAX_CHILDREN];
	long i, forked = 0;
	int ret, ret2;
	bool window = false;

	if (!sh)
		return -ENOMEM;
	sh->size = p->size;
	/*
	 * The forking process is the workload's second: on the host the first
	 * is the runner itself, whose own memory a fork would share too, and
	 * whose writes to it after the fork would add copy-on-write faults
	 * of their own. The first stays idle.
	 */
	ret = ops->proc_create(ctx->target, &self);
	if (ret)
		return ret;
	ret = ops->proc_create(ctx->target, &parent);
	if (ret) {
		ops->proc_exit(self);
		return ret;
	}
	ctx->progress_total = 2 + (uint64_t)p->children;
	ret = fc_do(parent, sh, FC_MAP, proc_tag(0));
	if (!ret && p->pageout)
		ret = fc_do(parent, sh, FC_PAGEOUT, 0);
	fl_progress(ctx, 1);
	for (i = 0; !ret && i < p->children; i++) {
		ret = fl_proc_fork(ops->proc_main(parent), &child[i]);
		if (!ret)
			forked++;
	}
	/* each child sees the parent's memory as it was at the fork */
	if (!ret && p->pageout)
		ret = fl__window_begin(ctx);
	for (i = 0; !ret && i < forked; i++)
		ret = fc_do(child[i], sh, FC_READ, proc_tag(0));
	if (p->pageout && ret)
		fl__window_discard(ctx); /* frees what a begin took, if it did */
	else if (p->pageout)
		ret = fl__window_end(ctx, "swapin");
	if (!ret && !p->stay) {
		while (!ret && forked > 0)
			ret = ops->proc_exit(child[--forked]);
	}
	/* the parent's advice over memory the children still map */
	if (!ret && p->free) {
		ret = fl__window_begin(ctx);
		if (!ret) {
			ret = fc_do(parent, sh, FC_FREE, 0);
			if (ret)
				fl__window_discard(ctx);
			else
				ret = fl__window_end(ctx, "free");
		}
	}
	if (!ret)
		ret = fl__window_begin(ctx);
	window = !ret;
	for (i = 0; !ret && i < forked; i++) {
		ret = fc_do(child[i], sh, FC_WRITE, proc_tag(i + 1));
		fl_progress(ctx, 1);
	}
	if (!ret)
		ret = fc_do(parent, sh, FC_WRITE, proc_tag(p->children + 1));
	if (window) {
		if (ret)
			fl__window_discard(ctx);
		else
			ret = fl__window_end(ctx, "cow");
	}
	/* each process reads its own tags: nobody's write reached another */
	for (i = 0; !ret && i < forked; i++)
		ret = fc_do(child[i], sh, FC_READ_UNMAP, proc_tag(i + 1));
	if (!ret)
		ret = fc_do(parent, sh, FC_READ_UNMAP, proc_tag(p->children + 1));
	fl_progress(ctx, 1);
	while (forked > 0) {
		ret2 = ops->proc_exit(child[--forked]);
		if (!ret)
			ret = ret2;
	}
	ret2 = ops->proc_exit(parent);
	if (!ret)
		ret = ret2;
	ret2 = ops->proc_exit(self);
	if (!ret)
		ret = ret2;
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	if (!ret)
		fl__add_metric(ctx->res, "pages", "", (double)(p->size / 4096));
	return ret;
}

const struct fl_workload fl__wl_cow_reuse = {
	.info =
		{
			.name = "cow-reuse",
			.summary = "map and write anon memory, fork, the child exits, the parent "
				   "writes every page: copy-on-write reuse or copy (seed 000 2/4)",
			.params = cr_param_info,
		},
	.params_size = sizeof(struct fc_params),
	.parse = cr_parse,
	.mem_needed = fc_mem_needed,
	.run = fc_run,
};

const struct fl_workload fl__wl_fork_cow = {
	.info =
		{
			.name = "fork-cow",
			.summary = "map and write anon memory, fork --children children, each "
				   "writes every page in turn, then the parent: copies by the rule",
			.params = fc_param_info,
		},
	.params_size = sizeof(struct fc_params),
	.parse = fc_parse,
	.mem_needed = fc_mem_needed,
	.run = fc_run,
};
