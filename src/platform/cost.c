// SPDX-License-Identifier: GPL-2.0-only
/*
 * cost.c - the cost table (cost.h): names, the file format, the costs in
 * force and the cache-line owner rule.
 *
 * Conventions in this file: a cost file is text, one "KEY VALUE" per
 * line; VALUE runs to the end of the line (trailing blanks dropped).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <foliolab/foliolab.h>
#include "cost.h"
#include "platform.h"
#include "sim.h"

const struct fl_cost_info fl__cost_info[FL_NR_COSTS] = {
	[FL_COST_FAULT] = { "fault", "page fault entry, walk and return, per fault" },
	[FL_COST_SYSCALL] = { "syscall", "system call entry and return" },
	[FL_COST_USER_ACCESS] = { "user_access", "the workload's access to one mapped page" },
	[FL_COST_CLEAR_PAGE] = { "clear_page", "zeroing 4 KiB" },
	[FL_COST_COPY_PAGE] = { "copy_page", "copying 4 KiB" },
	[FL_COST_SET_PTE] = { "set_pte", "mapping one page of a new folio" },
	[FL_COST_ZAP_PTE] = { "zap_pte", "unmapping one page" },
	[FL_COST_FOLIO_ALLOC] = { "folio_alloc", "a folio from the per-CPU lists" },
	[FL_COST_FOLIO_FREE] = { "folio_free", "a folio freed to the per-CPU lists" },
	[FL_COST_BUDDY] = { "buddy", "one block between the buddy and a per-CPU list" },
	[FL_COST_LRU_MOVE] = { "lru_move", "one folio onto or off an LRU list" },
	[FL_COST_LOCK] = { "lock", "an uncontended lock and unlock" },
	[FL_COST_CACHELINE] = { "cacheline", "a cache line fetched from another CPU" },
	[FL_COST_TLB_FLUSH] = { "tlb_flush", "a TLB flush on this CPU" },
	[FL_COST_IPI] = { "ipi", "a TLB-shootdown IPI to one other CPU" },
	[FL_COST_PTE_TABLE] = { "pte_table", "a page-table page allocated (and later freed)" },
	[FL_COST_VMA] = { "vma", "creating or removing a VMA" },
	[FL_COST_XA_NODE] = { "xa_node", "one XArray node visited" },
	[FL_COST_SPLIT_PAGE] = { "split_page", "splitting a folio, per page" },
};

uint64_t fl__cost_ps[FL_NR_COSTS];
uint64_t fl__cost_count[FL_NR_COSTS];
struct fl_cost_prov fl__cost_prov;

/* build/.../gen/default_costs.c: costs/default.costs as a string */
extern const char fl__default_costs[];

void fl__cacheline_take(struct fl_cacheline *cl)
{
	int me;

	if (!fl_sim_in_task())
		return;
	me = fl__cpu + 1;
	if (cl->gen != fl__sim_gen) {
		cl->gen = fl__sim_gen;
		cl->cpu = 0;
	}
	if (cl->cpu == me)
		return;
	if (cl->cpu) {
		fl__sim_debt += fl__cost_ps[FL_COST_CACHELINE];
		fl__cost_count[FL_COST_CACHELINE]++;
	}
	cl->cpu = me;
}

static void copy_value(char *dst, size_t n, const char *v, size_t vlen)
{
	if (vlen >= n)
		vlen = n - 1;
	memcpy(dst, v, vlen);
	dst[vlen] = '\0';
}

int fl_costs_parse(const char *text, uint64_t *ps, struct fl_cost_prov *prov, char *err, size_t len)
{
	bool seen[FL_NR_COSTS] = { false };
	const char *p = text;
	int lineno = 0, i;

	memset(prov, 0, sizeof(*prov));
	while (*p) {
		const char *eol = strchr(p, '\n'), *key, *sp, *v;
		size_t klen, vlen;

		if (!eol)
			eol = p + strlen(p);
		lineno++;
		key = p;
		p = *eol ? eol + 1 : eol;
		while (key < eol && (*key == ' ' || *key == '\t'))
			key++;
		if (key == eol || *key == '#')
			continue;
		for (sp = key; sp < eol && *sp != ' ' && *sp != '\t'; sp++)
			;
		klen = (size_t)(sp - key);
		for (v = sp; v < eol && (*v == ' ' || *v == '\t'); v++)
			;
		vlen = (size_t)(eol - v);
		while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' || v[vlen - 1] == '\r'))
			vlen--;
		if (klen > 5 && !strncmp(key, "cost.", 5)) {
			char num[64], *end;
			double ns;

			for (i = 0; i < FL_NR_COSTS; i++)
				if (strlen(fl__cost_info[i].name) == klen - 5 &&
				    !strncmp(key + 5, fl__cost_info[i].name, klen - 5))
					break;
			if (i == FL_NR_COSTS) {
				snprintf(err, len, "line %d: unknown cost %.*s", lineno, (int)klen,
					 key);
				return -EINVAL;
			}
			if (seen[i]) {
				snprintf(err, len, "line %d: cost.%s given twice", lineno,
					 fl__cost_info[i].name);
				return -EINVAL;
			}
			copy_value(num, sizeof(num), v, vlen);
			errno = 0;
			ns = strtod(num, &end);
			if (!vlen || *end || errno || !isfinite(ns) || ns < 0 || ns > 1e9) {
				snprintf(err, len,
					 "line %d: cost.%s \"%s\": give nanoseconds, a number from "
					 "0 to 1e9",
					 lineno, fl__cost_info[i].name, num);
				return -EINVAL;
			}
			ps[i] = (uint64_t)llround(ns * 1000.0);
			seen[i] = true;
		} else if (klen > 11 && !strncmp(key, "provenance.", 11)) {
			const char *k = key + 11;
			size_t kl = klen - 11;

			if (kl == 6 && !strncmp(k, "kernel", 6))
				copy_value(prov->kernel, sizeof(prov->kernel), v, vlen);
			else if (kl == 3 && !strncmp(k, "cpu", 3))
				copy_value(prov->cpu, sizeof(prov->cpu), v, vlen);
			else if (kl == 4 && !strncmp(k, "date", 4))
				copy_value(prov->date, sizeof(prov->date), v, vlen);
			else if (kl == 7 && !strncmp(k, "command", 7))
				copy_value(prov->command, sizeof(prov->command), v, vlen);
			/* other provenance lines (the measurements) are for the reader */
		} else {
			snprintf(err, len,
				 "line %d: \"%.*s\": accepted cost.NAME, provenance.KEY or # "
				 "comments",
				 lineno, (int)klen, key);
			return -EINVAL;
		}
	}
	for (i = 0; i < FL_NR_COSTS; i++)
		if (!seen[i]) {
			snprintf(err, len, "cost.%s is missing (a cost file gives all %d costs)",
				 fl__cost_info[i].name, FL_NR_COSTS);
			return -EINVAL;
		}
	return 0;
}

FL_API int fl_costs_check(const char *path, char *err, size_t len)
{
	uint64_t saved[FL_NR_COSTS];
	struct fl_cost_prov prov = fl__cost_prov;
	int ret;

	memcpy(saved, fl__cost_ps, sizeof(saved));
	ret = fl_costs_load(path, err, len);
	memcpy(fl__cost_ps, saved, sizeof(saved));
	fl__cost_prov = prov;
	return ret;
}

int fl_costs_load(const char *path, char *err, size_t len)
{
	uint64_t ps[FL_NR_COSTS];
	struct fl_cost_prov prov;
	char *text = NULL, sub[200];
	const char *src = fl__default_costs;
	int ret;

	if (path) {
		FILE *f = fopen(path, "r");
		long n;

		if (!f) {
			ret = -errno;
			snprintf(err, len, "--costs %s: %s", path, strerror(errno));
			return ret;
		}
		if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || n > (1 << 20) ||
		    fseek(f, 0, SEEK_SET)) {
			fclose(f);
			snprintf(err, len, "--costs %s: not a readable file of at most 1 MiB",
				 path);
			return -EINVAL;
		}
		text = malloc((size_t)n + 1);
		if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
			free(text);
			fclose(f);
			snprintf(err, len, "--costs %s: cannot read it", path);
			return -EIO;
		}
		text[n] = '\0';
		fclose(f);
		src = text;
	}
	ret = fl_costs_parse(src, ps, &prov, sub, sizeof(sub));
	free(text);
	if (ret) {
		snprintf(err, len, "--costs %s: %s", path ? path : "(built in)", sub);
		return ret;
	}
	memcpy(fl__cost_ps, ps, sizeof(ps));
	snprintf(prov.source, sizeof(prov.source), "%s", path ? path : "built in");
	fl__cost_prov = prov;
	return 0;
}

int fl_costs_write(FILE *f, const uint64_t *ps, const struct fl_cost_prov *prov,
		   const char *comment)
{
	int i;

	fprintf(f,
		"# foliolab cost file: what each operation of the model costs on a CPU, in ns\n");
	if (comment)
		fputs(comment, f);
	fprintf(f, "provenance.kernel %s\n", prov->kernel);
	fprintf(f, "provenance.cpu %s\n", prov->cpu);
	fprintf(f, "provenance.date %s\n", prov->date);
	fprintf(f, "provenance.command %s\n", prov->command);
	for (i = 0; i < FL_NR_COSTS; i++)
		fprintf(f, "cost.%s %.3f\n", fl__cost_info[i].name, (double)ps[i] / 1000.0);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
