#!/bin/sh
# shellcheck shell=dash
# runtime: 135 s (warm run, debug kernel; the runner starts the longest first)
# A filesystem of one tier (issue #13): with hotdatamove, an all-NVMe
# filesystem allocates exactly as a plain mount does, proved by writing
# the same files on a fresh filesystem under both mounts and comparing
# where FIEMAP and the chunk tree put them; the mover says in mover_state
# that it idles and why, and its passes commit nothing. A tier override,
# device add and device remove switch between one tier and two while
# mounted. The same comparison on two tiers differs, so it can fail. An
# all-SATA filesystem filled to the last chunk allocates as a plain mount
# too after an override (the mount's loading of the overrides is the
# first tier change, the override the second): with an even number of
# changes, a cache of the answer once read such a filesystem as tiered,
# and its last data chunks left the metadata reserve.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

# write_set: the same files every time, one after the other and each on
# disk before the next, through every path that picks a tier: buffered
# writes, direct writes, preallocation, compressed writes. 140 MiB in
# all, so that 512 MiB devices need data chunks beyond mkfs's.
write_set() {
	dd if=/tmp/pattern of=$MNT/buffered bs=1M count=64 conv=fsync 2>/dev/null
	dd if=/tmp/pattern of=$MNT/direct bs=1M count=32 oflag=direct \
		conv=fsync 2>/dev/null
	fallocate -l 32M $MNT/prealloc
	dd if=/tmp/pattern of=$MNT/prealloc bs=1M count=4 seek=8 \
		conv=notrunc,fsync 2>/dev/null
	touch $MNT/compressed
	btrfs property set $MNT/compressed compression zstd
	yes "a line that compresses well" | head -c $((16 * 1048576)) \
		>$MNT/compressed
	sync
	dd if=/tmp/pattern of=$MNT/tail bs=1M count=24 conv=fsync 2>/dev/null
	sync
}

# layout: where every file's extents lie (file offset, logical address,
# length, from filefrag -v) and every chunk (start, length, devid of its
# first stripe), from tools that know nothing of tiers.
layout() {
	local f
	for f in buffered direct prealloc compressed tail; do
		filefrag -v $MNT/$f | awk -v f=$f '$1 ~ /^[0-9]+:$/ {
			s = $2; sub(/\.\..*/, "", s); p = $4; sub(/\.\..*/, "", p)
			l = $6; sub(/:/, "", l); print f, s, p, l }'
	done
	chunk_map
}

# fill DEVICES MOUNT_OPTIONS [TIER]: a fresh 512 MiB-a-device filesystem
# on DEVICES, mounted with MOUNT_OPTIONS; TIER, if given, is written to the
# SATA disk's tier override before anything is written; then write_set.
# Sets $S. Runs in the script's shell, so that a failed step bails out.
fill() {
	umount $MNT 2>/dev/null
	# shellcheck disable=SC2086
	mkfs.btrfs -q -f -K -b 512M -d single $1 >/dev/null || bail "mkfs $1 failed"
	mkdir -p $MNT
	mount ${2:+-o "$2"} "${1%% *}" $MNT || bail "mount $1 -o $2 failed"
	if [ -n "${3:-}" ]; then
		echo "$3" >"/sys/fs/btrfs/$(fs_uuid)/devinfo/1/tier" ||
			bail "tier override $3"
	fi
	write_set
	S=$(hot_sysfs)
}

# fill_up DEVICE MOUNT_OPTIONS: a fresh 512 MiB filesystem on DEVICE
# alone, its tier overridden to slow (the second tier change of the mount),
# filled to ENOSPC with 40 MiB preallocations and then 16 MiB writes;
# prints where every extent and chunk lies. Runs in a subshell: a bail
# ends only it, and shows as a layout that differs.
fill_up() {
	local i=0 f
	umount $MNT 2>/dev/null
	mkfs.btrfs -q -f -K -b 512M -d single "$1" >/dev/null || bail "mkfs $1 failed"
	mkdir -p $MNT
	mount ${2:+-o "$2"} "$1" $MNT || bail "mount $1 -o $2 failed"
	echo slow >"/sys/fs/btrfs/$(fs_uuid)/devinfo/1/tier" || bail "tier override slow"
	while [ $i -lt 16 ] && fallocate -l 40M $MNT/p$i 2>/dev/null; do
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 16 ] && dd if=/tmp/pattern of=$MNT/d$i bs=1M count=16 \
			conv=fsync 2>/dev/null; do
		i=$((i + 1))
	done
	sync
	for f in $MNT/*; do
		filefrag -v "$f" | awk -v f="${f##*/}" '$1 ~ /^[0-9]+:$/ {
			print f, $2, $4, $6 }'
	done
	chunk_map "$1"
}

# sane LAYOUT: the layout lists extents of every file and several chunks.
sane() {
	local f
	for f in buffered direct prealloc compressed tail; do
		echo "$1" | grep -q "^$f " || return 1
	done
	test "$(echo "$1" | grep -c '^chunk ')" -gt 3
}

# generation: the generation of the superblock on disk, which only a
# transaction commit moves.
generation() {
	btrfs inspect-internal dump-super "$FAST_DEV" | awk '$1 == "generation" { print $2 }'
}

# open_transaction NAME: create a file, which starts a transaction, and
# check that one is open: the running generation is past the one on disk.
open_transaction() {
	touch "$MNT/$1"
	check "a new file opens a transaction" \
		test "$(cat "/sys/fs/btrfs/$(fs_uuid)/generation")" -gt "$(generation)"
}

dd if=/dev/urandom of=/tmp/pattern bs=1M count=64 2>/dev/null

# ---- all-NVMe, one device: plain and hotdatamove allocate the same ----
fill "$FAST_DEV" ""
plain=$(layout)
fill "$FAST_DEV" hotdatamove
move=$(layout)
check "the layout lists extents of every file and several chunks" sane "$plain"
is "an all-NVMe filesystem mounted hotdatamove puts every extent and chunk where a plain mount does" \
	"$move" "$plain"
is "...and its mover says it idles on one tier" \
	"$(cat $S/mover_state)" "idle (one tier)"
check "...and keeps its timer (next_pass_in_s is not -1)" \
	test "$(stat_of next_pass_in_s)" -ge 0
# Leave a transaction open: a pass that commits would write a new
# superblock. commit=300 keeps the periodic commit away meanwhile.
mount -o remount,commit=300 $MNT
# Heat for a save to keep: two tracked ranges.
dd if=/dev/urandom of=$MNT/heat bs=1M count=2 2>/dev/null
sync
direct_reads $MNT/heat 512
open_transaction open1
g0=$(generation)
run_pass
is "...a pass ends with the result one-tier" "$(stat_of last_pass_result)" one-tier
is "...and commits nothing" "$(generation)" "$g0"
is "...and rewrites nothing" "$(stat_of rewritten_bytes)" 0
is "...nor saves the heat, which no pass here can use (nr_saved)" \
	"$(cat $S/nr_saved)" 0

# ---- adding a SATA disk makes two tiers, removing it one again ----
btrfs device add -f "$SLOW_DEV" $MNT || bail "device add"
is "after a SATA disk is added the mover runs" "$(cat $S/mover_state)" running
sync
open_transaction open2
g0=$(generation)
run_pass
is "...its pass ends as usual" "$(stat_of last_pass_result)" "done"
check "...and commits, as a pass on two tiers does (so the check above can fail)" \
	test "$(generation)" -gt "$g0"
check "...and saves the heat (so can the one above: $(cat $S/nr_saved) ranges)" \
	test "$(cat $S/nr_saved)" -ge 2
btrfs device remove "$SLOW_DEV" $MNT || bail "device remove"
is "after the SATA disk is removed it idles on one tier again" \
	"$(cat $S/mover_state)" "idle (one tier)"
umount $MNT
check "the one-device filesystem checks clean" btrfs check --readonly "$FAST_DEV"

# ---- SATA + NVMe with the SATA disk overridden to fast: one tier ----
fill "$SLOW_DEV $FAST_DEV" ""
plain=$(layout)
fill "$SLOW_DEV $FAST_DEV" hotdatamove fast
move=$(layout)
check "the two-device layout lists extents of every file and several chunks" \
	sane "$plain"
is "SATA overridden to fast: hotdatamove allocates as a plain mount" \
	"$move" "$plain"
is "...and the mover idles on one tier" "$(cat $S/mover_state)" "idle (one tier)"
echo auto >"/sys/fs/btrfs/$(fs_uuid)/devinfo/1/tier"
is "the override back to auto: the mover runs" "$(cat $S/mover_state)" running
fill "$SLOW_DEV $FAST_DEV" hotdatamove
tiered=$(layout)
check "on two tiers the same writes land elsewhere (the comparison can fail)" \
	test "$tiered" != "$plain"
is "...on the SATA disk: none of the 24 MiB written last is on the NVMe" \
	"$(fast_bytes $MNT/tail)" 0
umount $MNT
check "the two-device filesystem checks clean" btrfs check --readonly "$SLOW_DEV"

# ---- all-SATA, one device, filled up after an override ----
plain=$(fill_up "$SLOW_DEV" "")
move=$(fill_up "$SLOW_DEV" hotdatamove)
check "the full SATA filesystem holds preallocated and written files in 8 or more chunks" \
	test "$(echo "$plain" | grep -c '^chunk ')" -ge 8 -a \
	"$(echo "$plain" | grep -c '^p0 ')" -ge 1 -a \
	"$(echo "$plain" | grep -c '^d0 ')" -ge 1
is "an all-SATA filesystem filled up under hotdatamove puts every extent and chunk where a plain mount does" \
	"$move" "$plain"
is "...and its mover idles on one tier" "$(cat "$(hot_sysfs)"/mover_state)" "idle (one tier)"
umount $MNT
check "the full SATA filesystem checks clean" btrfs check --readonly "$SLOW_DEV"

done_testing
