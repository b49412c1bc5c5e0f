// SPDX-License-Identifier: GPL-2.0-only
/*
 * target.c - the list of targets and what the API does over either back
 * end: the version, a target by name, a process's threads run as tasks.
 */
#include <errno.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "target.h"
#include "../platform/platform.h"

FL_API const char *fl_version(void)
{
	return FOLIOLAB_VERSION
		" (model of the Linux 6.18 large-folio mm, with the seeds' policies)";
}

const struct fl_target_ops *fl__target_find(const char *name)
{
	if (!strcmp(name, "model"))
		return &fl__model_target_ops;
	if (!strcmp(name, "host"))
		return &fl__host_target_ops;
	return NULL;
}

int fl_run_threads(struct fl_proc *p, int n, void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct fl_proc **procs;
	int i, ret;

	if (n < 1)
		return -EINVAL;
	procs = fl_calloc((size_t)n, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		procs[i] = p;
	ret = p->target->ops->run_tasks(p->target, procs, n, fn, arg);
	fl_free(procs);
	return ret;
}
