// SPDX-License-Identifier: GPL-2.0
/* heatctl helpers with no system calls; see heatctl.h. */
#include <string.h>
#include <time.h>

#include "heatctl.h"

static const char * const opts_names[] = { "none", "track", "move" };

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

void json_print_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
