// SPDX-License-Identifier: GPL-2.0-only
/*
 * host.c - the target API on the host kernel: opening and closing the run
 * (its folder, knobs and changes: host_rundir.c, host_knobs.c), counters
 * (/proc/vmstat and the per-size mTHP stats for the whole machine, and the
 * workload's own counts where the host can give them: host_scope.c), the
 * lock table (perf lock: host_perf.c) and the machine's description. The
 * workload's processes, threads and memory calls are host_proc.c and
 * host_mem.c. Memory all processes share (shared_alloc) is a MAP_SHARED
 * arena made at open, before any fork.
 *
 * Conventions in this file: "ht" is the host target.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "target.h"
#include "../platform/cost.h"
#include "host.h"
#include "../platform/platform.h"

static int host_check_knobs(const struct fl_target_config *cfg, const struct fl_knobs *k, char *err,
			    size_t len)
{
	if (cfg && cfg->no_knobs && k->nr) {
		snprintf(err, len, "--no-knobs runs with the host's settings; drop %s",
			 k->v[0].name);
		return -EINVAL;
	}
	/* a killed run's changes: the host is not as its owner left it */
	if (fl__host_other_runs(false, err, len))
		return -EINVAL;
	/* --swap: zram0 there and free, no other swap, root (before this run set it up) */
	if (cfg && cfg->swap_bytes && !fl__host_undo_pending(HOST_UNDO_SWAP, NULL) &&
	    fl__host_swap_check(cfg->swap_bytes, err, len))
		return -EINVAL;
	if (cfg && fl__host_memcg_check(cfg->memcg_max, cfg->memcg_high, err, len))
		return -EINVAL;
	return fl__host_knobs_check(k, err, len);
}

/* `foliolab host restore`: every kind of change a killed run may have left, put back */
FL_API int fl_host_restore(FILE *out, char *err, size_t len)
{
	fl__host_knobs_register();
	fl__host_swap_register();
	return fl__host_restore_all(out, err, len);
}

static int host_open(const struct fl_target_config *cfg, struct fl_target **out, char *err,
		     size_t len)
{
	struct host_target *ht;
	int ret;

	ht = fl_calloc(1, sizeof(*ht));
	if (!ht) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ht->cfg = *cfg;
	ht->base.ops = &fl__host_target_ops;
	ht->base.nr_cpus = 1024;
	ht->base.counters_have_noise = true;
	ht->base.clock_mhz = fl__cpu_mhz();
	/* populated: a process maps it without allocating (fl__host_arena_populate()) */
	ht->arena = mmap(NULL, SHARED_ARENA, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (ht->arena == MAP_FAILED) {
		snprintf(err, len, "cannot map the shared arena: %s", strerror(errno));
		fl_free(ht);
		return -ENOMEM;
	}
	pthread_mutex_init(&ht->arena_lock, NULL);
	/* a killed run's mounts and cgroups come back first */
	ret = fl__host_other_runs(false, err, len);
	if (!ret && cfg->swap_bytes)
		ret = fl__host_swap_check(cfg->swap_bytes, err, len);
	if (!ret)
		ret = fl__host_rundir_create(err, len);
	if (!ret && cfg->swap_bytes) {
		ret = fl__host_swap_setup(cfg->swap_bytes, err, len);
		if (ret)
			fl__host_rundir_remove();
	}
	if (ret) {
		munmap(ht->arena, SHARED_ARENA);
		fl_free(ht);
		return ret;
	}
	*out = &ht->base;
	return 0;
}

static int host_close(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;
	int ret;

	if (ht->recording) {
		struct fl_locks none = { 0 };
		char note[160];

		fl__perf_lock_stop(&ht->perf, &none, note, sizeof(note));
		fl_locks_free(&none);
	}
	fl__host_zygote_stop(t);
	fl__host_scope_close(ht->scope);
	ret = fl__host_rundir_remove();
	munmap(ht->arena, SHARED_ARENA);
	fl_free(ht);
	return ret;
}

static int host_quiesce(struct fl_target *t, char *err, size_t len)
{
	(void)t;
	(void)err;
	(void)len;
	return 0;
}

static int host_set_knobs(struct fl_target *t, const struct fl_knobs *k, char *err, size_t len)
{
	struct host_target *ht = (struct host_target *)t;
	int ret = host_check_knobs(&ht->cfg, k, err, len);

	return ret ? ret : fl__host_knobs_apply(k, err, len);
}

static int host_knobs(struct fl_target *t, struct fl_knobs *out)
{
	(void)t;
	return fl__host_knobs_read(out);
}

int fl__host_read_counter(const char *path, int64_t *v)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*v = strtoll(buf, NULL, 10);
	return 0;
}

/*
 * The Normal zones' free blocks per order (/proc/buddyinfo) and
 * pageblocks per type (/proc/pagetypeinfo's second table, root only),
 * summed over the nodes, under the model's names (its one zone a node is
 * a Normal zone). A file that cannot be read adds nothing.
 */
static int host_fraginfo(struct fl_counters *out)
{
	static const char *const types[] = { "Unmovable", "Movable", "Reclaimable" };
	long long order[11] = { 0 }, blocks[3] = { 0 };
	char line[512], name[FL_NAME_MAX];
	bool have_blocks = false;
	int ret = 0, i;
	FILE *f;

	f = fopen("/proc/buddyinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " Normal ");

		if (!strncmp(line, "Node ", 5) && p) {
			p += strlen(" Normal ");
			for (i = 0; i < 11; i++)
				order[i] += strtoll(p, &p, 10);
		}
	}
	fclose(f);
	for (i = 0; i < 11; i++) {
		snprintf(name, sizeof(name), "buddyinfo/order-%d", i);
		ret |= fl_counters_set_scoped(out, name, order[i], FL_SCOPE_SYSTEM);
	}
	f = fopen("/proc/pagetypeinfo", "r");
	if (!f)
		return ret;
	/* "Number of blocks type  Unmovable  Movable  Reclaimable ...", then a row a zone */
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " Normal ");

		if (!strncmp(line, "Number of blocks type", 21))
			have_blocks = true;
		else if (have_blocks && !strncmp(line, "Node ", 5) && p) {
			p += strlen(" Normal ");
			for (i = 0; i < 3; i++)
				blocks[i] += strtoll(p, &p, 10);
		}
	}
	fclose(f);
	for (i = 0; i < 3 && have_blocks; i++) {
		snprintf(name, sizeof(name), "pagetypeinfo/blocks/%s", types[i]);
		ret |= fl_counters_set_scoped(out, name, blocks[i], FL_SCOPE_SYSTEM);
	}
	return ret;
}

static int host_counters(struct fl_target *t, struct fl_counters *out)
{
	static const char *const items[] = {
		"anon_fault_alloc",
		"anon_fault_fallback",
		"anon_fault_fallback_charge",
		"anon_fault_declined",
		"split",
		"split_failed",
		"split_deferred",
		"nr_anon",
		"nr_anon_partially_mapped",
		"swpout",
		"swpout_fallback",
		"swpin",
		"swpin_fallback",
		"swpin_fallback_charge",
		"zswpout",
		"shmem_alloc",
		"shmem_fallback",
		"shmem_fallback_charge",
	};
	char line[256], name[FL_NAME_MAX], path[HOST_PATH_MAX];
	long long v;
	int64_t val;
	size_t i;
	struct host_target *ht = (struct host_target *)t;
	int kb, ret = 0;
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%79s %lld", name, &v) == 2)
			ret |= fl_counters_set_scoped(out, name, v, FL_SCOPE_SYSTEM);
	}
	fclose(f);
	for (kb = 16; kb <= 2048; kb *= 2) {
		for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
			snprintf(path, sizeof(path), "%s/hugepages-%dkB/stats/%s",
				 fl__host_sysfs_root(), kb, items[i]);
			if (fl__host_read_counter(path, &val))
				continue;
			snprintf(name, sizeof(name), "hugepages-%dkB/stats/%s", kb, items[i]);
			ret |= fl_counters_set_scoped(out, name, val, FL_SCOPE_SYSTEM);
		}
	}
	ret |= host_fraginfo(out);
	if (ht->cfg.swap_bytes)
		ret |= fl__host_zram_counters(out);
	for (i = 0; i < 2; i++) {
		const char *k = i ? "full_scans" : "pages_collapsed";

		snprintf(path, sizeof(path), "%s/khugepaged/%s", fl__host_sysfs_root(), k);
		if (fl__host_read_counter(path, &val))
			continue;
		snprintf(name, sizeof(name), "khugepaged/%s", k);
		ret |= fl_counters_set_scoped(out, name, val, FL_SCOPE_SYSTEM);
	}
	/* khugepaged's own CPU time, for workloads that wait on it (the model's name) */
	if (ht->cfg.khugepaged && !fl__host_khugepaged_ns(&val))
		ret |= fl_counters_set_scoped(out, "fl_khugepaged_ns", val, FL_SCOPE_SYSTEM);
	if (!ret && ht->scope)
		ret = fl__host_scope_read(ht->scope, out);
	return ret ? -ENOMEM : 0;
}

static int host_meminfo(struct fl_target *t, struct fl_counters *out)
{
	char line[256], name[FL_NAME_MAX];
	long long v;
	int ret = 0;
	FILE *f;

	(void)t;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (size_t)(colon - line) >= sizeof(name))
			continue;
		memcpy(name, line, (size_t)(colon - line));
		name[colon - line] = '\0';
		if (sscanf(colon + 1, "%lld", &v) == 1)
			ret |= fl_counters_set(out, name, v);
	}
	fclose(f);
	return ret ? -ENOMEM : 0;
}

/*
 * Make sure the huge zero folio exists before the run: one read fault in a
 * MADV_HUGEPAGE range of 2 MiB, as any process's first such read leaves it
 * (it stays until its shrinker finds it unused under memory pressure). A
 * run then never allocates it, whoever ran before; the model columns of a
 * compare start with one too (foliolab/huge_zero_folio=present). Nothing
 * happens where the knobs keep PMD THPs or the zero page out.
 */
static void prime_huge_zero_folio(void)
{
	const size_t pmd = 2u << 20;
	char *p = mmap(NULL, 2 * pmd, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *at;

	if (p == MAP_FAILED)
		return;
	at = (volatile char *)(((uintptr_t)p + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (!madvise((void *)at, pmd, MADV_HUGEPAGE))
		(void)*at;
	munmap(p, 2 * pmd);
}

static int host_begin(struct fl_target *t, char *err, size_t len)
{
	struct host_target *ht = (struct host_target *)t;
	char tracefs[HOST_PATH_MAX];

	prime_huge_zero_folio();
	ht->locks_note[0] = '\0';
	if (!ht->cfg.locks) {
		snprintf(ht->locks_note, sizeof(ht->locks_note),
			 "no lock table: give --locks to record one with perf lock");
	} else if (fl__host_tracefs_mount(tracefs, sizeof(tracefs), ht->locks_note,
					  sizeof(ht->locks_note)) == 0 &&
		   fl__perf_lock_start(&ht->perf, fl__host_rundir(), getpid(), ht->locks_note,
				       sizeof(ht->locks_note)) == 0) {
		ht->recording = true;
	} else {
		fprintf(stderr, "foliolab: no lock table: %s\n", ht->locks_note);
	}
	/*
	 * After perf started, so that perf is neither counted nor in the
	 * cgroup; tracefs stays mounted only while perf lock records.
	 */
	fl__host_scope_open(&ht->scope, ht->cfg.files, ht->cfg.khugepaged, ht->scope_note,
			    sizeof(ht->scope_note));
	if (!ht->recording)
		fl__host_tracefs_unmount();
	if ((ht->cfg.memcg_max || ht->cfg.memcg_high) &&
	    fl__host_scope_limit(ht->scope, ht->cfg.memcg_max, ht->cfg.memcg_high, ht->scope_note,
				 err, len))
		return -EIO;
	if (ht->scope)
		fl__host_scope_enable(ht->scope, true);
	/* the runner's own record of mappings, in memory written before the run */
	memset(&ht->self_maps, 0, sizeof(ht->self_maps));
	fl__host_map_text();
	/* counted (after the scope), before the run's first counters */
	ht->nr_steps = ht->nr_ids = ht->nr_batches = 0;
	ht->steps_lost = false;
	if (fl__host_zygote_start(t))
		fprintf(stderr,
			"foliolab: no zygote: the workload's processes fork from this one\n");
	return 0;
}

int fl__host_memcg_reclaim(struct fl_thread *th, uint64_t bytes, char *err, size_t len)
{
	struct host_target *ht = (struct host_target *)fl_thread_target(th);

	return fl__host_scope_reclaim(ht->scope, bytes, err, len);
}

static struct fl_locks pending_locks;

static void host_end(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;

	if (!ht->recording)
		return;
	ht->recording = false;
	fl_locks_free(&pending_locks);
	/* perf lock contention is a child of ours: keep it out of the counts */
	if (ht->scope)
		fl__host_scope_enable(ht->scope, false);
	if (fl__perf_lock_stop(&ht->perf, &pending_locks, ht->locks_note, sizeof(ht->locks_note)) &&
	    ht->locks_note[0])
		fprintf(stderr, "foliolab: %s\n", ht->locks_note);
	if (ht->scope)
		fl__host_scope_enable(ht->scope, true);
	fl__host_tracefs_unmount();
}

static int host_locks(struct fl_target *t, struct fl_locks *out)
{
	int i;

	(void)t;
	for (i = 0; i < pending_locks.nr; i++)
		if (fl_locks_add(out, &pending_locks.v[i]))
			return -ENOMEM;
	fl_locks_free(&pending_locks);
	return 0;
}

static void host_describe(struct fl_target *t, struct fl_result *res)
{
	struct host_target *ht = (struct host_target *)t;
	struct utsname u;
	FILE *f;

	if (!uname(&u))
		snprintf(res->kernel_release, sizeof(res->kernel_release), "%.63s", u.release);
	fl__host_cpuinfo("model name", res->cpu_model, sizeof(res->cpu_model));
	res->cpus = fl__host_nr_cpus_online();
	res->nodes = 1;
	f = fopen("/proc/meminfo", "r");
	if (f) {
		unsigned long long kb;

		if (fscanf(f, "MemTotal: %llu kB", &kb) == 1)
			res->mem_bytes = (uint64_t)kb * 1024;
		fclose(f);
	}
	snprintf(res->locks_note, sizeof(res->locks_note), "%s", ht->locks_note);
	snprintf(res->scope_note, sizeof(res->scope_note), "%s", ht->scope_note);
}

static void *host_shared_alloc(struct fl_target *t, size_t size)
{
	struct host_target *ht = (struct host_target *)t;
	void *p = NULL;
	size_t need = (size + 63) & ~(size_t)63;

	pthread_mutex_lock(&ht->arena_lock);
	if (ht->arena_used + need <= SHARED_ARENA) {
		p = ht->arena + ht->arena_used;
		ht->arena_used += need;
		memset(p, 0, size);
	}
	pthread_mutex_unlock(&ht->arena_lock);
	return p;
}

const struct fl_target_ops fl__host_target_ops = {
	.name = "host",
	.open = host_open,
	.quiesce = host_quiesce,
	.close = host_close,
	.check_knobs = host_check_knobs,
	.set_knobs = host_set_knobs,
	.knobs = host_knobs,
	.counters = host_counters,
	.meminfo = host_meminfo,
	.begin = host_begin,
	.end = host_end,
	.locks = host_locks,
	.describe = host_describe,
	.shared_alloc = host_shared_alloc,
	.proc_create = fl__host_proc_create,
	.proc_exit = fl__host_proc_exit,
	.proc_fork = fl__host_proc_fork,
	.proc_main = fl__host_proc_main,
	.machinery = fl__host_machinery,
	.run_tasks = fl__host_run_tasks,
	.mmap = fl__host_mmap,
	.munmap = fl__host_munmap,
	.madvise = fl__host_madvise,
	.thp_sample = fl__host_thp_sample,
	.write = fl__host_write,
	.read = fl__host_read,
	.tmpfs_mount = fl__host_tmpfs_mount,
	.tmpfs_umount = fl__host_tmpfs_umount,
	.file_create = fl__host_file_create,
	.file_unlink = fl__host_file_unlink,
	.file_close = fl__host_file_close,
	.fallocate = fl__host_fallocate,
	.ftruncate = fl__host_ftruncate,
	.pwrite_tags = fl__host_pwrite_tags,
	.pread_tags = fl__host_pread_tags,
	.split_huge_pages_file = fl__host_split_huge_pages_file,
	.mmap_file = fl__host_mmap_file,
	.split_huge_pages_range = fl__host_split_huge_pages_range,
	.shrinker_count = fl__host_shrinker_count,
	.shrinker_scan = fl__host_shrinker_scan,
	.drop_slab = fl__host_drop_slab,
	.memcg_reclaim = fl__host_memcg_reclaim,
};
