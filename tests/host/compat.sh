#!/usr/bin/env bash
# runtime: 420 s (with a cold compiler cache: the stock kernel's build; 110 warm)
# Format compatibility (issue #15, also make compat): what our series
# stores on disk, read by a kernel without it. It builds that kernel
# (qemu-topology/kernel.sh build stock: the lean config on the pristine
# source; with a warm compiler cache only btrfs compiles), then runs three
# guests on the same disks: our kernel (debug, as every test) makes
# a tiered filesystem with data promoted, a pin, a tier override and the
# heat saved at unmount (tests/compat/guest/1-patched.sh); the unpatched
# 6.1 kernel (kernel.sh build stock) checks, mounts, reads back, scrubs
# and writes it (2-stock.sh); our kernel mounts it again (3-back.sh).
# The three TAP streams come out as one; each console is scanned with the
# kernel-report patterns every test uses.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../.." || exit 1
mkdir -p build/logs
name=compat
# phase FLAVOUR SCRIPT [-K]: one guest; its results renumbered.
phase() {
	local out line rc log=build/logs/$name-${2%.sh}
	local console=$log.console
	qemu-topology/run-guest.sh -q -k "$1" -t 600 -n "$name" ${3:+"$3"} \
		"tests/compat/guest/$2" >/dev/null 2>&1
	rc=$?
	# Each phase has its own logs; the disks stay under $name.
	cp "build/logs/$name.out" "$log.out"
	cp "build/logs/$name.console" "$console"
	out=$(cat "$log.out")
	while IFS= read -r line; do
		case "$line" in
		"ok "*) tap_result 0 "$1 kernel: ${line#* - }" ;;
		"not ok "*) tap_result 1 "$1 kernel: ${line#* - }" ;;
		"#"*) echo "$line" ;;
		"Bail out!"*) echo "# $1 kernel: $line" ;;
		esac
	done <<<"$out"
	if [ "$rc" = 0 ]; then
		tap_result 0 "$1 kernel: $2 ran to its end"
	else
		tap_result "$rc" "$1 kernel: $2 ran to its end (status $rc)"
	fi
	t "$1 kernel: kernel log free of reports ($console)" no_splats "$console"
}
if ! qemu-topology/kernel.sh build stock >build/logs/compat-build.log 2>&1; then
	tail -5 build/logs/compat-build.log | sed 's/^/# /'
	tap_result 1 "the unpatched kernel builds (build/logs/compat-build.log)"
	tap_end
	exit
fi
ours=${GUEST_KERNEL:-debug}
phase "$ours" 1-patched.sh
phase stock 2-stock.sh -K
phase "$ours" 3-back.sh -K
# A phase that bailed out shows as not run to its end.
tap_end
