#!/bin/sh
# shellcheck shell=dash
# runtime: 410 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# Moves of whole block groups and allocation on a crowded fast tier
# (issue #10): files shared with a read-only snapshot and with reflinks
# move with their block group and stay shared, an unmount during such a
# relocation loses nothing, a balance or swapon started during one takes it over
# instead of failing, and a fast tier whose free space is all in
# small holes still takes promotions. With mover_unshare (the default), a
# hot file that only read-only snapshots share moves alone, and the
# snapshot keeps its copy. A snapshot's extents that no file
# refers to any more leave the fast tier with their group; a pass on a
# frozen filesystem, or whose relocation cannot land on the fast tier,
# puts the relocation off instead of failing or repeating it.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M=4194304	# bytes per test file

# ---- snapshots and reflinks move with their block group ----
# Shared extents are not rewritten through one file; a block group made
# mostly of them is relocated, as balance would, so that every reference,
# the read-only snapshot's too, points to the one new copy.
small_fs
S=$(hot_sysfs)
# mover_unshare (on by default) would copy the files the read-only
# snapshot shares instead: the group relocation is the subject here.
echo 0 >$S/mover_unshare
btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 4 4096K
xfs_io -f -c "reflink $MNT/sv/f0 0 0 $M" $MNT/sv/f0r >/dev/null
sync
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
sync
ssum=$(sums $MNT/sv/f* $MNT/ro/f*)
du0=$(shared_du $MNT/sv)
for i in 0 1 2 3; do heat_up $MNT/sv/f$i 5; done
# Read the read-only snapshot all through the pass.
(
	while [ ! -e /tmp/stop.ro ]; do
		cat $MNT/ro/f* >/dev/null || { echo fail >/tmp/ro.fail; break; }
	done
) &
reader=$!
rm -f /tmp/stop.ro /tmp/ro.fail
# A frozen filesystem: the relocation is put off, which is no error.
fsfreeze --freeze $MNT
e0=$(stat_of errors)
b0=$(stat_of skipped_busy)
run_pass
fz="$(stat_of relocated_groups) $(stat_of errors) $(stat_of last_pass_result)"
fsfreeze --unfreeze $MNT
check "a pass on a frozen filesystem tried to relocate the group (busy)" \
	test "$(stat_of skipped_busy)" -gt "$b0"
is "...relocated nothing and counted no error" "$fz" "0 $e0 done"
sk=$(stat_of skipped_shared)
run_pass
touch /tmp/stop.ro
wait $reader
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
check "the pass found the shared extents" test "$(stat_of skipped_shared)" -gt "$sk"
is "...and relocated their block group" "$(stat_of relocated_groups)" 1
is "a hot file shared with a read-only snapshot moves to NVMe (filefrag + chunk tree)" \
	"$(fast_bytes $MNT/sv/f1)" $M
is "...and its snapshot's copy is the same extent" "$(phys $MNT/ro/f1)" "$(phys $MNT/sv/f1)"
is "a hot reflinked file moves to NVMe" "$(fast_bytes $MNT/sv/f0)" $M
is "...and its clone and snapshot copy still share its extent" \
	"$(phys $MNT/sv/f0r) $(phys $MNT/ro/f0)" "$(phys $MNT/sv/f0) $(phys $MNT/sv/f0)"
is "btrfs filesystem du: shared bytes unchanged" "$(shared_du $MNT/sv)" "$du0"
is "the read-only snapshot read without error throughout" \
	"$(cat /tmp/ro.fail 2>/dev/null)" ""
is "...and every file reads its data" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$ssum"
demote_all
d0=$(stat_of demoted_bytes)
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
is "cold shared files leave NVMe with their block group" \
	"$(fast_bytes $MNT/sv/f0) $(fast_bytes $MNT/sv/f1)" "0 0"
check "...counted as demoted" test "$(stat_of demoted_bytes)" -gt "$d0"
is "...still one extent for the file, its clone and its snapshot" \
	"$(phys $MNT/sv/f0r) $(phys $MNT/ro/f0)" "$(phys $MNT/sv/f0) $(phys $MNT/sv/f0)"
is "...and shared bytes unchanged" "$(shared_du $MNT/sv)" "$du0"
is "...with every file's data unchanged" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$ssum"
defaults
check "scrub is clean after the relocations" scrub_clean $MNT
umount $MNT
check "btrfs check is clean after the relocations" btrfs check "$SLOW_DEV"

# ---- mover_unshare: hot files that only read-only snapshots share ----
# With the knob, promotion copies them as a write would: the file goes to
# NVMe and the snapshot keeps its copy on SATA. A reflink in the same
# subvolume, and a writable snapshot, keep their extents shared. Each
# hot file is written between 12 MiB of cold ones, all in direct writes of
# 1 MiB that take the free space in order, so that in no block group do
# the hot shared files make half of what it holds, and no group
# relocation moves them instead.
small_fs
S=$(hot_sysfs)
btrfs subvolume create $MNT/sv >/dev/null
btrfs subvolume create $MNT/sw >/dev/null
dd if=/dev/zero of=$MNT/sv/pad bs=1M count=12 oflag=direct 2>/dev/null
for f in sv/f0 sv/f1 sv/f2 sw/f0; do
	dd if=/dev/urandom of=$MNT/$f bs=1M count=4 oflag=direct 2>/dev/null
	dd if=/dev/zero of=$MNT/$f.pad bs=1M count=12 oflag=direct 2>/dev/null
done
xfs_io -f -c "reflink $MNT/sv/f2 0 0 $M" $MNT/sv/f2r >/dev/null
sync
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
btrfs subvolume snapshot $MNT/sw $MNT/rw >/dev/null
sync
usum=$(sums $MNT/sv/* $MNT/ro/* $MNT/sw/* $MNT/rw/*)
du0=$(shared_du $MNT/sv)
for f in sv/f0 sv/f1 sv/f2 sw/f0; do heat_up $MNT/$f 5; done
is "mover_unshare is on by default" "$(cat $S/mover_unshare)" 1
echo 0 >$S/mover_unshare
sk=$(stat_of skipped_shared)
rg=$(stat_of relocated_groups)
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
check "without mover_unshare, a pass finds the hot files shared" \
	test "$(stat_of skipped_shared)" -gt "$sk"
is "...and leaves them on SATA, no group relocated" \
	"$(fast_bytes $MNT/sv/f0) $(fast_bytes $MNT/sv/f1) $(stat_of relocated_groups)" "0 0 $rg"
echo 1 >$S/mover_unshare
for f in sv/f0 sv/f1 sv/f2 sw/f0; do heat_up $MNT/$f 5; done
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
is "with mover_unshare, hot files shared only with a read-only snapshot move to NVMe (filefrag + chunk tree)" \
	"$(fast_bytes $MNT/sv/f0) $(fast_bytes $MNT/sv/f1)" "$M $M"
is "...and the snapshot's copies stay on SATA, now extents of their own" \
	"$(fast_bytes $MNT/ro/f0) $(fast_bytes $MNT/ro/f1) $([ "$(phys $MNT/ro/f0)" != "$(phys $MNT/sv/f0)" ] && echo apart)" "0 0 apart"
is "...counted as unshared, and no group relocated" \
	"$(stat_of unshared_bytes) $(stat_of relocated_groups)" "$((2 * M)) $rg"
is "btrfs filesystem du: the subvolume shares 8 MiB less" \
	"$(shared_du $MNT/sv)" "$((du0 - 2 * M))"
is "a hot file reflinked in its subvolume stays on SATA, shared with its clone and snapshot" \
	"$(fast_bytes $MNT/sv/f2) $(phys $MNT/sv/f2r) $(phys $MNT/ro/f2)" "0 $(phys $MNT/sv/f2) $(phys $MNT/sv/f2)"
is "a hot file shared with a writable snapshot stays on SATA, shared" \
	"$(fast_bytes $MNT/sw/f0) $(phys $MNT/rw/f0)" "0 $(phys $MNT/sw/f0)"
is "every file, and every snapshot's, reads its data" \
	"$(sums $MNT/sv/* $MNT/ro/* $MNT/sw/* $MNT/rw/*)" "$usum"
check "scrub is clean after unsharing" scrub_clean $MNT
umount $MNT
check "btrfs check is clean after unsharing" btrfs check "$SLOW_DEV"

# ---- what a snapshot alone holds after its file was overwritten ----
# Overwriting a file of a snapshotted subvolume leaves the old extents to
# the snapshot, referred to from its shared leaf by a shared (full)
# backref: there is no file to rewrite them through and no heat to look
# up. They count as cold, and leave the fast tier with their block group.
small_fs
S=$(hot_sysfs)
D=/sys/fs/btrfs/$(fs_uuid)/devinfo
btrfs subvolume create $MNT/sv >/dev/null
# Enough inodes for a subvolume tree of two levels, whose leaves the
# snapshot shares rather than copies.
mkdir $MNT/sv/e
i=0
while [ $i -lt 400 ]; do
	: >$MNT/sv/e/$i
	i=$((i + 1))
done
# Written while the NVMe counts as the slow tier: ordinary data goes there.
echo slow >$D/2/tier
echo fast >$D/1/tier
make_files $MNT/sv 4 4096K
sync
echo auto >$D/2/tier
echo auto >$D/1/tier
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
osum=$(sums $MNT/ro/f*)
for i in 0 1 2 3; do
	dd if=/dev/urandom of=$MNT/sv/f$i bs=1M count=4 conv=notrunc status=none
done
sync
nsum=$(sums $MNT/sv/f*)
is "the snapshot's copies are on NVMe, the overwritten files on SATA" \
	"$(fast_bytes $MNT/ro/f0) $(fast_bytes $MNT/ro/f3) $(fast_bytes $MNT/sv/f0)" "$M $M 0"
demote_all
rg=$(stat_of relocated_groups)
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
is "the snapshot's old copies leave NVMe with their block group" \
	"$(fast_bytes $MNT/ro/f0) $(fast_bytes $MNT/ro/f1) $(fast_bytes $MNT/ro/f2) $(fast_bytes $MNT/ro/f3)" "0 0 0 0"
is "...counted as one relocated group" "$(stat_of relocated_groups)" $((rg + 1))
is "...with the snapshot's data unchanged" "$(sums $MNT/ro/f*)" "$osum"
is "...and the overwritten files' too" "$(sums $MNT/sv/f*)" "$nsum"
defaults
umount $MNT
check "btrfs check is clean after relocating the snapshot's extents" btrfs check "$SLOW_DEV"

# ---- unmount while a block group is being relocated ----
# The stop cancels the relocation as a balance cancel would; the group
# keeps its data and the files read what they held.
# relocating_pass: 48 MiB of hot files shared with a read-only snapshot
# on a new filesystem, and a pass (pid in $pass) that relocates their
# block group, in progress on return; $usum holds their checksums, and
# $c0 and $b0 the cancel messages and busy skips before the pass.
relocating_pass() {
	local r0 w=0
	small_fs
	S=$(hot_sysfs)
	echo 0 >$S/mover_unshare	# the group relocation is the subject
	btrfs subvolume create $MNT/sv >/dev/null
	make_files $MNT/sv 12 4096K
	sync
	btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
	sync
	usum=$(sums $MNT/sv/f* $MNT/ro/f*)
	for i in 0 1 2 3 4 5 6 7 8 9 10 11; do heat_up $MNT/sv/f$i 5; done
	r0=$(dmesg | grep -c "relocating block group")
	c0=$(dmesg | grep -c "relocation canceled")
	b0=$(stat_of skipped_busy)
	(echo 1 >$S/mover_run) 2>/dev/null &
	pass=$!
	while [ "$(dmesg | grep -c "relocating block group")" = "$r0" ] && [ $w -lt 600 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	check "a relocation of the shared files' block group started" \
		test "$(dmesg | grep -c "relocating block group")" -gt "$r0"
}
relocating_pass
is "...and the pass was still running when the unmount began" \
	"$(stat_of pass_in_progress)" 1
umount $MNT &
wait_pid $!
is "unmount during a relocation returns and succeeds (within 120 s)" $? 0
wait
diag "unmount took ${WAITED}s; $(dmesg | grep -E "relocat|mover" | tail -3 | tr '\n' ' ')"
check "btrfs check is clean after the interrupted relocation" btrfs check "$SLOW_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount"
is "...and every file reads its data" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$usum"
umount $MNT

# ---- a balance started during a relocation takes over ----
# The mover holds balance's exclusive operation while it relocates, but
# gives way to the operations a user starts: sysfs does not report it
# (btrfs-progs refuses to start a balance when it does), and the balance
# cancels the relocation and runs.
relocating_pass
X=/sys/fs/btrfs/$(fs_uuid)/exclusive_operation
is "...and sysfs reports no exclusive operation during it" "$(cat $X)" none
check "btrfs balance started during the relocation runs" \
	btrfs balance start -dusage=0 $MNT
wait $pass
diag "$(dmesg | grep -E "relocat|balance" | tail -4 | tr '\n' ' ')"
check "...and cancelled the mover's relocation" \
	test "$(dmesg | grep -c "relocation canceled")" -gt "$c0"
check "...which the pass counted as skipped, not as an error" \
	test "$(stat_of skipped_busy)" -gt "$b0"
is "...with no error counted" "$(stat_of errors)" 0
run_pass
is "a later pass relocates the group" "$(stat_of relocated_groups)" 1
is "every file reads its data" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$usum"
umount $MNT
check "btrfs check is clean after the balance took over" btrfs check "$SLOW_DEV"

# ---- swapon during a relocation ----
# Activating a swap file takes the exclusive operation too, so it failed
# with EBUSY while the mover relocated; now the relocation gives way.
relocating_pass
btrfs filesystem mkswapfile -s 16m $MNT/swap >/dev/null ||
	not_ok "btrfs filesystem mkswapfile failed"
check "swapon of a swap file during the relocation succeeds" swapon $MNT/swap
grep -q "^$MNT/swap " /proc/swaps && swapoff $MNT/swap
wait $pass
check "...and cancelled the mover's relocation" \
	test "$(dmesg | grep -c "relocation canceled")" -gt "$c0"
rm -f $MNT/swap
run_pass
is "a later pass relocates the group" "$(stat_of relocated_groups)" 1
is "every file reads its data" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$usum"
umount $MNT
check "btrfs check is clean after the swap file came and went" btrfs check "$SLOW_DEV"

# ---- a fragmented fast tier ----
# Fast free space in 512 KiB holes only, and the mover rewrites 1 MiB
# ranges: a tier-restricted allocation must
# try smaller extents on the fast tier before it falls back to any tier,
# as btrfs_reserve_extent() does, or every promotion lands on the SATA
# disk and the pass calls a tier with room full. The NVMe is filled with
# 512 KiB files while it is set to be the slow tier, so that ordinary
# writes go there; then every other file is deleted.
small_fs
S=$(hot_sysfs)
echo 0 >$S/mover_unshare	# the group relocation is the subject
D=/sys/fs/btrfs/$(fs_uuid)/devinfo
echo slow >$D/2/tier
echo fast >$D/1/tier
make_files $MNT/k 880 512K
sync
i=0
while [ $i -lt 880 ]; do
	rm -f $MNT/k/f$i
	i=$((i + 2))
done
sync
echo auto >$D/2/tier
echo auto >$D/1/tier
unalloc_nv=$(btrfs device usage -b $MNT | awk -v dev="$FAST_DEV" '$0 ~ dev { d = 1 } d && /Unallocated/ { print $2; exit }')
diag "NVMe unallocated after the fill: $unalloc_nv bytes; $(btrfs filesystem df -b $MNT | tr '\n' ' ')"
check "the NVMe has no room for a new data chunk beyond its reserve" \
	test "$unalloc_nv" -le $((64 << 20))
make_files $MNT/g 1 16M
sync
heat_up $MNT/g/f0 5
ff=$(stat_of fast_full)
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
is "a hot 16 MiB file moves into 512 KiB holes of the fast tier" \
	"$(fast_bytes $MNT/g/f0)" $((16 << 20))
is "...and the pass does not call the fast tier full" "$(stat_of fast_full)" "$ff"
exts=$(filefrag $MNT/g/f0 | awk '{ print $2 }')
# The mover rewrites 1 MiB ranges: more than 16 extents means some range
# was allocated in pieces smaller than it, in the holes.
check "...in pieces smaller than its 1 MiB ranges (filefrag: $exts extents)" \
	test "$exts" -gt 16
# Relocation copies whole extents: 12 MiB extents do not fit 512 KiB holes
# and land on the SATA disk again. No group moved, and the next pass must
# not copy the group once more. (What the fill spilled to the SATA disk
# shares its block group: the shared files must still be most of it.)
btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 4 12M
sync
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
ssum=$(sums $MNT/sv/f* $MNT/ro/f*)
for i in 0 1 2 3; do heat_up $MNT/sv/f$i 2; done
rg=$(stat_of relocated_groups)
ff=$(stat_of fast_full)
r0=$(dmesg | grep -c "relocating block group")
run_pass
diag "mover: $(tr '\n' ' ' <$S/mover_stats)"
check "a relocation of the shared files' group was tried" \
	test "$(dmesg | grep -c "relocating block group")" -gt "$r0"
is "...its extents found no room on NVMe" "$(fast_bytes $MNT/sv/f0)" 0
is "...so no group counts as relocated" "$(stat_of relocated_groups)" "$rg"
check "...and the pass calls the fast tier full" test "$(stat_of fast_full)" -gt "$ff"
r1=$(dmesg | grep -c "relocating block group")
run_pass
is "the next pass does not copy the group again" \
	"$(dmesg | grep -c "relocating block group")" "$r1"
is "every file reads its data" "$(sums $MNT/sv/f* $MNT/ro/f*)" "$ssum"
umount $MNT
check "btrfs check is clean after the relocation that fell back" btrfs check "$SLOW_DEV"
done_testing
