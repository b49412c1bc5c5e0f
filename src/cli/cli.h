/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - the foliolab command's pieces: option parsing into configurations
 * and rendering results as text.
 *
 * Conventions in this file: the CLI sees only <foliolab/foliolab.h>.
 */
#ifndef FL_CLI_CLI_H
#define FL_CLI_CLI_H

#include <foliolab/foliolab.h>

#define CLI_MAX_CONFIGS 32

struct cli_opts {
	const char *cmd; /* "run" or "compare" */
	const char *workload;
	const char *json; /* --json FILE or NULL */
	const char *plot; /* compare --plot FILE.svg or NULL */
	struct fl_config base;
	/* compare dimensions: each entry is a list of configurations to cross */
	char lru_cache[8][16];
	int nr_lru_cache;
	char mthp[8][96];
	int nr_mthp;
	char targets[2][16]; /* --target model,host */
	int nr_targets;
	/*
	 * a model policy given as a list, one configuration each (the
	 * model's): --split-walk forward,reverse, --khugepaged-lazyfree
	 * collapse,skip or --cow-reuse-drain off,on; one such list a run
	 */
	const char *policy_knob; /* its knob: "foliolab/split_walk", ... */
	const char *policy_opt;	 /* the option that gave it: "--split-walk", ... */
	char policy[2][16];
	int nr_policy;
	int cpus[8]; /* --cpus 1,20,80,320: the model's CPUs (and threads, unless given) */
	int nr_cpus;
	bool check;		 /* compare: exit 1 when a model and a host counter differ */
	struct fl_tolerance tol; /* the agreement gate's */
};

/* options.c */
int cli_parse(int argc, char **argv, struct cli_opts *o, char *err, size_t len);
int cli_configs(const struct cli_opts *o, struct fl_config *cfgs, char labels[][64], int max,
		char *err, size_t len);
int cli_apply_mthp(struct fl_config *cfg, const char *spec, bool allow_list, char *err, size_t len);

/* report.c */
void report_run(FILE *f, const struct fl_result *r);
void report_settings(FILE *f, const struct fl_result *r, const char *indent);
/* a workload's figure printed as an integer: whole, or 1000 and beyond */
static inline bool report_whole(double v)
{
	return v == (double)(long long)v || v >= 1000 || v <= -1000;
}
/* the value of knob @name in force in @r, "?" if it has none */
const char *report_knob(const struct fl_result *r, const char *name);
/* a 6.x host kernel runs what the model calls the order0 rule */
bool report_host_is_order0(const struct fl_result *r);
/* host results: the noise line */
void report_noise_note(FILE *f, const struct fl_result *r, int nr);
void report_machinery_note(FILE *f, const struct fl_result *r, int nr);
void report_time(FILE *f, const struct fl_result *r);

/*
 * platform sim: all virtual CPUs' time over the run (ns; 0 on native), and
 * the share of it they were busy (%)
 */
double report_vcpu_ns(const struct fl_result *r);
double report_vcpu_busy_pct(const struct fl_result *r);

/* report_compare.c: returns how many counter rows DIFFER between model and host */
int report_compare(FILE *f, const struct fl_result *r, int nr, const struct fl_tolerance *tol);
/* compare --cpus LIST on sim: throughput, speedup and lock shares by CPU count */
void report_scaling(FILE *f, const struct fl_result *r, int nr);

/* help.c */
void help_main(FILE *f);
void help_run(FILE *f, bool compare);
static inline void help_run_only(FILE *f)
{
	help_run(f, false);
}
static inline void help_compare(FILE *f)
{
	help_run(f, true);
}
void help_knobs(FILE *f);
void help_list(FILE *f);
void help_host(FILE *f);
void help_calibrate(FILE *f);
void help_validate(FILE *f);
int report_scaling_plot(FILE *out, const struct fl_result *r, int nr, char *err, size_t len);

#endif /* FL_CLI_CLI_H */
