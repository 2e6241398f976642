#!/bin/sh
# shellcheck shell=dash
# runtime: 800 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# The mover on the files people have, and the lifetime bugs a review found
# (issue #10): a file overwritten in place, files read with libaio and
# io_uring, a file whose owner set btrfs.hot=track after it was promoted,
# more hot ranges already in place than a pass gathers at once, balance
# and device remove under back-to-back passes, eviction of heat items
# while files are reopened, a SATA disk filled with ordinary data, sysfs
# readers across unmounts, and an unmount while the mover is throttled
# behind a large buffered copy.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M=4194304	# bytes per test file

# encoded_kib FILE: the KiB of FILE that FIEMAP reports in compressed
# (encoded) extents. filefrag -v: "ext: logical: physical: length: ...".
encoded_kib() {
	filefrag -v "$1" | awk -F: '/encoded/ { n += $4 } END { print n * 4 }'
}

# ---- a file overwritten in place (databases, VM images) ----
small_fs
S=$(hot_sysfs)
make_files $MNT/o 1 4096K
sync
fio --name=ow --filename=$MNT/o/f0 --size=4M --rw=randwrite --bs=4k \
	--ioengine=psync --number_ios=64 --randrepeat=0 --fsync_on_close=1 \
	>/dev/null 2>&1 || bail "fio overwrite failed"
sync
exts=$(filefrag $MNT/o/f0 | awk '{ print $2 }')
check "random 4 KiB overwrites split the file ($exts extents)" test "$exts" -gt 8
sum=$(sums $MNT/o/f0)
heat_up $MNT/o/f0
run_pass
fb=$(fast_bytes $MNT/o/f0)
is "the overwritten file moves to NVMe as a whole (filefrag + chunk tree)" \
	"$fb" $M
if [ "$fb" != $M ]; then
	# Seen once in CI under load, never here: say what the pass did.
	diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
	diag "$(filefrag -v $MNT/o/f0 | sed -n '4,9p' | tr '\n' '|')"
	diag "$(btrfs device usage -b $MNT | tr -s ' \n' ' ')"
	diag "$(dmesg | tail -5 | tr '\n' '|')"
fi
is "...with its data unchanged" "$(sums $MNT/o/f0)" "$sum"
is "...and no extent of it counted as shared" "$(stat_of skipped_shared)" 0
is "...and the pass rewrote exactly what landed on NVMe" \
	"$(stat_of rewritten_bytes)" "$(stat_of promoted_bytes)"

# ---- hot data written again (copy on write) stays on the fast tier ----
# Every write of a btrfs file goes to a new place. Ordinary data goes to
# SATA, but a write of a range hot enough to be promoted goes to NVMe, or
# each write to a database's hot pages would send them back to the disk.
overwrite() {
	fio --name=ow2 --filename=$MNT/o/f0 --size=4M --rw=randwrite --bs=4k \
		--direct=1 --ioengine=psync --number_ios=64 --randrepeat=0 \
		>/dev/null 2>&1 || bail "fio overwrite failed"
	sync
}
hw=$(stat_of hot_written_bytes)
overwrite
is "64 direct 4 KiB overwrites of the hot file keep all of it on NVMe (filefrag)" \
	"$(fast_bytes $MNT/o/f0)" $M
is "...written there as hot data" "$(stat_of hot_written_bytes)" $((hw + 64 * 4096))
# The same writes to data that is not hot enough go where ordinary data
# goes.
echo 223 >$S/mover_promote_temp
overwrite
check "with the threshold above the file's heat, overwrites go to SATA (filefrag)" \
	test "$(fast_bytes $MNT/o/f0)" -lt $M
is "...and none of them count as hot" "$(stat_of hot_written_bytes)" $((hw + 64 * 4096))
echo 80 >$S/mover_promote_temp

# ---- asynchronous direct I/O ----
make_files $MNT/a 2 4096K
sync
for engine in libaio io_uring; do
	f=$MNT/a/f0
	[ $engine = io_uring ] && f=$MNT/a/f1
	r0=$(dbg_inode $f 3)
	fio --name=$engine --filename=$f --size=4M --rw=read --bs=64k \
		--ioengine=$engine --iodepth=8 --direct=1 --loops=4 \
		>/tmp/fio.$engine 2>&1
	check "fio $engine direct reads run" grep -q "READ:" /tmp/fio.$engine
	r1=$(dbg_inode $f 3)
	check "$engine direct reads are counted (reads ${r0:-none} -> ${r1:-none})" \
		test "${r1:-0}" -ge 256
done
run_pass
is "a file read with libaio moves to NVMe" "$(fast_bytes $MNT/a/f0)" $M
is "a file read with io_uring moves to NVMe" "$(fast_bytes $MNT/a/f1)" $M
fio --name=w --filename=$MNT/a/f0 --size=4M --rw=write --bs=64k \
	--ioengine=io_uring --iodepth=8 --direct=1 >/dev/null 2>&1
check "io_uring direct writes are counted too" \
	test "$(dbg_inode $MNT/a/f0 4)" -ge 64

# ---- a compressed file ----
touch $MNT/z
btrfs property set $MNT/z compression zlib
dd if=/dev/zero of=$MNT/z bs=1M count=4 2>/dev/null
sync
check "the file is stored compressed (filefrag: encoded)" \
	sh -c "filefrag -v $MNT/z | grep -q encoded"
zsum=$(sums $MNT/z)
# A file compressed by a compressing defrag, on a mount and a file that
# ask for no compression: the mover must keep its extents compressed.
dd if=/dev/zero of=$MNT/zd bs=1M count=4 2>/dev/null
sync
btrfs filesystem defragment -czstd $MNT/zd
sync
is "'defrag -czstd' stores a file compressed without a mount option (filefrag: encoded)" \
	"$(encoded_kib $MNT/zd)" 4096
# Overwritten in place at four blocks, which are written back plain: the
# mover must keep the rest compressed and those four blocks as they are.
for b in 100 300 500 700; do
	dd if=/dev/urandom of=$MNT/zd bs=4k count=1 seek=$b conv=notrunc 2>/dev/null
done
sync
is "...and after four 4 KiB overwrites in place, the rest of it still is" \
	"$(encoded_kib $MNT/zd)" 4080
zdsum=$(sums $MNT/zd)
# Direct reads of compressed data fall back to buffered ones; read from
# disk each time so that every read is counted. A read of a compressed
# extent fills the page cache for the whole extent, so one sequential read
# counts only one to three accesses per 1 MiB range: read it 24 times.
i=0
while [ $i -lt 24 ]; do
	drop_caches
	cat $MNT/z $MNT/zd >/dev/null
	i=$((i + 1))
done
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
diag "zd: $(filefrag -v $MNT/zd | tr -s ' ' | tr '\n' ';')"
is "a compressed hot file moves to NVMe" "$(fast_bytes $MNT/z)" $M
check "...still compressed" sh -c "filefrag -v $MNT/z | grep -q encoded"
is "...with its data unchanged" "$(sums $MNT/z)" "$zsum"
is "a hot file compressed by 'defrag -c' moves to NVMe" "$(fast_bytes $MNT/zd)" $M
is "...still compressed where it was, although nothing asks for compression now" \
	"$(encoded_kib $MNT/zd)" 4080
is "...with its data unchanged" "$(sums $MNT/zd)" "$zdsum"

# ---- demotion: opts do not pin, shared extents are not unshared ----
# The reflinked file is not rewritten through one of its files; once the
# rest of its block group has been demoted, the group is relocated.
xfs_io -f -c "reflink $MNT/a/f1 0 0 $M" $MNT/a/f1r >/dev/null
heatctl set-opts track $MNT/o/f0
demote_all
d0=$(stat_of demoted_bytes)
sk=$(stat_of skipped_shared)
run_pass
is "a promoted file set to 'track' by its owner is still demoted when cold" \
	"$(fast_bytes $MNT/o/f0)" 0
check "...and counted as demoted" test "$(stat_of demoted_bytes)" -gt "$d0"
is "a cold compressed file is demoted whole (its disk size is not its span)" \
	"$(fast_bytes $MNT/z)" 0
is "...with its data unchanged" "$(sums $MNT/z)" "$zsum"
is "a cold file compressed by 'defrag -c' is demoted" "$(fast_bytes $MNT/zd)" 0
is "...still compressed where it was" "$(encoded_kib $MNT/zd)" 4080
is "...with its data unchanged" "$(sums $MNT/zd)" "$zdsum"
is "a cold reflinked file leaves NVMe with its block group, as the only data left there" \
	"$(fast_bytes $MNT/a/f1) $(stat_of relocated_groups)" "0 1"
is "...so it still shares one physical extent with its clone" \
	"$(phys $MNT/a/f1)" \
	"$(phys $MNT/a/f1r)"
check "...and the mover counts it as shared" \
	test "$(stat_of skipped_shared)" -gt "$sk"
defaults
umount $MNT

# ---- a user defrag of the same file during a promotion ----
# The target tier belongs to the range the mover rewrites, not to the file:
# a defrag of a cold part of the file, written back while the mover
# promotes the hot part, goes where ordinary data goes. Each run of
# writes that fragments the cold part writes a range of its own 16 times,
# so the threshold is set above what that makes of a range (temperature
# 96, 104 if the runs come round twice), below the hot part's 114: the
# cold part must not become hot data, which is written to NVMe.
# frag FILE OFF: rewrite the 64 KiB at OFF with 16 direct 4 KiB writes, odd
# blocks first, so that no two neighbouring blocks are neighbours on disk
# and defrag has 16 extents to merge.
frag() {
	local cmds="" b
	for b in 1 3 5 7 9 11 13 15 0 2 4 6 8 10 12 14; do
		cmds="$cmds -c 'pwrite -q -b 4k $(($2 + b * 4096)) 4k'"
	done
	eval xfs_io -d $cmds "$1"
}
# heat_head FILE: read the first 32 MiB of FILE five times, directly.
heat_head() {
	local i=0
	while [ $i -lt 5 ]; do
		dd if="$1" of=/dev/null bs=64k count=512 iflag=direct 2>/dev/null
		i=$((i + 1))
	done
}
# extents_from FILE OFF: extents of FILE that start at byte OFF or later.
extents_from() {
	filefrag -v "$1" | awk -v from=$(($2 / 4096)) '$1 ~ /^[0-9]+:$/ {
		s = $2; sub(/\.\..*/, "", s); if (s + 0 >= from) n++ }
		END { print n + 0 }'
}
fresh_fs hotdatamove
S=$(hot_sysfs)
echo 110 >$S/mover_promote_temp
make_files $MNT/d 1 56M
drop_caches
heat_head $MNT/d/f0
(echo 1 >$S/mover_run) &
mover=$!
overlap=0
runs=0
while kill -0 $mover 2>/dev/null || [ $runs = 0 ]; do
	off=$(((40 + runs % 16) << 20))
	frag $MNT/d/f0 $off
	[ "$(stat_of pass_in_progress)" = 1 ] && overlap=$((overlap + 1))
	btrfs filesystem defragment -f -s $off -l 64K $MNT/d/f0
	runs=$((runs + 1))
done
wait $mover
diag "user defrags: $runs, $overlap of them started during the pass"
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
check "user defrags of the cold part ran during the pass" test $overlap -gt 0
n=$(extents_from $MNT/d/f0 $((40 << 20)))
diag "extents in the cold part: $n after $runs runs of 16 writes"
check "...and merged what they fragmented" test $n -lt $((runs * 4))
is "the hot 32 MiB moved to NVMe" "$(fast_bytes $MNT/d/f0 0 $((32 << 20)))" \
	$((32 << 20))
is "the defragged cold part stayed on the SATA disk" \
	"$(fast_bytes $MNT/d/f0 $((40 << 20)))" 0
echo 80 >$S/mover_promote_temp

# A compressing defrag of the cold end of a file leaves dirty pages in the
# file's one large extent; defrag used to skip the whole extent for them,
# so the mover rewrote nothing of the hot part and called the tier full.
dd if=/dev/zero of=$MNT/d/z bs=1M count=56 2>/dev/null
sync
heat_head $MNT/d/z
(echo 1 >$S/mover_run) &
mover=$!
btrfs filesystem defragment -czlib -s 40M -l 16M $MNT/d/z
wait $mover
sync
is "a compressing defrag of the cold end does not keep the hot part from moving" \
	"$(fast_bytes $MNT/d/z 0 $((32 << 20)))" $((32 << 20))

# Dirty pages in each hot range: defrag leaves them alone, and they are
# written back with the rest of the range as writes of hot data, to the
# fast tier. Neither a busy range nor a full tier.
make_files $MNT/p 1 16M
sync
heat_up $MNT/p/f0 5
i=0
while [ $i -lt 16 ]; do
	dd if=/dev/zero of=$MNT/p/f0 bs=4k count=1 seek=$((i * 256 + 128)) \
		conv=notrunc 2>/dev/null
	i=$((i + 1))
done
ff=$(stat_of fast_full)
hw=$(stat_of hot_written_bytes)
run_pass
is "dirty pages in hot ranges do not end the pass as fast-full" \
	"$(stat_of last_pass_result) $(stat_of fast_full)" "done $ff"
check "...the dirty pages are written as hot data" \
	test "$(stat_of hot_written_bytes)" -ge $((hw + 16 * 4096))
run_pass
is "...and at the latest the next pass moves all of the ranges (filefrag)" \
	"$(fast_bytes $MNT/p/f0)" $((16 << 20))
umount $MNT

# ---- more hot ranges already in place than one pass gathers ----
fresh_fs hotdatamove
S=$(hot_sysfs)
echo 4096 >$S/range_size
make_files $MNT/h 1 20480K
make_files $MNT/w 1 4096K
sync
heat_up $MNT/h/f0 32 1M
run_pass
is "20 MiB of 4 KiB hot ranges promoted (5120 ranges)" \
	"$(fast_bytes $MNT/h/f0)" $((5 * M))
# FIEMAP joins physically adjacent extents, so count the file extent items
# (btrfs-progs, from disk; drop_caches drops stale block device pages):
# moved one range at a time, the file would hold 5120 of them.
drop_caches
items=$(btrfs inspect-internal dump-tree -t 5 "$SLOW_DEV" |
	grep -c "key ($(ino_of $MNT/h/f0) EXTENT_DATA ")
check "...in rewrites of many ranges each: $items file extent items" \
	test "$items" -gt 0 -a "$items" -lt 64
heat_up $MNT/h/f0 32 1M
heat_up $MNT/w/f0 20 1M
run_pass
is "a hot file behind 5120 hotter ranges already on NVMe still moves" \
	"$(fast_bytes $MNT/w/f0)" $M
umount $MNT

# ---- raid1 data spans both tiers: nothing can change tier ----
umount $MNT 2>/dev/null
mkfs.btrfs -q -f -K -b 512M -d raid1 -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount"
S=$(hot_sysfs)
make_files $MNT/r 1 4096K
sync
heat_up $MNT/r/f0
run_pass
is "with raid1 data over one SATA and one NVMe device a pass says why it idles" \
	"$(stat_of last_pass_result)" profile
is "...and rewrites nothing" "$(stat_of rewritten_bytes)" 0
is "...and mover_state says it idles for the profile" \
	"$(cat $S/mover_state)" "idle (profile)"
umount $MNT

# ---- balance and device remove while passes run back to back ----
small_fs
S=$(hot_sysfs)
make_files $MNT/b 12 4096K
sync
for i in 0 1 2 3 4 5; do heat_up $MNT/b/f$i 4; done
run_pass
check "six files promoted before the balance" \
	test "$(stat_of promoted_bytes)" -ge $((6 * M))
before=$(sums $MNT/b/f*)
# Keep the fast tier above its high watermark: every pass demotes.
demote_all
touch /tmp/loop
(while [ -e /tmp/loop ]; do echo 1 >$S/mover_run 2>/dev/null; done) &
lpid=$!
# Metadata to dup on the way: raid1 cannot go below two devices.
check "a full balance (data, metadata to dup) runs beside back-to-back passes" \
	btrfs balance start -d -mconvert=dup -sconvert=dup -f $MNT
check "btrfs device remove of the NVMe runs beside them" \
	btrfs device remove "$FAST_DEV" $MNT
rm -f /tmp/loop
wait $lpid
is "the filesystem stayed writable (no abort)" \
	"$(grep " $MNT " /proc/mounts | cut -d' ' -f4 | cut -d, -f1)" rw
is "every checksum is unchanged" "$(sums $MNT/b/f*)" "$before"
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"

# ---- eviction of heat items while the same files are reopened ----
fresh_fs hotdatatrack
S=$(hot_sysfs)
echo 4096 >$S/range_size
echo 65536 >$S/mem_limit
i=0
mkdir $MNT/e
while [ $i -lt 400 ]; do
	dd if=/dev/urandom of=$MNT/e/f$i bs=16k count=1 2>/dev/null
	i=$((i + 1))
done
sync
# Writing the files already evicted items: count from here. Dropping the
# page cache as well as the inodes makes every read reach the disk and
# create items, which evict others while the same files are reopened.
ev0=$(cat $S/nr_evicted)
n=0
while [ $n -lt 15 ]; do
	cat $MNT/e/f* >/dev/null &
	cat $MNT/e/f* >/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	wait
	n=$((n + 1))
done
check "heat items were evicted while files were reopened" \
	test "$(cat $S/nr_evicted)" -gt "$ev0"
umount $MNT
check "btrfs check is clean after the eviction stress" btrfs check "$SLOW_DEV"

# ---- a full SATA disk still leaves raid1 metadata a chunk ----
# Ordinary data goes to the slow tier. When data chunks took the SATA disk
# to its last byte, raid1 metadata, which needs room on both devices, could
# get no new chunk while the NVMe disk was nearly empty: ENOSPC with free
# space on df. Fill 2 GiB (1 GiB per device) with ordinary data.
unalloc() {
	btrfs device usage -b $MNT | awk -v d="$1," '
		/^\/dev\// { cur = ($1 == d) }
		cur && $1 == "Unallocated:" { print $2 }'
}
umount $MNT 2>/dev/null
mkfs.btrfs -q -f -K -b 1G -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
mkdir -p $MNT
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount"
fails=0
for n in $(seq 1 22); do
	dd if=/dev/zero of=$MNT/fill$n bs=1M count=64 conv=fsync 2>/dev/null ||
		fails=$((fails + 1))
done
is "1408 MiB of ordinary data fit in 2 GiB over two devices" $fails 0
slow=$(unalloc "$SLOW_DEV")
diag "unallocated after the fill: SATA $slow, NVMe $(unalloc "$FAST_DEV")"
# The room is a metadata chunk: 256 MiB, at most a tenth of the device.
if [ "${slow:-0}" -ge $((64 << 20)) ]; then
	ok "ordinary data leaves room for metadata on the SATA disk"
else
	not_ok "ordinary data leaves room for metadata on the SATA disk (${slow:-?} bytes)"
fi
check "a metadata balance, which needs a new raid1 chunk, succeeds" \
	btrfs balance start -m $MNT
# Now to the end: data spills to both devices, metadata keeps its room.
n=0
while dd if=/dev/zero of=$MNT/more$n bs=1M count=64 conv=fsync 2>/dev/null; do
	n=$((n + 1))
done
fails=0
for n in $(seq 1 300); do
	head -c 2000 /dev/urandom >$MNT/small$n 2>/dev/null || fails=$((fails + 1))
done
is "300 small files are created when data has filled the filesystem" $fails 0
left=$(($(unalloc "$SLOW_DEV") + $(unalloc "$FAST_DEV")))
diag "unallocated at the end: $left bytes"
if [ $left -le $((64 << 20)) ]; then
	ok "data filled both devices to the end"
else
	not_ok "data filled both devices to the end ($left bytes unallocated)"
fi
sync
umount $MNT
check "btrfs check is clean after the fill" btrfs check "$SLOW_DEV"

# ---- sysfs readers across unmounts ----
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
uuid=$(btrfs filesystem show "$SLOW_DEV" | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
S=/sys/fs/btrfs/$uuid/hot
touch /tmp/readers
(while [ -e /tmp/readers ]; do cat $S/mover_stats $S/mover_state; done) \
	>/dev/null 2>&1 &
r1=$!
(while [ -e /tmp/readers ]; do echo 1 >$S/mover_run; done) >/dev/null 2>&1 &
r2=$!
n=0
ok_mounts=0
while [ $n -lt 20 ]; do
	mount -o hotdatamove "$SLOW_DEV" $MNT && ok_mounts=$((ok_mounts + 1))
	umount $MNT
	n=$((n + 1))
done
rm -f /tmp/readers
wait $r1 $r2
is "20 mounts and unmounts with sysfs readers and mover_run writers" \
	$ok_mounts 20

# ---- unmount while the mover is throttled behind a buffered copy ----
# Tiny dirty limits: a rewrite blocks in balance_dirty_pages() until the
# flusher cleans pages, which it cannot do while the unmount holds s_umount.
mount -o hotdatamove "$SLOW_DEV" $MNT
S=$(hot_sysfs)
hung=0
inpass=
failed=
n=0
while [ $n -lt 2 ] && [ $hung = 0 ]; do
	make_files $MNT/u$n 8 4096K
	sync
	for i in 0 1 2 3 4 5 6 7; do heat_up $MNT/u$n/f$i 5; done
	dd if=/dev/zero of=$MNT/copy$n bs=1M count=64 2>/dev/null
	echo 65536 >/proc/sys/vm/dirty_bytes
	echo 32768 >/proc/sys/vm/dirty_background_bytes
	(echo 1 >$S/mover_run) 2>/dev/null &
	wait_in_pass 20
	sleep 1
	inpass="$inpass $(stat_of pass_in_progress)"
	umount $MNT &
	wait_pid $!
	rc=$?
	if [ $rc = 124 ]; then
		hung=1
		break
	fi
	[ $rc = 0 ] || failed="$failed umount:$rc"
	diag "round $n: unmount took ${WAITED}s"
	wait
	# Writing the ratios turns the byte limits off again.
	echo 20 >/proc/sys/vm/dirty_ratio
	echo 10 >/proc/sys/vm/dirty_background_ratio
	mount -o hotdatamove "$SLOW_DEV" $MNT
	n=$((n + 1))
done
is "unmount during a throttled pass never hangs (2 rounds, 120 s each)" $hung 0
[ $hung = 1 ] && bail "umount hung; the guest cannot go on"
is "...a pass was in progress at each unmount" "$inpass" " 1 1"
is "...and each unmount succeeded" "$failed" ""

# ---- remount while writers are throttled in the files being moved ----
# Every remount stops the mover, holding s_umount. A writer throttled in
# balance_dirty_pages() holds its file's inode lock, which the killed
# mover may be waiting for, and only writeback can let the writer go:
# the flusher needs s_umount, so the stop must write back itself.
S=$(hot_sysfs)
inpass=
failed=
n=0
while [ $n -lt 3 ] && [ $hung = 0 ]; do
	make_files $MNT/wr$n 8 4096K
	sync
	for i in 0 1 2 3 4 5 6 7; do heat_up $MNT/wr$n/f$i 5; done
	echo 65536 >/proc/sys/vm/dirty_bytes
	echo 32768 >/proc/sys/vm/dirty_background_bytes
	(echo 1 >$S/mover_run) 2>/dev/null &
	wait_in_pass 20
	inpass="$inpass $(stat_of pass_in_progress)"
	writers=
	for i in 7 6 5 4 3 2 1 0; do
		dd if=/dev/zero of=$MNT/wr$n/f$i bs=1M count=4 conv=notrunc \
			2>/dev/null &
		writers="$writers $!"
	done
	sleep 1
	mount -o remount,commit=$((30 + n)) $MNT &
	wait_pid $!
	rc=$?
	if [ $rc = 124 ]; then
		hung=1
		break
	fi
	[ $rc = 0 ] || failed="$failed remount:$rc"
	diag "round $n: remount took ${WAITED}s"
	for p in $writers; do
		wait_pid $p || failed="$failed dd:$?"
	done
	wait
	echo 20 >/proc/sys/vm/dirty_ratio
	echo 10 >/proc/sys/vm/dirty_background_ratio
	n=$((n + 1))
done
is "remount with writers throttled in the files being moved never hangs (3 rounds)" $hung 0
[ $hung = 1 ] && bail "remount hung; the guest cannot go on"
is "...a pass was in progress when the writers started, in each round" \
	"$inpass" " 1 1 1"
is "...and each remount and every writer succeeded" "$failed" ""
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"
done_testing
