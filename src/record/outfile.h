/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * outfile.h - the temporaries foliolab writes before it renames them into
 * place (outfile.c): each removed at exit and by a signal's handler.
 */
#ifndef FL_RECORD_OUTFILE_H
#define FL_RECORD_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * fl__tmp_create() - a new file or folder under @dir named @prefix.PID.N
 * (N the first free of 0..63), on the list of temporaries; its name in
 * @path. Return: an open fd (a file) or 0 (a folder), or -errno.
 */
int fl__tmp_create(const char *dir, const char *prefix, bool folder, char *path, size_t len);
/* fl__tmp_track() - put @path, which another program will create, on the list. 0 or -ENOSPC */
int fl__tmp_track(const char *path, bool folder);
/* fl__tmp_remove() - remove @path now and stop tracking it */
void fl__tmp_remove(const char *path, bool folder);
/* fl__tmp_cleanup() - async-signal-safe: remove this process's temporaries */
void fl__tmp_cleanup(void);

#endif /* FL_RECORD_OUTFILE_H */
