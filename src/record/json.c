// SPDX-License-Identifier: GPL-2.0-only
/*
 * json.c - result records as JSON. A small writer of our own: the record
 * is flat enough that a library (json-c, jansson) would add a dependency
 * for no gain.
 *
 * Conventions in this file: every string goes through put_str(), which
 * escapes quotes, backslashes and control characters.
 */
#include <stdio.h>
#include <string.h>
#include <foliolab/foliolab.h>

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_kv_str(FILE *f, const char *k, const char *v, bool comma)
{
	put_str(f, k);
	fputs(": ", f);
	put_str(f, v);
	if (comma)
		fputs(", ", f);
}

static void put_counters(FILE *f, const char *key, const struct fl_counters *c)
{
	int i;

	fputs(",\n      ", f);
	put_str(f, key);
	fputs(": {", f);
	for (i = 0; i < c->nr; i++) {
		fputs(i % 4 ? " " : "\n        ", f);
		put_str(f, c->v[i].name);
		fprintf(f, ": %lld%s", (long long)c->v[i].value, i + 1 < c->nr ? "," : "");
	}
	fputs("\n      }", f);
}

/* Where each host counter came from; the model's are all exact, and listed as none. */
static void put_scopes(FILE *f, const struct fl_counters *c)
{
	static const char *const names[] = { "exact", "workload", "system" };
	int i, n = 0;

	fputs(",\n      \"scope\": {", f);
	for (i = 0; i < c->nr; i++) {
		if (c->v[i].scope == FL_SCOPE_EXACT)
			continue;
		fputs(!n ? "\n        " : n % 4 ? ", " : ",\n        ", f);
		n++;
		put_kv_str(f, c->v[i].name, names[c->v[i].scope], false);
	}
	fputs(n ? "\n      }" : "}", f);
}

/*
 * sim: where the virtual CPU time went (fl_time_breakdown()), self rows in
 * ns adding up to cpu_ns; the lock sites' own are in "locks"
 */
static void put_time(FILE *f, const struct fl_result *r)
{
	struct fl_time_row rows[64];
	double cpu;
	int i, n = fl_time_breakdown(r, rows, 64, &cpu);

	if (!n)
		return;
	fprintf(f, ",\n      \"time_breakdown\": {\"cpu_ns\": %.0f, \"self_ns\": {", cpu);
	for (i = 0; i < n; i++) {
		put_str(f, rows[i].name);
		fprintf(f, ": %.0f%s", rows[i].ns, i + 1 < n ? ", " : "");
	}
	fputs("}}", f);
}

static void put_result(FILE *f, const struct fl_result *r)
{
	int i, n;

	fputs("    {\n      ", f);
	put_kv_str(f, "workload", r->workload, true);
	put_kv_str(f, "target", r->target, true);
	put_kv_str(f, "label", r->label, false);
	fputs(",\n      \"params\": {", f);
	for (i = 0; i < r->nr_params; i++)
		put_kv_str(f, r->params[i].name, r->params[i].value, i + 1 < r->nr_params);
	fputs("},\n      \"knobs\": {", f);
	for (i = 0; i < r->knobs.nr; i++)
		put_kv_str(f, r->knobs.v[i].name, r->knobs.v[i].value, i + 1 < r->knobs.nr);
	fputs("},\n      \"knobs_set\": [", f);
	for (i = 0, n = 0; i < r->knobs.nr; i++) {
		if (!r->knobs.v[i].set)
			continue;
		fputs(n++ ? ", " : "", f);
		put_str(f, r->knobs.v[i].name);
	}
	fprintf(f,
		"],\n      \"machine\": {\"mem_bytes\": %llu, \"swap_bytes\": %llu, \"nodes\": %d, "
		"\"cpus\": %d, ",
		(unsigned long long)r->mem_bytes, (unsigned long long)r->swap_bytes, r->nodes,
		r->cpus);
	put_kv_str(f, "kernel_release", r->kernel_release, true);
	put_kv_str(f, "cpu_model", r->cpu_model, false);
	fprintf(f,
		"},\n      \"options\": {\"locked_atomics\": %s, \"pin_cpus\": %s, "
		"\"platform\": \"%s\", \"seed\": %llu, ",
		r->locked_atomics ? "true" : "false", r->pin_cpus ? "true" : "false", r->platform,
		(unsigned long long)r->seed);
	put_kv_str(f, "costs", r->costs, false);
	fputs("},\n", f);
	/* on sim wall_s is virtual, and host_wall_s the host's own time */
	fprintf(f,
		"      \"time\": {\"wall_s\": %.9f, \"host_wall_s\": %.6f, \"user_s\": %.6f, "
		"\"sys_s\": %.6f, ",
		r->wall_s, r->nr_vcpus ? r->host_wall_s : r->wall_s, r->user_s, r->sys_s);
	if (r->steal_pct >= 0)
		fprintf(f, "\"steal_pct\": %.2f, ", r->steal_pct);
	else
		fputs("\"steal_pct\": null, ", f);
	fprintf(f, "\"machine_busy_ticks\": %llu, \"machine_steal_ticks\": %llu},\n",
		(unsigned long long)r->machine_busy_ticks,
		(unsigned long long)r->machine_steal_ticks);
	fputs("      \"vcpus\": {\"busy_ns\": [", f);
	for (i = 0; i < r->nr_vcpus; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)r->vcpu_busy_ns[i]);
	fputs("], \"idle_ns\": [", f);
	for (i = 0; i < r->nr_vcpus; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)r->vcpu_idle_ns[i]);
	fprintf(f, "], \"switches\": %llu, \"preemptions\": %llu},\n",
		(unsigned long long)r->sim_switches, (unsigned long long)r->sim_preemptions);
	fputs("      \"metrics\": {", f);
	for (i = 0; i < r->nr_metrics; i++) {
		put_str(f, r->metrics[i].name);
		fprintf(f, ": %.17g%s", r->metrics[i].value, i + 1 < r->nr_metrics ? ", " : "");
	}
	fputs("}", f);
	put_time(f, r);
	put_counters(f, "counters", &r->counters);
	put_scopes(f, &r->counters);
	fputs(",\n      ", f);
	put_kv_str(f, "scope_note", r->scope_note, false);
	fputs(",\n      ", f);
	put_kv_str(f, "note", r->note, false);
	/* system-wide targets: the same counters over an idle interval, scaled to wall_s */
	put_counters(f, "noise", &r->noise);
	fprintf(f, ",\n      \"noise_s\": %.6f", r->noise_s);
	/* the host's process machinery, measured apart and out of "counters" already */
	put_counters(f, "machinery", &r->machinery);
	fprintf(f, ",\n      \"machinery_steps\": %d,\n      ", r->machinery_steps);
	put_kv_str(f, "locks_note", r->locks_note, false);
	fputs(",\n      \"locks\": [", f);
	for (i = 0; i < r->locks.nr; i++) {
		const struct fl_lock_stat_row *l = &r->locks.v[i];

		fputs(i ? ",\n        {" : "\n        {", f);
		put_kv_str(f, "name", l->name, true);
		put_kv_str(f, "site", l->site, true);
		put_kv_str(f, "kind", l->kind, true);
		if (l->no_acquired)
			fputs("\"acquired\": null, ", f);
		else
			fprintf(f, "\"acquired\": %llu, ", (unsigned long long)l->acquired);
		fprintf(f,
			"\"contended\": %llu, \"avg_wait_ns\": %llu, "
			"\"total_wait_ns\": %llu, \"max_wait_ns\": %llu, \"min_wait_ns\": %llu, "
			"\"total_hold_ns\": %llu",
			(unsigned long long)l->contended,
			(unsigned long long)(l->contended ? l->wait_total_ns / l->contended : 0),
			(unsigned long long)l->wait_total_ns, (unsigned long long)l->wait_max_ns,
			(unsigned long long)l->wait_min_ns, (unsigned long long)l->hold_total_ns);
		/* sim's sleeping locks: steals and hand-offs (6.18's rwsem and mutex rules) */
		if (l->stolen || l->handoffs)
			fprintf(f, ", \"stolen\": %llu, \"handoffs\": %llu",
				(unsigned long long)l->stolen, (unsigned long long)l->handoffs);
		fputc('}', f);
	}
	fprintf(f, "\n      ],\n      \"status\": %d, ", r->status);
	put_kv_str(f, "error", r->error, false);
}

/* A host result's agreement with its model partner, inside its record. */
static void put_agreement(FILE *f, const struct fl_result *r, int nr, int host,
			  const struct fl_tolerance *tol)
{
	static const char *const scopes[] = { "exact", "workload", "system" };
	struct fl_agreement a;
	int i;

	if (fl_agreement_check(r, nr, host, tol, &a))
		return;
	fputs(",\n      \"agreement\": {", f);
	put_kv_str(f, "model", r[a.model].label, true);
	fprintf(f, "\"tolerance\": {\"pct\": %g, \"min\": %lld, \"noise\": %g}, ", a.tol.pct,
		(long long)a.tol.min, a.tol.noise);
	fprintf(f, "\"differs\": %d, \"differs_system\": %d, \"rows\": [", a.nr_differs,
		a.nr_differs_system);
	for (i = 0; i < a.nr; i++) {
		const struct fl_agree_row *w = &a.v[i];

		fputs(i ? ",\n          {" : "\n          {", f);
		put_kv_str(f, "name", w->name, false);
		fprintf(f,
			", \"model\": %lld, \"model_unseen\": %lld, \"host\": %lld, \"noise\": "
			"%lld, "
			"\"allowed\": %lld, ",
			(long long)w->model, (long long)w->model_unseen, (long long)w->host,
			(long long)w->noise, (long long)w->allowed);
		put_kv_str(f, "scope", scopes[w->scope], false);
		fprintf(f, ", \"differs\": %s, \"held\": %s}", w->differs ? "true" : "false",
			w->held ? "true" : "false");
	}
	fputs("\n        ]}", f);
	fl_agreement_free(&a);
}

/**
 * fl_results_write_json() - write @nr records as one JSON document; each
 * host record holds its agreement with its model partner under @tol.
 * Return: 0, or -1 if the stream reported an error.
 */
FL_API int fl_results_write_json(FILE *f, const struct fl_result *res, int nr,
				 const struct fl_tolerance *tol)
{
	int i;

	fputs("{\n  \"foliolab_result_version\": 3,\n  \"results\": [\n", f);
	for (i = 0; i < nr; i++) {
		put_result(f, &res[i]);
		if (!strcmp(res[i].target, "host"))
			put_agreement(f, res, nr, i, tol);
		fputs("\n    }", f);
		fputs(i + 1 < nr ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return ferror(f) ? -1 : 0;
}

FL_API int fl_result_write_json(FILE *f, const struct fl_result *res, int nr)
{
	struct fl_tolerance tol;

	fl_tolerance_default(&tol);
	return fl_results_write_json(f, res, nr, &tol);
}
