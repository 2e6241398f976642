/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heatctl's copy of the hot data ioctl ABI of include/uapi/linux/btrfs.h
 * (patches/ of this repository). tests/host/abi.sh checks that numbers,
 * sizes and field offsets match the kernel's header, so the two cannot
 * drift. Kept here so that heatctl builds against any installed headers.
 */
#ifndef HEATCTL_HEAT_IOCTL_H
#define HEATCTL_HEAT_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifndef BTRFS_IOCTL_MAGIC
#define BTRFS_IOCTL_MAGIC 0x94
#endif

/*
 * Hot data tracking (mount option hotdatatrack) and migration between device
 * tiers (hotdatamove).
 *
 * Per-inode options, stored as the btrfs.hot property and inherited by new
 * files in a directory that has them. Without the property an inode is
 * BTRFS_HEAT_OPTS_MOVE.
 */
#define BTRFS_HEAT_OPTS_NONE	0	/* neither track nor move */
#define BTRFS_HEAT_OPTS_TRACK	1	/* track heat, never move the data */
#define BTRFS_HEAT_OPTS_MOVE	2	/* track heat and move the data */
/*
 * Pins: track heat, and keep the data on the fast (slow) tier whatever its
 * heat. Setting FAST needs CAP_SYS_ADMIN: it takes fast space from every
 * other file.
 */
#define BTRFS_HEAT_OPTS_FAST	3
#define BTRFS_HEAT_OPTS_SLOW	4

/*
 * btrfs_ioctl_heat_info::flags, in. LIVE computes the temperature now
 * instead of reporting the heat index bucket the inode is in.
 */
#define BTRFS_HEAT_INFO_LIVE	(1ULL << 0)
#define BTRFS_HEAT_INFO_FLAGS	(BTRFS_HEAT_INFO_LIVE)
/* btrfs_ioctl_heat_info::out_flags */
#define BTRFS_HEAT_INFO_TRACKED	(1ULL << 0)	/* the inode has heat data */

/* BTRFS_IOC_GET_HEAT_INFO: heat of the inode the fd refers to */
struct btrfs_ioctl_heat_info {
	__u64 flags;			/* in: BTRFS_HEAT_INFO_* */
	__u64 out_flags;		/* out: BTRFS_HEAT_INFO_TRACKED */
	__u64 num_reads;		/* out: reads since mount */
	__u64 num_writes;		/* out: writes since mount */
	__u64 last_read_time;		/* out: ns since the epoch, 0: never */
	__u64 last_write_time;		/* out: ns since the epoch, 0: never */
	__u64 avg_delta_reads;		/* out: ns between reads, averaged */
	__u64 avg_delta_writes;		/* out: ns between writes, averaged */
	__u32 temp;			/* out: 0 (cold) to 255 (hot) */
	__u32 reserved32;		/* in: zero */
	__u64 reserved[6];		/* in: zero */
};

/*
 * BTRFS_IOC_GET_TIER_BYTES: how many bytes of a file range lie on each
 * device tier, by the tiers the allocator and the mover use (sysfs
 * devinfo/<id>/tier). Bytes are file bytes of written and preallocated
 * extents (a compressed extent counts what it holds); holes and dirty data
 * not yet written count nowhere. With BTRFS_TIER_BYTES_SYNC the range's
 * dirty data is written first, as FIEMAP_FLAG_SYNC does. Needs a file
 * descriptor open for reading, nothing more.
 */
#define BTRFS_TIER_BYTES_SYNC	(1ULL << 0)
#define BTRFS_TIER_BYTES_FLAGS	(BTRFS_TIER_BYTES_SYNC)
struct btrfs_ioctl_tier_bytes {
	__u64 start;			/* in: first byte of the range */
	/* in: its length, (__u64)-1: to the end; out: clamped to 2^64 - start */
	__u64 len;
	__u64 flags;			/* in: BTRFS_TIER_BYTES_* */
	__u64 fast_bytes;		/* out: in block groups of fast devices */
	__u64 slow_bytes;		/* out: in block groups of slow devices */
	__u64 mixed_bytes;		/* out: in groups with stripes on both */
	__u64 inline_bytes;		/* out: inline, in the metadata */
	__u64 reserved[9];		/* in: zero */
};

/*
 * BTRFS_IOC_HEAT_LIST: the tracked files, or ranges, of the subvolume of the
 * file descriptor, in key order (inode number, then offset), from a cursor
 * on. An ordinary caller sees the files it owns (its fsuid is the file's
 * owner, not mapped by the mount); a caller with CAP_SYS_ADMIN sees every
 * file, and with BTRFS_HEAT_LIST_ALL_SUBVOLS those of every subvolume,
 * ordered by subvolume id first. A call fills up to @nr_entries entries
 * and sets the cursor after the last one; a walk starts with a zeroed
 * cursor and ends when BTRFS_HEAT_LIST_END comes back, which a call that
 * fills every entry does not set. The cursor never names a file the caller
 * may not see.
 */
#define BTRFS_HEAT_LIST_RANGES		(1ULL << 0)
#define BTRFS_HEAT_LIST_ALL_SUBVOLS	(1ULL << 1)
#define BTRFS_HEAT_LIST_FLAGS		(BTRFS_HEAT_LIST_RANGES | \
					 BTRFS_HEAT_LIST_ALL_SUBVOLS)
/* btrfs_ioctl_heat_list::out_flags */
#define BTRFS_HEAT_LIST_END		(1ULL << 0)	/* nothing after */
/* At most this many entries a call. */
#define BTRFS_HEAT_LIST_MAX_ENTRIES	1024

struct btrfs_heat_list_entry {
	__u64 root;			/* subvolume id */
	__u64 ino;			/* inode number */
	__u64 start;			/* ranges: first byte; files: 0 */
	__u64 len;			/* ranges: bytes; files: 0 */
	/* accesses in units of 1/4096, decayed as of the last one */
	__u64 score;
	__u32 temp;			/* 0 (cold) to 255 (hot), now */
	__u32 nr_reads;			/* files: reads since mount */
	__u32 nr_writes;		/* files: writes since mount */
	__u32 reserved32;
	__u64 reserved;
};

struct btrfs_ioctl_heat_list {
	__u64 flags;			/* in: BTRFS_HEAT_LIST_* */
	__u64 out_flags;		/* out: BTRFS_HEAT_LIST_END */
	/* in/out: the cursor; @root 0 or the fd's without ALL_SUBVOLS */
	__u64 root;
	__u64 ino;
	__u64 offset;			/* ranges only */
	__u64 entries;			/* in: address of the entries */
	/* in: room, 1 to BTRFS_HEAT_LIST_MAX_ENTRIES; out: entries filled */
	__u32 nr_entries;
	__u32 reserved32;		/* in: zero */
	__u64 reserved[9];		/* in: zero */
};

/* BTRFS_IOC_GET_HEAT_OPTS and BTRFS_IOC_SET_HEAT_OPTS */
struct btrfs_ioctl_heat_opts {
	__u64 flags;			/* in: zero */
	__u32 opts;			/* BTRFS_HEAT_OPTS_* */
	__u32 reserved32;		/* in: zero */
	__u64 reserved[2];		/* in: zero */
};

/*
 * 47, 48, 51, 55 and 56 are free in the 0x94 space; 49 and 50 are
 * FS_IOC_*FSLABEL.
 */
#define BTRFS_IOC_GET_HEAT_INFO _IOWR(BTRFS_IOCTL_MAGIC, 47, \
				      struct btrfs_ioctl_heat_info)
#define BTRFS_IOC_GET_HEAT_OPTS _IOWR(BTRFS_IOCTL_MAGIC, 48, \
				      struct btrfs_ioctl_heat_opts)
#define BTRFS_IOC_SET_HEAT_OPTS _IOW(BTRFS_IOCTL_MAGIC, 51, \
				     struct btrfs_ioctl_heat_opts)
#define BTRFS_IOC_GET_TIER_BYTES _IOWR(BTRFS_IOCTL_MAGIC, 55, \
				       struct btrfs_ioctl_tier_bytes)
#define BTRFS_IOC_HEAT_LIST _IOWR(BTRFS_IOCTL_MAGIC, 56, \
				  struct btrfs_ioctl_heat_list)

#endif
