#!/usr/bin/env bash
# quick: no kernel build, no guest (make check)
# heatctl builds with -Wall -Wextra -Werror, its unit tests pass, cppcheck
# has nothing to say, and its command line behaves as btrfs-progs' does:
# options anywhere, "--", one report per bad option, numbers checked,
# errors that name the problem, and make install. None of this needs a
# btrfs: the guest suite 20-heatctl checks the output against the kernel.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../../userspace" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -B: objects from a build without WERROR=1 must not hide a warning.
make -s -B WERROR=1 heatctl tests/test-util >"$tmp/build.log" 2>&1
rc=$?
tap_result $rc "heatctl builds with -Wall -Wextra -Werror" ||
	sed 's/^/# /' "$tmp/build.log" | head -20
out=$(./tests/test-util 2>&1); rc=$?
echo "$out" | grep '^not ok' | sed 's/^/# /'
tap_result $rc "unit tests of parsing and formatting ($(echo "$out" | grep -c '^ok') passed)"
out=$(cppcheck --quiet --error-exitcode=1 --enable=warning,style,portability \
	--inline-suppr --suppress=missingIncludeSystem -I. ./*.c tests/*.c 2>&1); rc=$?
[ -z "$out" ] || rc=1
tap_result $rc "cppcheck is silent" || echo "$out" | sed 's/^/# /' | head -20

# run ARGS...: heatctl's status in $rc, its output in $tmp/out and $tmp/err.
run() {
	./heatctl "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# A usage error: status 2, the message once, then the usage.
usage_err() { # usage_err PATTERN
	[ "$rc" = 2 ] && [ "$(grep -c -- "$1" "$tmp/err")" = 1 ] && grep -q '^usage: heatctl' "$tmp/err"
}

for c in set-opts get-opts get-info top where status migrate; do
	run "$c" --frobnicate /
	usage_err "unknown option '--frobnicate'" || break
done
tq "every command reports an unknown long option once, by name, with its usage (2)" usage_err "unknown option '--frobnicate'"
run get-info -Z /
tq "...and an unknown short option" usage_err "unknown option '-Z'"
run top -n
tq "an option without its value is a usage error that names it" usage_err "option '-n' needs a value"

for v in 1x 0x10 -1 " 5" 0 99999999999999999999999 2147483648; do
	run top -n "$v" /
	usage_err "invalid count" || break
done
tq "top -n rejects trailing garbage, signs, blanks, 0 and overflow ('$v')" usage_err "invalid count"

# Options after the paths, as btrfs-progs allows: --json is honoured.
run get-opts /nonexistent --json
tq "an option after a path applies (get-opts PATH --json prints JSON)" \
	bash -c "[ $rc = 1 ] && [ \"\$(jq -c . $tmp/out)\" = '[]' ] && grep -q 'ERROR: /nonexistent: No such file' $tmp/err"
run get-info -- -j
tq "-- ends the options: what follows is a path" \
	bash -c "[ $rc = 1 ] && grep -q 'ERROR: -j: No such file' $tmp/err"
mkfifo "$tmp/fifo"
run get-info "$tmp/fifo"
tq "get-info on a FIFO says it is not a regular file (1), without blocking on it" \
	bash -c "[ $rc = 1 ] && grep -q 'not a regular file or directory' $tmp/err && ! grep -q 'support' $tmp/err"
run set-opts track /dev/null
tq "set-opts on a device says it is not a regular file (1)" \
	bash -c "[ $rc = 1 ] && grep -q '/dev/null: not a regular file or directory' $tmp/err"
run get-info /proc/self/status
tq "get-info on another filesystem's file says it is not btrfs (1)" \
	bash -c "[ $rc = 1 ] && grep -q 'not on a btrfs filesystem' $tmp/err"
run set-opts hot /tmp
tq "set-opts names the values it takes (2)" usage_err "invalid value 'hot'"

run where --raw -Zj /
tq "...also inside a cluster after a long option (not the option before it)" \
	usage_err "unknown option '-Z'"
run where --raw=3 /
tq "a long option given a value it does not take says so" \
	usage_err "option '--raw' takes no value"

lacking=""
for c in where status migrate; do
	run "$c" --help
	{ [ "$rc" = 0 ] && grep -q "^usage: heatctl $c" "$tmp/out" &&
		grep -q -- '--raw' "$tmp/out" && grep -q -- '--si' "$tmp/out"; } ||
		lacking="$lacking $c"
done
tq "the commands that print sizes list the unit options in --help (lacking:${lacking:- none})" \
	test -z "$lacking"
run where -h
tq "...where -h means human-readable, not help (a path is still missing: 2)" usage_err "missing path"
run status --raw --si -k -g -H -j /proc
tq "status takes every unit option and says /proc is not btrfs (1)" \
	bash -c "[ $rc = 1 ] && grep -q '/proc: not on a btrfs filesystem' $tmp/err"
run top --raw /
tq "top takes no unit option (2)" usage_err "unknown option '--raw'"
ln -s / "$tmp/link"
run set-opts -r track "$tmp/link"
tq "-r refuses a symbolic link operand by name rather than skip it (1)" \
	bash -c "[ $rc = 1 ] && grep -q 'link: a symbolic link: -r does not follow it' $tmp/err"
run --version
tq "--version prints the version" bash -c "[ $rc = 0 ] && grep -q '^heatctl [0-9]' $tmp/out"
run frobnicate
tq "an unknown command is a usage error (2)" usage_err "unknown command 'frobnicate'"

# The man page documents every command and option the usage texts name.
missing=""
for c in set-opts get-opts get-info top where status migrate; do
	grep -q "^\.BI* \"\?$c" heatctl.8 || missing="$missing $c"
	for o in $(./heatctl "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "${o//-/\\\\-}\|$o" heatctl.8 || missing="$missing $c:$o"
	done
done
[ -n "$missing" ] && echo "# not in heatctl.8:$missing"
tq "the man page names every command and every long option" test -z "$missing"

make -s install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/install.log" 2>&1
tq "make install honours DESTDIR and PREFIX" \
	bash -c "[ -x $tmp/root/usr/bin/heatctl ] && [ -s $tmp/root/usr/share/man/man8/heatctl.8 ]"
tq "-Werror is opt-in: a plain build does not turn warnings into errors" \
	bash -c "make -s -n -B heatctl | grep -q -- '-Wextra' && ! make -s -n -B heatctl | grep -q -- '-Werror' &&
		make -s -n -B WERROR=1 heatctl | grep -q -- '-Werror'"
tq "CFLAGS on the command line keep the warnings; CPPFLAGS, LDFLAGS and LDLIBS are used" \
	bash -c "make -s -n -B CFLAGS=-O1 CPPFLAGS=-DHEAT_X LDFLAGS=-Wl,-zrelro LDLIBS=-lm heatctl >$tmp/n &&
		grep -q -- '-Wextra.*-DHEAT_X.*-O1' $tmp/n && grep -q -- '-Wl,-zrelro.*-lm' $tmp/n"
tap_end
