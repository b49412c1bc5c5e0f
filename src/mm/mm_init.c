// SPDX-License-Identifier: GPL-2.0-only
/*
 * mm_init.c - booting and shutting down the model kernel and the end-of-run
 * checks (mm/mm_init.c in the kernel). The knobs are
 * knobs.c's.
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
	fl__mm_knobs_default();
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
