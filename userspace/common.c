// SPDX-License-Identifier: GPL-2.0
/*
 * What every heatctl command does with the paths it is given, written once,
 * as btrfs-progs' common/ does: errors and warnings that name the path and
 * say why, and the open of an operand that must be on btrfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/btrfs.h>

#include "heatctl.h"

static void report_path(const char *what, const char *path, const char *fmt,
			va_list ap)
{
	fprintf(stderr, "%s: %s: ", what, path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error_path(const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_path("ERROR", path, fmt, ap);
	va_end(ap);
}

void warning_path(const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_path("WARNING", path, fmt, ap);
	va_end(ap);
}

bool fd_on_btrfs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == BTRFS_SUPER_MAGIC;
}

int open_btrfs(const char *path, int flags,
	       struct btrfs_ioctl_fs_info_args *fsinfo)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (fd < 0) {
		error_path(path, "%s", strerror(errno));
		return -1;
	}
	if (!fd_on_btrfs(fd)) {
		error_path(path, "not on a btrfs filesystem");
		close(fd);
		return -1;
	}
	if (fsinfo) {
		memset(fsinfo, 0, sizeof(*fsinfo));
		if (ioctl(fd, BTRFS_IOC_FS_INFO, fsinfo) < 0) {
			error_path(path, "cannot query the filesystem: %s",
				   strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}
