// SPDX-License-Identifier: GPL-2.0-only
/*
 * bug.c - reporting for BUG_ON and VM_WARN_ON_ONCE.
 *
 * Conventions in this file: messages go to stderr, one line each.
 */
#include <stdio.h>
#include <stdlib.h>
#include "bug.h"

void fl__bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "foliolab: BUG at %s:%d: %s\n", file, line, cond);
	abort();
}

void fl__warn(const char *file, int line, const char *cond)
{
	fprintf(stderr, "foliolab: WARNING at %s:%d: %s\n", file, line, cond);
}
