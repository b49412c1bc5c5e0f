// SPDX-License-Identifier: GPL-2.0-only
/*
 * check.c - the agreement gate: does the model count what the host kernel
 * counts? For a host result and the model result run with the same mTHP
 * sizes (the order0 policy preferred: the rule of 6.x kernels), every
 * deterministic counter the host has is compared, and a row differs when
 * the two values are further apart than the host's measured noise (the
 * same counter over an idle interval, times tol->noise) plus a stated
 * tolerance: tol->pct percent of the larger value, at least tol->min.
 *
 * The floor tol->min is there for what the host's run does besides the
 * workload: a thread's stack, the C library's own memory. That only ever
 * adds faults and allocations, so for those counters (the_host_adds[])
 * the floor applies upward only: a host below the model by more than
 * noise and percentage differs. A host run that made processes had their
 * machinery (forks, servers' start-up) measured again without the
 * workload and taken out of its counts (fl_result.machinery): what is
 * left is the difference of two measures, and the floor applies both ways.
 *
 * Deterministic: counts a workload fixes by its rule (faults, allocations,
 * frees, LRU moves, per-size mTHP events and gauges), not times, lock
 * contention or the machine's free memory.
 *
 * Held: a row whose host value counts the run alone (perf events, the
 * run's memory cgroup) is held, and --check fails on it. A system-wide
 * host value moves with everything else the machine does, so its row is
 * reported, never held: make conformance holds those with re-runs
 * (tests/cli/test-conformance.sh).
 *
 * Conventions in this file: @r holds @nr results; @host indexes a host one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <foliolab/foliolab.h>

static const char *const checked_events[] = {
	"pgfault",
	"pgalloc_normal",
	"pgfree",
	"pgactivate",
	"pgdeactivate",
	"pglazyfree",
	"pgreuse",
	"thp_fault_alloc",
	"thp_fault_fallback",
	"thp_split_pmd",
	"thp_deferred_split_page",
	"nr_anon_pages",
	"nr_anon_transparent_hugepages",
	"nr_page_table_pages",
	"nr_shmem",
	"nr_shmem_hugepages",
	"nr_file_pages",
	"thp_file_alloc",
	"thp_file_fallback",
};

static const char *const checked_mthp[] = {
	"anon_fault_alloc",
	"anon_fault_fallback",
	"nr_anon",
	"split_deferred",
	"nr_anon_partially_mapped",
	"split",
	"split_failed",
	"shmem_alloc",
	"shmem_fallback",
};

/* events the host's start-up adds to and nothing takes from */
static const char *const the_host_adds[] = {
	"pgfault",
	"pgalloc_normal",
	"thp_fault_alloc",
};

static bool host_only_adds(const char *name)
{
	const char *item = strstr(name, "kB/stats/");
	size_t i;

	if (!strncmp(name, "hugepages-", 10) && item && !strcmp(item + 9, "anon_fault_alloc"))
		return true;
	for (i = 0; i < sizeof(the_host_adds) / sizeof(the_host_adds[0]); i++)
		if (!strcmp(name, the_host_adds[i]))
			return true;
	return false;
}

static bool rcu_delayed(const char *name)
{
	return !strcmp(name, "pgfree") || !strcmp(name, "nr_page_table_pages");
}

FL_API void fl_tolerance_default(struct fl_tolerance *t)
{
	t->pct = 0.5;
	t->min = 64;
	t->noise = 3.0;
}

FL_API bool fl_counter_checked(const char *name)
{
	const char *item = strchr(name, ':');
	size_t i;

	/* a workload's window ("split:nr_shmem"), but not a shadow ("system:pgfault") */
	if (item) {
		if (!strncmp(name, "system:", 7))
			return false;
		name = item + 1;
	}

	for (i = 0; i < sizeof(checked_events) / sizeof(checked_events[0]); i++)
		if (!strcmp(name, checked_events[i]))
			return true;
	if (strncmp(name, "hugepages-", 10) || !(item = strstr(name, "kB/stats/")))
		return false;
	item += 9;
	for (i = 0; i < sizeof(checked_mthp) / sizeof(checked_mthp[0]); i++)
		if (!strcmp(item, checked_mthp[i]))
			return true;
	return false;
}

static const char *knob_value(const struct fl_result *r, const char *name)
{
	int i;

	for (i = 0; i < r->knobs.nr; i++)
		if (!strcmp(r->knobs.v[i].name, name))
			return r->knobs.v[i].value;
	return "";
}

FL_API bool fl_result_same_knobs(const struct fl_result *a, const struct fl_result *b,
				 const char *prefix, const char *part)
{
	size_t n = strlen(prefix);
	int i;

	if (!a->knobs.nr || !b->knobs.nr)
		return false;
	for (i = 0; i < a->knobs.nr; i++) {
		const char *name = a->knobs.v[i].name;

		if (!strncmp(name, prefix, n) && strstr(name, part) &&
		    strcmp(a->knobs.v[i].value, knob_value(b, name)))
			return false;
	}
	return true;
}

static bool same_sizes(const struct fl_result *a, const struct fl_result *b)
{
	return fl_result_same_knobs(a, b, "transparent_hugepage/hugepages-", "/enabled");
}

FL_API int fl_result_model_partner(const struct fl_result *r, int nr, int host)
{
	int i, model = -1;

	for (i = 0; i < nr; i++) {
		if (strcmp(r[i].target, "model") || !same_sizes(&r[i], &r[host]))
			continue;
		if (!strcmp(knob_value(&r[i], "foliolab/lru_cache"), "order0"))
			return i;
		if (model < 0)
			model = i;
	}
	return model;
}

static int add_row(struct fl_agreement *a, const struct fl_agree_row *row)
{
	if (a->nr == a->cap) {
		int cap = a->cap ? 2 * a->cap : 32;
		struct fl_agree_row *v = realloc(a->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->nr++] = *row;
	return 0;
}

static bool seen(const struct fl_agreement *a, const char *name)
{
	int i;

	for (i = 0; i < a->nr; i++)
		if (!strcmp(a->v[i].name, name))
			return true;
	return false;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/*
 * The part of the model's @name that a host count scoped to the run's
 * tasks cannot see. The host counts only the frees its tasks make in their
 * own context (host_scope.c); the kernel frees page tables after an RCU
 * grace period, in softirq on whatever CPU (fl_pgfree_rcu), and some pages
 * with preemption off: the dead folios a per-CPU batch flush drops under
 * its local lock, a deposited page table under the PMD lock, a PGD in
 * finish_task_switch() (fl_pgfree_atomic). Those land in whichever task
 * is on the CPU, the run's or another's, so the host leaves them out.
 */
static int64_t model_unseen(const struct fl_result *m, const char *name, int host_scope)
{
	const char *colon = strchr(name, ':');
	const char *base = colon ? colon + 1 : name;
	const char *item = strstr(base, "kB/stats/");
	int pre = colon ? (int)(colon - name) + 1 : 0;
	char rcu[FL_NAME_MAX], atomic[FL_NAME_MAX];

	if (host_scope != FL_SCOPE_WORKLOAD)
		return 0;
	/*
	 * The host's anon_fault_alloc of a size counts the run's movable
	 * allocations of that order (kmem:mm_page_alloc): a large folio that
	 * a swap-in reads into is one too. Negative: the model's swap-ins
	 * of the size are added to its faults.
	 */
	if (!strncmp(base, "hugepages-", 10) && item && !strcmp(item + 9, "anon_fault_alloc")) {
		snprintf(rcu, sizeof(rcu), "%.*s%.*sswpin", pre, name, (int)(item + 9 - base),
			 base);
		return -fl_counters_get(&m->counters, rcu);
	}
	/*
	 * A host process has its upper-level page tables (PGD, PUD, and the
	 * PMD table the workload's mapping shares with the process's stacks
	 * and libraries) before the workload maps anything: the runner's own,
	 * or a server's, whose making the machinery replay measures and takes
	 * out. The model's processes start with none and allocate them
	 * (fl_pgalloc_upper). Their frees are in fl_pgfree_rcu/_atomic.
	 */
	if (!strcmp(base, "pgalloc_normal")) {
		snprintf(rcu, sizeof(rcu), "%.*sfl_pgalloc_upper", pre, name);
		return fl_counters_get(&m->counters, rcu);
	}
	if (strcmp(base, "pgfree"))
		return 0;
	snprintf(rcu, sizeof(rcu), "%.*sfl_pgfree_rcu", pre, name);
	snprintf(atomic, sizeof(atomic), "%.*sfl_pgfree_atomic", pre, name);
	return fl_counters_get(&m->counters, rcu) + fl_counters_get(&m->counters, atomic);
}

/* Compare one counter; it exists in at least one of the two results. */
static int check_one(struct fl_agreement *a, const struct fl_result *m, const struct fl_result *h,
		     const char *name, const struct fl_tolerance *tol)
{
	const struct fl_counter *hc = fl_counters_find(&h->counters, name);
	struct fl_agree_row row;
	int64_t big, by_pct, floor;

	memset(&row, 0, sizeof(row));
	snprintf(row.name, sizeof(row.name), "%s", name);
	row.host = hc ? hc->value : 0;
	row.scope = hc ? hc->scope : FL_SCOPE_SYSTEM;
	row.model_unseen = model_unseen(m, name, row.scope);
	row.model = fl_counters_get(&m->counters, name) - row.model_unseen;
	/*
	 * a window ("queue:nr_anon_pages") lies inside the run: the idle
	 * noise of its counter over the run's length bounds its own
	 */
	row.noise = fl_counters_find(&h->noise, name) || !strchr(name, ':')
			    ? fl_counters_get(&h->noise, name)
			    : fl_counters_get(&h->noise, strchr(name, ':') + 1);
	big = abs64(row.model) > abs64(row.host) ? abs64(row.model) : abs64(row.host);
	by_pct = (int64_t)((double)big * tol->pct / 100.0 + 0.5);
	/*
	 * Upward only where the host's own start-up is in its counts; where
	 * its process machinery was measured apart and taken out (a measure
	 * with noise of its own), either way
	 */
	floor = row.host < row.model && host_only_adds(name) && !h->machinery_steps ? 0 : tol->min;
	/*
	 * Page tables freed after an RCU grace period: the frees count
	 * against whichever task runs when it ends, the run's own included
	 * (pgfree, measured -39 to +73 a run), and the gauge of page-table
	 * pages is the whole machine's, where an earlier process's tables
	 * may still be going (nr_page_table_pages, -74 to +50;
	 * docs/fidelity.md): twice the floor for both
	 */
	if (rcu_delayed(strchr(name, ':') ? strchr(name, ':') + 1 : name))
		floor *= 2;
	row.allowed = (int64_t)((double)abs64(row.noise) * tol->noise + 0.5) +
		      (by_pct > floor ? by_pct : floor);
	row.differs = abs64(row.model - row.host) > row.allowed;
	row.held = row.scope != FL_SCOPE_SYSTEM;
	if (row.held)
		a->nr_differs += row.differs;
	else
		a->nr_differs_system += row.differs;
	return add_row(a, &row);
}

/*
 * A window counter ("scan:pgfree") of a window one side did not count at
 * all (its step could not run there, as the run's note says): nothing to
 * hold against the other side.
 */
static bool window_missing(const struct fl_result *m, const struct fl_result *h, const char *name)
{
	const char *colon = strchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) + 1 : 0;
	int k, i;

	if (!colon)
		return false;
	for (k = 0; k < 2; k++) {
		const struct fl_counters *c = k ? &h->counters : &m->counters;
		bool any = false;

		for (i = 0; i < c->nr && !any; i++)
			any = !strncmp(c->v[i].name, name, n);
		if (!any)
			return true;
	}
	return false;
}

FL_API int fl_agreement_check(const struct fl_result *r, int nr, int host,
			      const struct fl_tolerance *tol, struct fl_agreement *out)
{
	const struct fl_result *m, *h = &r[host];
	int i, k, ret = 0;

	memset(out, 0, sizeof(*out));
	out->host = host;
	out->model = fl_result_model_partner(r, nr, host);
	out->tol = *tol;
	if (out->model < 0)
		return -ENOENT;
	m = &r[out->model];
	for (k = 0; k < 2 && !ret; k++) {
		const struct fl_counters *c = k ? &h->counters : &m->counters;

		for (i = 0; i < c->nr && !ret; i++) {
			const char *name = c->v[i].name;

			if (fl_counter_checked(name) && !seen(out, name) &&
			    !window_missing(m, h, name) &&
			    (fl_counters_get(&m->counters, name) ||
			     fl_counters_get(&h->counters, name)))
				ret = check_one(out, m, h, name, tol);
		}
	}
	if (ret)
		fl_agreement_free(out);
	return ret;
}

FL_API const struct fl_agree_row *fl_agreement_find(const struct fl_agreement *a, const char *name)
{
	int i;

	for (i = 0; i < a->nr; i++)
		if (!strcmp(a->v[i].name, name))
			return &a->v[i];
	return NULL;
}

FL_API void fl_agreement_free(struct fl_agreement *a)
{
	free(a->v);
	a->v = NULL;
	a->nr = a->cap = 0;
}
