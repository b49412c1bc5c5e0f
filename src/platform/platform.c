// SPDX-License-Identifier: GPL-2.0-only
/*
 * platform.c - which platform is in force (platform.h): native until a
 * run starts the simulator (sim/platform.c), which sets it here and puts
 * native back when the run ends; and the patching of the simulator's
 * static branches (jump_label.h) that goes with it.
 *
 * Conventions in this file: "text" is the program's code, mapped
 * read-only and executable; it is writable only inside
 * fl__jump_labels_set().
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "platform.h"

const struct fl_platform_ops *fl__platform = &fl__native_ops;
bool fl__sim_active;

#if FL_JUMP_LABEL
/* the linker's bounds of the section (weak: a program with no site has none) */
extern struct fl_jump_entry __start_fl_jump_table[] __attribute__((weak));
extern struct fl_jump_entry __stop_fl_jump_table[] __attribute__((weak));
static bool labels_on;

int fl__jump_labels_set(bool on)
{
	static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uintptr_t lo = UINTPTR_MAX, hi = 0, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct fl_jump_entry *e;

	if (on == labels_on)
		return 0;
	for (e = __start_fl_jump_table; e < __stop_fl_jump_table; e++) {
		if (e->code < lo)
			lo = e->code;
		if (e->code + sizeof(nop5) > hi)
			hi = e->code + sizeof(nop5);
	}
	if (lo < hi) {
		lo &= ~(pg - 1);
		hi = (hi + pg - 1) & ~(pg - 1);
		if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
			return -errno;
		for (e = __start_fl_jump_table; e < __stop_fl_jump_table; e++) {
			unsigned char insn[5];

			if (on) {
				/* jmp rel32, from the end of the 5 bytes */
				int32_t rel = (int32_t)(e->target - (e->code + sizeof(insn)));

				insn[0] = 0xe9;
				memcpy(insn + 1, &rel, sizeof(rel));
			} else {
				memcpy(insn, nop5, sizeof(insn));
			}
			memcpy((void *)e->code, insn, sizeof(insn));
		}
		if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC))
			return -errno;
	}
	labels_on = on;
	return 0;
}
#else
int fl__jump_labels_set(bool on)
{
	(void)on;
	return 0;
}
#endif

int fl__platform_set(const struct fl_platform_ops *ops, bool sim)
{
	int ret = fl__jump_labels_set(sim);

	if (ret)
		return ret;
	fl__platform = ops;
	fl__sim_active = sim;
	return 0;
}
