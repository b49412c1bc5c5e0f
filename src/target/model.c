// SPDX-License-Identifier: GPL-2.0-only
/*
 * model.c - the target API on the model kernel in src/mm.
 *
 * Opening the target boots the model: model CPUs (one per workload
 * thread unless more are asked for), physical memory over the nodes, the
 * per-CPU batches. Each workload thread runs on its own model CPU in its
 * own pthread, pinned to a host CPU when there are enough of them. The
 * opening thread is model CPU 0 whenever no workload thread runs.
 *
 * The model's globals make it a singleton: one model target at a time.
 *
 * Conventions in this file: "mt" is the model target, "mp" a model process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "target.h"
#include "../mm/internal.h"
#include "../mm/fs.h"
#include "../platform/cost.h"
#include "../platform/sim/sim.h"

struct model_target {
	struct fl_target base;
	struct fl_target_config cfg;
	int next_proc_id;
	uint64_t mem_bytes;
	struct shared_block *shared; /* shared_alloc() blocks, freed at close */
	/* sim: the virtual clock and the CPUs' busy and idle time at begin() */
	uint64_t sim_t0;
	uint64_t *sim_busy0, *sim_idle0;
	uint64_t sim_switches0, sim_preemptions0;
};

struct shared_block {
	struct shared_block *next;
	max_align_t data[];
};

struct model_proc {
	struct fl_proc base;
	struct mm_struct *mm;
	struct fl_thread main;
	struct model_proc *forked_from; /* NULL: made by proc_create */
	int nr_forked;			/* the live processes it forked */
};

static bool model_open_now;

static struct mm_struct *thread_mm(struct fl_thread *th)
{
	return ((struct model_proc *)th->proc)->mm;
}

static int model_open(const struct fl_target_config *cfg, struct fl_target **out, char *err,
		      size_t len)
{
	struct fl_mm_config mc = {
		.nr_pages = (unsigned long)(cfg->mem_bytes / PAGE_SIZE),
		.nr_nodes = cfg->nodes ? cfg->nodes : 1,
		.nr_cpus = cfg->cpus ? cfg->cpus : 1,
		.swap_pages = (unsigned long)(cfg->swap_bytes / PAGE_SIZE),
	};
	struct model_target *mt;
	int ret;

	if (model_open_now) {
		snprintf(err, len, "the model target is already open");
		return -EBUSY;
	}
	if (mc.nr_cpus > FL_NR_CPUS_MAX) {
		snprintf(err, len, "--cpus %d: accepted 1..%d", mc.nr_cpus, FL_NR_CPUS_MAX);
		return -EINVAL;
	}
	mt = fl_calloc(1, sizeof(*mt));
	if (!mt) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	/*
	 * with swap, a CPU more per node for its kswapd (fl__page_alloc_init());
	 * with khugepaged, the last for its thread
	 */
	mc.khugepaged = cfg->khugepaged;
	ret = fl__platform_init(mc.nr_cpus + (mc.swap_pages ? mc.nr_nodes : 0) + mc.khugepaged);
	if (ret) {
		snprintf(err, len, "cannot set up %d model CPUs", mc.nr_cpus);
		goto err_free;
	}
	/* native too: the TLB's geometry comes with the costs (the built-in ones there) */
	ret = fl_costs_load(cfg->sim ? cfg->costs : NULL, err, len);
	if (ret) {
		fl__platform_exit();
		goto err_free;
	}
	if (cfg->sim) {
		ret = fl__sim_platform_start(cfg->seed);
		if (ret) {
			snprintf(err, len, "cannot set up %d virtual CPUs", mc.nr_cpus);
			fl__platform_exit();
			goto err_free;
		}
	}
	fl_cpu_bind(0);
	ret = fl__mm_boot(&mc, err, len);
	if (ret)
		goto err_platform;
	/* the run's memory cgroup: its processes are made in it */
	if (cfg->memcg || cfg->memcg_max || cfg->memcg_high) {
		long max = cfg->memcg_max ? (long)(cfg->memcg_max / PAGE_SIZE) : PAGE_COUNTER_MAX;
		long high = cfg->memcg_high ? (long)(cfg->memcg_high / PAGE_SIZE)
					    : PAGE_COUNTER_MAX;

		fl__run_memcg = fl__mem_cgroup_create("foliolab", max, high);
		if (!fl__run_memcg) {
			fl__mm_shutdown();
			snprintf(err, len, "out of memory for the run's memory cgroup");
			ret = -ENOMEM;
			goto err_platform;
		}
	}
	mt->base.ops = &fl__model_target_ops;
	mt->cfg = *cfg;
	mt->base.nr_cpus = mc.nr_cpus;
	mt->base.clock_mhz = cfg->sim ? fl__cost_prov.clock_mhz : fl__cpu_mhz();
	mt->mem_bytes = (uint64_t)mc.nr_pages * PAGE_SIZE;
	model_open_now = true;
	*out = &mt->base;
	return 0;
err_platform:
	fl_cpu_unbind();
	fl__sim_platform_stop();
	fl__platform_exit();
err_free:
	fl_free(mt);
	return ret;
}

static int model_quiesce(struct fl_target *t, char *err, size_t len)
{
	(void)t;
	return fl__mm_quiesce_and_check(err, len) ? 1 : 0;
}

static int model_close(struct fl_target *t)
{
	struct model_target *mt = (struct model_target *)t;

	while (mt->shared) {
		struct shared_block *b = mt->shared;

		mt->shared = b->next;
		fl_free(b);
	}
	fl_free(mt->sim_busy0);
	fl_free(mt->sim_idle0);
	fl__mm_shutdown();
	fl_cpu_unbind();
	fl__sim_platform_stop();
	fl__platform_exit();
	model_open_now = false;
	fl_free(t);
	return 0;
}

static int model_set_knobs(struct fl_target *t, const struct fl_knobs *k, char *err, size_t len)
{
	int i, ret;

	(void)t;
	for (i = 0; i < k->nr; i++) {
		ret = fl__mm_knob_set(k->v[i].name, k->v[i].value, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

/* Try the knobs on a throwaway model: the model's own parser decides. */
static int model_check_knobs(const struct fl_target_config *cfg, const struct fl_knobs *k,
			     char *err, size_t len)
{
	struct fl_target_config tiny = { .mem_bytes = 4ull << 20, .nodes = 1, .cpus = 1 };
	struct fl_target *t;
	int ret;

	(void)cfg;
	if (!k->nr)
		return 0;
	ret = model_open(&tiny, &t, err, len);
	if (ret)
		return ret;
	ret = model_set_knobs(t, k, err, len);
	model_close(t);
	return ret;
}

static int model_knobs(struct fl_target *t, struct fl_knobs *out)
{
	(void)t;
	return fl__mm_knobs_read(out);
}

static int model_counters(struct fl_target *t, struct fl_counters *out)
{
	struct model_target *mt = (struct model_target *)t;
	int ret = fl__vmstat_snapshot(out), i;

	if (!ret && fl__run_memcg)
		ret = fl__memcg_snapshot(fl__run_memcg, out);

	/* sim: how often each cost was charged (model-only, as the fl_ counters) */
	for (i = 0; !ret && mt->cfg.sim && i < FL_NR_COSTS; i++) {
		char name[48];

		snprintf(name, sizeof(name), "fl_cost_%s", fl__cost_info[i].name);
		ret = fl_counters_set(out, name, (int64_t)fl__cost_count[i]);
		/* and the virtual time it took, for where the time went */
		snprintf(name, sizeof(name), "fl_time_%s", fl__cost_info[i].name);
		if (!ret)
			ret = fl_counters_set(out, name, (int64_t)(fl__cost_time[i] / 1000));
	}
	/* sim: line writes that queued behind another CPU's transfer, and their wait (ns) */
	if (!ret && mt->cfg.sim)
		ret = fl_counters_set(out, "fl_cost_line_wait", (int64_t)fl__line_waits);
	if (!ret && mt->cfg.sim)
		ret = fl_counters_set(out, "fl_time_line_wait",
				      (int64_t)(fl__line_wait_time / 1000));
	return ret;
}

static int model_meminfo(struct fl_target *t, struct fl_counters *out)
{
	struct model_target *mt = (struct model_target *)t;
	struct fl_counters c = { 0 };
	int ret = fl__vmstat_snapshot(&c);
	int64_t kb = (int64_t)(PAGE_SIZE / 1024);

	if (!ret) {
		ret |= fl_counters_set(out, "MemTotal", (int64_t)(mt->mem_bytes / 1024));
		ret |= fl_counters_set(out, "MemFree", fl_counters_get(&c, "nr_free_pages") * kb);
		ret |= fl_counters_set(out, "AnonPages", fl_counters_get(&c, "nr_anon_pages") * kb);
		ret |= fl_counters_set(out, "Active(anon)",
				       fl_counters_get(&c, "nr_active_anon") * kb);
		ret |= fl_counters_set(out, "Inactive(anon)",
				       fl_counters_get(&c, "nr_inactive_anon") * kb);
		ret |= fl_counters_set(out, "PageTables",
				       fl_counters_get(&c, "nr_page_table_pages") * kb);
		ret |= fl_counters_set(out, "AnonHugePages",
				       fl_counters_get(&c, "nr_anon_transparent_hugepages") *
					       HPAGE_PMD_NR * kb);
		ret |= fl_counters_set(out, "ShmemHugePages", 0);
	}
	fl_counters_free(&c);
	return ret ? -ENOMEM : 0;
}

/* sim: the run starts now in virtual time (the workload comes next) */
static int model_begin(struct fl_target *t, char *err, size_t len)
{
	struct model_target *mt = (struct model_target *)t;
	int i;

	/* every CPU's TLB empty, of the cost file's geometry */
	fl__dtlb_setup();
	/* a machine where some process has read-faulted a THP range already */
	if (fl__huge_zero_at_start && fl__huge_zero_folio_prime()) {
		snprintf(err, len, "no memory for the huge zero folio");
		return -ENOMEM;
	}
	if (!mt->cfg.sim)
		return 0;
	fl_free(mt->sim_busy0);
	fl_free(mt->sim_idle0);
	mt->sim_busy0 = fl_calloc((size_t)t->nr_cpus, sizeof(uint64_t));
	mt->sim_idle0 = fl_calloc((size_t)t->nr_cpus, sizeof(uint64_t));
	if (!mt->sim_busy0 || !mt->sim_idle0) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	mt->sim_t0 = fl_sim_end_time();
	for (i = 0; i < t->nr_cpus; i++) {
		mt->sim_busy0[i] = fl_sim_cpu_busy(i);
		mt->sim_idle0[i] = fl_sim_cpu_idle(i);
	}
	mt->sim_switches0 = fl_sim_switches();
	mt->sim_preemptions0 = fl_sim_preemptions();
	/* from 0, so that the counters' ns (the ps / 1000 of their deltas) are the same each run */
	memset(fl__cost_time, 0, sizeof(fl__cost_time));
	fl__line_wait_time = 0;
	return 0;
}

static int model_oom_report(struct fl_target *t, char *buf, size_t len)
{
	(void)t;
	return fl__oom_report(buf, len);
}

static void model_describe(struct fl_target *t, struct fl_result *res)
{
	struct model_target *mt = (struct model_target *)t;
	const struct fl_cost_prov *p = &fl__cost_prov;
	char est[160];
	int i;

	snprintf(res->kernel_release, sizeof(res->kernel_release),
		 "foliolab model (mainline 7.x rules)");
	snprintf(res->cpu_model, sizeof(res->cpu_model), "model CPUs");
	if (!mt->cfg.sim || !mt->sim_busy0)
		return;
	/* the record's wall time is virtual; the host's own goes beside it */
	res->host_wall_s = res->wall_s;
	res->wall_s = (double)(fl_sim_end_time() - mt->sim_t0) / 1e12;
	res->nr_vcpus = t->nr_cpus;
	for (i = 0; i < t->nr_cpus; i++) {
		res->vcpu_busy_ns[i] = (fl_sim_cpu_busy(i) - mt->sim_busy0[i]) / 1000;
		res->vcpu_idle_ns[i] = (fl_sim_cpu_idle(i) - mt->sim_idle0[i]) / 1000;
	}
	res->sim_switches = fl_sim_switches() - mt->sim_switches0;
	res->sim_preemptions = fl_sim_preemptions() - mt->sim_preemptions0;
	fl__costs_estimated(p, est, sizeof(est));
	snprintf(res->costs, sizeof(res->costs), "%.100s (%.60s, %.40s, %.24s)%s%.120s", p->source,
		 p->kernel, p->cpu, p->date, est[0] ? "; estimated: " : "", est);
}

static void *model_shared_alloc(struct fl_target *t, size_t size)
{
	struct model_target *mt = (struct model_target *)t;
	struct shared_block *b = fl_calloc(1, sizeof(*b) + size);

	if (!b)
		return NULL;
	b->next = mt->shared;
	mt->shared = b;
	return b->data;
}

static int model_locks(struct fl_target *t, struct fl_locks *out)
{
	struct fl_lock_row rows[FL_LOCK_SITES_MAX];
	int i, n = fl__lock_stats_read(rows);

	(void)t;
	for (i = 0; i < n; i++) {
		struct fl_lock_stat_row r;

		memset(&r, 0, sizeof(r));
		snprintf(r.name, sizeof(r.name), "%s", rows[i].class_name);
		snprintf(r.site, sizeof(r.site), "%s", rows[i].site);
		snprintf(r.kind, sizeof(r.kind), "%s", rows[i].kind);
		r.acquired = rows[i].st.acquired;
		r.contended = rows[i].st.contended;
		r.wait_total_ns = rows[i].st.wait_total_ns;
		r.wait_max_ns = rows[i].st.wait_max_ns;
		r.wait_min_ns = rows[i].st.wait_min_ns;
		r.hold_total_ns = rows[i].st.hold_total_ps / 1000;
		r.stolen = rows[i].st.stolen;
		r.handoffs = rows[i].st.handoffs;
		if (fl_locks_add(out, &r))
			return -ENOMEM;
	}
	return 0;
}

static int model_proc_create(struct fl_target *t, struct fl_proc **out)
{
	struct model_target *mt = (struct model_target *)t;
	struct model_proc *mp = fl_calloc(1, sizeof(*mp));

	if (!mp)
		return -ENOMEM;
	mp->mm = mm_alloc(++mt->next_proc_id);
	if (!mp->mm) {
		fl_free(mp);
		return -ENOMEM;
	}
	mp->base.target = t;
	mp->main.proc = &mp->base;
	mp->main.index = -1;
	mp->main.cpu = 0;
	*out = &mp->base;
	return 0;
}

static int model_proc_exit(struct fl_proc *p)
{
	struct model_proc *mp = (struct model_proc *)p;

	if (mp->nr_forked)
		return -EBUSY; /* the processes it forked exit first */
	if (mp->forked_from)
		mp->forked_from->nr_forked--;
	mmput(mp->mm);
	fl_free(mp);
	return 0;
}

/* fork(2): a new process whose mm is a copy of the caller's (dup_mmap()). */
static int model_proc_fork(struct fl_thread *th, struct fl_proc **out)
{
	struct model_proc *parent = (struct model_proc *)th->proc, *mp;
	struct fl_proc *p;
	int ret;

	if (th->index != -1)
		return -EINVAL; /* as the host: from the main thread */
	ret = model_proc_create(th->proc->target, &p);
	if (ret)
		return ret;
	mp = (struct model_proc *)p;
	fl_cost(FL_COST_SYSCALL);
	ret = dup_mmap(mp->mm, parent->mm);
	if (ret) {
		mmput(mp->mm);
		fl_free(mp);
		return ret;
	}
	mp->forked_from = parent;
	parent->nr_forked++;
	*out = p;
	return 0;
}

static struct fl_thread *model_proc_main(struct fl_proc *p)
{
	return &((struct model_proc *)p)->main;
}

struct thread_start {
	struct fl_thread th;
	void (*fn)(struct fl_thread *th, void *arg);
	void *arg;
};

static void thread_trampoline(void *p)
{
	struct thread_start *ts = p;
	struct mm_struct *mm = thread_mm(&ts->th);

	fl__mm_cpu_enter(mm);
	ts->fn(&ts->th, ts->arg);
	fl__mm_cpu_leave(mm);
	fl__kswapd_task_done();
	fl__khugepaged_task_done();
}

static int model_run_tasks(struct fl_target *t, struct fl_proc **procs, int n,
			   void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct model_target *mt = (struct model_target *)t;
	int host = fl__host_nr_cpus();
	struct fl_thread_handle **h;
	struct thread_start *ts;
	int i, started = 0, ret = 0;
	/* kswapd and khugepaged run too */
	bool up = n == 1 && !mt->cfg.locked_atomics && !mt->cfg.swap_bytes && !mt->cfg.khugepaged;

	/* on sim, tasks beyond the CPUs share them: task i on CPU i mod CPUs */
	if (n < 1 || (n > t->nr_cpus && !mt->cfg.sim))
		return -EINVAL;
	ts = fl_calloc((size_t)n, sizeof(*ts));
	h = fl_calloc((size_t)n, sizeof(*h));
	if (!ts || !h) {
		fl_free(ts);
		fl_free(h);
		return -ENOMEM;
	}
	fl_cpu_unbind();
	/* one task and this thread waiting: atomics need no LOCK prefix */
	if (up)
		fl__uniproc_begin();
	ret = fl__kswapd_start(n);
	if (!ret)
		ret = fl__khugepaged_start(n);
	for (i = 0; i < n && !ret; i++) {
		ts[i].th.proc = procs[i];
		ts[i].th.index = i;
		ts[i].th.cpu = i % t->nr_cpus;
		ts[i].fn = fn;
		ts[i].arg = arg;
		h[i] = fl__thread_start(thread_trampoline, &ts[i], i % t->nr_cpus,
					mt->cfg.pin_cpus && t->nr_cpus <= host ? i : -1, &ret);
		if (!h[i])
			break;
		started++;
	}
	/* the tasks never started count as done, so kswapd stops when the rest end */
	for (i = started; i < n; i++) {
		fl__kswapd_task_done();
		fl__khugepaged_task_done();
	}
	for (i = 0; i < started; i++)
		fl__thread_join(h[i]);
	fl__kswapd_join();
	fl__khugepaged_join();
	if (up)
		fl__uniproc_end();
	fl_cpu_bind(0);
	fl_free(ts);
	fl_free(h);
	return started == n ? 0 : ret;
}

static int model_mmap(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr)
{
	unsigned long vm_flags = 0, a;
	int ret;

	if (prot & FL_PROT_READ)
		vm_flags |= VM_READ;
	if (prot & FL_PROT_WRITE)
		vm_flags |= VM_WRITE | VM_READ;
	if (flags & FL_MAP_DROPPABLE) /* mm/mmap.c do_mmap(): MAP_DROPPABLE wipes on fork */
		vm_flags |= VM_DROPPABLE | VM_WIPEONFORK;
	fl_cost(FL_COST_SYSCALL);
	ret = do_mmap(thread_mm(th), (unsigned long)len, vm_flags, &a);
	if (!ret)
		*addr = a;
	return ret;
}

static int model_munmap(struct fl_thread *th, uint64_t addr, uint64_t len)
{
	fl_cost(FL_COST_SYSCALL);
	return do_munmap(thread_mm(th), (unsigned long)addr, (unsigned long)len);
}

static int model_madvise(struct fl_thread *th, uint64_t addr, uint64_t len, int advice)
{
	static const int map[] = {
		[FL_MADV_DONTNEED] = MADV_DONTNEED, [FL_MADV_FREE] = MADV_FREE,
		[FL_MADV_COLD] = MADV_COLD,	    [FL_MADV_PAGEOUT] = MADV_PAGEOUT,
		[FL_MADV_HUGEPAGE] = MADV_HUGEPAGE, [FL_MADV_NOHUGEPAGE] = MADV_NOHUGEPAGE,
		[FL_MADV_COLLAPSE] = MADV_COLLAPSE,
	};

	if (advice < 0 || advice >= (int)ARRAY_SIZE(map))
		return -EINVAL;
	fl_cost(FL_COST_SYSCALL);
	return do_madvise(thread_mm(th), (unsigned long)addr, (size_t)len, map[advice]);
}

static int model_thp_sample(struct fl_thread *th, struct fl_thp_sample *out)
{
	out->anon_huge_bytes = fl__mm_anon_huge_bytes(thread_mm(th));
	out->pte_accesses = this_cpu_fl_stat(FL_ACCESS_PTE);
	out->pmd_accesses = this_cpu_fl_stat(FL_ACCESS_PMD);
	out->dtlb_load_misses = fl__dtlb_on ? this_cpu_fl_stat(FL_DTLB_LOAD_MISSES) : -1;
	out->dtlb_errno = 0;
	return 0;
}

static int model_write(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		       uint64_t tag, uint64_t tag_step)
{
	if (!stride)
		return -EINVAL;
	return fl__mm_access_range(thread_mm(th), (unsigned long)addr, (unsigned long)len,
				   (unsigned long)stride, true, tag, tag_step, NULL, NULL);
}

static int model_read(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		      uint64_t *tags, uint64_t *sum)
{
	if (!stride)
		return -EINVAL;
	return fl__mm_access_range(thread_mm(th), (unsigned long)addr, (unsigned long)len,
				   (unsigned long)stride, false, 0, 0, tags, sum);
}

/* ---- files ---- */

struct fl_tmpfs {
	struct shmem_sb_info *sb;
};

struct fl_file {
	struct inode *inode;
	char path[192];
};

static int model_tmpfs_mount(struct fl_thread *th, const char *options, struct fl_tmpfs **out,
			     char *err, size_t len)
{
	static unsigned long next_mount;
	struct fl_tmpfs *m = fl_calloc(1, sizeof(*m));
	char path[64];
	int ret;

	(void)th;
	if (!m)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/tmp/foliolab-tmpfs%lu",
		 __atomic_fetch_add(&next_mount, 1, __ATOMIC_RELAXED));
	ret = fl__shmem_mount(path, options, &m->sb, err, len);
	if (ret) {
		fl_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

static int model_tmpfs_umount(struct fl_thread *th, struct fl_tmpfs *m)
{
	int ret;

	(void)th;
	ret = fl__shmem_umount(m->sb);
	if (!ret)
		fl_free(m);
	return ret;
}

static int model_file_create(struct fl_thread *th, struct fl_tmpfs *m, const char *name,
			     struct fl_file **out)
{
	struct fl_file *f = fl_calloc(1, sizeof(*f));
	int ret;

	(void)th;
	if (!f)
		return -ENOMEM;
	ret = fl__shmem_create(m->sb, name, &f->inode);
	if (ret) {
		fl_free(f);
		return ret;
	}
	snprintf(f->path, sizeof(f->path), "%s/%s", m->sb->path, name);
	*out = f;
	return 0;
}

static int model_file_unlink(struct fl_thread *th, struct fl_file *f)
{
	(void)th;
	return fl__shmem_unlink(f->inode);
}

static int model_mmap_file(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			   int prot, int flags, uint64_t *addr)
{
	unsigned long vm_flags = 0, a;
	struct file *file;
	int ret;

	if (prot & FL_PROT_READ)
		vm_flags |= VM_READ;
	if (prot & FL_PROT_WRITE)
		vm_flags |= VM_WRITE | VM_READ;
	if (flags & FL_MAP_SHARED)
		vm_flags |= VM_SHARED;
	/* the open file mmap() is given; the mapping takes its own reference */
	file = fl__shmem_file_open(f->inode);
	if (!file)
		return -ENOMEM;
	ret = do_mmap_file(thread_mm(th), file, (loff_t)off, (unsigned long)len, vm_flags, &a);
	fput(file);
	flush_delayed_fput();
	if (!ret)
		*addr = a;
	return ret;
}

static int model_file_close(struct fl_thread *th, struct fl_file *f)
{
	(void)th;
	fl__iput(f->inode);
	fl_free(f);
	return 0;
}

static bool page_aligned(uint64_t off, uint64_t len)
{
	return !(off % PAGE_SIZE) && !(len % PAGE_SIZE);
}

static int model_fallocate(struct fl_thread *th, struct fl_file *f, int mode, uint64_t off,
			   uint64_t len)
{
	(void)th;
	return shmem_fallocate(f->inode, mode, (loff_t)off, (loff_t)len);
}

static int model_ftruncate(struct fl_thread *th, struct fl_file *f, uint64_t size)
{
	(void)th;
	return fl__shmem_truncate(f->inode, (loff_t)size);
}

static int model_pwrite_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			     uint64_t tag, uint64_t tag_step)
{
	uint64_t i;
	int ret = 0;

	(void)th;
	if (!page_aligned(off, len))
		return -EINVAL;
	/* one write(2) per page, as the host's pwrite of each page's tag */
	for (i = 0; i < len / PAGE_SIZE && !ret; i++)
		ret = fl__shmem_write_tags(f->inode, off / PAGE_SIZE + i, 1, tag + i * tag_step, 0);
	return ret;
}

static int model_pread_tags(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
			    uint64_t *tags, uint64_t *sum)
{
	uint64_t one, s = 0, done = 0;

	(void)th;
	if (!page_aligned(off, len))
		return -EINVAL;
	/* one read(2) per page, as the host's pread of each page's tag */
	while (done < len / PAGE_SIZE) {
		uint64_t *dst = tags ? tags + done : &one;

		if (fl__shmem_read_tags(f->inode, off / PAGE_SIZE + done, 1, dst) < 1)
			break;
		s += *dst;
		done++;
	}
	if (sum)
		*sum = s;
	return (int)done;
}

static int model_split_huge_pages_file(struct fl_thread *th, struct fl_file *f, uint64_t first,
				       uint64_t end, int new_order, long in_folio_offset, char *err,
				       size_t len)
{
	char input[256];
	int ret;

	(void)th;
	if (in_folio_offset >= 0)
		snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d,%ld", f->path,
			 (unsigned long long)first, (unsigned long long)end, new_order,
			 in_folio_offset);
	else
		snprintf(input, sizeof(input), "%s,0x%llx,0x%llx,%d", f->path,
			 (unsigned long long)first, (unsigned long long)end, new_order);
	ret = fl__split_huge_pages_write(input);
	if (ret)
		snprintf(err, len, "split_huge_pages refused '%s' (%s)", input, strerror(-ret));
	return ret;
}

static int model_split_huge_pages_range(struct fl_thread *th, uint64_t addr, uint64_t len,
					int new_order, long in_folio_offset, char *err,
					size_t errlen)
{
	char input[256];
	int ret;

	if (!len)
		snprintf(input, sizeof(input), "1");
	else if (in_folio_offset >= 0)
		snprintf(input, sizeof(input), "%d,0x%llx,0x%llx,%d,%ld", thread_mm(th)->id,
			 (unsigned long long)addr, (unsigned long long)(addr + len), new_order,
			 in_folio_offset);
	else
		snprintf(input, sizeof(input), "%d,0x%llx,0x%llx,%d", thread_mm(th)->id,
			 (unsigned long long)addr, (unsigned long long)(addr + len), new_order);
	ret = fl__split_huge_pages_write(input);
	if (ret)
		snprintf(err, errlen, "split_huge_pages refused '%s' (%s)", input, strerror(-ret));
	return ret;
}

#define DEFERRED_SPLIT_SHRINKER "thp-deferred_split"
#define HUGE_ZERO_SHRINKER "thp-zero"

static int model_shrinker_count(struct fl_thread *th, const char *name, uint64_t *count, char *err,
				size_t len)
{
	int nid, i;

	(void)th;
	if (!strcmp(name, HUGE_ZERO_SHRINKER)) {
		*count = huge_zero_folio_shrink_count();
		return 0;
	}
	if (strcmp(name, DEFERRED_SPLIT_SHRINKER)) {
		snprintf(err, len, "no shrinker '%s' (the model has %s and %s)", name,
			 DEFERRED_SPLIT_SHRINKER, HUGE_ZERO_SHRINKER);
		return -ENOENT;
	}
	/* the count file's lines summed: the root's per node, each memcg's on every node */
	*count = 0;
	for_each_online_node (nid)
		for (i = 0; i <= fl__nr_memcgs; i++)
			*count += deferred_split_count(nid, fl__memcgs[i]);
	return 0;
}

static int model_shrinker_scan(struct fl_thread *th, const char *name, int nid, uint64_t nr,
			       char *err, size_t len)
{
	int i;

	(void)th;
	if (!strcmp(name, HUGE_ZERO_SHRINKER)) {
		huge_zero_folio_shrink_scan();
		return 0;
	}
	if (strcmp(name, DEFERRED_SPLIT_SHRINKER)) {
		snprintf(err, len, "no shrinker '%s' (the model has %s and %s)", name,
			 DEFERRED_SPLIT_SHRINKER, HUGE_ZERO_SHRINKER);
		return -ENOENT;
	}
	if (nid < 0 || nid >= fl__nr_node_ids) {
		snprintf(err, len, "shrinker scan: node %d does not exist (0..%d)", nid,
			 fl__nr_node_ids - 1);
		return -EINVAL;
	}
	/* as the host target does: the node's share of every memcg the count lists */
	deferred_split_scan(nid, NULL, nr);
	for (i = 1; i <= fl__nr_memcgs; i++)
		deferred_split_scan(nid, fl__memcgs[i], nr);
	return 0;
}

static int model_drop_slab(struct fl_thread *th, char *err, size_t len)
{
	(void)th;
	(void)err;
	(void)len;
	drop_slab();
	return 0;
}

/* memory.reclaim of the run's memcg (mem_cgroup_reclaim()); EAGAIN is no error */
static int model_memcg_reclaim(struct fl_thread *th, uint64_t bytes, char *err, size_t len)
{
	(void)th;
	if (!fl__run_memcg) {
		snprintf(err, len, "the run has no memory cgroup to reclaim from");
		return -ENOENT;
	}
	mem_cgroup_reclaim(fl__run_memcg, (unsigned long)(bytes / PAGE_SIZE), -1);
	return 0;
}

const struct fl_target_ops fl__model_target_ops = {
	.name = "model",
	.open = model_open,
	.quiesce = model_quiesce,
	.close = model_close,
	.check_knobs = model_check_knobs,
	.set_knobs = model_set_knobs,
	.knobs = model_knobs,
	.counters = model_counters,
	.meminfo = model_meminfo,
	.locks = model_locks,
	.describe = model_describe,
	.oom_report = model_oom_report,
	.begin = model_begin,
	.shared_alloc = model_shared_alloc,
	.proc_create = model_proc_create,
	.proc_exit = model_proc_exit,
	.proc_fork = model_proc_fork,
	.proc_main = model_proc_main,
	.run_tasks = model_run_tasks,
	.mmap = model_mmap,
	.munmap = model_munmap,
	.madvise = model_madvise,
	.thp_sample = model_thp_sample,
	.write = model_write,
	.read = model_read,
	.tmpfs_mount = model_tmpfs_mount,
	.tmpfs_umount = model_tmpfs_umount,
	.file_create = model_file_create,
	.file_unlink = model_file_unlink,
	.file_close = model_file_close,
	.fallocate = model_fallocate,
	.ftruncate = model_ftruncate,
	.pwrite_tags = model_pwrite_tags,
	.pread_tags = model_pread_tags,
	.split_huge_pages_file = model_split_huge_pages_file,
	.mmap_file = model_mmap_file,
	.split_huge_pages_range = model_split_huge_pages_range,
	.shrinker_count = model_shrinker_count,
	.shrinker_scan = model_shrinker_scan,
	.drop_slab = model_drop_slab,
	.memcg_reclaim = model_memcg_reclaim,
};
