// SPDX-License-Identifier: GPL-2.0
/*
 * heatctl: see and steer btrfs hot data tracking and migration.
 *
 *	heatctl <command> [options] <path>...
 *
 * Each command has one usage array, printed by --help and on usage errors,
 * as in btrfs-progs. Exit status: 0 success, 1 a path failed, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

#include "heat-ioctl.h"
#include "heatctl.h"

#define EXIT_PATH_FAILED	1
#define EXIT_USAGE		2

static const char * const heatctl_usage[] = {
	"heatctl <command> [options] <path>...",
	"See and steer btrfs hot data tracking and migration.",
	"",
	"Commands:",
	"  set-opts <none|track|move|fast|slow> <path>...",
	"                  set per-file options (directories: for new files)",
	"  get-opts <path>...",
	"                  show per-file options",
	"  get-info [--live] <path>...",
	"                  show access counts, times and temperature",
	"  top [-n N] [--ranges] <mountpoint>",
	"                  show the hottest files or ranges (root)",
	"  where [-r] <path>...",
	"                  show how much of a file or tree is on each tier (root)",
	"  status <mountpoint>",
	"                  show the mover's state and counters",
	"  migrate <mountpoint>",
	"                  run one mover pass now",
	"",
	"Every command takes --help and -j/--json; options may follow the",
	"paths, and -- ends them. Commands that print sizes take btrfs-progs'",
	"unit options (--raw, -h, --iec, --si, -b/-k/-m/-g/-t); there -h means",
	"human-readable, not help.",
	"Exit status: 0 success, 1 some path failed, 2 usage error.",
	NULL
};

static const char * const cmd_set_opts_usage[] = {
	"heatctl set-opts [options] <none|track|move|fast|slow> <path>...",
	"Set the hot data options of files and directories.",
	"",
	"none (0) neither tracks nor moves a file, track (1) tracks it but never",
	"moves it, move (2, the default) tracks it and lets the mover place it.",
	"fast (3) and slow (4) pin it: the next pass moves it to that tier",
	"whatever its heat, and no pass moves it off.",
	"On a directory the value is inherited by files created in it.",
	"Needs what chattr needs: owning the file, or CAP_FOWNER; fast also",
	"needs CAP_SYS_ADMIN, as its space is taken from every other file.",
	"",
	"-r, --recursive   also every file and directory below each path, on",
	"                  the same filesystem",
	"-j, --json        print what was set as JSON (see heatctl(8))",
	"-h, --help        show this help",
	NULL
};

static const char * const cmd_get_opts_usage[] = {
	"heatctl get-opts [options] <path>...",
	"Show the hot data options of files and directories.",
	"",
	"-r, --recursive   also every file and directory below each path, on",
	"                  the same filesystem",
	"-j, --json        print JSON (see heatctl(8))",
	"-h, --help        show this help",
	NULL
};

static const char * const cmd_get_info_usage[] = {
	"heatctl get-info [options] <path>...",
	"Show how often and how recently files were read and written.",
	"",
	"The temperature runs from 0 (cold) to 223 (hot). By default it is the",
	"heat index bucket the file is in; --live computes it now.",
	"",
	"-l, --live        compute the temperature now",
	"-j, --json        print JSON (see heatctl(8))",
	"-h, --help        show this help",
	NULL
};

static const char *argv0 = "heatctl";

void usage_print(FILE *f, const char * const *usage)
{
	int i;

	fprintf(f, "usage: %s\n", usage[0]);
	for (i = 1; usage[i]; i++)
		fprintf(f, "%s%s\n", usage[i][0] ? "    " : "", usage[i]);
}

int usage_error(const char * const *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", argv0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_print(stderr, usage);
	return EXIT_USAGE;
}

/*
 * getopt_long() with the rules of every heatctl command: options may follow
 * operands (as in btrfs-progs), "--" ends them, and an unknown option or a
 * missing argument is reported once, by name, with the command's usage.
 * Returns the option, -1 after the last, or '?' after such a report.
 */
int heat_getopt(int argc, char **argv, const char *shortopts,
		const struct option *longopts, const char * const *usage)
{
	char opts[64];
	const char *arg;
	int c, prev = optind;

	snprintf(opts, sizeof(opts), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	/*
	 * The element that failed: still argv[optind] inside a cluster of
	 * short options ("-Zj"), argv[optind - 1] once getopt left it.
	 */
	arg = argv[optind == prev ? optind : optind - 1];
	if (strncmp(arg, "--", 2)) {
		if (c == ':')
			usage_error(usage, "option '-%c' needs a value", optopt);
		else
			usage_error(usage, "unknown option '-%c'", optopt);
	} else if (c == ':') {
		usage_error(usage, "option '%s' needs a value", arg);
	} else if (optopt) {
		usage_error(usage, "option '%.*s' takes no value",
			    (int)strcspn(arg, "="), arg);
	} else {
		usage_error(usage, "unknown option '%.*s'",
			    (int)strcspn(arg, "="), arg);
	}
	return '?';
}

/*
 * Say why a hot data ioctl failed on @path, telling apart what a user can
 * act on: not btrfs, a kernel without the feature, tracking off, no right.
 */
static void explain_ioctl_error(const char *path, int fd, int err)
{
	struct statfs sfs;

	/* Only when fstatfs() answers: an error of its own says nothing. */
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type != BTRFS_SUPER_MAGIC) {
		error_path(path, "not on a btrfs filesystem");
		return;
	}
	switch (err) {
	case ENOTTY:
		error_path(path, "this kernel has no btrfs hot data support");
		break;
	case EOPNOTSUPP:
		error_path(path, "hot data tracking is not enabled on this mount (mount -o hotdatatrack)");
		break;
	case EPERM:
	case EACCES:
		error_path(path, "permission denied: only the owner or CAP_FOWNER may set options");
		break;
	case EROFS:
		error_path(path, "read-only filesystem or subvolume");
		break;
	case EISDIR:
		error_path(path, "is a directory: heat is tracked for regular files");
		break;
	case EINVAL:
		error_path(path, "not a regular file or directory, or the kernel rejected the arguments");
		break;
	default:
		error_path(path, "%s", strerror(err));
		break;
	}
}

/*
 * Open @path for a hot data ioctl. Only regular files and directories have
 * hot data options or heat: anything else (a FIFO, a device, a socket) is
 * refused before it is opened, so that opening has no side effect.
 */
static int open_path(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0) {
		error_path(path, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		error_path(path, "not a regular file or directory");
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		error_path(path, "%s", strerror(errno));
	return fd;
}

/* ---- walks with -r ---- */

/*
 * A walk with -r stays on the filesystem of its operand. FTW_MOUNT would
 * also stop at every subvolume, which has a device number of its own, so
 * each device number met is classified once: another filesystem, this
 * one, or a read-only subvolume of this one (a snapshot).
 */
static struct {
	unsigned char fsid[BTRFS_FSID_SIZE];
	struct {
		dev_t dev;
		enum walk_fs kind;
	} *devs;
	int nr, max;
} walk_fs;

/* The fsid of the btrfs filesystem of open @fd in @fsid; -1 if none. */
static int btrfs_fsid(int fd, unsigned char *fsid)
{
	struct btrfs_ioctl_fs_info_args fsinfo;

	memset(&fsinfo, 0, sizeof(fsinfo));
	if (!fd_on_btrfs(fd) || ioctl(fd, BTRFS_IOC_FS_INFO, &fsinfo) < 0)
		return -1;
	memcpy(fsid, fsinfo.fsid, BTRFS_FSID_SIZE);
	return 0;
}

static enum walk_fs classify(const char *path)
{
	unsigned char fsid[BTRFS_FSID_SIZE];
	enum walk_fs kind = WALK_OTHER_FS;
	struct statfs sfs;
	__u64 flags = 0;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		/* Unreadable: statfs needs no permission, the fsid does. */
		if (statfs(path, &sfs) == 0 && sfs.f_type == BTRFS_SUPER_MAGIC)
			return WALK_SAME_FS;
		return WALK_OTHER_FS;
	}
	if (btrfs_fsid(fd, fsid) == 0 &&
	    !memcmp(fsid, walk_fs.fsid, BTRFS_FSID_SIZE)) {
		kind = WALK_SAME_FS;
		if (ioctl(fd, BTRFS_IOC_SUBVOL_GETFLAGS, &flags) == 0 &&
		    (flags & BTRFS_SUBVOL_RDONLY))
			kind = WALK_SAME_FS_RO;
	}
	close(fd);
	return kind;
}

int walk_start(const char *path)
{
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) < 0) {
		error_path(path, "%s", strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		error_path(path, "a symbolic link: -r does not follow it, give its target");
		return -1;
	}
	walk_fs.nr = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	ret = fd < 0 ? -1 : btrfs_fsid(fd, walk_fs.fsid);
	if (fd >= 0)
		close(fd);
	if (ret < 0) {
		error_path(path, "not on a btrfs filesystem");
		return -1;
	}
	/* The operand's own subvolume is walked, read-only or not. */
	return walk_fs_of(path, &st) == WALK_OTHER_FS ? -1 : 0;
}

enum walk_fs walk_fs_of(const char *path, const struct stat *st)
{
	enum walk_fs kind;
	int i;

	for (i = 0; i < walk_fs.nr; i++)
		if (walk_fs.devs[i].dev == st->st_dev)
			return walk_fs.devs[i].kind;
	kind = walk_fs.nr ? classify(path) : WALK_SAME_FS;
	if (walk_fs.nr == walk_fs.max) {
		int max = walk_fs.max ? 2 * walk_fs.max : 16;
		void *devs = realloc(walk_fs.devs, max * sizeof(*walk_fs.devs));

		/* Without memory, classify again next time. */
		if (!devs)
			return kind;
		walk_fs.devs = devs;
		walk_fs.max = max;
	}
	walk_fs.devs[walk_fs.nr].dev = st->st_dev;
	walk_fs.devs[walk_fs.nr++].kind = kind;
	return kind;
}

/* ---- set-opts / get-opts ---- */

struct opts_walk {
	int opts;		/* set-opts: the value; get-opts: -1 */
	bool json;
	int nr_out;		/* JSON objects printed so far */
	int ret;
};

/* nftw() passes no context pointer: the walk in progress. */
static struct opts_walk walk_ctx;

static int opts_one(const char *path, struct opts_walk *w)
{
	struct btrfs_ioctl_heat_opts args;
	int fd;

	fd = open_path(path);
	if (fd < 0)
		return EXIT_PATH_FAILED;
	memset(&args, 0, sizeof(args));
	if (w->opts >= 0) {
		args.opts = w->opts;
		if (ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, &args) < 0) {
			if (errno == EPERM && w->opts == BTRFS_HEAT_OPTS_FAST)
				error_path(path, "permission denied: pinning to the fast tier needs CAP_SYS_ADMIN (and owning the file or CAP_FOWNER)");
			else
				explain_ioctl_error(path, fd, errno);
			close(fd);
			return EXIT_PATH_FAILED;
		}
	} else if (ioctl(fd, BTRFS_IOC_GET_HEAT_OPTS, &args) < 0) {
		explain_ioctl_error(path, fd, errno);
		close(fd);
		return EXIT_PATH_FAILED;
	}
	close(fd);
	/* set-opts prints what it set with --json only, as chattr prints nothing. */
	if (w->json) {
		printf("%s\n  {\"path\": ", w->nr_out ? "," : "");
		json_print_string(stdout, path);
		printf(", \"opts\": \"%s\", \"value\": %u}",
		       heat_opts_name(args.opts), args.opts);
		w->nr_out++;
	} else if (w->opts < 0) {
		printf("%-6s %s\n", heat_opts_name(args.opts), path);
	}
	return 0;
}

static int opts_walk_fn(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	enum walk_fs kind;

	if (type == FTW_NS) {
		error_path(path, "cannot read");
		walk_ctx.ret = EXIT_PATH_FAILED;
		return FTW_CONTINUE;
	}
	kind = walk_fs_of(path, st);
	if (kind == WALK_OTHER_FS)
		return FTW_SKIP_SUBTREE;
	if (type == FTW_DNR) {
		error_path(path, "cannot read");
		walk_ctx.ret = EXIT_PATH_FAILED;
		return FTW_CONTINUE;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return FTW_CONTINUE;
	/* A snapshot below cannot be changed: say so once, at its root. */
	if (kind == WALK_SAME_FS_RO && walk_ctx.opts >= 0 && ftw->level > 0) {
		if (st->st_ino == BTRFS_FIRST_FREE_OBJECTID)
			warning_path(path, "a read-only subvolume, skipped");
		return FTW_SKIP_SUBTREE;
	}
	if (opts_one(path, &walk_ctx))
		walk_ctx.ret = EXIT_PATH_FAILED;
	return FTW_CONTINUE;
}

static int cmd_opts(int argc, char **argv, bool set)
{
	static const struct option longopts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char * const *usage = set ? cmd_set_opts_usage : cmd_get_opts_usage;
	struct opts_walk *w = &walk_ctx;
	bool recursive = false;
	int c, i;

	w->opts = -1;

	while ((c = heat_getopt(argc, argv, "rjh", longopts, usage)) != -1) {
		switch (c) {
		case 'r':
			recursive = true;
			break;
		case 'j':
			w->json = true;
			break;
		case 'h':
			usage_print(stdout, usage);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (set) {
		if (optind >= argc)
			return usage_error(usage, "missing value");
		w->opts = heat_opts_parse(argv[optind]);
		if (w->opts < 0)
			return usage_error(usage, "invalid value '%s': use none, track, move, fast, slow or 0..4",
					   argv[optind]);
		optind++;
	}
	if (optind >= argc)
		return usage_error(usage, "missing path");

	if (w->json)
		printf("[");
	for (i = optind; i < argc; i++) {
		if (recursive) {
			if (walk_start(argv[i]) < 0) {
				w->ret = EXIT_PATH_FAILED;
			} else if (nftw(argv[i], opts_walk_fn, 32,
					FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
				error_path(argv[i], "%s", strerror(errno));
				w->ret = EXIT_PATH_FAILED;
			}
		} else if (opts_one(argv[i], w)) {
			w->ret = EXIT_PATH_FAILED;
		}
	}
	if (w->json)
		printf("%s]\n", w->nr_out ? "\n" : "");
	return w->ret;
}

static int cmd_set_opts(int argc, char **argv)
{
	return cmd_opts(argc, argv, true);
}

static int cmd_get_opts(int argc, char **argv)
{
	return cmd_opts(argc, argv, false);
}

/* ---- get-info ---- */

static void print_info_human(const char *path,
			     const struct btrfs_ioctl_heat_info *hi, bool live)
{
	char buf[64];

	printf("%s:\n", path);
	if (!(hi->out_flags & BTRFS_HEAT_INFO_TRACKED)) {
		printf("\tnot tracked yet (no access reached the device since mount)\n");
		return;
	}
	printf("\treads:           %llu\n", (unsigned long long)hi->num_reads);
	printf("\twrites:          %llu\n", (unsigned long long)hi->num_writes);
	format_time_ns(buf, sizeof(buf), hi->last_read_time);
	printf("\tlast read:       %s\n", buf);
	format_time_ns(buf, sizeof(buf), hi->last_write_time);
	printf("\tlast write:      %s\n", buf);
	format_interval_ns(buf, sizeof(buf), hi->avg_delta_reads);
	printf("\tread interval:   %s\n", buf);
	format_interval_ns(buf, sizeof(buf), hi->avg_delta_writes);
	printf("\twrite interval:  %s\n", buf);
	printf("\ttemperature:     %u/%u (%s)\n", hi->temp, HEAT_TOP_TEMP,
	       live ? "live" : "heat index bucket");
}

static void print_info_json(const char *path,
			    const struct btrfs_ioctl_heat_info *hi, bool live)
{
	printf("  {\"path\": ");
	json_print_string(stdout, path);
	/*
	 * Many JSON readers keep integers exactly only up to 2^53, and times
	 * in nanoseconds since the epoch are past that: each time is also
	 * given in seconds and as a string of nanoseconds. The numbers in
	 * nanoseconds stay, as fields are never removed.
	 */
	printf(", \"tracked\": %s, \"reads\": %llu, \"writes\": %llu, "
	       "\"last_read_s\": %llu, \"last_read_ns_str\": \"%llu\", "
	       "\"last_write_s\": %llu, \"last_write_ns_str\": \"%llu\", "
	       "\"last_read_ns\": %llu, \"last_write_ns\": %llu, "
	       "\"avg_read_interval_ns\": %llu, \"avg_write_interval_ns\": %llu, "
	       "\"temperature\": %u, \"live\": %s}",
	       (hi->out_flags & BTRFS_HEAT_INFO_TRACKED) ? "true" : "false",
	       (unsigned long long)hi->num_reads,
	       (unsigned long long)hi->num_writes,
	       (unsigned long long)(hi->last_read_time / 1000000000ULL),
	       (unsigned long long)hi->last_read_time,
	       (unsigned long long)(hi->last_write_time / 1000000000ULL),
	       (unsigned long long)hi->last_write_time,
	       (unsigned long long)hi->last_read_time,
	       (unsigned long long)hi->last_write_time,
	       (unsigned long long)hi->avg_delta_reads,
	       (unsigned long long)hi->avg_delta_writes,
	       hi->temp, live ? "true" : "false");
}

static int cmd_get_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "live", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct btrfs_ioctl_heat_info hi;
	bool live = false, json = false;
	int c, i, ret = 0, nr_out = 0;

	while ((c = heat_getopt(argc, argv, "ljh", longopts,
				cmd_get_info_usage)) != -1) {
		switch (c) {
		case 'l':
			live = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage_print(stdout, cmd_get_info_usage);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(cmd_get_info_usage, "missing path");

	if (json)
		printf("[");
	for (i = optind; i < argc; i++) {
		int fd = open_path(argv[i]);

		if (fd < 0) {
			ret = EXIT_PATH_FAILED;
			continue;
		}
		memset(&hi, 0, sizeof(hi));
		if (live)
			hi.flags = BTRFS_HEAT_INFO_LIVE;
		if (ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, &hi) < 0) {
			explain_ioctl_error(argv[i], fd, errno);
			close(fd);
			ret = EXIT_PATH_FAILED;
			continue;
		}
		close(fd);
		if (json) {
			printf("%s\n", nr_out++ ? "," : "");
			print_info_json(argv[i], &hi, live);
		} else {
			print_info_human(argv[i], &hi, live);
		}
	}
	if (json)
		printf("%s]\n", nr_out ? "\n" : "");
	return ret;
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "set-opts", cmd_set_opts },
	{ "get-opts", cmd_get_opts },
	{ "get-info", cmd_get_info },
	{ "top", cmd_top },
	{ "where", cmd_where },
	{ "status", cmd_status },
	{ "migrate", cmd_migrate },
	{ NULL, NULL }
};

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2)
		return usage_error(heatctl_usage, "missing command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage_print(stdout, heatctl_usage);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("heatctl %s\n", HEATCTL_VERSION);
		return 0;
	}
	for (cmd = commands; cmd->name; cmd++) {
		if (!strcmp(argv[1], cmd->name)) {
			optind = 1;
			return cmd->fn(argc - 1, argv + 1);
		}
	}
	return usage_error(heatctl_usage, "unknown command '%s'", argv[1]);
}
