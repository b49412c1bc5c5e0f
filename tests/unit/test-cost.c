// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-cost.c - the cost file (src/platform/cost.c): every cost given
 * once in ns, read to picoseconds; a missing, unknown, repeated or bad
 * value refused with the line and the reason; provenance kept; what
 * fl_costs_write() writes reads back the same, "estimated" marks too; the
 * built-in default is a calibration (it has provenance and loads) with no
 * cost at 0 that is not marked estimated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include <foliolab/foliolab.h>
#include "../src/platform/cost.h"

static struct fl_bw_curve bw;

/* A complete file: cost i is i + 0.25 ns, so each differs and the fraction survives. */
static void full_text(char *buf, size_t len, int skip, const char *extra)
{
	size_t n = (size_t)snprintf(buf, len,
				    "# a comment\nprovenance.kernel 6.18.44\n"
				    "provenance.cpu Some CPU 3000\n");
	int i;

	for (i = 0; i < FL_NR_COSTS; i++)
		if (i != skip)
			n += (size_t)snprintf(buf + n, len - n, "cost.%s %d.25\n",
					      fl__cost_info[i].name, i);
	snprintf(buf + n, len - n, "%s", extra ? extra : "");
}

static bool test_parse_full(void)
{
	char text[4096], err[200];
	uint64_t ps[FL_NR_COSTS];
	struct fl_cost_prov prov;
	int i;

	full_text(text, sizeof(text), -1, "  \n\t# indented comment\n");
	ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)), 0);
	for (i = 0; i < FL_NR_COSTS; i++)
		ASSERT_EQ(ps[i], (uint64_t)i * 1000 + 250);
	ASSERT_EQ(bw.mem.n + bw.llc.n, 0); /* none given: unlimited */
	ASSERT_TRUE(!strcmp(prov.kernel, "6.18.44"));
	full_text(text, sizeof(text), -1, "bandwidth.1 34\nbandwidth.2 56.5\nbandwidth.16 466\n");
	ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)), 0);
	ASSERT_EQ(bw.mem.n, 3);
	ASSERT_EQ(bw.mem.cpus[0], 1);
	ASSERT_EQ(bw.mem.cpus[2], 16);
	ASSERT_EQ(bw.mem.ps[1], 56500ull);
	ASSERT_EQ(bw.llc.n, 0);
	ASSERT_TRUE(!bw.mem.estimated && !prov.bw_estimated);
	/* the LLC's curve and size apart; "estimated" on a point marks its curve */
	full_text(text, sizeof(text), -1,
		  "bandwidth.1 300 estimated\nbandwidth.llc.1 100\nbandwidth.llc.4 120\n"
		  "llc.bytes 314572800\n");
	ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)), 0);
	ASSERT_EQ(bw.mem.n, 1);
	ASSERT_EQ(bw.mem.ps[0], 300000ull);
	ASSERT_TRUE(bw.mem.estimated && !bw.llc.estimated && prov.bw_estimated);
	ASSERT_EQ(bw.llc.n, 2);
	ASSERT_EQ(bw.llc.cpus[1], 4);
	ASSERT_EQ(bw.llc.ps[1], 120000ull);
	ASSERT_EQ(bw.llc_bytes, 314572800ull);
	ASSERT_TRUE(!strcmp(prov.cpu, "Some CPU 3000")); /* the value runs to the line's end */
	/* a cost added after the first files may be absent (0); the others may not */
	for (i = 0; i < FL_NR_COSTS; i++) {
		full_text(text, sizeof(text), i, NULL);
		ps[i] = 1;
		ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)),
			  fl__cost_info[i].optional ? 0 : -EINVAL);
		if (fl__cost_info[i].optional)
			ASSERT_EQ(ps[i], 0ull);
	}
	ASSERT_TRUE(fl__cost_info[FL_COST_SPLIT_FOLIO].optional);
	/* "estimated" after a value marks a cost the machine did not measure */
	full_text(text, sizeof(text), FL_COST_XA_NODE_HOT, "cost.xa_node_hot 7.5 estimated\n");
	ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)), 0);
	ASSERT_EQ(ps[FL_COST_XA_NODE_HOT], 7500ull);
	for (i = 0; i < FL_NR_COSTS; i++)
		ASSERT_EQ(prov.estimated[i], i == FL_COST_XA_NODE_HOT);
	return true;
}

static bool refused(const char *text, const char *why)
{
	char err[200];
	uint64_t ps[FL_NR_COSTS];
	struct fl_cost_prov prov;

	ASSERT_EQ(fl_costs_parse(text, ps, &prov, &bw, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		printf("# '%s' lacks '%s'\n", err, why);
	ASSERT_TRUE(strstr(err, why) != NULL);
	return true;
}

static bool test_bad_files(void)
{
	char text[4096], want[32];

	full_text(text, sizeof(text), FL_COST_IPI, NULL);
	ASSERT_TRUE(refused(text, "cost.ipi is missing"));
	full_text(text, sizeof(text), -1, "cost.fault 2\n");
	ASSERT_TRUE(refused(text, "cost.fault given twice"));
	full_text(text, sizeof(text), -1, "cost.warp 2\n");
	ASSERT_TRUE(refused(text, "unknown cost cost.warp"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock -1\n");
	ASSERT_TRUE(refused(text, "cost.lock \"-1\": give nanoseconds"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock fast\n");
	ASSERT_TRUE(refused(text, "give nanoseconds"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock 2e9\n");
	ASSERT_TRUE(refused(text, "from 0 to 1e9"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock\n");
	ASSERT_TRUE(refused(text, "give nanoseconds"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock 3 estimatd\n");
	ASSERT_TRUE(refused(text, "and the word estimated after it"));
	full_text(text, sizeof(text), FL_COST_LOCK, "cost.lock estimated\n");
	ASSERT_TRUE(refused(text, "give nanoseconds"));
	full_text(text, sizeof(text), -1, "speed 3\n");
	ASSERT_TRUE(refused(
		text,
		"accepted cost.NAME, bandwidth.N, bandwidth.llc.N, llc.bytes, tlb.4k, tlb.2m, "
		"clock.mhz, provenance.KEY or # comments"));
	/* the clock: MHz from 1 to 100000, then estimated where not measured */
	full_text(text, sizeof(text), -1, "clock.mhz 0\n");
	ASSERT_TRUE(refused(text, "clock.mhz \"0\": accepted MHZ (1..100000)"));
	full_text(text, sizeof(text), -1, "clock.mhz fast\n");
	ASSERT_TRUE(refused(text, "accepted MHZ"));
	full_text(text, sizeof(text), -1, "clock.mhz 2100 roughly\n");
	ASSERT_TRUE(refused(text, "then estimated where not measured"));
	/* a bandwidth curve starts at 1 CPU, goes up, and gives ns > 0 */
	full_text(text, sizeof(text), -1, "bandwidth.2 50\n");
	ASSERT_TRUE(refused(text, "ascending from 1"));
	full_text(text, sizeof(text), -1, "bandwidth.1 34\nbandwidth.4 70\nbandwidth.2 50\n");
	ASSERT_TRUE(refused(text, "bandwidth.2: accepted bandwidth.N with N CPUs ascending"));
	full_text(text, sizeof(text), -1, "bandwidth.llc.1 34\nbandwidth.llc.1 50\n");
	ASSERT_TRUE(refused(text, "bandwidth.llc.1: accepted bandwidth.llc.N with N CPUs"));
	full_text(text, sizeof(text), -1, "bandwidth.1 34 guessed\n");
	ASSERT_TRUE(refused(text, "accepted a number of ns > 0"));
	full_text(text, sizeof(text), -1, "llc.bytes 0\n");
	ASSERT_TRUE(refused(text, "llc.bytes \"0\": accepted the last-level cache's size"));
	full_text(text, sizeof(text), -1, "llc.bytes 30M\n");
	ASSERT_TRUE(refused(text, "in bytes, 1 to 2^40"));
	full_text(text, sizeof(text), -1, "bandwidth.1 34\nbandwidth.x 50\n");
	ASSERT_TRUE(refused(text, "bandwidth.x"));
	full_text(text, sizeof(text), -1, "bandwidth.1 0\n");
	ASSERT_TRUE(refused(text, "accepted a number of ns > 0"));
	full_text(text, sizeof(text), -1, "bandwidth.1 34\nbandwidth.2025 50\n");
	ASSERT_TRUE(refused(text, "to 1024"));
	/* the line number of the fault: the header's 3 lines, every cost, then it */
	full_text(text, sizeof(text), -1, "speed 3\n");
	snprintf(want, sizeof(want), "line %d:", 3 + FL_NR_COSTS + 1);
	ASSERT_TRUE(refused(text, want));
	return true;
}

static bool test_write_reads_back(void)
{
	char path[] = "/tmp/test-cost-XXXXXX", err[200];
	uint64_t ps[FL_NR_COSTS], back[FL_NR_COSTS];
	struct fl_cost_prov prov = { .kernel = "k", .cpu = "c", .date = "d", .command = "x y" },
			    got;
	struct fl_bw_curve curve = {
		.mem = { .n = 2, .cpus = { 1, 7 }, .ps = { 34000, 123456 } },
		.llc = { .n = 1, .cpus = { 1 }, .ps = { 9000 }, .estimated = true },
		.llc_bytes = 1 << 20
	};
	FILE *f;
	char text[8192];
	size_t n;
	int fd = mkstemp(path), i;

	ASSERT_TRUE(fd >= 0);
	close(fd);
	for (i = 0; i < FL_NR_COSTS; i++)
		ps[i] = (uint64_t)i * 12345 + 7; /* ps that ns with 3 decimals keep */
	prov.estimated[FL_COST_SPLIT_FOLIO] = prov.estimated[FL_COST_SET_PTE] = true;
	prov.clock_mhz = 2100;
	prov.clock_estimated = true;
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fl_costs_write(f, ps, &prov, &curve, "# made by the test\n"), 0);
	ASSERT_EQ(fclose(f), 0);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	ASSERT_EQ(fl_costs_parse(text, back, &got, &bw, err, sizeof(err)), 0);
	for (i = 0; i < FL_NR_COSTS; i++) {
		ASSERT_EQ(back[i], ps[i]);
		ASSERT_EQ(got.estimated[i], prov.estimated[i]);
	}
	ASSERT_TRUE(strstr(text, "cost.set_pte 61.732 estimated\n") != NULL);
	ASSERT_TRUE(strstr(text, "clock.mhz 2100 estimated\n") != NULL);
	ASSERT_TRUE(got.clock_mhz == 2100 && got.clock_estimated);
	ASSERT_TRUE(!strcmp(got.command, "x y"));
	ASSERT_EQ(bw.mem.n, 2);
	ASSERT_EQ(bw.mem.cpus[1], 7);
	ASSERT_EQ(bw.mem.ps[1], 123456ull);
	ASSERT_TRUE(!bw.mem.estimated);
	ASSERT_EQ(bw.llc.n, 1);
	ASSERT_EQ(bw.llc.ps[0], 9000ull);
	ASSERT_TRUE(bw.llc.estimated);
	ASSERT_EQ(bw.llc_bytes, 1ull << 20);
	/* the public check takes it, and leaves the costs in force alone */
	memset(fl__cost_ps, 0, sizeof(fl__cost_ps));
	ASSERT_EQ(fl_costs_check(path, err, sizeof(err)), 0);
	ASSERT_EQ(fl__cost_ps[FL_COST_FAULT], 0ull);
	ASSERT_EQ(fl_costs_load(path, err, sizeof(err)), 0);
	ASSERT_EQ(fl__cost_ps[FL_COST_SPLIT_PAGE], ps[FL_COST_SPLIT_PAGE]);
	unlink(path);
	ASSERT_EQ(fl_costs_check(path, err, sizeof(err)), -ENOENT);
	ASSERT_TRUE(strstr(err, "No such file") != NULL);
	return true;
}

/* The tree's default cost file (costs/intel16-kvm.costs), compiled in, is a calibration: it loads and says where from. */
static bool test_builtin_is_a_calibration(void)
{
	char err[200];
	int i;

	ASSERT_EQ(fl_costs_load(NULL, err, sizeof(err)), 0);
	ASSERT_TRUE(!strcmp(fl__cost_prov.source, "built in"));
	ASSERT_TRUE(fl__cost_prov.kernel[0] && strcmp(fl__cost_prov.kernel, "none"));
	ASSERT_TRUE(strstr(fl__cost_prov.command, "foliolab calibrate") != NULL);
	ASSERT_TRUE(fl__cost_ps[FL_COST_FAULT] > 0);
	/* no cost silently 0: one at 0 is marked estimated, with its reason in the comment */
	for (i = 0; i < FL_NR_COSTS; i++)
		if (!fl__cost_ps[i] && !fl__cost_prov.estimated[i]) {
			printf("# cost.%s is 0 and not marked estimated\n", fl__cost_info[i].name);
			return false;
		}
	return true;
}

TEST_MAIN(TEST(test_parse_full), TEST(test_bad_files), TEST(test_write_reads_back),
	  TEST(test_builtin_is_a_calibration))
