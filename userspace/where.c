// SPDX-License-Identifier: GPL-2.0
/*
 * heatctl where: how many bytes of a file lie on fast and on slow devices.
 *
 * Independent of heat tracking: FIEMAP gives the file's extents as btrfs
 * logical addresses, the chunk tree (BTRFS_IOC_TREE_SEARCH, root only)
 * maps them to device stripes, and a device is on the tier the kernel
 * places data by (/sys/fs/btrfs/<fsid>/devinfo/<devid>/tier, which an
 * operator may override), or, on a kernel without tiers, fast when the
 * block layer says it is not rotational.
 * A chunk with several stripes (DUP, RAID1) counts once, on the tier of
 * its first stripe's device; "mixed" when its stripes disagree.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "heatctl.h"
#include "heat-ioctl.h"


const char * const cmd_where_usage[] = {
	"heatctl where [options] <path>...",
	"Show how many bytes of each file lie on fast and on slow devices.",
	"",
	"Asks the kernel (BTRFS_IOC_GET_TIER_BYTES), which needs only read",
	"access to the files; an older kernel's answer comes from FIEMAP and the",
	"chunk tree, which needs root. A device is on the tier the kernel gives",
	"it (devinfo/<devid>/tier in sysfs). Inline bytes are on no device,",
	"holes count nowhere. Not heat tracking: works on any btrfs.",
	"",
	"-r, --recursive   add up the files below each directory, on the same",
	"                  filesystem, and show the directories with the most",
	"                  bytes on the fast tier",
	"-j, --json        print JSON (see heatctl(8)); sizes in bytes",
	"--chunk-tree      map through FIEMAP and the chunk tree even where the",
	"                  kernel can answer (root)",
	SIZE_UNITS_USAGE,
	"--help            show this help",
	NULL
};

enum tier { TIER_SLOW, TIER_FAST, TIER_MIXED, TIER_NONE, NR_TIERS };
static const char * const tier_names[NR_TIERS] = {
	"slow", "fast", "mixed", "none"
};

struct chunk {
	uint64_t start, len;
	enum tier tier;
};

struct fs_map {
	struct chunk *chunks;
	size_t nr;
};

/* The kernel's tier of device @devid: 1 fast, 0 slow, -1 if it has none. */
static int dev_tier(const char *fsid, uint64_t devid)
{
	char sys[128], buf[16] = "";
	FILE *f;

	snprintf(sys, sizeof(sys), "/sys/fs/btrfs/%s/devinfo/%llu/tier", fsid,
		 (unsigned long long)devid);
	f = fopen(sys, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	/* "fast" or "slow", then " (auto)" when not overridden. */
	if (!strncmp(buf, "fast", 4))
		return 1;
	if (!strncmp(buf, "slow", 4))
		return 0;
	return -1;
}

/*
 * Is the device with this devid fast? The kernel's tier, or on a kernel
 * without tiers whether the device is non-rotational; -1 if unknown.
 */
static int dev_fast(int fd, const char *fsid, uint64_t devid)
{
	struct btrfs_ioctl_dev_info_args di;
	char path[PATH_MAX], sys[PATH_MAX + 64];
	struct stat st;
	FILE *f;
	int rot = dev_tier(fsid, devid);

	if (rot >= 0)
		return rot;
	memset(&di, 0, sizeof(di));
	di.devid = devid;
	if (ioctl(fd, BTRFS_IOC_DEV_INFO, &di) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s", (char *)di.path);
	if (stat(path, &st) < 0)
		return -1;
	/* /sys/dev/block/MAJ:MIN/ is the device or partition; try both. */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/queue/rotational",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(sys, "r");
	if (!f) {
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/../queue/rotational",
			 major(st.st_rdev), minor(st.st_rdev));
		f = fopen(sys, "r");
	}
	if (!f)
		return -1;
	if (fscanf(f, "%d", &rot) != 1)
		rot = -1;
	fclose(f);
	return rot < 0 ? -1 : !rot;
}

static int load_chunks(int fd, struct fs_map *map)
{
	size_t bufsz = 64 * 1024;
	struct btrfs_ioctl_search_args_v2 *args;
	struct btrfs_ioctl_search_header *sh;
	uint64_t min_offset = 0;
	struct btrfs_ioctl_fs_info_args fsinfo;
	char fsid[40] = "";
	int devfast[256];
	size_t off, i;
	int ret = 0;

	for (i = 0; i < 256; i++)
		devfast[i] = -2;
	memset(&fsinfo, 0, sizeof(fsinfo));
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fsinfo) == 0)
		format_uuid(fsid, fsinfo.fsid);
	args = calloc(1, sizeof(*args) + bufsz);
	if (!args)
		return -ENOMEM;
	for (;;) {
		memset(&args->key, 0, sizeof(args->key));
		args->key.tree_id = BTRFS_CHUNK_TREE_OBJECTID;
		args->key.min_objectid = BTRFS_FIRST_CHUNK_TREE_OBJECTID;
		args->key.max_objectid = BTRFS_FIRST_CHUNK_TREE_OBJECTID;
		args->key.min_type = BTRFS_CHUNK_ITEM_KEY;
		args->key.max_type = BTRFS_CHUNK_ITEM_KEY;
		args->key.min_offset = min_offset;
		args->key.max_offset = UINT64_MAX;
		args->key.max_transid = UINT64_MAX;
		args->key.nr_items = 4096;
		args->buf_size = bufsz;
		if (ioctl(fd, BTRFS_IOC_TREE_SEARCH_V2, args) < 0) {
			ret = -errno;
			break;
		}
		if (args->key.nr_items == 0)
			break;
		for (off = 0, i = 0; i < args->key.nr_items; i++) {
			struct btrfs_chunk *c;
			struct chunk *nc;
			int s, nstripes, t = -2;

			sh = (struct btrfs_ioctl_search_header *)(args->buf + off);
			c = (struct btrfs_chunk *)(sh + 1);
			off += sizeof(*sh) + sh->len;
			min_offset = sh->offset + 1;
			if (!(le64toh(c->type) & BTRFS_BLOCK_GROUP_DATA))
				continue;
			nstripes = le16toh(c->num_stripes);
			for (s = 0; s < nstripes; s++) {
				uint64_t devid = le64toh((&c->stripe)[s].devid);
				int f;

				if (devid < 256 && devfast[devid] != -2) {
					f = devfast[devid];
				} else {
					f = dev_fast(fd, fsid, devid);
					if (devid < 256)
						devfast[devid] = f;
				}
				if (t == -2)
					t = f;
				else if (t != f)
					t = 2;
			}
			nc = realloc(map->chunks, (map->nr + 1) * sizeof(*nc));
			if (!nc) {
				ret = -ENOMEM;
				goto out;
			}
			map->chunks = nc;
			nc[map->nr].start = sh->offset;
			nc[map->nr].len = le64toh(c->length);
			nc[map->nr].tier = t == 1 ? TIER_FAST : t == 0 ? TIER_SLOW :
					   t == 2 ? TIER_MIXED : TIER_NONE;
			map->nr++;
		}
		if (min_offset == 0)
			break;
	}
out:
	free(args);
	return ret;
}

/* The chunk tree lists chunks by logical address: a binary search. */
static enum tier tier_of(const struct fs_map *map, uint64_t logical)
{
	size_t lo = 0, hi = map->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct chunk *c = &map->chunks[mid];

		if (logical < c->start)
			hi = mid;
		else if (logical >= c->start + c->len)
			lo = mid + 1;
		else
			return c->tier;
	}
	return TIER_NONE;
}

/* Add up the bytes of @fd's extents in [@from, @to) per tier. */
static int file_tiers(int fd, const struct fs_map *map, uint64_t *bytes,
		      uint64_t from, uint64_t to)
{
	const unsigned int n = 256;
	struct fiemap *fm;
	uint64_t start = from;
	bool last = false;
	unsigned int i;

	fm = calloc(1, sizeof(*fm) + n * sizeof(struct fiemap_extent));
	if (!fm)
		return -ENOMEM;
	while (!last && start < to) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = to - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = n;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			int err = -errno;

			free(fm);
			return err;
		}
		if (fm->fm_mapped_extents == 0)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];
			uint64_t lo = e->fe_logical, hi = lo + e->fe_length;
			enum tier t = TIER_NONE;

			if (!(e->fe_flags & (FIEMAP_EXTENT_DATA_INLINE |
					     FIEMAP_EXTENT_DELALLOC |
					     FIEMAP_EXTENT_UNKNOWN)))
				t = tier_of(map, e->fe_physical);
			/* Extents may start before @from or end after @to. */
			if (lo < from)
				lo = from;
			if (hi > to)
				hi = to;
			if (hi > lo)
				bytes[t] += hi - lo;
			start = e->fe_logical + e->fe_length;
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				last = true;
		}
	}
	free(fm);
	return 0;
}

/*
 * How the files of the command are mapped to tiers: by the kernel's
 * BTRFS_IOC_GET_TIER_BYTES, or, on a kernel without it or with
 * --chunk-tree, by FIEMAP and the chunk tree in @map, loaded on first use.
 */
static struct mapper {
	bool chunks;
	int map_fd;		/* any fd of the filesystem, for the chunk tree */
	struct fs_map map;		/* of the chunk tree */
	bool loaded;
	int load_err;			/* the chunk tree could not be read */
} mp;

/* Add up the bytes of @fd in [@from, @to) per tier, as @mp says. */
static int file_tiers_any(int fd, uint64_t *bytes, uint64_t from, uint64_t to)
{
	struct btrfs_ioctl_tier_bytes tb;

	if (!mp.chunks) {
		memset(&tb, 0, sizeof(tb));
		tb.start = from;
		tb.len = to - from;
		/* As FIEMAP_FLAG_SYNC: where the data will be, not is now. */
		tb.flags = BTRFS_TIER_BYTES_SYNC;
		if (ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, &tb) == 0) {
			bytes[TIER_FAST] += tb.fast_bytes;
			bytes[TIER_SLOW] += tb.slow_bytes;
			bytes[TIER_MIXED] += tb.mixed_bytes;
			bytes[TIER_NONE] += tb.inline_bytes;
			return 0;
		}
		if (errno != ENOTTY)
			return -errno;
		mp.chunks = true;
	}
	if (mp.load_err)
		return mp.load_err;
	if (!mp.loaded) {
		int err = load_chunks(mp.map_fd, &mp.map);

		if (err) {
			/* A map read in part would not be sorted: none. */
			free(mp.map.chunks);
			mp.map.chunks = NULL;
			mp.map.nr = 0;
			mp.load_err = err;
			return err;
		}
		mp.loaded = true;
	}
	return file_tiers(fd, &mp.map, bytes, from, to);
}

static void mapper_reset(int map_fd, bool chunks)
{
	free(mp.map.chunks);
	memset(&mp, 0, sizeof(mp));
	mp.map_fd = map_fd;
	mp.chunks = chunks;
}

#define TOP_DIRS	10

/* A directory and the bytes of the files below it. */
struct dir_use {
	char *path;
	uint64_t fast, total;
};

/* A file with several links, counted at its first. */
struct inode_key {
	dev_t dev;
	ino_t ino;
};

/*
 * where -r: one walk in progress (nftw() passes no context pointer). The
 * walk is in pre-order, so that it can skip another filesystem's subtree;
 * dirs[] holds the directories from the operand down to the entry being
 * walked, each adding up the files below it, and a directory is passed up
 * when the walk leaves it.
 */
static struct tree_walk {
	uint64_t bytes[NR_TIERS];
	uint64_t files;
	uint64_t pinned_fast, pinned_slow;	/* bytes of pinned files */
	struct dir_use *dirs;
	int nr_dirs, max_dirs;
	struct dir_use top[TOP_DIRS];	/* most fast bytes first */
	int nr_top;
	void *linked;			/* tsearch() tree of inode_key */
	int err;			/* the last error of a file */
} tw;

static int inode_cmp(const void *a, const void *b)
{
	const struct inode_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static int top_insert(const char *path, uint64_t fast, uint64_t total)
{
	char *copy;
	int i;

	if (!fast || (tw.nr_top == TOP_DIRS && fast <= tw.top[TOP_DIRS - 1].fast))
		return 0;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	if (tw.nr_top == TOP_DIRS)
		free(tw.top[--tw.nr_top].path);
	for (i = tw.nr_top; i > 0 && tw.top[i - 1].fast < fast; i--)
		tw.top[i] = tw.top[i - 1];
	tw.top[i].path = copy;
	tw.top[i].fast = fast;
	tw.top[i].total = total;
	tw.nr_top++;
	return 0;
}

/* Leave the directories at depth @level and below; everything is counted. */
static int dirs_leave(int level)
{
	int ret = 0;

	while (tw.nr_dirs > level) {
		struct dir_use *d = &tw.dirs[--tw.nr_dirs];

		if (tw.nr_dirs > 0) {
			tw.dirs[tw.nr_dirs - 1].fast += d->fast;
			tw.dirs[tw.nr_dirs - 1].total += d->total;
			if (!ret)
				ret = top_insert(d->path, d->fast, d->total);
		}
		free(d->path);
	}
	return ret;
}

static int dirs_enter(const char *path)
{
	struct dir_use *d;

	if (tw.nr_dirs == tw.max_dirs) {
		d = realloc(tw.dirs, (tw.max_dirs + 16) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		tw.dirs = d;
		tw.max_dirs += 16;
	}
	d = &tw.dirs[tw.nr_dirs];
	d->path = strdup(path);
	if (!d->path)
		return -ENOMEM;
	d->fast = 0;
	d->total = 0;
	tw.nr_dirs++;
	return 0;
}

/* Whether a file with several links was counted before; -ENOMEM. */
static int linked_seen(const struct stat *st)
{
	struct inode_key *k, **found;

	k = malloc(sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	found = tsearch(k, &tw.linked, inode_cmp);
	if (!found) {
		free(k);
		return -ENOMEM;
	}
	if (*found != k) {
		free(k);
		return 1;
	}
	return 0;
}

static int tree_walk_fn(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	uint64_t bytes[NR_TIERS] = { 0 };
	int fd, err, t;

	err = dirs_leave(ftw->level);
	if (err)
		goto stop;
	/* Another filesystem's mount point may be unreadable: skip it too. */
	if (type == FTW_NS ||
	    (type == FTW_DNR && walk_fs_of(path, st) != WALK_OTHER_FS)) {
		error_path(path, "cannot read");
		tw.err = -EACCES;
		return FTW_CONTINUE;
	}
	if (type == FTW_DNR)
		return FTW_CONTINUE;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return FTW_CONTINUE;
	/* Read-only snapshots below are counted: their files are there. */
	if (walk_fs_of(path, st) == WALK_OTHER_FS)
		return FTW_SKIP_SUBTREE;
	if (type == FTW_D) {
		err = dirs_enter(path);
		if (err)
			goto stop;
		return FTW_CONTINUE;
	}
	if (st->st_nlink > 1) {
		err = linked_seen(st);
		if (err < 0)
			goto stop;
		if (err)
			return FTW_CONTINUE;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		error_path(path, "%s", strerror(errno));
		tw.err = -errno;
		return FTW_CONTINUE;
	}
	err = file_tiers_any(fd, bytes, 0, FIEMAP_MAX_OFFSET);
	if (err && mp.load_err) {
		/* No chunk tree, no answer for any file: stop, say it once. */
		close(fd);
		goto stop;
	}
	if (!err) {
		struct btrfs_ioctl_heat_opts opts;
		uint64_t sum = 0;

		/* A kernel without hot data options has no pins. */
		memset(&opts, 0, sizeof(opts));
		for (t = 0; t < NR_TIERS; t++)
			sum += bytes[t];
		if (ioctl(fd, BTRFS_IOC_GET_HEAT_OPTS, &opts) == 0) {
			if (opts.opts == BTRFS_HEAT_OPTS_FAST)
				tw.pinned_fast += sum;
			else if (opts.opts == BTRFS_HEAT_OPTS_SLOW)
				tw.pinned_slow += sum;
		}
	}
	close(fd);
	if (err) {
		error_path(path, "%s", strerror(-err));
		tw.err = err;
		return FTW_CONTINUE;
	}
	tw.files++;
	for (t = 0; t < NR_TIERS; t++) {
		tw.bytes[t] += bytes[t];
		if (tw.nr_dirs)
			tw.dirs[tw.nr_dirs - 1].total += bytes[t];
	}
	if (tw.nr_dirs)
		tw.dirs[tw.nr_dirs - 1].fast += bytes[TIER_FAST];
	return FTW_CONTINUE;
stop:
	errno = -err;
	return FTW_STOP;
}

/*
 * The files below @path, on its filesystem only (nested subvolumes
 * included), added up in @bytes: a file with several links once; their
 * count in tw.files and the directories with the most fast bytes in
 * tw.top. A file that cannot be read is named, the sums go on without it,
 * and tw.err is set. Returns 0; 1 if @path cannot be walked (said why); or
 * -errno if the walk itself stopped (the sums are then partial and not to
 * be shown).
 */
static int tree_tiers(const char *path, uint64_t *bytes)
{
	int ret, t;

	memset(&tw, 0, sizeof(tw));
	if (walk_start(path) < 0)
		return 1;
	errno = 0;
	ret = nftw(path, tree_walk_fn, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	if (ret == FTW_STOP)
		ret = -(errno ? errno : ENOMEM);
	else if (ret < 0)
		ret = -errno;
	if (dirs_leave(0) && !ret)
		ret = -ENOMEM;
	for (t = 0; t < NR_TIERS; t++)
		bytes[t] = tw.bytes[t];
	free(tw.dirs);
	tdestroy(tw.linked, free);
	return ret;
}

static void tree_free(void)
{
	int i;

	for (i = 0; i < tw.nr_top; i++)
		free(tw.top[i].path);
	tw.nr_top = 0;
}

int cmd_where(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "chunk-tree", no_argument, NULL, OPT_CHUNK_TREE },
		{ "help", no_argument, NULL, OPT_HELP },
		SIZE_UNITS_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct size_units units = SIZE_UNITS_DEFAULT;
	bool json = false, recursive = false, chunk_tree = false;
	int c, i, ret = 0, nr_out = 0;
	char size[32], size2[32];

	while ((c = heat_getopt(argc, argv, "jr" SIZE_UNITS_SHORTOPTS, longopts,
				cmd_where_usage)) != -1) {
		if (size_units_option(c, &units))
			continue;
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'r':
			recursive = true;
			break;
		case OPT_CHUNK_TREE:
			chunk_tree = true;
			break;
		case OPT_HELP:
			usage_print(stdout, cmd_where_usage);
			return 0;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return usage_error(cmd_where_usage, "missing path");

	if (json)
		printf("[");
	for (i = optind; i < argc; i++) {
		uint64_t bytes[NR_TIERS] = { 0 };
		struct stat st;
		uint64_t total;
		int fd, err, t;

		/* Refused before it is opened: opening a device may act. */
		if (stat(argv[i], &st) < 0) {
			error_path(argv[i], "%s", strerror(errno));
			ret = 1;
			continue;
		}
		if (S_ISDIR(st.st_mode) && !recursive) {
			error_path(argv[i], "a directory: -r adds up the files below it");
			ret = 1;
			continue;
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			error_path(argv[i], "not a regular file or directory");
			ret = 1;
			continue;
		}
		fd = open_btrfs(argv[i], O_NONBLOCK, NULL);
		if (fd < 0) {
			ret = 1;
			continue;
		}
		mapper_reset(fd, chunk_tree);
		if (recursive) {
			err = tree_tiers(argv[i], bytes);
			/* A file that failed is named; the sums go on. */
			if (tw.err)
				ret = 1;
			if (err == 1) {
				/* walk_start() said why. */
				close(fd);
				ret = 1;
				continue;
			}
			if (err)
				tree_free();
		} else {
			err = file_tiers_any(fd, bytes, 0, FIEMAP_MAX_OFFSET);
		}
		close(fd);
		if (err) {
			error_path(argv[i], "%s%s", strerror(-err),
				   err == -EPERM ? " (the chunk tree needs root)" : "");
			ret = 1;
			continue;
		}
		total = bytes[TIER_SLOW] + bytes[TIER_FAST] + bytes[TIER_MIXED] +
			bytes[TIER_NONE];
		if (json) {
			printf("%s\n  {\"path\": ", nr_out++ ? "," : "");
			json_print_string(stdout, argv[i]);
			for (t = 0; t < NR_TIERS; t++)
				printf(", \"%s_bytes\": %llu", tier_names[t],
				       (unsigned long long)bytes[t]);
			if (recursive) {
				printf(", \"files\": %llu, \"pinned_fast_bytes\": %llu, \"pinned_slow_bytes\": %llu, \"top_dirs\": [",
				       (unsigned long long)tw.files,
				       (unsigned long long)tw.pinned_fast,
				       (unsigned long long)tw.pinned_slow);
				for (t = 0; t < tw.nr_top; t++) {
					printf("%s{\"path\": ", t ? ", " : "");
					json_print_string(stdout, tw.top[t].path);
					printf(", \"fast_bytes\": %llu, \"bytes\": %llu}",
					       (unsigned long long)tw.top[t].fast,
					       (unsigned long long)tw.top[t].total);
				}
				printf("]");
			}
			printf("}");
		} else {
			if (recursive)
				printf("%s: %llu file%s\n", argv[i],
				       (unsigned long long)tw.files,
				       tw.files == 1 ? "" : "s");
			else
				printf("%s:\n", argv[i]);
			for (t = 0; t < NR_TIERS; t++) {
				if (!bytes[t] && t >= TIER_MIXED)
					continue;
				format_size(size, sizeof(size), bytes[t], &units);
				printf("\t%-6s %14s  %5.1f%%\n", tier_names[t], size,
				       total ? 100.0 * (double)bytes[t] / (double)total : 0.0);
			}
			if (recursive && (tw.pinned_fast || tw.pinned_slow)) {
				format_size(size, sizeof(size), tw.pinned_fast,
					    &units);
				format_size(size2, sizeof(size2),
					    tw.pinned_slow, &units);
				printf("\tpinned %s fast, %s slow (of the files' bytes above)\n",
				       size, size2);
			}
			if (recursive && tw.nr_top)
				printf("\ttop directories by fast-tier use:\n");
			for (t = 0; recursive && t < tw.nr_top; t++) {
				format_size(size, sizeof(size), tw.top[t].fast, &units);
				format_size(size2, sizeof(size2), tw.top[t].total,
					    &units);
				printf("\t%14s of %-14s %s\n", size, size2,
				       tw.top[t].path);
			}
		}
		if (recursive)
			tree_free();
	}
	if (json)
		printf("%s]\n", nr_out ? "\n" : "");
	mapper_reset(-1, false);
	return ret;
}

/*
 * For heatctl top: the tier of [@start, @start + @len) of the file at
 * @path, as "fast", "slow", "mixed" (bytes on both) or "-" (no data on a
 * device, or the file cannot be read). @map_fd is any fd of the
 * filesystem, for a kernel that cannot answer itself: the chunk map is
 * then loaded on first use.
 */
const char *where_range_tier(int map_fd, const char *path, uint64_t start,
			     uint64_t len)
{
	static bool ready;
	uint64_t bytes[NR_TIERS] = { 0 };
	int fd, err;

	if (!ready) {
		mapper_reset(map_fd, false);
		ready = true;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return "-";
	err = file_tiers_any(fd, bytes, start,
			     len ? start + len : FIEMAP_MAX_OFFSET);
	close(fd);
	if (err)
		return "-";
	if (bytes[TIER_MIXED] || (bytes[TIER_FAST] && bytes[TIER_SLOW]))
		return "mixed";
	if (bytes[TIER_FAST])
		return "fast";
	if (bytes[TIER_SLOW])
		return "slow";
	return "-";
}
