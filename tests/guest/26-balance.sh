#!/bin/sh
# shellcheck shell=dash
# runtime: 90 s (warm run, debug kernel; the runner starts the longest first)
# Balance keeps tiers, and a tier override survives a remount (issue
# #15). With hotdatamove, a full balance of the data relocates every data
# block group, and each extent lands again on the tier its block group
# was on, so a tuned filesystem stays tuned. The
# tiers come from FIEMAP and the chunk tree (fast_bytes), the relocation
# from the logical addresses FIEMAP reports before and after, and nothing
# lost from checksums, scrub and btrfs check. The override is read back
# from the chunk tree and the superblock by btrfs-progs.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

fresh_fs hotdatamove
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
make_files $MNT/d 8 8M
sync
M=$((8 * 1048576))
for i in 0 1 2 3; do
	heat_up $MNT/d/f$i
done
run_pass
sums $MNT/d/f* >/tmp/sums.before
# heatctl where, which reads the same chunk tree, before and after.
where_fast() { heatctl where --json $MNT/d/f* | jq '[.[].fast_bytes] | add'; }
w0=$(where_fast)

# where FILE: its bytes on the NVMe and the logical address of its first
# extent (filefrag's physical, which on btrfs is the logical address).
where() { echo "$(fast_bytes "$1") $(phys "$1" | sed 's/\.\..*//')"; }
for i in 0 1 2 3 4 5 6 7; do
	where $MNT/d/f$i >/tmp/where.$i
done
hot=0
cold=0
for i in 0 1 2 3; do
	[ "$(cut -d' ' -f1 /tmp/where.$i)" = $M ] && hot=$((hot + 1))
done
for i in 4 5 6 7; do
	[ "$(cut -d' ' -f1 /tmp/where.$i)" = 0 ] && cold=$((cold + 1))
done
is "before the balance: the four read files are all on the NVMe" $hot 4
is "...and the four others all on the SATA disk" $cold 4

btrfs balance start -d --full-balance $MNT >/tmp/balance.out 2>&1; rc=$?
is "a full balance of the data succeeds" $rc 0
diag "$(cat /tmp/balance.out)"

moved=0
kept=0
for i in 0 1 2 3 4 5 6 7; do
	# shellcheck disable=SC2046
	set -- $(cat /tmp/where.$i)
	b1=$1 a1=$2
	# shellcheck disable=SC2046
	set -- $(where $MNT/d/f$i)
	diag "f$i: $b1 bytes on NVMe at $a1 before, $1 at $2 after"
	[ "$a1" != "$2" ] && moved=$((moved + 1))
	[ "$b1" = "$1" ] && kept=$((kept + 1))
done
is "the balance relocated every file's data (new logical addresses)" $moved 8
is "every file kept its bytes on the NVMe: the tiers survived the balance" $kept 8
is "heatctl where agrees: $w0 bytes on the fast tier before and after" "$(where_fast)" "$w0"
sums $MNT/d/f* >/tmp/sums.after
check "every file holds its data" cmp -s /tmp/sums.before /tmp/sums.after
check "scrub is clean" scrub_clean $MNT

# ---- the tier override is stored in the device item's type ----
D=/sys/fs/btrfs/$(fs_uuid)/devinfo
F=$(devid_of "$FAST_DEV")
# dev_type DEVID: the type of the device item, as btrfs-progs reads it.
dev_type() {
	btrfs inspect-internal dump-tree -t chunk "$SLOW_DEV" 2>/dev/null | awk -v id="$1" '
		/DEV_ITEMS DEV_ITEM/ { want = ($0 ~ "DEV_ITEM " id "\\)") }
		want && /io_align/ { for (i = 1; i < NF; i++) if ($i == "type") print $(i + 1); exit }'
}
echo slow >"$D/$F/tier" || bail "the tier override was refused"
sync
is "an override of the NVMe to slow is in its device item (type 1)" "$(dev_type "$F")" 1
umount $MNT
is "...and in its superblock's copy" \
	"$(btrfs inspect-internal dump-super "$FAST_DEV" | awk '$1 == "dev_item.type" { print $2 }')" 1
check "btrfs check is clean with the override stored" btrfs check --readonly "$SLOW_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
is "the override survives the remount" "$(cat "$D/$F/tier")" slow
is "...and the mover sees one tier" "$(cat "$(hot_sysfs)/mover_state")" "idle (one tier)"
echo auto >"$D/$F/tier"
umount $MNT
mount -o ro "$SLOW_DEV" $MNT || bail "mount -o ro failed"
is "auto is stored too: the NVMe is fast again after a remount" "$(cat "$D/$F/tier")" "fast (auto)"
rc=0
echo slow >"$D/$F/tier" || rc=1
is "on a read-only mount an override is taken" "$rc:$(cat "$D/$F/tier")" 0:slow
umount $MNT
mount "$SLOW_DEV" $MNT || bail "mount failed"
is "...for that mount only" "$(cat "$D/$F/tier")" "fast (auto)"
umount $MNT
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
