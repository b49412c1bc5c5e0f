/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * platform.h - what the model kernel gets from "the CPU": the current CPU
 * id, per-CPU data, threads that act as CPUs, a clock and the allocation
 * wrapper. Locks are in lock.h.
 *
 * This is the single seam between mm/ and the host: mm/ never calls
 * pthreads, clocks or malloc directly. Two implementations stand behind
 * it (struct fl_platform_ops below): native/ runs one pthread per model
 * CPU, sim/ runs deterministic virtual CPUs on one host thread. What both
 * share is here beside them: cpu.c (which CPU a thread is, per-CPU data),
 * lock_stat.c (the lock table and the order witness), alloc.c, bug.c.
 *
 * Conventions in this file: "CPU" is a model CPU id in [0, nr_cpu_ids);
 * a thread is bound to at most one CPU and a CPU to at most one thread.
 */
#ifndef FL_PLATFORM_PLATFORM_H
#define FL_PLATFORM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include "compiler.h"
#include "bug.h"
#include "jump_label.h"

#define FL_NR_CPUS_MAX 1024

extern int fl__nr_cpu_ids;
extern _Thread_local int fl__cpu;

/* what a thread runs: fl__thread_start()'s @fn */
typedef void (*fl_thread_fn)(void *);
extern _Thread_local fl_thread_fn fl__current_fn;

/**
 * fl_current_fn() - the function the calling thread (or simulated task)
 * was started with, as the kernel's kthread_func(current): NULL on the
 * host thread and on a task the simulator was given directly.
 */
static inline fl_thread_fn fl_current_fn(void)
{
	return fl__current_fn;
}

/**
 * smp_processor_id() - the model CPU this thread runs on.
 * Context: the thread must be bound (fl_cpu_bind()).
 */
static inline int smp_processor_id(void)
{
	VM_BUG_ON(fl__cpu < 0);
	return fl__cpu;
}

static inline int nr_cpu_ids_get(void)
{
	return fl__nr_cpu_ids;
}

#define for_each_online_cpu(cpu) for ((cpu) = 0; (cpu) < fl__nr_cpu_ids; (cpu)++)

/*
 * Per-CPU areas: an array of nr_cpu_ids + 1 elements (the last one for an
 * unbound thread) registered in a slot; the slot's pointer to the current
 * CPU's element follows the thread's binding, so a hot-path per-CPU update
 * is one TLS load away.
 */
enum { FL_PERCPU_VMSTAT, FL_PERCPU_SLOTS };
extern _Thread_local void *fl__this_cpu_area[FL_PERCPU_SLOTS];
void fl_percpu_area_register(int slot, void *base, size_t stride);

/*
 * The platform: two implementations of one table of operations, native/
 * (one pthread per model CPU, futexes, the host's clocks) and sim/
 * (virtual CPUs in virtual time: a workload's threads are simulated tasks
 * on the one host thread, and time passes as mm/ charges its costs,
 * cost.h, and as tasks wait). fl__platform points at the one in force,
 * chosen when a run starts (sim/platform.c: fl__sim_platform_start()) and
 * never changed while model code runs. Everything out of line goes
 * through the table; the few inline fast paths (a lock and unlock,
 * lock.h; a cost charged, cost.h; fl_user_preempt_point()) take one
 * static branch, fl_sim_branch() (jump_label.h): a no-op on native,
 * patched into a jump when the simulator starts, as the kernel's
 * static_branch_unlikely().
 * mm/ tests no platform flag: it charges costs and names its simulator
 * bookkeeping (cost.h: fl_sim_only()).
 */
struct fl_thread_handle;
struct fl_waitq;
struct fl_rwsem;
struct fl_lock_site;
struct fl_platform_ops {
	const char *name;
	/* monotonic ns: the host's clock, or the running task's CPU's virtual one */
	uint64_t (*clock_ns)(void);
	void (*cpu_work)(uint64_t ns);
	void (*cpu_wait)(unsigned int *spins);
	void (*yield)(void);
	void (*membarrier)(void);
	struct fl_thread_handle *(*thread_start)(void (*fn)(void *), void *arg, int cpu,
						 int pin_host_cpu, int *err);
	void (*thread_join)(struct fl_thread_handle *h);
	void (*word_wait)(unsigned long *word, unsigned long val);
	void (*waitq_sleep)(struct fl_waitq *wq, unsigned long seen);
	bool (*waitq_sleep_timeout)(struct fl_waitq *wq, unsigned long seen, uint64_t ns);
	void (*waitq_wake_all)(struct fl_waitq *wq);
	/* an rwsem's own part; lock.h's wrappers add the witness and the counts */
	void (*rwsem_lock)(struct fl_rwsem *sem, struct fl_lock_site *s, bool write);
	bool (*rwsem_read_trylock)(struct fl_rwsem *sem, struct fl_lock_site *s);
	void (*rwsem_unlock)(struct fl_rwsem *sem, bool write);
	void (*rwsem_downgrade)(struct fl_rwsem *sem, struct fl_lock_site *s);
};
extern const struct fl_platform_ops *fl__platform;  /* platform.c */
extern const struct fl_platform_ops fl__native_ops; /* native/ */
extern const struct fl_platform_ops fl__sim_ops;    /* sim/ */
extern bool fl__sim_active;			    /* fl__platform is fl__sim_ops */
/*
 * fl__platform_set() - put @ops in force (@sim: they are the simulator's,
 * whose static branches are patched on, jump_label.h). Only while no
 * other thread runs model code. Return: 0, or -errno if the program's
 * text could not be patched (nothing changed then).
 */
int fl__platform_set(const struct fl_platform_ops *ops, bool sim);
/*
 * fl__sim_platform_start() - from now on, threads are simulated tasks on
 * this host thread, one per model CPU, seeded @seed. Return: 0 or -errno.
 * fl__sim_platform_stop() goes back to the native platform.
 */
int fl__sim_platform_start(uint64_t seed);
void fl__sim_platform_stop(void);
void fl__sim_preempt_point(void);
/*
 * fl_user_preempt_point() - the running task is in user mode, where the
 * scheduler tick may give its CPU to another task: on sim, a task that
 * has had its CPU for a tick (sim.h: FL_SIM_TICK_PS) goes to the back of
 * its CPU's run queue if another task there is ready. Elsewhere the host
 * schedules.
 */
static inline void fl_user_preempt_point(void)
{
	if (fl_sim_branch())
		fl__sim_preempt_point();
}
/* cpu.c: this host thread's per-CPU state at @cpu (-1: none), as a simulated task runs there */
void fl__cpu_rebind(int cpu);

/* cpu.c */
/**
 * fl__platform_init() - set up @nr_cpus model CPUs.
 * Return: 0 or -EINVAL when @nr_cpus is out of range.
 */
int fl__platform_init(int nr_cpus);
void fl__platform_exit(void);
/**
 * fl_cpu_bind() - make the calling thread model CPU @cpu.
 * Return: 0, -EINVAL for a bad id, -EBUSY if another thread holds @cpu.
 */
int fl_cpu_bind(int cpu);
void fl_cpu_unbind(void);
int fl__host_nr_cpus(void);

/*
 * An asymmetric fence, as the kernel's TLB-shootdown IPI: fl__membarrier()
 * makes every other running thread of the process execute a full memory
 * barrier (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED), so the other
 * side of the pairing needs only a compiler barrier, fl_membarrier_pair().
 * Without membarrier (fl__membarrier_ok false) both are full fences.
 */
extern bool fl__membarrier_ok;
static inline void fl__membarrier(void)
{
	fl__platform->membarrier();
}
static __always_inline void fl_membarrier_pair(void)
{
	if (fl__membarrier_ok)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		smp_mb();
}

/*
 * fl__host_cpuinfo() - the value of the first /proc/cpuinfo line named
 * @key ("model name", "cpu MHz") in @buf. Return: 0, or -ENOENT (buf "").
 */
int fl__host_cpuinfo(const char *key, char *buf, size_t len);

/* The whole machine's CPU time in USER_HZ ticks, as /proc/stat's "cpu" line. */
struct fl_cpu_ticks {
	unsigned long long busy;  /* user + nice + system + irq + softirq */
	unsigned long long steal; /* wanted, but the hypervisor ran something else */
};
/* fl__parse_cpu_ticks() - read @line ("cpu  user nice ..."). Return: 0 or -EINVAL. */
int fl__parse_cpu_ticks(const char *line, struct fl_cpu_ticks *t);
/* fl__host_cpu_ticks() - /proc/stat now. Return: 0 or -ENOENT (@t zeroed). */
int fl__host_cpu_ticks(struct fl_cpu_ticks *t);
/*
 * fl__steal_pct() - the stolen share of the CPU time wanted (busy + stolen)
 * between @a and @b, in %. Return: the share, or -1 if no tick elapsed.
 */
double fl__steal_pct(const struct fl_cpu_ticks *a, const struct fl_cpu_ticks *b);

/* a worker thread that runs as one model CPU */
struct fl_thread_handle;
/**
 * fl__thread_start() - start @fn(@arg) on a new thread bound to @cpu.
 * @pin_host_cpu: host CPU to pin to, or -1 for no pinning.
 * Return: handle or NULL on failure (errno-style code in *@err).
 */
static inline struct fl_thread_handle *fl__thread_start(void (*fn)(void *), void *arg, int cpu,
							int pin_host_cpu, int *err)
{
	return fl__platform->thread_start(fn, arg, cpu, pin_host_cpu, err);
}

/* the join of a simulated task runs the simulation of every task spawned so far */
static inline void fl__thread_join(struct fl_thread_handle *h)
{
	fl__platform->thread_join(h);
}

/* give the host CPU away while waiting for another thread */
static inline void fl_yield(void)
{
	fl__platform->yield();
}

/**
 * fl_cpu_wait() - one step of waiting for another CPU to change a word:
 * a pause while *@spins is small, then the host CPU is given away.
 * Start *@spins at 0. Every wait of model code goes through here (or
 * through the locks), so the virtual-CPU platform can see it and charge it.
 */
static inline void fl_cpu_wait(unsigned int *spins)
{
	fl__platform->cpu_wait(spins);
}

/*
 * smp_cond_load_acquire() - the kernel's spelling: load *@ptr with
 * acquire until @cond_expr, which names the loaded value VAL, holds;
 * waits with fl_cpu_wait(). Return: the value that satisfied it.
 */
#define smp_cond_load_acquire(ptr, cond_expr)                                                      \
	__extension__({                                                                            \
		__typeof__(ptr) pc_ = (ptr);                                                       \
		__typeof__(*pc_) VAL;                                                              \
		unsigned int spins_ = 0;                                                           \
		for (;;) {                                                                         \
			VAL = __atomic_load_n(pc_, __ATOMIC_ACQUIRE);                              \
			if (cond_expr)                                                             \
				break;                                                             \
			fl_cpu_wait(&spins_);                                                      \
		}                                                                                  \
		VAL;                                                                               \
	})

static inline uint64_t fl_clock_ns(void)
{
	return fl__platform->clock_ns();
}

/* native/clock.c: the process's CPU times, user and system */
void fl_cpu_times(double *user_s, double *sys_s);
/*
 * fl_cpu_work() - @ns of user-mode work on the calling task's CPU: on sim
 * that much virtual time charged to the task, elsewhere a loop until the
 * thread has used @ns of CPU time
 */
static inline void fl_cpu_work(uint64_t ns)
{
	fl__platform->cpu_work(ns);
}

/* alloc.c: every allocation of the core goes through here */
/* the @n-th allocation from now returns NULL (0: none fails) */
void fl__fail_alloc_after(long n);
void *fl_malloc(size_t size);
void *fl_calloc(size_t n, size_t size);
void *fl_aligned_alloc(size_t align, size_t size);
void fl_free(void *p);
/* reserve address space, touched on demand; NULL on failure */
void *fl_reserve(size_t size, bool hugepage_hint);
void fl_unreserve(void *p, size_t size);

#endif /* FL_PLATFORM_PLATFORM_H */
