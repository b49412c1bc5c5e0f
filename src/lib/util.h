/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * util.h - small helpers the commands share: a whole file read into
 * memory and the median of measurements.
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

#endif /* FL_LIB_UTIL_H */
