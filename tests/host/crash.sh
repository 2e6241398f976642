#!/usr/bin/env bash
# Crash safety of the mover: cut the power of the guest (sysrq-b) at random
# moments during passes, three times on the same disks, and check after
# each cut that the filesystem is consistent and no file changed.
set -u
cd "$(dirname "$0")/../.." || exit 1
run=qemu-topology/run-guest.sh
cycles=3
echo "1..$((cycles * 4))"
n=0
t() { # t DESC CONDITION...
	local d=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
reports=$(grep -v -e '^#' -e '^$' tests/lib/kernel-reports)
no_splats() { # no_splats LOG: the kernel reported no problem
	grep -qE -e "$reports" "$1" || return 0
	grep -E -A12 -e "$reports" "$1" | head -40 | sed 's/^/# /'
	return 1
}

for c in $(seq 1 $cycles); do
	delay=$((500 + RANDOM % 5500))
	keep=-K
	[ "$c" = 1 ] && keep=
	$run -q -k debug -t 600 -n crash $keep -a "heat.delay=$delay heat.cycle=$c" \
		tests/crash/crash.sh >/dev/null 2>&1
	rc=$?
	t "cut $c: the guest lost power ${delay} ms into a pass (status 125, got $rc)" \
		sh -c "[ $rc = 125 ] && grep -q 'crashing ${delay} ms' build/logs/crash.out"
	grep '^moved before the cut' build/logs/crash.out | sed 's/^/# /'
	t "cut $c: no kernel splat before the cut" no_splats build/logs/crash.console
	$run -q -k debug -t 600 -n crash -K tests/crash/verify.sh >/dev/null 2>&1
	rc=$?
	grep '^# ' build/logs/crash.out | head -5
	grep '^not ok' build/logs/crash.out
	t "cut $c: after reboot, btrfs check, checksums and scrub are clean (status $rc)" \
		test "$rc" = 0
	t "cut $c: no kernel splat after the reboot" no_splats build/logs/crash.console
done
