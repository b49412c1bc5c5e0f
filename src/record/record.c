// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - the result record and configuration helpers of the public
 * API: named counters, lock rows, knobs and parameters, sizes, and the
 * list of targets.
 *
 * Conventions in this file: growable arrays double their capacity; names
 * longer than the record's fields are truncated, never overflowed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "../platform/platform.h"

static int grow(void **v, int *cap, int nr, size_t elem)
{
	void *n;
	int c;

	if (nr < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	n = realloc(*v, (size_t)c * elem);
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

FL_API int fl_counters_reserve(struct fl_counters *c, int n)
{
	void *v;

	if (n <= c->cap)
		return 0;
	v = realloc(c->v, (size_t)n * sizeof(*c->v));
	if (!v)
		return -ENOMEM;
	memset((char *)v + (size_t)c->cap * sizeof(*c->v), 0, (size_t)(n - c->cap) * sizeof(*c->v));
	c->v = v;
	c->cap = n;
	return 0;
}

FL_API int fl_counters_set_scoped(struct fl_counters *c, const char *name, int64_t value, int scope)
{
	struct fl_counter *e = (struct fl_counter *)fl_counters_find(c, name);

	if (!e) {
		if (grow((void **)&c->v, &c->cap, c->nr, sizeof(*c->v)))
			return -ENOMEM;
		e = &c->v[c->nr++];
		snprintf(e->name, sizeof(e->name), "%s", name);
	}
	e->value = value;
	e->scope = scope;
	return 0;
}

FL_API int fl_counters_set(struct fl_counters *c, const char *name, int64_t value)
{
	return fl_counters_set_scoped(c, name, value, FL_SCOPE_EXACT);
}

FL_API const struct fl_counter *fl_counters_find(const struct fl_counters *c, const char *name)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

FL_API int64_t fl_counters_get(const struct fl_counters *c, const char *name)
{
	const struct fl_counter *e = fl_counters_find(c, name);

	return e ? e->value : 0;
}

FL_API void fl_counters_free(struct fl_counters *c)
{
	free(c->v);
	c->v = NULL;
	c->nr = c->cap = 0;
}

FL_API int fl_locks_add(struct fl_locks *l, const struct fl_lock_stat_row *row)
{
	if (grow((void **)&l->v, &l->cap, l->nr, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->nr++] = *row;
	return 0;
}

FL_API const struct fl_lock_stat_row *fl_locks_find(const struct fl_locks *l, const char *cls,
						    const char *site)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].name, cls) && !strcmp(l->v[i].site, site))
			return &l->v[i];
	return NULL;
}

FL_API void fl_locks_free(struct fl_locks *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = l->cap = 0;
}

FL_API void fl_config_init(struct fl_config *cfg, const char *workload)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->workload, sizeof(cfg->workload), "%s", workload ? workload : "");
	snprintf(cfg->target, sizeof(cfg->target), "model");
	cfg->sim = true; /* the model's CPUs are virtual unless asked for host threads */
}

FL_API int fl_knobs_set(struct fl_knobs *k, const char *name, const char *value)
{
	int i;

	for (i = 0; i < k->nr; i++)
		if (!strcmp(k->v[i].name, name))
			break;
	if (i == k->nr) {
		if (k->nr >= FL_MAX_KNOBS)
			return -ENOSPC;
		k->nr++;
	}
	snprintf(k->v[i].name, sizeof(k->v[i].name), "%s", name);
	snprintf(k->v[i].value, sizeof(k->v[i].value), "%s", value);
	return 0;
}

FL_API int fl_config_set_knob(struct fl_config *cfg, const char *name, const char *value)
{
	return fl_knobs_set(&cfg->knobs, name, value);
}

FL_API int fl_config_set_param(struct fl_config *cfg, const char *name, const char *value)
{
	int i;

	for (i = 0; i < cfg->nr_params; i++)
		if (!strcmp(cfg->params[i].name, name))
			break;
	if (i == cfg->nr_params) {
		if (cfg->nr_params >= FL_MAX_PARAMS)
			return -ENOSPC;
		cfg->nr_params++;
	}
	snprintf(cfg->params[i].name, sizeof(cfg->params[i].name), "%s", name);
	snprintf(cfg->params[i].value, sizeof(cfg->params[i].value), "%s", value);
	return 0;
}

FL_API const char *fl_config_param(const struct fl_config *cfg, const char *name)
{
	int i;

	for (i = 0; i < cfg->nr_params; i++)
		if (!strcmp(cfg->params[i].name, name))
			return cfg->params[i].value;
	return NULL;
}

FL_API void fl_result_free(struct fl_result *res)
{
	fl_counters_free(&res->counters);
	fl_counters_free(&res->noise);
	fl_counters_free(&res->machinery);
	fl_locks_free(&res->locks);
}

FL_API const char *fl_result_param(const struct fl_result *res, const char *name)
{
	int i;

	for (i = 0; i < res->nr_params; i++)
		if (!strcmp(res->params[i].name, name))
			return res->params[i].value;
	return NULL;
}

FL_API const struct fl_metric *fl_result_metric(const struct fl_result *res, const char *name)
{
	int i;

	for (i = 0; i < res->nr_metrics; i++)
		if (!strcmp(res->metrics[i].name, name))
			return &res->metrics[i];
	return NULL;
}

/**
 * fl_parse_size() - "4096", "64K", "16M", "4G", "1T" (powers of 1024; an
 * optional trailing "B" or "iB" is accepted).
 * Return: 0 or -EINVAL.
 */
FL_API int fl_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (shift && v > (~0ull >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

FL_API void fl_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes >= 1024 && !(bytes % 1024) && u < 3) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}
