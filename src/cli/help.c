// SPDX-License-Identifier: GPL-2.0-only
/*
 * help.c - --help texts; docs/foliolab-*.md say the same at length.
 *
 * Conventions in this file: one function per subcommand.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

void help_main(FILE *f)
{
	fputs("usage: foliolab <command> [arguments]\n"
	      "\n"
	      "A userspace model of the Linux kernel's large-folio memory management.\n"
	      "\n"
	      "commands:\n"
	      "  list                     the workloads and their options\n"
	      "  run WORKLOAD [options]   run one configuration and report it\n"
	      "  compare WORKLOAD [opts]  run several configurations side by side\n"
	      "  host restore             undo what a killed host run left changed (knobs,\n"
	      "                           the tracefs mount, its memory cgroup)\n"
	      "  calibrate [--out FILE | --collect DIR | --fit SRC]  measure this machine's "
	      "kernel:\n"
	      "                           the cost file of --platform sim, or a bundle\n"
	      "                           for validate (root)\n"
	      "  validate DIR [--costs FILE] [--check] [--plot FILE.svg]  host records\n"
	      "                           against sim: times, scaling, lock contention\n"
	      "  help [run|compare|list|host|calibrate|validate|knobs]  this text, a\n"
	      "                           command's, or every knob's\n"
	      "\n"
	      "Each command takes --help; --version prints the version.\n"
	      "Exit status: 0 ok, 1 a run failed (or, with compare --check, a counter\n"
	      "differed from the host's), 2 bad input.\n",
	      f);
}

void help_list(FILE *f)
{
	fputs("usage: foliolab list\n"
	      "\n"
	      "Print every workload with its options and their defaults.\n",
	      f);
}

void help_host(FILE *f)
{
	fputs("usage: foliolab host restore\n"
	      "\n"
	      "A host run records every change it is about to make (a knob's old value,\n"
	      "a tracefs mount, the memory cgroup it runs in) in a restore file before\n"
	      "making it, and undoes them when it ends, fails or gets SIGINT, SIGTERM\n"
	      "or a crash signal. Only SIGKILL leaves the file behind: `foliolab host\n"
	      "restore` undoes every such file (in $FOLIOLAB_RUNDIR, else /run/foliolab\n"
	      "for root) and removes it. Runs still going are left alone.\n",
	      f);
}

void help_calibrate(FILE *f)
{
	fputs("usage: foliolab calibrate [--out FILE] [--measured FILE]\n"
	      "       foliolab calibrate --collect DIR\n"
	      "       foliolab calibrate --fit DIR|FILE [--out FILE] [--measured FILE]\n"
	      "\n"
	      "Measure what each operation of the model costs on this machine's kernel\n"
	      "and write the cost file --platform sim charges from (--costs FILE; the\n"
	      "built-in one is costs/intel16-kvm.costs, one such calibration). The costs come\n"
	      "from probes on this CPU (system call, 4 KiB zero and copy, lock, cache-line\n"
	      "move, a list's line, the clearing bandwidth in memory and in the LLC),\n"
	      "perf record over the host's lru-microbench (allocator, buddy, free, LRU\n"
	      "and lock shares) and the host's phase times against the sim's (fault,\n"
	      "set_pte, zap_pte, TLB flush, IPI, split, collapse). It ends with a check:\n"
	      "the sim with the new costs against the host on lru-microbench and\n"
	      "page-fault1 at 1 and 2 threads, 4K and 16K, each row within 15% or marked\n"
	      "OUTSIDE.\n"
	      "Runs on the host (root; knobs restored as for any host run), about two\n"
	      "minutes. --out: default foliolab.costs, taken as --json takes its FILE;\n"
	      "temporaries go in a private folder under $TMPDIR (or /tmp). Exit status:\n"
	      "0, 1 if a run failed or a check row is outside 15% (the file is still\n"
	      "written), 2 bad input (decided before the first measurement).\n"
	      "--collect DIR (a new folder): a calibration bundle of this machine for\n"
	      "`foliolab validate DIR`: the calibration (DIR/calibrate.costs and its\n"
	      "log), machine.txt, host runs of lru-microbench at 1, 2, 4 .. all CPUs,\n"
	      "4K and 16K, 100 loops of 16M (DIR/records), perf lock's table at all\n"
	      "CPUs where perf works, DIR/calibrate.measured and manifest.txt.\n"
	      "--measured FILE: also write what was measured (the fit's input).\n"
	      "--fit DIR|FILE: fit the cost file from measurements made elsewhere (a\n"
	      "bundle, or a --measured file), on sim only: no root, about a second,\n"
	      "the same input always gives the same file.\n",
	      f);
}

void help_validate(FILE *f)
{
	fputs("usage: foliolab validate DIR [--costs FILE] [--check] [--plot FILE.svg]\n"
	      "\n"
	      "Read every host record in DIR (*.json written by --json, in DIR and in\n"
	      "DIR/records: a calibration bundle) and run the same workload on sim\n"
	      "(virtual CPUs, as many as the recorded machine had, the kernel's LRU rule\n"
	      "order0) with the cost file --costs (default: the built-in one). Prints\n"
	      "each configuration's measured and predicted time, its scaling against\n"
	      "the 1-thread record (time at T threads / time at 1) on both, and for each\n"
	      "perf lock table the contended share (contended / the sim's acquisitions\n"
	      "at the site) and average wait on both. Judged: scaling within 20%,\n"
	      "contended share within 0.15, average wait within a factor of 2; a summary\n"
	      "line counts the figures within bounds. --plot draws the scaling (measured\n"
	      "points, predicted lines) and the contended shares (predicted against\n"
	      "measured) with gnuplot. Exit status: 0, 1 with --check when\n"
	      "a figure is outside its bound (or a sim run failed), 2 bad input (DIR\n"
	      "unreadable or without host records, a record that is not JSON, a bad\n"
	      "cost file), decided before the first sim run.\n",
	      f);
}

/* @text wrapped before column 79, its lines from column @col; the first goes on from @at */
static void wrap(FILE *f, const char *text, int at, int col)
{
	const char *w = text;

	while (*w) {
		size_t n = strcspn(w, " ");

		if (at > col && at + 1 + (int)n > 78) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)n, w);
		at += (int)n;
		w += n;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

/* "  --split-walk forward|reverse": what a knob's option takes */
static int knob_usage(FILE *f, const struct fl_knob_info *k)
{
	int n = fprintf(f, "  %s ", k->option), i;

	if (k->type == FL_KNOB_WORDS)
		for (i = 0; k->words[i]; i++)
			n += fprintf(f, "%s%s", i ? "|" : "", k->words[i]);
	else
		n += fprintf(f, k->type == FL_KNOB_NUMBER ? "N" : "ORDER,...");
	return n;
}

/* what @k does, accepts and starts as, one text */
static void knob_text(const struct fl_knob_info *k, char *buf, size_t len)
{
	char acc[400];

	fl_knob_accepted(k, acc, sizeof(acc));
	snprintf(buf, len, "%s%s. Accepted: %s.%s%s%s", k->help,
		 k->flags & FL_KNOB_LIST ? "; compare takes a list of two" : "", acc,
		 k->dflt ? " Default: " : "", k->dflt ? k->dflt : "", k->dflt ? "." : "");
}

/* @k is the first of its group in the table (among those with an option, if @options) */
static bool first_of_group(size_t i, bool options)
{
	const struct fl_knob_info *k = fl_knob_info_at(i), *j;
	size_t n;

	for (n = 0; n < i; n++) {
		j = fl_knob_info_at(n);
		if ((!options || j->option) && !strcmp(j->group, k->group))
			return false;
	}
	return true;
}

/*
 * The knobs under their groups' headings, from the knob table, each group
 * where its first knob is: those an option sets (@options: usage, then
 * what it does), or all of them (the name, its option, then the text).
 */
static void knob_groups(FILE *f, bool options)
{
	const struct fl_knob_info *g, *k;
	char text[1200];
	size_t i, j;

	for (i = 0; (g = fl_knob_info_at(i)); i++) {
		if ((options && !g->option) || !first_of_group(i, options))
			continue;
		fprintf(f, "%s%s:\n", options ? "" : "\n", g->group);
		for (j = i; (k = fl_knob_info_at(j)); j++) {
			int at;

			if ((options && !k->option) || strcmp(k->group, g->group))
				continue;
			knob_text(k, text, sizeof(text));
			if (!options) {
				fprintf(f, "  %s%s%s%s\n      ", k->name, k->option ? " (" : "",
					k->option ? k->option : "", k->option ? ")" : "");
				wrap(f, text, 6, 6);
				continue;
			}
			at = knob_usage(f, k);
			if (at > 28) {
				fputc('\n', f);
				at = 0;
			}
			fprintf(f, "%*s", 29 - at, "");
			wrap(f, text, 29, 29);
		}
	}
}

void help_knobs(FILE *f)
{
	fputs("usage: foliolab run|compare WORKLOAD --knob NAME=VALUE ... (or the option named)\n"
	      "\n"
	      "transparent_hugepage/...: the kernel's sysfs names and values, on both\n"
	      "targets: enabled, defrag, use_zero_page, shrink_underused, shmem_enabled,\n"
	      "khugepaged/<name>, hugepages-<N>kB/enabled and hugepages-<N>kB/shmem_enabled\n"
	      "per size (16kB..2048kB).\n"
	      "\n"
	      "The others, from the model's knob table: vm/ sysctls are set on the host too\n"
	      "(/proc/sys/vm); foliolab/ knobs are the model's own and refused on the host.\n",
	      f);
	knob_groups(f, false);
}

void help_run(FILE *f, bool compare)
{
	if (compare)
		fputs("usage: foliolab compare WORKLOAD [options]\n"
		      "\n"
		      "Run WORKLOAD once per configuration and print one table: a column per\n"
		      "configuration and ratio columns. The configurations are every\n"
		      "combination of the lists given to --cpus, --mthp, --target, --lru-cache\n"
		      "and --split-walk:\n"
		      "  --cpus 1,20,80,320                  one per CPU count (as many threads,\n"
		      "                                      unless --threads): a scaling table\n"
		      "  --mthp 4K,16K,64K                   one per size (that size always,\n"
		      "                                      every other never; 4K = none)\n"
		      "  --target=model,host                 the model and the host kernel\n"
		      "  --lru-cache=order0,max16,pages31    one per policy (model only: the\n"
		      "                                      host runs once per size)\n"
		      "Ratio columns: each column against the first of its target with the\n"
		      "same sizes (a policy ratio) and the first with the same policy (a\n"
		      "size ratio); a host column also against the model column of its\n"
		      "sizes (order0 where there is one: the rule of kernels before the\n"
		      "seeds). Host columns come with an idle column: the background noise.\n"
		      "With model and host, a check column marks each counter a workload's\n"
		      "rule fixes: ok or DIFFERS (further apart than noise x 3 + the\n"
		      "tolerance); \"differs sys\": a system-wide host value, reported and\n"
		      "never held (make conformance holds those, with re-runs).\n"
		      "  --check                    exit 1 when a held row DIFFERS\n"
		      "  --tolerance PCT            percent of the larger value allowed (0.5)\n"
		      "  --tolerance-min N          but at least N (64)\n"
		      "  --plot FILE.svg            with a --cpus list: the scaling drawn by\n"
		      "                             gnuplot (throughput and the lruvec lock's\n"
		      "                             wait share against CPUs, a line per\n"
		      "                             configuration); FILE taken as --json's\n",
		      f);
	else
		fputs("usage: foliolab run WORKLOAD [options]\n"
		      "\n"
		      "Run WORKLOAD once and report the time, the counters that changed\n"
		      "(/proc/vmstat names), the mTHP stats per size and the lock table in\n"
		      "perf lock's columns.\n",
		      f);
	fputs("\n"
	      "machine:\n"
	      "  --mem SIZE                 simulated memory (default: sized for the workload)\n"
	      "  --swap zram:SIZE|none      swap on a zram disk of SIZE (both targets; the host's\n"
	      "                             /dev/zram0 is set up and reset after; default none)\n"
	      "  --memcg-max SIZE           run in a memory cgroup with memory.max SIZE (both\n"
	      "                             targets; default: no limit)\n"
	      "  --memcg-high SIZE          ... and memory.high SIZE (default: none)\n"
	      "  --nodes N                  NUMA nodes, 1..8 (default 1)\n"
	      "  --cpus N                   model CPUs, 1..1024 (default: one per thread)\n"
	      "  --target model|host        the model (default) or the host kernel: real\n"
	      "                             system calls, /proc/vmstat, sysfs knobs\n"
	      "  --locked-atomics           native: keep the LOCK prefix with one task (as\n"
	      "                             a multi-CPU machine runs it; default: dropped)\n"
	      "  --pin-cpus                 native: pin each model CPU's thread to a host CPU\n"
	      "  --platform sim|native      model CPUs as virtual CPUs in virtual time on\n"
	      "                             one host thread (default; deterministic) or\n"
	      "                             as host threads (real concurrency)\n"
	      "  --seed N                   sim: the seed of the tie-break stream (0)\n"
	      "  --costs FILE               sim: the cost file (default: the built-in\n"
	      "                             calibration, costs/intel16-kvm.costs)\n"
	      "host target:\n"
	      "  --locks                    record lock contention with perf lock (root)\n"
	      "  --no-knobs                 change no host knob; run with the host's settings\n"
	      "  (--mem, --nodes, --cpus, --locked-atomics, --pin-cpus and the LRU-cache\n"
	      "  policies are the model's)\n",
	      f);
	fputs("THP and mTHP (sysfs names and defaults of the host kernel):\n"
	      "  --thp-enabled always|madvise|never     transparent_hugepage/enabled (madvise)\n"
	      "  --mthp 16K=always,64K=never            hugepages-<N>kB/enabled, per size\n"
	      "  --mthp 16K                             16K always, every other size never\n"
	      "  --knob NAME=VALUE                      any knob, e.g.\n"
	      "                                         transparent_hugepage/use_zero_page=0\n"
	      "                                         or vm/swappiness=100 (foliolab help\n"
	      "                                         knobs lists them all)\n",
	      f);
	knob_groups(f, true);
	fputs("output:\n"
	      "  --json FILE                the result record(s) as JSON: a regular file\n"
	      "                             or new name written whole (a temporary made\n"
	      "                             in its folder before the run), or -, a device\n"
	      "                             or a FIFO written through\n"
	      "workload options: see `foliolab list`, e.g. --threads 2 --loops 100 --size 16M\n"
	      "  --access read|write --advice dontneed|free|cold (lru-microbench)\n",
	      f);
}
