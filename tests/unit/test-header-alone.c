// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-header-alone.c - the public header compiles on its own (nothing
 * before it) and its helpers parse sizes and keep named values.
 *
 * Conventions in this file: only <foliolab/foliolab.h> is included first.
 */
#include <foliolab/foliolab.h>
#include "harness.h"

static bool test_sizes(void)
{
	uint64_t v;
	char buf[32];

	ASSERT_EQ(fl_parse_size("4096", &v), 0);
	ASSERT_EQ(v, 4096);
	ASSERT_EQ(fl_parse_size("16M", &v), 0);
	ASSERT_EQ(v, 16ull << 20);
	ASSERT_EQ(fl_parse_size("2048kB", &v), 0);
	ASSERT_EQ(v, 2ull << 20);
	ASSERT_EQ(fl_parse_size("256G", &v), 0);
	ASSERT_EQ(v, 256ull << 30);
	ASSERT_NE(fl_parse_size("12Q", &v), 0);
	ASSERT_NE(fl_parse_size("-1", &v), 0);
	ASSERT_NE(fl_parse_size("", &v), 0);
	ASSERT_NE(fl_parse_size("99999999999T", &v), 0);
	fl_format_size(16ull << 20, buf, sizeof(buf));
	ASSERT_STREQ(buf, "16M");
	fl_format_size(5000, buf, sizeof(buf));
	ASSERT_STREQ(buf, "5000");
	return true;
}

static bool test_counters_and_config(void)
{
	struct fl_counters c = { 0 };
	struct fl_config cfg;
	int i;

	for (i = 0; i < 200; i++) {
		char name[16];

		snprintf(name, sizeof(name), "c%d", i);
		ASSERT_EQ(fl_counters_set(&c, name, i), 0);
	}
	ASSERT_EQ(fl_counters_get(&c, "c150"), 150);
	ASSERT_EQ(fl_counters_get(&c, "missing"), 0);
	fl_counters_free(&c);
	fl_config_init(&cfg, "lru-microbench");
	ASSERT_EQ(fl_config_set_param(&cfg, "threads", "2"), 0);
	ASSERT_EQ(fl_config_set_param(&cfg, "threads", "3"), 0); /* replaces */
	ASSERT_EQ(cfg.nr_params, 1);
	ASSERT_STREQ(fl_config_param(&cfg, "threads"), "3");
	/* lru-microbench .. memcg-build, cow-reuse, fork-cow, khugepaged-lazyfree, fragment */
	ASSERT_EQ(fl_workload_count(), 13);
	ASSERT_TRUE(fl_workload_find("page-fault1") != NULL);
	ASSERT_TRUE(fl_workload_find("shmem-split") != NULL);
	ASSERT_TRUE(fl_workload_find("no-such") == NULL);
	return true;
}

TEST_MAIN(TEST(test_sizes), TEST(test_counters_and_config))
