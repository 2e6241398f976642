#!/usr/bin/env bash
# runtime: 75 s (warm clean-clone run; the runner starts the longest first)
# The guest launcher reports a failing script, a panicking guest and a hung
# guest as failures with a clear message, each within its time limit, and
# passes the tier device names to the script.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../.." || exit 1
run=qemu-topology/run-guest.sh

out=$($run -q -k debug -t 120 -n harness-fail tests/harness/fail.sh 2>&1); rc=$?
t "a failing guest script returns its exit status (3, got $rc)" test "$rc" = 3
t "the script sees SLOW_DEV=/dev/sda and FAST_DEV=/dev/nvme0n1" \
	grep -q "slow=/dev/sda fast=/dev/nvme0n1" build/logs/harness-fail.out

out=$($run -q -k debug -t 120 -n harness-panic tests/harness/panic.sh 2>&1); rc=$?
echo "$out" | head -1 | sed 's/^/# /'
t "a panicking guest fails with status 125 (got $rc)" test "$rc" = 125
t "the launcher says the guest panicked and shows the console" \
	grep -q "panicked" <<<"$out"

start=$SECONDS
out=$($run -q -k debug -t 30 -n harness-hang tests/harness/hang.sh 2>&1); rc=$?
took=$((SECONDS - start))
echo "$out" | head -1 | sed 's/^/# /'
t "a hung guest fails with status 124 (got $rc)" test "$rc" = 124
t "the launcher says the guest ran past its time limit" grep -q "time limit" <<<"$out"
t "a hung guest is stopped within its limit plus a grace period (${took} s for 30 s)" \
	test "$took" -le 60
tap_end
