/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_read.h - a small JSON reader for foliolab's own records (validate
 * reads a bundle's host records back). The whole text becomes a tree of
 * values; strings are decoded (\uXXXX to UTF-8), numbers are doubles.
 *
 * Conventions in this file: an object keeps its members in file order;
 * a lookup of a missing key, or on a value that is not an object, gives
 * NULL, so lookups chain.
 */
#ifndef FL_LIB_JSON_READ_H
#define FL_LIB_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

enum fl_json_type {
	FL_JSON_NULL,
	FL_JSON_BOOL,
	FL_JSON_NUM,
	FL_JSON_STR,
	FL_JSON_ARR,
	FL_JSON_OBJ
};

struct fl_json {
	enum fl_json_type type;
	bool b;
	double num;
	char *str;	    /* FL_JSON_STR */
	int n;		    /* FL_JSON_ARR, FL_JSON_OBJ: members */
	char **keys;	    /* FL_JSON_OBJ */
	struct fl_json **v; /* FL_JSON_ARR, FL_JSON_OBJ */
};

/*
 * fl_json_parse() - @text (NUL-terminated) as one JSON value. Return: the
 * tree, or NULL with where and why in @err (or "out of memory").
 */
struct fl_json *fl_json_parse(const char *text, char *err, size_t len);
void fl_json_free(struct fl_json *j);

/* fl_json_get() - @key's value in object @j, or NULL. */
const struct fl_json *fl_json_get(const struct fl_json *j, const char *key);
/* fl_json_str() - @j's string, or NULL if it is not one. */
const char *fl_json_str(const struct fl_json *j);
/* fl_json_num() - @j's number (a number or a string holding one), or @dflt. */
double fl_json_num(const struct fl_json *j, double dflt);

#endif /* FL_LIB_JSON_READ_H */
