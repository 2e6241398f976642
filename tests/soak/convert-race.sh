#!/bin/sh
# shellcheck shell=dash
#
# A metadata profile conversion under writers, on a plain mount (issue
# #14: the ENOSPC abort that admin-ops.sh found in its third run). While
# balance converts metadata, every metadata allocation asks for the new
# profile, and the first caller to need a chunk of it allocates one while
# the others wait. 6.1 let a waiter stop waiting before that chunk
# existed (it takes and drops chunk_mutex, which the allocator may not
# hold yet), judge by free space that is all in block groups of the old
# profile, and fail the allocation with -ENOSPC: a transaction abort
# (migrate/ 0009, "btrfs: wait for a chunk allocation in progress, not
# for chunk_mutex").
#
# Each try: raid1 metadata converted to dup, the NVMe removed, four
# writers of fsynced 8 KiB files, the NVMe added back, and a conversion to
# raid1 under the writers, which must end with status 0 and no abort.
# The window is narrow; tests/soak/debug/chunk-alloc-delays.diff widens
# it with two delays (applied to build/linux, a debug kernel built from
# it): without the fix, 3 of 3 tries failed, one of them aborting.
#
# A soak test, not part of make test (about a minute a try):
#   make soak TESTS=soak-convert-race
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

TRIES=${HEAT_TRIES:-5}

try() {
	local a0 rc n w
	umount $MNT 2>/dev/null
	mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" >/dev/null 2>&1 ||
		bail "mkfs"
	mkdir -p $MNT
	mount "$SLOW_DEV" $MNT || bail "mount"
	make_files $MNT/d 8 4096K
	sync
	btrfs balance start -mconvert=dup -sconvert=dup -f $MNT >/dev/null ||
		bail "convert to dup"
	btrfs device remove "$FAST_DEV" $MNT || bail "device remove"
	rm -f /tmp/stop
	for w in 1 2 3 4; do
		mkdir -p $MNT/w$w
		(
			n=0
			while [ ! -e /tmp/stop ]; do
				dd if=/dev/urandom of=$MNT/w$w/$n bs=4k count=2 \
					conv=fsync 2>/dev/null
				n=$((n + 1))
			done
			echo $n >/tmp/written-$w
		) &
	done
	sleep 3
	btrfs device add -f "$FAST_DEV" $MNT >/dev/null || bail "device add"
	a0=$(dmesg | grep -c -E "Transaction aborted|forced readonly")
	btrfs balance start -mconvert=raid1 -sconvert=raid1 -f $MNT >/dev/null
	rc=$?
	sleep 3
	touch /tmp/stop
	wait
	n=0
	for w in 1 2 3 4; do
		n=$((n + $(cat /tmp/written-$w)))
	done
	check "try $1: the writers wrote through the conversion ($n files)" \
		test "$n" -gt 40
	is "try $1: no transaction abort during the conversion" \
		"$(($(dmesg | grep -c -E "Transaction aborted|forced readonly") - a0))" 0
	is "try $1: the conversion to raid1 under four writers ends with status 0" "$rc" 0
	is "try $1: metadata is raid1" \
		"$(btrfs filesystem df $MNT | awk -F'[:,]' '$1 == "Metadata" { print $2 }')" " RAID1"
	umount $MNT || bail "umount"
	is "try $1: btrfs check is clean" "$(btrfs check "$SLOW_DEV" >/dev/null 2>&1; echo $?)" 0
}

i=1
while [ $i -le "$TRIES" ]; do
	try $i
	i=$((i + 1))
done
done_testing
