#!/bin/sh
# One device fails every I/O (dm-error) while the mover runs passes back to
# back and a writer writes and fsyncs: after unmount, btrfs check must be
# clean (issue #10, item 16: a run of an earlier series reported
# "root [7 0] level 0 does not match 1" and "could not setup csum tree" in
# one of four runs with raid1 data). With raid1 data every file must also
# read back what it held, from the other mirror.
#
# A soak test (about 5 minutes on the lean kernel), not part of make test:
#   qemu-topology/run-guest.sh -k lean -t 1200 -n write-errors \
#       tests/soak/write-errors.sh
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh
# one: ROUNDS rounds with data profile PROFILE.
one() {
	sz=$(blockdev --getsz "$FAST_DEV")
	round=0
	bad=0
	lost=0
	while [ $round -lt ${ROUNDS:-6} ]; do
		dmsetup remove nv 2>/dev/null
		dmsetup create nv --table "0 $sz linear $FAST_DEV 0" || bail "dmsetup"
		dmsetup mknodes nv
		umount $MNT 2>/dev/null
		mkfs.btrfs -q -f -K -b 1G -d $PROFILE -m raid1 "$SLOW_DEV" /dev/mapper/nv || bail mkfs
		mkdir -p $MNT
		mount -o hotdatamove,commit=5 "$SLOW_DEV" $MNT || bail mount
		S=$(hot_sysfs)
		echo 0 >$S/mover_demote_temp
		echo 1 >$S/mover_promote_temp
		echo 5 >$S/mover_low_watermark
		echo 10 >$S/mover_high_watermark
		make_files $MNT/d 8 4096K
		sync
		dsum=$(sums $MNT/d/f*)
		for i in 0 1 2 3; do heat_up $MNT/d/f$i 2; done
		rm -f /tmp/stop
		( while [ ! -e /tmp/stop ]; do echo 1 >$S/mover_run 2>/dev/null; sleep 2; done ) &
		pr=$!
		( i=0; while [ ! -e /tmp/stop ]; do
			dd if=/dev/urandom of=$MNT/w$i bs=64k count=64 conv=fsync 2>/dev/null
			heat_up $MNT/d/f$((i % 8)) 1
			i=$((i + 1)); done ) &
		wr=$!
		sleep $((3 + round % 4))
		dmsetup suspend nv
		dmsetup load nv --table "0 $sz error"
		dmsetup resume nv
		sleep 6
		touch /tmp/stop
		wait $pr $wr
		diag "round $round: $(tr '\n' ' ' <$S/mover_stats | cut -c1-300)"
		if [ $PROFILE = raid1 ] && [ "$(sums $MNT/d/f*)" != "$dsum" ]; then
			diag "round $round: a file read back other data"
			lost=$((lost + 1))
		fi
		umount $MNT || diag "umount failed"
		dmsetup suspend nv
		dmsetup load nv --table "0 $sz linear $FAST_DEV 0"
		dmsetup resume nv
		btrfs check "$SLOW_DEV" >/tmp/check.out 2>&1
		rc=$?
		if [ $rc != 0 ]; then
			bad=$((bad + 1))
			diag "round $round: btrfs check rc $rc"
			head -20 /tmp/check.out | sed 's/^/# /'
		fi
		round=$((round + 1))
	done
	is "btrfs check clean after a device failed writes ($PROFILE data, $ROUNDS rounds)" $bad 0
	[ $PROFILE = raid1 ] && is "...and every file read back its data" $lost 0
	dmsetup remove nv
}
PROFILE=raid1 ROUNDS=5 one
PROFILE=single ROUNDS=5 one
done_testing
