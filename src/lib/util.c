// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - a file read whole, and a median (util.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

char *fl_read_text(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	long n;
	int e = EIO;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		e = EIO;
	} else if ((size_t)n > max) {
		e = EFBIG;
	} else {
		text = malloc((size_t)n + 1);
		if (!text)
			e = ENOMEM;
		else if (fread(text, 1, (size_t)n, f) != (size_t)n) {
			free(text);
			text = NULL;
		} else {
			text[n] = '\0';
		}
	}
	fclose(f);
	if (!text)
		errno = e;
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
