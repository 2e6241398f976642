// SPDX-License-Identifier: GPL-2.0
/*
 * heat-abuse: send the hot data ioctls bad arguments and print, one per
 * line, "<case> <errno name>" ("<case> OK" on success). Used by the
 * in-guest tests, which compare each line with the documented errno.
 *
 *	heat-abuse <file> <directory>
 *	heat-abuse fuzz <rounds> <seed> <path>...
 *	heat-abuse list <path> <entries per call> [ranges|all]
 *
 * The fuzz mode sends each path, opened read-only, <rounds> calls of the
 * five ioctls, and of their numbers with wrong argument sizes, with random
 * argument bytes, random flags and reserved fields, and pointers that are
 * NULL, wild or run into an unmapped page. It prints one line per path,
 * call and result, "<path index> <call> <errno name> <count>", and
 * "unexpected ..." for any errno the ioctls do not document.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heat-ioctl.h"

static const char *errname(int err)
{
	switch (err) {
	case 0: return "OK";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOTTY: return "ENOTTY";
	case EISDIR: return "EISDIR";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EROFS: return "EROFS";
	case EBADF: return "EBADF";
	default: return strerror(err);
	}
}

/* What the hot data ioctls may answer, and ENOTTY from other files. */
static int documented(int err)
{
	switch (err) {
	case 0: case EFAULT: case EINVAL: case EPERM: case EACCES:
	case ENOTTY: case EISDIR: case EOPNOTSUPP: case EROFS: case EBADF:
		return 1;
	default:
		return 0;
	}
}

enum { CALL_INFO, CALL_GET, CALL_SET, CALL_TIER, CALL_LIST, CALL_SIZE,
       NR_CALLS };
static const char *const call_names[NR_CALLS] = {
	"info", "get-opts", "set-opts", "tier-bytes", "list", "wrong-size"
};
/* Above every errno the ioctls document (EOPNOTSUPP is 95). */
#define NR_ERRS 128

static unsigned long fuzz_cmd(int call)
{
	static const unsigned int nrs[] = { 47, 48, 51, 55, 56 };
	unsigned int size;

	switch (call) {
	case CALL_INFO: return BTRFS_IOC_GET_HEAT_INFO;
	case CALL_GET: return BTRFS_IOC_GET_HEAT_OPTS;
	case CALL_SET: return BTRFS_IOC_SET_HEAT_OPTS;
	case CALL_TIER: return BTRFS_IOC_GET_TIER_BYTES;
	case CALL_LIST: return BTRFS_IOC_HEAT_LIST;
	default:
		/* Only the numbers of these ioctls: others may act on the fs. */
		do {
			size = rand() % 256;
		} while (size == sizeof(struct btrfs_ioctl_heat_info) ||
			 size == sizeof(struct btrfs_ioctl_heat_opts) ||
			 size == sizeof(struct btrfs_ioctl_tier_bytes) ||
			 size == sizeof(struct btrfs_ioctl_heat_list));
		return _IOC(rand() % 4, BTRFS_IOCTL_MAGIC, nrs[rand() % 5], size);
	}
}

/* An argument for one call: mostly plausible, sometimes hostile. */
static void *fuzz_arg(unsigned char *buf, size_t len, unsigned char *map,
		      long page)
{
	struct btrfs_ioctl_heat_opts *opts = (void *)buf;
	unsigned char *tail;
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = rand();
	switch (rand() % 8) {
	case 0: return NULL;
	case 1: return (void *)(uintptr_t)(rand() % 4096);
	case 2:	/* random bytes that run into the PROT_NONE page */
		tail = map + page - 1 - rand() % 32;
		memcpy(tail, buf, map + page - tail);
		return tail;
	case 3:	/* valid flags and opts, random reserved fields */
		opts->flags = 0;
		opts->opts = rand() % 4;
		return buf;
	case 4:	/* all zero but for one random bit */
		memset(buf, 0, len);
		buf[rand() % 64] = 1 << (rand() % 8);
		return buf;
	case 5:
		memset(buf, 0, len);
		return buf;
	default:
		return buf;
	}
}

/*
 * Where a list call may write its entries: nowhere (NULL), into the
 * PROT_NONE page, or into room for the most a call fills. Never at a random
 * address, which could be this program's own memory.
 */
static void fuzz_list_entries(void *arg, const unsigned char *buf,
			      void *room, unsigned char *map, long page)
{
	struct btrfs_ioctl_heat_list *list = arg;

	if (arg != buf)
		return;
	switch (rand() % 3) {
	case 0: list->entries = 0; break;
	case 1: list->entries = (uintptr_t)(map + page); break;
	default: list->entries = (uintptr_t)room; break;
	}
}

static int fuzz(int rounds, unsigned int seed, int npaths, char **paths)
{
	static struct btrfs_heat_list_entry room[BTRFS_HEAT_LIST_MAX_ENTRIES];
	static unsigned int count[NR_CALLS][NR_ERRS];
	unsigned char *map, buf[256];
	int p, r, call, err, e, unexpected = 0;
	long page = sysconf(_SC_PAGESIZE);

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE)) {
		perror("mmap");
		return 1;
	}
	srand(seed);
	for (p = 0; p < npaths; p++) {
		int fd = open(paths[p], O_RDONLY | O_NONBLOCK | O_NOCTTY);

		if (fd < 0) {
			perror(paths[p]);
			return 1;
		}
		memset(count, 0, sizeof(count));
		for (r = 0; r < rounds; r++) {
			unsigned long cmd;
			void *arg;

			call = rand() % NR_CALLS;
			cmd = fuzz_cmd(call);
			arg = fuzz_arg(buf, sizeof(buf), map, page);
			if (call == CALL_LIST)
				fuzz_list_entries(arg, buf, room, map, page);
			err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
			if (!documented(err)) {
				printf("unexpected %d %s %s\n", p, call_names[call],
				       errname(err));
				unexpected++;
			}
			if (err < NR_ERRS)
				count[call][err]++;
		}
		for (call = 0; call < NR_CALLS; call++)
			for (e = 0; e < NR_ERRS; e++)
				if (count[call][e])
					printf("%d %s %s %u\n", p, call_names[call],
					       errname(e), count[call][e]);
		close(fd);
	}
	munmap(map, 2 * page);
	return unexpected ? 1 : 0;
}

/*
 * Walk BTRFS_IOC_HEAT_LIST from a zeroed cursor, @per entries a call, and
 * print each entry as "<root> <ino> <start> <len>", then "calls <n>".
 */
static int list_walk(const char *path, unsigned int per, const char *how)
{
	static struct btrfs_heat_list_entry ent[BTRFS_HEAT_LIST_MAX_ENTRIES];
	struct btrfs_ioctl_heat_list args;
	unsigned int i, calls = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	memset(&args, 0, sizeof(args));
	if (how && !strcmp(how, "ranges"))
		args.flags = BTRFS_HEAT_LIST_RANGES;
	else if (how && !strcmp(how, "all"))
		args.flags = BTRFS_HEAT_LIST_ALL_SUBVOLS;
	do {
		args.entries = (uintptr_t)ent;
		args.nr_entries = per;
		calls++;
		if (ioctl(fd, BTRFS_IOC_HEAT_LIST, &args) < 0) {
			printf("error %s\n", errname(errno));
			close(fd);
			return 1;
		}
		for (i = 0; i < args.nr_entries; i++)
			printf("%llu %llu %llu %llu\n",
			       (unsigned long long)ent[i].root,
			       (unsigned long long)ent[i].ino,
			       (unsigned long long)ent[i].start,
			       (unsigned long long)ent[i].len);
	} while (!(args.out_flags & BTRFS_HEAT_LIST_END));
	printf("calls %u\n", calls);
	close(fd);
	return 0;
}

static void report(const char *name, int ret)
{
	printf("%s %s\n", name, errname(ret < 0 ? errno : 0));
}

int main(int argc, char **argv)
{
	struct btrfs_ioctl_heat_info info;
	struct btrfs_ioctl_heat_opts opts;
	struct btrfs_ioctl_tier_bytes tb;
	struct btrfs_heat_list_entry ent[4];
	struct btrfs_ioctl_heat_list list;
	int fd, dfd, wfd;

	if (argc >= 5 && !strcmp(argv[1], "fuzz"))
		return fuzz(atoi(argv[2]), strtoul(argv[3], NULL, 0),
			    argc - 4, argv + 4);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "list"))
		return list_walk(argv[2], strtoul(argv[3], NULL, 0),
				 argc == 5 ? argv[4] : NULL);
	if (argc != 3) {
		fprintf(stderr, "usage: heat-abuse <file> <directory>\n"
			"       heat-abuse fuzz <rounds> <seed> <path>...\n"
			"       heat-abuse list <path> <per call> [ranges|all]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	dfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dfd < 0) {
		perror("open");
		return 1;
	}

	report("info-null", ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, NULL));
	report("info-badptr", ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, (void *)16));
	memset(&info, 0, sizeof(info));
	info.flags = 1ULL << 7;
	report("info-unknown-flag", ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, &info));
	memset(&info, 0, sizeof(info));
	info.reserved[3] = 1;
	report("info-reserved", ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, &info));
	memset(&info, 0, sizeof(info));
	report("info-dir", ioctl(dfd, BTRFS_IOC_GET_HEAT_INFO, &info));
	memset(&info, 0, sizeof(info));
	report("info-good", ioctl(fd, BTRFS_IOC_GET_HEAT_INFO, &info));

	report("opts-get-null", ioctl(fd, BTRFS_IOC_GET_HEAT_OPTS, NULL));
	memset(&opts, 0, sizeof(opts));
	opts.flags = 1;
	report("opts-get-flag", ioctl(fd, BTRFS_IOC_GET_HEAT_OPTS, &opts));
	report("opts-set-null", ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, NULL));
	memset(&opts, 0, sizeof(opts));
	opts.opts = 5;	/* past BTRFS_HEAT_OPTS_SLOW */
	report("opts-set-value", ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, &opts));
	memset(&opts, 0, sizeof(opts));
	opts.opts = 1;
	opts.flags = 1ULL << 40;
	report("opts-set-flag", ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, &opts));
	memset(&opts, 0, sizeof(opts));
	opts.opts = 1;
	opts.reserved32 = 1;
	report("opts-set-reserved", ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, &opts));
	memset(&opts, 0, sizeof(opts));
	opts.opts = 2;
	report("opts-set-good", ioctl(fd, BTRFS_IOC_SET_HEAT_OPTS, &opts));

	report("tier-null", ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, NULL));
	memset(&tb, 0, sizeof(tb));
	tb.flags = BTRFS_TIER_BYTES_FLAGS + 1;
	report("tier-flag", ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, &tb));
	memset(&tb, 0, sizeof(tb));
	tb.reserved[8] = 1;
	report("tier-reserved", ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, &tb));
	memset(&tb, 0, sizeof(tb));
	tb.len = (__u64)-1;
	report("tier-dir", ioctl(dfd, BTRFS_IOC_GET_TIER_BYTES, &tb));
	/* A range past 2^64 ends there. */
	memset(&tb, 0, sizeof(tb));
	tb.start = (__u64)-4096;
	tb.len = (__u64)-1;
	report("tier-wrap", ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, &tb));
	memset(&tb, 0, sizeof(tb));
	tb.len = (__u64)-1;
	tb.flags = BTRFS_TIER_BYTES_SYNC;
	report("tier-good", ioctl(fd, BTRFS_IOC_GET_TIER_BYTES, &tb));
	printf("tier-good-bytes %llu\n", (unsigned long long)(tb.fast_bytes +
		tb.slow_bytes + tb.mixed_bytes + tb.inline_bytes));
	wfd = open(argv[1], O_WRONLY);
	if (wfd >= 0) {
		memset(&tb, 0, sizeof(tb));
		tb.len = (__u64)-1;
		report("tier-wronly", ioctl(wfd, BTRFS_IOC_GET_TIER_BYTES, &tb));
		close(wfd);
	}

	report("list-null", ioctl(dfd, BTRFS_IOC_HEAT_LIST, NULL));
	memset(&list, 0, sizeof(list));
	list.entries = (uintptr_t)ent;
	list.nr_entries = 4;
	list.flags = BTRFS_HEAT_LIST_FLAGS + 1;
	report("list-flag", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	list.flags = 0;
	list.reserved[8] = 1;
	report("list-reserved", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	list.reserved[8] = 0;
	list.nr_entries = 0;
	report("list-no-room", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	list.nr_entries = BTRFS_HEAT_LIST_MAX_ENTRIES + 1;
	report("list-too-many", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	list.nr_entries = 4;
	list.root = 1ULL << 40;
	report("list-other-root", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	list.root = 0;
	list.flags = BTRFS_HEAT_LIST_ALL_SUBVOLS;
	report("list-all", ioctl(dfd, BTRFS_IOC_HEAT_LIST, &list));
	memset(&list, 0, sizeof(list));
	list.entries = (uintptr_t)ent;
	list.nr_entries = 4;
	report("list-good", ioctl(fd, BTRFS_IOC_HEAT_LIST, &list));
	printf("list-good-entries %u\n", list.nr_entries);
	close(fd);
	close(dfd);
	return 0;
}
