/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list.h - every workload, one line each, in `foliolab list`'s order: a new
 * workload is its file and its line here. Each FL_WORKLOAD(name) names the
 * struct fl_workload fl__wl_<name> its file defines; the includer defines
 * FL_WORKLOAD (workload.h: the declarations; run.c: the table).
 */
FL_WORKLOAD(lru_microbench)
FL_WORKLOAD(page_fault1)
FL_WORKLOAD(shmem_split)
FL_WORKLOAD(anon_split)
FL_WORKLOAD(deferred_split)
FL_WORKLOAD(shmem_fault)
FL_WORKLOAD(pageout)
FL_WORKLOAD(lazyfree)
FL_WORKLOAD(memcg_build)
FL_WORKLOAD(cow_reuse)
FL_WORKLOAD(fork_cow)
FL_WORKLOAD(khugepaged_lazyfree)
FL_WORKLOAD(fragment)
