// SPDX-License-Identifier: GPL-2.0
/* heatctl helpers with no system calls; see heatctl.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heatctl.h"

static const char * const opts_names[] = {
	"none", "track", "move", "fast", "slow"
};

int heat_opts_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(opts_names) / sizeof(opts_names[0]); i++) {
		if (!strcmp(s, opts_names[i]))
			return (int)i;
		if (s[0] == (char)('0' + i) && s[1] == '\0')
			return (int)i;
	}
	return -1;
}

const char *heat_opts_name(unsigned int opts)
{
	if (opts < sizeof(opts_names) / sizeof(opts_names[0]))
		return opts_names[opts];
	return "unknown";
}

void format_time_ns(char *buf, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!ns || !localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "never");
}

void format_interval_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "d", 86400e9 }, { "h", 3600e9 }, { "min", 60e9 },
		{ "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
	};
	unsigned int i;

	if (!ns) {
		snprintf(buf, len, "-");
		return;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if ((double)ns >= units[i].ns) {
			double v = (double)ns / units[i].ns;

			if (v < 10)
				snprintf(buf, len, "%.1f%s", v, units[i].unit);
			else
				snprintf(buf, len, "%.0f%s", v, units[i].unit);
			return;
		}
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

void format_uuid(char *buf, const unsigned char *uuid)
{
	int i, n = 0;

	for (i = 0; i < 16; i++) {
		n += sprintf(buf + n, "%02x", uuid[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			buf[n++] = '-';
	}
	buf[n] = '\0';
}

/*
 * The length of the UTF-8 sequence at @s (1 to 4), or 0 if it is not
 * valid UTF-8: a stray continuation byte, a truncated sequence, an overlong
 * form, a surrogate or a code point past U+10FFFF.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp, min;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_print_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		int len = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f || !len)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, len, f);
		p += len ? len : 1;
	}
	fputc('"', f);
}

int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull() takes leading blanks and a minus sign; we do not. */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int size_units_option(int c, struct size_units *u)
{
	switch (c) {
	case 'b':
	case OPT_RAW:
		u->unit = 0;
		break;
	case 'h':
		/* As in btrfs-progs: -h is human-readable in powers of 1024. */
		u->unit = -1;
		u->base = 1024;
		break;
	case 'H':
		u->unit = -1;
		u->base = 1000;
		break;
	case OPT_IEC:
		u->base = 1024;
		break;
	case OPT_SI:
		u->base = 1000;
		break;
	case 'k':
		u->unit = 1;
		break;
	case 'm':
		u->unit = 2;
		break;
	case 'g':
		u->unit = 3;
		break;
	case 't':
		u->unit = 4;
		break;
	default:
		return 0;
	}
	return 1;
}

void format_size(char *buf, size_t len, uint64_t bytes,
		 const struct size_units *u)
{
	static const char * const iec[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	static const char * const si[] = {
		"B", "kB", "MB", "GB", "TB", "PB", "EB"
	};
	double v = (double)bytes;
	int i = 0;

	if (!u->unit) {
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
		return;
	}
	if (u->unit > 0) {
		for (; i < u->unit; i++)
			v /= u->base;
	} else {
		while (i < 6 && v >= u->base) {
			v /= u->base;
			i++;
		}
	}
	snprintf(buf, len, "%.2f%s", v, u->base == 1000 ? si[i] : iec[i]);
}
