// SPDX-License-Identifier: GPL-2.0
/*
 * heatctl top: the hottest files or ranges of a filesystem, from the
 * kernel's BTRFS_IOC_HEAT_LIST. Root sees every subvolume; anyone else the
 * files they own in the subvolume of the given path. Inode numbers become
 * paths with BTRFS_IOC_INO_PATHS when the caller may use it (root), else by
 * a walk of the directories below the path, within its subvolume, that
 * stops once every file shown is named. Kernels without the ioctl are read
 * through their debugfs dump (/sys/kernel/debug/btrfs/<fsid>/), as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

#include "heatctl.h"
#include "heat-ioctl.h"

#define DEBUGFS "/sys/kernel/debug/btrfs"

const char * const cmd_top_usage[] = {
	"heatctl top [options] <path>",
	"Show the hottest files, or ranges, of a filesystem.",
	"",
	"Needs the filesystem mounted with -o hotdatatrack. Root sees the files",
	"of every subvolume; other users see the files they own in the",
	"subvolume of <path>, named by a walk of the directories below it.",
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
	if (ioctl(fd, BTRFS_IOC_INO_PATHS, &args) < 0)
		return NULL;
	if (c->elem_cnt < 1) {
		errno = ENOENT;
		return NULL;
	}
	return strdup((char *)c->val + c->val[0]);
}

/* Append @e to the array *@v of *@n entries, *@cap allocated. */
static int entry_add(struct heat_entry **v, size_t *n, size_t *cap,
		     const struct heat_entry *e)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct heat_entry *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = *e;
	return 0;
}

/*
 * Every entry BTRFS_IOC_HEAT_LIST shows the caller: of all subvolumes if it
 * may (*@all set), else of the subvolume of @fd. Return 0 or -errno of the
 * call that failed.
 */
static int read_list(int fd, bool ranges, bool *all, struct heat_entry **out,
		     size_t *nr)
{
	struct btrfs_heat_list_entry *buf;
	struct btrfs_ioctl_heat_list args;
	struct heat_entry *v = NULL, e;
	size_t n = 0, cap = 0;
	unsigned int i;
	int ret = 0;

	buf = calloc(BTRFS_HEAT_LIST_MAX_ENTRIES, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	memset(&args, 0, sizeof(args));
	args.flags = BTRFS_HEAT_LIST_ALL_SUBVOLS;
	if (ranges)
		args.flags |= BTRFS_HEAT_LIST_RANGES;
	for (;;) {
		args.entries = (uintptr_t)buf;
		args.nr_entries = BTRFS_HEAT_LIST_MAX_ENTRIES;
		if (ioctl(fd, BTRFS_IOC_HEAT_LIST, &args) < 0) {
			if (errno == EPERM && !n &&
			    (args.flags & BTRFS_HEAT_LIST_ALL_SUBVOLS)) {
				/* Not root: the files of this subvolume. */
				args.flags &= ~BTRFS_HEAT_LIST_ALL_SUBVOLS;
				continue;
			}
			ret = -errno;
			break;
		}
		for (i = 0; i < args.nr_entries && !ret; i++) {
			memset(&e, 0, sizeof(e));
			e.root = buf[i].root;
			e.ino = buf[i].ino;
			e.start = buf[i].start;
			e.len = buf[i].len;
			e.reads = buf[i].nr_reads;
			e.writes = buf[i].nr_writes;
			e.score = buf[i].score;
			e.temp = buf[i].temp;
			ret = entry_add(&v, &n, &cap, &e);
		}
		if (ret || (args.out_flags & BTRFS_HEAT_LIST_END))
			break;
	}
	free(buf);
	if (ret) {
		free(v);
		return ret;
	}
	*all = args.flags & BTRFS_HEAT_LIST_ALL_SUBVOLS;
	*out = v;
	*nr = n;
	return 0;
}

/* What the name walk looks for: the inode numbers of the files shown. */
static struct name_walk {
	dev_t dev;
	const unsigned long long *inos;
	char **paths;
	size_t nr, left;
} walk;

static int name_visit(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	size_t i;

	(void)ftw;
	if (st->st_dev != walk.dev)
		return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return FTW_CONTINUE;
	for (i = 0; i < walk.nr; i++) {
		if (walk.inos[i] == st->st_ino && !walk.paths[i]) {
			walk.paths[i] = strdup(path);
			if (walk.paths[i])
				walk.left--;
		}
	}
	return walk.left ? FTW_CONTINUE : FTW_STOP;
}

/*
 * Name the @nr inodes @inos of the subvolume of @dir by a walk of what the
 * caller may read below @dir, on its device only (another subvolume has
 * another): @paths[i] becomes the first path found, or stays NULL.
 */
static void names_by_walk(const char *dir, dev_t dev,
			  const unsigned long long *inos, char **paths,
			  size_t nr)
{
	walk.dev = dev;
	walk.inos = inos;
	walk.paths = paths;
	walk.nr = nr;
	walk.left = nr;
	if (nr)
		nftw(dir, name_visit, 64, FTW_PHYS | FTW_MOUNT | FTW_ACTIONRETVAL);
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
		if (entry_add(&v, &n, &cap, &e)) {
			free(v);
			fclose(f);
			return -ENOMEM;
		}
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
	bool ranges = false, json = false, all = false, by_walk = false;
	char uuid[40], file[256], **paths = NULL;
	unsigned long long *inos = NULL;
	const char *mnt, *bad = NULL;
	struct stat st;
	size_t nr = 0, shown, nr_own = 0, i;
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

	fd = open_btrfs(mnt, O_DIRECTORY, &fsinfo);
	if (fd < 0)
		return 1;
	memset(&lookup, 0, sizeof(lookup));
	lookup.objectid = BTRFS_FIRST_FREE_OBJECTID;
	if (ioctl(fd, BTRFS_IOC_INO_LOOKUP, &lookup) < 0) {
		error_path(mnt, "cannot query the filesystem: %s", strerror(errno));
		close(fd);
		return 1;
	}
	ret = read_list(fd, ranges, &all, &v, &nr);
	if (ret == -ENOTTY && geteuid() == 0) {
		/* A kernel without the ioctl: its debugfs dump. */
		format_uuid(uuid, fsinfo.fsid);
		snprintf(file, sizeof(file), "%s/%s/%s", DEBUGFS, uuid,
			 ranges ? "range_data" : "inode_data");
		ret = read_dump(file, ranges, &v, &nr);
		if (ret == -ENOENT)
			ret = -EOPNOTSUPP;
		else if (ret < 0)
			bad = file;
		all = true;
	} else if (ret == -ENOTTY) {
		error_path(mnt, "this kernel cannot list heat for other users than root (no BTRFS_IOC_HEAT_LIST)");
		close(fd);
		return 1;
	}
	if (ret == -EOPNOTSUPP) {
		error_path(mnt, "no heat data: not mounted with -o hotdatatrack%s",
			   bad ? ", or debugfs is not mounted on /sys/kernel/debug" : "");
		close(fd);
		return 1;
	} else if (ret < 0) {
		error_path(bad ? bad : mnt, "cannot list heat: %s", strerror(-ret));
		close(fd);
		return 1;
	}
	qsort(v, nr, sizeof(*v), cmp_entry);
	shown = nr < count ? nr : (size_t)count;

	/* The names of the files shown: from the kernel, or by a walk. */
	paths = calloc(shown + 1, sizeof(*paths));
	inos = calloc(shown + 1, sizeof(*inos));
	if (!paths || !inos) {
		error_path(mnt, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < shown; i++) {
		char *rel;

		if (v[i].root != lookup.treeid)
			continue;
		inos[nr_own++] = v[i].ino;
		if (by_walk)
			continue;
		rel = ino_path(fd, v[i].ino);
		if (!rel && errno == EPERM) {
			by_walk = true;
		} else if (rel) {
			if (asprintf(&paths[i], "%s/%s", strcmp(mnt, "/") ? mnt : "",
				     rel) < 0)
				paths[i] = NULL;
			free(rel);
		}
	}
	if (by_walk && fstat(fd, &st) == 0) {
		char **found = calloc(nr_own + 1, sizeof(*found));

		if (found) {
			size_t j = 0;

			names_by_walk(mnt, st.st_dev, inos, found, nr_own);
			for (i = 0; i < shown; i++)
				if (v[i].root == lookup.treeid)
					paths[i] = found[j++];
			free(found);
		}
	}

	if (json)
		printf("[");
	else if (ranges)
		printf("%4s %10s %12s %8s %5s  %s\n", "TEMP", "ACCESSES",
		       "OFFSET", "LENGTH", "TIER", "FILE");
	else
		printf("%4s %8s %8s %5s  %s\n", "TEMP", "READS", "WRITES",
		       "TIER", "FILE");
	for (i = 0; i < shown; i++) {
		const char *tier = "-";
		char *path = paths[i], *name = NULL;

		if (path)
			name = NULL;
		else if (v[i].root == lookup.treeid ?
			 asprintf(&name, "<inode %llu>", v[i].ino) < 0 :
			 asprintf(&name, "<subvol %llu>/inode %llu", v[i].root,
				  v[i].ino) < 0)
			name = NULL;
		/* Where the data is now. */
		if (path)
			tier = where_range_tier(fd, path, ranges ? v[i].start : 0,
						ranges ? v[i].len : 0);
		if (json) {
			printf("%s\n  {\"root\": %llu, \"inode\": %llu, \"path\": ",
			       i ? "," : "", v[i].root, v[i].ino);
			if (path)
				json_print_string(stdout, path);
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
			       tier, path ? path : name ? name : "?");
		} else {
			printf("%4d %8llu %8llu %5s  %s\n", v[i].temp, v[i].reads,
			       v[i].writes, tier, path ? path : name ? name : "?");
		}
		free(name);
	}
	if (json)
		printf("%s]\n", i ? "\n" : "");
	if (!all && !json && !nr)
		warning_path(mnt, "as a user other than root, only your own files in this subvolume are listed");
	ret = 0;
out:
	for (i = 0; paths && i < shown; i++)
		free(paths[i]);
	free(paths);
	free(inos);
	free(v);
	close(fd);
	return ret ? 1 : 0;
}
