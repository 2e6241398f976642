// SPDX-License-Identifier: GPL-2.0
/*
 * log-replay: read and replay a dm-log-writes log (Documentation/
 * admin-guide/device-mapper/log-writes.rst) for the power-cut soak.
 *
 * The log holds, in the order the target logged them, every write that a
 * flush or FUA made durable on the device under the target, each flush,
 * and the marks userspace sent with "dmsetup message DEV 0 mark NAME".
 * Replaying the entries up to a mark onto a device that held what the
 * device held when logging started gives what the device would hold after
 * a power cut at that mark: writes that were still in the volatile cache
 * are not in the log before the next flush, so they are lost, as they
 * would be.
 *
 *   log-replay marks LOG
 *	one line per mark: entry index, byte offset of the entry, name
 *   log-replay zero LOG DEV
 *	write zeros over every sector the log writes, so that a device that
 *	was zero when logging started is zero again
 *   log-replay apply LOG DEV FROM OFFSET TO
 *	apply entries FROM (which starts at byte OFFSET of LOG, as "marks"
 *	printed it) up to TO, not including TO
 *
 * A discard is replayed as zeros: a discarded block may read as anything,
 * and zeros are one of the things it may read as.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#define LOG_FLUSH_FLAG		(1ULL << 0)
#define LOG_FUA_FLAG		(1ULL << 1)
#define LOG_DISCARD_FLAG	(1ULL << 2)
#define LOG_MARK_FLAG		(1ULL << 3)

#define WRITE_LOG_MAGIC		0x6a736677736872ULL
#define WRITE_LOG_VERSION	1ULL

/* On disk, little endian, as in drivers/md/dm-log-writes.c. */
struct log_write_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct log_write_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
};

struct log {
	int fd;
	uint64_t nr_entries;
	uint32_t sectorsize;
	char *sector;		/* one header sector */
	char *buf;		/* data of one entry */
	size_t buf_size;
};

struct entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
	const char *mark;	/* NUL-terminated name of a mark, or NULL */
};

static int read_full(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t ret = pread(fd, p, len, off);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			return -EIO;
		p += ret;
		off += ret;
		len -= ret;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t ret = pwrite(fd, p, len, off);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += ret;
		off += ret;
		len -= ret;
	}
	return 0;
}

static int log_open(struct log *log, const char *path)
{
	struct log_write_super super;
	int ret;

	memset(log, 0, sizeof(*log));
	log->fd = open(path, O_RDONLY);
	if (log->fd < 0) {
		ret = -errno;
		fprintf(stderr, "ERROR: cannot open %s: %m\n", path);
		return ret;
	}
	ret = read_full(log->fd, &super, sizeof(super), 0);
	if (ret) {
		fprintf(stderr, "ERROR: cannot read the log super of %s: %s\n",
			path, strerror(-ret));
		goto out_close;
	}
	if (le64toh(super.magic) != WRITE_LOG_MAGIC ||
	    le64toh(super.version) != WRITE_LOG_VERSION) {
		fprintf(stderr, "ERROR: %s is not a dm-log-writes log\n", path);
		ret = -EINVAL;
		goto out_close;
	}
	log->nr_entries = le64toh(super.nr_entries);
	log->sectorsize = le32toh(super.sectorsize);
	if (log->sectorsize < 512 || log->sectorsize > 65536 ||
	    (log->sectorsize & (log->sectorsize - 1))) {
		fprintf(stderr, "ERROR: %s: bad sector size %u\n", path,
			log->sectorsize);
		ret = -EINVAL;
		goto out_close;
	}
	log->sector = malloc(log->sectorsize + 1);
	if (!log->sector) {
		ret = -ENOMEM;
		goto out_close;
	}
	return 0;

out_close:
	close(log->fd);
	return ret;
}

static void log_close(struct log *log)
{
	free(log->sector);
	free(log->buf);
	close(log->fd);
}

/*
 * Read the entry header at byte *off and advance *off past the entry.
 * Return 0 or a negative errno.
 */
static int log_entry(struct log *log, off_t *off, struct entry *e)
{
	const struct log_write_entry *raw;
	int ret;

	ret = read_full(log->fd, log->sector, log->sectorsize, *off);
	if (ret)
		return ret;
	raw = (const struct log_write_entry *)log->sector;
	e->sector = le64toh(raw->sector);
	e->nr_sectors = le64toh(raw->nr_sectors);
	e->flags = le64toh(raw->flags);
	e->data_len = le64toh(raw->data_len);
	e->mark = NULL;
	if (e->flags & LOG_MARK_FLAG) {
		if (e->data_len > log->sectorsize - sizeof(*raw))
			return -EUCLEAN;
		log->sector[sizeof(*raw) + e->data_len] = '\0';
		e->mark = log->sector + sizeof(*raw);
	}
	*off += log->sectorsize;
	if (!(e->flags & LOG_DISCARD_FLAG))
		*off += e->nr_sectors * log->sectorsize;
	return 0;
}

/* Write the entry's data, or zeros when @zero or for a discard. */
static int log_replay_entry(struct log *log, off_t data_off,
			    const struct entry *e, int dev, int zero)
{
	uint64_t left = e->nr_sectors * log->sectorsize;
	off_t dst = e->sector * log->sectorsize;

	if (!log->buf) {
		log->buf_size = 1 << 20;
		log->buf = malloc(log->buf_size);
		if (!log->buf)
			return -ENOMEM;
	}
	while (left) {
		size_t len = left < log->buf_size ? left : log->buf_size;

		int ret;

		if (zero || (e->flags & LOG_DISCARD_FLAG)) {
			memset(log->buf, 0, len);
		} else {
			ret = read_full(log->fd, log->buf, len, data_off);
			if (ret)
				return ret;
			data_off += len;
		}
		ret = write_full(dev, log->buf, len, dst);
		if (ret)
			return ret;
		dst += len;
		left -= len;
	}
	return 0;
}

static int cmd_marks(struct log *log)
{
	struct entry e;
	off_t off = log->sectorsize;
	uint64_t i;

	printf("# entries %" PRIu64 " sectorsize %u\n", log->nr_entries,
	       log->sectorsize);
	for (i = 0; i < log->nr_entries; i++) {
		off_t here = off;
		int ret = log_entry(log, &off, &e);

		if (ret) {
			fprintf(stderr, "ERROR: entry %" PRIu64 ": %s\n", i,
				strerror(-ret));
			return ret;
		}
		if (e.mark)
			printf("%" PRIu64 " %lld %s\n", i, (long long)here,
			       e.mark);
	}
	return 0;
}

/*
 * Apply entries [from, to) starting at byte @off of the log, or zero what
 * they write. Print how many writes, flushes and FUA writes were applied.
 */
static int cmd_apply(struct log *log, const char *path, uint64_t from,
		     off_t off, uint64_t to, int zero)
{
	uint64_t writes = 0, flushes = 0, fuas = 0, i;
	struct entry e;
	int dev, ret = 0;

	if (to > log->nr_entries) {
		fprintf(stderr, "ERROR: entry %" PRIu64 " is past the log's %"
			PRIu64 " entries\n", to, log->nr_entries);
		return -EINVAL;
	}
	dev = open(path, O_WRONLY);
	if (dev < 0) {
		ret = -errno;
		fprintf(stderr, "ERROR: cannot open %s: %m\n", path);
		return ret;
	}
	for (i = from; i < to; i++) {
		off_t data = off + log->sectorsize;

		ret = log_entry(log, &off, &e);
		if (ret) {
			fprintf(stderr, "ERROR: entry %" PRIu64 ": %s\n", i,
				strerror(-ret));
			goto out;
		}
		if (e.flags & LOG_FLUSH_FLAG)
			flushes++;
		if (e.flags & LOG_FUA_FLAG)
			fuas++;
		if (e.flags & LOG_MARK_FLAG || !e.nr_sectors)
			continue;
		ret = log_replay_entry(log, data, &e, dev, zero);
		if (ret) {
			fprintf(stderr, "ERROR: entry %" PRIu64 " (sector %"
				PRIu64 "): %s\n", i, e.sector, strerror(-ret));
			goto out;
		}
		writes++;
	}
	if (fdatasync(dev) < 0) {
		ret = -errno;
		fprintf(stderr, "ERROR: cannot sync %s: %m\n", path);
		goto out;
	}
	printf("%" PRIu64 " writes %" PRIu64 " flushes %" PRIu64 " fua\n",
	       writes, flushes, fuas);
out:
	close(dev);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: log-replay marks LOG\n"
		"       log-replay zero LOG DEV\n"
		"       log-replay apply LOG DEV FROM OFFSET TO\n");
	exit(2);
}

static int parse_u64(const char *s, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "ERROR: not a number: %s\n", s);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t from, off, to;
	struct log log;
	int ret;

	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "marks") && argc == 3) {
		if (log_open(&log, argv[2]))
			return 1;
		ret = cmd_marks(&log);
	} else if (!strcmp(argv[1], "zero") && argc == 4) {
		if (log_open(&log, argv[2]))
			return 1;
		ret = cmd_apply(&log, argv[3], 0, log.sectorsize,
				log.nr_entries, 1);
	} else if (!strcmp(argv[1], "apply") && argc == 7) {
		if (parse_u64(argv[4], &from) || parse_u64(argv[5], &off) ||
		    parse_u64(argv[6], &to))
			return 1;
		if (from > to)
			usage();
		if (log_open(&log, argv[2]))
			return 1;
		ret = cmd_apply(&log, argv[3], from, (off_t)off, to, 0);
	} else {
		usage();
	}
	log_close(&log);
	return ret ? 1 : 0;
}
