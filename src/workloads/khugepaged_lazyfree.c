// SPDX-License-Identifier: GPL-2.0-only
/*
 * khugepaged_lazyfree.c - seed 003's experiment: three processes started
 * in the order hot1, cold, hot2, each mapping --size bytes (a 2 MiB
 * boundary, 4 KiB faults: the VMA is not MADV_HUGEPAGE yet) and writing a
 * tag to every page; cold then MADV_FREEs all of it (and with
 * --cold-touch N reads the first N pages of each 2 MiB range again: young
 * but clean, as this host's khugepaged found some of cold's pages at the
 * seed's size, docs/fidelity.md). Each asks for THP
 * with MADV_HUGEPAGE in that order, which registers it with khugepaged in
 * that order. Then hot1 and hot2 each read all of their memory --passes
 * times, one load a 4 KiB page (the seed's figures give 327.7 M accesses
 * for hot2: 3.14 s at 104.38 M/s, 2.93 s at 111.89 M/s, which is 10000
 * passes over 128 MiB), or for --seconds if that comes first, while
 * khugepaged (the host's own; the model's thread on a CPU of its own)
 * collapses what it finds worth it. Without seed 003 it spends its scan
 * on cold's lazy-free memory too; with it (--khugepaged-lazyfree=skip on
 * the model) it passes cold by.
 *
 * Every --sample-ms each hot task samples its process (fl_thp_sample()):
 * the share of its memory PMD-mapped and, on the model, the pages its
 * CPU reached through PTEs and through PMDs (a stand-in for the dTLB
 * misses the seed measured, which the TLB now counts). Results, per hot
 * task, the seed's four figures: access_ms (the time its passes took,
 * samples left out), cycles_per_access (at the target's clock: the cost
 * file's clock.mhz on sim, else /proc/cpuinfo; absent where unknown),
 * maccesses_per_s and dtlb_load_misses (the model's TLB; the host's perf
 * counter of the task's thread, absent with a note where the CPU does not
 * count them); then ns_per_access, pmd_pct at the end, full_ms (the first
 * sample that found it wholly PMD-mapped; absent if none did),
 * pte_access_pct (model: the share of its reads through PTEs), passes
 * (reads of all its memory);
 * cold_pmd_pct after the hot phase; hot2's share at eighths of the run
 * (hot2_pmd_pct_<ms>ms).
 * The counters add khugepaged's: thp_collapse_alloc, khugepaged/
 * pages_collapsed and full_scans, fl_scan_<result> and fl_khugepaged_ns
 * (on the host: the scan tracepoint and khugepaged's /proc stat). Every
 * page is read back at the end (cold's too: no memory pressure drops it).
 *
 * Conventions in this file: task 0 is hot1, 1 cold, 2 hot2; times are
 * from the start of the hot phase.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload.h"
#include "../platform/platform.h"

#define PMD_BYTES (2ull << 20)
#define MAX_SAMPLES 4096
#define NR_KL_TASKS 3

static const char *const task_names[NR_KL_TASKS] = { "hot1", "cold", "hot2" };

struct kl_params {
	uint64_t size;
	long passes;
	double seconds;
	long sample_ms;
	long cold_touch;
};

static const struct fl_workload_param_info kl_param_info[] = {
	FL_PARAM_SIZE("size", "128M", PMD_BYTES, 64ull << 30, PMD_BYTES, struct kl_params, size,
		      "bytes each of hot1, cold and hot2 map"),
	FL_PARAM_INT("passes", "10000", 0, 10000000, struct kl_params, passes,
		     "reads of all its memory each hot task makes; 0: for --seconds"),
	FL_PARAM_DOUBLE("seconds", "0", 0, 3600, struct kl_params, seconds,
			"at most this long hot1 and hot2 read; 0: until --passes are done"),
	FL_PARAM_INT("sample-ms", "500", 1, 60000, struct kl_params, sample_ms,
		     "how often each hot task samples its mapping"),
	FL_PARAM_INT("cold-touch", "0", 0, 512, struct kl_params, cold_touch,
		     "pages of each 2 MiB range cold reads after MADV_FREE, young but clean"),
	FL_PARAM_END,
};

/*
 * Seed 003's set-up, which its thread does not state: its kernel had the
 * whole series, so a range costs khugepaged's pass the PTEs its scan
 * looked at (2/4); and khugepaged must reach hot2 within its run while
 * its scan of cold is not over before hot2 reads, which the kernel's 10 s
 * sleep cannot do (one pass in the run) and the selftests' 10 ms does not
 * (cold's scan ends while hot2 is still being written): 100 ms, the value
 * docs/fidelity.md used before the seed was compared.
 */
static const char *const kl_knobs[] = {
	"foliolab/khugepaged_progress=ptes",
	"transparent_hugepage/khugepaged/scan_sleep_millisecs=100",
	NULL,
};

static int kl_parse(const struct fl_config *cfg, void *params, char *err, size_t len)
{
	struct kl_params *p = params;
	int ret = fl__params_parse(cfg, &fl__wl_khugepaged_lazyfree.info, p, err, len);

	if (!ret && !p->passes && !p->seconds) {
		snprintf(err, len,
			 "--passes 0 needs --seconds to end the hot phase: accepted --passes "
			 "1..10000000, or --seconds 0.01..3600 with it");
		ret = -EINVAL;
	}
	return ret;
}

static uint64_t kl_mem_needed(const void *params)
{
	/* three mappings and, for each, a THP's worth more while a range collapses */
	return fl__mem_for_mappings(NR_KL_TASKS,
				    ((const struct kl_params *)params)->size + 2 * PMD_BYTES);
}

struct kl_sample {
	uint64_t t_ns;
	struct fl_thp_sample s;
};

/* In shared_alloc() memory: the host's processes each have their own copy of the rest. */
struct kl_shared {
	struct fl_tag_tally tags;
	int error;
	int phase;			 /* KL_SETUP, KL_HOT, KL_CHECK */
	int cur;			 /* setup and check: the task whose process runs it */
	uint64_t size;			 /* of each mapping */
	uint64_t seconds_ns;		 /* of the hot phase, at most (0: no bound) */
	long passes_max;		 /* each hot task's (0: no bound) */
	uint64_t access_ns[NR_KL_TASKS]; /* the time its passes took */
	int dtlb_errno;			 /* why the target counts no dTLB misses, or -1 */
	uint64_t sample_ns;		 /* between samples */
	uint64_t cold_touch;		 /* pages a range cold reads after MADV_FREE */
	uint64_t addr[NR_KL_TASKS];
	long passes[NR_KL_TASKS];
	int nr_samples[NR_KL_TASKS];
	struct kl_sample samples[NR_KL_TASKS][MAX_SAMPLES];
	struct fl_thp_sample cold_end; /* cold after the hot phase */
};

enum { KL_SETUP, KL_HOT, KL_CHECK };

static uint64_t task_tag(int t)
{
	return ((uint64_t)t + 1) << 40;
}

/* map, write; cold MADV_FREEs; then MADV_HUGEPAGE: khugepaged's in this order */
static int kl_setup(struct fl_thread *th, struct kl_shared *sh, int t)
{
	int ret = fl_mmap_apart(th, sh->size, &sh->addr[t]);
	uint64_t off, sum;

	if (!ret)
		ret = fl_write(th, sh->addr[t], sh->size, 4096, task_tag(t), 1);
	if (!ret && t == 1)
		ret = fl_madvise(th, sh->addr[t], sh->size, FL_MADV_FREE);
	/* young again, still clean: khugepaged finds them referenced */
	for (off = 0; !ret && t == 1 && sh->cold_touch && off < sh->size; off += PMD_BYTES)
		ret = fl_read(th, sh->addr[t] + off, sh->cold_touch * 4096, 4096, NULL, &sum);
	if (!ret)
		ret = fl_madvise(th, sh->addr[t], sh->size, FL_MADV_HUGEPAGE);
	return ret;
}

static int kl_sample_now(struct fl_thread *th, struct kl_shared *sh, int t, uint64_t t_ns)
{
	struct kl_sample *s;
	int ret;

	if (sh->nr_samples[t] == MAX_SAMPLES)
		return 0;
	s = &sh->samples[t][sh->nr_samples[t]];
	ret = fl_thp_sample(th, &s->s);
	if (!ret) {
		s->t_ns = t_ns;
		sh->nr_samples[t]++;
	}
	return ret;
}

/* hot: read all of it again and again, timing the passes, sampling between them */
static int kl_hot(struct fl_thread *th, struct kl_shared *sh, int t)
{
	uint64_t t0 = fl_clock_ns(), now = t0, next = t0, sum, a;
	int ret = 0;

	while (!ret && (!sh->seconds_ns || now - t0 < sh->seconds_ns) &&
	       (!sh->passes_max || sh->passes[t] < sh->passes_max)) {
		if (now >= next) {
			ret = kl_sample_now(th, sh, t, now - t0);
			next += sh->sample_ns;
			continue;
		}
		a = fl_clock_ns();
		ret = fl_read(th, sh->addr[t], sh->size, 4096, NULL, &sum);
		now = fl_clock_ns();
		sh->access_ns[t] += now - a;
		sh->passes[t]++;
	}
	if (!ret)
		ret = kl_sample_now(th, sh, t, now - t0);
	return ret;
}

static void kl_task(struct fl_thread *th, void *arg)
{
	struct kl_shared *sh = arg;
	/* setup and check: sh->cur's process; hot: thread 0 is hot1, thread 1 hot2 */
	int t = sh->phase == KL_HOT ? (th->index ? 2 : 0) : sh->cur, ret = 0;

	switch (sh->phase) {
	case KL_SETUP:
		ret = kl_setup(th, sh, t);
		break;
	case KL_HOT:
		ret = kl_hot(th, sh, t);
		break;
	case KL_CHECK:
		/* cold's mapping as the hot phase left it, before the read touches it */
		if (t == 1)
			ret = fl_thp_sample(th, &sh->cold_end);
		if (!ret)
			ret = fl__check_tags(th, sh->addr[t], sh->size, task_tag(t), 1, &sh->tags);
		if (!ret)
			ret = fl_munmap(th, sh->addr[t], sh->size);
		break;
	}
	if (ret)
		fl__first_error(&sh->error, ret);
}

/* the PMD-mapped share of task @t's memory by its last sample at or before @t_ns */
static double pmd_pct_at(const struct kl_shared *sh, int t, uint64_t t_ns)
{
	const struct kl_sample *s = sh->samples[t];
	int i, n = sh->nr_samples[t];

	for (i = 0; i + 1 < n && s[i + 1].t_ns <= t_ns; i++)
		;
	return 100.0 * (double)s[i].s.anon_huge_bytes / (double)sh->size;
}

/* A metric of task @t: "<task>_<what>". */
static void task_metric(struct fl_wl_ctx *ctx, int t, const char *what, const char *unit, double v)
{
	char name[48];

	snprintf(name, sizeof(name), "%s_%s", task_names[t], what);
	fl__add_metric(ctx->res, name, unit, v);
}

/*
 * The seed's figures for hot task @t: its passes' time, cycles per access
 * at the target's clock, accesses a second, dTLB-load-misses between its
 * first and last sample; and ns per access.
 */
static void kl_access_results(struct fl_wl_ctx *ctx, struct kl_shared *sh, int t)
{
	const struct kl_sample *s = sh->samples[t];
	int n = sh->nr_samples[t];
	double accesses = (double)sh->passes[t] * (double)(sh->size / 4096);
	double ns = accesses > 0 ? (double)sh->access_ns[t] / accesses : 0;
	double mhz = ctx->target->clock_mhz;

	task_metric(ctx, t, "access_ms", "ms", (double)sh->access_ns[t] / 1e6);
	if (mhz > 0)
		task_metric(ctx, t, "cycles_per_access", "", ns * mhz / 1000.0);
	task_metric(ctx, t, "maccesses_per_s", "M/s", ns > 0 ? 1000.0 / ns : 0);
	if (s[0].s.dtlb_load_misses >= 0 && s[n - 1].s.dtlb_load_misses >= 0)
		task_metric(ctx, t, "dtlb_load_misses", "",
			    (double)(s[n - 1].s.dtlb_load_misses - s[0].s.dtlb_load_misses));
	else
		sh->dtlb_errno = s[n - 1].s.dtlb_errno;
	task_metric(ctx, t, "ns_per_access", "ns", ns);
}

/*
 * The results (26 at most): per hot task the seed's figures
 * (kl_access_results()), when it was first wholly PMD-mapped, its share
 * at the end, its PTE-access share (model) and its passes; cold's share
 * after the hot phase; hot2's share at seven points of its hot phase
 * (hot2_pmd_pct_<ms>ms).
 */
static void kl_results(struct fl_wl_ctx *ctx, struct kl_shared *sh)
{
	char name[48];
	uint64_t last_ms, end;
	int t, i;

	for (t = 0; t < NR_KL_TASKS; t += 2) {
		const struct kl_sample *s = sh->samples[t];
		int n = sh->nr_samples[t];

		if (!n)
			continue;
		kl_access_results(ctx, sh, t);
		for (i = 0; i < n; i++) {
			if (s[i].s.anon_huge_bytes >= sh->size) {
				task_metric(ctx, t, "full_ms", "ms", (double)s[i].t_ns / 1e6);
				break;
			}
		}
		task_metric(ctx, t, "pmd_pct", "%",
			    100.0 * (double)s[n - 1].s.anon_huge_bytes / (double)sh->size);
		if (s[n - 1].s.pte_accesses >= 0) {
			int64_t pte = s[n - 1].s.pte_accesses - s[0].s.pte_accesses;
			int64_t pmd = s[n - 1].s.pmd_accesses - s[0].s.pmd_accesses;

			task_metric(ctx, t, "pte_access_pct", "%",
				    pte + pmd ? 100.0 * (double)pte / (double)(pte + pmd) : 0);
		}
		task_metric(ctx, t, "passes", "", (double)sh->passes[t]);
	}
	if (sh->dtlb_errno > 0)
		snprintf(ctx->res->note, sizeof(ctx->res->note),
			 "dTLB-load-misses not counted: perf_event_open of dTLB-load-misses: %s",
			 strerror(sh->dtlb_errno));
	else if (!sh->dtlb_errno)
		snprintf(ctx->res->note, sizeof(ctx->res->note),
			 "dTLB-load-misses not counted: no TLB modelled (foliolab/tlb=off)");
	fl__add_metric(ctx->res, "cold_pmd_pct", "%",
		       100.0 * (double)sh->cold_end.anon_huge_bytes / (double)sh->size);
	if (!sh->nr_samples[2])
		return;
	end = sh->samples[2][sh->nr_samples[2] - 1].t_ns;
	for (i = 1, last_ms = 0; i < 8; i++) {
		uint64_t at = end / 8 * (uint64_t)i;

		if (at / 1000000 == last_ms)
			continue; /* a run shorter than 8 ms: one point a millisecond */
		last_ms = at / 1000000;
		snprintf(name, sizeof(name), "hot2_pmd_pct_%llums", (unsigned long long)last_ms);
		fl__add_metric(ctx->res, name, "%", pmd_pct_at(sh, 2, at));
	}
}

static int kl_run(struct fl_wl_ctx *ctx, const void *params)
{
	const struct kl_params *p = params;
	const struct fl_target_ops *ops = ctx->target->ops;
	struct kl_shared *sh = ops->shared_alloc(ctx->target, sizeof(*sh));
	struct fl_proc *self, *proc[NR_KL_TASKS], *hot[2];
	int t, made = 0, ret, ret2;

	if (!sh)
		return -ENOMEM;
	sh->size = p->size;
	sh->seconds_ns = (uint64_t)(p->seconds * 1e9);
	sh->passes_max = p->passes;
	sh->dtlb_errno = -1;
	sh->sample_ns = (uint64_t)p->sample_ms * 1000000;
	sh->cold_touch = (uint64_t)p->cold_touch;
	/* the workload's first process is the host's runner itself: it stays idle */
	ret = ops->proc_create(ctx->target, &self);
	if (ret)
		return ret;
	ctx->progress_total = NR_KL_TASKS + 2;
	for (t = 0; !ret && t < NR_KL_TASKS; t++) {
		ret = ops->proc_create(ctx->target, &proc[t]);
		if (ret)
			break;
		made++;
		sh->phase = KL_SETUP;
		sh->cur = t;
		/* in the order hot1, cold, hot2 */
		ret = ops->run_tasks(ctx->target, &proc[t], 1, kl_task, sh);
		if (!ret)
			ret = sh->error;
		fl_progress(ctx, 1);
	}
	if (!ret) {
		hot[0] = proc[0];
		hot[1] = proc[2];
		sh->phase = KL_HOT;
		ret = ops->run_tasks(ctx->target, hot, 2, kl_task, sh);
		if (!ret)
			ret = sh->error;
		fl_progress(ctx, 1);
	}
	for (t = 0; !ret && t < NR_KL_TASKS; t++) {
		sh->phase = KL_CHECK;
		sh->cur = t;
		ret = ops->run_tasks(ctx->target, &proc[t], 1, kl_task, sh);
		if (!ret)
			ret = sh->error;
	}
	fl_progress(ctx, 1);
	while (made > 0) {
		ret2 = ops->proc_exit(proc[--made]);
		if (!ret)
			ret = ret2;
	}
	ret2 = ops->proc_exit(self);
	if (!ret)
		ret = ret2;
	ctx->tags_checked = sh->tags.checked;
	ctx->tags_wrong = sh->tags.wrong;
	if (!ret)
		kl_results(ctx, sh);
	return ret;
}

const struct fl_workload fl__wl_khugepaged_lazyfree = {
	.info =
		{
			.name = "khugepaged-lazyfree",
			.summary = "seed 003: hot1, cold (MADV_FREE), hot2; khugepaged collapses "
				   "as the hot ones read: the PMD-mapped share over time",
			.params = kl_param_info,
			.knobs = kl_knobs,
		},
	.params_size = sizeof(struct kl_params),
	.parse = kl_parse,
	.threads = 2,
	.mem_needed = kl_mem_needed,
	.run = kl_run,
	.needs_khugepaged = true,
};
