// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - a file read whole, a median (util.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

char *fl_read_text(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0, got;
	char *text = NULL, *bigger;
	int e = 0;

	if (!f)
		return NULL;
	/* read to the end: a pseudo file (tracefs, /proc) says its size is 0 */
	while (!e) {
		if (n == cap) {
			if (cap > max) {
				e = EFBIG; /* max + 1 bytes read */
				break;
			}
			cap = cap ? 2 * cap : 4096;
			if (cap > max + 1)
				cap = max + 1;
			bigger = realloc(text, cap + 1);
			if (!bigger) {
				e = ENOMEM;
				break;
			}
			text = bigger;
		}
		got = fread(text + n, 1, cap - n, f);
		if (!got) {
			if (ferror(f))
				e = EIO;
			break;
		}
		n += got;
	}
	fclose(f);
	if (e) {
		free(text);
		errno = e;
		return NULL;
	}
	text[n] = '\0';
	return text;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double fl_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
