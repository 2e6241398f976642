// SPDX-License-Identifier: GPL-2.0
/*
 * heatctl top: the hottest files or ranges of a filesystem, read from the
 * kernel's debugfs dump (/sys/kernel/debug/btrfs/<fsid>/), which needs
 * root. Inode numbers become paths with BTRFS_IOC_INO_PATHS for the
 * subvolume mounted at the given mount point; items of other subvolumes
 * are shown as "<subvol ID>/inode INO".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

#include "heatctl.h"

#ifndef BTRFS_SUPER_MAGIC
#define BTRFS_SUPER_MAGIC 0x9123683E
#endif
#define DEBUGFS "/sys/kernel/debug/btrfs"

const char * const cmd_top_usage[] = {
	"heatctl top [options] <mountpoint>",
	"Show the hottest files, or ranges, of a filesystem.",
	"",
	"Reads the kernel's heat dump in debugfs: needs root, debugfs mounted",
	"on /sys/kernel/debug and the filesystem mounted with -o hotdatatrack.",
	"",
	"-n, --count N     show N entries (default 10)",
	"-r, --ranges      show ranges instead of files",
	"-j, --json        print JSON (see heatctl(8))",
	"-h, --help        show this help",
	NULL
};

/* A score counts accesses in units of 1/4096 access. */
#define SCORE_ONE	4096.0

/*
 * A file (reads, writes) or a range (score: decayed accesses as of its
 * last access; the kernel keeps no counters per range).
 */
struct heat_entry {
	unsigned long long root, ino, start, len, reads, writes, score;
	int temp;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct heat_entry *x = a, *y = b;

	if (x->temp != y->temp)
		return y->temp - x->temp;
	if (x->score != y->score)
		return y->score > x->score ? 1 : -1;
	if (x->reads + x->writes != y->reads + y->writes)
		return y->reads + y->writes > x->reads + x->writes ? 1 : -1;
	return 0;
}

/* The path of inode @ino of the subvolume of @fd, or NULL. */
char *ino_path(int fd, unsigned long long ino)
{
	char buf[4096];
	struct btrfs_data_container *c = (struct btrfs_data_container *)buf;
	struct btrfs_ioctl_ino_path_args args;

	memset(&args, 0, sizeof(args));
	args.inum = ino;
	args.size = sizeof(buf);
	args.fspath = (unsigned long)buf;
	if (ioctl(fd, BTRFS_IOC_INO_PATHS, &args) < 0 || c->elem_cnt < 1)
		return NULL;
	return strdup((char *)c->val + c->val[0]);
}

static int read_dump(const char *file, bool ranges, struct heat_entry **out,
		     size_t *nr)
{
	struct heat_entry *v = NULL, e;
	size_t n = 0, cap = 0;
	char line[512];
	FILE *f;
	int got;

	f = fopen(file, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		memset(&e, 0, sizeof(e));
		if (ranges)
			got = sscanf(line, "%llu %llu %llu %llu %*u %*u %d %*d %llu",
				     &e.root, &e.ino, &e.start, &e.len,
				     &e.temp, &e.score);
		else
			got = sscanf(line, "%llu %llu %llu %llu %*u %*u %*u %*u %d",
				     &e.root, &e.ino, &e.reads, &e.writes,
				     &e.temp);
		if (got != (ranges ? 6 : 5))
			continue;
		if (n == cap) {
			struct heat_entry *nv;

			cap = cap ? cap * 2 : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = e;
	}
	fclose(f);
	*out = v;
	*nr = n;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "ranges", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct btrfs_ioctl_ino_lookup_args lookup;
	struct btrfs_ioctl_fs_info_args fsinfo;
	struct heat_entry *v = NULL;
	bool ranges = false, json = false;
	char uuid[40], file[256];
	const char *mnt;
	struct statfs sfs;
	size_t nr = 0, i;
	uint64_t count = 10;
	int c, fd, ret;

	while ((c = heat_getopt(argc, argv, "n:rjh", longopts,
				cmd_top_usage)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, &count) || count < 1 ||
			    count > INT_MAX)
				return usage_error(cmd_top_usage,
						   "invalid count '%s': a number from 1 to %d",
						   optarg, INT_MAX);
			break;
		case 'r':
			ranges = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage_print(stdout, cmd_top_usage);
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc - 1)
		return usage_error(cmd_top_usage, "one mount point expected");
	mnt = argv[optind];

	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		error_path(mnt, "%s", strerror(errno));
		return 1;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != BTRFS_SUPER_MAGIC) {
		error_path(mnt, "not on a btrfs filesystem");
		close(fd);
		return 1;
	}
	memset(&fsinfo, 0, sizeof(fsinfo));
	memset(&lookup, 0, sizeof(lookup));
	lookup.objectid = BTRFS_FIRST_FREE_OBJECTID;
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fsinfo) < 0 ||
	    ioctl(fd, BTRFS_IOC_INO_LOOKUP, &lookup) < 0) {
		error_path(mnt, "cannot query the filesystem: %s", strerror(errno));
		close(fd);
		return 1;
	}
	format_uuid(uuid, fsinfo.fsid);
	snprintf(file, sizeof(file), "%s/%s/%s", DEBUGFS, uuid,
		 ranges ? "range_data" : "inode_data");
	ret = read_dump(file, ranges, &v, &nr);
	if (ret == -ENOENT) {
		error_path(mnt, "no heat data: not mounted with -o hotdatatrack, or debugfs is not mounted on /sys/kernel/debug");
		close(fd);
		return 1;
	} else if (ret < 0) {
		error_path(file, "%s", strerror(-ret));
		close(fd);
		return 1;
	}
	qsort(v, nr, sizeof(*v), cmp_entry);

	if (json)
		printf("[");
	else if (ranges)
		printf("%4s %10s %12s %8s %5s  %s\n", "TEMP", "ACCESSES",
		       "OFFSET", "LENGTH", "TIER", "FILE");
	else
		printf("%4s %8s %8s %5s  %s\n", "TEMP", "READS", "WRITES",
		       "TIER", "FILE");
	for (i = 0; i < nr && i < (size_t)count; i++) {
		char *rel = v[i].root == lookup.treeid ? ino_path(fd, v[i].ino) : NULL;
		const char *tier = "-";
		char *path = NULL;

		if (rel) {
			if (asprintf(&path, "%s/%s", strcmp(mnt, "/") ? mnt : "", rel) < 0)
				path = NULL;
		} else if (asprintf(&path, "<subvol %llu>/inode %llu", v[i].root,
				    v[i].ino) < 0) {
			path = NULL;
		}
		/* Where the data is now, from FIEMAP and the chunk tree. */
		if (rel && path)
			tier = where_range_tier(fd, path, ranges ? v[i].start : 0,
						ranges ? v[i].len : 0);
		if (json) {
			printf("%s\n  {\"root\": %llu, \"inode\": %llu, \"path\": ",
			       i ? "," : "", v[i].root, v[i].ino);
			if (rel)
				json_print_string(stdout, path ? path : "");
			else
				printf("null");
			if (ranges)
				printf(", \"offset\": %llu, \"length\": %llu, \"temperature\": %d, \"accesses\": %.3f",
				       v[i].start, v[i].len, v[i].temp,
				       v[i].score / SCORE_ONE);
			else
				printf(", \"temperature\": %d, \"reads\": %llu, \"writes\": %llu",
				       v[i].temp, v[i].reads, v[i].writes);
			printf(", \"tier\": ");
			json_print_string(stdout, tier);
			printf("}");
		} else if (ranges) {
			printf("%4d %10.1f %12llu %8llu %5s  %s\n", v[i].temp,
			       v[i].score / SCORE_ONE, v[i].start, v[i].len,
			       tier, path ? path : "?");
		} else {
			printf("%4d %8llu %8llu %5s  %s\n", v[i].temp, v[i].reads,
			       v[i].writes, tier, path ? path : "?");
		}
		free(rel);
		free(path);
	}
	if (json)
		printf("%s]\n", i ? "\n" : "");
	free(v);
	close(fd);
	return 0;
}
