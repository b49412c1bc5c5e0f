// SPDX-License-Identifier: GPL-2.0-only
/*
 * knobs.c - the model's knobs, declared once, as the kernel's sysctl
 * tables declare theirs: a name, what it accepts (words, or a whole number
 * in a range), the variable it sets, whether the host has it too, its
 * default and a line of help. Setting and reading a knob, the command
 * line's options and refusals, and `foliolab help knobs` all come from
 * this table (fl_knob_info_at(), fl_knob_find(), fl_knob_check()).
 *
 * Two families live here: the vm sysctls both targets set ("vm/<name>",
 * the host's /proc/sys/vm/<name>) and the model's own policies and test
 * hooks ("foliolab/<name>"). The transparent_hugepage/ tree is the
 * kernel's sysfs, one folder per size: huge_memory.c and khugepaged.c
 * keep its handlers, and a name under it is passed to them.
 *
 * Conventions in this file: knobs are set and read with no model thread
 * running but the caller's (before and after a run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define THP_PREFIX "transparent_hugepage/"

/* where a knob's value lives, and how wide it is */
enum knob_var { V_BOOL, V_INT, V_UINT, V_ULONG };

struct knob {
	struct fl_knob_info info;
	void *var;
	enum knob_var vtype;
	const int *values; /* FL_KNOB_WORDS: what each word stores (NULL: its index) */
	/* a store with more to it than the variable (NULL: the variable alone) */
	void (*store)(const struct knob *k, long v);
	/* the value as read back, where the variable alone does not say it */
	const char *(*show)(const struct knob *k);
};

/* ---- the named LRU-cache policies (foliolab/lru_cache) ---- */

static const struct {
	const char *name;
	struct lru_cache_policy p;
} policies[] = {
	{ "order0", { .folio_pages = 2, .batch_pages = 0, .batch_slots = FOLIO_BATCH_SIZE } },
	{ "max16", { .folio_pages = 17, .batch_pages = 0, .batch_slots = FOLIO_BATCH_SIZE } },
	{ "pages31", { .folio_pages = 31, .batch_pages = 31, .batch_slots = FOLIO_BATCH_SIZE } },
};

static void lru_cache_store(const struct knob *k, long v)
{
	(void)k;
	fl__lru_cache_policy = policies[v].p;
}

static const char *lru_cache_show(const struct knob *k)
{
	size_t i;

	(void)k;
	/* the slot count is reported on its own: max16 on 15 slots is still max16 */
	for (i = 0; i < ARRAY_SIZE(policies); i++)
		if (policies[i].p.folio_pages == fl__lru_cache_policy.folio_pages &&
		    policies[i].p.batch_pages == fl__lru_cache_policy.batch_pages)
			return policies[i].name;
	return "custom";
}

/* vm.min_free_kbytes and vm.watermark_scale_factor move the watermarks */
static void watermark_store(const struct knob *k, long v)
{
	fl__vm_sysctl_set(k->var, (int)v);
}

static void fail_alloc_store(const struct knob *k, long v)
{
	(void)k;
	fl__fail_alloc_after(v);
}

static const char *const on_off[] = { "on", "off", NULL };
static const int on_off_values[] = { 1, 0 };
static const char *const on_off_auto[] = { "on", "off", "auto", NULL };
static const int on_off_auto_values[] = { 1, 0, -1 };
static const char *const policy_words[] = { "order0", "max16", "pages31", NULL };
static const char *const lazy_present[] = { "lazy", "present", NULL };
static const char *const walks[] = { "forward", "reverse", NULL };
static const char *const collapse_skip[] = { "collapse", "skip", NULL };
static const char *const range_ptes[] = { "range", "ptes", NULL };
static const char *const folio_batch[] = { "per-folio", "per-batch", NULL };

#define WORDS(w) .type = FL_KNOB_WORDS, .words = (w)
#define ON_OFF .type = FL_KNOB_WORDS, .words = on_off
#define NUMBER(l, h) .type = FL_KNOB_NUMBER, .lo = (l), .hi = (h)

/*
 * The table, in the order a run's record lists the knobs. 6.18's ranges
 * for the sysctls (kernel/sysctl.c, mm/page_alloc.c, mm/swap.c
 * page_cluster_max: proc_dointvec_minmax's bounds).
 */
static const struct knob knobs[] = {
	{ .info = { .name = "vm/swappiness",
		    NUMBER(0, 200),
		    .dflt = "60",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "how much reclaim prefers anon to file pages" },
	  .var = &vm_swappiness,
	  .vtype = V_ULONG },
	{ .info = { .name = "vm/min_free_kbytes",
		    NUMBER(0, 0x7fffffff),
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "the min watermark in KiB (default: computed at boot from the memory "
			    "size, as calculate_min_free_kbytes())" },
	  .var = &min_free_kbytes,
	  .vtype = V_INT,
	  .store = watermark_store },
	{ .info = { .name = "vm/watermark_scale_factor",
		    NUMBER(1, 3000),
		    .dflt = "10",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "the gap between the watermarks, in 1/10000 of memory" },
	  .var = &watermark_scale_factor,
	  .vtype = V_INT,
	  .store = watermark_store },
	{ .info = { .name = "vm/watermark_boost_factor",
		    NUMBER(0, 0x7fffffff),
		    .dflt = "15000",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "a fallback inside a pageblock raises the watermarks by a pageblock, "
			    "up "
			    "to this many 1/10000 of the high watermark; 0: never" },
	  .var = &watermark_boost_factor,
	  .vtype = V_INT },
	{ .info = { .name = "vm/compaction_proactiveness",
		    NUMBER(0, 100),
		    .dflt = "20",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "kcompactd compacts ahead of need while the node's fragmentation score "
			    "is above 100 minus this (plus 10); 0: never" },
	  .var = &sysctl_compaction_proactiveness,
	  .vtype = V_INT },
	{ .info = { .name = "vm/extfrag_threshold",
		    NUMBER(0, 1000),
		    .dflt = "500",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "a costly-order compaction runs only when the fragmentation index "
			    "(0 want of memory .. 1000 want of contiguity) is above this" },
	  .var = &sysctl_extfrag_threshold,
	  .vtype = V_INT },
	{ .info = { .name = "vm/min_unmapped_ratio",
		    NUMBER(0, 100),
		    .dflt = "1",
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "node reclaim (a write to nodeN/reclaim) runs only while more than "
			    "this "
			    "percent of the node is unmapped page cache" },
	  .var = &sysctl_min_unmapped_ratio,
	  .vtype = V_INT },
	{ .info = { .name = "vm/page-cluster",
		    NUMBER(0, 31),
		    .flags = FL_KNOB_HOST,
		    .group = "sysctls (both targets)",
		    .help = "swap readahead of 2^N pages (default: 2 below 16 MiB of memory, else "
			    "3, as swap_setup())" },
	  .var = &page_cluster,
	  .vtype = V_INT },
	{ .info = { .name = "foliolab/lru_cache",
		    .option = "--lru-cache",
		    WORDS(policy_words),
		    .dflt = "pages31",
		    .group = "per-CPU LRU cache (model)",
		    .note = "order0: order-0 folios only, a large folio flushes the batch at once; "
			    "max16: folios of up to 16 pages (the 2023 proposal); pages31: folios "
			    "of fewer than 31 pages, a batch flushing once it holds more than 31 "
			    "pages (seed 000)",
		    .help = "which folios may stay in the per-CPU LRU caches; compare takes a "
			    "list, "
			    "such as order0,max16,pages31" },
	  .store = lru_cache_store,
	  .show = lru_cache_show },
	{ .info = { .name = "foliolab/lru_cache_folio_pages",
		    .option = "--lru-cache-folio-pages",
		    NUMBER(1, 1024),
		    .group = "per-CPU LRU cache (model)",
		    .help = "cache folios of fewer than N pages (default: the policy's)" },
	  .var = &fl__lru_cache_policy.folio_pages,
	  .vtype = V_UINT },
	{ .info = { .name = "foliolab/lru_cache_batch_pages",
		    .option = "--lru-cache-batch-pages",
		    NUMBER(0, 254),
		    .note = "0: no cap",
		    .group = "per-CPU LRU cache (model)",
		    .help = "flush a batch holding more than N pages (default: the policy's)" },
	  .var = &fl__lru_cache_policy.batch_pages,
	  .vtype = V_UINT },
	{ .info = { .name = "foliolab/lru_cache_batch_slots",
		    .option = "--lru-cache-batch-slots",
		    NUMBER(1, FOLIO_BATCH_SIZE),
		    .group = "per-CPU LRU cache (model)",
		    .help = "flush a batch once it holds N folios (default 31; 15 was the batch of "
			    "2023, PAGEVEC_SIZE)" },
	  .var = &fl__lru_cache_policy.batch_slots,
	  .vtype = V_UINT },
	{ .info = { .name = "foliolab/lru_add_free_dead",
		    .option = "--lru-add-free-dead",
		    ON_OFF,
		    .dflt = "off",
		    .group = "per-CPU LRU cache (model)",
		    .help = "free folios already dead in an lru_add batch without putting them on "
			    "the LRU (7.x; off = 6.18)" },
	  .var = &fl__lru_add_free_dead,
	  .values = on_off_values },
	{ .info = { .name = "foliolab/no_zero_page",
		    ON_OFF,
		    .dflt = "off",
		    .group = "faults (model)",
		    .help = "read faults allocate: no zero page or huge zero folio (the host's "
			    "pvm_no_zero_page=1, a PVM boot option stock kernels lack; a compare "
			    "with the host copies the host's)" },
	  .var = &fl__no_zero_page,
	  .values = on_off_values },
	{ .info = { .name = "foliolab/huge_zero_folio",
		    WORDS(lazy_present),
		    .dflt = "lazy",
		    .group = "faults (model)",
		    .note = "lazy: allocated at the first read fault, as after boot; present: "
			    "allocated before the run",
		    .help = "when the huge zero folio exists (a compare with the host sets "
			    "present: "
			    "the host's run makes sure it has one)" },
	  .var = &fl__huge_zero_at_start },
	{ .info = { .name = "foliolab/page_mapcount",
		    ON_OFF,
		    .dflt = "on",
		    .group = "faults (model)",
		    .note = "on: CONFIG_PAGE_MAPCOUNT, per-page mapcounts; off: "
			    "CONFIG_NO_PAGE_MAPCOUNT",
		    .help = "keep a mapcount per page beside the folio's (a compare with the host "
			    "copies the host's)" },
	  .var = &fl__page_mapcount,
	  .values = on_off_values },
	{ .info = { .name = "foliolab/split_walk",
		    .option = "--split-walk",
		    WORDS(walks),
		    .dflt = "forward",
		    .flags = FL_KNOB_LIST,
		    .group = "splitting (model)",
		    .note = "forward: 6.18; reverse: seed 002",
		    .help = "publish the after-split folios from the first or from the last" },
	  .var = &fl__split_walk_reverse },
	{ .info = { .name = "foliolab/tlb",
		    ON_OFF,
		    .dflt = "on",
		    .group = "faults (model)",
		    .note = "on: each CPU's data TLB of the cost file's geometry; off: every "
			    "access walks, no TLB modelled",
		    .help = "model the data TLB (docs/model.md, \"The data TLB\")" },
	  .var = &fl__tlb_model,
	  .values = on_off_values },
	{ .info = { .name = "foliolab/split_drain",
		    .option = "--split-drain",
		    WORDS(on_off_auto),
		    .dflt = "auto",
		    .group = "splitting (model)",
		    .note = "auto: on when the LRU cache may hold large folios",
		    .help = "drain the per-CPU LRU caches before a split when a cached reference "
			    "may block it (seed 000 3/4)" },
	  .var = &fl__split_drain,
	  .vtype = V_INT,
	  .values = on_off_auto_values },
	{ .info = { .name = "foliolab/cow_reuse_drain",
		    .option = "--cow-reuse-drain",
		    WORDS(on_off_auto),
		    .dflt = "auto",
		    .flags = FL_KNOB_LIST,
		    .group = "fork and khugepaged (model)",
		    .note = "auto: on when the LRU cache may hold large folios",
		    .help = "drain the local LRU cache before copying a large folio it holds on a "
			    "write after fork (seed 000 2/4)" },
	  .var = &fl__cow_reuse_drain,
	  .vtype = V_INT,
	  .values = on_off_auto_values },
	{ .info = { .name = "foliolab/khugepaged_lazyfree",
		    .option = "--khugepaged-lazyfree",
		    WORDS(collapse_skip),
		    .dflt = "collapse",
		    .flags = FL_KNOB_LIST,
		    .group = "fork and khugepaged (model)",
		    .note = "collapse: 6.18; skip: seed 003, in mainline since 7.1",
		    .help = "whether khugepaged collapses lazy-free memory" },
	  .var = &fl__khugepaged_lazyfree_skip },
	{ .info = { .name = "foliolab/khugepaged_progress",
		    .option = "--khugepaged-progress",
		    WORDS(range_ptes),
		    .dflt = "range",
		    .flags = FL_KNOB_LIST,
		    .group = "fork and khugepaged (model)",
		    .note = "range: 6.18, 512 pages a range; ptes: seed 003's series 2/4, 7.1, the "
			    "PTEs a scan looked at",
		    .help = "what a range costs khugepaged's pass" },
	  .var = &fl__khugepaged_progress_ptes },
	{ .info = { .name = "foliolab/deferred_split_drain",
		    .option = "--deferred-split-drain",
		    WORDS(folio_batch),
		    .dflt = "per-batch",
		    .group = "splitting (model)",
		    .note = "per-folio: seed 000 3/4 alone; per-batch: 4/4",
		    .help = "the deferred split shrinker drains before each folio's split, or once "
			    "per scan batch" },
	  .var = &fl__deferred_split_drain_batch },
	{ .info = { .name = "foliolab/memcg_stats_flush",
		    ON_OFF,
		    .dflt = "on",
		    .group = "reclaim (model)",
		    .note = "on: reclaim reads a memcg's sizes as last flushed, 6.18; off: exact",
		    .help = "memcg statistics flushed in batches" },
	  .var = &fl__memcg_stats_flush,
	  .values = on_off_values },
	{ .info = { .name = "foliolab/fail_page_alloc_orders",
		    .type = FL_KNOB_ORDERS,
		    .hi = MAX_PAGE_ORDER,
		    .dflt = "none",
		    .flags = FL_KNOB_HOOK,
		    .group = "test hooks (model)",
		    .help = "allocations of these orders fail (a list such as 4,9)" },
	  .var = &fl__fail_page_alloc_orders,
	  .vtype = V_ULONG },
	{ .info = { .name = "foliolab/fail_alloc_after",
		    NUMBER(0, 1000000000),
		    .dflt = "0",
		    .note = "0: off",
		    .flags = FL_KNOB_HOOK,
		    .group = "test hooks (model)",
		    .help = "the Nth allocation of host memory after the knob is set fails" },
	  .store = fail_alloc_store },
	{ .info = { .name = "foliolab/corrupt_tag_every",
		    NUMBER(0, 1000000000),
		    .dflt = "0",
		    .note = "0: off",
		    .flags = FL_KNOB_HOOK,
		    .group = "test hooks (model)",
		    .help = "every Nth store by the \"hardware\" writes a wrong content tag, so "
			    "that the workloads' read-back check fails" },
	  .var = &fl__corrupt_tag_every,
	  .vtype = V_ULONG },
};

FL_API const struct fl_knob_info *fl_knob_info_at(size_t i)
{
	return i < ARRAY_SIZE(knobs) ? &knobs[i].info : NULL;
}

static const struct knob *knob_of(const struct fl_knob_info *info)
{
	return container_of(info, struct knob, info);
}

FL_API const struct fl_knob_info *fl_knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (!strcmp(name, knobs[i].info.name))
			return &knobs[i].info;
	return NULL;
}

FL_API const struct fl_knob_info *fl_knob_option(const char *option)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (knobs[i].info.option && !strcmp(option, knobs[i].info.option))
			return &knobs[i].info;
	return NULL;
}

static int parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* @value's word index, or -1 */
static int word_index(const struct fl_knob_info *k, const char *value)
{
	int i;

	for (i = 0; k->words[i]; i++)
		if (!strcmp(value, k->words[i]))
			return i;
	return -1;
}

/* "a list of orders 0..10, or none" into a mask of orders */
static int parse_orders(const char *value, unsigned long hi, unsigned long *mask)
{
	char buf[64], *tok, *save = NULL;
	unsigned long order;

	*mask = 0;
	if (!strcmp(value, "none"))
		return 0;
	/* an empty element ("4,,9", ",4") is a slip, not a list */
	if (!*value || strlen(value) >= sizeof(buf) || *value == ',' ||
	    value[strlen(value) - 1] == ',' || strstr(value, ",,"))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_ulong(tok, 0, hi, &order))
			return -EINVAL;
		*mask |= 1ul << order;
	}
	return 0;
}

/* @k's value as stored: a word's value, a number or a mask; -EINVAL if not accepted */
static int knob_parse(const struct fl_knob_info *k, const char *value, long *out)
{
	const struct knob *kn = knob_of(k);
	unsigned long v;
	int w;

	switch (k->type) {
	case FL_KNOB_WORDS:
		w = word_index(k, value);
		if (w < 0)
			return -EINVAL;
		*out = kn->values ? kn->values[w] : w;
		return 0;
	case FL_KNOB_NUMBER:
		if (parse_ulong(value, k->lo, k->hi, &v))
			return -EINVAL;
		*out = (long)v;
		return 0;
	case FL_KNOB_ORDERS:
		if (parse_orders(value, k->hi, &v))
			return -EINVAL;
		*out = (long)v;
		return 0;
	}
	return -EINVAL;
}

FL_API int fl_knob_accepted(const struct fl_knob_info *k, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	switch (k->type) {
	case FL_KNOB_WORDS:
		n += (size_t)snprintf(buf + n, len - n, "one of ");
		for (i = 0; k->words[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", k->words[i]);
		break;
	case FL_KNOB_NUMBER:
		n += (size_t)snprintf(buf + n, len - n, "a whole number %lu..%lu", k->lo, k->hi);
		break;
	case FL_KNOB_ORDERS:
		n += (size_t)snprintf(buf + n, len - n, "a list of orders 0..%lu, or none", k->hi);
		break;
	}
	if (k->note && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%s)", k->note);
	return n < len ? 0 : -ENOSPC;
}

FL_API int fl_knob_check(const struct fl_knob_info *k, const char *value, char *err, size_t len)
{
	char accepted[400];
	long v;

	if (!knob_parse(k, value, &v))
		return 0;
	fl_knob_accepted(k, accepted, sizeof(accepted));
	snprintf(err, len, "'%s' is not %s", value, accepted);
	return -EINVAL;
}

/* @v into @k's variable; through its store hook unless @raw (a default, before boot) */
static void knob_store(const struct knob *k, long v, bool raw)
{
	if (k->store && !(raw && k->var)) {
		k->store(k, v);
		return;
	}
	switch (k->vtype) {
	case V_BOOL:
		WRITE_ONCE(*(bool *)k->var, v != 0);
		break;
	case V_INT:
		WRITE_ONCE(*(int *)k->var, (int)v);
		break;
	case V_UINT:
		WRITE_ONCE(*(unsigned int *)k->var, (unsigned int)v);
		break;
	case V_ULONG:
		WRITE_ONCE(*(unsigned long *)k->var, (unsigned long)v);
		break;
	}
}

static long knob_load(const struct knob *k)
{
	switch (k->vtype) {
	case V_BOOL:
		return READ_ONCE(*(bool *)k->var);
	case V_INT:
		return READ_ONCE(*(int *)k->var);
	case V_UINT:
		return READ_ONCE(*(unsigned int *)k->var);
	case V_ULONG:
		return (long)READ_ONCE(*(unsigned long *)k->var);
	}
	return 0;
}

/* @k's value as a record lists it */
static void knob_show(const struct knob *k, char *buf, size_t len)
{
	long v;
	int i;

	if (k->show) {
		snprintf(buf, len, "%s", k->show(k));
		return;
	}
	v = knob_load(k);
	if (k->info.type == FL_KNOB_WORDS) {
		for (i = 0; k->info.words[i]; i++) {
			if ((k->values ? k->values[i] : i) == v) {
				snprintf(buf, len, "%s", k->info.words[i]);
				return;
			}
		}
	}
	snprintf(buf, len, "%ld", v);
}

FL_API int fl_knob_names(unsigned int flags, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(knobs) && n < len; i++)
		if ((knobs[i].info.flags & flags) == flags)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      knobs[i].info.name);
	return n < len ? 0 : -ENOSPC;
}

/**
 * fl__mm_knob_set() - set one knob by its sysfs-style name.
 * Return: 0, -ENOENT (unknown knob) or -EINVAL (bad value); @err says
 * what was wrong and what is accepted.
 */
int fl__mm_knob_set(const char *name, const char *value, char *err, size_t len)
{
	const struct fl_knob_info *info;
	char why[480];
	long v;

	if (!strncmp(name, THP_PREFIX, strlen(THP_PREFIX)))
		return fl__thp_knob_set(name + strlen(THP_PREFIX), value, err, len);
	info = fl_knob_find(name);
	if (!info) {
		if (!strncmp(name, "vm/", 3)) {
			fl_knob_names(FL_KNOB_HOST, why, sizeof(why));
			snprintf(err, len, "%s: accepted vm knobs are %s", name, why);
		} else {
			snprintf(err, len, "no such model knob '%s'", name);
		}
		return -ENOENT;
	}
	if (knob_parse(info, value, &v)) {
		fl_knob_check(info, value, why, sizeof(why));
		snprintf(err, len, "%s: %s", name, why);
		return -EINVAL;
	}
	knob_store(knob_of(info), v, false);
	return 0;
}

/** fl__mm_knobs_default() - every knob at its default (those computed at boot: by boot). */
void fl__mm_knobs_default(void)
{
	size_t i;
	long v;

	fl__thp_knobs_default();
	fl__khugepaged_knobs_default();
	/* the variables alone: the watermarks' hook waits for the memory boot sets up */
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (knobs[i].info.dflt && !knob_parse(&knobs[i].info, knobs[i].info.dflt, &v))
			knob_store(&knobs[i], v, true);
}

/** fl__mm_knobs_read() - every knob and its value, in sysfs order, then the table's. */
int fl__mm_knobs_read(struct fl_knobs *out)
{
	static const char *const plain[] = { "enabled", "defrag", "use_zero_page",
					     "shrink_underused", "shmem_enabled" };
	char name[FL_NAME_MAX], sub[40], val[FL_VALUE_MAX];
	size_t i;
	int order, ret = 0;

	out->nr = 0;
	for (i = 0; i < ARRAY_SIZE(plain); i++) {
		fl__thp_knob_get(plain[i], val, sizeof(val));
		snprintf(name, sizeof(name), THP_PREFIX "%s", plain[i]);
		ret |= fl_knobs_set(out, name, val);
	}
	for (i = 0; fl__khugepaged_knob_name((int)i); i++) {
		snprintf(sub, sizeof(sub), "khugepaged/%s", fl__khugepaged_knob_name((int)i));
		fl__thp_knob_get(sub, val, sizeof(val));
		snprintf(name, sizeof(name), THP_PREFIX "%s", sub);
		ret |= fl_knobs_set(out, name, val);
	}
	for (order = 1; order <= PMD_ORDER; order++) {
		if (order >= 2) {
			snprintf(sub, sizeof(sub), "hugepages-%lukB/enabled",
				 (PAGE_SIZE << order) / 1024);
			fl__thp_knob_get(sub, val, sizeof(val));
			snprintf(name, sizeof(name), THP_PREFIX "%s", sub);
			ret |= fl_knobs_set(out, name, val);
		}
		snprintf(sub, sizeof(sub), "hugepages-%lukB/shmem_enabled",
			 (PAGE_SIZE << order) / 1024);
		fl__thp_knob_get(sub, val, sizeof(val));
		snprintf(name, sizeof(name), THP_PREFIX "%s", sub);
		ret |= fl_knobs_set(out, name, val);
	}
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (knobs[i].info.flags & FL_KNOB_HOOK)
			continue;
		knob_show(&knobs[i], val, sizeof(val));
		ret |= fl_knobs_set(out, knobs[i].info.name, val);
	}
	return ret;
}
