#!/usr/bin/env bash
# runtime: 270 s (warm clean-clone run; the runner starts the longest first)
# make bench QUICK=1 as a smoke test of the benchmark scripts: one guest
# run with small sizes must produce the three JSON results, the plots and
# a RESULTS.md with the three tables. No timing is asserted: timings on
# this shared machine under TCG are noise.
set -u
cd "$(dirname "$0")/../.." || exit 1
echo "1..9"
n=0
t() { # t DESC CONDITION...
	local d=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
out=build/bench-quick
mkdir -p build/logs
# A failed guest run must fail the benchmark, with or without progress
# lines (a stand-in guest that exits 3).
stub=$(mktemp)
trap 'rm -f "$stub"' EXIT
for lines in "echo '# progress'" ":"; do
	printf '#!/bin/sh\n%s\nexit 3\n' "$lines" >"$stub"
	chmod +x "$stub"
	RUN_GUEST=$stub QUICK=1 KERNEL=debug benchmarks/run >build/logs/bench-fail.host 2>&1
	rc=$?
	t "benchmarks/run fails when the guest fails ($([ "$lines" = : ] && echo silent || echo with output); status $rc)" \
		bash -c "[ $rc != 0 ] && grep -q 'the guest run failed (status 3)' build/logs/bench-fail.host"
done
# A guest run that succeeds while its kernel reports a problem fails too
# (a stand-in guest that leaves a KASAN report in its console log).
printf '#!/bin/sh\necho "[ 9.1] BUG: KASAN: use-after-free in f+0x1/0x2" >build/logs/bench-quick.console\n' >"$stub"
RUN_GUEST=$stub QUICK=1 KERNEL=debug benchmarks/run >build/logs/bench-fail.host 2>&1
rc=$?
t "benchmarks/run fails when the kernel reported a problem (status $rc)" \
	bash -c "[ $rc != 0 ] && grep -q 'the kernel reported a problem' build/logs/bench-fail.host"
rm -rf "$out" build/logs/bench-quick.console
QUICK=1 KERNEL=debug benchmarks/run >build/logs/bench-quick.host 2>&1
rc=$?
sed 's/^/# /' build/logs/bench-quick.host | tail -25
t "make bench QUICK=1 succeeds (status $rc)" test "$rc" = 0
t "it writes the JSON of the three benchmarks with the run's identity" \
	bash -c "for b in hotset overhead scale; do jq -e '.kernel and .commit and .date and .topology and .result' $out/\$b.json >/dev/null || exit 1; done"
t "the hot-set result has all-SATA, all-NVMe, tiered and dm-cache phases with percentiles" \
	jq -e '[.result.phases[].label] as $l | ($l | index("all-SATA")) and ($l | index("all-NVMe")) and ($l | index("tiered-before")) and ($l | index("dm-cache-cold")) and (.result.phases | all(.p99_us > 0 and .iops > 0))' $out/hotset.json
t "the scale result tracks more ranges at each step" \
	jq -e '[.result.points[].nr_ranges] as $r | ($r | length) >= 3 and ($r == ($r | sort)) and ($r[-1] > $r[0])' $out/scale.json
t "RESULTS.md has the three sections and a table row per setup" \
	bash -c "grep -q '^## 1. Hot-set latency' $out/RESULTS.md && grep -q '^## 2. Tracking overhead' $out/RESULTS.md && grep -q '^## 3. Memory and scale' $out/RESULTS.md && grep -q '^| all-NVMe |' $out/RESULTS.md && grep -q '^| hotdatatrack |' $out/RESULTS.md"
t "the latency and overhead plots are PNG images" \
	bash -c "for p in $out/latency.png $out/overhead.png; do [ \"\$(head -c 4 \$p | tail -c 3)\" = PNG ] || exit 1; done"
