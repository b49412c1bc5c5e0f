// SPDX-License-Identifier: GPL-2.0-only
/*
 * mm_init.c - booting and shutting down the model kernel, its knobs, and
 * the end-of-run checks (mm/mm_init.c in the kernel, plus the sysfs
 * handlers of the knobs the seeds argue about).
 *
 * Knob names follow /sys/kernel/mm/: "transparent_hugepage/enabled",
 * "transparent_hugepage/hugepages-16kB/enabled", ... The model's own
 * policies live under "foliolab/": lru_cache (order0, max16, pages31),
 * lru_cache_folio_pages, lru_cache_batch_pages, lru_cache_batch_slots,
 * lru_add_free_dead, no_zero_page, and the test hooks fail_page_alloc_orders,
 * fail_alloc_after (the Nth allocation of host memory fails) and
 * corrupt_tag_every (every Nth store by "hardware" writes a wrong tag, so
 * a test can see the workloads' read-back check fail).
 *
 * Conventions in this file: the caller of boot/shutdown is bound to CPU 0
 * and no other model thread runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "swap.h"
#include "fs.h"
#include "../lib/util.h"

#define THP_PREFIX "transparent_hugepage/"

struct named_policy {
	const char *name;
	struct lru_cache_policy p;
};

static const struct named_policy policies[] = {
	{ "order0", { .folio_pages = 2, .batch_pages = 0, .batch_slots = FOLIO_BATCH_SIZE } },
	{ "max16", { .folio_pages = 17, .batch_pages = 0, .batch_slots = FOLIO_BATCH_SIZE } },
	{ "pages31", { .folio_pages = 31, .batch_pages = 31, .batch_slots = FOLIO_BATCH_SIZE } },
};

static void knobs_default(void)
{
	fl__thp_knobs_default();
	fl__khugepaged_knobs_default();
	fl__lru_cache_policy = policies[2].p;
	fl__lru_add_free_dead = false;
	fl__no_zero_page = false;
	fl__huge_zero_at_start = false;
	fl__page_mapcount = true;
	fl__split_walk_reverse = false;
	fl__tlb_model = true;
	fl__split_drain = -1;
	fl__cow_reuse_drain = -1;
	fl__deferred_split_drain_batch = true;
	fl__memcg_stats_flush = true;
	fl__fail_page_alloc_orders = 0;
	fl__corrupt_tag_every = 0;
	vm_swappiness = 60;
	watermark_scale_factor = 10; /* min_free_kbytes: computed at boot */
	fl__fail_alloc_after(0);
}

int fl__mm_boot(const struct fl_mm_config *cfg, char *err, size_t len)
{
	unsigned long unit = (1ul << MAX_PAGE_ORDER) * (unsigned long)cfg->nr_nodes;

	if (cfg->nr_nodes < 1 || cfg->nr_nodes > MAX_NUMNODES) {
		snprintf(err, len, "--nodes %d: accepted 1..%d", cfg->nr_nodes, MAX_NUMNODES);
		return -EINVAL;
	}
	if (cfg->nr_pages < unit) {
		snprintf(err, len, "memory too small: need at least %lu KiB for %d node(s)",
			 unit * (PAGE_SIZE / 1024), cfg->nr_nodes);
		return -EINVAL;
	}
	knobs_default();
	/* swap_setup(): 2 below 16 MiB of memory, else 3 */
	page_cluster = (cfg->nr_pages >> (20 - PAGE_SHIFT)) < 16 ? 2 : 3;
	fl__rmap_init();
	fl__khugepaged_reset();
	fl__khugepaged_cpu = cfg->khugepaged ? nr_cpu_ids_get() - 1 : -1;
	if (fl__vmstat_init())
		goto nomem;
	if (fl__page_alloc_init(cfg->nr_pages / unit * unit, cfg->nr_nodes, cfg->nr_cpus))
		goto nomem_vmstat;
	if (fl__swap_init())
		goto nomem_pages;
	if (fl__memcg_init()) {
		fl__swap_exit();
		goto nomem_pages;
	}
	if (cfg->swap_pages) {
		int ret = fl__swapon(cfg->swap_pages);

		if (ret) {
			fl__memcg_exit();
			fl__swap_exit();
			fl__page_alloc_exit();
			fl__vmstat_exit();
			if (ret == -EINVAL)
				snprintf(err, len,
					 "--swap: a zram disk of at least %d KiB is needed",
					 2 * SWAPFILE_CLUSTER * (int)(PAGE_SIZE / 1024));
			else
				snprintf(err, len, "cannot reserve the model's swap device");
			return ret;
		}
	}
	return 0;
nomem_pages:
	fl__page_alloc_exit();
nomem_vmstat:
	fl__vmstat_exit();
nomem:
	snprintf(err, len, "cannot reserve the model's memory map");
	return -ENOMEM;
}

void fl__mm_shutdown(void)
{
	fl__huge_zero_folio_exit();
	fl__shmem_exit();
	fl__rmap_exit();
	fl__mmap_exit();
	fl__swapoff();
	fl__memcg_exit();
	fl__swap_exit();
	fl__page_alloc_exit();
	fl__vmstat_exit();
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
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

static int set_fail_orders(const char *value, char *err, size_t len)
{
	unsigned long mask = 0, order;
	char buf[64], *tok, *save = NULL;

	if (!strcmp(value, "none")) {
		fl__fail_page_alloc_orders = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_uint(tok, 0, MAX_PAGE_ORDER, &order)) {
			snprintf(err, len,
				 "foliolab/fail_page_alloc_orders: '%s' is not a list of orders "
				 "0..%d or 'none'",
				 value, MAX_PAGE_ORDER);
			return -EINVAL;
		}
		mask |= 1ul << order;
	}
	fl__fail_page_alloc_orders = mask;
	return 0;
}

/**
 * fl__mm_knob_set() - set one knob by its sysfs-style name.
 * Return: 0, -ENOENT (unknown knob) or -EINVAL (bad value); @err says
 * what was wrong and what is accepted.
 */
int fl__mm_knob_set(const char *name, const char *value, char *err, size_t len)
{
	unsigned long v;
	size_t i;

	if (!strncmp(name, THP_PREFIX, strlen(THP_PREFIX)))
		return fl__thp_knob_set(name + strlen(THP_PREFIX), value, err, len);
	if (!strncmp(name, "vm/", 3)) {
		const struct fl_vm_knob *k = fl_vm_knob(name + 3);

		if (!k) {
			snprintf(err, len, "%s: accepted vm knobs are " FL_VM_KNOB_NAMES, name);
			return -ENOENT;
		}
		if (parse_uint(value, k->lo, k->hi, &v)) {
			snprintf(err, len, "%s: '%s' is not a whole number %lu..%lu", name, value,
				 k->lo, k->hi);
			return -EINVAL;
		}
		if (k == &fl_vm_knobs[0])
			WRITE_ONCE(vm_swappiness, v);
		else if (k == &fl_vm_knobs[3])
			WRITE_ONCE(page_cluster, (int)v);
		else
			fl__vm_sysctl_set(k == &fl_vm_knobs[1] ? &min_free_kbytes
							       : &watermark_scale_factor,
					  (int)v);
		return 0;
	}
	if (!strcmp(name, "foliolab/lru_cache")) {
		for (i = 0; i < ARRAY_SIZE(policies); i++) {
			if (!strcmp(value, policies[i].name)) {
				fl__lru_cache_policy = policies[i].p;
				return 0;
			}
		}
		snprintf(err, len, "--lru-cache: '%s' is not one of order0, max16, pages31", value);
		return -EINVAL;
	}
	if (!strcmp(name, "foliolab/lru_cache_folio_pages")) {
		if (parse_uint(value, 1, 1024, &v)) {
			snprintf(err, len,
				 "--lru-cache-folio-pages: '%s' is not a number of pages 1..1024",
				 value);
			return -EINVAL;
		}
		fl__lru_cache_policy.folio_pages = (unsigned int)v;
		return 0;
	}
	if (!strcmp(name, "foliolab/lru_cache_batch_pages")) {
		if (parse_uint(value, 0, 254, &v)) {
			snprintf(err, len,
				 "--lru-cache-batch-pages: '%s' is not 0 (no cap) or a number of "
				 "pages 1..254",
				 value);
			return -EINVAL;
		}
		fl__lru_cache_policy.batch_pages = (unsigned int)v;
		return 0;
	}
	if (!strcmp(name, "foliolab/lru_cache_batch_slots")) {
		if (parse_uint(value, 1, FOLIO_BATCH_SIZE, &v)) {
			snprintf(err, len,
				 "--lru-cache-batch-slots: '%s' is not a number of folios 1..%d",
				 value, FOLIO_BATCH_SIZE);
			return -EINVAL;
		}
		fl__lru_cache_policy.batch_slots = (unsigned int)v;
		return 0;
	}
	if (!strcmp(name, "foliolab/lru_add_free_dead")) {
		if (strcmp(value, "on") && strcmp(value, "off")) {
			snprintf(err, len, "--lru-add-free-dead: '%s' is not on or off", value);
			return -EINVAL;
		}
		fl__lru_add_free_dead = value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/no_zero_page")) {
		if (strcmp(value, "on") && strcmp(value, "off")) {
			snprintf(err, len, "foliolab/no_zero_page: '%s' is not on or off", value);
			return -EINVAL;
		}
		fl__no_zero_page = value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/huge_zero_folio")) {
		if (strcmp(value, "lazy") && strcmp(value, "present")) {
			snprintf(err, len,
				 "foliolab/huge_zero_folio: '%s' is not lazy (allocated at the "
				 "first "
				 "read fault, as after boot) or present (allocated before the run)",
				 value);
			return -EINVAL;
		}
		fl__huge_zero_at_start = value[0] == 'p';
		return 0;
	}
	if (!strcmp(name, "foliolab/page_mapcount")) {
		if (strcmp(value, "on") && strcmp(value, "off")) {
			snprintf(err, len,
				 "foliolab/page_mapcount: '%s' is not on (CONFIG_PAGE_MAPCOUNT, "
				 "per-page mapcounts) or off (CONFIG_NO_PAGE_MAPCOUNT)",
				 value);
			return -EINVAL;
		}
		fl__page_mapcount = value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/tlb")) {
		if (strcmp(value, "on") && strcmp(value, "off")) {
			snprintf(err, len,
				 "foliolab/tlb: '%s' is not on (each CPU's data TLB of the cost "
				 "file's geometry) or off (every access walks, no TLB modelled)",
				 value);
			return -EINVAL;
		}
		fl__tlb_model = value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/split_walk")) {
		if (strcmp(value, "forward") && strcmp(value, "reverse")) {
			snprintf(err, len,
				 "--split-walk: '%s' is not forward (the kernel before seed 002) "
				 "or reverse (seed 002)",
				 value);
			return -EINVAL;
		}
		fl__split_walk_reverse = value[0] == 'r';
		return 0;
	}
	if (!strcmp(name, "foliolab/split_drain")) {
		if (strcmp(value, "on") && strcmp(value, "off") && strcmp(value, "auto")) {
			snprintf(err, len,
				 "--split-drain: '%s' is not on, off or auto (on when the LRU "
				 "cache may hold large folios)",
				 value);
			return -EINVAL;
		}
		fl__split_drain = value[0] == 'a' ? -1 : value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/cow_reuse_drain")) {
		if (strcmp(value, "on") && strcmp(value, "off") && strcmp(value, "auto")) {
			snprintf(err, len,
				 "--cow-reuse-drain: '%s' is not on, off or auto (on when the LRU "
				 "cache may hold large folios: seed 000 2/4)",
				 value);
			return -EINVAL;
		}
		fl__cow_reuse_drain = value[0] == 'a' ? -1 : value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/khugepaged_lazyfree")) {
		if (strcmp(value, "collapse") && strcmp(value, "skip")) {
			snprintf(err, len,
				 "--khugepaged-lazyfree: '%s' is not collapse (6.18) or skip "
				 "(seed 003)",
				 value);
			return -EINVAL;
		}
		fl__khugepaged_lazyfree_skip = value[0] == 's';
		return 0;
	}
	if (!strcmp(name, "foliolab/khugepaged_progress")) {
		if (strcmp(value, "range") && strcmp(value, "ptes")) {
			snprintf(err, len,
				 "--khugepaged-progress: '%s' is not range (6.18: 512 a range) or "
				 "ptes (seed 003's series, 7.1: the PTEs looked at)",
				 value);
			return -EINVAL;
		}
		fl__khugepaged_progress_ptes = value[0] == 'p';
		return 0;
	}
	if (!strcmp(name, "foliolab/deferred_split_drain")) {
		if (strcmp(value, "per-folio") && strcmp(value, "per-batch")) {
			snprintf(err, len,
				 "--deferred-split-drain: '%s' is not per-folio (seed 000 3/4 "
				 "alone) or per-batch (4/4)",
				 value);
			return -EINVAL;
		}
		fl__deferred_split_drain_batch = value[4] == 'b';
		return 0;
	}
	if (!strcmp(name, "foliolab/memcg_stats_flush")) {
		if (strcmp(value, "on") && strcmp(value, "off")) {
			snprintf(err, len,
				 "foliolab/memcg_stats_flush: '%s' is not on (reclaim reads a "
				 "memcg's sizes as last flushed, 6.18) or off (exact)",
				 value);
			return -EINVAL;
		}
		fl__memcg_stats_flush = value[1] == 'n';
		return 0;
	}
	if (!strcmp(name, "foliolab/fail_page_alloc_orders"))
		return set_fail_orders(value, err, len);
	if (!strcmp(name, "foliolab/fail_alloc_after")) {
		if (parse_uint(value, 0, 1000000000, &v)) {
			snprintf(err, len,
				 "foliolab/fail_alloc_after: '%s' is not 0 (off) or a number of "
				 "allocations 1..1000000000",
				 value);
			return -EINVAL;
		}
		fl__fail_alloc_after((long)v);
		return 0;
	}
	if (!strcmp(name, "foliolab/corrupt_tag_every")) {
		if (parse_uint(value, 0, 1000000000, &v)) {
			snprintf(err, len,
				 "foliolab/corrupt_tag_every: '%s' is not 0 (off) or a number of "
				 "stores 1..1000000000",
				 value);
			return -EINVAL;
		}
		fl__corrupt_tag_every = v;
		return 0;
	}
	snprintf(err, len, "no such model knob '%s'", name);
	return -ENOENT;
}

static const char *policy_name(void)
{
	size_t i;

	/* the slot count is reported on its own: max16 on 15 slots is still max16 */
	for (i = 0; i < ARRAY_SIZE(policies); i++)
		if (policies[i].p.folio_pages == fl__lru_cache_policy.folio_pages &&
		    policies[i].p.batch_pages == fl__lru_cache_policy.batch_pages)
			return policies[i].name;
	return "custom";
}

/** fl__mm_knobs_read() - every knob and its value, in sysfs order. */
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
	snprintf(val, sizeof(val), "%lu", READ_ONCE(vm_swappiness));
	ret |= fl_knobs_set(out, "vm/swappiness", val);
	snprintf(val, sizeof(val), "%d", min_free_kbytes);
	ret |= fl_knobs_set(out, "vm/min_free_kbytes", val);
	snprintf(val, sizeof(val), "%d", watermark_scale_factor);
	ret |= fl_knobs_set(out, "vm/watermark_scale_factor", val);
	snprintf(val, sizeof(val), "%d", READ_ONCE(page_cluster));
	ret |= fl_knobs_set(out, "vm/page-cluster", val);
	ret |= fl_knobs_set(out, "foliolab/lru_cache", policy_name());
	snprintf(val, sizeof(val), "%u", fl__lru_cache_policy.folio_pages);
	ret |= fl_knobs_set(out, "foliolab/lru_cache_folio_pages", val);
	snprintf(val, sizeof(val), "%u", fl__lru_cache_policy.batch_pages);
	ret |= fl_knobs_set(out, "foliolab/lru_cache_batch_pages", val);
	snprintf(val, sizeof(val), "%u", fl__lru_cache_policy.batch_slots);
	ret |= fl_knobs_set(out, "foliolab/lru_cache_batch_slots", val);
	ret |= fl_knobs_set(out, "foliolab/lru_add_free_dead",
			    fl__lru_add_free_dead ? "on" : "off");
	ret |= fl_knobs_set(out, "foliolab/no_zero_page", fl__no_zero_page ? "on" : "off");
	ret |= fl_knobs_set(out, "foliolab/huge_zero_folio",
			    fl__huge_zero_at_start ? "present" : "lazy");
	ret |= fl_knobs_set(out, "foliolab/page_mapcount", fl__page_mapcount ? "on" : "off");
	ret |= fl_knobs_set(out, "foliolab/split_walk",
			    fl__split_walk_reverse ? "reverse" : "forward");
	ret |= fl_knobs_set(out, "foliolab/tlb", fl__tlb_model ? "on" : "off");
	ret |= fl_knobs_set(out, "foliolab/split_drain",
			    fl__split_drain < 0 ? "auto"
			    : fl__split_drain	? "on"
						: "off");
	ret |= fl_knobs_set(out, "foliolab/cow_reuse_drain",
			    fl__cow_reuse_drain < 0 ? "auto"
			    : fl__cow_reuse_drain   ? "on"
						    : "off");
	ret |= fl_knobs_set(out, "foliolab/khugepaged_lazyfree",
			    fl__khugepaged_lazyfree_skip ? "skip" : "collapse");
	ret |= fl_knobs_set(out, "foliolab/khugepaged_progress",
			    fl__khugepaged_progress_ptes ? "ptes" : "range");
	ret |= fl_knobs_set(out, "foliolab/deferred_split_drain",
			    fl__deferred_split_drain_batch ? "per-batch" : "per-folio");
	ret |= fl_knobs_set(out, "foliolab/memcg_stats_flush",
			    fl__memcg_stats_flush ? "on" : "off");
	return ret;
}

/**
 * fl__mm_quiesce_and_check() - after every process exited: drain the LRU
 * caches and pcp lists, then check that the LRU lists are empty and
 * consistent and that every frame is free again.
 * Return: 0, or a positive number of problems (frames missing, or 1 for
 * an LRU inconsistency) with a message in @msg.
 */
long fl__mm_quiesce_and_check(char *msg, size_t len)
{
	long leaked, zero;
	int nid, lru, m;

	if (fl__shmem_mounts_check(msg, len))
		return 1;
	fl__khugepaged_forget(); /* the exited mms its scan had not let go of yet */
	fl__swap_drop_cache();
	if (fl__swap_check(msg, len))
		return 1;
	lru_add_drain_all();
	for_each_online_node (nid) {
		for (m = 0; m <= fl__nr_memcgs; m++) {
			struct lruvec *lruvec = mem_cgroup_lruvec(fl__memcgs[m], NODE_DATA(nid));

			if (!fl__lruvec_validate(lruvec, msg, len))
				return 1;
			for (lru = 0; lru < NR_LRU_LISTS; lru++) {
				if (lruvec->nr_pages[lru]) {
					snprintf(msg, len,
						 "node %d memcg %d LRU list %d still holds %lu "
						 "pages after teardown",
						 nid, m, lru, lruvec->nr_pages[lru]);
					return 1;
				}
			}
		}
	}
	/* every page charged went back: memory.current and swap.current are 0 */
	drain_all_stock();
	for (m = 1; m <= fl__nr_memcgs; m++) {
		struct mem_cgroup *memcg = fl__memcgs[m];
		long mem = fl_atomic_load(&memcg->memory.usage, __ATOMIC_RELAXED);
		long swp = fl_atomic_load(&memcg->swap.usage, __ATOMIC_RELAXED);

		if (mem || swp) {
			snprintf(
				msg, len,
				"memcg %s still charged after teardown: memory %ld pages, swap %ld",
				memcg->name, mem, swp);
			return 1;
		}
	}
	/* the huge zero folio stays, as in the kernel, until its shrinker runs;
	 * the reference of the process that read it before the run goes */
	fl__huge_zero_folio_unprime();
	zero = fl__huge_zero_folio_left(msg, len);
	if (zero < 0)
		return 1;
	/* swap's own page stays while swap is on */
	leaked = fl__page_alloc_check(msg, len) - zero * HPAGE_PMD_NR - fl__swap_resident_pages();
	if (leaked)
		snprintf(msg, len, "%ld frames leaked (not free after teardown%s)", leaked,
			 zero ? ", the huge zero folio's aside" : "");
	else if (fl__fl_stat_sum(FL_LIVE_FOLIOS) != zero + fl__swap_resident_pages()) {
		snprintf(msg, len, "%lld allocations not freed",
			 (long long)(fl__fl_stat_sum(FL_LIVE_FOLIOS) - zero -
				     fl__swap_resident_pages()));
		return 1;
	}
	return leaked;
}
