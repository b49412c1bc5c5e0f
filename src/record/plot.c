// SPDX-License-Identifier: GPL-2.0-only
/*
 * plot.c - scaling plots as SVG, drawn by gnuplot (a well-kept Debian
 * package, gnuplot-nox; drawing axes, legends and SVG ourselves would be
 * code of ours for a solved job). The data go inline in the script, which
 * gnuplot reads on its standard input and whose SVG it writes to the
 * output file's stream.
 *
 * Conventions in this file: a panel is one graph of the figure, side by
 * side with the others; a series is one line (or, measured, points) of a
 * panel.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <foliolab/foliolab.h>

extern char **environ;

bool fl_plot_available(void)
{
	const char *path = getenv("PATH");
	char dir[4096];

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(dir, sizeof(dir), "%.*s/gnuplot", (int)n, path);
		if (n && !access(dir, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* @s with its double quotes and backslashes dropped: a gnuplot string */
static void put_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s != '"' && *s != '\\')
			fputc(*s, f);
	fputc('"', f);
}

static char *script(const struct fl_plot_panel *p, int np, const char *title, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int i, j, k;

	if (!f)
		return NULL;
	fprintf(f,
		"set terminal svg size %d,520 dynamic noenhanced font 'sans,11' background "
		"'white'\n",
		np * 560);
	for (i = 0; i < np; i++)
		for (j = 0; j < p[i].ns; j++) {
			if (!p[i].s[j].n)
				continue;
			fprintf(f, "$d%d_%d << EOD\n", i, j);
			for (k = 0; k < p[i].s[j].n; k++)
				fprintf(f, "%.9g %.9g\n", p[i].s[j].x[k], p[i].s[j].y[k]);
			fprintf(f, "EOD\n");
		}
	fprintf(f, "set multiplot layout 1,%d title ", np);
	put_text(f, title);
	fprintf(f, "\nset key below\nset grid\n");
	for (i = 0; i < np; i++) {
		double lo = 0, hi = 0, ymax = 0;
		bool any = false;

		for (j = 0; j < p[i].ns; j++)
			for (k = 0; k < p[i].s[j].n; k++) {
				if (p[i].s[j].y[k] > ymax)
					ymax = p[i].s[j].y[k];
				if (!any || p[i].s[j].x[k] < lo)
					lo = p[i].s[j].x[k];
				if (!any || p[i].s[j].x[k] > hi)
					hi = p[i].s[j].x[k];
				any = true;
			}
		/* one x alone: a range around it (gnuplot warns of an empty range) */
		if (any && lo == hi)
			fprintf(f, "set xrange [%.9g:%.9g]\n", p[i].logx ? lo / 2 : lo - 1,
				p[i].logx ? hi * 2 : hi + 1);
		else
			fprintf(f, "set xrange [*:*]\n");
		fprintf(f, "set title ");
		put_text(f, p[i].title);
		fprintf(f, "\nset xlabel ");
		put_text(f, p[i].xlabel);
		fprintf(f, "\nset ylabel ");
		put_text(f, p[i].ylabel);
		fprintf(f, "\n%s\nset yrange [0:%s]\nplot ",
			p[i].logx ? "set logscale x 2" : "unset logscale x", ymax > 0 ? "*" : "1");
		if (!any)
			fprintf(f, "NaN notitle");
		for (j = 0, k = 0; j < p[i].ns; j++) {
			if (!p[i].s[j].n)
				continue;
			fprintf(f, "%s$d%d_%d with %s lw 2 title ", k++ ? ", " : "", i, j,
				p[i].s[j].points   ? "points pt 7 ps 1.2"
				: p[i].s[j].n <= 2 ? "lines dt 2 lc 'gray40'"
						   : "linespoints pt 6");
			put_text(f, p[i].s[j].name);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int fl_plot_svg(FILE *out, const struct fl_plot_panel *p, int np, const char *title, char *err,
		size_t len)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "gnuplot", NULL };
	size_t n = 0, off = 0;
	char *text = script(p, np, title, &n);
	int pipefd[2], status, ret = 0;
	pid_t pid;

	if (!text) {
		snprintf(err, len, "--plot: out of memory");
		return -ENOMEM;
	}
	fflush(out);
	if (pipe(pipefd)) {
		ret = -errno;
		snprintf(err, len, "--plot: pipe: %s", strerror(errno));
		free(text);
		return ret;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[0], 0);
	posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	ret = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[0]);
	if (ret) {
		snprintf(err, len, "--plot: cannot run gnuplot: %s", strerror(ret));
		close(pipefd[1]);
		free(text);
		return -ret;
	}
	{
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);

		while (off < n) {
			ssize_t w = write(pipefd[1], text + off, n - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		signal(SIGPIPE, old);
	}
	close(pipefd[1]);
	free(text);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (off < n || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, len, "--plot: gnuplot failed (exit %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -EIO;
	}
	return 0;
}
