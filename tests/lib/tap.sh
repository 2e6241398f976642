# shellcheck shell=dash
# TAP helpers for in-guest test scripts (busybox sh). Source it, call
# plan N (or done_testing at the end), then ok/not_ok/check/is.
#
#   check "description" cmd args...   ok when the command succeeds
#   is "description" GOT WANT         ok when the strings are equal
#   diag "text"                       a comment line, for measurements
#   skip "description" "reason"
#
# Booted with heat.TAPTIME=1 (run-guest.sh -a), every result is preceded
# by the guest's uptime, to see where a suite spends its time.

_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }

_tap_time() {
	[ -z "${HEAT_TAPTIME:-}" ] || echo "# at $(cut -d' ' -f1 /proc/uptime) s"
}

ok() {
	_tap_time
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $*"
}

not_ok() {
	_tap_time
	_tap_n=$((_tap_n + 1))
	_tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $*"
}

diag() { echo "# $*"; }

skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}

check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "command: $*"
		diag "exit status $rc"
		echo "$out" | tail -n 20 | sed 's/^/#   /'
	fi
	return $rc
}

is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "got:  '$2'"
		diag "want: '$3'"
		return 1
	fi
}

# Stop the script: a setup step failed and nothing after it can be trusted.
bail() {
	echo "Bail out! $*"
	exit 1
}

done_testing() {
	# A library may have checks that only the end can make (heat.sh).
	if command -v tap_at_end >/dev/null 2>&1; then tap_at_end; fi
	echo "1..$_tap_n"
	[ $_tap_failed = 0 ]
}
