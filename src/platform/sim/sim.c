// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim.c - virtual CPUs in virtual time (sim.h): coroutines switched by a
 * few instructions of assembly (no system call), virtual clocks, the
 * smallest-clock-first scheduler with a seeded tie-break, and spinlocks
 * whose waiters queue in order.
 *
 * The CPUs that could run a task wait in a binary min-heap ordered by
 * (next time, a tie key drawn from the seeded stream, CPU id), so a
 * scheduling point costs O(1) while the running CPU stays first and
 * O(log CPUs) when it does not.
 *
 * Conventions in this file: "S" is the simulator's one state; a task's
 * CPU never changes; a CPU's "next time" is when it could next run a task
 * (its clock while a task can run on it; a sleeper's wake time when none
 * can; never while its task spins); the running CPU is never in the heap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sim.h"
#include "../lock.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SIM_ASAN 1
#else
#define SIM_ASAN 0
#endif

#define SIM_STACK (256u << 10) /* reserved per task; touched as used */

enum task_state { T_RUNNABLE, T_SPINNING, T_SLEEPING, T_BLOCKED, T_DONE };

struct fl_sim_task {
	void *sp; /* saved stack pointer while switched out */
	void *stack;
	void (*fn)(void *);
	void *arg;
	int cpu;
	enum task_state state;
	uint64_t wake_at;	     /* T_SLEEPING */
	uint64_t arrival;	     /* T_SPINNING, T_BLOCKED: when it began to wait */
	uint64_t ready_at;	     /* on a run queue: when it became able to run */
	bool reader;		     /* waiting for an rwsem, to read */
	struct fl_sim_task *next;    /* run queue, sleep list or lock queue */
	struct fl_sim_task *wq_next; /* a wait queue's timed sleepers */
	bool woken;		     /* fl_sim_wait_timeout(): a waker took it off */
	bool granted;		     /* an rwsem reader: the waker gave it the lock */
	struct fl_sim_task *rw_next; /* an rwsem's queue: a woken writer stays in it */
	uint64_t timeout;	     /* an rwsem waiter: when it may ask for a hand-off */
	void *asan_fake;
	fl_thread_fn current_fn; /* fl__current_fn while it runs */
	unsigned char tls[FL_SIM_TLS_SIZE] __attribute__((aligned(16))); /* its per-thread state */
};

struct heap_ent {
	uint64_t time, tie;
	int cpu;
};

struct sim_cpu {
	uint64_t now;
	uint64_t busy;
	uint64_t idle;
	struct fl_sim_task *curr;	       /* running or spinning */
	struct fl_sim_task *rq_head, *rq_tail; /* runnable, waiting for the CPU */
	struct fl_sim_task *sleepers;	       /* in wake order */
	uint64_t slice_start;		       /* when curr got the CPU */
	uint64_t key_time, key_tie;	       /* its place in the heap */
	int heap_idx;			       /* -1: not in the heap */
};

static struct {
	int nr_cpus;
	struct sim_cpu *cpus;
	uint64_t rng;
	uint64_t handoff;
	uint64_t wakeup; /* a sleeping lock's waiter: from its wake-up to running */
	void *sched_sp;
	void *sched_asan_fake;
	const void *sched_stack_bottom;
	size_t sched_stack_size;
	struct fl_sim_task *current;
	struct fl_sim_task **tasks;
	int nr_tasks;
	struct heap_ent *heap;
	int heap_n;
	int nr_live;
	uint64_t switches;
	uint64_t preemptions; /* fl_sim_preempt()'s switches */
	bool running;
	bool resume_keyed; /* the CPU that just stopped was keyed by sched_point() */
} S;

/*
 * What the running task has been charged (cost.h) since its last
 * scheduling point: it becomes its CPU's time (busy) whenever the
 * simulator is entered from the task.
 */
uint64_t fl__sim_debt;
unsigned int fl__sim_gen;
unsigned char *fl__sim_tls;

static void settle(void)
{
	struct sim_cpu *c = &S.cpus[S.current->cpu];

	c->now += fl__sim_debt;
	c->busy += fl__sim_debt;
	fl__sim_debt = 0;
}

static void heap_remove(int cpu);
static void cpu_enqueue(int cpu);

/*
 * Only the current task runs, so another CPU is at a scheduling point of
 * its task (or spins): its clock moves on by @t at once (busy), and it
 * takes its new place in the heap, as a wake-up's CPU does.
 */
bool fl_sim_interrupt(int cpu, uint64_t t)
{
	struct sim_cpu *c;

	if (cpu < 0 || cpu >= S.nr_cpus || (S.current && S.current->cpu == cpu))
		return false;
	c = &S.cpus[cpu];
	if (!c->curr)
		return false;
	c->now += t;
	c->busy += t;
	if (c->heap_idx >= 0) {
		heap_remove(cpu);
		cpu_enqueue(cpu);
	}
	return true;
}

static size_t last_memory; /* fl_sim_memory(): the last run's, kept past fl_sim_exit() */
static size_t memory_now(void);

/* Save the callee-saved registers on this stack, store its pointer, load @to's. */
void fl__sim_switch(void **save_sp, void *to_sp);
__asm__(".text\n"
	".globl fl__sim_switch\n"
	".type fl__sim_switch,@function\n"
	"fl__sim_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size fl__sim_switch, .-fl__sim_switch\n");

static uint64_t next_rand(void)
{
	/* splitmix64: a good stream from any seed */
	uint64_t z = (S.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int fl_sim_init(int nr_cpus, uint64_t seed, uint64_t handoff_ns)
{
	int i;
	if (nr_cpus < 1 || nr_cpus > 1024 || S.cpus)
		return -EINVAL;
	memset(&S, 0, sizeof(S));
	S.cpus = calloc((size_t)nr_cpus, sizeof(*S.cpus));
	S.heap = calloc((size_t)nr_cpus, sizeof(*S.heap));
	if (!S.cpus || !S.heap) {
		free(S.cpus);
		free(S.heap);
		memset(&S, 0, sizeof(S));
		return -ENOMEM;
	}
	S.nr_cpus = nr_cpus;
	for (i = 0; i < nr_cpus; i++)
		S.cpus[i].heap_idx = -1;
	S.rng = seed;
	S.handoff = handoff_ns;
	S.wakeup = handoff_ns;
	fl__sim_gen++;
	return 0;
}

void fl_sim_set_wakeup(uint64_t t)
{
	S.wakeup = t;
}

/* the platform's spinlocks: queues of spinners by lock address (below) */
#define SPINQ_BUCKETS 1024

struct spinq {
	const void *key;
	struct fl_sim_waitq q;
	struct spinq *next;
};

static struct spinq *spinq_table[SPINQ_BUCKETS];

void fl_sim_exit(void)
{
	int i;

	for (i = 0; i < S.nr_tasks; i++) {
		munmap(S.tasks[i]->stack, SIM_STACK);
		free(S.tasks[i]);
	}
	for (i = 0; i < SPINQ_BUCKETS; i++)
		while (spinq_table[i]) {
			struct spinq *sq = spinq_table[i];

			spinq_table[i] = sq->next;
			free(sq);
		}
	free(S.tasks);
	free(S.cpus);
	free(S.heap);
	memset(&S, 0, sizeof(S));
}

/* Switch from the running task to the scheduler, or back. */
static void switch_to_scheduler(struct fl_sim_task *t)
{
	S.switches++;
#if SIM_ASAN
	__sanitizer_start_switch_fiber(t->state == T_DONE ? NULL : &t->asan_fake,
				       S.sched_stack_bottom, S.sched_stack_size);
#endif
	fl__sim_switch(&t->sp, S.sched_sp);
#if SIM_ASAN
	__sanitizer_finish_switch_fiber(t->asan_fake, NULL, NULL);
#endif
}

static void switch_to_task(struct fl_sim_task *t)
{
	/* every task leaves settled: what is owed now, the host thread charged */
	fl__sim_debt = 0;
	S.current = t;
	S.switches++;
	/* this host thread's per-CPU state becomes the task's */
	fl__cpu_rebind(t->cpu);
	fl__witness_load(t->tls);
	fl__sim_tls = t->tls;
	fl__current_fn = t->current_fn;
#if SIM_ASAN
	__sanitizer_start_switch_fiber(&S.sched_asan_fake, t->stack, SIM_STACK);
#endif
	fl__sim_switch(&S.sched_sp, t->sp);
#if SIM_ASAN
	__sanitizer_finish_switch_fiber(S.sched_asan_fake, NULL, NULL);
#endif
	fl__witness_save(t->tls);
	fl__sim_tls = NULL;
	t->current_fn = fl__current_fn;
	fl__current_fn = NULL;
	fl__cpu_rebind(-1);
	S.current = NULL;
}

static void task_entry(void)
{
	struct fl_sim_task *t = S.current;

#if SIM_ASAN
	__sanitizer_finish_switch_fiber(NULL, &S.sched_stack_bottom, &S.sched_stack_size);
#endif
	t->fn(t->arg);
	settle();
	t->state = T_DONE;
	S.nr_live--;
	S.cpus[t->cpu].curr = NULL;
	switch_to_scheduler(t);
	abort(); /* a finished task is never resumed */
}

int fl_sim_spawn(int cpu, void (*fn)(void *), void *arg)
{
	struct fl_sim_task *t, **tasks;
	struct sim_cpu *c;
	uint64_t *sp;

	if (!S.cpus || cpu < 0 || cpu >= S.nr_cpus)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	tasks = realloc(S.tasks, (size_t)(S.nr_tasks + 1) * sizeof(*tasks));
	if (!t || !tasks) {
		free(t);
		if (tasks)
			S.tasks = tasks;
		return -ENOMEM;
	}
	S.tasks = tasks;
	t->stack = mmap(NULL, SIM_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			0);
	if (t->stack == MAP_FAILED) {
		free(t);
		return -ENOMEM;
	}
	/* what fl__sim_switch() pops: six registers, then task_entry as the return */
	sp = (uint64_t *)((char *)t->stack + SIM_STACK);
	*--sp = 0; /* task_entry starts as if called: rsp = 8 mod 16 */
	*--sp = (uint64_t)(uintptr_t)task_entry;
	sp -= 6;
	memset(sp, 0, 6 * sizeof(*sp));
	t->sp = sp;
	t->fn = fn;
	t->arg = arg;
	t->cpu = cpu;
	t->state = T_RUNNABLE;
	c = &S.cpus[cpu];
	if (c->rq_tail)
		c->rq_tail->next = t;
	else
		c->rq_head = t;
	c->rq_tail = t;
	S.tasks[S.nr_tasks++] = t;
	S.nr_live++;
	return 0;
}

/* When @c could next run a task; false if it cannot by itself (idle for good, or spinning). */
static bool cpu_next_time(const struct sim_cpu *c, uint64_t *when)
{
	if (c->curr)
		*when = c->now;
	else if (c->rq_head)
		*when = c->rq_head->ready_at > c->now ? c->rq_head->ready_at : c->now;
	else if (c->sleepers)
		*when = c->sleepers->wake_at > c->now ? c->sleepers->wake_at : c->now;
	else
		return false;
	return !(c->curr && c->curr->state == T_SPINNING);
}

/* CPU @a runs before CPU @b: the earlier time, then the smaller tie key, then the lower id. */
/* The heap holds its keys, so a sift touches only the heap's own lines. */
static bool ent_before(const struct heap_ent *x, const struct heap_ent *y)
{
	if (x->time != y->time)
		return x->time < y->time;
	if (x->tie != y->tie)
		return x->tie < y->tie;
	return x->cpu < y->cpu;
}

static struct heap_ent cpu_ent(int cpu)
{
	const struct sim_cpu *c = &S.cpus[cpu];

	return (struct heap_ent){ c->key_time, c->key_tie, cpu };
}

static void heap_set(int i, struct heap_ent e)
{
	S.heap[i] = e;
	S.cpus[e.cpu].heap_idx = i;
}

static void heap_sift_up(int i, struct heap_ent e)
{
	while (i > 0 && ent_before(&e, &S.heap[(i - 1) / 2])) {
		heap_set(i, S.heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(i, e);
}

static void heap_sift_down(int i, struct heap_ent e)
{
	for (;;) {
		int child = 2 * i + 1;

		if (child >= S.heap_n)
			break;
		if (child + 1 < S.heap_n && ent_before(&S.heap[child + 1], &S.heap[child]))
			child++;
		if (!ent_before(&S.heap[child], &e))
			break;
		heap_set(i, S.heap[child]);
		i = child;
	}
	heap_set(i, e);
}

static void heap_push(int cpu)
{
	heap_sift_up(S.heap_n++, cpu_ent(cpu));
}

/* Take @cpu out of the heap, wherever it is. */
static void heap_remove(int cpu)
{
	int i = S.cpus[cpu].heap_idx;
	struct heap_ent last;

	S.cpus[cpu].heap_idx = -1;
	last = S.heap[--S.heap_n];
	if (i == S.heap_n)
		return;
	heap_sift_up(i, last);
	heap_sift_down(S.cpus[last.cpu].heap_idx, last);
}

static int heap_pop(void)
{
	int top = S.heap[0].cpu;

	heap_remove(top);
	return top;
}

/* @cpu, keyed, goes into the heap and its top comes out: one sift. */
static int heap_replace_top(int cpu)
{
	int top = S.heap[0].cpu;

	S.cpus[top].heap_idx = -1;
	heap_sift_down(0, cpu_ent(cpu));
	return top;
}

/* Key @cpu at its next time (a fresh tie key) and queue it, if it can run a task. */
static void cpu_enqueue(int cpu)
{
	struct sim_cpu *c = &S.cpus[cpu];

	if (!cpu_next_time(c, &c->key_time))
		return;
	c->key_tie = next_rand();
	heap_push(cpu);
}

/* Give @c a task to run at its next time (idling until a sleeper wakes, if need be). */
static struct fl_sim_task *cpu_take_task(struct sim_cpu *c)
{
	struct fl_sim_task *t = c->curr;

	if (t)
		return t;
	if (c->rq_head) {
		t = c->rq_head;
		c->rq_head = t->next;
		if (!c->rq_head)
			c->rq_tail = NULL;
		if (t->ready_at > c->now) {
			c->idle += t->ready_at - c->now;
			c->now = t->ready_at;
		}
	} else {
		t = c->sleepers;
		c->sleepers = t->next;
		if (t->wake_at > c->now) {
			c->idle += t->wake_at - c->now;
			c->now = t->wake_at;
		}
		t->state = T_RUNNABLE;
	}
	t->next = NULL;
	c->curr = t;
	c->slice_start = c->now;
	return t;
}

int fl_sim_run(void)
{
	int cpu;

	uint64_t start = fl_sim_end_time();

	S.running = true;
	S.heap_n = 0;
	/* the tasks spawned since the last run start after everything before them */
	for (cpu = 0; cpu < S.nr_cpus; cpu++) {
		S.cpus[cpu].idle += start - S.cpus[cpu].now;
		S.cpus[cpu].now = start;
	}
	for (cpu = 0; cpu < S.nr_cpus; cpu++)
		cpu_enqueue(cpu);
	cpu = -1;
	while (S.nr_live > 0) {
		if (cpu < 0) {
			if (!S.heap_n)
				break;
			cpu = heap_pop();
		}
		switch_to_task(cpu_take_task(&S.cpus[cpu]));
		/* back from a scheduling point, a sleep, a spin or the task's end */
		if (!S.resume_keyed) {
			cpu_enqueue(cpu);
			cpu = -1;
		} else {
			/* keyed by sched_point(), which found the heap's top first */
			S.resume_keyed = false;
			cpu = cpu_next_time(&S.cpus[cpu], &S.cpus[cpu].key_time)
				      ? heap_replace_top(cpu)
				      : -1;
		}
	}
	S.running = false;
	last_memory = memory_now();
	return S.nr_live ? -EDEADLK : 0;
}

/*
 * A scheduling point: go on while the current CPU's clock is the
 * smallest (a tie decided by the stream), else let the scheduler run the
 * CPU whose turn it is.
 */
static void sched_point(void)
{
	struct fl_sim_task *t = S.current;
	struct sim_cpu *c = &S.cpus[t->cpu];

	settle();
	if (!S.heap_n)
		return;
	c->key_time = c->now;
	c->key_tie = next_rand();
	{
		struct heap_ent me = cpu_ent(t->cpu);

		if (!ent_before(&S.heap[0], &me))
			return;
	}
	S.resume_keyed = true;
	switch_to_scheduler(t);
}

void fl_sim_charge(uint64_t ns)
{
	fl__sim_debt += ns;
	sched_point();
}

void fl_sim_sleep(uint64_t ns)
{
	struct fl_sim_task *t = S.current, **pp;
	struct sim_cpu *c = &S.cpus[t->cpu];

	settle();
	t->state = T_SLEEPING;
	t->wake_at = c->now + ns;
	c->curr = NULL;
	/* in wake order; equal wake times in the order they went to sleep */
	for (pp = &c->sleepers; *pp && (*pp)->wake_at <= t->wake_at; pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	switch_to_scheduler(t);
}

bool fl_sim_preempt(void)
{
	struct fl_sim_task *t = S.current;
	struct sim_cpu *c = &S.cpus[t->cpu];

	settle();
	if (!c->rq_head || c->rq_head->ready_at > c->now ||
	    c->now - c->slice_start < FL_SIM_TICK_PS)
		return false;
	t->state = T_RUNNABLE;
	t->ready_at = c->now;
	t->next = NULL;
	c->rq_tail->next = t;
	c->rq_tail = t;
	c->curr = NULL;
	S.preemptions++;
	switch_to_scheduler(t);
	return true;
}

bool fl_sim_in_task(void)
{
	return S.current != NULL;
}

uint64_t fl_sim_now(void)
{
	settle();
	return S.cpus[S.current->cpu].now;
}

uint64_t fl__sim_time(void)
{
	return S.cpus[S.current->cpu].now + fl__sim_debt;
}

int fl_sim_cpu(void)
{
	return S.current->cpu;
}

/* Sleep, staying in whatever queue the task is in, until a waker makes it runnable. */
static void sleep_queued(void)
{
	struct fl_sim_task *t = S.current;

	t->state = T_BLOCKED;
	S.cpus[t->cpu].curr = NULL;
	switch_to_scheduler(t);
}

/*
 * The current task joins @q's end and waits, spinning (T_SPINNING: its
 * CPU busy) or asleep (T_BLOCKED: its CPU free), until a release takes it
 * off and lets it run.
 */
static void wait_in(struct fl_sim_waitq *q, enum task_state state, bool reader)
{
	struct fl_sim_task *t = S.current;
	struct sim_cpu *c = &S.cpus[t->cpu];

	t->state = state;
	t->reader = reader;
	t->arrival = c->now;
	t->next = NULL;
	if (q->tail)
		q->tail->next = t;
	else
		q->head = t;
	q->tail = t;
	if (state == T_BLOCKED)
		c->curr = NULL;
	switch_to_scheduler(t);
}

static struct fl_sim_task *waitq_pop(struct fl_sim_waitq *q);
static void grant_spinner(struct fl_sim_task *w);

void fl_sim_spin_lock(struct fl_sim_spinlock *l)
{
	struct fl_sim_task *t = S.current;
	struct sim_cpu *c = &S.cpus[t->cpu];
	uint64_t wait;

	settle();
	l->acquired++;
	if (!l->owner) {
		l->owner = t;
		return;
	}
	/* found held: queue, spin (the CPU stays busy) until handed the lock */
	l->contended++;
	wait_in(&l->q, T_SPINNING, false);
	wait = c->now - t->arrival;
	l->wait_total += wait;
	if (wait > l->wait_max)
		l->wait_max = wait;
}

void fl_sim_spin_unlock(struct fl_sim_spinlock *l)
{
	if (!l->q.head) {
		l->owner = NULL;
		sched_point();
		return;
	}
	/* the next in line gets it one hand-off later; its CPU spun till then */
	l->owner = waitq_pop(&l->q);
	grant_spinner(l->owner);
	sched_point();
}

/*
 * Wake @t, which waits for a sleeping lock, at @at: it joins its CPU's
 * run queue, and the CPU (unless it is the one running now, which is
 * keyed at its next scheduling point) takes its new place in the heap.
 */
static void wake_task(struct fl_sim_task *t, uint64_t at)
{
	struct sim_cpu *c = &S.cpus[t->cpu];

	t->state = T_RUNNABLE;
	t->ready_at = at;
	t->next = NULL;
	if (c->rq_tail)
		c->rq_tail->next = t;
	else
		c->rq_head = t;
	c->rq_tail = t;
	if (S.current && S.current->cpu == t->cpu)
		return;
	if (c->heap_idx >= 0)
		heap_remove(t->cpu);
	cpu_enqueue(t->cpu);
}

/* The current task waits for a sleeping lock in @q; its CPU is free meanwhile. */
static void block_on(struct fl_sim_waitq *q, bool reader)
{
	wait_in(q, T_BLOCKED, reader);
}

static struct fl_sim_task *waitq_pop(struct fl_sim_waitq *q)
{
	struct fl_sim_task *t = q->head;

	q->head = t->next;
	if (!q->head)
		q->tail = NULL;
	t->next = NULL;
	return t;
}

/* Count a contended acquisition's wait, now that the current task has the lock. */
static void count_wait(struct fl_sim_lockstat *st)
{
	uint64_t wait = fl_sim_now() - S.current->arrival;

	st->wait_total += wait;
	if (wait > st->wait_max)
		st->wait_max = wait;
}

void fl_sim_wait(struct fl_sim_waitq *q)
{
	settle();
	block_on(q, false);
}

bool fl_sim_wait_timeout(struct fl_sim_waitq *q, uint64_t t)
{
	struct fl_sim_task *me = S.current, **pp;

	me->woken = false;
	me->wq_next = q->timed;
	q->timed = me;
	fl_sim_sleep(t);  /* a waker may end the sleep early */
	if (!me->woken) { /* the time ran out: leave the queue */
		for (pp = &q->timed; *pp && *pp != me; pp = &(*pp)->wq_next)
			;
		if (*pp)
			*pp = me->wq_next;
	}
	me->wq_next = NULL;
	return me->woken;
}

void fl_sim_wake_all(struct fl_sim_waitq *q)
{
	uint64_t now;

	settle();
	now = S.cpus[S.current->cpu].now;
	while (q->head)
		wake_task(waitq_pop(q), now);
	while (q->timed) {
		struct fl_sim_task *t = q->timed, **pp;
		struct sim_cpu *c = &S.cpus[t->cpu];

		q->timed = t->wq_next;
		t->wq_next = NULL;
		t->woken = true;
		/* off its CPU's sleep list, onto its run queue from now */
		for (pp = &c->sleepers; *pp && *pp != t; pp = &(*pp)->next)
			;
		if (*pp)
			*pp = t->next;
		wake_task(t, now);
	}
}

void fl_sim_mutex_lock(struct fl_sim_mutex *m)
{
	settle();
	m->st.acquired++;
	if (!m->owner) {
		m->owner = S.current;
		return;
	}
	m->st.contended++;
	block_on(&m->q, false);
	count_wait(&m->st);
}

void fl_sim_mutex_unlock(struct fl_sim_mutex *m)
{
	if (!m->q.head) {
		m->owner = NULL;
	} else {
		/* handed to the first waiter, who wakes one hand-off later */
		m->owner = waitq_pop(&m->q);
		wake_task(m->owner, fl_sim_now() + S.handoff);
	}
	sched_point();
}

/*
 * The rwsem as 6.18's kernel/locking/rwsem.c has it, less the optimistic
 * spinning (a waiter sleeps at once). A waiter stays in the queue until it
 * has the lock. A release that leaves the lock free wakes the first
 * waiter: a writer is only woken, and takes the lock when it runs (one
 * wake-up later) if it is still free; meanwhile any task may take the
 * free lock first (a steal). Readers at a release are granted the lock by
 * the waker, every reader in the queue, writers passed over, at most
 * RWSEM_MAX_READERS_WAKEUP. A writer first in line that finds the lock
 * taken after waiting RWSEM_WAIT_TIMEOUT sets the hand-off: nobody steals
 * then, and the next release gives the lock to that writer directly (it
 * spins on the owner in 6.18: one hand-off of the line later).
 */
#define RWSEM_WAIT_TIMEOUT_PS 4000000000ull /* DIV_ROUND_UP(HZ, 250) jiffies: 4 ms */
#define RWSEM_MAX_READERS_WAKEUP 256

/* rwsem queues link by rw_next: a woken writer is on its CPU's run queue too */
static void rwsem_dequeue(struct fl_sim_waitq *q, struct fl_sim_task *t)
{
	struct fl_sim_task **pp, *prev = NULL;

	for (pp = &q->head; *pp && *pp != t; pp = &(*pp)->rw_next)
		prev = *pp;
	if (!*pp)
		return;
	*pp = t->rw_next;
	if (q->tail == t)
		q->tail = prev;
	t->rw_next = NULL;
}

/* Join @r's queue now. */
static void rwsem_enqueue(struct fl_sim_rwsem *r, bool reader)
{
	struct fl_sim_task *t = S.current;

	t->reader = reader;
	t->granted = false;
	t->arrival = S.cpus[t->cpu].now;
	t->timeout = t->arrival + RWSEM_WAIT_TIMEOUT_PS;
	t->rw_next = NULL;
	if (r->q.tail)
		r->q.tail->rw_next = t;
	else
		r->q.head = t;
	r->q.tail = t;
}

/* Grant the lock to every reader in the queue (rwsem_mark_wake()'s reader phase). */
static void rwsem_grant_readers(struct fl_sim_rwsem *r, uint64_t at)
{
	struct fl_sim_task *t = r->q.head, *next;
	int n = 0;

	for (; t && n < RWSEM_MAX_READERS_WAKEUP; t = next) {
		next = t->rw_next;
		if (!t->reader)
			continue;
		rwsem_dequeue(&r->q, t);
		r->readers++;
		t->granted = true;
		wake_task(t, at);
		n++;
	}
}

/* The lock is free: wake the first waiter (rwsem_wake()). */
static void rwsem_wake(struct fl_sim_rwsem *r)
{
	struct fl_sim_task *w = r->q.head;
	uint64_t now = fl_sim_now();

	if (!w)
		return;
	if (w->reader) {
		r->handoff = false;
		rwsem_grant_readers(r, now + S.wakeup);
		return;
	}
	if (r->handoff) { /* the writer that asked for it takes the lock as it frees */
		rwsem_dequeue(&r->q, w);
		r->writer = w;
		r->handoff = false;
		r->st.handoffs++;
		wake_task(w, now + S.handoff);
		return;
	}
	if (w->state == T_BLOCKED) /* not already woken by an earlier release */
		wake_task(w, now + S.wakeup);
}

int fl_sim_down_read(struct fl_sim_rwsem *r)
{
	struct fl_sim_task *me = S.current;

	settle();
	r->st.acquired++;
	/*
	 * The fast path needs no writer, no waiter and no hand-off; with
	 * waiters, a reader steals a lock nobody holds (and grants the queued
	 * readers theirs), but queues behind readers that hold it.
	 */
	if (!r->writer && !r->handoff && (!r->q.head || !r->readers)) {
		r->readers++;
		if (!r->q.head)
			return 0;
		r->st.stolen++;
		if (r->q.head->reader)
			rwsem_grant_readers(r, fl_sim_now() + S.wakeup);
		return FL_SIM_LOCK_STOLE;
	}
	r->st.contended++;
	rwsem_enqueue(r, true);
	do
		sleep_queued();
	while (!me->granted);
	count_wait(&r->st);
	return FL_SIM_LOCK_WAITED;
}

int fl_sim_down_write(struct fl_sim_rwsem *r)
{
	struct fl_sim_task *me = S.current;

	settle();
	r->st.acquired++;
	if (!r->writer && !r->readers && !r->handoff) {
		r->writer = me;
		if (!r->q.head)
			return 0;
		r->st.stolen++;
		return FL_SIM_LOCK_STOLE;
	}
	r->st.contended++;
	rwsem_enqueue(r, false);
	for (;;) {
		sleep_queued();
		if (r->writer == me) { /* handed over (rwsem_wake()) */
			count_wait(&r->st);
			return FL_SIM_LOCK_WAITED | FL_SIM_LOCK_HANDOFF;
		}
		/* woken: try (rwsem_try_write_lock()) */
		if (!r->writer && !r->readers && !r->handoff) {
			rwsem_dequeue(&r->q, me);
			r->writer = me;
			count_wait(&r->st);
			return FL_SIM_LOCK_WAITED;
		}
		/* taken meanwhile: the first in line asks for it once it has waited long */
		if (r->q.head == me && fl_sim_now() >= me->timeout)
			r->handoff = true;
	}
}

void fl_sim_up_read(struct fl_sim_rwsem *r)
{
	if (!--r->readers)
		rwsem_wake(r);
	sched_point();
}

void fl_sim_up_write(struct fl_sim_rwsem *r)
{
	r->writer = NULL;
	rwsem_wake(r);
	sched_point();
}

/* A writer becomes a reader; the queued readers join it unless a writer is first (6.18). */
void fl_sim_downgrade_write(struct fl_sim_rwsem *r)
{
	r->writer = NULL;
	r->readers = 1;
	if (r->q.head && r->q.head->reader)
		rwsem_grant_readers(r, fl_sim_now() + S.wakeup);
	sched_point();
}

bool fl_sim_down_read_trylock(struct fl_sim_rwsem *r)
{
	/* down_read_trylock() fails with a writer, a waiter or a hand-off pending */
	if (r->writer || r->q.head || r->handoff)
		return false;
	r->readers++;
	r->st.acquired++;
	return true;
}

/* ---- the platform's spinlocks: queues of spinners by lock address ---- */

static struct spinq **spinq_slot(const void *key)
{
	uintptr_t h = (uintptr_t)key;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return &spinq_table[(h >> 40) % SPINQ_BUCKETS];
}

/* Grant the lock to @w (spinning on its CPU) one hand-off after now. */
static void grant_spinner(struct fl_sim_task *w)
{
	struct sim_cpu *wc = &S.cpus[w->cpu];
	uint64_t grant = fl_sim_now() + S.handoff;

	if (grant > wc->now) {
		wc->busy += grant - wc->now;
		wc->now = grant;
	}
	w->state = T_RUNNABLE;
	cpu_enqueue(w->cpu);
}

int fl_sim_spin_wait(const void *key, bool sleep)
{
	return fl__sim_spin_wait(key, sleep, false);
}

int fl__sim_spin_wait(const void *key, bool sleep, bool first)
{
	struct spinq **pp = spinq_slot(key), *sq;

	settle();
	for (sq = *pp; sq && sq->key != key; sq = sq->next)
		;
	if (!sq) {
		sq = calloc(1, sizeof(*sq));
		if (!sq)
			return -ENOMEM;
		sq->key = key;
		sq->next = *pp;
		*pp = sq;
	}
	/* a mutex's waiter sleeps: its CPU may run another task, or idles */
	if (first && sq->q.head) { /* back at the head of the line: wait_in() appends */
		S.current->next = sq->q.head;
		sq->q.head = S.current;
		sleep_queued();
		return 0;
	}
	wait_in(&sq->q, sleep ? T_BLOCKED : T_SPINNING, false);
	return 0;
}

/* The first waiter at @key, off its queue (freed once empty), or NULL. */
static struct fl_sim_task *spinq_pop(const void *key)
{
	struct spinq **pp = spinq_slot(key), *sq;
	struct fl_sim_task *w;

	for (; (sq = *pp) && sq->key != key; pp = &sq->next)
		;
	if (!sq)
		return NULL;
	w = waitq_pop(&sq->q);
	if (!sq->q.head) {
		*pp = sq->next;
		free(sq);
	}
	return w;
}

bool fl_sim_spin_wake_first(const void *key)
{
	struct fl_sim_task *w = spinq_pop(key);

	if (!w)
		return false;
	wake_task(w, fl_sim_now() + S.wakeup);
	return true;
}

bool fl_sim_spin_handoff(const void *key)
{
	struct fl_sim_task *w = spinq_pop(key);

	if (!w)
		return false;
	if (w->state == T_BLOCKED)
		wake_task(w, fl_sim_now() + S.handoff); /* it wakes one hand-off later */
	else
		grant_spinner(w);
	return true;
}

uint64_t fl_sim_end_time(void)
{
	uint64_t end = 0;
	int i;

	for (i = 0; i < S.nr_cpus; i++)
		if (S.cpus[i].now > end)
			end = S.cpus[i].now;
	return end;
}

uint64_t fl_sim_cpu_busy(int cpu)
{
	return S.cpus[cpu].busy;
}

uint64_t fl_sim_cpu_idle(int cpu)
{
	return S.cpus[cpu].idle + (fl_sim_end_time() - S.cpus[cpu].now);
}

uint64_t fl_sim_preemptions(void)
{
	return S.preemptions;
}

uint64_t fl_sim_switches(void)
{
	return S.switches;
}

/* What the simulator holds in host memory now: its structures and the touched stacks. */
static size_t memory_now(void)
{
	size_t bytes = sizeof(S) + (size_t)S.nr_cpus * (sizeof(*S.cpus) + sizeof(*S.heap)) +
		       (size_t)S.nr_tasks * (sizeof(struct fl_sim_task) + sizeof(*S.tasks));
	unsigned char vec[SIM_STACK / 4096];
	int i;
	size_t p;

	for (i = 0; i < S.nr_tasks; i++)
		if (!mincore(S.tasks[i]->stack, SIM_STACK, vec))
			for (p = 0; p < sizeof(vec); p++)
				bytes += (vec[p] & 1) * 4096;
	return bytes;
}

size_t fl_sim_memory(void)
{
	return S.cpus ? memory_now() : last_memory;
}
