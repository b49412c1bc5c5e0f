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
	struct fl_config base;
	/* compare dimensions: each entry is a list of configurations to cross */
	char lru_cache[8][16];
	int nr_lru_cache;
	char mthp[8][96];
	int nr_mthp;
	char targets[2][16]; /* --target model,host */
	int nr_targets;
	bool any_model_knob; /* a foliolab/ knob was given (the model's policies) */
};

/* options.c */
int cli_parse(int argc, char **argv, struct cli_opts *o, char *err, size_t len);
int cli_configs(const struct cli_opts *o, struct fl_config *cfgs, char labels[][64], int max,
		char *err, size_t len);
int cli_apply_mthp(struct fl_config *cfg, const char *spec, bool allow_list, char *err, size_t len);

/* report.c */
void report_run(FILE *f, const struct fl_result *r);
void report_compare(FILE *f, const struct fl_result *r, int nr);
void report_settings(FILE *f, const struct fl_result *r, const char *indent);

/* report.c: host results */
void report_noise_note(FILE *f, const struct fl_result *r, int nr);

/* help.c */
void help_main(FILE *f);
void help_run(FILE *f, bool compare);
void help_list(FILE *f);
void help_host(FILE *f);

#endif /* FL_CLI_CLI_H */
