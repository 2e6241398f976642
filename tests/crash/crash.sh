#!/bin/sh
# HEAT_cycle and HEAT_delay come from heat.* on the kernel command line.
# shellcheck disable=SC2154
# One power cut during mover passes (run by tests/host/crash.sh). The first
# run makes the filesystem and records checksums; every run heats half of
# the files and runs a whole pass, heats the other half, starts a pass and
# cuts the power HEAT_delay ms later with sysrq-b: no sync, no unmount.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

mkdir -p $MNT
# A new boot knows no btrfs devices: register both before mounting.
btrfs device scan >/dev/null 2>&1
if [ "$HEAT_cycle" != 1 ]; then
	mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount after a power cut"
else
	mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
	mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount"
	make_files $MNT/d 16 2048K
	sync
	sums $MNT/d/f* >$MNT/sums.txt
	sync
fi
S=$(hot_sysfs)
# Every other cut also makes the pass demote: a fast tier "over" 1 %.
if [ $((HEAT_cycle % 2)) = 0 ]; then
	echo 0 >$S/mover_low_watermark
	echo 1 >$S/mover_high_watermark
fi
# One whole pass first, so that committed moves must survive the cut too.
for i in $(seq 0 15); do
	[ $(( (i + HEAT_cycle) % 2 )) = 0 ] && heat_up $MNT/d/f$i 1
done
echo 1 >$S/mover_run
echo "moved before the cut: $(awk '$1 ~ /^(promoted|demoted)_bytes$/ { s += $2 } END { print s }' $S/mover_stats) bytes"
for i in $(seq 0 15); do
	[ $(( (i + HEAT_cycle) % 2 )) = 1 ] && heat_up $MNT/d/f$i 1
done
echo "crashing ${HEAT_delay} ms into a pass"
(echo 1 >$S/mover_run) &
usleep $((HEAT_delay * 1000))
echo b >/proc/sysrq-trigger
sleep 30
bail "still running after sysrq-b"
