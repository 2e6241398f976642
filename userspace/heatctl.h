/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of heatctl with no system calls, unit-tested on the host. */
#ifndef HEATCTL_H
#define HEATCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#define HEATCTL_VERSION "0.1"

/* The hottest temperature the kernel reports (BTRFS_HOT_TOP_TEMP). */
#define HEAT_TOP_TEMP	223U

/* "none", "track", "move", "fast", "slow" or "0".."4" to 0..4; -1 if not. */
int heat_opts_parse(const char *s);
/* 0..4 to "none", "track", "move", "fast", "slow"; "unknown" otherwise. */
const char *heat_opts_name(unsigned int opts);
/* Local date and time of ns since the epoch, "never" for 0. */
void format_time_ns(char *buf, size_t len, uint64_t ns);
/* An interval in the largest fitting unit: "850ms", "1.2s", "3.5min". */
void format_interval_ns(char *buf, size_t len, uint64_t ns);
/*
 * A JSON string literal, quoted and escaped. Valid UTF-8 is written as it
 * is; a byte that is not part of valid UTF-8 becomes \u00XX with the
 * byte's value, so that the output stays valid JSON for any file name.
 */
void json_print_string(FILE *f, const char *s);
/* A decimal number without sign, blanks or trailing characters; -1 if not. */
int parse_u64(const char *s, uint64_t *v);

/*
 * How to print sizes, set by btrfs-progs' unit options: human-readable
 * (the default) or a fixed unit, in powers of 1024 (the default, --iec)
 * or of 1000 (--si).
 */
struct size_units {
	unsigned int base;	/* 1024 or 1000 */
	int unit;		/* -1 human-readable, 0 bytes, 1..4 K, M, G, T */
};

#define SIZE_UNITS_DEFAULT	((struct size_units){ 1024, -1 })

/* Long options without a short one (past any character). */
enum {
	OPT_RAW = 256,
	OPT_IEC,
	OPT_SI,
	OPT_HELP,	/* --help where -h is --human-readable */
	OPT_HISTORY,
	OPT_CHUNK_TREE,
	OPT_PLAN,
	OPT_DRY_RUN,
};

/* The unit options, for a command's struct option array. */
#define SIZE_UNITS_LONGOPTS						\
	{ "raw", no_argument, NULL, OPT_RAW },				\
	{ "human-readable", no_argument, NULL, 'h' },			\
	{ "iec", no_argument, NULL, OPT_IEC },				\
	{ "si", no_argument, NULL, OPT_SI },				\
	{ "kbytes", no_argument, NULL, 'k' },				\
	{ "mbytes", no_argument, NULL, 'm' },				\
	{ "gbytes", no_argument, NULL, 'g' },				\
	{ "tbytes", no_argument, NULL, 't' }
#define SIZE_UNITS_SHORTOPTS	"bhHkmgt"
/* The lines of a usage array that describe them. */
#define SIZE_UNITS_USAGE						\
	"--raw, -b         sizes in bytes",				\
	"-h, --human-readable",						\
	"                  sizes in the unit that fits (the default)",	\
	"-H                human-readable in powers of 1000",		\
	"--iec, --si       powers of 1024 (KiB, the default) or 1000 (kB)", \
	"-k, -m, -g, -t    sizes in KiB, MiB, GiB or TiB (kB... with --si)"

/* Apply unit option @c to @u; 0 if @c is not one. */
int size_units_option(int c, struct size_units *u);
/* @bytes as @u asks: "1.50GiB", "1610612736" (raw) or "1.61GB" (--si). */
void format_size(char *buf, size_t len, uint64_t bytes,
		 const struct size_units *u);
/* The 36-character form of a 16-byte UUID; @buf holds 37 bytes. */
void format_uuid(char *buf, const unsigned char *uuid);

#ifndef BTRFS_SUPER_MAGIC
#define BTRFS_SUPER_MAGIC 0x9123683E
#endif

/* common.c: what every command does with its operands */
/* "ERROR: PATH: message" and "WARNING: PATH: message" on stderr. */
void error_path(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void warning_path(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Whether open @fd is on a btrfs filesystem. */
bool fd_on_btrfs(int fd);
/*
 * Open @path (O_RDONLY | O_CLOEXEC and @flags) and check that it is on
 * btrfs; with @fsinfo, fill it with BTRFS_IOC_FS_INFO. The descriptor, or
 * -1 after an error that names @path.
 */
struct btrfs_ioctl_fs_info_args;
int open_btrfs(const char *path, int flags,
	       struct btrfs_ioctl_fs_info_args *fsinfo);

/* heatctl.c */
void usage_print(FILE *f, const char * const *usage);
int usage_error(const char * const *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int heat_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, const char * const *usage);
/*
 * A walk with -r: walk_start() checks operand @path (a symbolic link is
 * refused, it must be on btrfs) and remembers its filesystem, and
 * walk_fs_of() tells whether an entry met in the walk is on it (nested
 * subvolumes included), and whether in a read-only subvolume below the
 * operand's. -1 and a message when walk_start() fails.
 */
enum walk_fs { WALK_OTHER_FS, WALK_SAME_FS, WALK_SAME_FS_RO };
int walk_start(const char *path);
enum walk_fs walk_fs_of(const char *path, const struct stat *st);

/* top.c, where.c, mover.c */
int cmd_top(int argc, char **argv);
/* The path of inode @ino of the subvolume of @fd (root only), or NULL. */
char *ino_path(int fd, unsigned long long ino);
int cmd_where(int argc, char **argv);
const char *where_range_tier(int map_fd, const char *path, uint64_t start,
			     uint64_t len);
int cmd_status(int argc, char **argv);
int cmd_migrate(int argc, char **argv);

#endif
