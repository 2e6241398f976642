// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of heatctl's parsing and formatting, printing TAP. */
#include <stdint.h>
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
	ok(heat_opts_parse("fast") == 3, "parse fast");
	ok(heat_opts_parse("slow") == 4 && heat_opts_parse("4") == 4,
	   "parse slow and 4");
	ok(heat_opts_parse("5") == -1, "reject 5");
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

	/* Invalid UTF-8 becomes \u00XX per byte; valid UTF-8 stays as it is. */
	{
		static const struct {
			const char *in, *want, *what;
		} cases[] = {
			{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", "valid 2-byte UTF-8 kept" },
			{ "\xf0\x9f\x94\xa5", "\"\xf0\x9f\x94\xa5\"", "valid 4-byte UTF-8 kept" },
			{ "a\xff" "b", "\"a\\u00ffb\"", "a byte never in UTF-8 escaped" },
			{ "\xc3", "\"\\u00c3\"", "a truncated sequence escaped" },
			{ "\xc3(", "\"\\u00c3(\"", "a lead byte without continuation escaped" },
			{ "\x80x", "\"\\u0080x\"", "a stray continuation byte escaped" },
			{ "\xc0\xaf", "\"\\u00c0\\u00af\"", "an overlong form escaped" },
			{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "a surrogate escaped" },
			{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"", "past U+10FFFF escaped" },
			{ "\x7f", "\"\\u007f\"", "DEL escaped" },
		};
		unsigned int i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			mem = NULL;
			f = open_memstream(&mem, &len);
			json_print_string(f, cases[i].in);
			fclose(f);
			ok(str_is(mem, cases[i].want), cases[i].what);
			free(mem);
		}
	}

	{
		static const char * const bad[] = {
			"", "-1", "+1", " 1", "1 ", "1x", "0x10",
			"18446744073709551616", "99999999999999999999999",
		};
		uint64_t v = 7;
		unsigned int i;
		int rejected = 1;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (!parse_u64(bad[i], &v)) {
				printf("# parse_u64 took '%s'\n", bad[i]);
				rejected = 0;
			}
		}
		ok(rejected && v == 7, "parse_u64 rejects signs, blanks, garbage and overflow");
		ok(!parse_u64("18446744073709551615", &v) && v == UINT64_MAX,
		   "parse_u64 takes the largest u64");
		ok(!parse_u64("010", &v) && v == 10, "parse_u64 reads decimal");
	}

	{
		static const struct {
			unsigned int base;
			int unit;
			uint64_t bytes;
			const char *want;
		} cases[] = {
			{ 1024, -1, 0, "0.00B" },
			{ 1024, -1, 1023, "1023.00B" },
			{ 1024, -1, 1024, "1.00KiB" },
			{ 1024, -1, 4194304, "4.00MiB" },
			{ 1024, -1, 1610612736, "1.50GiB" },
			{ 1024, -1, UINT64_MAX, "16.00EiB" },
			{ 1000, -1, 1610612736, "1.61GB" },
			{ 1000, -1, 999, "999.00B" },
			{ 1024, 0, 1610612736, "1610612736" },
			{ 1000, 0, 1610612736, "1610612736" },
			{ 1024, 1, 1536, "1.50KiB" },
			{ 1024, 2, 1024, "0.00MiB" },
			{ 1000, 3, 1610612736, "1.61GB" },
			{ 1024, 4, 1099511627776ULL, "1.00TiB" },
		};
		struct size_units u;
		unsigned int i;
		char what[96];

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			u.base = cases[i].base;
			u.unit = cases[i].unit;
			format_size(buf, sizeof(buf), cases[i].bytes, &u);
			snprintf(what, sizeof(what), "size %llu, base %u, unit %d",
				 (unsigned long long)cases[i].bytes, u.base, u.unit);
			ok(str_is(buf, cases[i].want), what);
		}
		u = SIZE_UNITS_DEFAULT;
		ok(size_units_option(OPT_SI, &u) && size_units_option('g', &u) &&
		   u.base == 1000 && u.unit == 3, "--si -g: GB");
		ok(size_units_option(OPT_RAW, &u) && u.unit == 0, "--raw: bytes");
		ok(size_units_option('H', &u) && u.unit == -1 && u.base == 1000,
		   "-H: human-readable in powers of 1000");
		ok(size_units_option('h', &u) && u.unit == -1 && u.base == 1024,
		   "-h after -H: human-readable in powers of 1024 again");
		ok(!size_units_option('j', &u), "-j is not a unit option");
	}

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
