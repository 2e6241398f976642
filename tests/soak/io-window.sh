#!/bin/sh
# shellcheck shell=dash
# I/O errors in the middle of a move (issue #14): one device, the NVMe in
# one round and the SATA disk in the other, sits under dm-linear; while a
# pass promotes, its table is swapped for dm-error for a few seconds and
# then back. The moves that hit the window fail: the pass counts them and
# logs no more lines than it counted; every read of the files during the
# window returns EIO or the right data, never other data; once the device
# is back the next pass moves data again; every file reads its checksum
# and btrfs check is clean.
#
# A soak test, not part of make test (a few minutes on the debug kernel):
#   make soak TESTS=soak-io-window
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

# table DEV SECTORS error|linear: swap the table of dm device "flk".
table() {
	if [ "$2" = error ]; then
		t="0 $1 error"
	else
		t="0 $1 linear $FLK_DEV 0"
	fi
	dmsetup suspend --nolockfs flk && dmsetup load flk --table "$t" &&
		dmsetup resume flk
}

# read_all: read every file once, directly: right, wrong or eio a line.
read_all() {
	for f in $MNT/d/f*; do
		if dd if="$f" of=/tmp/r bs=4M iflag=direct 2>/dev/null; then
			if [ "$(sha256sum </tmp/r | cut -d' ' -f1) $f" = \
			     "$(grep " $f\$" /tmp/dsum)" ]; then
				echo right
			else
				echo wrong
			fi
		else
			echo eio
		fi
	done
	rm -f /tmp/r
}

one() {
	which=$1
	if [ "$which" = fast ]; then FLK_DEV=$FAST_DEV; else FLK_DEV=$SLOW_DEV; fi
	sz=$(blockdev --getsz "$FLK_DEV")
	dmsetup remove flk 2>/dev/null
	dmsetup create flk --table "0 $sz linear $FLK_DEV 0" || bail "dmsetup"
	dmsetup mknodes flk
	if [ "$which" = fast ]; then
		devs="$SLOW_DEV /dev/mapper/flk"
	else
		devs="/dev/mapper/flk $FAST_DEV"
	fi
	umount $MNT 2>/dev/null
	btrfs device scan --forget
	# shellcheck disable=SC2086
	mkfs.btrfs -q -f -K -d single -m raid1 $devs || bail "mkfs"
	mkdir -p $MNT
	# shellcheck disable=SC2086
	mount -o hotdatamove,commit=5 ${devs%% *} $MNT || bail "mount"
	S=$(hot_sysfs)
	# dm-error has no device below it, so while it is loaded the device
	# looks non-rotational: pin both tiers.
	echo slow >/sys/fs/btrfs/"$(fs_uuid)"/devinfo/1/tier
	echo fast >/sys/fs/btrfs/"$(fs_uuid)"/devinfo/2/tier
	make_files $MNT/d 16 4096K
	make_files $MNT/g 24 4096K
	sums $MNT/d/f* $MNT/g/f* >/tmp/dsum
	# move half of d/ first, then heat the rest and g/: 128 MiB for the
	# pass that the window opens in
	for i in 0 1 2 3 4 5 6 7; do heat_up $MNT/d/f$i 2; done
	run_pass
	moved0=$(stat_of promoted_bytes)
	for i in 8 9 10 11 12 13 14 15; do heat_up $MNT/d/f$i 2; done
	for f in $MNT/g/f*; do heat_up "$f" 2; done
	# the files are still in the page cache from their writing: the pass
	# would move them without reading the SATA disk at all
	sync
	echo 3 >/proc/sys/vm/drop_caches
	e0=$(stat_of errors)
	w0=$(dmesg | grep -c "hot data mover:")
	(echo 1 >$S/mover_run) 2>/dev/null &
	pass=$!
	check "$which: a pass is moving data when the device fails" wait_in_pass
	table "$sz" error || bail "dm-error"
	: >/tmp/reads
	i=0
	while [ $i -lt 3 ]; do
		read_all >>/tmp/reads
		i=$((i + 1))
	done
	sleep 2
	table "$sz" linear || bail "dm-linear"
	wait $pass
	diag "$which: reads in the window: $(sort /tmp/reads | uniq -c | tr '\n' ' ')"
	diag "$which: $(tr '\n' ' ' <$S/mover_stats | cut -c1-400)"
	is "$which: no read in the window returned other data" \
		"$(grep -c wrong /tmp/reads)" 0
	check "$which: ...and some failed with EIO (the window hit)" \
		grep -q eio /tmp/reads
	e1=$(stat_of errors)
	w1=$(dmesg | grep -c "hot data mover:")
	check "$which: the pass counted the moves that failed ($((e1 - e0)))" \
		test $((e1 - e0)) -gt 0
	check "$which: ...and logged no more lines than it counted ($((w1 - w0)))" \
		test $((w1 - w0)) -le $((e1 - e0))
	echo 3 >/proc/sys/vm/drop_caches
	p1=$(stat_of promoted_bytes)
	make_files $MNT/e 2 4096K
	sync
	heat_up $MNT/e/f0 4
	heat_up $MNT/e/f1 4
	run_pass
	p2=$(stat_of promoted_bytes)
	diag "$which: promoted before the window $moved0, after it $p1, after one more pass $p2"
	check "$which: with the device back, the next pass moves data" \
		test "$p2" -gt "$p1"
	echo 3 >/proc/sys/vm/drop_caches
	is "$which: every file reads its checksum" "$(sums $MNT/d/f* $MNT/g/f*)" \
		"$(cat /tmp/dsum)"
	umount $MNT || bail "umount"
	# shellcheck disable=SC2086
	check "$which: btrfs check is clean" btrfs check ${devs%% *}
	dmsetup remove flk
}

one fast
one slow
done_testing
