/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * jump_label.h - the simulator's static branch, after the kernel's jump
 * labels (include/linux/jump_label.h, static_branch_unlikely(); x86's
 * arch_static_branch()): fl_sim_branch() is a 5-byte no-op while the
 * native platform is in force, and platform.c patches every such no-op
 * into a jump to the simulator's code when a run starts the simulator
 * (fl__platform_set()), and back when it ends. The native fast path (a
 * lock, a cost charged) so tests nothing for the simulator.
 *
 * Each site is listed in the section fl_jump_table: the no-op's address
 * and the jump's target. The patching runs only while no other thread
 * runs model code (a run's start and end), as the kernel's runs under
 * stop_machine-like rules (text_poke_bp()).
 *
 * Where asm goto or x86-64 is missing, or with FL_JUMP_LABEL=0 (make
 * JUMP_LABEL=0), fl_sim_branch() tests the flag fl__sim_active instead.
 * Valgrind drops its translations of code whose protection mprotect()
 * changes, so it runs the patched code too (a sim run's records under
 * valgrind are the same as without).
 *
 * Conventions in this file: a site is "off" (the no-op) on native and
 * "on" (the jump) on sim; fl__sim_active says the same for slow paths.
 */
#ifndef FL_PLATFORM_JUMP_LABEL_H
#define FL_PLATFORM_JUMP_LABEL_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"

extern bool fl__sim_active;

#ifndef FL_JUMP_LABEL
#if defined(__x86_64__) && defined(__GNUC__)
#define FL_JUMP_LABEL 1
#else
#define FL_JUMP_LABEL 0
#endif
#endif

#if FL_JUMP_LABEL
struct fl_jump_entry {
	uintptr_t code;	  /* the 5-byte site */
	uintptr_t target; /* where the jump goes */
};

/* the long no-op, nopl 0x0(%rax,%rax,1), as the kernel's BYTES_NOP5 */
#define FL_JUMP_NOP5 ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"

static __always_inline bool fl_sim_branch(void)
{
	__asm__ goto("1: " FL_JUMP_NOP5 "\n\t"
		     ".pushsection fl_jump_table, \"aw\"\n\t"
		     ".balign 8\n\t"
		     ".quad 1b, %l[on]\n\t"
		     ".popsection"
		     :
		     :
		     :
		     : on);
	return false;
on:
	return true;
}
#else
static __always_inline bool fl_sim_branch(void)
{
	return unlikely(fl__sim_active);
}
#endif

/* platform.c: every site on or off; Return: 0, or -errno if the text could not be written */
int fl__jump_labels_set(bool on);

#endif /* FL_PLATFORM_JUMP_LABEL_H */
