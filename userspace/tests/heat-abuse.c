// SPDX-License-Identifier: GPL-2.0
/*
 * heat-abuse: send the hot data ioctls bad arguments and print, one per
 * line, "<case> <errno name>" ("<case> OK" on success). Used by the
 * in-guest tests, which compare each line with the documented errno.
 *
 *	heat-abuse <file> <directory>
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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
	default: return strerror(err);
	}
}

static void report(const char *name, int ret)
{
	printf("%s %s\n", name, errname(ret < 0 ? errno : 0));
}

int main(int argc, char **argv)
{
	struct btrfs_ioctl_heat_info info;
	struct btrfs_ioctl_heat_opts opts;
	int fd, dfd;

	if (argc != 3) {
		fprintf(stderr, "usage: heat-abuse <file> <directory>\n");
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
	opts.opts = 3;
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
	close(fd);
	close(dfd);
	return 0;
}
