#!/bin/sh
# shellcheck shell=dash
# runtime: 60 s (warm run, debug kernel; the runner starts the longest first)
# Heat kept across unmount (issue #15): the unmount saves the hottest
# ranges in the device tree and the mount puts them back, as old as they
# were, so the first pass after a mount plans what the last plan before
# the unmount did, and moves it (FIEMAP and the chunk tree). A pass saves
# too, so the items are on disk before any unmount. btrfs-progs dumps the
# items and btrfs check is content with them; a save made at another
# range size is not loaded.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M8=8388608
# save_items: the heat save's items in the device tree (key (-1025
# PERSISTENT_ITEM N)), as btrfs-progs dumps them; sync first.
save_items() {
	local dump
	sync
	dump=$(btrfs inspect-internal dump-tree -t dev "$SLOW_DEV" 2>/dev/null) ||
		{ echo "dump-tree failed"; return; }
	echo "$dump" | grep -c 'key (18446744073709550591 PERSISTENT_ITEM '
}
# devtree_gen: the generation of the device tree's root, from the root
# tree as btrfs-progs dumps it: what a commit that rewrote it set.
devtree_gen() {
	sync
	btrfs inspect-internal dump-tree -t root "$SLOW_DEV" 2>/dev/null | awk '
		/key \(DEV_TREE ROOT_ITEM/ { f = 1; next }
		f && $1 == "generation" { print $2; exit }'
}
# hot_ranges: "path offset temperature" of the tracked ranges of $MNT/h.
hot_ranges() {
	heatctl top --ranges --json -n 100 $MNT |
		jq -r --arg d $MNT/h/ '.[] | select(.path | startswith($d)) |
			"\(.path) \(.offset) \(.temperature)"' | sort
}

fresh_fs hotdatamove
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
make_files $MNT/h 3 8M
sync
is "nothing is saved before the first pass or unmount" "$(save_items)" 0
heat_up $MNT/h/f0
heat_up $MNT/h/f1
heatctl migrate --dry-run --json $MNT >/tmp/plan0.json || not_ok "migrate --dry-run failed"
plan0=$(jq -c '.plan.files | sort_by(.path) | map([.action, .path, .bytes])' /tmp/plan0.json)
is "before the unmount, the plan promotes the two files read" "$plan0" \
	"[[\"promote\",\"$MNT/h/f0\",$M8],[\"promote\",\"$MNT/h/f1\",$M8]]"
ranges0=$(hot_ranges)
check "...and the three files' 24 ranges are tracked (written, then read)" \
	test "$(echo "$ranges0" | wc -l)" -eq 24

# ---- the unmount saves, the mount loads ----
umount $MNT || bail "umount failed"
check "the unmount stored the heat in the device tree (btrfs-progs: $(save_items) items)" \
	test "$(save_items)" -ge 2
check "btrfs check is clean with the items stored" btrfs check --readonly "$SLOW_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
echo 86400 >$S/mover_interval
check "the mount loaded the saved ranges ($(cat $S/nr_loaded))" \
	test "$(cat $S/nr_loaded)" -ge 24
is "heatctl status --json shows the ranges loaded, as sysfs does" \
	"$(heatctl status --json $MNT | jq .nr_loaded)" "$(cat $S/nr_loaded)"
check "...and status says so in its tracking line" \
	sh -c "heatctl status $MNT | grep -q '^tracking: .* $(cat $S/nr_loaded) loaded at mount'"
is "the ranges are back at the temperatures they had" "$(hot_ranges)" "$ranges0"
heatctl migrate --dry-run --json $MNT >/tmp/plan1.json || not_ok "migrate --dry-run failed"
is "the first plan after the mount is the last one before it" \
	"$(jq -c '.plan.files | sort_by(.path) | map([.action, .path, .bytes])' /tmp/plan1.json)" "$plan0"
run_pass
is "the first pass moves both files to the NVMe (f0)" "$(fast_bytes $MNT/h/f0)" $M8
is "...(f1)" "$(fast_bytes $MNT/h/f1)" $M8
is "...and not the one nobody read" "$(fast_bytes $MNT/h/f2)" 0

# ---- a pass saves, before any unmount ----
# 300 more ranges, one 4 KiB read each, need one more item of records
# (254 records an item with 16 KiB nodes).
n0=$(save_items)
truncate -s 300M $MNT/h/sparse
i=0
while [ $i -lt 300 ]; do
	dd if=$MNT/h/sparse of=/dev/null bs=4k count=1 skip=$((i * 256)) \
		iflag=direct 2>/dev/null
	i=$((i + 1))
done
run_pass
check "a pass saved the index with the 300 ranges read since ($(cat $S/nr_saved) ranges)" \
	test "$(cat $S/nr_saved)" -ge 324
is "heatctl status --json shows the ranges saved, as sysfs does" \
	"$(heatctl status --json $MNT | jq .nr_saved)" "$(cat $S/nr_saved)"
check "...which a sync puts on disk, mounted: more items than the unmount's $n0 ($(save_items))" \
	test "$(save_items)" -gt "$n0"
g0=$(devtree_gen)
check "the device tree's generation reads as a number ($g0)" test "$g0" -gt 0
run_pass
is "a pass after which only the ranges' ages changed writes no save (device tree generation)" \
	"$(devtree_gen)" "$g0"

# ---- a remount read-only saves ----
# f2's ranges are tracked already (written): the read changes their heat,
# which only a save writes to the device tree.
g1=$(devtree_gen)
heat_up $MNT/h/f2
mount -o remount,ro $MNT || bail "remount ro failed"
check "a remount read-only saves the heat read since, in the commit it makes (device tree generation $g1, then $(devtree_gen))" \
	test "$(devtree_gen)" -gt "$g1"
mount -o remount,rw $MNT || bail "remount rw failed"

# ---- another range size: not loaded ----
echo 4194304 >$S/range_size || bail "range_size refused 4 MiB"
heat_up $MNT/h/f0
umount $MNT || bail "umount failed"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
is "a save at 4 MiB ranges is not loaded at the mount's 1 MiB" "$(cat $S/nr_loaded)" 0
is "...and nothing is tracked" "$(cat $S/nr_ranges)" 0

sums $MNT/h/* >/tmp/h.sums
umount $MNT || bail "umount failed"
check "btrfs check finds nothing wrong" btrfs check --readonly "$SLOW_DEV"
done_testing
