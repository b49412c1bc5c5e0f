/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness.h - the one test harness: `static bool test_x(void)` cases,
 * ASSERT_* macros that print both sides and file:line, TAP output, exit
 * 0 (all passed), 1 (a failure) or 77 (skipped). `./test-x NAME` runs one
 * case. Model helpers boot a small machine for mm-level tests and check,
 * on the way down, that every frame and folio came back.
 *
 * Conventions in this file: a case returns true on success; on failure
 * the ASSERT prints a "# " diagnostic line and returns false.
 */
#ifndef FL_TESTS_HARNESS_H
#define FL_TESTS_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define ASSERT_CMP(a, op, b)                                                                       \
	do {                                                                                       \
		long long fl_a_ = (long long)(a), fl_b_ = (long long)(b);                          \
		if (!(fl_a_ op fl_b_)) {                                                           \
			printf("# %s:%d: %s %s %s failed: %lld vs %lld\n", __FILE__, __LINE__, #a, \
			       #op, #b, fl_a_, fl_b_);                                             \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define ASSERT_EQ(a, b) ASSERT_CMP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_CMP(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_CMP(a, <, b)
#define ASSERT_LE(a, b) ASSERT_CMP(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_CMP(a, >, b)
#define ASSERT_GE(a, b) ASSERT_CMP(a, >=, b)
#define ASSERT_TRUE(c)                                                                             \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			printf("# %s:%d: %s is false\n", __FILE__, __LINE__, #c);                  \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define ASSERT_STREQ(a, b)                                                                         \
	do {                                                                                       \
		const char *fl_sa_ = (a), *fl_sb_ = (b);                                           \
		if (strcmp(fl_sa_, fl_sb_)) {                                                      \
			printf("# %s:%d: %s == %s failed: \"%s\" vs \"%s\"\n", __FILE__, __LINE__, \
			       #a, #b, fl_sa_, fl_sb_);                                            \
			return false;                                                              \
		}                                                                                  \
	} while (0)

struct fl_test {
	const char *name;
	bool (*fn)(void);
};

#define TEST(fn)                                                                                   \
	{                                                                                          \
#fn, fn                                                                            \
	}

static inline void fl_test_skip(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	fflush(stdout);
	exit(77);
}

static inline int fl_test_main(int argc, char **argv, const struct fl_test *t, int n)
{
	int i, failed = 0, planned = 0;

	for (i = 0; i < n; i++)
		planned += argc < 2 || !strcmp(argv[1], t[i].name);
	if (!planned) {
		fprintf(stderr, "no test named %s\n", argv[1]);
		return 1;
	}
	printf("1..%d\n", planned);
	fflush(stdout);
	planned = 0;
	for (i = 0; i < n; i++) {
		bool ok;

		if (argc >= 2 && strcmp(argv[1], t[i].name))
			continue;
		ok = t[i].fn();
		printf("%s %d - %s\n", ok ? "ok" : "not ok", ++planned, t[i].name);
		fflush(stdout);
		failed += !ok;
	}
	return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                                             \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		static const struct fl_test tests_[] = { __VA_ARGS__ };                            \
		return fl_test_main(argc, argv, tests_,                                            \
				    (int)(sizeof(tests_) / sizeof(tests_[0])));                    \
	}

#endif /* FL_TESTS_HARNESS_H */
