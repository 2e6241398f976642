#!/usr/bin/env bash
# Boot a guest kernel with the two-tier topology and run one script in it.
#
#   run-guest.sh [options] SCRIPT [FILE...]
#
#   -k FLAVOUR      lean, debug, kasan or stock (unpatched) kernel (default: lean)
#   -t SECONDS      time limit for the whole guest run (default: 600)
#   -n NAME         name of this run; logs go to build/logs/NAME.{console,out}
#   -K              keep the disk images of the previous run with this NAME
#                   (crash and remount tests); default is fresh empty disks
#   -a ARGS         extra kernel command line, may be repeated
#                   (heat.KEY=VALUE reaches the script as $HEAT_KEY)
#   -q              do not echo the script's output while it runs
#
# FILEs (files or directories) are copied into the guest's /test next to
# the script, which runs there as /test/script.sh. tests/lib is always
# copied to /test/lib.
#
# Topology: an AHCI SATA disk (rotation_rate=7200, throttled by QEMU to
# SLOW_IOPS operations and SLOW_MBPS MB/s so that 4 KiB random reads at
# queue depth 1 take about 1/SLOW_IOPS s, as on a 7200 rpm disk; the
# guest's requests to it are at most 128 KiB, so it streams at no more than
# SLOW_IOPS * 128 KiB a second) and an NVMe
# disk, each backed by a sparse image made on demand. In the guest they are
# $SLOW_DEV and $FAST_DEV. With LOG_SIZE set (e.g. LOG_SIZE=8G), a third
# disk, unthrottled SATA with serial heat-log0, holds dm-log-writes logs
# for the power-cut soak; in the guest it is $LOG_DEV.
#
# The script's output and status come back on the second serial port,
# separate from kernel messages. The exit status is the script's, or
#   124  the guest ran past its time limit (hung)
#   125  the guest panicked or died without reporting a status
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=lean timeout=600 name="" keep=0 extra="" quiet=0
SLOW_SIZE=${SLOW_SIZE:-8G}
FAST_SIZE=${FAST_SIZE:-2G}
LOG_SIZE=${LOG_SIZE:-}
SLOW_IOPS=${SLOW_IOPS:-100}
SLOW_MBPS=${SLOW_MBPS:-150}
GUEST_MEM=${GUEST_MEM:-2G}
GUEST_CPUS=${GUEST_CPUS:-2}

usage() {
	sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts "k:t:n:Ka:qh" opt; do
	case "$opt" in
	k) flavour=$OPTARG ;;
	t) timeout=$OPTARG ;;
	n) name=$OPTARG ;;
	K) keep=1 ;;
	a) extra="${extra:+$extra }$OPTARG" ;;
	q) quiet=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
script=$1
shift
[ -f "$script" ] || { echo "run-guest: no such script: $script" >&2; exit 2; }
case "$flavour" in lean | debug | kasan | stock) ;; *) usage ;; esac
kernel=$top/build/bzImage-$flavour
base=$top/build/initramfs.cpio
[ -f "$kernel" ] || { echo "run-guest: $kernel is missing: run 'make kernel'" >&2; exit 2; }
[ -f "$base" ] || { echo "run-guest: $base is missing: run 'make initramfs'" >&2; exit 2; }
[ -n "$name" ] || name=$(basename "$script" .sh)

logs=$top/build/logs
disks=$top/build/disks/$name
mkdir -p "$logs" "$disks"
console=$logs/$name.console
output=$logs/$name.out
work=$(mktemp -d)
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The per-run archive: the script and its files under /test.
mkdir -p "$work/root/test"
cp "$script" "$work/root/test/script.sh"
cp -r "$top/tests/lib" "$work/root/test/lib"
for f in "$@"; do
	cp -r "$f" "$work/root/test/"
done
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$work/run.cpio"
cat "$base" "$work/run.cpio" >"$work/initrd"

if [ "$keep" = 0 ] || [ ! -f "$disks/slow.img" ]; then
	rm -f "$disks/slow.img" "$disks/fast.img" "$disks/log.img"
	truncate -s "$SLOW_SIZE" "$disks/slow.img"
	truncate -s "$FAST_SIZE" "$disks/fast.img"
fi
if [ -n "$LOG_SIZE" ] && [ ! -f "$disks/log.img" ]; then
	truncate -s "$LOG_SIZE" "$disks/log.img"
fi

accel=tcg
if [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo; then
	accel=kvm
fi

: >"$console"
: >"$output"
# slab_nomerge: a slab cache of the tracker (64-byte range items) would
# otherwise share a cache with others of its size, and /proc/slabinfo,
# which tests and benchmarks check the tracker's own accounting against,
# would count them together.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=7 printk.devkmsg=on slab_nomerge $extra"
# Under TCG on a loaded host a vCPU can be starved for tens of seconds:
# give the soft lockup and RCU stall detectors room (2 minutes) instead of
# reporting the host's load as a kernel bug.
[ "$accel" = tcg ] && cmdline+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
# Only the first boot of a test run needs the KUnit suites (see tests/run).
[[ "$extra" == *kunit.* ]] || cmdline+=" kunit.filter_glob=heat-no-kunit-run"

qemu=(
	qemu-system-x86_64 -machine "pc,accel=$accel" -cpu max
	-smp "$GUEST_CPUS" -m "$GUEST_MEM"
	-nodefaults -display none -no-reboot
	-kernel "$kernel" -initrd "$work/initrd" -append "$cmdline"
	-serial "file:$console" -serial "file:$output"
	-device "ahci,id=ahci0"
	-drive "if=none,id=slow,file=$disks/slow.img,format=raw,cache=writeback,throttling.iops-total=$SLOW_IOPS,throttling.bps-total=$((SLOW_MBPS * 1000000))"
	-device "ide-hd,bus=ahci0.0,drive=slow,rotation_rate=7200,serial=heat-slow0,model=HEAT_SLOW_SATA"
	-drive "if=none,id=fast,file=$disks/fast.img,format=raw,cache=writeback"
	-device "nvme,drive=fast,serial=heat-fast0"
)
if [ -n "$LOG_SIZE" ]; then
	qemu+=(-drive "if=none,id=log,file=$disks/log.img,format=raw,cache=writeback"
		-device "ide-hd,bus=ahci0.1,drive=log,rotation_rate=1,serial=heat-log0,model=HEAT_LOG")
fi

start=$SECONDS
timeout --kill-after=10 "$timeout" "${qemu[@]}" </dev/null >"$logs/$name.qemu" 2>&1 &
qpid=$!
if [ "$quiet" = 0 ]; then
	tail -n +1 -f --pid="$qpid" "$output" 2>/dev/null | grep --line-buffered -v '^@@HEAT-GUEST-EXIT ' || true
fi
set +e
wait "$qpid"
qrc=$?
set -e
qpid=
elapsed=$((SECONDS - start))

tail_console() {
	echo "---- last 40 lines of the console ($console) ----" >&2
	tail -n 40 "$console" >&2
	echo "----" >&2
}

status=$(sed -n 's/^@@HEAT-GUEST-EXIT \([0-9]*\).*/\1/p' "$output" | tail -n 1)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run-guest: $name: the guest ran past its time limit of ${timeout} s and was killed (hung?)" >&2
	tail_console
	exit 124
fi
if grep -q "Kernel panic - not syncing" "$console"; then
	echo "run-guest: $name: the guest kernel panicked after ${elapsed} s" >&2
	tail_console
	exit 125
fi
if [ -z "$status" ]; then
	echo "run-guest: $name: the guest stopped without reporting a status (QEMU exit $qrc)" >&2
	cat "$logs/$name.qemu" >&2
	tail_console
	exit 125
fi
[ "$quiet" = 0 ] || true
echo "run-guest: $name: script exited $status after ${elapsed} s ($accel, $flavour kernel)" >&2
exit "$status"
