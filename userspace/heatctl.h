/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of heatctl with no system calls, unit-tested on the host. */
#ifndef HEATCTL_H
#define HEATCTL_H

#include <stdint.h>
#include <stdio.h>

#define HEATCTL_VERSION "0.1"

/* "none", "track", "move" or "0", "1", "2" to 0..2; -1 if invalid. */
int heat_opts_parse(const char *s);
/* 0..2 to "none", "track", "move"; "unknown" otherwise. */
const char *heat_opts_name(unsigned int opts);
/* Local date and time of ns since the epoch, "never" for 0. */
void format_time_ns(char *buf, size_t len, uint64_t ns);
/* An interval in the largest fitting unit: "850ms", "1.2s", "3.5min". */
void format_interval_ns(char *buf, size_t len, uint64_t ns);
/* A JSON string literal, quoted and escaped. */
void json_print_string(FILE *f, const char *s);
/* The 36-character form of a 16-byte UUID; @buf holds 37 bytes. */
void format_uuid(char *buf, const unsigned char *uuid);

/* heatctl.c */
void usage_print(FILE *f, const char * const *usage);
int usage_error(const char * const *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void error_path(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* top.c, where.c, mover.c */
int cmd_top(int argc, char **argv);
int cmd_where(int argc, char **argv);
const char *where_range_tier(int map_fd, const char *path, uint64_t start,
			     uint64_t len);
int cmd_status(int argc, char **argv);
int cmd_migrate(int argc, char **argv);

#endif
