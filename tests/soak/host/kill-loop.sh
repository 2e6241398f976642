#!/usr/bin/env bash
# The kill loop of make soak (issue #14): CUTS (50) power cuts with sysrq-b,
# each while a pass writes, with writers running through the passes (fio
# with verification, small files made, truncated, punched and reflinked,
# snapshots made and deleted); tests/host/crash.sh does the work. KILL_LANES
# (2) loops run side by side, each on disks of its own with its share of
# the cuts: a guest keeps about one of the two cores busy. Their results
# come out as one TAP stream, each test named by its loop; each loop's own
# is in build/logs/kill-N.tap.
set -u
cd "$(dirname "$0")/../../.." || exit 1
cuts=${CUTS:-50}
lanes=${KILL_LANES:-2}
tap=build/logs/kill
mkdir -p build/logs
for l in $(seq 1 "$lanes"); do
	n=$((cuts / lanes + (l <= cuts % lanes ? 1 : 0)))
	CRASH_NAME=kill-$l CUTS=$n WRITERS=1 tests/host/crash.sh >"$tap-$l.tap" 2>&1 &
done
wait
# A loop that died early prints fewer results than its plan; the sum of
# the plans keeps that visible to the runner.
plan=0
for l in $(seq 1 "$lanes"); do
	p=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap-$l.tap")
	plan=$((plan + ${p:-0}))
done
echo "1..$plan"
n=0
for l in $(seq 1 "$lanes"); do
	while IFS= read -r line; do
		case "$line" in
		"ok "* | "not ok "*)
			n=$((n + 1))
			verdict=${line%% [0-9]*}
			echo "$verdict $n - loop $l: ${line#* - }"
			;;
		"#"*) echo "# loop $l:${line#\#}" ;;
		esac
	done <"$tap-$l.tap"
done
