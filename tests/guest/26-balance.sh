#!/bin/sh
# shellcheck shell=dash
# runtime: 90 s (warm run, debug kernel; the runner starts the longest first)
# Balance keeps tiers, a tier override survives a remount, and the mover
# keeps a history of its passes (issue #15). With hotdatamove, a full balance of the data relocates every data
# block group, and each extent lands again on the tier its block group
# was on, so a tuned filesystem stays tuned. The
# tiers come from FIEMAP and the chunk tree (fast_bytes), the relocation
# from the logical addresses FIEMAP reports before and after, and nothing
# lost from checksums, scrub and btrfs check. The override's item is read
# back from the device tree by btrfs-progs.
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
H=$(hot_sysfs)/mover_history
is "mover_history has the pass, with the bytes mover_stats counts" \
	"$(awk '{ print $1, $4, $5 }' $H)" "1 done $(stat_of promoted_bytes)"
is "heatctl status --history --json agrees" \
	"$(heatctl status --history --json $MNT | jq -r '.history[] | "\(.pass) \(.result) \(.promoted_bytes)"')" \
	"1 done $(stat_of promoted_bytes)"
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
i=0
while [ $i -lt 17 ]; do
	run_pass
	i=$((i + 1))
done
is "mover_history keeps the last 16 passes, oldest first" \
	"$(awk '{ printf "%s ", $1 }' $H)" "3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 "
check "heatctl status --history prints them as a table" \
	sh -c "heatctl status --history $MNT | grep -c '^ *[0-9][0-9]*  20' | grep -qx 16"

# ---- the tier override is stored in the device tree ----
D=/sys/fs/btrfs/$(fs_uuid)/devinfo
F=$(devid_of "$FAST_DEV")
# tier_item DEVID: "present" if the device tree has the tier item of
# DEVID (key (-1024 PERSISTENT_ITEM DEVID)), as btrfs-progs dumps it
# (it prints no value for an item it does not know), else "none".
tier_item() {
	btrfs inspect-internal dump-tree -t dev "$SLOW_DEV" 2>/dev/null | awk -v id="$1" '
		$0 ~ "key \\(18446744073709550592 PERSISTENT_ITEM " id "\\)" { found = 1 }
		END { print found ? "present" : "none" }'
}
echo slow >"$D/$F/tier" || bail "the tier override was refused"
is "the override applies at once" "$(cat "$D/$F/tier")" slow
umount $MNT
is "the unmount's commit stored it: an item for the NVMe's devid in the device tree" \
	"$(tier_item "$F")" present
is "...and none for the disk" "$(tier_item "$(devid_of "$SLOW_DEV")")" none
check "btrfs check is clean with the item stored" btrfs check --readonly "$SLOW_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
is "the override survives the remount" "$(cat "$D/$F/tier")" slow
is "...and the mover sees one tier" "$(cat "$(hot_sysfs)/mover_state")" "idle (one tier)"
echo auto >"$D/$F/tier"
umount $MNT
is "auto deletes the item" "$(tier_item "$F")" none
mount -o ro "$SLOW_DEV" $MNT || bail "mount -o ro failed"
is "...so the NVMe is fast again after a remount" "$(cat "$D/$F/tier")" "fast (auto)"
rc=0
echo slow >"$D/$F/tier" || rc=1
is "on a read-only mount an override is taken" "$rc:$(cat "$D/$F/tier")" 0:slow
umount $MNT
mount "$SLOW_DEV" $MNT || bail "mount failed"
is "...for that mount only" "$(cat "$D/$F/tier")" "fast (auto)"
umount $MNT
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
