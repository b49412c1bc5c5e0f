// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - the foliolab command: list, run, compare, help.
 *
 * Every configuration is validated before the first one runs, and the
 * JSON file is written to a temporary name and renamed only when all runs
 * finished, so bad input leaves nothing behind. Exit status: 0 success,
 * 1 a run failed its checks, 2 bad input.
 *
 * Conventions in this file: errors print "foliolab: <one line>" to stderr.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

static int usage_error(const char *msg)
{
	fprintf(stderr, "foliolab: %s\n", msg);
	return 2;
}

/* argv[*i] as "--NAME VALUE" or "--NAME=VALUE": VALUE (*i moved past it), else NULL */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(argv[*i], name) && *i + 1 < argc)
		return argv[++*i];
	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return NULL;
}

/* *@slot = @v, or, if it was set, the usage error @twice (exit 2) */
static int set_once(const char **slot, const char *v, const char *twice)
{
	if (*slot)
		return usage_error(twice);
	*slot = v;
	return 0;
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int cmd_list(int argc, char **argv)
{
	int i;

	if (wants_help(argc, argv)) {
		help_list(stdout);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "foliolab: list takes no arguments (got '%s')\n", argv[1]);
		return 2;
	}
	for (i = 0; i < fl_workload_count(); i++) {
		const struct fl_workload_info *wi = fl_workload_get(i);
		const struct fl_workload_param_info *p;

		printf("%-16s %s\n", wi->name, wi->summary);
		for (p = wi->params; p->name; p++) {
			char acc[160];

			fl_workload_param_accepted(p, acc, sizeof(acc));
			printf("    --%-15s %-8s %s (%s)\n", p->name, p->def, p->help, acc);
		}
	}
	return 0;
}

/* The JSON document of @n results, to @o; the reason of a failure on stderr. */
static int write_json(struct fl_outfile *o, const struct fl_result *res, int n,
		      const struct fl_tolerance *tol)
{
	char err[4400];
	FILE *f = fl_outfile_stream(o);

	if (!f || fl_results_write_json(f, res, n, tol)) {
		fprintf(stderr, "foliolab: --json %s: %s\n", o->path,
			strerror(errno ? errno : EIO));
		fl_outfile_abort(o);
		return -1;
	}
	if (fl_outfile_commit(o, err, sizeof(err))) {
		fprintf(stderr, "foliolab: --json %s\n", err);
		return -1;
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct cli_opts o;
	static struct fl_config cfgs[CLI_MAX_CONFIGS];
	static char labels[CLI_MAX_CONFIGS][64];
	struct fl_outfile json = { .fd = -1 }, plot = { .fd = -1 };
	struct fl_result *res;
	bool compare = !strcmp(argv[0], "compare");
	char err[512];
	int i, n, status = 0;

	if (wants_help(argc, argv)) {
		help_run(stdout, compare);
		return 0;
	}
	if (cli_parse(argc, argv, &o, err, sizeof(err)))
		return usage_error(err);
	n = cli_configs(&o, cfgs, labels, CLI_MAX_CONFIGS, err, sizeof(err));
	if (n < 0)
		return usage_error(err);
	for (i = 0; i < n; i++) {
		cfgs[i].progress = isatty(STDERR_FILENO) ? FL_PROGRESS_LINE : FL_PROGRESS_HEARTBEAT;
		if (fl_validate(&cfgs[i], err, sizeof(err)))
			return usage_error(err);
	}
	/* the output files last: nothing of them is left where the input is bad */
	if (o.json && fl_outfile_open(&json, "--json", o.json, err, sizeof(err)))
		return usage_error(err);
	if (o.plot && fl_outfile_open(&plot, "--plot", o.plot, err, sizeof(err))) {
		fl_outfile_abort(&json);
		return usage_error(err);
	}
	res = calloc((size_t)n, sizeof(*res));
	if (!res) {
		fl_outfile_abort(&json);
		return usage_error("out of memory");
	}
	for (i = 0; i < n; i++) {
		int ret = fl_run(&cfgs[i], &res[i], err, sizeof(err));

		if (ret) {
			fprintf(stderr, "foliolab: %s\n", err);
			status = ret == -EINVAL ? 2 : 1;
			n = i;
			goto out;
		}
		if (res[i].status)
			status = 1;
	}
	if (compare) {
		int differs = report_compare(stdout, res, n, &o.tol);

		if (o.nr_cpus > 1)
			report_scaling(stdout, res, n);
		if (o.plot &&
		    (report_scaling_plot(fl_outfile_stream(&plot), res, n, err, sizeof(err)) ||
		     fl_outfile_commit(&plot, err, sizeof(err)))) {
			fprintf(stderr, "foliolab: %s\n", err);
			status = 1;
		}

		if (o.check && differs) {
			fprintf(stderr,
				"foliolab: %d counter%s of the host differ%s from the model's "
				"(--check)\n",
				differs, differs == 1 ? "" : "s", differs == 1 ? "s" : "");
			status = 1;
		}
	} else {
		report_run(stdout, &res[0]);
	}
	if (o.json && write_json(&json, res, n, &o.tol))
		status = 1;
out:
	fl_outfile_abort(&json); /* nothing, once written */
	if (o.plot)
		fl_outfile_abort(&plot);
	for (i = 0; i < n; i++)
		fl_result_free(&res[i]);
	free(res);
	return status;
}

static int cmd_host(int argc, char **argv)
{
	char err[512];

	if (wants_help(argc, argv) || argc < 2) {
		help_host(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "restore") || argc > 2) {
		fprintf(stderr, "foliolab: host: accepted 'foliolab host restore' (got '%s%s')\n",
			argv[1], argc > 2 ? " ..." : "");
		return 2;
	}
	if (fl_host_restore(stdout, err, sizeof(err))) {
		fprintf(stderr, "foliolab: host restore: %s\n", err);
		return 1;
	}
	return 0;
}

/*
 * foliolab calibrate [--out FILE] [--measured FILE]: this machine's cost file;
 * --collect DIR: a bundle; --fit SRC [--out FILE] [--measured FILE]: the cost
 * file of measurements made elsewhere
 */
static int cmd_calibrate(int argc, char **argv)
{
	const char *out = NULL, *collect = NULL, *fitsrc = NULL, *meas = NULL;
	struct fl_outfile of, om = { 0 };
	char err[4400], command[256];
	int i, failed = 0, ret;
	size_t n = 0;

	if (wants_help(argc, argv)) {
		help_calibrate(stdout);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		const char *v;

		if ((v = opt_value(argc, argv, &i, "--collect"))) {
			if (set_once(
				    &collect, v,
				    "calibrate: --collect given twice; accepted one --collect DIR"))
				return 2;
		} else if ((v = opt_value(argc, argv, &i, "--out"))) {
			if (set_once(&out, v,
				     "calibrate: --out given twice; accepted one --out FILE"))
				return 2;
		} else if ((v = opt_value(argc, argv, &i, "--fit"))) {
			if (set_once(&fitsrc, v,
				     "calibrate: --fit given twice; accepted one --fit DIR|FILE"))
				return 2;
		} else if ((v = opt_value(argc, argv, &i, "--measured"))) {
			if (set_once(&meas, v,
				     "calibrate: --measured given twice; accepted one --measured "
				     "FILE"))
				return 2;
		} else {
			fprintf(stderr,
				"foliolab: calibrate: '%s': accepted --out FILE, --measured FILE, "
				"--collect DIR or --fit DIR|FILE\n",
				argv[i]);
			return 2;
		}
	}
	if (collect && (out || meas))
		return usage_error("calibrate: --collect DIR writes its cost file and "
				   "measurements in DIR (DIR/calibrate.costs, "
				   "DIR/calibrate.measured); give --out/--measured or --collect");
	if (collect && fitsrc)
		return usage_error("calibrate: --collect measures this machine and --fit fits "
				   "measurements made elsewhere; give one");
	n = (size_t)snprintf(command, sizeof(command), "foliolab");
	for (i = 0; i < argc && n < sizeof(command); i++)
		n += (size_t)snprintf(command + n, sizeof(command) - n, " %s", argv[i]);
	if (collect) {
		if (fl_calibrate_collect_check(collect, err, sizeof(err)) ||
		    fl_calibrate_check(err, sizeof(err)))
			return usage_error(err);
		setvbuf(stdout, NULL, _IOLBF, 0);
		if (fl_calibrate_collect(collect, command, stdout, &failed, err, sizeof(err))) {
			fprintf(stderr, "foliolab: %s\n", err);
			return 1;
		}
		printf("wrote the bundle %s (manifest.txt says what is in it)\n", collect);
		return failed ? 1 : 0;
	}
	if (!out)
		out = "foliolab.costs";
	/* before the work: the user's input first, then what the host must allow */
	if (meas && !strcmp(meas, out) && strcmp(out, "-"))
		return usage_error("calibrate: --measured and --out name the same file; give two");
	if (fitsrc && fl_calibrate_fit_check(fitsrc, err, sizeof(err)))
		return usage_error(err);
	if (fl_outfile_open(&of, "calibrate --out", out, err, sizeof(err)))
		return usage_error(err);
	if (meas && fl_outfile_open(&om, "calibrate --measured", meas, err, sizeof(err))) {
		fl_outfile_abort(&of);
		return usage_error(err);
	}
	if (!fitsrc && fl_calibrate_check(err, sizeof(err))) {
		fl_outfile_abort(&of);
		if (meas)
			fl_outfile_abort(&om);
		return usage_error(err);
	}
	setvbuf(stdout, NULL, _IOLBF, 0); /* each step as it is measured */
	if (!fl_outfile_stream(&of) || (meas && !fl_outfile_stream(&om))) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		ret = -EIO;
	} else if (fitsrc) {
		ret = fl_calibrate_fit(fitsrc, fl_outfile_stream(&of), of.path, command,
				       meas ? fl_outfile_stream(&om) : NULL, stdout, &failed, err,
				       sizeof(err));
	} else {
		ret = fl_calibrate(fl_outfile_stream(&of), of.path, command,
				   meas ? fl_outfile_stream(&om) : NULL, stdout, &failed, err,
				   sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "foliolab: calibrate%s: %s\n", fitsrc ? " --fit" : "", err);
		fl_outfile_abort(&of);
		if (meas)
			fl_outfile_abort(&om);
		return 1;
	}
	if (fl_outfile_commit(&of, err, sizeof(err)) ||
	    (meas && fl_outfile_commit(&om, err, sizeof(err)))) {
		fprintf(stderr, "foliolab: calibrate: %s\n", err);
		if (meas)
			fl_outfile_abort(&om);
		return 1;
	}
	printf("wrote %s%s%s\n", out, meas ? " and " : "", meas ? meas : "");
	return failed ? 1 : 0;
}

static int cmd_validate(int argc, char **argv)
{
	const char *dir = NULL, *costs = NULL, *plot = NULL;
	struct fl_outfile of;
	char err[4400];
	bool check = false;
	int i, outside = 0, ret;

	if (wants_help(argc, argv)) {
		help_validate(stdout);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		const char *v;

		if (!strcmp(argv[i], "--check")) {
			if (check)
				return usage_error("validate: --check given twice");
			check = true;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--costs"))) {
			if (set_once(&costs, v,
				     "validate: --costs given twice; accepted one --costs FILE"))
				return 2;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--plot"))) {
			if (set_once(&plot, v,
				     "validate: --plot given twice; accepted one --plot FILE.svg"))
				return 2;
			continue;
		}
		if (argv[i][0] == '-' || dir) {
			fprintf(stderr,
				"foliolab: validate: '%s': accepted one folder DIR, --costs FILE, "
				"--check, --plot FILE.svg\n",
				argv[i]);
			return 2;
		}
		dir = argv[i];
	}
	if (!dir)
		return usage_error("validate: no folder; accepted validate DIR [--costs FILE] "
				   "[--check]");
	if (costs && fl_costs_check(costs, err, sizeof(err)))
		return usage_error(err);
	if (plot && !fl_plot_available())
		return usage_error("validate --plot: gnuplot is not installed (Debian: apt-get "
				   "install gnuplot-nox); it draws the plots");
	if (plot && fl_outfile_open(&of, "--plot", plot, err, sizeof(err)))
		return usage_error(err);
	ret = fl_validate_bundle(dir, costs, stdout, &outside, plot ? fl_outfile_stream(&of) : NULL,
				 err, sizeof(err));
	if (!ret && plot && fl_outfile_commit(&of, err, sizeof(err)))
		ret = -EIO;
	if (plot)
		fl_outfile_abort(&of); /* nothing, once committed */
	if (ret == -EINVAL)
		return usage_error(err);
	if (ret) {
		fprintf(stderr, "foliolab: %s\n", err);
		return 1;
	}
	return check && outside ? 1 : 0;
}

static int cmd_help(int argc, char **argv);

/* The commands, and the help topics (a topic without a command: knobs). */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the command's name; NULL: a topic only */
	void (*help)(FILE *f);		   /* its help topic, or NULL */
} commands[] = {
	{ "list", cmd_list, help_list },
	{ "run", cmd_run, help_run_only },
	{ "compare", cmd_run, help_compare },
	{ "host", cmd_host, help_host },
	{ "calibrate", cmd_calibrate, help_calibrate },
	{ "validate", cmd_validate, help_validate },
	{ "help", cmd_help, NULL },
	{ "knobs", NULL, help_knobs },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* the names of the commands (@topics: of the help topics), ", " between */
static void command_names(bool topics, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_COMMANDS && n < len; i++)
		if (topics ? commands[i].help != NULL : commands[i].run != NULL)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      commands[i].name);
}

static int cmd_help(int argc, char **argv)
{
	char names[160], msg[200];
	size_t i;

	command_names(true, names, sizeof(names));
	if (argc > 2) {
		snprintf(msg, sizeof(msg), "help takes one topic: %s", names);
		return usage_error(msg);
	}
	if (argc < 2) {
		help_main(stdout);
		return 0;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (commands[i].help && !strcmp(argv[1], commands[i].name)) {
			commands[i].help(stdout);
			return 0;
		}
	}
	snprintf(msg, sizeof(msg), "help: accepted topics are %s", names);
	return usage_error(msg);
}

int main(int argc, char **argv)
{
	char names[160], msg[240];
	size_t i;

	command_names(false, names, sizeof(names));
	if (argc < 2) {
		snprintf(msg, sizeof(msg),
			 "no command; accepted: %s, --version (see foliolab --help)", names);
		return usage_error(msg);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help_main(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2)
			return usage_error("--version takes no arguments");
		printf("foliolab %s\n", fl_version());
		return 0;
	}
	for (i = 0; i < NR_COMMANDS; i++)
		if (commands[i].run && !strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "foliolab: unknown command '%s'; accepted: %s\n", argv[1], names);
	return 2;
}
