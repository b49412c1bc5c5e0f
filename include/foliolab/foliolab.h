/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * foliolab.h - the public API: run a workload on a target and get one
 * result record back (counters under /proc/vmstat and sysfs names, lock
 * statistics in perf lock's columns, times, workload metrics).
 *
 * This header is self-contained and uses only the C standard library, so
 * the CLI, tests and other programs can include it alone.
 *
 * Conventions in this file: functions return 0 or a negative errno; a
 * char *err buffer receives a one-line message on failure; growable
 * arrays (counters, locks) are owned by the record and freed with it.
 */
#ifndef FOLIOLAB_FOLIOLAB_H
#define FOLIOLAB_FOLIOLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FL_API
#define FL_API __attribute__((visibility("default")))
#endif

#define FL_NAME_MAX 80
#define FL_VALUE_MAX 48
#define FL_MAX_KNOBS 64
#define FL_MAX_PARAMS 16
#define FL_MAX_METRICS 48 /* fragment: 5 for each of 8 sizes, and its own */

/*
 * Where a counter's value comes from. The model's counters count the model
 * alone (exact). On the host a counter is either the workload's own
 * (counted for the run's processes only: perf events, its memory cgroup)
 * or system-wide (/proc/vmstat, sysfs: every process on the machine adds
 * to it); a host record keeps the system-wide value of a workload
 * counter as "system:<name>".
 */
enum fl_counter_scope { FL_SCOPE_EXACT, FL_SCOPE_WORKLOAD, FL_SCOPE_SYSTEM };

struct fl_counter {
	char name[FL_NAME_MAX];
	int64_t value;
	int scope; /* enum fl_counter_scope */
};

struct fl_counters {
	struct fl_counter *v;
	int nr;
	int cap;
};

struct fl_lock_stat_row {
	char name[FL_NAME_MAX]; /* lock class, e.g. "lruvec->lru_lock" */
	char site[FL_NAME_MAX]; /* kernel function that took it */
	char kind[16];		/* spinlock, mutex, local_lock, rwsem:R, rwsem:W */
	uint64_t acquired;
	uint64_t contended;
	uint64_t wait_total_ns;
	uint64_t wait_max_ns;
	uint64_t wait_min_ns;
	uint64_t hold_total_ns; /* platform sim: virtual time held; 0 where not measured */
	uint64_t stolen;	/* platform sim, mutex and rwsem: taken free while others waited */
	uint64_t handoffs;	/* platform sim, mutex and rwsem: given to a waiter that asked */
	bool no_acquired;	/* acquisitions not measured (perf lock counts contention only) */
};

struct fl_locks {
	struct fl_lock_stat_row *v;
	int nr;
	int cap;
};

/* A sysfs-style setting, e.g. "transparent_hugepage/hugepages-16kB/enabled". */
struct fl_knob {
	char name[FL_NAME_MAX];
	char value[FL_VALUE_MAX];
	bool set; /* set by the run's configuration, not inherited from the target */
};

struct fl_knobs {
	struct fl_knob v[FL_MAX_KNOBS];
	int nr;
};

struct fl_param {
	char name[32];
	char value[FL_VALUE_MAX];
};

struct fl_metric {
	char name[32];
	char unit[16];
	double value;
};

/*
 * A run's sign of life on stderr: none; a line rewritten in place every
 * 0.5 s after the first 2 s (a terminal); or one line every 10 s after
 * the first 10 s (a log, a pipe).
 */
enum fl_progress { FL_PROGRESS_NONE, FL_PROGRESS_LINE, FL_PROGRESS_HEARTBEAT };

/* What to run: a workload, a target, the machine and the knobs to apply. */
struct fl_config {
	char workload[32];
	char target[16];       /* "model" (default) or "host" */
	uint64_t mem_bytes;    /* 0: sized for the workload */
	int nodes;	       /* 0: 1 */
	int cpus;	       /* 0: one per workload thread */
	uint64_t swap_bytes;   /* --swap zram:SIZE: swap on a zram disk of SIZE; 0: no swap */
	uint64_t memcg_max;    /* --memcg-max: the run's memory cgroup's memory.max; 0: max */
	uint64_t memcg_high;   /* --memcg-high: its memory.high; 0: max */
	struct fl_knobs knobs; /* applied in order before the run */
	struct fl_param params[FL_MAX_PARAMS];
	int nr_params;
	int progress;  /* enum fl_progress: how a long run shows it is alive */
	bool locks;    /* host: record lock contention with perf lock */
	bool no_knobs; /* host: change no knob; run with what the host has */
	/*
	 * model: keep the LOCK prefix of the model's atomics when one thread
	 * runs it (by default it drops it, as an SMP kernel booted on one CPU
	 * does); the code path a 2-thread run takes, for instruction counts
	 */
	bool locked_atomics;
	bool pin_cpus;	   /* model: pin CPU i's thread to host CPU i */
	bool sim;	   /* model: virtual CPUs (platform sim), not host threads */
	uint64_t seed;	   /* sim: the tie-break stream's seed */
	const char *costs; /* sim: the cost file (NULL: the built-in calibration) */
	const char *label; /* optional name of this configuration in a compare */
};

struct fl_result {
	char workload[32];
	char target[16];
	char label[64];
	struct fl_param params[FL_MAX_PARAMS];
	int nr_params;
	struct fl_knobs knobs; /* every setting in force during the run */
	uint64_t mem_bytes;
	int nodes;
	int cpus;
	uint64_t swap_bytes; /* the zram swap device the run had; 0: none */
	uint64_t memcg_max;  /* the run's memcg's memory.max and memory.high; 0: max */
	uint64_t memcg_high;
	bool locked_atomics; /* the options the run was made with (struct fl_config) */
	bool pin_cpus;
	char platform[8]; /* "native" (host threads) or "sim" (virtual CPUs); "" on the host */
	uint64_t seed;	  /* sim: the seed */
	char kernel_release[64]; /* uname -r of the host, or the model's base */
	char cpu_model[96];
	double wall_s; /* platform sim: virtual time (host_wall_s: the host's) */
	double host_wall_s;
	double user_s;
	double sys_s;
	/*
	 * The share of the CPU time the whole machine wanted during the run
	 * that its hypervisor gave to others (/proc/stat steal), in %; -1 if
	 * unknown. Time the run lost that no change to it can win back.
	 */
	double steal_pct;
	/*
	 * The /proc/stat ticks (USER_HZ) behind steal_pct: the whole machine's
	 * busy (user + nice + system + irq + softirq) and stolen time over the
	 * run; both 0 if unknown. For summing the share over several runs.
	 */
	uint64_t machine_busy_ticks;
	uint64_t machine_steal_ticks;
	struct fl_counters counters; /* deltas over the run, all names */
	/*
	 * Where counters are system-wide (the host): the deltas over an idle
	 * interval of noise_s seconds right after the run, scaled to the
	 * run's wall time; empty for the model.
	 */
	struct fl_counters noise;
	double noise_s;
	/*
	 * The host: what its own process machinery counted in the run (the
	 * zygote's forks, the servers' start-up, thread stacks), measured by
	 * running the run's process steps again without the workload, and
	 * already taken out of every whole-run counter (not the windows);
	 * machinery_steps of them. Empty (0 steps) when the run made no
	 * process but the runner, and for the model.
	 */
	struct fl_counters machinery;
	int machinery_steps;
	struct fl_locks locks;
	char locks_note[160]; /* why there is no lock table, if there is none */
	char scope_note[200]; /* host: why some counters stay system-wide */
	struct fl_metric metrics[FL_MAX_METRICS];
	int nr_metrics;
	int status; /* 0 ok, else the run failed (see error) */
	char error[512];
	/*
	 * What the run could not do on this target and did without (e.g. a
	 * host in lockdown refusing a debugfs write): said in every report
	 * and in the JSON, never skipped silently. Empty when nothing was.
	 */
	char note[256];
	/*
	 * Platform sim: the cost file's source and provenance, and each
	 * virtual CPU's busy and idle time over the run (virtual ns).
	 */
	char costs[384];
	int nr_vcpus;
	uint64_t vcpu_busy_ns[1024];
	uint64_t vcpu_idle_ns[1024];
	uint64_t sim_switches;
	uint64_t sim_preemptions; /* tick preemptions (sim.h: fl_sim_preempt()) */
};

/* the version of this build: "<release> (<what the model follows>)" */
#define FOLIOLAB_VERSION "0.4.0"
FL_API const char *fl_version(void);

/* counters: set adds or replaces; set_scoped also says where the value came from */
FL_API int fl_counters_set(struct fl_counters *c, const char *name, int64_t value);
FL_API int fl_counters_set_scoped(struct fl_counters *c, const char *name, int64_t value,
				  int scope);
FL_API const struct fl_counter *fl_counters_find(const struct fl_counters *c, const char *name);
FL_API int64_t fl_counters_get(const struct fl_counters *c, const char *name);
FL_API void fl_counters_free(struct fl_counters *c);
/*
 * fl_counters_reserve() - room for @n counters in @c, its memory written
 * now (so a host run's own heap does not grow, and count as the
 * workload's anon pages, while it records). Return: 0 or -ENOMEM.
 */
FL_API int fl_counters_reserve(struct fl_counters *c, int n);
FL_API int fl_locks_add(struct fl_locks *l, const struct fl_lock_stat_row *row);
FL_API const struct fl_lock_stat_row *fl_locks_find(const struct fl_locks *l, const char *cls,
						    const char *site);
FL_API void fl_locks_free(struct fl_locks *l);

/* knobs: set @name to @value, replacing an earlier value; -ENOSPC when full */
FL_API int fl_knobs_set(struct fl_knobs *k, const char *name, const char *value);

/*
 * The knob table: each knob beside the transparent_hugepage/ tree (the
 * kernel's sysfs, per size), declared once as the kernel's sysctl tables
 * declare theirs. The vm sysctls both targets set ("vm/swappiness", the
 * host's /proc/sys/vm/swappiness) and the model's own policies and test
 * hooks ("foliolab/split_walk"). Setting, reading, the command line's
 * options and `foliolab help knobs` come from it.
 */
enum fl_knob_type {
	FL_KNOB_WORDS,	/* one of @words */
	FL_KNOB_NUMBER, /* a whole number @lo..@hi */
	FL_KNOB_ORDERS, /* a list of page orders 0..@hi, or none */
};
#define FL_KNOB_HOST 1u /* the host has it too: /proc/sys/<name> */
#define FL_KNOB_LIST 2u /* compare takes a list of its values, a configuration each */
#define FL_KNOB_HOOK 4u /* a test hook: not in a run's record */

struct fl_knob_info {
	const char *name;   /* "vm/swappiness", "foliolab/split_walk" */
	const char *option; /* the option that sets it ("--split-walk"), or NULL: --knob only */
	enum fl_knob_type type;
	const char *const *words; /* FL_KNOB_WORDS: NULL-terminated */
	unsigned long lo, hi;
	const char *note;   /* what the values mean, or NULL */
	const char *dflt;   /* the value after boot, or NULL (computed at boot, or the policy's) */
	const char *group;  /* the heading it goes under in help */
	const char *help;   /* what it does, one sentence */
	unsigned int flags; /* FL_KNOB_* */
};

/* fl_knob_info_at() - the table's @i-th knob, NULL past the last. */
FL_API const struct fl_knob_info *fl_knob_info_at(size_t i);
/* fl_knob_find() - the knob named @name; NULL if none. */
FL_API const struct fl_knob_info *fl_knob_find(const char *name);
/* fl_knob_option() - the knob the command-line option @option ("--split-walk") sets; NULL if none. */
FL_API const struct fl_knob_info *fl_knob_option(const char *option);
/*
 * fl_knob_check() - whether @value is one @k accepts. Return: 0, or
 * -EINVAL with "'VALUE' is not ..., what is accepted" in @err.
 */
FL_API int fl_knob_check(const struct fl_knob_info *k, const char *value, char *err, size_t len);
/* fl_knob_accepted() - what @k accepts, in words. Return: 0 or -ENOSPC (cut short). */
FL_API int fl_knob_accepted(const struct fl_knob_info *k, char *buf, size_t len);
/* fl_knob_names() - the names of the knobs with every flag of @flags, ", " between. */
FL_API int fl_knob_names(unsigned int flags, char *buf, size_t len);

/*
 * fl_costs_check() - whether @path is a cost file the virtual-CPU
 * platform can use (every cost given once, in ns). Return: 0 or -errno,
 * the reason in @err.
 */
FL_API int fl_costs_check(const char *path, char *err, size_t len);

/* Plots (gnuplot): panels side by side, each with lines or measured points. */
#define FL_PLOT_POINTS 64
struct fl_plot_series {
	char name[96];
	int n;
	double x[FL_PLOT_POINTS], y[FL_PLOT_POINTS];
	bool points; /* measured: points only, no line */
};
struct fl_plot_panel {
	const char *title, *xlabel, *ylabel;
	struct fl_plot_series *s;
	int ns;
	bool logx;
};
/* fl_plot_available() - whether gnuplot is on $PATH. */
FL_API bool fl_plot_available(void);
/* fl_plot_svg() - @np panels as one SVG to @out. Return: 0 or -errno with the reason in @err. */
FL_API int fl_plot_svg(FILE *out, const struct fl_plot_panel *p, int np, const char *title,
		       char *err, size_t len);

/**
 * fl_validate_bundle() - every host record in folder @dir (and @dir/records)
 * against the same run on sim with cost file @costs (NULL: built in), a
 * table to @out; *@outside counts the judged figures outside their bounds;
 * with @plot, the scaling and the contended shares drawn as SVG to it.
 * Return: 0; -EINVAL (bad input: no records, not JSON, a bad cost file),
 * with the reason in @err, before any sim run; another -errno if a sim run
 * failed.
 */
FL_API int fl_validate_bundle(const char *dir, const char *costs, FILE *out, int *outside,
			      FILE *plot, char *err, size_t len);

/*
 * fl_calibrate() - measure this machine's kernel and CPU (probes, the
 * bandwidth curve, host runs with their phase times, perf record's
 * shares), write what it measured to @measured_out (NULL: not kept; the
 * input of fl_calibrate_fit()), fit the costs on sim and write the cost
 * file to @out (@out_name in the log), with @command in its provenance;
 * the steps and the final check (the sim against the host at 1 and 2
 * threads, 4K and 16K) go to @log, and *@check_failed says how many
 * check rows are outside 15%. Its temporaries live in a private folder
 * under $TMPDIR (or /tmp), removed on every exit path. Needs root (the
 * host target). Return: 0 or -errno, the reason in @err.
 */
/* fl_calibrate_check() - what fl_calibrate() needs (root, the knobs, no killed run's changes) */
FL_API int fl_calibrate_check(char *err, size_t len);
FL_API int fl_calibrate(FILE *out, const char *out_name, const char *command, FILE *measured_out,
			FILE *log, int *check_failed, char *err, size_t len);
/*
 * fl_calibrate_fit() - the cost file of measurements made elsewhere: @src
 * is a bundle folder (its calibrate.measured, or an older bundle's
 * calibrate.log and 1-thread records) or a measurements file. The same
 * fit as fl_calibrate()'s, on sim only, so the same @src always gives the
 * same file; @command goes in a comment; the measurements it read go to
 * @measured_out in calibrate.measured's form (NULL: not). Check @src first with
 * fl_calibrate_fit_check() (-EINVAL, the reason in @err, for bad input).
 */
FL_API int fl_calibrate_fit_check(const char *src, char *err, size_t len);
FL_API int fl_calibrate_fit(const char *src, FILE *out, const char *out_name, const char *command,
			    FILE *measured_out, FILE *log, int *check_failed, char *err,
			    size_t len);
/*
 * fl_calibrate_collect() - a calibration bundle of this machine in new
 * folder @dir (collect.c says what is in it); progress to @log. Check
 * @dir first with fl_calibrate_collect_check() (and fl_calibrate_check()).
 * Return: 0 or -errno with the reason in @err.
 */
FL_API int fl_calibrate_collect(const char *dir, const char *command, FILE *log, int *check_failed,
				char *err, size_t len);
FL_API int fl_calibrate_collect_check(const char *dir, char *err, size_t len);

/*
 * Output files (--json, calibrate --out; src/record/outfile.c): decided
 * before any work and written whole. fl_outfile_open() takes "-" (standard
 * output), a character device or FIFO or a link to one (written through),
 * or a regular file or new name (replaced whole: a temporary in its own
 * folder is made at once and renamed over it by fl_outfile_commit());
 * anything else is refused with one line naming @opt. Return: 0 or -EINVAL.
 */
struct fl_outfile {
	int kind; /* 0: nothing to write */
	int fd;
	FILE *f;
	char path[4096]; /* what is written or replaced */
	char tmp[4096];	 /* the temporary of a replaced file */
};
FL_API int fl_outfile_open(struct fl_outfile *o, const char *opt, const char *path, char *err,
			   size_t len);
/* the stream to write to (a stream opened now, for one written through); NULL: see errno */
FL_API FILE *fl_outfile_stream(struct fl_outfile *o);
/* finish: flush, and rename a replaced file's temporary into place. Return: 0 or -errno. */
FL_API int fl_outfile_commit(struct fl_outfile *o, char *err, size_t len);
/* give up: the temporary is removed, nothing is written */
FL_API void fl_outfile_abort(struct fl_outfile *o);

/* config helpers */
FL_API void fl_config_init(struct fl_config *cfg, const char *workload);
FL_API int fl_config_set_knob(struct fl_config *cfg, const char *name, const char *value);
FL_API int fl_config_set_param(struct fl_config *cfg, const char *name, const char *value);
FL_API const char *fl_config_param(const struct fl_config *cfg, const char *name);

/* workloads */
/* What a workload parameter takes, and where its value goes. */
enum fl_param_kind {
	FL_PARAM_INT,	 /* a whole number @lo..@hi, into a long */
	FL_PARAM_DOUBLE, /* a number @lo..@hi, into a double */
	FL_PARAM_SIZE,	 /* a size @lo..@hi bytes, a multiple of @align, into a uint64_t */
	FL_PARAM_CHOICE, /* one of @choices, its index into an int */
};

/*
 * A workload parameter, declared once: `foliolab list` prints it, the
 * workload's parser reads it (fl__params_parse()) and refuses what it
 * does not accept, all from here.
 */
struct fl_workload_param_info {
	const char *name;
	const char *def;
	const char *help; /* what it is; what it accepts is added from the fields below */
	enum fl_param_kind kind;
	double lo, hi;
	uint64_t align;
	const char *const *choices; /* NULL-terminated */
	size_t offset;		    /* of its field in the workload's parameters */
};

/* fl_workload_param_accepted() - what @pi accepts, in words: "1..1024", "4K..64G, a multiple of 4K" */
FL_API void fl_workload_param_accepted(const struct fl_workload_param_info *pi, char *buf,
				       size_t len);

struct fl_workload_info {
	const char *name;
	const char *summary;
	const struct fl_workload_param_info *params; /* NULL-name terminated */
	/*
	 * "NAME=VALUE" knobs the workload runs with unless the command line
	 * sets them (the set-up of the experiment it reproduces); NULL
	 * terminated, or NULL for none. A model knob (foliolab/...) is the
	 * model columns' only.
	 */
	const char *const *knobs;
};

FL_API int fl_workload_count(void);
FL_API const struct fl_workload_info *fl_workload_get(int i);
FL_API const struct fl_workload_info *fl_workload_find(const char *name);

/**
 * fl_validate() - check a configuration without running it.
 * Return: 0, or -EINVAL with a one-line message in @err.
 */
FL_API int fl_validate(const struct fl_config *cfg, char *err, size_t errlen);

/**
 * fl_run() - run @cfg and fill @res.
 * Return: 0 when the run completed (res->status says whether it passed its
 * checks), -EINVAL for bad input (message in @err), other -errno when the
 * target could not be started.
 */
FL_API int fl_run(const struct fl_config *cfg, struct fl_result *res, char *err, size_t errlen);
FL_API void fl_result_free(struct fl_result *res);
FL_API const char *fl_result_param(const struct fl_result *res, const char *name);
FL_API const struct fl_metric *fl_result_metric(const struct fl_result *res, const char *name);

/*
 * Where a sim run's virtual CPU time went, in self terms: each named cost
 * (the counters fl_time_NAME), the spinning on spinlocks (their sites'
 * waits), what else kept a CPU busy, and idle; the rows add up to
 * *@cpu_ns, all CPUs' time over the run. A lock site's own share (its
 * wait and hold) is in the lock table.
 */
struct fl_time_row {
	char name[FL_NAME_MAX];
	double ns;
};
#define FL_TIME_SPIN "spinning on locks"
#define FL_TIME_OTHER "other busy"
#define FL_TIME_IDLE "idle"
/**
 * fl_time_breakdown() - @res's time rows into @rows (at most @max),
 * largest first.
 * Return: how many, 0 for a run not on sim.
 */
FL_API int fl_time_breakdown(const struct fl_result *res, struct fl_time_row *rows, int max,
			     double *cpu_ns);

/* the host target */
/**
 * fl_host_restore() - put back the host knobs of every foliolab host run
 * that was killed before it could (its restore file), reporting each knob
 * on @out; runs still going are left alone.
 * Return: 0, or -EIO when a knob could not be written (message in @err).
 */
FL_API int fl_host_restore(FILE *out, char *err, size_t len);
/** fl_host_knobs() - the host's THP knobs and their values now. */
FL_API int fl_host_knobs(struct fl_knobs *out);

/* the agreement gate: model against host */
struct fl_tolerance {
	double pct;   /* of the larger value, in percent (default 0.5) */
	int64_t min;  /* at least this much (default 64) */
	double noise; /* plus this many times the host's idle noise (default 3) */
};

struct fl_agree_row {
	char name[FL_NAME_MAX];
	int64_t model, host;
	/*
	 * what the model counted that the host's scoped count cannot see
	 * (pgfree: frees after an RCU grace period or with preemption off);
	 * @model is the model's counter less this
	 */
	int64_t model_unseen;
	int64_t noise;	 /* the host's, over its idle interval, scaled to the run */
	int64_t allowed; /* the difference the tolerance allows this row */
	int scope;	 /* the host value's enum fl_counter_scope */
	bool differs;
	bool held; /* counted for the run alone: --check holds it (system-wide: reported) */
};

struct fl_agreement {
	int model, host; /* the two results compared */
	struct fl_tolerance tol;
	struct fl_agree_row *v;
	int nr, cap;
	int nr_differs;	       /* held rows that differ: what --check fails on */
	int nr_differs_system; /* system-wide rows that differ: reported only */
};

FL_API void fl_tolerance_default(struct fl_tolerance *t);
/* a counter the gate compares: deterministic, and the host has it */
FL_API bool fl_counter_checked(const char *name);
/* same value of every knob of @a whose name starts with @prefix and contains @part */
FL_API bool fl_result_same_knobs(const struct fl_result *a, const struct fl_result *b,
				 const char *prefix, const char *part);
/** fl_result_model_partner() - the model result of @r to hold host result @host against: same sizes, order0 preferred; -1 if none. */
FL_API int fl_result_model_partner(const struct fl_result *r, int nr, int host);
/**
 * fl_agreement_check() - compare host result @host with its model partner
 * counter by counter.
 * Return: 0, -ENOENT (no model partner), -ENOMEM.
 */
FL_API int fl_agreement_check(const struct fl_result *r, int nr, int host,
			      const struct fl_tolerance *tol, struct fl_agreement *out);
FL_API const struct fl_agree_row *fl_agreement_find(const struct fl_agreement *a, const char *name);
FL_API void fl_agreement_free(struct fl_agreement *a);

/* output */
FL_API int fl_result_write_json(FILE *f, const struct fl_result *res, int nr);
/* ... with each host result's agreement with its model partner under @tol */
FL_API int fl_results_write_json(FILE *f, const struct fl_result *res, int nr,
				 const struct fl_tolerance *tol);

/* sizes: "16M", "4G", "2048K", "4096" (bytes) */
FL_API int fl_parse_size(const char *s, uint64_t *out);
FL_API void fl_format_size(uint64_t bytes, char *buf, size_t len);

#endif /* FOLIOLAB_FOLIOLAB_H */
