// SPDX-License-Identifier: GPL-2.0-only
/*
 * test-jump-label.c - the simulator's static branch (src/platform/
 * jump_label.h) and the platform switch (platform.h: fl__platform_set()):
 * on native every site is the 5-byte no-op and fl_sim_branch() is false;
 * put sim in force and every site is a jump to its own target (rel32 from
 * the site's end) and the branch is true, here and in a function of
 * another file (a lock's); back to native, every site is the no-op again;
 * setting what is in force again changes nothing. With FL_JUMP_LABEL=0
 * the branch follows the flag.
 *
 * Conventions in this file: "site" is one entry of fl_jump_table.
 */
#include <string.h>
#include "harness.h"
#include "platform/lock.h"
#include "platform/platform.h"

static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static noinline bool branch_here(void)
{
	return fl_sim_branch();
}

#if FL_JUMP_LABEL
extern struct fl_jump_entry __start_fl_jump_table[];
extern struct fl_jump_entry __stop_fl_jump_table[];

/* Every site's five bytes: the no-op when @on is false, else a jump to its target. */
static bool sites_are(bool on)
{
	struct fl_jump_entry *e;
	long n = 0;

	for (e = __start_fl_jump_table; e < __stop_fl_jump_table; e++, n++) {
		const unsigned char *p = (const unsigned char *)e->code;
		int32_t rel;

		if (!on) {
			ASSERT_TRUE(memcmp(p, nop5, sizeof(nop5)) == 0);
			continue;
		}
		ASSERT_EQ(p[0], 0xe9);
		memcpy(&rel, p + 1, sizeof(rel));
		ASSERT_EQ(e->code + 5 + (intptr_t)rel, e->target);
	}
	/* this file's: branch_here()'s, the lock's and the unlock's at least */
	ASSERT_GE(n, 3);
	return true;
}
#else
static bool sites_are(bool on)
{
	(void)on;
	return true;
}
#endif

/* A lock taken on the host thread with sim in force: the sim hook says "not a task", native takes it. */
static bool lock_on_host_thread(void)
{
	static const struct fl_lock_class cls = { .name = "test", .rank = 1, .kind = FL_LOCK_SPIN };
	struct fl_spinlock l;

	fl_spin_lock_init(&l, &cls);
	spin_lock(&l);
	ASSERT_EQ(l.val, 1u);
	spin_unlock(&l);
	ASSERT_EQ(l.val, 0u);
	return true;
}

static bool test_switch_patches_every_site(void)
{
	ASSERT_TRUE(fl__platform == &fl__native_ops);
	ASSERT_TRUE(!fl__sim_active);
	ASSERT_TRUE(!branch_here());
	ASSERT_TRUE(sites_are(false));

	ASSERT_EQ(fl__platform_set(&fl__sim_ops, true), 0);
	ASSERT_TRUE(fl__platform == &fl__sim_ops);
	ASSERT_TRUE(fl__sim_active);
	ASSERT_TRUE(branch_here());
	ASSERT_TRUE(sites_are(true));
	ASSERT_TRUE(lock_on_host_thread());
	ASSERT_EQ(fl__platform_set(&fl__sim_ops, true), 0); /* again: nothing changes */
	ASSERT_TRUE(sites_are(true));

	ASSERT_EQ(fl__platform_set(&fl__native_ops, false), 0);
	ASSERT_TRUE(fl__platform == &fl__native_ops);
	ASSERT_TRUE(!fl__sim_active);
	ASSERT_TRUE(!branch_here());
	ASSERT_TRUE(sites_are(false));
	ASSERT_TRUE(lock_on_host_thread());
	ASSERT_EQ(fl__platform_set(&fl__native_ops, false), 0);
	ASSERT_TRUE(sites_are(false));
	return true;
}

/* The simulator's start puts sim in force with its branches on; the stop puts native back. */
static bool test_sim_start_and_stop(void)
{
	ASSERT_EQ(fl__platform_init(2), 0);
	ASSERT_EQ(fl__sim_platform_start(7), 0);
	ASSERT_TRUE(fl__platform == &fl__sim_ops);
	ASSERT_TRUE(branch_here());
	ASSERT_TRUE(sites_are(true));
	fl__sim_platform_stop();
	ASSERT_TRUE(fl__platform == &fl__native_ops);
	ASSERT_TRUE(!branch_here());
	ASSERT_TRUE(sites_are(false));
	fl__platform_exit();
	return true;
}

TEST_MAIN(TEST(test_switch_patches_every_site), TEST(test_sim_start_and_stop))
