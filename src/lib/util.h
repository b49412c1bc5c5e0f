/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * util.h - small helpers the commands share: a whole file read into
 * memory, the median of measurements, and the vm sysctls both targets set.
 */
#ifndef FL_LIB_UTIL_H
#define FL_LIB_UTIL_H

#include <stddef.h>

/*
 * fl_read_text() - the whole of @path, NUL-terminated (free() it), at most
 * @max bytes, read to its end (so pseudo files, whose size reads as 0,
 * too). Return: the text, or NULL with errno set (EFBIG past @max, EIO if
 * it cannot be read whole, ENOMEM, or open(2)'s).
 */
char *fl_read_text(const char *path, size_t max);

/* fl_median() - the median of the @n values of @v (n >= 1), which it sorts. */
double fl_median(double *v, int n);

/*
 * The vm sysctls a run may set on both targets (knobs "vm/<name>", the
 * host's /proc/sys/vm/<name>), with the values the kernel accepts.
 * fl_vm_knob() - @name's entry (without "vm/"), or NULL.
 */
struct fl_vm_knob {
	const char *name;
	unsigned long lo, hi;
};
extern const struct fl_vm_knob fl_vm_knobs[4];
const struct fl_vm_knob *fl_vm_knob(const char *name);
#define FL_VM_KNOB_NAMES                                                                           \
	"vm/swappiness, vm/min_free_kbytes, vm/watermark_scale_factor, vm/page-cluster"

#endif /* FL_LIB_UTIL_H */
