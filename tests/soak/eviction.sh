#!/bin/sh
# Heat items evicted under the memory cap while the same files are opened,
# read, written, queried and dumped from several processes, and mover passes
# run back to back (issue #10, item 5: an item found by a lookup must not be
# freed by eviction, and the index must not be walked through a freed
# owner). Meant for the kasan kernel, whose reports fail the run:
#   make soak TESTS=eviction       (SECS=seconds of stress, default 240)
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

SECS=${SECS:-240}
small_fs
S=$(hot_sysfs)
DBG=$(hot_debugfs)
echo 4K >$S/range_size
echo 64K >$S/mem_limit
echo 0 >$S/mover_demote_temp
echo 1 >$S/mover_promote_temp
for d in a b c; do make_files $MNT/$d 200 16K; done
make_files $MNT/w 8 1M
sync
sum0=$(sums $MNT/a/f* $MNT/b/f* $MNT/c/f*)
ev0=$(cat $S/nr_evicted)
rm -f /tmp/stop
for d in a b c; do
	( while [ ! -e /tmp/stop ]; do
		cat $MNT/$d/f* >/dev/null
		echo 3 >/proc/sys/vm/drop_caches
	done ) &
done
( while [ ! -e /tmp/stop ]; do
	cat $DBG/* >/dev/null 2>&1
done ) &
( while [ ! -e /tmp/stop ]; do
	for f in $MNT/a/f1 $MNT/b/f2 $MNT/c/f3 $MNT/w/f0; do
		heatctl get-info $f >/dev/null || echo fail >/tmp/info.fail
	done
done ) &
( i=0; while [ ! -e /tmp/stop ]; do
	dd if=/dev/urandom of=$MNT/w/f$((i % 8)) bs=4k count=16 seek=$((i % 200)) \
		conv=notrunc,fsync status=none
	i=$((i + 1))
done ) &
( while [ ! -e /tmp/stop ]; do
	echo 1 >$S/mover_run 2>/dev/null
	sleep 2
done ) &
sleep $SECS
touch /tmp/stop
wait
diag "ranges $(cat $S/nr_ranges), evicted $(($(cat $S/nr_evicted) - ev0)), mover: $(tr '\n' ' ' <$S/mover_stats | cut -c1-200)"
check "heat items were evicted during the stress" \
	test "$(cat $S/nr_evicted)" -gt "$ev0"
check "mover passes ran during the stress" test "$(stat_of passes)" -gt 0
is "heatctl get-info answered every query" "$(cat /tmp/info.fail 2>/dev/null)" ""
is "the files read back what they held" "$(sums $MNT/a/f* $MNT/b/f* $MNT/c/f*)" "$sum0"
umount $MNT
check "btrfs check is clean after the eviction stress" btrfs check "$SLOW_DEV"
done_testing
