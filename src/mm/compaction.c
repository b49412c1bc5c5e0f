// SPDX-License-Identifier: GPL-2.0-only
/*
 * compaction.c - memory compaction (mm/compaction.c in the kernel).
 */
#include "internal.h"

/* wakeup_kcompactd() - placeholder until kcompactd lands in this file */
void wakeup_kcompactd(struct pglist_data *pgdat, int order)
{
	(void)pgdat;
	(void)order;
}
