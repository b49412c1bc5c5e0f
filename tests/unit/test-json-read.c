// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-json-read.c - the JSON reader (src/lib/json_read.c): nested values
 * read back by key and index, string escapes decoded (\uXXXX and
 * surrogate pairs to UTF-8), numbers, and every malformed text refused
 * with where and why.
 */
#include <string.h>
#include "harness.h"
#include "../src/lib/json_read.h"

static bool test_values(void)
{
	char err[120];
	struct fl_json *j = fl_json_parse(" {\"a\": [1, -2.5e3, true, false, null], \"s\": "
					  "\"x\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\","
					  " \"o\": {\"n\": \"42\", \"e\": {}}, \"empty\": []} ",
					  err, sizeof(err));
	const struct fl_json *a;

	ASSERT_TRUE(j != NULL);
	ASSERT_EQ(j->type, FL_JSON_OBJ);
	a = fl_json_get(j, "a");
	ASSERT_TRUE(a && a->type == FL_JSON_ARR && a->n == 5);
	ASSERT_TRUE(fl_json_num(a->v[0], 0) == 1.0);
	ASSERT_TRUE(fl_json_num(a->v[1], 0) == -2500.0);
	ASSERT_TRUE(a->v[2]->type == FL_JSON_BOOL && a->v[2]->b);
	ASSERT_TRUE(a->v[3]->type == FL_JSON_BOOL && !a->v[3]->b);
	ASSERT_EQ(a->v[4]->type, FL_JSON_NULL);
	/* é is C3 A9, U+1F600 is F0 9F 98 80 */
	ASSERT_TRUE(!strcmp(fl_json_str(fl_json_get(j, "s")), "x\"\\/\n\xc3\xa9\xf0\x9f\x98\x80"));
	/* a number held in a string reads as one; lookups chain through NULL */
	ASSERT_TRUE(fl_json_num(fl_json_get(fl_json_get(j, "o"), "n"), 0) == 42.0);
	ASSERT_TRUE(fl_json_get(fl_json_get(j, "missing"), "n") == NULL);
	ASSERT_TRUE(fl_json_num(fl_json_get(j, "s"), -1) == -1.0);
	ASSERT_EQ(fl_json_get(fl_json_get(j, "o"), "e")->n, 0);
	ASSERT_EQ(fl_json_get(j, "empty")->n, 0);
	ASSERT_TRUE(fl_json_str(a) == NULL);
	fl_json_free(j);
	return true;
}

static bool refused(const char *text, const char *why)
{
	char err[120];
	struct fl_json *j = fl_json_parse(text, err, sizeof(err));

	if (j || !strstr(err, why))
		printf("# '%s': '%s' lacks '%s'\n", text, j ? "(accepted)" : err, why);
	ASSERT_TRUE(j == NULL);
	ASSERT_TRUE(strstr(err, why) != NULL);
	return true;
}

static bool test_bad_texts(void)
{
	char deep[200];

	ASSERT_TRUE(refused("", "byte 0: a value expected"));
	ASSERT_TRUE(refused("{\"a\": 1} x", "text after the value"));
	ASSERT_TRUE(refused("{\"a\" 1}", "':' expected"));
	ASSERT_TRUE(refused("[1 2]", "',' or ']' expected"));
	ASSERT_TRUE(refused("{\"a\": 1,}", "a bad object"));
	ASSERT_TRUE(refused("\"abc", "a string does not end"));
	ASSERT_TRUE(refused("\"a\\qb\"", "a bad escape"));
	ASSERT_TRUE(refused("\"\\u12g4\"", "a bad \\u escape"));
	ASSERT_TRUE(refused("\"a\nb\"", "a control character"));
	ASSERT_TRUE(refused("[-]", "a bad number"));
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	ASSERT_TRUE(refused(deep, "nested too deep"));
	return true;
}

TEST_MAIN(TEST(test_values), TEST(test_bad_texts))
