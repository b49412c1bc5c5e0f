// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-memcg.c - the host's memory cgroup on paper: memory.stat text of
 * cgroup v1 and v2, recorded (tests/data/README), read under the model's
 * names and units, and where a cgroup v2 run puts its cgroup, on fake
 * cgroup trees in a private folder. Needs no root and touches no cgroup.
 *
 * Conventions in this file: "mnt" is a fake cgroup2 mount point.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "target/host.h"

#ifndef FL_TEST_DATA
#define FL_TEST_DATA "tests/data"
#endif

static char mnt[256];

static int64_t parsed(const char *file, bool v2, bool tracepoints, const char *name,
		      struct fl_counters *c)
{
	char path[512];
	FILE *f;

	fl_counters_free(c);
	snprintf(path, sizeof(path), "%s/%s", FL_TEST_DATA, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fl__memcg_stat_parse(f, v2, tracepoints, c))
		fl_counters_set(c, "parse failed", 1);
	fclose(f);
	return fl_counters_get(c, name);
}

/*
 * v1, an 8 MiB private mapping written whole, its first 4 MiB two THPs:
 * rss is every anon byte (THPs included), rss_huge the THPs' bytes.
 */
static bool test_v1_recorded(void)
{
	struct fl_counters c = { 0 };

	ASSERT_EQ(parsed("memory.stat.v1", false, true, "nr_anon_pages", &c), 8 << 20 >> 12);
	ASSERT_EQ(fl_counters_get(&c, "nr_anon_transparent_hugepages"), 2);
	ASSERT_EQ(fl_counters_get(&c, "nr_inactive_anon"), 2047);
	ASSERT_EQ(fl_counters_get(&c, "nr_active_anon"), 0);
	ASSERT_EQ(fl_counters_get(&c, "nr_file_pages"), 0);
	ASSERT_TRUE(fl_counters_find(&c, "nr_shmem") != NULL);
	/* v2's keys and the hierarchical total_ lines are not v1's run counts */
	ASSERT_TRUE(fl_counters_find(&c, "nr_page_table_pages") == NULL);
	ASSERT_TRUE(fl_counters_find(&c, "pgactivate") == NULL);
	ASSERT_EQ(fl_counters_find(&c, "nr_anon_pages")->scope, FL_SCOPE_WORKLOAD);
	fl_counters_free(&c);
	return true;
}

/*
 * v2 (recorded mid-run, tests/data/README): bytes for the gauges, counts
 * for the events; the system-wide value kept aside as system:NAME
 */
static bool test_v2_recorded(void)
{
	struct fl_counters c = { 0 };
	FILE *f = fopen(FL_TEST_DATA "/memory.stat.v2", "r");

	ASSERT_TRUE(f != NULL);
	fl_counters_set_scoped(&c, "nr_anon_pages", 123456, FL_SCOPE_SYSTEM);
	ASSERT_EQ(fl__memcg_stat_parse(f, true, true, &c), 0);
	fclose(f);
	ASSERT_EQ(fl_counters_get(&c, "system:nr_anon_pages"), 123456);
	ASSERT_EQ(fl_counters_get(&c, "nr_anon_pages"), 114688 / 4096);
	ASSERT_EQ(fl_counters_find(&c, "nr_anon_pages")->scope, FL_SCOPE_WORKLOAD);
	ASSERT_EQ(fl_counters_get(&c, "nr_anon_transparent_hugepages"), 0);
	ASSERT_EQ(fl_counters_get(&c, "nr_page_table_pages"), 16384 / 4096);
	ASSERT_EQ(fl_counters_get(&c, "nr_inactive_anon"), 446464 / 4096);
	ASSERT_EQ(fl_counters_get(&c, "nr_file_pages"), 2);
	ASSERT_EQ(fl_counters_get(&c, "nr_shmem"), 2);
	ASSERT_TRUE(fl_counters_find(&c, "pgactivate") != NULL);
	ASSERT_TRUE(fl_counters_find(&c, "pglazyfreed") != NULL);
	/* thp_fault_alloc only where the tracepoints could not count it */
	ASSERT_TRUE(fl_counters_find(&c, "thp_fault_alloc") == NULL);
	ASSERT_EQ(parsed("memory.stat.v2", true, false, "thp_fault_alloc", &c), 1020);
	/* v1's keys are not in v2's text */
	ASSERT_TRUE(parsed("memory.stat.v2", false, true, "nr_anon_pages", &c) == 0 &&
		    fl_counters_find(&c, "nr_anon_pages") == NULL);
	fl_counters_free(&c);
	return true;
}

/*
 * The cgroup's own files as the model names them: v2's memory.stat lines
 * as memory.stat.<key>, memory.events' as memory.events.<key>; v1's lines
 * only where v2 has them, under v2's names (rss is anon, rss_huge
 * anon_thp), never v1's own (pgpgin) or the hierarchical total_ ones.
 */
static bool test_files_as_counters(void)
{
	static const char events[] = "low 0\nhigh 3\nmax 5\noom 0\noom_kill 0\n";
	struct fl_counters c = { 0 };
	FILE *f = fopen(FL_TEST_DATA "/memory.stat.v2", "r");
	FILE *e = fmemopen((void *)events, sizeof(events) - 1, "r");

	ASSERT_TRUE(f && e);
	ASSERT_EQ(fl__memcg_files_parse(f, e, true, &c), 0);
	fclose(f);
	fclose(e);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.anon"), 114688);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.pgfault"), 175131);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.thp_fault_alloc"), 1020);
	ASSERT_EQ(fl_counters_get(&c, "memory.events.high"), 3);
	ASSERT_EQ(fl_counters_get(&c, "memory.events.max"), 5);
	ASSERT_EQ(fl_counters_find(&c, "memory.events.max")->scope, FL_SCOPE_WORKLOAD);
	fl_counters_free(&c);
	f = fopen(FL_TEST_DATA "/memory.stat.v1", "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fl__memcg_files_parse(f, NULL, false, &c), 0);
	fclose(f);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.anon"), 8388608);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.anon_thp"), 4194304);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.pgfault"), 1026);
	ASSERT_EQ(fl_counters_get(&c, "memory.stat.inactive_anon"), 8384512);
	ASSERT_TRUE(fl_counters_find(&c, "memory.stat.rss") == NULL);
	ASSERT_TRUE(fl_counters_find(&c, "memory.stat.pgpgin") == NULL);
	ASSERT_TRUE(fl_counters_find(&c, "memory.stat.total_rss") == NULL);
	ASSERT_TRUE(fl_counters_find(&c, "memory.events.max") == NULL);
	fl_counters_free(&c);
	return true;
}

/*
 * The swap cache counts in the node's nr_file_pages but not in a memcg's
 * file (6.18's swap_cache_add_folio()); the memcg has it as swapcached, so
 * the run's nr_file_pages is file + swapcached, on v1 (cache) and v2.
 */
static bool test_swapcache_in_file_pages(void)
{
	static const char v1[] = "cache 8192\nswapcached 40960\ntotal_swapcached 999424\n";
	static const char v2[] = "file 4096\nswapcached 8192\n";
	struct fl_counters c = { 0 };
	FILE *f = fmemopen((void *)v1, sizeof(v1) - 1, "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fl__memcg_stat_parse(f, false, true, &c), 0);
	fclose(f);
	ASSERT_EQ(fl_counters_get(&c, "nr_file_pages"), 2 + 10);
	fl_counters_free(&c);
	f = fmemopen((void *)v2, sizeof(v2) - 1, "r");
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fl__memcg_stat_parse(f, true, true, &c), 0);
	fclose(f);
	ASSERT_EQ(fl_counters_get(&c, "nr_file_pages"), 1 + 2);
	ASSERT_EQ(fl_counters_find(&c, "nr_file_pages")->scope, FL_SCOPE_WORKLOAD);
	fl_counters_free(&c);
	return true;
}

/* v2's THP gauges are bytes of PMD-sized folios */
static bool test_v2_thp_units(void)
{
	static const char text[] = "anon 8388608\nanon_thp 4194304\nshmem 2097152\n"
				   "shmem_thp 2097152\npagetables 12288\npglazyfree 512\n";
	struct fl_counters c = { 0 };
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fl__memcg_stat_parse(f, true, true, &c), 0);
	fclose(f);
	ASSERT_EQ(fl_counters_get(&c, "nr_anon_pages"), 2048);
	ASSERT_EQ(fl_counters_get(&c, "nr_anon_transparent_hugepages"), 2);
	ASSERT_EQ(fl_counters_get(&c, "nr_shmem"), 512);
	ASSERT_EQ(fl_counters_get(&c, "nr_shmem_hugepages"), 1);
	ASSERT_EQ(fl_counters_get(&c, "nr_page_table_pages"), 3);
	ASSERT_EQ(fl_counters_get(&c, "pglazyfree"), 512);
	fl_counters_free(&c);
	return true;
}

static void put(const char *rel, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", mnt, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * Where the cgroup goes: under the nearest proper ancestor that enables
 * memory for its children (a v2 cgroup with processes has none of its
 * own); at the root, the root, enabling memory first if it must.
 */
static bool test_v2_place(void)
{
	char parent[512], origin[512], why[256], want[512];
	bool enable;

	snprintf(mnt, sizeof(mnt), "/tmp/foliolab-test-memcg.XXXXXX");
	ASSERT_TRUE(mkdtemp(mnt) != NULL);
	put("cgroup.controllers", "cpuset cpu io memory pids\n");
	put("cgroup.subtree_control", "cpu io memory pids\n");
	snprintf(want, sizeof(want), "%s/a", mnt);
	ASSERT_EQ(mkdir(want, 0755), 0);
	snprintf(want, sizeof(want), "%s/a/b", mnt);
	ASSERT_EQ(mkdir(want, 0755), 0);
	put("a/cgroup.subtree_control", "memory pids\n");
	put("a/b/cgroup.subtree_control", "");
	/* the parent enables memory */
	ASSERT_EQ(fl__memcg_v2_place(mnt, "/a/b", parent, sizeof(parent), origin, sizeof(origin),
				     &enable, why, sizeof(why)),
		  0);
	snprintf(want, sizeof(want), "%s/a", mnt);
	ASSERT_STREQ(parent, want);
	snprintf(want, sizeof(want), "%s/a/b/cgroup.procs", mnt);
	ASSERT_STREQ(origin, want);
	ASSERT_TRUE(!enable);
	/* only the root does */
	put("a/cgroup.subtree_control", "pids\n");
	ASSERT_EQ(fl__memcg_v2_place(mnt, "/a/b", parent, sizeof(parent), origin, sizeof(origin),
				     &enable, why, sizeof(why)),
		  0);
	ASSERT_STREQ(parent, mnt);
	ASSERT_TRUE(!enable);
	/* nobody does: no cgroup, and why; a non-root cgroup is never changed */
	put("cgroup.subtree_control", "cpu io pids\n");
	ASSERT_EQ(fl__memcg_v2_place(mnt, "/a/b", parent, sizeof(parent), origin, sizeof(origin),
				     &enable, why, sizeof(why)),
		  -ENOENT);
	ASSERT_TRUE(strstr(why, "cgroup.subtree_control") != NULL);
	/* a process in the root: the root, memory to be enabled there */
	ASSERT_EQ(fl__memcg_v2_place(mnt, "/", parent, sizeof(parent), origin, sizeof(origin),
				     &enable, why, sizeof(why)),
		  0);
	ASSERT_STREQ(parent, mnt);
	snprintf(want, sizeof(want), "%s/cgroup.procs", mnt);
	ASSERT_STREQ(origin, want);
	ASSERT_TRUE(enable);
	/* no memory controller on this hierarchy at all */
	put("cgroup.controllers", "cpu io pids\n");
	ASSERT_EQ(fl__memcg_v2_place(mnt, "/", parent, sizeof(parent), origin, sizeof(origin),
				     &enable, why, sizeof(why)),
		  -ENOENT);
	ASSERT_TRUE(strstr(why, "neither cgroup v1 nor") != NULL);
	put("a/b/cgroup.subtree_control", "");
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", mnt);
		ASSERT_EQ(system(cmd), 0);
	}
	return true;
}

TEST_MAIN(TEST(test_v1_recorded), TEST(test_v2_recorded), TEST(test_files_as_counters),
	  TEST(test_v2_thp_units), TEST(test_v2_place), TEST(test_swapcache_in_file_pages))
