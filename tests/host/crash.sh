#!/usr/bin/env bash
# runtime: 250 s (warm clean-clone run; the runner starts the longest first)
# Crash safety of the mover: cut the power of the guest (sysrq-b) at random
# moments during passes, CUTS times (2 in make test: one cut in a pass that
# promotes, one in a pass that demotes) on the same disks, and check after
# each cut that the cut fell in a pass that was writing, that the
# filesystem is consistent and that no file changed. The boot after a cut
# checks what the cut left before it goes on to the next cut; one more boot
# checks the last. With WRITERS=1 (the kill loop of make soak) writers run
# through every pass. CRASH_NAME (crash) names the guest run: its disks,
# build/logs/NAME.out and NAME.console.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../.." || exit 1
run=qemu-topology/run-guest.sh
cycles=${CUTS:-2}
kernel=${GUEST_KERNEL:-debug}
writers=${WRITERS:-0}
name=${CRASH_NAME:-crash}
out=build/logs/$name.out
console=build/logs/$name.console

# verified C OUT CONDITION...: the checks of what cut C left
# (tests/crash/verify.sh) passed; OUT holds their lines, prefixed
# "verify: " when the next cut's run printed them.
verified() {
	local c=$1 out=$2
	shift 2
	sed -n 's/^\(verify: \)\{0,1\}# /# /p' "$out" | head -5
	sed -n 's/^\(verify: \)\{0,1\}\(not ok.*\)/# \2/p' "$out"
	t "cut $c: after the reboot, btrfs check, checksums and scrub are clean and the saved heat loads" "$@"
}

for c in $(seq 1 $cycles); do
	delay=$((100 + RANDOM % 1400))
	keep=-K
	[ "$c" = 1 ] && keep=
	$run -q -k "$kernel" -t 600 -n "$name" $keep \
		-a "heat.delay=$delay heat.cycle=$c heat.writers=$writers" \
		tests/crash/crash.sh tests/crash/verify.sh >/dev/null 2>&1
	rc=$?
	[ "$c" = 1 ] || verified $((c - 1)) "$out" \
		grep -qx 'verify: status 0' "$out"
	t "cut $c: the guest lost power in a pass, aimed at ${delay} ms into it (status 125, got $rc)" \
		sh -c "[ $rc = 125 ] && grep -q 'crashing ${delay} ms' '$out'"
	grep '^moved before the cut' "$out" | sed 's/^/# /'
	cut=$(grep -o 'heat-cut: .*' "$console" | tail -n 1)
	echo "# $cut"
	# 1 MiB: more than the metadata of the pass's first commit; without
	# writers only the mover writes data
	t "cut $c: the pass was running at the cut and had written 1 MiB or more" \
		sh -c "echo '$cut' | awk '\$3 == 1 && \$5 + \$7 >= 2048 { ok = 1 } END { exit !ok }'"
	t "cut $c: no kernel splat in its boot (the check of the last cut, the passes, the cut)" \
		no_splats "$console"
done
$run -q -k "$kernel" -t 600 -n "$name" -K tests/crash/verify.sh >/dev/null 2>&1
rc=$?
verified "$cycles" "$out" test "$rc" = 0
t "no kernel splat in the boot that checked the last cut" no_splats "$console"
tap_end
