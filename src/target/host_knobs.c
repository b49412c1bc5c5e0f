// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_knobs.c - the host's THP knobs under /sys/kernel/mm/transparent_hugepage
 * and the vm sysctls the model has (vm/<name>: /proc/sys/vm/<name>):
 * names and values checked against what each file offers before anything
 * changes, and every change recorded for undo first (host_rundir.c:
 * the restore file, the signal handlers, `foliolab host restore`).
 *
 * Conventions in this file: a knob "name" is the model's sysfs-style name,
 * its "path" the file under fl__host_sysfs_root().
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"
#include "../lib/util.h"

/* where the vm sysctls are: FOLIOLAB_HOST_PROCSYS_VM (tests), else /proc/sys/vm */
static const char *procsys_vm_root(void)
{
	const char *r = getenv("FOLIOLAB_HOST_PROCSYS_VM");

	return r && *r ? r : "/proc/sys/vm";
}

/* @name ("vm/swappiness") is a sysctl of the knob table's that the host has too */
static bool is_vm_knob(const char *name)
{
	const struct fl_knob_info *k = fl_knob_find(name);

	return k && (k->flags & FL_KNOB_HOST);
}

bool fl__host_is_vm_knob_path(const char *path)
{
	const char *root = procsys_vm_root();
	size_t n = strlen(root);
	char name[FL_NAME_MAX];

	if (strncmp(path, root, n) || path[n] != '/')
		return false;
	snprintf(name, sizeof(name), HOST_VM_PREFIX "%s", path + n + 1);
	return is_vm_knob(name);
}

const char *fl__host_sysfs_root(void)
{
	const char *r = getenv("FOLIOLAB_HOST_SYSFS");

	return r && *r ? r : "/sys/kernel/mm/transparent_hugepage";
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int fl__host_knob_read(const char *path, char *val, size_t len)
{
	char raw[512], *lb, *rb;
	int ret = read_small(path, raw, sizeof(raw));

	if (ret)
		return ret;
	lb = strchr(raw, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (lb && rb) {
		*rb = '\0';
		snprintf(val, len, "%s", lb + 1);
	} else {
		fl__host_trim(raw);
		snprintf(val, len, "%s", raw);
	}
	return 0;
}

/* Does the knob file at @path take @value? Bracket lists name their words. */
static bool knob_accepts(const char *path, const char *value, char *words, size_t wlen)
{
	char raw[512], *tok, *save = NULL;
	bool ok = false;
	size_t i;

	words[0] = '\0';
	if (read_small(path, raw, sizeof(raw)))
		return false;
	if (!strchr(raw, '[')) {
		snprintf(words, wlen, "a whole number");
		for (i = 0; value[i]; i++)
			if (!isdigit((unsigned char)value[i]))
				return false;
		return i > 0 && i < 20;
	}
	for (tok = strtok_r(raw, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		size_t n;

		if (*tok == '[')
			tok++;
		n = strlen(tok);
		if (n && tok[n - 1] == ']')
			tok[n - 1] = '\0';
		if (!strcmp(tok, value))
			ok = true;
		strncat(words, words[0] ? ", " : "", wlen - strlen(words) - 1);
		strncat(words, tok, wlen - strlen(words) - 1);
	}
	return ok;
}

static int knob_path(const char *name, char *path, size_t len, char *err, size_t elen)
{
	char names[200];
	const char *rest;
	struct stat st;

	if (!strncmp(name, "foliolab/", 9)) {
		snprintf(err, elen,
			 "%s is a model policy; the host kernel runs its own (use it with "
			 "--target=model)",
			 name);
		return -EINVAL;
	}
	if (!strncmp(name, HOST_VM_PREFIX, strlen(HOST_VM_PREFIX))) {
		if (!is_vm_knob(name)) {
			fl_knob_names(FL_KNOB_HOST, names, sizeof(names));
			snprintf(err, elen, "host knob %s: accepted vm knobs are %s", name, names);
			return -EINVAL;
		}
		rest = name + strlen(HOST_VM_PREFIX);
		snprintf(path, len, "%s/%s", procsys_vm_root(), rest);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			snprintf(err, elen,
				 "host knob %s: this kernel has no %s; nothing was changed", name,
				 path);
			return -EINVAL;
		}
		return 0;
	}
	if (strncmp(name, HOST_THP_PREFIX, strlen(HOST_THP_PREFIX)) != 0) {
		fl_knob_names(FL_KNOB_HOST, names, sizeof(names));
		snprintf(err, elen, "host knob %s: accepted names under %s (e.g. %senabled) and %s",
			 name, HOST_THP_PREFIX, HOST_THP_PREFIX, names);
		return -EINVAL;
	}
	rest = name + strlen(HOST_THP_PREFIX);
	if (!*rest || *rest == '/' || strstr(rest, "..")) {
		snprintf(err, elen, "host knob %s: not a knob name", name);
		return -EINVAL;
	}
	snprintf(path, len, "%s/%s", fl__host_sysfs_root(), rest);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, elen, "host knob %s: this kernel has no %s; nothing was changed",
			 name, path);
		return -EINVAL;
	}
	return 0;
}

int fl__host_knobs_check(const struct fl_knobs *k, char *err, size_t len)
{
	char path[HOST_PATH_MAX], words[256];
	int i, ret;

	for (i = 0; i < k->nr; i++) {
		ret = knob_path(k->v[i].name, path, sizeof(path), err, len);
		if (ret)
			return ret;
		if (!knob_accepts(path, k->v[i].value, words, sizeof(words))) {
			snprintf(err, len, "host knob %s: '%s' is not accepted; accepted: %s",
				 k->v[i].name, k->v[i].value, words);
			return -EINVAL;
		}
		if (!strncmp(k->v[i].name, HOST_VM_PREFIX, strlen(HOST_VM_PREFIX)) &&
		    fl_knob_check(fl_knob_find(k->v[i].name), k->v[i].value, words,
				  sizeof(words))) {
			snprintf(err, len, "host knob %s: %s", k->v[i].name, words);
			return -EINVAL;
		}
		if (access(path, W_OK)) {
			snprintf(err, len,
				 "changing host knobs needs root (%s: %s); run as root, or with "
				 "--no-knobs to use the host's settings",
				 path, strerror(errno));
			return -EPERM;
		}
	}
	return k->nr ? fl__host_other_runs(true, err, len) : 0;
}

int fl__host_knobs_apply(const struct fl_knobs *k, char *err, size_t len)
{
	static struct fl__host_change ch[FL_MAX_KNOBS];
	static char paths[FL_MAX_KNOBS][HOST_PATH_MAX], olds[FL_MAX_KNOBS][FL_VALUE_MAX];
	char path[HOST_PATH_MAX], cur[FL_VALUE_MAX];
	int i, j, n = 0, ret;

	ret = fl__host_knobs_check(k, err, len);
	if (ret)
		return ret;
	for (i = 0; i < k->nr; i++) {
		knob_path(k->v[i].name, path, sizeof(path), err, len);
		for (j = 0; j < n; j++)
			if (!strcmp(paths[j], path))
				break;
		if (j < n || fl__host_undo_pending(HOST_UNDO_KNOB, path))
			continue;
		if (fl__host_knob_read(path, cur, sizeof(cur))) {
			snprintf(err, len, "cannot read %s; nothing was changed", path);
			return -EIO;
		}
		if (!strcmp(cur, k->v[i].value))
			continue;
		snprintf(paths[n], sizeof(paths[n]), "%s", path);
		snprintf(olds[n], sizeof(olds[n]), "%s", cur);
		ch[n] = (struct fl__host_change){ HOST_UNDO_KNOB, paths[n], olds[n] };
		n++;
	}
	if (!n)
		return 0;
	fl__host_knobs_register(); /* how the undo log puts a knob back */
	ret = fl__host_undo_record(ch, n, err, len);
	if (ret)
		return ret;
	for (i = 0; i < k->nr; i++) {
		knob_path(k->v[i].name, path, sizeof(path), err, len);
		ret = fl__host_write_file(path, k->v[i].value);
		if (!ret &&
		    (fl__host_knob_read(path, cur, sizeof(cur)) || strcmp(cur, k->v[i].value)))
			ret = -EIO;
		if (ret) {
			snprintf(err, len, "host knob %s=%s: %s; every knob was put back",
				 k->v[i].name, k->v[i].value, strerror(-ret));
			fl__host_knobs_restore();
			return ret;
		}
	}
	return 0;
}

int fl__host_knobs_restore(void)
{
	if (!fl__host_undo_pending(HOST_UNDO_KNOB, NULL))
		return 0;
	if (fl__host_undo(HOST_UNDO_KNOB, NULL)) {
		fprintf(stderr,
			"foliolab: could not put back every host knob; the restore file stays for "
			"'foliolab host restore'\n");
		return -EIO;
	}
	return 0;
}

static void add_knob(struct fl_knobs *out, const char *rel)
{
	char path[HOST_PATH_MAX], name[FL_NAME_MAX], val[FL_VALUE_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", fl__host_sysfs_root(), rel);
	if (stat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & S_IWUSR))
		return;
	if (fl__host_knob_read(path, val, sizeof(val)))
		return;
	snprintf(name, sizeof(name), HOST_THP_PREFIX "%s", rel);
	fl_knobs_set(out, name, val);
}

/*
 * Boot options of the host's kernel that change what the model counts, as
 * read-only knobs "cmdline/<option>": pvm_no_zero_page=1 (a test aid of
 * our hosts' kernels: a read fault takes a page of its own, as
 * foliolab/no_zero_page=on makes the model do).
 */
static void add_cmdline_knobs(struct fl_knobs *out)
{
	char line[4096], *tok, *save = NULL;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strncmp(tok, "pvm_no_zero_page=", 17))
			fl_knobs_set(out, "cmdline/pvm_no_zero_page", tok + 17);
}

/*
 * Build options of the host's kernel that change what the model counts, as
 * read-only knobs "config/<option>" (y or n), from /proc/config.gz where
 * the kernel offers it (IKCONFIG_PROC; read through gzip, which every
 * Debian system has): CONFIG_NO_PAGE_MAPCOUNT (no per-page mapcounts, as
 * foliolab/page_mapcount=off makes the model do).
 */
static void add_config_knobs(struct fl_knobs *out)
{
	static const char opt[] = "CONFIG_NO_PAGE_MAPCOUNT";
	char line[256];
	bool found = false, set = false;
	FILE *f;

	if (access("/proc/config.gz", R_OK))
		return;
	f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, opt, sizeof(opt) - 1) && line[sizeof(opt) - 1] == '=') {
			found = true;
			set = line[sizeof(opt)] == 'y';
		} else if (!strncmp(line, "# CONFIG_", 9) && strstr(line, opt)) {
			found = true;
		}
	}
	if (pclose(f) == 0 && found)
		fl_knobs_set(out,
			     "config/"
			     "CONFIG_NO_PAGE_MAPCOUNT",
			     set ? "y" : "n");
}

int fl__host_knobs_read(struct fl_knobs *out)
{
	static const char *const top[] = { "enabled", "defrag", "use_zero_page", "shrink_underused",
					   "shmem_enabled" };
	static const char *const khp[] = {
		"defrag",	 "max_ptes_none",	 "max_ptes_shared",	 "max_ptes_swap",
		"pages_to_scan", "scan_sleep_millisecs", "alloc_sleep_millisecs"
	};
	const struct fl_knob_info *vk;
	char rel[128];
	size_t i;
	int kb;

	out->nr = 0;
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		add_knob(out, top[i]);
	/* every size the kernel offers, smallest first */
	for (kb = 4; kb <= (1 << 20); kb *= 2) {
		struct stat st;

		snprintf(rel, sizeof(rel), "%s/hugepages-%dkB", fl__host_sysfs_root(), kb);
		if (stat(rel, &st))
			continue;
		snprintf(rel, sizeof(rel), "hugepages-%dkB/enabled", kb);
		add_knob(out, rel);
		snprintf(rel, sizeof(rel), "hugepages-%dkB/shmem_enabled", kb);
		add_knob(out, rel);
	}
	for (i = 0; i < sizeof(khp) / sizeof(khp[0]); i++) {
		snprintf(rel, sizeof(rel), "khugepaged/%s", khp[i]);
		add_knob(out, rel);
	}
	for (i = 0; (vk = fl_knob_info_at(i)); i++) {
		char path[HOST_PATH_MAX], val[FL_VALUE_MAX];

		if (!(vk->flags & FL_KNOB_HOST))
			continue;
		snprintf(path, sizeof(path), "%s/%s", procsys_vm_root(),
			 vk->name + strlen(HOST_VM_PREFIX));
		if (fl__host_knob_read(path, val, sizeof(val)))
			continue;
		fl_knobs_set(out, vk->name, val);
	}
	add_cmdline_knobs(out);
	add_config_knobs(out);
	return 0;
}

FL_API int fl_host_knobs(struct fl_knobs *out)
{
	return fl__host_knobs_read(out);
}

static int knob_undo(const char *path, const char *old)
{
	return fl__host_write_file(path, old);
}

/*
 * a killed run's knob line: only a file under the sysfs folder or one of
 * the vm sysctls, never where a tampered file points; read back after
 */
static int knob_restore(const char *path, const char *old, const char *pidname, FILE *out)
{
	const char *root = fl__host_sysfs_root();
	char val[FL_VALUE_MAX], cur[FL_VALUE_MAX];

	snprintf(val, sizeof(val), "%s", old);
	fl__host_trim(val);
	if ((strncmp(path, root, strlen(root)) != 0 && !fl__host_is_vm_knob_path(path)) ||
	    strstr(path, "..")) {
		fprintf(out, "skipped %s: not a knob under %s or a vm sysctl foliolab sets\n", path,
			root);
		return -1;
	}
	if (fl__host_write_file(path, val) || fl__host_knob_read(path, cur, sizeof(cur)) ||
	    strcmp(cur, val)) {
		fprintf(out, "could not restore %s to %s\n", path, val);
		return -1;
	}
	fprintf(out, "restored %s = %s (run %s)\n", path, val, pidname);
	return 0;
}

void fl__host_knobs_register(void)
{
	static const struct fl__host_undo_ops ops = { .undo = knob_undo, .restore = knob_restore };

	fl__host_undo_register(HOST_UNDO_KNOB, &ops);
}
