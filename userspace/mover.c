// SPDX-License-Identifier: GPL-2.0
/*
 * heatctl status and heatctl migrate: the hot data mover of a mounted
 * filesystem, through its files in /sys/fs/btrfs/<uuid>/hot/ (mover_state,
 * the knobs, and mover_stats with one "name value" line per counter).
 * migrate writes 1 to mover_run, which returns when the pass has ended,
 * and reports the difference of the counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "heatctl.h"
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/magic.h>
#include "heat-ioctl.h"

#define MAX_STATS		64
#define EXIT_PATH_FAILED	1

struct stats {
	int nr;
	char name[MAX_STATS][32];
	unsigned long long val[MAX_STATS];
	bool neg[MAX_STATS];		/* negative: next_pass_in_s -1 */
	char result[32];
};

static const char * const cmd_status_usage[] = {
	"heatctl status [options] <mountpoint>",
	"Show the hot data mover's state, settings and counters.",
	"",
	"-j, --json        print a JSON object; sizes in bytes",
	"--history         also the last 16 passes, oldest first",
	"--plan            also what the next pass would move (a dry run, root)",
	SIZE_UNITS_USAGE,
	"--help            show this help",
	NULL
};

static const char * const cmd_migrate_usage[] = {
	"heatctl migrate [options] <mountpoint>",
	"Run one mover pass now, wait for it and report what it did.",
	"Needs root and a mount with -o hotdatamove.",
	"",
	"-j, --json        print a JSON object; sizes in bytes",
	"--dry-run         move nothing: show, file by file, what the pass",
	"                  would promote and demote",
	SIZE_UNITS_USAGE,
	"--help            show this help",
	NULL
};

/* The hot/ directory of the filesystem at @path in @dir; -1 after an error. */
static int hot_dir(const char *path, char *dir, size_t len)
{
	struct btrfs_ioctl_fs_info_args fsinfo;
	char uuid[40];
	int fd;

	fd = open_btrfs(path, O_DIRECTORY, &fsinfo);
	if (fd < 0)
		return -1;
	close(fd);
	format_uuid(uuid, fsinfo.fsid);
	snprintf(dir, len, "/sys/fs/btrfs/%s/hot", uuid);
	if (access(dir, F_OK) < 0) {
		error_path(path, "this kernel has no hot data support");
		return -1;
	}
	return 0;
}

/* Read a small sysfs file into @buf; returns -errno on failure. */
static int read_knob(const char *dir, const char *name, char *buf, size_t len)
{
	char file[160];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int read_stats(const char *dir, struct stats *st)
{
	char buf[2048], *line, *save = NULL;
	char file[160];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/mover_stats", dir);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	st->nr = 0;
	st->result[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && st->nr < MAX_STATS;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32], value[32];

		if (sscanf(line, "%31s %31s", name, value) != 2)
			continue;
		if (!strcmp(name, "last_pass_result")) {
			snprintf(st->result, sizeof(st->result), "%s", value);
			continue;
		}
		snprintf(st->name[st->nr], sizeof(st->name[0]), "%s", name);
		/* next_pass_in_s is -1 when the mover is not running. */
		st->neg[st->nr] = value[0] == '-';
		st->val[st->nr] = strtoull(value + st->neg[st->nr], NULL, 10);
		st->nr++;
	}
	return 0;
}

static unsigned long long stat_get(const struct stats *st, const char *name)
{
	int i;

	for (i = 0; i < st->nr; i++)
		if (!strcmp(st->name[i], name))
			return st->neg[i] ? 0 : st->val[i];
	return 0;
}

/*
 * Whether @name is a gauge (a value now) rather than a counter: a migrate
 * report shows counters as what its pass added, gauges as they are.
 */
static bool is_gauge(const char *name)
{
	return !strcmp(name, "fast_used_bytes") ||
	       !strcmp(name, "fast_capacity_bytes") ||
	       !strncmp(name, "last_", 5) ||
	       !strcmp(name, "next_pass_in_s") ||
	       !strcmp(name, "pass_in_progress") ||
	       !strcmp(name, "pins_pending");
}

static void print_stats_json(const struct stats *st, const struct stats *base)
{
	int i;

	for (i = 0; i < st->nr; i++) {
		unsigned long long v = st->val[i];

		/* In a migrate report, counters are what this pass added. */
		if (base && !is_gauge(st->name[i]))
			v -= stat_get(base, st->name[i]);
		printf(",\n  \"%s\": %s%llu", st->name[i],
		       st->neg[i] ? "-" : "", v);
	}
	printf(",\n  \"last_pass_result\": ");
	json_print_string(stdout, st->result);
}

static void print_skipped(const struct stats *st, const struct stats *base)
{
	static const char * const reasons[] = {
		"inline", "prealloc", "nocow", "shared", "opts", "busy",
		"pinned",
	};
	char name[32];
	size_t i;

	printf("skipped:      ");	/* e.g. "inline 0, prealloc 2, ..." */
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		snprintf(name, sizeof(name), "skipped_%s", reasons[i]);
		printf("%s%s %llu", i ? ", " : "", reasons[i],
		       stat_get(st, name) - (base ? stat_get(base, name) : 0));
	}
	printf("\n");
}

/*
 * @v as @u asks, in one of eight buffers that take turns, so that one
 * printf() can show several sizes.
 */
static const char *size_str(const struct size_units *u, unsigned long long v)
{
	static char buf[8][32];
	static unsigned int next;
	char *b = buf[next++ % 8];

	format_size(b, sizeof(buf[0]), v, u);
	return b;
}

static int parse_args(int argc, char **argv, const char * const *usage,
		      int *json, const char **path, struct size_units *units,
		      int *history, int *plan)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "history", no_argument, NULL, OPT_HISTORY },
		{ "plan", no_argument, NULL, OPT_PLAN },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, OPT_HELP },
		SIZE_UNITS_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*json = 0;
	*history = 0;
	*plan = 0;
	*units = SIZE_UNITS_DEFAULT;
	while ((c = heat_getopt(argc, argv, "j" SIZE_UNITS_SHORTOPTS, longopts,
				usage)) != -1) {
		if (size_units_option(c, units))
			continue;
		switch (c) {
		case 'j':
			*json = 1;
			break;
		case OPT_HISTORY:
			/* status only: migrate reports its own pass. */
			if (usage != cmd_status_usage)
				return usage_error(usage, "unknown option '--history'");
			*history = 1;
			break;
		case OPT_PLAN:
		case OPT_DRY_RUN:
			/* --plan for status, --dry-run for migrate. */
			if ((c == OPT_PLAN) != (usage == cmd_status_usage))
				return usage_error(usage, "unknown option '%s'",
						   c == OPT_PLAN ? "--plan" : "--dry-run");
			*plan = 1;
			break;
		case OPT_HELP:
			usage_print(stdout, usage);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1)
		return usage_error(usage, "one mount point expected");
	*path = argv[optind];
	return -1;
}

static int stats_error(const char *path, int err)
{
	if (err == -EOPNOTSUPP)
		error_path(path, "hot data tracking is not enabled on this mount (mount -o hotdatatrack or hotdatamove)");
	else
		error_path(path, "cannot read the mover's counters: %s",
			   strerror(-err));
	return EXIT_PATH_FAILED;
}

/*
 * What status and migrate both do first: parse the arguments, find the
 * hot/ directory and read the counters. Returns -1 to go on, otherwise
 * the exit status.
 */
static int mover_prologue(int argc, char **argv, const char * const *usage,
			  int *json, const char **path, struct size_units *units,
			  int *history, int *plan, char *dir, size_t len,
			  struct stats *st)
{
	int ret;

	ret = parse_args(argc, argv, usage, json, path, units, history, plan);
	if (ret >= 0)
		return ret;
	if (hot_dir(*path, dir, len) < 0)
		return EXIT_PATH_FAILED;
	ret = read_stats(dir, st);
	if (ret < 0)
		return stats_error(*path, ret);
	return -1;
}

/*
 * The mover's last passes from hot/mover_history, oldest first: as a JSON
 * member "history" of the status object, or as a table. Returns 0 or a
 * negative errno, after saying why.
 */
static int print_history(const char *dir, const char *path, bool json,
			 const struct size_units *units)
{
	unsigned long long nr, start, ms, promoted, demoted, displaced, used;
	char file[160], line[256], result[32], when[64];
	int n = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/mover_history", dir);
	f = fopen(file, "r");
	if (!f) {
		int err = -errno;

		error_path(path, "cannot read the pass history: %s%s",
			   strerror(-err),
			   err == -ENOENT ? " (a kernel without it)" : "");
		return err;
	}
	if (json)
		printf(",\n  \"history\": [");
	else
		printf("history:      the last passes, oldest first\n"
		       "%6s  %-19s %8s  %-9s %10s %10s %10s %10s\n", "PASS",
		       "START", "MS", "RESULT", "PROMOTED", "DEMOTED",
		       "DISPLACED", "FAST USED");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %llu %llu %31s %llu %llu %llu %llu", &nr,
			   &start, &ms, result, &promoted, &demoted, &displaced,
			   &used) != 8)
			continue;
		if (json) {
			printf("%s\n    {\"pass\": %llu, \"start\": %llu, "
			       "\"duration_ms\": %llu, \"result\": ",
			       n ? "," : "", nr, start, ms);
			json_print_string(stdout, result);
			printf(", \"promoted_bytes\": %llu, \"demoted_bytes\": %llu, "
			       "\"displaced_bytes\": %llu, \"fast_used_bytes\": %llu}",
			       promoted, demoted, displaced, used);
		} else {
			format_time_ns(when, sizeof(when), start * 1000000000ULL);
			printf("%6llu  %-19s %8llu  %-9s %10s %10s %10s %10s\n", nr,
			       when, ms, result, size_str(units, promoted),
			       size_str(units, demoted),
			       size_str(units, displaced), size_str(units, used));
		}
		n++;
	}
	fclose(f);
	if (json)
		printf("%s]", n ? "\n  " : "");
	else if (!n)
		printf("              no pass since mount\n");
	return 0;
}

/*
 * Write 1 to hot/@name (mover_run or mover_plan), which returns when the
 * pass or dry run has ended. Returns 0, or the exit status after saying
 * why it did not run.
 */
static int trigger(const char *dir, const char *name, const char *path)
{
	char file[160];
	int fd, ret;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && !strcmp(name, "mover_plan")) {
		error_path(path, "this kernel has no dry run of the mover");
		return EXIT_PATH_FAILED;
	} else if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			error_path(path, "permission denied (run a pass as root)");
		else
			error_path(path, "%s", strerror(errno));
		return EXIT_PATH_FAILED;
	}
	ret = write(fd, "1\n", 2) == 2 ? 0 : -errno;
	close(fd);
	if (ret == -EOPNOTSUPP) {
		error_path(path, "hot data migration is off on this mount (mount -o hotdatamove)");
		return EXIT_PATH_FAILED;
	} else if (ret == -EROFS) {
		error_path(path, "read-only mount: the mover does not run");
		return EXIT_PATH_FAILED;
	} else if (ret < 0) {
		error_path(path, "the pass did not run: %s", strerror(-ret));
		return EXIT_PATH_FAILED;
	}
	return 0;
}

/* hot/mover_plan, open for print_plan(); NULL after saying why not. */
static FILE *plan_open(const char *dir, const char *path)
{
	char file[160];
	FILE *f;

	snprintf(file, sizeof(file), "%s/mover_plan", dir);
	f = fopen(file, "r");
	if (!f)
		error_path(path, "cannot read the plan: %s", strerror(errno));
	return f;
}

/*
 * The last dry run, from @f (plan_open()), which it closes: as a JSON
 * member "plan" of the object being printed, or as text, with the files'
 * paths when @path is the root of the subvolume they are in.
 */
static void print_plan(FILE *f, const char *path, bool json,
		       const struct size_units *units)
{
	unsigned long long n[2] = { 0, 0 }, sum[2] = { 0, 0 };
	unsigned long long root, ino, bytes, more_files = 0, more_bytes = 0;
	struct btrfs_ioctl_ino_lookup_args lookup;
	char line[256], what[16], result[32] = "none";
	int fd, nr = 0, plen;
	struct stat st;

	/* INO_PATHS names a file from its subvolume's root: only there. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	memset(&lookup, 0, sizeof(lookup));
	lookup.objectid = BTRFS_FIRST_FREE_OBJECTID;
	if (fd >= 0 && (fstat(fd, &st) < 0 ||
			st.st_ino != BTRFS_FIRST_FREE_OBJECTID ||
			ioctl(fd, BTRFS_IOC_INO_LOOKUP, &lookup) < 0))
		lookup.treeid = 0;
	/* The path without its trailing slashes, "" for "/". */
	for (plen = strlen(path); plen > 0 && path[plen - 1] == '/'; plen--)
		;
	if (json)
		printf(",\n  \"plan\": {\"files\": [");
	while (fgets(line, sizeof(line), f)) {
		char *rel = NULL;
		int up;

		if (sscanf(line, "result %31s", result) == 1)
			continue;
		if (sscanf(line, "more %llu %llu", &more_files, &more_bytes) == 2)
			continue;
		if (sscanf(line, "%15s %llu %llu %llu", what, &root, &ino,
			   &bytes) != 4)
			continue;
		up = !strcmp(what, "promote");
		n[up]++;
		sum[up] += bytes;
		if (fd >= 0 && lookup.treeid && root == lookup.treeid)
			rel = ino_path(fd, ino);
		if (json) {
			printf("%s\n    {\"action\": \"%s\", \"root\": %llu, \"inode\": %llu, \"path\": ",
			       nr ? "," : "", up ? "promote" : "demote", root,
			       ino);
			if (rel) {
				char *full;

				if (asprintf(&full, "%.*s/%s", plen, path, rel) < 0)
					full = NULL;
				json_print_string(stdout, full ? full : rel);
				free(full);
			} else {
				printf("null");
			}
			printf(", \"bytes\": %llu}", bytes);
		} else {
			if (!nr)
				printf("plan:\n");
			if (rel)
				printf("  %-8s %10s  %.*s/%s\n", what,
				       size_str(units, bytes), plen, path, rel);
			else
				printf("  %-8s %10s  <subvol %llu>/inode %llu\n",
				       what, size_str(units, bytes), root, ino);
		}
		free(rel);
		nr++;
	}
	fclose(f);
	if (fd >= 0)
		close(fd);
	if (json) {
		printf("%s], \"result\": ", nr ? "\n  " : "");
		json_print_string(stdout, result);
		printf(", \"promote_bytes\": %llu, \"demote_bytes\": %llu, \"more_files\": %llu, \"more_bytes\": %llu}",
		       sum[1], sum[0], more_files, more_bytes);
		return;
	}
	if (!nr)
		printf("plan:         nothing to move\n");
	if (more_files)
		printf("  and %llu more file%s, %s\n", more_files,
		       more_files == 1 ? "" : "s", size_str(units, more_bytes));
	printf("plan result:  %s; promote %s in %llu file%s, demote %s in %llu file%s%s\n",
	       result, size_str(units, sum[1]), n[1], n[1] == 1 ? "" : "s",
	       size_str(units, sum[0]), n[0], n[0] == 1 ? "" : "s",
	       more_files ? ", besides the files above" : "");
}

int cmd_status(int argc, char **argv)
{
	const char *knobs[] = {
		"mover_interval", "mover_promote_temp", "mover_demote_temp",
		"mover_low_watermark", "mover_high_watermark", "mover_budget",
		"mem_used", "nr_ranges", "mover_displace_margin", "mover_grace",
		"mover_unshare", "mover_idle_gaps", "nr_saved", "nr_loaded",
	};
	char dir[128], state[32], val[14][32], when[64];
	const char *path;
	struct size_units units;
	struct stats st;
	unsigned long long used, cap;
	int json, ret, history, plan;
	FILE *plan_f = NULL;
	size_t i;

	ret = mover_prologue(argc, argv, cmd_status_usage, &json, &path, &units,
			     &history, &plan, dir, sizeof(dir), &st);
	if (ret >= 0)
		return ret;
	/* The dry run first: its messages come before the status. */
	if (plan) {
		ret = trigger(dir, "mover_plan", path);
		if (ret)
			return ret;
		plan_f = plan_open(dir, path);
		if (!plan_f)
			return EXIT_PATH_FAILED;
	}
	ret = read_knob(dir, "mover_state", state, sizeof(state));
	if (ret < 0)
		return stats_error(path, ret);
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (read_knob(dir, knobs[i], val[i], sizeof(val[i])) < 0)
			snprintf(val[i], sizeof(val[i]), "0");

	if (json) {
		printf("{\n  \"path\": ");
		json_print_string(stdout, path);
		printf(",\n  \"state\": ");
		json_print_string(stdout, state);
		for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
			printf(",\n  \"%s\": %s", knobs[i], val[i]);
		print_stats_json(&st, NULL);
		if (history)
			ret = print_history(dir, path, true, &units);
		if (plan_f)
			print_plan(plan_f, path, true, &units);
		printf("\n}\n");
		return ret < 0 ? EXIT_PATH_FAILED : 0;
	}
	used = stat_get(&st, "fast_used_bytes");
	cap = stat_get(&st, "fast_capacity_bytes");
	format_time_ns(when, sizeof(when),
		       stat_get(&st, "last_pass_start") * 1000000000ULL);
	printf("state:        %s\n", state);
	printf("interval:     %s s", val[0]);
	/* An idle mover keeps its timer: its next pass notices a new tier. */
	if (!strcmp(state, "running") || !strncmp(state, "idle", 4))
		printf(", next pass in %llu s", stat_get(&st, "next_pass_in_s"));
	printf("\n");
	printf("passes:       %llu, last %s, %llu ms, %s\n",
	       stat_get(&st, "passes"), when, stat_get(&st, "last_pass_ms"),
	       st.result);
	printf("promoted:     %llu ranges, %s\n",
	       stat_get(&st, "promoted_ranges"),
	       size_str(&units, stat_get(&st, "promoted_bytes")));
	printf("demoted:      %llu ranges, %s\n",
	       stat_get(&st, "demoted_ranges"),
	       size_str(&units, stat_get(&st, "demoted_bytes")));
	print_skipped(&st, NULL);
	printf("fast tier:    %s of %s used (%llu%%) after the last pass, watermarks %s%%..%s%%\n",
	       size_str(&units, used), size_str(&units, cap), cap ? used * 100 / cap : 0, val[3], val[4]);
	printf("policy:       promote at temperature %s, demote under %s, %s per pass\n",
	       val[1], val[2], size_str(&units, strtoull(val[5], NULL, 10)));
	printf("tracking:     %s ranges, %s of memory; %s ranges kept at the last save, %s loaded at mount\n",
	       val[7], size_str(&units, strtoull(val[6], NULL, 10)), val[12],
	       val[13]);
	printf("displacement: hotter by %s to displace, %s displaced; grace after mount %s s\n",
	       val[8], size_str(&units, stat_get(&st, "displaced_bytes")),
	       val[9]);
	if (strcmp(val[11], "0"))
		printf("stopped:      data idle for %s of its mean intervals counts as cold\n",
		       val[11]);
	else
		printf("stopped:      off\n");
	printf("hot writes:   %s written to the fast tier\n",
	       size_str(&units, stat_get(&st, "hot_written_bytes")));
	printf("snapshots:    unshare from read-only snapshots %s, %s unshared\n",
	       strcmp(val[10], "1") ? "off" : "on",
	       size_str(&units, stat_get(&st, "unshared_bytes")));
	printf("pins:         %s moved for pinned files, %llu files waiting for a pass, %llu notes dropped\n",
	       size_str(&units, stat_get(&st, "pinned_bytes")),
	       stat_get(&st, "pins_pending"), stat_get(&st, "pins_dropped"));
	printf("fast full:    %llu passes, errors: %llu\n",
	       stat_get(&st, "fast_full"), stat_get(&st, "errors"));
	ret = history ? print_history(dir, path, false, &units) : 0;
	if (plan_f)
		print_plan(plan_f, path, false, &units);
	return ret < 0 ? EXIT_PATH_FAILED : 0;
}

int cmd_migrate(int argc, char **argv)
{
	char dir[128];
	const char *path;
	struct size_units units;
	struct stats before, after;
	int json, ret, history, plan;

	ret = mover_prologue(argc, argv, cmd_migrate_usage, &json, &path,
			     &units, &history, &plan, dir, sizeof(dir), &before);
	if (ret >= 0)
		return ret;

	ret = trigger(dir, plan ? "mover_plan" : "mover_run", path);
	if (ret)
		return ret;
	if (plan) {
		/* A dry run moves nothing and counts nothing: just the plan. */
		FILE *f = plan_open(dir, path);

		if (!f)
			return EXIT_PATH_FAILED;
		if (json) {
			printf("{\n  \"path\": ");
			json_print_string(stdout, path);
		}
		print_plan(f, path, json, &units);
		if (json)
			printf("\n}\n");
		return 0;
	}
	ret = read_stats(dir, &after);
	if (ret < 0)
		return stats_error(path, ret);

	if (json) {
		printf("{\n  \"path\": ");
		json_print_string(stdout, path);
		print_stats_json(&after, &before);
		printf("\n}\n");
		return 0;
	}
	printf("pass:         %llu ms, %s\n", stat_get(&after, "last_pass_ms"),
	       after.result);
	printf("promoted:     %llu ranges, %s\n",
	       stat_get(&after, "promoted_ranges") -
	       stat_get(&before, "promoted_ranges"),
	       size_str(&units, stat_get(&after, "promoted_bytes") -
			stat_get(&before, "promoted_bytes")));
	printf("demoted:      %llu ranges, %s\n",
	       stat_get(&after, "demoted_ranges") -
	       stat_get(&before, "demoted_ranges"),
	       size_str(&units, stat_get(&after, "demoted_bytes") -
			stat_get(&before, "demoted_bytes")));
	print_skipped(&after, &before);
	printf("pinned:       %s of them moved for pinned files\n",
	       size_str(&units, stat_get(&after, "pinned_bytes") -
			stat_get(&before, "pinned_bytes")));
	printf("fast tier:    %s of %s used\n",
	       size_str(&units, stat_get(&after, "fast_used_bytes")),
	       size_str(&units, stat_get(&after, "fast_capacity_bytes")));
	return 0;
}
