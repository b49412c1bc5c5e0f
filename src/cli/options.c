// SPDX-License-Identifier: GPL-2.0-only
/*
 * options.c - command-line options to configurations.
 *
 * Machine and policy options are known here; any other --NAME VALUE is a
 * workload parameter, which the workload itself checks. In `compare`,
 * --lru-cache and --mthp may hold lists; the configurations are every
 * combination of their entries, in order.
 *
 * --mthp grammar: comma-separated SIZE=POLICY settings (one configuration,
 * e.g. 16K=always,64K=never), or comma-separated bare sizes, each meaning
 * "that size always, every other size never" (4K: every size never), one
 * configuration per size.
 *
 * Conventions in this file: errors fill @err with one line naming the
 * option, what was wrong and what is accepted, and return -EINVAL.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

#define THP "transparent_hugepage/"

static int size_order(const char *s, int *order)
{
	uint64_t bytes;
	char buf[32];
	size_t n = strlen(s);
	int o;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	/* "16kB" and "16KB" as sysfs spells them */
	if (n > 2 && (buf[n - 1] == 'B' || buf[n - 1] == 'b') && isalpha((unsigned char)buf[n - 2]))
		buf[n - 1] = '\0';
	if (fl_parse_size(buf, &bytes))
		return -EINVAL;
	for (o = 0; o <= 9; o++) {
		if ((4096ull << o) == bytes && o != 1) {
			*order = o;
			return 0;
		}
	}
	return -EINVAL;
}

static int empty_element(const char *opt, const char *v, char *err, size_t len);

static void knob_for_order(int order, char *buf, size_t len)
{
	snprintf(buf, len, THP "hugepages-%llukB/enabled", (4096ull << order) / 1024);
}

/**
 * cli_apply_mthp() - turn one --mthp configuration into knobs of @cfg.
 * @allow_list: accept a single bare size only when false.
 */
int cli_apply_mthp(struct fl_config *cfg, const char *spec, bool allow_list, char *err, size_t len)
{
	char buf[96], *tok, *save = NULL, name[FL_NAME_MAX];
	int bare = 0, set = 0, order, o;
	unsigned int orders_seen = 0;

	(void)allow_list;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, len, "--mthp %s: too long", spec);
		return -EINVAL;
	}
	if (empty_element("--mthp", spec, err, len))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *pol = "always";

		if (eq) {
			*eq = '\0';
			pol = eq + 1;
			set++;
		} else {
			bare++;
		}
		if (size_order(tok, &order) || (eq && order == 0)) {
			snprintf(err, len,
				 "--mthp %s: '%s' is not an mTHP size; accepted 16K, 32K, 64K, "
				 "128K, 256K, 512K, 1M, 2M%s",
				 spec, tok, eq ? "" : " (or 4K: base pages only)");
			return -EINVAL;
		}
		if (strcmp(pol, "always") && strcmp(pol, "inherit") && strcmp(pol, "madvise") &&
		    strcmp(pol, "never")) {
			snprintf(err, len,
				 "--mthp %s: policy '%s' for %s is not one of always, inherit, "
				 "madvise, never",
				 spec, pol, tok);
			return -EINVAL;
		}
		if (bare && set) {
			snprintf(err, len, "--mthp %s: mix of SIZE and SIZE=POLICY; use one form",
				 spec);
			return -EINVAL;
		}
		if (orders_seen & (1u << order)) {
			snprintf(err, len, "--mthp %s: %s set twice; give each size once", spec,
				 tok);
			return -EINVAL;
		}
		orders_seen |= 1u << order;
		if (bare > 1) {
			snprintf(err, len,
				 "--mthp %s: several sizes are several configurations; use compare",
				 spec);
			return -EINVAL;
		}
		if (!eq) {
			for (o = 2; o <= 9; o++) {
				knob_for_order(o, name, sizeof(name));
				fl_config_set_knob(cfg, name, "never");
			}
			if (order == 0)
				continue;
		}
		knob_for_order(order, name, sizeof(name));
		if (fl_config_set_knob(cfg, name, pol)) {
			snprintf(err, len, "too many knobs");
			return -EINVAL;
		}
	}
	if (!bare && !set) {
		snprintf(err, len, "--mthp: empty; accepted e.g. 16K=always,64K=never or 16K");
		return -EINVAL;
	}
	return 0;
}

static int parse_int(const char *opt, const char *v, long lo, long hi, long *out, char *err,
		     size_t len)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi) {
		snprintf(err, len, "%s %s: accepted a whole number %ld..%ld", opt, v, lo, hi);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/* A list with an empty element ("a,,b", ",a", "a,") is a typing slip: refuse it. */
static int empty_element(const char *opt, const char *v, char *err, size_t len)
{
	size_t n = strlen(v);

	if (n && v[0] != ',' && v[n - 1] != ',' && !strstr(v, ",,"))
		return 0;
	snprintf(err, len, "%s %s: an empty element in the list; give NAME,NAME,...", opt, v);
	return -EINVAL;
}

/* @v as a list of values of knob @k (set by option @opt), each once at most. */
static int split_list(const char *opt, const char *v, const struct fl_knob_info *k, char (*out)[16],
		      int max, int *nr, char *err, size_t len)
{
	char buf[128], why[480], *tok, *save = NULL;
	int i;

	if (empty_element(opt, v, err, len))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	*nr = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (fl_knob_check(k, tok, why, sizeof(why))) {
			snprintf(err, len, "%s %s: %s", opt, v, why);
			return -EINVAL;
		}
		for (i = 0; i < *nr; i++)
			if (!strcmp(out[i], tok)) {
				snprintf(err, len, "%s %s: '%s' twice; give each once", opt, v,
					 tok);
				return -EINVAL;
			}
		if (*nr == max || strlen(tok) >= 16) {
			snprintf(err, len, "%s %s: at most %d entries", opt, v, max);
			return -EINVAL;
		}
		snprintf(out[(*nr)++], 16, "%s", tok);
	}
	if (!*nr) {
		snprintf(err, len, "%s: empty", opt);
		return -EINVAL;
	}
	return 0;
}

static int knob_once(struct cli_opts *o, const char *name, const char *value, char *err,
		     size_t len);

/*
 * An option that sets knob @k: one value, checked by the knob table; or,
 * for a knob compare takes a list of (FL_KNOB_LIST), a list of two, each
 * a configuration, one such list a run. Return: 0 or -EINVAL with @err.
 */
static int knob_option(struct cli_opts *o, bool compare, const struct fl_knob_info *k,
		       const char *val, char *err, size_t len)
{
	const char *opt = k->option;
	char why[480];

	/* one value is a knob of every model column: another policy may give the list */
	if (!(k->flags & FL_KNOB_LIST) || !strchr(val, ',')) {
		if (fl_knob_check(k, val, why, sizeof(why))) {
			snprintf(err, len, "%s %s: %s", opt, val, why);
			return -EINVAL;
		}
		return knob_once(o, k->name, val, err, len);
	}
	if (o->nr_policy && strcmp(o->policy_opt, opt)) {
		snprintf(err, len, "%s %s: %s already gives a model policy list; one at a time",
			 opt, val, o->policy_opt);
		return -EINVAL;
	}
	if (split_list(opt, val, k, o->policy, 2, &o->nr_policy, err, len))
		return -EINVAL;
	o->policy_knob = k->name;
	o->policy_opt = opt;
	if (!compare && o->nr_policy > 1) {
		snprintf(err, len, "%s %s: two values are two configurations; use compare", opt,
			 val);
		return -EINVAL;
	}
	return 0;
}

static int split_targets(const char *v, struct cli_opts *o, bool compare, char *err, size_t len)
{
	char buf[64], *tok, *save = NULL;

	if (empty_element("--target", v, err, len))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	o->nr_targets = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "model") && strcmp(tok, "host")) {
			snprintf(err, len, "--target %s: '%s' is not one of model, host", v, tok);
			return -EINVAL;
		}
		if (o->nr_targets == 2 || (o->nr_targets == 1 && !strcmp(o->targets[0], tok))) {
			snprintf(err, len, "--target %s: each of model, host at most once", v);
			return -EINVAL;
		}
		snprintf(o->targets[o->nr_targets++], sizeof(o->targets[0]), "%s", tok);
	}
	if (!o->nr_targets) {
		snprintf(err, len, "--target: empty; accepted model, host or model,host");
		return -EINVAL;
	}
	if (o->nr_targets > 1 && !compare) {
		snprintf(err, len, "--target %s: two targets are two configurations; use compare",
			 v);
		return -EINVAL;
	}
	snprintf(o->base.target, sizeof(o->base.target), "%s", o->targets[0]);
	return 0;
}

static bool mthp_is_list(const char *v)
{
	return !strchr(v, '=') && strchr(v, ',');
}

static int split_mthp_list(const char *v, struct cli_opts *o, char *err, size_t len)
{
	char buf[256], *tok, *save = NULL;

	if (empty_element("--mthp", v, err, len))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", v);
	o->nr_mthp = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int order, i;

		if (size_order(tok, &order)) {
			snprintf(err, len,
				 "--mthp %s: '%s' is not a size; accepted 4K, 16K, 32K, 64K, 128K, "
				 "256K, 512K, 1M, 2M",
				 v, tok);
			return -EINVAL;
		}
		for (i = 0; i < o->nr_mthp; i++) {
			int seen;

			if (!size_order(o->mthp[i], &seen) && seen == order) {
				snprintf(err, len,
					 "--mthp %s: '%s' is a size given before; give each once",
					 v, tok);
				return -EINVAL;
			}
		}
		if (o->nr_mthp == 8) {
			snprintf(err, len, "--mthp %s: at most 8 sizes", v);
			return -EINVAL;
		}
		snprintf(o->mthp[o->nr_mthp++], sizeof(o->mthp[0]), "%s", tok);
	}
	return 0;
}

#define MAX_SEEN 64

/* Set knob @name once: a second setting (--knob, or an option that sets it) is refused. */
static int knob_once(struct cli_opts *o, const char *name, const char *value, char *err, size_t len)
{
	int k;

	for (k = 0; k < o->base.knobs.nr; k++)
		if (!strcmp(o->base.knobs.v[k].name, name)) {
			snprintf(
				err, len,
				"%s is set twice (by --knob, or by an option that sets it: "
				"--mthp, --thp-enabled, --lru-cache-*, --split-drain, ...); set it "
				"once",
				name);
			return -EINVAL;
		}
	if (fl_config_set_knob(&o->base, name, value)) {
		snprintf(err, len, "too many knobs");
		return -EINVAL;
	}
	return 0;
}

/* An option given twice is a slip (which one was meant?): refuse it. */
static int once(char (*seen)[64], int *nseen, const char *name, char *err, size_t len)
{
	int i;

	for (i = 0; i < *nseen; i++)
		if (!strcmp(seen[i], name)) {
			snprintf(err, len,
				 "%s given twice; give it once (a list where it takes one, such "
				 "as --mthp 4K,16K in compare)",
				 name);
			return -EINVAL;
		}
	if (*nseen < MAX_SEEN)
		snprintf(seen[(*nseen)++], 64, "%s", name);
	return 0;
}

/**
 * cli_parse() - parse "run|compare WORKLOAD [options]".
 * @argv: argv[0] is the subcommand.
 */
/* The parse's own state, beside the options it fills. */
struct parse {
	struct cli_opts *o;
	bool compare;
	const char *mthp;	/* --mthp's value */
	const char *knob_sizes; /* a --knob that set an mTHP size */
	char *err;
	size_t len;
};

/* an option's refusal: "OPT VAL: what is accepted", -EINVAL */
#define REFUSE(p, ...) (snprintf((p)->err, (p)->len, __VA_ARGS__), -EINVAL)

static int opt_mem(struct parse *p, const char *opt, const char *val)
{
	uint64_t size;

	(void)opt;
	if (fl_parse_size(val, &size) || !size)
		return REFUSE(p, "--mem %s: accepted a size such as 512M, 4G or 256G", val);
	p->o->base.mem_bytes = size;
	return 0;
}

static int opt_swap(struct parse *p, const char *opt, const char *val)
{
	uint64_t size = 0;

	(void)opt;
	if (strcmp(val, "none") && (strncmp(val, "zram:", 5) || fl_parse_size(val + 5, &size) ||
				    size < (4ull << 20) || size > (1ull << 40) || size % 4096))
		return REFUSE(p,
			      "--swap %s: accepted zram:SIZE (4M..1T, whole pages, e.g. zram:1G) "
			      "or none",
			      val);
	p->o->base.swap_bytes = size;
	return 0;
}

static int opt_memcg(struct parse *p, const char *opt, const char *val)
{
	uint64_t size;

	if (fl_parse_size(val, &size) || size < (1ull << 20) || size % 4096)
		return REFUSE(p,
			      "%s %s: accepted a size of at least 1M in whole pages, such as 64M "
			      "or 1G",
			      opt, val);
	if (!strcmp(opt, "--memcg-max"))
		p->o->base.memcg_max = size;
	else
		p->o->base.memcg_high = size;
	return 0;
}

static int opt_nodes(struct parse *p, const char *opt, const char *val)
{
	long num;

	if (parse_int(opt, val, 1, 8, &num, p->err, p->len))
		return -EINVAL;
	p->o->base.nodes = (int)num;
	return 0;
}

static int opt_platform(struct parse *p, const char *opt, const char *val)
{
	(void)opt;
	if (strcmp(val, "sim") && strcmp(val, "native"))
		return REFUSE(p,
			      "--platform %s: accepted native (a host thread per model CPU) or "
			      "sim (virtual CPUs in virtual time, seeded by --seed)",
			      val);
	p->o->base.sim = val[0] == 's';
	return 0;
}

static int opt_costs(struct parse *p, const char *opt, const char *val)
{
	(void)opt;
	/* read now, so a bad file stops the command before any run */
	if (fl_costs_check(val, p->err, p->len))
		return -EINVAL;
	p->o->base.costs = val;
	return 0;
}

static int opt_seed(struct parse *p, const char *opt, const char *val)
{
	long num;

	if (parse_int(opt, val, 0, 2147483647, &num, p->err, p->len))
		return -EINVAL;
	p->o->base.seed = (uint64_t)num;
	return 0;
}

static int opt_cpus(struct parse *p, const char *opt, const char *val)
{
	struct cli_opts *o = p->o;
	char buf[128], *tok, *save = NULL;
	long num;
	int k;

	if (empty_element(opt, val, p->err, p->len))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", val);
	o->nr_cpus = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_int(opt, tok, 1, 1024, &num, p->err, p->len))
			return -EINVAL;
		for (k = 0; k < o->nr_cpus; k++)
			if (o->cpus[k] == (int)num)
				return REFUSE(p, "--cpus %s: %ld twice; give each count once", val,
					      num);
		if (o->nr_cpus == 8)
			return REFUSE(p, "--cpus %s: at most 8 entries", val);
		o->cpus[o->nr_cpus++] = (int)num;
	}
	if (!p->compare && o->nr_cpus > 1)
		return REFUSE(p,
			      "--cpus %s: several CPU counts are several configurations; use "
			      "compare",
			      val);
	o->base.cpus = o->cpus[0];
	return 0;
}

static int opt_target(struct parse *p, const char *opt, const char *val)
{
	(void)opt;
	return split_targets(val, p->o, p->compare, p->err, p->len);
}

static int opt_file(struct parse *p, const char *opt, const char *val)
{
	if (!strcmp(opt, "--json"))
		p->o->json = val;
	else
		p->o->plot = val;
	return 0;
}

static int opt_tolerance(struct parse *p, const char *opt, const char *val)
{
	char *end;
	double pct;
	long num;

	if (!strcmp(opt, "--tolerance-min")) {
		if (parse_int(opt, val, 0, 1000000000, &num, p->err, p->len))
			return -EINVAL;
		p->o->tol.min = num;
		return 0;
	}
	pct = strtod(val, &end);
	if (!*val || (*end && strcmp(end, "%")) || !(pct >= 0 && pct <= 100))
		return REFUSE(p, "--tolerance %s: accepted a percentage 0..100, such as 1 or 2.5%%",
			      val);
	p->o->tol.pct = pct;
	return 0;
}

static int opt_mthp(struct parse *p, const char *opt, const char *val)
{
	(void)opt;
	p->mthp = val;
	if (!mthp_is_list(val))
		return cli_apply_mthp(&p->o->base, val, false, p->err, p->len) ? -EINVAL : 0;
	if (!p->compare)
		return REFUSE(p, "--mthp %s: several sizes are several configurations; use compare",
			      val);
	return split_mthp_list(val, p->o, p->err, p->len) ? -EINVAL : 0;
}

static int opt_thp_enabled(struct parse *p, const char *opt, const char *val)
{
	(void)opt;
	if (strcmp(val, "always") && strcmp(val, "madvise") && strcmp(val, "never"))
		return REFUSE(p, "--thp-enabled %s: accepted always, madvise, never", val);
	return knob_once(p->o, THP "enabled", val, p->err, p->len);
}

static int opt_lru_cache(struct parse *p, const char *opt, const char *val)
{
	struct cli_opts *o = p->o;

	/* a list of policies is compare's own dimension, beside a policy list */
	if (split_list(opt, val, fl_knob_option(opt), o->lru_cache, 8, &o->nr_lru_cache, p->err,
		       p->len))
		return -EINVAL;
	if (!p->compare && o->nr_lru_cache > 1)
		return REFUSE(p,
			      "--lru-cache %s: several policies are several configurations; use "
			      "compare",
			      val);
	return 0;
}

static int opt_knob(struct parse *p, const char *opt, const char *val)
{
	const char *e = strchr(val, '=');
	char name[FL_NAME_MAX];

	(void)opt;
	if (!e || e == val || (size_t)(e - val) >= sizeof(name))
		return REFUSE(p,
			      "--knob %s: accepted NAME=VALUE, e.g. "
			      "transparent_hugepage/enabled=always",
			      val);
	memcpy(name, val, (size_t)(e - val));
	name[e - val] = '\0';
	if (!strncmp(name, THP "hugepages-", strlen(THP "hugepages-")))
		p->knob_sizes = val;
	return knob_once(p->o, name, e + 1, p->err, p->len);
}

#define MODEL_SETUP "sets up the model; the host target runs on the host's own memory and CPUs"
#define MODEL_CPUS "sets up the model's virtual CPUs; the host target runs on its real ones"
#define MODEL_POLICY "is a model policy; the host kernel runs its own"

/* who may be given an option: the refusals come from these */
#define OPT_MODEL 1u	/* sets up the model: refused where the host is the only target */
#define OPT_HOST 2u	/* the host target's: refused without it */
#define OPT_COMPARE 4u	/* compare's only */
#define OPT_GATE 8u	/* the agreement gate's: compare --target=model,host only */
#define OPT_REPEATS 16u /* may be given more than once */

struct cli_option {
	const char *name;
	/* an option with a value: its parser; one without (a flag): NULL, and @flag set */
	int (*parse)(struct parse *p, const char *opt, const char *val);
	unsigned int flags;
	const char *why; /* what it is for, in a refusal */
	size_t flag;	 /* a flag's bool in struct cli_opts */
};

/* The options of run and compare; the model's knob options come from the knob table. */
static const struct cli_option options[] = {
	{ "--no-knobs", NULL, OPT_HOST, "runs with the host's settings",
	  offsetof(struct cli_opts, base.no_knobs) },
	{ "--locks", NULL, OPT_HOST, "records perf lock's table",
	  offsetof(struct cli_opts, base.locks) },
	{ "--locked-atomics", NULL, OPT_MODEL, MODEL_SETUP,
	  offsetof(struct cli_opts, base.locked_atomics) },
	{ "--pin-cpus", NULL, OPT_MODEL, MODEL_SETUP, offsetof(struct cli_opts, base.pin_cpus) },
	{ "--check", NULL, OPT_COMPARE | OPT_GATE, "holds the host's counters against the model's",
	  offsetof(struct cli_opts, check) },
	{ "--mem", opt_mem, OPT_MODEL, MODEL_SETUP, 0 },
	{ "--swap", opt_swap, 0, NULL, 0 },
	{ "--memcg-max", opt_memcg, 0, NULL, 0 },
	{ "--memcg-high", opt_memcg, 0, NULL, 0 },
	{ "--nodes", opt_nodes, OPT_MODEL, MODEL_SETUP, 0 },
	{ "--platform", opt_platform, OPT_MODEL, MODEL_CPUS, 0 },
	{ "--costs", opt_costs, OPT_MODEL, MODEL_CPUS, 0 },
	{ "--seed", opt_seed, OPT_MODEL, MODEL_CPUS, 0 },
	{ "--cpus", opt_cpus, OPT_MODEL, MODEL_SETUP, 0 },
	{ "--target", opt_target, 0, NULL, 0 },
	{ "--json", opt_file, 0, NULL, 0 },
	{ "--plot", opt_file, OPT_COMPARE, "draws the scaling over several CPU counts", 0 },
	{ "--tolerance", opt_tolerance, OPT_COMPARE | OPT_GATE, "sets the agreement gate", 0 },
	{ "--tolerance-min", opt_tolerance, OPT_COMPARE | OPT_GATE, "sets the agreement gate", 0 },
	{ "--mthp", opt_mthp, 0, NULL, 0 },
	{ "--thp-enabled", opt_thp_enabled, 0, NULL, 0 },
	{ "--lru-cache", opt_lru_cache, OPT_MODEL, MODEL_POLICY, 0 },
	{ "--knob", opt_knob, OPT_REPEATS, NULL, 0 },
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

static const struct cli_option *find_option(const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++)
		if (!strcmp(name, options[i].name))
			return &options[i];
	return NULL;
}

/* the workloads' names, ", " between */
static void workload_names(char *names, size_t len)
{
	int i;

	names[0] = '\0';
	for (i = 0; i < fl_workload_count(); i++) {
		strncat(names, i ? ", " : "", len - strlen(names) - 1);
		strncat(names, fl_workload_get(i)->name, len - strlen(names) - 1);
	}
}

static bool host_only(const struct cli_opts *o)
{
	return o->nr_targets == 1 && !strcmp(o->targets[0], "host");
}

static bool has_host(const struct cli_opts *o)
{
	return o->nr_targets && (!strcmp(o->targets[0], "host") ||
				 (o->nr_targets > 1 && !strcmp(o->targets[1], "host")));
}

/*
 * The refusals an option's attributes decide, for each option given:
 * the model's where the host is the only target, the host's without it,
 * compare's outside it, the gate's without compare --target=model,host.
 */
static int check_given(struct parse *p, const char (*seen)[64], int nseen)
{
	const struct cli_opts *o = p->o;
	int i;

	for (i = 0; i < nseen; i++) {
		const struct cli_option *c = find_option(seen[i]);
		const struct fl_knob_info *k = fl_knob_option(seen[i]);

		if (((c && (c->flags & OPT_MODEL)) || k) && host_only(o))
			return REFUSE(p, "%s %s (use --target=model or --target=model,host)",
				      seen[i], c ? c->why : MODEL_POLICY);
		if (!c)
			continue;
		if ((c->flags & OPT_HOST) && !has_host(o))
			return REFUSE(p, "%s %s: for --target=host (or model,host)", c->name,
				      c->why);
		if ((c->flags & OPT_COMPARE) && !p->compare)
			return REFUSE(p, "%s %s; use compare", c->name, c->why);
		if ((c->flags & OPT_GATE) && o->nr_targets != 2)
			return REFUSE(p, "%s %s: give --target=model,host", c->name, c->why);
	}
	return 0;
}

/* The refusals of options given together. */
static int check_combinations(struct parse *p)
{
	const struct cli_opts *o = p->o;
	int i;

	for (i = 0; i < o->base.knobs.nr; i++) {
		const char *n = o->base.knobs.v[i].name;

		if ((o->nr_lru_cache && !strcmp(n, "foliolab/lru_cache")) ||
		    (o->nr_policy && !strcmp(n, o->policy_knob))) {
			const char *opt = fl_knob_find(n)->option;

			return REFUSE(p, "--knob %s and %s both set it; give %s alone", n, opt,
				      opt);
		}
		if (host_only(o) && !strncmp(n, "foliolab/", 9))
			return REFUSE(
				p,
				"--knob %s is a model policy; the host kernel runs its own (use "
				"--target=model or --target=model,host)",
				n);
		if (o->base.no_knobs && (!strncmp(n, THP, strlen(THP)) || o->nr_mthp))
			return REFUSE(p,
				      "--no-knobs runs with the host's THP settings; drop --mthp, "
				      "--thp-enabled and --knob " THP "...");
	}
	if (p->mthp && p->knob_sizes)
		return REFUSE(p,
			      "--mthp %s and --knob %s both set mTHP sizes; give the sizes in "
			      "--mthp alone",
			      p->mthp, p->knob_sizes);
	if (p->compare && o->nr_lru_cache < 2 && o->nr_mthp < 2 && o->nr_targets < 2 &&
	    o->nr_policy < 2 && o->nr_cpus < 2)
		return REFUSE(p,
			      "compare needs a list to compare: --lru-cache=order0,pages31, --mthp "
			      "4K,16K, --split-walk=forward,reverse (or another policy list: "
			      "--khugepaged-lazyfree, --cow-reuse-drain), --cpus 1,20 or "
			      "--target=model,host");
	if (o->plot && o->nr_cpus < 2)
		return REFUSE(p,
			      "--plot %s draws the scaling over CPU counts: give --cpus with two "
			      "or more, such as --cpus 1,4,16",
			      o->plot);
	if (o->plot && !fl_plot_available())
		return REFUSE(p, "--plot: gnuplot is not installed (Debian: apt-get install "
				 "gnuplot-nox); it draws the plots");
	if (o->nr_cpus > 1 && o->nr_targets > 1)
		return REFUSE(p,
			      "--cpus with a list sizes the model's machine; the host has its own "
			      "CPUs (compare --cpus with --target=model)");
	if (o->base.costs && !o->base.sim)
		return REFUSE(p,
			      "--costs: for --platform sim (the native platform takes real time)");
	if (o->base.no_knobs && o->nr_mthp)
		return REFUSE(p, "--no-knobs runs with the host's THP settings; drop --mthp");
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_opts *o, char *err, size_t len)
{
	struct parse p = { .o = o, .compare = !strcmp(argv[0], "compare"), .err = err, .len = len };
	char seen[MAX_SEEN][64], names[128];
	int i, nseen = 0;

	memset(o, 0, sizeof(*o));
	o->cmd = argv[0];
	fl_tolerance_default(&o->tol);
	workload_names(names, sizeof(names));
	if (argc < 2 || argv[1][0] == '-')
		return REFUSE(&p, "%s needs a workload first; accepted: %s", argv[0], names);
	o->workload = argv[1];
	fl_config_init(&o->base, argv[1]);
	if (!fl_workload_find(argv[1]))
		return REFUSE(&p, "unknown workload '%s'; accepted: %s", argv[1], names);
	for (i = 2; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
		size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
		const struct cli_option *c;
		const struct fl_knob_info *k;
		char opt[64];

		if (strncmp(arg, "--", 2) != 0 || !arg[2])
			return REFUSE(&p,
				      "unexpected argument '%s'; options look like --name VALUE",
				      arg);
		if (n >= sizeof(opt))
			return REFUSE(&p, "option '%.40s...' is too long", arg);
		memcpy(opt, arg, n);
		opt[n] = '\0';
		c = find_option(opt);
		if (c && !c->parse) {
			if (eq)
				return REFUSE(&p, "%s takes no value", opt);
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return REFUSE(&p, "%s needs a value", opt);
		}
		if (!(c && (c->flags & OPT_REPEATS)) && once(seen, &nseen, opt, err, len))
			return -EINVAL;
		if (c && !c->parse) {
			*(bool *)((char *)o + c->flag) = true;
		} else if (c) {
			if (c->parse(&p, opt, val))
				return -EINVAL;
		} else if ((k = fl_knob_option(opt))) {
			if (knob_option(o, p.compare, k, val, err, len))
				return -EINVAL;
		} else if (fl_config_set_param(&o->base, opt + 2, val)) {
			return REFUSE(&p, "too many options");
		}
	}
	if (check_given(&p, (const char(*)[64])seen, nseen))
		return -EINVAL;
	return check_combinations(&p);
}

/* --no-knobs in a compare: the model runs with the host's THP settings too */
static void copy_host_thp(struct fl_config *c)
{
	static struct fl_knobs host;
	static bool read;
	int i;

	if (!read) {
		fl_host_knobs(&host);
		read = true;
	}
	for (i = 0; i < host.nr; i++) {
		const char *n = host.v[i].name + strlen(THP);
		size_t l = strlen(n);

		if (!strcmp(n, "enabled") || !strcmp(n, "defrag") || !strcmp(n, "use_zero_page") ||
		    (!strncmp(n, "hugepages-", 10) && l > 8 && !strcmp(n + l - 8, "/enabled")))
			fl_config_set_knob(c, host.v[i].name, host.v[i].value);
	}
}

static bool config_has_knob(const struct fl_config *c, const char *name)
{
	int i;

	for (i = 0; i < c->knobs.nr; i++)
		if (!strcmp(c->knobs.v[i].name, name))
			return true;
	return false;
}

/*
 * What the host kernel was booted or built with, given to the model
 * columns of a compare with it unless the command line set the knob
 * itself: pvm_no_zero_page=1 (a page on every read fault:
 * foliolab/no_zero_page=on), CONFIG_NO_PAGE_MAPCOUNT=y (no per-page
 * mapcounts: foliolab/page_mapcount=off); and the host's state at the
 * start of its run: a huge zero folio (foliolab/huge_zero_folio=present).
 */
static void copy_host_cmdline(struct fl_config *c)
{
	static struct fl_knobs host;
	static bool read;
	int i;

	if (!read) {
		fl_host_knobs(&host);
		read = true;
	}
	/* the host target makes sure the huge zero folio exists before its run */
	if (!config_has_knob(c, "foliolab/huge_zero_folio"))
		fl_config_set_knob(c, "foliolab/huge_zero_folio", "present");
	for (i = 0; i < host.nr; i++) {
		if (!strcmp(host.v[i].name, "cmdline/pvm_no_zero_page") &&
		    strcmp(host.v[i].value, "0") && !config_has_knob(c, "foliolab/no_zero_page"))
			fl_config_set_knob(c, "foliolab/no_zero_page", "on");
		if (!strcmp(host.v[i].name, "config/CONFIG_NO_PAGE_MAPCOUNT") &&
		    !config_has_knob(c, "foliolab/page_mapcount"))
			fl_config_set_knob(c, "foliolab/page_mapcount",
					   strcmp(host.v[i].value, "y") ? "on" : "off");
	}
}

static bool has_param(const char *workload, const char *name)
{
	const struct fl_workload_info *wi = fl_workload_find(workload);
	const struct fl_workload_param_info *p;

	for (p = wi ? wi->params : NULL; p && p->name; p++)
		if (!strcmp(p->name, name))
			return true;
	return false;
}

static void add_label(char *label, const char *part)
{
	size_t n = strlen(label);

	snprintf(label + n, 64 - n, "%s%s", n ? "/" : "", part);
}

/*
 * The workload's own knobs (its experiment's set-up) where the command
 * line leaves them: a model knob on model columns only, none on a host
 * run with --no-knobs.
 */
static int workload_knobs(const struct cli_opts *o, struct fl_config *c, bool host, char *err,
			  size_t len)
{
	const struct fl_workload_info *wi = fl_workload_find(o->workload);
	const char *const *k;
	int i;

	for (k = wi ? wi->knobs : NULL; k && *k; k++) {
		char name[FL_NAME_MAX];
		const char *eq = strchr(*k, '=');
		bool given = false;

		snprintf(name, sizeof(name), "%.*s", (int)(eq - *k), *k);
		if ((host && (!strncmp(name, "foliolab/", 9) || c->no_knobs)))
			continue;
		for (i = 0; i < c->knobs.nr; i++)
			given |= !strcmp(c->knobs.v[i].name, name);
		if (!given && fl_config_set_knob(c, name, eq + 1)) {
			snprintf(err, len, "too many knobs");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * cli_configs() - the configurations to run: the product of the lists,
 * sizes outermost, then targets, then LRU-cache policies and split walks
 * (the model's only: the host target runs once per size).
 * Return: how many, or -EINVAL.
 */
int cli_configs(const struct cli_opts *o, struct fl_config *cfgs, char labels[][64], int max,
		char *err, size_t len)
{
	int nt = o->nr_targets ? o->nr_targets : 1;
	int nm = o->nr_mthp ? o->nr_mthp : 1;
	int nc = o->nr_cpus > 1 ? o->nr_cpus : 1;
	int i, j, k, t, n = 0, cp;

	for (cp = 0; cp < nc; cp++)
		for (i = 0; i < nm; i++) {
			for (t = 0; t < nt; t++) {
				const char *target = o->nr_targets ? o->targets[t] : o->base.target;
				bool host = !strcmp(target, "host");
				int nl = !host && o->nr_lru_cache ? o->nr_lru_cache : 1;
				int nw = !host && o->nr_policy ? o->nr_policy : 1;

				for (j = 0; j < nl * nw; j++) {
					struct fl_config *c = &cfgs[n];
					int w = j % nw;

					if (n == max) {
						snprintf(err, len,
							 "too many configurations; at most %d",
							 max);
						return -EINVAL;
					}
					*c = o->base;
					snprintf(c->target, sizeof(c->target), "%s", target);
					c->knobs.nr = 0;
					labels[n][0] = '\0';
					if (!host) {
						c->locks = false;
						c->no_knobs = false;
						if (o->base.no_knobs)
							copy_host_thp(c);
					} else {
						c->mem_bytes = 0;
						c->nodes = 0;
						c->cpus = 0;
						c->locked_atomics = false;
						c->pin_cpus = false;
						c->sim = false;
					}
					if (!host && o->nr_lru_cache)
						fl_config_set_knob(c, "foliolab/lru_cache",
								   o->lru_cache[j / nw]);
					if (!host && o->nr_policy)
						fl_config_set_knob(c, o->policy_knob, o->policy[w]);
					if (o->nr_mthp &&
					    cli_apply_mthp(c, o->mthp[i], false, err, len))
						return -EINVAL;
					for (k = 0; k < o->base.knobs.nr; k++) {
						if (host && !strncmp(o->base.knobs.v[k].name,
								     "foliolab/", 9))
							continue;
						fl_config_set_knob(c, o->base.knobs.v[k].name,
								   o->base.knobs.v[k].value);
					}
					if (workload_knobs(o, c, host, err, len))
						return -EINVAL;
					if (!host && o->nr_targets > 1)
						copy_host_cmdline(c);
					if (o->nr_cpus > 1) {
						char v[16];

						/* N CPUs run N threads, unless --threads says otherwise */
						c->cpus = o->cpus[cp];
						snprintf(v, sizeof(v), "%d", o->cpus[cp]);
						if (!fl_config_param(&o->base, "threads") &&
						    has_param(o->workload, "threads"))
							fl_config_set_param(c, "threads", v);
						snprintf(v, sizeof(v), "%dcpus", o->cpus[cp]);
						add_label(labels[n], v);
					}
					if (o->nr_mthp)
						add_label(labels[n], o->mthp[i]);
					if (o->nr_targets > 1)
						add_label(labels[n], target);
					if (!host && o->nr_lru_cache > 1)
						add_label(labels[n], o->lru_cache[j / nw]);
					if (!host && o->nr_policy > 1)
						add_label(labels[n], o->policy[w]);
					if (!labels[n][0])
						add_label(labels[n], o->nr_lru_cache && !host
									     ? o->lru_cache[j / nw]
									     : target);
					c->label = labels[n];
					n++;
				}
			}
		}
	return n;
}
