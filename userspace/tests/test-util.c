// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of heatctl's parsing and formatting, printing TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heatctl.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

static int str_is(const char *got, const char *want)
{
	if (strcmp(got, want))
		printf("# got '%s', want '%s'\n", got, want);
	return !strcmp(got, want);
}

int main(void)
{
	char buf[64];
	FILE *f;
	size_t len;
	char *mem = NULL;

	ok(heat_opts_parse("none") == 0, "parse none");
	ok(heat_opts_parse("track") == 1, "parse track");
	ok(heat_opts_parse("move") == 2, "parse move");
	ok(heat_opts_parse("2") == 2, "parse 2");
	ok(heat_opts_parse("3") == -1, "reject 3");
	ok(heat_opts_parse("moves") == -1, "reject moves");
	ok(heat_opts_parse("") == -1, "reject empty");
	ok(heat_opts_parse("22") == -1, "reject 22");
	ok(str_is(heat_opts_name(1), "track"), "name of 1");
	ok(str_is(heat_opts_name(7), "unknown"), "name of 7");

	format_interval_ns(buf, sizeof(buf), 0);
	ok(str_is(buf, "-"), "interval 0 is -");
	format_interval_ns(buf, sizeof(buf), 850000000ULL);
	ok(str_is(buf, "850ms"), "interval 850 ms");
	format_interval_ns(buf, sizeof(buf), 1200000000ULL);
	ok(str_is(buf, "1.2s"), "interval 1.2 s");
	format_interval_ns(buf, sizeof(buf), 210ULL * 1000000000ULL);
	ok(str_is(buf, "3.5min"), "interval 3.5 min");
	format_interval_ns(buf, sizeof(buf), 999);
	ok(str_is(buf, "999ns"), "interval 999 ns");

	format_time_ns(buf, sizeof(buf), 0);
	ok(str_is(buf, "never"), "time 0 is never");
	setenv("TZ", "UTC", 1);
	format_time_ns(buf, sizeof(buf), 1764754200ULL * 1000000000ULL);
	ok(str_is(buf, "2025-12-03 09:30:00"), "time in UTC");

	{
		const unsigned char u[16] = { 0xe7, 0x7a, 0x47, 0xb4, 0xbf, 0xe6,
			0x46, 0xbc, 0x83, 0xda, 0x22, 0xb6, 0x94, 0x6d, 0xd5, 0x64 };

		format_uuid(buf, u);
		ok(str_is(buf, "e77a47b4-bfe6-46bc-83da-22b6946dd564"), "UUID format");
	}

	f = open_memstream(&mem, &len);
	json_print_string(f, "a\"b\\c\nd");
	fclose(f);
	ok(str_is(mem, "\"a\\\"b\\\\c\\u000ad\""), "JSON string escaping");
	free(mem);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
