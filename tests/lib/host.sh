# shellcheck shell=bash
# The host side's test library (bash): TAP for tests/host/*.sh and the
# kernel-report patterns for every host script that reads a guest's
# console (tests/host, benchmarks). Source it from the top of the
# repository:
#
#   t "description" cmd args...    ok when the command succeeds; its
#                                  output goes to the TAP stream, where
#                                  the runner ignores it
#   tq "description" cmd args...   the same, the command's output hidden
#   tap_end                        prints the plan, counted (TAP allows it
#                                  last); exits 1 if anything failed
#   no_splats LOG                  the console LOG holds no kernel report;
#                                  prints the first ones as diagnostics
#
# Both t and tq return the command's status, so that a script can stop
# what depends on a failed step.

tap_n=0
tap_failed=0

# What a kernel says when something is wrong: tests/lib/kernel-reports, the
# one list that tests/run, these scripts and the benchmarks read.
KERNEL_REPORTS=$(grep -v -e '^#' -e '^$' "$(dirname "${BASH_SOURCE[0]}")/kernel-reports")

# tap_result STATUS DESC: one result line.
tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
	return "$1"
}

# The locals have names of their own: the command may read the caller's
# variables (bash scopes dynamically), an $rc or a $d among them.
t() {
	local _tap_desc=$1 _tap_rc=0
	shift
	"$@" || _tap_rc=$?
	tap_result "$_tap_rc" "$_tap_desc"
}

tq() {
	local _tap_desc=$1 _tap_rc=0
	shift
	"$@" >/dev/null 2>&1 || _tap_rc=$?
	tap_result "$_tap_rc" "$_tap_desc"
}

tap_end() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}

no_splats() {
	grep -qE -e "$KERNEL_REPORTS" "$1" || return 0
	grep -E -A12 -e "$KERNEL_REPORTS" "$1" | head -40 | sed 's/^/# /'
	return 1
}
