// SPDX-License-Identifier: GPL-2.0-only
/*
 * fragment.c - large-folio faults in fragmented memory, after the shape of
 * mmtests' thpscale: fill most of memory with order-0 pages of mixed
 * mobility, free a pattern of them so that free memory is plentiful but in
 * small pieces, then fault anonymous folios of each mTHP size the run
 * enables and measure how many got their size and how long each fault
 * took.
 *
 * Fill (window "fill"): --fill of the machine's memory (the model's
 * MemTotal, the host's MemAvailable) or --fill-size bytes, as three kinds
 * of order-0 page allocated in turn, so that each 2 MiB of physical memory
 * tends to hold all three: a movable anon page (a MADV_NOHUGEPAGE mapping,
 * one 4 KiB write each), a movable page-cache page (a tmpfs file mounted
 * huge=never, one 4 KiB pwrite each) and, for the --unmovable share, an
 * unmovable page-table page (one write into a fresh 2 MiB-aligned region
 * of a sparse MADV_NOHUGEPAGE mapping allocates a PTE table, and the data
 * page beside it).
 *
 * Free (window "free"): --free-pattern alternate gives back every other
 * 4 KiB page of the anon mapping (MADV_DONTNEED of one page) and of the
 * file (a one-page hole punched); all gives back all of both, none
 * nothing. The page tables stay.
 *
 * Fault (window "fault-<N>kB" per size): for each size N the knobs enable
 * for anon faults (with --advise hugepage the mappings are
 * MADV_HUGEPAGE, so "madvise" enables a size too), smallest first,
 * --fault-size bytes are mapped and written one N step at a time; the
 * first write of each step is the fault that tries a folio of N, and is
 * timed (fl_clock_ns(): the host's clock, sim's virtual one). Where a
 * larger size is enabled too, each step is a mapping of its own, exactly
 * N long at an N-aligned address (a larger folio does not fit it), so
 * every step's fault tries N first whatever else is enabled. The window's
 * hugepages-<N>kB/stats/anon_fault_alloc counts the faults that got N,
 * anon_fault_fallback the ones that did not (thp_fault_* too for 2M).
 * Each size's memory is read back and unmapped before the next size.
 *
 * Tags: every written page holds its own tag; the fault pages are read
 * back after their size's pass, the kept fill pages (and the freed ones,
 * which read 0) at the end, after every fault, so that a page that
 * compaction moved must have kept its tag.
 *
 * On the host the fill is checked before anything runs: the run's most
 * memory held at once must stay within HOST_SHARE of MemAvailable.
 *
 * Conventions in this file: sizes are bytes; "pages" are 4 KiB; an
 * "order" is a folio's (size 4 KiB << order).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload.h"
#include "../platform/platform.h"

#define PAGE_BYTES 4096ull
#define PMD_BYTES (2ull << 20)
#define MIB (1024.0 * 1024.0)
/* a sparse mapping of the unmovable share: 512 page-table pages */
#define SPARSE_BYTES (512 * PMD_BYTES)
#define MIN_ORDER 2
#define MAX_ORDER 9
/* what a run may hold at once: USABLE of the model's memory less RESERVE */
#define USABLE 0.88
#define RESERVE (4ull << 20)
/* the host: the most of MemAvailable a run may hold at once */
#define HOST_SHARE 0.7
#define DEFAULT_FILL_MODEL 0.8
#define DEFAULT_FILL_HOST 0.5
/* a size measured beside a larger one takes a mapping per fault: at most this many */
#define MAX_SPLIT_MAPPINGS 3072

#define TAG_ANON (1ull << 50)
#define TAG_FILE (2ull << 50)
#define TAG_PT (3ull << 50)
#define TAG_FAULT(order) ((4ull + (uint64_t)(order)) << 50)

enum { PATTERN_ALTERNATE, PATTERN_NONE, PATTERN_ALL };

struct fr_params {
	double fill;	     /* share of memory; 0: DEFAULT_FILL_* */
	uint64_t fill_size;  /* bytes; 0: --fill */
	double unmovable;    /* share of the fill's pages that are page tables */
	int pattern;	     /* PATTERN_* */
	uint64_t fault_size; /* bytes per size; 0: what the free phase freed */
	int advise;	     /* 0 hugepage, 1 none */
	/* from the configuration, at parse time */
	bool host;
	uint64_t host_avail; /* the host's MemAvailable, bytes */
};

static const char *const fr_patterns[] = { "alternate", "none", "all", NULL };
static const char *const fr_advices[] = { "hugepage", "none", NULL };

static const struct fl_workload_param_info fr_param_info[] = {
	FL_PARAM_DOUBLE("fill", "0", 0, 0.85, struct fr_params, fill,
			"share of memory filled (the model's MemTotal, the host's "
			"MemAvailable); 0: 0.8 on the model, 0.5 on the host"),
	FL_PARAM_SIZE("fill-size", "0", 0, 1ull << 40, 4096, struct fr_params, fill_size,
		      "bytes filled instead of --fill's share; 0: --fill"),
	FL_PARAM_DOUBLE("unmovable", "0.05", 0, 0.3, struct fr_params, unmovable,
			"share of the fill's pages that are page-table pages (unmovable)"),
	FL_PARAM_CHOICE("free-pattern", "alternate", fr_patterns, struct fr_params, pattern,
			"what the free phase gives back of the anon and file pages: every "
			"other 4 KiB page, none, or all"),
	FL_PARAM_SIZE("fault-size", "0", 0, 64ull << 30, PMD_BYTES, struct fr_params, fault_size,
		      "bytes faulted per mTHP size; 0: what the free phase freed"),
	FL_PARAM_CHOICE("advise", "hugepage", fr_advices, struct fr_params, advise,
			"MADV_HUGEPAGE on the fault mappings, or none"),
	FL_PARAM_END,
};

/* How a fill of @bytes is made: pages of each kind, and what the free phase frees. */
struct fr_layout {
	/* pages: movable anon and file; page tables (each with a data page) */
	uint64_t anon, file, pt;
	uint64_t freed; /* pages the free phase frees */
	uint64_t fault; /* bytes faulted per size */
	uint64_t peak;	/* the most bytes held at once */
};

static void fr_layout(const struct fr_params *p, uint64_t bytes, struct fr_layout *l)
{
	uint64_t pages = bytes / PAGE_BYTES, rest;

	l->pt = (uint64_t)((double)pages * p->unmovable);
	rest = pages - 2 * l->pt;
	l->anon = rest / 2 & ~1ull; /* even: the alternate pattern keeps exactly half */
	l->file = rest - l->anon;
	l->freed = p->pattern == PATTERN_NONE  ? 0
		   : p->pattern == PATTERN_ALL ? l->anon + l->file
					       : l->anon / 2 + l->file / 2;
	l->fault = p->fault_size;
	if (!l->fault) {
		l->fault = l->freed * PAGE_BYTES / PMD_BYTES * PMD_BYTES;
		if (!l->fault)
			l->fault = PMD_BYTES;
	}
	l->peak = (pages - l->freed) * PAGE_BYTES + fl__mem_for_mappings(1, l->fault);
	if (l->peak < bytes)
		l->peak = bytes;
	/* the fill's own page tables and the sparse mappings' upper levels */
	l->peak += fl__mem_for_mappings(1, l->anon * PAGE_BYTES) - l->anon * PAGE_BYTES +
		   (l->pt / 512 + 1) * 3 * PAGE_BYTES;
}

/* The host's MemAvailable in bytes, 0 if /proc/meminfo does not say. */
static uint64_t host_mem_available(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

static int fr_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct fr_params *p = params;
	struct fr_layout l;
	int ret = fl__params_parse(cfg, &fl__wl_fragment.info, p, err, len);

	if (ret)
		return ret;
	if (fl_config_param(cfg, "fill") && p->fill_size) {
		snprintf(err, len, "--fill and --fill-size: give one (a share of memory or bytes)");
		return -EINVAL;
	}
	if (p->fill_size && p->fill_size < (4ull << 20)) {
		snprintf(err, len, "--fill-size %s: accepted 0 (use --fill) or at least 4M",
			 fl_config_param(cfg, "fill-size"));
		return -EINVAL;
	}
	if (fl_config_param(cfg, "fill") && p->fill < 0.01) {
		snprintf(err, len, "--fill %s: accepted a number 0.01..0.85",
			 fl_config_param(cfg, "fill"));
		return -EINVAL;
	}
	if (p->pattern == PATTERN_NONE && !p->fault_size) {
		snprintf(err, len,
			 "--free-pattern none frees nothing for --fault-size 0 to fault: give "
			 "--fault-size (e.g. 64M)");
		return -EINVAL;
	}
	p->host = !strcmp(cfg->target, "host");
	if (!p->fill)
		p->fill = p->host ? DEFAULT_FILL_HOST : DEFAULT_FILL_MODEL;
	if (!p->host)
		return 0;
	p->host_avail = host_mem_available();
	if (!p->host_avail) {
		snprintf(err, len, "fragment on the host: /proc/meminfo gives no MemAvailable");
		return -EINVAL;
	}
	fr_layout(p, p->fill_size ? p->fill_size : (uint64_t)(p->fill * (double)p->host_avail), &l);
	if ((double)l.peak > HOST_SHARE * (double)p->host_avail) {
		snprintf(err, len,
			 "fragment on the host would hold %.0f MiB at once, over 70%% of "
			 "MemAvailable (%.0f of %.0f MiB): give a smaller --fill, --fill-size or "
			 "--fault-size",
			 (double)l.peak / MIB, HOST_SHARE * (double)p->host_avail / MIB,
			 (double)p->host_avail / MIB);
		return -EINVAL;
	}
	return 0;
}

/*
 * The model's memory the run needs: with a share of memory filled, the
 * machine whose USABLE part holds what the run holds at its most.
 */
static uint64_t fr_mem_needed(const void *params)
{
	const struct fr_params *p = params;
	double kept, fill_phase, fault_phase;
	struct fr_layout l;

	if (p->fill_size) {
		fr_layout(p, p->fill_size, &l);
		return (uint64_t)(((double)l.peak + (double)RESERVE) / USABLE);
	}
	/* the share of the fill the free phase keeps, from a 1 GiB example */
	fr_layout(p, 1ull << 30, &l);
	kept = 1.0 - (double)l.freed * PAGE_BYTES / (double)(1ull << 30);
	/* the fill, with its own page tables (and a fault phase as large as what it freed) */
	fill_phase = (double)(RESERVE + PMD_BYTES) / (USABLE - p->fill * 1.01);
	if (!p->fault_size)
		return (uint64_t)fill_phase;
	/* what the fill keeps, and --fault-size beside it */
	fault_phase = (double)(RESERVE + fl__mem_for_mappings(1, p->fault_size)) /
		      (USABLE - p->fill * kept * 1.01);
	return (uint64_t)(fault_phase > fill_phase ? fault_phase : fill_phase);
}

struct fr_task {
	struct fl_wl_ctx *ctx;
	const struct fr_params *p;
	struct fl_tag_tally tags;
	struct fr_layout l;
	unsigned int orders; /* bit o: order o is measured */
	uint64_t anon_addr;
	uint64_t *sparse; /* the sparse mappings' addresses, 0 where none */
	uint64_t nr_sparse;
	struct fl_tmpfs *mnt;
	struct fl_file *file;
	uint64_t *ns; /* one size's fault times */
};

static uint64_t sparse_len(const struct fr_task *t, uint64_t i)
{
	uint64_t left = t->l.pt - i * 512;

	return (left < 512 ? left : 512) * PMD_BYTES;
}

/* Read @n pages at @addr + k * @stride; page k must hold @tag + k * @step. */
static int check_strided(struct fl_thread *th, uint64_t addr, uint64_t n, uint64_t stride,
			 uint64_t tag, uint64_t step, struct fl_tag_tally *tally)
{
	enum { CHUNK = 512 };
	uint64_t got[CHUNK], i, k, wrong = 0;

	for (i = 0; i < n; i += CHUNK) {
		uint64_t c = n - i < CHUNK ? n - i : CHUNK;
		int ret = fl_read(th, addr + i * stride, c * stride, stride, got, NULL);

		if (ret)
			return ret;
		for (k = 0; k < c; k++)
			wrong += got[k] != tag + (i + k) * step;
	}
	__atomic_fetch_add(&tally->checked, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tally->wrong, wrong, __ATOMIC_RELAXED);
	return 0;
}

/* The sizes whose anon faults the knobs in force allow (with MADV_HUGEPAGE when @madv). */
static int fr_orders(struct fl_wl_ctx *ctx, bool madv, unsigned int *orders)
{
	struct fl_knobs *k = calloc(1, sizeof(*k));
	const char *top = "never";
	char name[FL_NAME_MAX];
	int i, o, ret;

	if (!k)
		return -ENOMEM;
	ret = ctx->target->ops->knobs(ctx->target, k);
	*orders = 0;
	for (i = 0; !ret && i < k->nr; i++)
		if (!strcmp(k->v[i].name, "transparent_hugepage/enabled"))
			top = k->v[i].value;
	for (o = MIN_ORDER; !ret && o <= MAX_ORDER; o++) {
		const char *v = o == MAX_ORDER ? "inherit" : NULL; /* a kernel without the sizes */

		snprintf(name, sizeof(name), "transparent_hugepage/hugepages-%llukB/enabled",
			 (PAGE_BYTES << o) / 1024);
		for (i = 0; i < k->nr; i++)
			if (!strcmp(k->v[i].name, name))
				v = k->v[i].value;
		if (v && !strcmp(v, "inherit"))
			v = top;
		if (v && (!strcmp(v, "always") || (madv && !strcmp(v, "madvise"))))
			*orders |= 1u << o;
	}
	free(k);
	return ret;
}

static int touch_pt(struct fl_thread *th, struct fr_task *t, uint64_t i)
{
	uint64_t c = i / 512;
	int ret;

	if (i % 512 == 0) {
		ret = fl_mmap_apart(th, sparse_len(t, c), &t->sparse[c]);
		if (ret)
			return ret;
		ret = fl_madvise(th, t->sparse[c], sparse_len(t, c), FL_MADV_NOHUGEPAGE);
		if (ret)
			return ret;
	}
	return fl_write(th, t->sparse[c] + i % 512 * PMD_BYTES, PAGE_BYTES, PAGE_BYTES, TAG_PT + i,
			1);
}

/* The three kinds in turn, the page tables at their share of the steps. */
static int fr_fill(struct fl_thread *th, struct fr_task *t)
{
	const struct fr_layout *l = &t->l;
	uint64_t steps = l->anon > l->file ? l->anon : l->file, s, pt = 0;
	int ret = 0;

	for (s = 0; s < steps && !ret; s++) {
		if (s < l->anon)
			ret = fl_write(th, t->anon_addr + s * PAGE_BYTES, PAGE_BYTES, PAGE_BYTES,
				       TAG_ANON + s, 1);
		if (!ret && s < l->file)
			ret = fl_pwrite_tags(th, t->file, s * PAGE_BYTES, PAGE_BYTES, TAG_FILE + s,
					     1);
		while (!ret && pt < l->pt && pt * steps < (s + 1) * l->pt)
			ret = touch_pt(th, t, pt++);
		if (s % 4096 == 4095)
			fl_progress(t->ctx, 1);
	}
	return ret;
}

static int fr_free(struct fl_thread *th, struct fr_task *t)
{
	const struct fr_layout *l = &t->l;
	const int punch = FL_FALLOC_PUNCH_HOLE | FL_FALLOC_KEEP_SIZE;
	uint64_t s;
	int ret = 0;

	if (t->p->pattern == PATTERN_ALL) {
		ret = fl_madvise(th, t->anon_addr, l->anon * PAGE_BYTES, FL_MADV_DONTNEED);
		if (!ret)
			ret = fl_fallocate(th, t->file, punch, 0, l->file * PAGE_BYTES);
		return ret;
	}
	for (s = 1; t->p->pattern == PATTERN_ALTERNATE && s < l->file && !ret; s += 2) {
		if (s < l->anon)
			ret = fl_madvise(th, t->anon_addr + s * PAGE_BYTES, PAGE_BYTES,
					 FL_MADV_DONTNEED);
		if (!ret)
			ret = fl_fallocate(th, t->file, punch, s * PAGE_BYTES, PAGE_BYTES);
	}
	return ret;
}

/* Whether the free phase kept page @i of the anon mapping or the file. */
static bool fr_kept(int pattern, uint64_t i)
{
	return pattern == PATTERN_NONE || (pattern == PATTERN_ALTERNATE && i % 2 == 0);
}

/*
 * Pages [0, @n) of the anon mapping (@f NULL) or of the file: a kept page
 * must hold @tag + its index, a freed one 0.
 */
static int fr_check_kept(struct fl_thread *th, struct fr_task *t, struct fl_file *f, uint64_t n,
			 uint64_t tag)
{
	enum { CHUNK = 512 };
	uint64_t got[CHUNK], i, k;
	int ret = 0;

	for (i = 0; i < n && !ret; i += CHUNK) {
		uint64_t c = n - i < CHUNK ? n - i : CHUNK, wrong = 0;

		if (f) {
			ret = fl_pread_tags(th, f, i * PAGE_BYTES, c * PAGE_BYTES, got, NULL);
			ret = ret < 0 ? ret : (uint64_t)ret == c ? 0 : -EIO;
		} else {
			ret = fl_read(th, t->anon_addr + i * PAGE_BYTES, c * PAGE_BYTES, PAGE_BYTES,
				      got, NULL);
		}
		for (k = 0; k < c && !ret; k++)
			wrong += got[k] != (fr_kept(t->p->pattern, i + k) ? tag + i + k : 0);
		__atomic_fetch_add(&t->tags.checked, ret ? 0 : c, __ATOMIC_RELAXED);
		__atomic_fetch_add(&t->tags.wrong, wrong, __ATOMIC_RELAXED);
	}
	return ret;
}

/* What is left of the fill: kept pages their tags, freed ones 0, every page table's page. */
static int fr_check_fill(struct fl_thread *th, struct fr_task *t)
{
	int ret = fr_check_kept(th, t, NULL, t->l.anon, TAG_ANON);
	uint64_t c;

	for (c = 0; !ret && c < t->nr_sparse; c++)
		ret = check_strided(th, t->sparse[c], sparse_len(t, c) / PMD_BYTES, PMD_BYTES,
				    TAG_PT + c * 512, 1, &t->tags);
	return ret ? ret : fr_check_kept(th, t, t->file, t->l.file, TAG_FILE);
}

static int cmp_ns(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The metrics of one size: its faults, the share that got the size, and their times. */
static void fr_size_metrics(struct fr_task *t, int order, uint64_t n)
{
	struct fl_result *res = t->ctx->res;
	unsigned long kb = (unsigned long)((PAGE_BYTES << order) / 1024);
	char name[32], counter[FL_NAME_MAX];
	double sum = 0;
	int64_t got;
	uint64_t i;

	snprintf(counter, sizeof(counter), "fault-%lukB:hugepages-%lukB/stats/anon_fault_alloc", kb,
		 kb);
	if (!fl_counters_find(&res->counters, counter) && order == MAX_ORDER)
		/* a kernel without per-size stats: the PMD size's own counter */
		snprintf(counter, sizeof(counter), "fault-%lukB:thp_fault_alloc", kb);
	got = fl_counters_get(&res->counters, counter);
	qsort(t->ns, (size_t)n, sizeof(*t->ns), cmp_ns);
	for (i = 0; i < n; i++)
		sum += (double)t->ns[i];
	snprintf(name, sizeof(name), "%lukB_faults", kb);
	fl__add_metric(res, name, "", (double)n);
	snprintf(name, sizeof(name), "%lukB_ok_pct", kb);
	fl__add_metric(res, name, "%", 100.0 * (double)got / (double)n);
	snprintf(name, sizeof(name), "%lukB_mean_us", kb);
	fl__add_metric(res, name, "us", sum / (double)n / 1e3);
	snprintf(name, sizeof(name), "%lukB_p50_us", kb);
	fl__add_metric(res, name, "us", (double)t->ns[n / 2] / 1e3);
	snprintf(name, sizeof(name), "%lukB_p99_us", kb);
	fl__add_metric(res, name, "us", (double)t->ns[(n * 99 + 99) / 100 - 1] / 1e3);
}

/*
 * One size's pass: map, fault each step (timed, the window), write the
 * rest of each step, read it all back, unmap.
 */
static int fr_fault_size(struct fl_thread *th, struct fr_task *t, int order)
{
	const uint64_t size = PAGE_BYTES << order, n = t->l.fault / size;
	const bool apart = (t->orders >> (order + 1)) != 0; /* a larger size is enabled */
	const uint64_t stride = apart ? 2 * size : size, tag = TAG_FAULT(order);
	char window[32];
	uint64_t addr, i, t0;
	int ret, ret2;

	ret = fl_mmap_apart(th, n * stride, &addr);
	if (ret)
		return ret;
	if (!t->p->advise)
		ret = fl_madvise(th, addr, n * stride, FL_MADV_HUGEPAGE);
	for (i = 0; apart && i < n && !ret; i++) {
		ret = fl_munmap(th, addr + i * stride + size, size);
		if (ret)
			break;
	}
	if (ret) {
		/* what is still mapped: the steps before i apart, from step i on whole */
		fl_munmap(th, addr + i * stride, (n - i) * stride);
		while (apart && i--)
			fl_munmap(th, addr + i * stride, size);
		return ret;
	}
	ret = fl__window_begin(t->ctx);
	for (i = 0; i < n && !ret; i++) {
		uint64_t a = addr + i * stride, first = tag + i * (size / PAGE_BYTES);

		t0 = fl_clock_ns();
		ret = fl_write(th, a, PAGE_BYTES, PAGE_BYTES, first, 1);
		t->ns[i] = fl_clock_ns() - t0;
		if (!ret)
			ret = fl_write(th, a + PAGE_BYTES, size - PAGE_BYTES, PAGE_BYTES, first + 1,
				       1);
	}
	snprintf(window, sizeof(window), "fault-%llukB", (unsigned long long)(size / 1024));
	if (!ret)
		ret = fl__window_end(t->ctx, window);
	else
		fl__window_discard(t->ctx);
	for (i = 0; i < n && !ret; i++)
		ret = fl__check_tags(th, addr + i * stride, size, tag + i * (size / PAGE_BYTES), 1,
				     &t->tags);
	if (!ret)
		fr_size_metrics(t, order, n);
	if (!apart) {
		ret2 = fl_munmap(th, addr, n * stride);
		return ret ? ret : ret2;
	}
	for (i = 0; i < n; i++) {
		ret2 = fl_munmap(th, addr + i * stride, size);
		ret = ret ? ret : ret2;
	}
	return ret;
}

static int fr_round(struct fl_thread *th, long round, void *arg)
{
	struct fr_task *t = arg;
	struct fl_wl_ctx *ctx = t->ctx;
	const struct fr_layout *l = &t->l;
	char opts[96], err[sizeof(ctx->why)];
	uint64_t c;
	int ret, ret2, o;

	(void)round;
	/* fl__run_rounds() counts the round itself: fill steps, the free, each size */
	ctx->progress_total = l->file / 4096 + 1 + (uint64_t)__builtin_popcount(t->orders) + 1;
	snprintf(opts, sizeof(opts), "size=%lluk,huge=never",
		 (unsigned long long)(l->file * PAGE_BYTES / 1024 + 1024));
	ret = fl_tmpfs_mount(th, opts, &t->mnt, err, sizeof(err));
	if (ret) {
		snprintf(ctx->why, sizeof(ctx->why), "%s", err);
		return ret;
	}
	ret = fl_file_create(th, t->mnt, "fill", &t->file);
	if (ret)
		goto umount;
	ret = fl_mmap_apart(th, l->anon * PAGE_BYTES, &t->anon_addr);
	if (ret)
		goto close;
	ret = fl_madvise(th, t->anon_addr, l->anon * PAGE_BYTES, FL_MADV_NOHUGEPAGE);
	if (!ret)
		ret = fl__window_begin(ctx);
	if (!ret) {
		ret = fr_fill(th, t);
		if (ret)
			fl__window_discard(ctx);
		else
			ret = fl__window_end(ctx, "fill");
	}
	if (!ret)
		ret = fl__window_begin(ctx);
	if (!ret) {
		ret = fr_free(th, t);
		if (ret)
			fl__window_discard(ctx);
		else
			ret = fl__window_end(ctx, "free");
	}
	fl_progress(ctx, 1);
	for (o = MIN_ORDER; o <= MAX_ORDER && !ret; o++) {
		if (!(t->orders & (1u << o)))
			continue;
		ret = fr_fault_size(th, t, o);
		fl_progress(ctx, 1);
	}
	if (!ret)
		ret = fr_check_fill(th, t);
	for (c = 0; c < t->nr_sparse; c++) {
		ret2 = t->sparse[c] ? fl_munmap(th, t->sparse[c], sparse_len(t, c)) : 0;
		ret = ret ? ret : ret2;
	}
	ret2 = fl_munmap(th, t->anon_addr, l->anon * PAGE_BYTES);
	ret = ret ? ret : ret2;
close:
	ret2 = fl_file_unlink(th, t->file);
	ret = ret ? ret : ret2;
	ret2 = fl_file_close(th, t->file);
	ret = ret ? ret : ret2;
umount:
	ret2 = fl_tmpfs_umount(th, t->mnt);
	return ret ? ret : ret2;
}

/* The fill in bytes: --fill-size, or --fill of the host's MemAvailable or the model's memory. */
static int fr_fill_bytes(struct fl_wl_ctx *ctx, const struct fr_params *p, uint64_t *bytes)
{
	struct fl_counters mi = { 0 };
	int ret;

	if (p->fill_size || p->host) {
		*bytes = p->fill_size ? p->fill_size : (uint64_t)(p->fill * (double)p->host_avail);
		return 0;
	}
	ret = ctx->target->ops->meminfo(ctx->target, &mi);
	*bytes = (uint64_t)(p->fill * (double)fl_counters_get(&mi, "MemTotal") * 1024);
	fl_counters_free(&mi);
	return ret;
}

static int fr_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct fr_params *p = params;
	struct fr_task *t = calloc(1, sizeof(*t));
	uint64_t bytes, most = 0;
	char a[32];
	int ret, o;

	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	t->p = p;
	ret = fr_fill_bytes(ctx, p, &bytes);
	if (!ret)
		ret = fr_orders(ctx, !p->advise, &t->orders);
	if (ret)
		goto out;
	fr_layout(p, bytes, &t->l);
	if (!t->orders) {
		snprintf(ctx->why, sizeof(ctx->why),
			 "no mTHP size is enabled for anon faults%s: give --mthp (e.g. --mthp "
			 "2M or --mthp 64K)",
			 p->advise ? " without MADV_HUGEPAGE (--advise none)" : "");
		ret = -EINVAL;
		goto out;
	}
	for (o = MIN_ORDER; o <= MAX_ORDER; o++) {
		uint64_t n = t->l.fault / (PAGE_BYTES << o);

		if (!(t->orders & (1u << o)))
			continue;
		if ((t->orders >> (o + 1)) && n > MAX_SPLIT_MAPPINGS) {
			fl_format_size(t->l.fault, a, sizeof(a));
			snprintf(ctx->why, sizeof(ctx->why),
				 "%llukB beside a larger enabled size takes a mapping per fault: "
				 "%s is %llu of them, more than %d; give a smaller --fault-size or "
				 "one size (--mthp %lluK)",
				 (PAGE_BYTES << o) / 1024, a, (unsigned long long)n,
				 MAX_SPLIT_MAPPINGS, (PAGE_BYTES << o) / 1024);
			ret = -EINVAL;
			goto out;
		}
		if (n > most)
			most = n;
	}
	t->nr_sparse = (t->l.pt + 511) / 512;
	t->sparse = calloc(t->nr_sparse + 1, sizeof(*t->sparse));
	t->ns = calloc(most + 1, sizeof(*t->ns));
	if (!t->sparse || !t->ns) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fl__run_rounds(ctx, 1, fr_round, t);
	ctx->tags_checked = t->tags.checked;
	ctx->tags_wrong = t->tags.wrong;
	if (!ret) {
		fl__add_metric(ctx->res, "fill_mib", "MiB",
			       (double)(2 * t->l.pt + t->l.anon + t->l.file) * PAGE_BYTES /
				       (1 << 20));
		fl__add_metric(ctx->res, "freed_mib", "MiB",
			       (double)t->l.freed * PAGE_BYTES / (1 << 20));
		fl__add_metric(ctx->res, "fault_mib", "MiB", (double)t->l.fault / (1 << 20));
		fl__add_metric(ctx->res, "pt_pages", "", (double)t->l.pt);
	}
out:
	free(t->sparse);
	free(t->ns);
	free(t);
	return ret;
}

const struct fl_workload fl__wl_fragment = {
	.info =
		{
			.name = "fragment",
			.summary = "thpscale's shape: fill memory with mixed order-0 pages, free "
				   "every other one, then fault each enabled mTHP size: share "
				   "that got it, fault latency",
			.params = fr_param_info,
		},
	.files = true,
	.host_root = "mounts a tmpfs",
	.params_size = sizeof(struct fr_params),
	.parse = fr_parse,
	.mem_needed = fr_mem_needed,
	.run = fr_run,
};
