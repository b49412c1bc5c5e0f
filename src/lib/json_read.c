// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_read.c - the JSON reader (json_read.h): recursive descent over the
 * text, at most JSON_DEPTH levels deep.
 *
 * Conventions in this file: a parser function returns the value it read
 * and leaves the cursor after it, or NULL with the error set once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_read.h"

#define JSON_DEPTH 64

struct parser {
	const char *s, *start;
	char *err;
	size_t len;
	bool failed;
};

static void *fail(struct parser *p, const char *why)
{
	if (!p->failed)
		snprintf(p->err, p->len, "byte %td: %s", p->s - p->start, why);
	p->failed = true;
	return NULL;
}

static void skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static struct fl_json *new_value(struct parser *p, enum fl_json_type t)
{
	struct fl_json *j = calloc(1, sizeof(*j));

	if (!j)
		return fail(p, "out of memory");
	j->type = t;
	return j;
}

static int hex4(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A string at the cursor ('"'), decoded; NULL on error. */
static char *parse_string(struct parser *p)
{
	const char *s = p->s + 1, *e;
	char *out, *o;

	for (e = s; *e && *e != '"'; e++)
		if (*e == '\\' && e[1])
			e++;
	if (*e != '"')
		return fail(p, "a string does not end");
	out = malloc((size_t)(e - s) + 1); /* decoding never grows it */
	if (!out)
		return fail(p, "out of memory");
	for (o = out; s < e; s++) {
		if ((unsigned char)*s < 0x20) {
			free(out);
			p->s = s;
			return fail(p, "a control character in a string");
		}
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case '"':
		case '\\':
		case '/':
			*o++ = *s;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u': {
			int c = e - s > 4 ? hex4(s + 1) : -1;

			if (c < 0) {
				free(out);
				p->s = s;
				return fail(p, "a bad \\u escape");
			}
			s += 4;
			if (c >= 0xd800 && c < 0xdc00 && s + 6 < e && s[1] == '\\' && s[2] == 'u') {
				int lo = hex4(s + 3);

				if (lo >= 0xdc00 && lo < 0xe000) {
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
					s += 6;
				}
			}
			o += put_utf8(o, (uint32_t)c);
			break;
		}
		default:
			free(out);
			p->s = s;
			return fail(p, "a bad escape in a string");
		}
	}
	*o = '\0';
	p->s = e + 1;
	return out;
}

static struct fl_json *parse_value(struct parser *p, int depth);

static bool add_member(struct parser *p, struct fl_json *j, char *key, struct fl_json *v)
{
	struct fl_json **nv = realloc(j->v, (size_t)(j->n + 1) * sizeof(*nv));
	char **nk;

	if (!nv)
		return fail(p, "out of memory"), false;
	j->v = nv;
	if (j->type == FL_JSON_OBJ) {
		nk = realloc(j->keys, (size_t)(j->n + 1) * sizeof(*nk));
		if (!nk)
			return fail(p, "out of memory"), false;
		j->keys = nk;
		j->keys[j->n] = key;
	}
	j->v[j->n++] = v;
	return true;
}

static struct fl_json *parse_container(struct parser *p, int depth, bool obj)
{
	struct fl_json *j = new_value(p, obj ? FL_JSON_OBJ : FL_JSON_ARR);
	char close = obj ? '}' : ']';

	if (!j)
		return NULL;
	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return j;
	}
	for (;;) {
		char *key = NULL;
		struct fl_json *v;

		skip_ws(p);
		if (obj) {
			if (*p->s != '"')
				goto bad;
			key = parse_string(p);
			if (!key)
				goto bad;
			skip_ws(p);
			if (*p->s != ':') {
				free(key);
				fail(p, "':' expected after a key");
				goto bad;
			}
			p->s++;
		}
		v = parse_value(p, depth + 1);
		if (!v || !add_member(p, j, key, v)) {
			free(key);
			fl_json_free(v);
			goto bad;
		}
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == close) {
			p->s++;
			return j;
		}
		fail(p, obj ? "',' or '}' expected" : "',' or ']' expected");
		goto bad;
	}
bad:
	fail(p, obj ? "a bad object" : "a bad array");
	fl_json_free(j);
	return NULL;
}

static struct fl_json *parse_value(struct parser *p, int depth)
{
	struct fl_json *j;

	if (depth > JSON_DEPTH)
		return fail(p, "nested too deep");
	skip_ws(p);
	switch (*p->s) {
	case '{':
		return parse_container(p, depth, true);
	case '[':
		return parse_container(p, depth, false);
	case '"': {
		char *s = parse_string(p);

		if (!s)
			return NULL;
		j = new_value(p, FL_JSON_STR);
		if (!j)
			free(s);
		else
			j->str = s;
		return j;
	}
	}
	if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
		j = new_value(p, FL_JSON_BOOL);
		if (j)
			j->b = *p->s == 't';
		p->s += *p->s == 't' ? 4 : 5;
		return j;
	}
	if (!strncmp(p->s, "null", 4)) {
		p->s += 4;
		return new_value(p, FL_JSON_NULL);
	}
	if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
		char *end;
		double d = strtod(p->s, &end);

		if (end == p->s)
			return fail(p, "a bad number");
		p->s = end;
		j = new_value(p, FL_JSON_NUM);
		if (j)
			j->num = d;
		return j;
	}
	return fail(p, "a value expected");
}

struct fl_json *fl_json_parse(const char *text, char *err, size_t len)
{
	struct parser p = { .s = text, .start = text, .err = err, .len = len };
	struct fl_json *j = parse_value(&p, 0);

	if (j) {
		skip_ws(&p);
		if (*p.s) {
			fl_json_free(j);
			return fail(&p, "text after the value");
		}
	}
	return j;
}

void fl_json_free(struct fl_json *j)
{
	int i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++) {
		fl_json_free(j->v[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->v);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct fl_json *fl_json_get(const struct fl_json *j, const char *key)
{
	int i;

	if (!j || j->type != FL_JSON_OBJ)
		return NULL;
	for (i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return j->v[i];
	return NULL;
}

const char *fl_json_str(const struct fl_json *j)
{
	return j && j->type == FL_JSON_STR ? j->str : NULL;
}

double fl_json_num(const struct fl_json *j, double dflt)
{
	char *end;
	double d;

	if (j && j->type == FL_JSON_NUM)
		return j->num;
	if (!j || j->type != FL_JSON_STR || !j->str[0])
		return dflt;
	d = strtod(j->str, &end);
	return *end ? dflt : d;
}
