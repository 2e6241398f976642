#!/bin/sh
# shellcheck shell=dash
# runtime: 110 s (warm run, debug kernel; the runner starts the longest first)
# Pinning (issue #15): btrfs.hot fast and slow. A file pinned fast goes to
# the NVMe on the next pass whatever its heat and no demotion takes it; a
# file pinned slow leaves the NVMe and no promotion takes it back; writes
# of a file pinned fast, or created in a directory pinned fast, land on
# the NVMe; pinning fast needs CAP_SYS_ADMIN; a pin set just before an
# unmount is carried out after the mount; files people have (reflinked,
# overwritten in place, compressed, in a snapshotted subvolume) pinned
# fast get their own copy on the NVMe of what only a read-only snapshot
# shares, and keep sharing with a reflink. Placement from FIEMAP and the
# chunk tree (fast_bytes), nothing lost from checksums, scrub and btrfs
# check. A dry run (heatctl migrate --dry-run) plans what the next pass
# then does, and moves nothing.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M8=8388608
fresh_fs hotdatamove
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
# Written before the first pass: everything starts on the SATA disk.
make_files $MNT/p 5 8M
make_files $MNT/u 1 4M
chown tester $MNT/u/f0
sync
start=0
for f in $MNT/p/f0 $MNT/p/f1 $MNT/p/f2 $MNT/p/f3 $MNT/p/f4; do
	start=$((start + $(fast_bytes $f)))
done
is "the five files start with no byte on the NVMe" "$start" 0
sums $MNT/p/* $MNT/u/f0 >/tmp/pin.sums

# ---- who may pin ----
out=$(as_user heatctl set-opts fast $MNT/u/f0 2>&1); rc=$?
check "an owner may not pin fast (1) and is told it needs CAP_SYS_ADMIN" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'needs CAP_SYS_ADMIN'"
as_user setfattr -n btrfs.hot -v fast $MNT/u/f0 2>/tmp/err; rc=$?
check "...nor through setfattr of btrfs.hot ($(cat /tmp/err))" \
	sh -c "[ $rc != 0 ] && grep -q 'not permitted' /tmp/err"
is "...and the file keeps its options" \
	"$(heatctl get-opts --json $MNT/u/f0 | jq -r '.[0].opts')" move
as_user heatctl set-opts slow $MNT/u/f0
is "an owner may pin slow (0)" "$?" 0
heatctl set-opts fast $MNT/u/f0
is "root may pin fast (0)" "$?" 0
as_user heatctl set-opts move $MNT/u/f0
is "the owner may unpin a file pinned fast (0)" "$?" 0
is "...and get-opts says so" "$(heatctl get-opts --json $MNT/u/f0 | jq -r '.[0].opts')" move
check "the file noted while it was pinned waits for a pass ($(stat_of pins_pending))" \
	test "$(stat_of pins_pending)" = 1
run_pass
is "...which drops it, unpinned, without moving it" "$(fast_bytes $MNT/u/f0)" 0
is "...and nothing waits" "$(stat_of pins_pending)" 0

# ---- fast: a cold file goes to the NVMe on the next pass ----
heatctl set-opts fast $MNT/p/f0
is "get-opts shows the pin" "$(heatctl get-opts --json $MNT/p/f0 | jq -r '.[0].opts')" fast
is "getfattr shows the btrfs.hot property" \
	"$(getfattr --only-values -n btrfs.hot $MNT/p/f0 2>/dev/null)" fast
is "the pinned file waits for a pass (pins_pending)" "$(stat_of pins_pending)" 1
temp=$(info $MNT/p/f0 temperature)
check "the pinned file is too cold to promote (temperature $temp)" \
	test "$temp" -lt "$(cat $S/mover_promote_temp)"
heatctl migrate --json $MNT >/tmp/m.json || not_ok "heatctl migrate failed"
is "migrate reports the 8 MiB it moved for the pin" "$(jq .pinned_bytes /tmp/m.json)" $M8
is "FIEMAP and the chunk tree: all 8 MiB of the pinned file are on the NVMe" \
	"$(fast_bytes $MNT/p/f0)" $M8
is "...while a cold file without a pin stayed on the disk" "$(fast_bytes $MNT/p/f1)" 0
is "...and no file waits any more" "$(stat_of pins_pending)" 0

# ---- slow: a hot file leaves the NVMe and is not promoted again ----
heat_up $MNT/p/f2
heat_up $MNT/p/f3
# ---- a dry run plans what the pass then does ----
passes=$(stat_of passes)
promoted=$(stat_of promoted_bytes)
heatctl migrate --dry-run --json $MNT >/tmp/plan.json || not_ok "migrate --dry-run failed"
is "a dry run plans to promote the two hot files" \
	"$(jq -c '[.plan.files[] | select(.action == "promote") | .path] | sort' /tmp/plan.json)" \
	"[\"$MNT/p/f2\",\"$MNT/p/f3\"]"
is "...16 MiB in all" "$(jq .plan.promote_bytes /tmp/plan.json)" $((2 * M8))
is "...moves nothing" "$(($(fast_bytes $MNT/p/f2) + $(fast_bytes $MNT/p/f3)))" 0
is "...and is not counted as a pass" "$(stat_of passes)" "$passes"
check "migrate --dry-run names the files in its text output" \
	sh -c "heatctl migrate --dry-run $MNT | grep -q '^  promote .*$MNT/p/f2'"
is "a dry run asked from a directory below the subvolume's root names no path" \
	"$(heatctl migrate --dry-run --json $MNT/p | jq -c '[.plan.files[].path] | unique')" "[null]"
is "status --plan --json has the plan" \
	"$(heatctl status --plan --json $MNT | jq -r '.plan.result')" "done"
check "status --plan prints the plan after the status" \
	sh -c "heatctl status --plan $MNT | grep -q '^plan result: *done; promote 16.00MiB in 2 files'"
out=$(as_user heatctl migrate --dry-run $MNT 2>&1); rc=$?
check "a dry run needs root (1, permission denied)" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'permission denied'"
run_pass
is "the pass then promotes what the plan said" \
	$(($(stat_of promoted_bytes) - promoted)) "$(jq .plan.promote_bytes /tmp/plan.json)"
is "two hot files are promoted by heat (f2)" "$(fast_bytes $MNT/p/f2)" $M8
is "...(f3)" "$(fast_bytes $MNT/p/f3)" $M8
heatctl set-opts slow $MNT/p/f2
run_pass
is "pinned slow, the hot file leaves the NVMe on the next pass" "$(fast_bytes $MNT/p/f2)" 0
heat_up $MNT/p/f2
skipped=$(stat_of skipped_pinned)
run_pass
is "read again, it stays on the disk" "$(fast_bytes $MNT/p/f2)" 0
check "...because promotion skips it as pinned (skipped_pinned $skipped -> $(stat_of skipped_pinned))" \
	test "$(stat_of skipped_pinned)" -gt "$skipped"

# ---- demotion of everything leaves the file pinned fast ----
demote_all
heatctl migrate --dry-run --json $MNT >/tmp/plan.json
is "a dry run plans to demote the unpinned file and nothing else" \
	"$(jq -c '[.plan.files[] | [.action, .path]]' /tmp/plan.json)" \
	"[[\"demote\",\"$MNT/p/f3\"]]"
run_pass
is "demotion of all the NVMe's data takes the hot unpinned file (f3)" "$(fast_bytes $MNT/p/f3)" 0
is "...but leaves every byte of the file pinned fast" "$(fast_bytes $MNT/p/f0)" $M8
defaults

# ---- writes: a directory pinned fast passes the pin on ----
mkdir $MNT/q
heatctl set-opts fast $MNT/q
# The pass sets the room for hot and pinned writes.
run_pass
dd if=/dev/urandom of=$MNT/q/new bs=1M count=4 conv=fsync 2>/dev/null
dd if=/dev/urandom of=$MNT/p/new bs=1M count=4 conv=fsync 2>/dev/null
is "a file created in a directory pinned fast inherits the pin" \
	"$(heatctl get-opts --json $MNT/q/new | jq -r '.[0].opts')" fast
is "...and its writes land on the NVMe without a pass" "$(fast_bytes $MNT/q/new)" 4194304
is "...while the same write elsewhere lands on the disk" "$(fast_bytes $MNT/p/new)" 0

# ---- status ----
check "heatctl status shows what was moved for pins" \
	sh -c "heatctl status $MNT | grep -q '^pins: .* moved for pinned files, 0 files waiting'"
check "...and skipped_pinned among the skips" \
	sh -c "heatctl status $MNT | grep -q '^skipped: .*pinned [1-9]'"

# ---- a pin set just before an unmount ----
heatctl set-opts fast $MNT/p/f4
is "f4 is pinned and waits for a pass" "$(stat_of pins_pending)" 1
umount $MNT || bail "umount failed"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
echo 86400 >$S/mover_interval
is "after the mount nothing waits until the file is looked up" "$(stat_of pins_pending)" 0
stat $MNT/p/f4 >/dev/null
is "looking it up reads its pin and notes it" "$(stat_of pins_pending)" 1
run_pass
is "the next pass moves all of it to the NVMe" "$(fast_bytes $MNT/p/f4)" $M8
is "...and the file pinned fast before the unmount is still there" "$(fast_bytes $MNT/p/f0)" $M8

# ---- where -r counts the pinned bytes of a tree ----
heatctl where -r --json $MNT >/tmp/wr.json
is "where -r: the bytes pinned fast are those of f0, f4 and q/new" \
	"$(jq '.[0].pinned_fast_bytes' /tmp/wr.json)" $((2 * M8 + 4194304))
is "...and pinned slow those of f2" "$(jq '.[0].pinned_slow_bytes' /tmp/wr.json)" $M8
check "...which the text output shows too" \
	sh -c "heatctl where -r $MNT | grep -q 'pinned 20.00MiB fast, 8.00MiB slow'"

# ---- pins that do not fit ----
# With the high watermark at 1 % and nothing unpinned left to demote, a
# new pin finds no room: the pass says so, and the file waits.
echo 0 >$S/mover_grace
echo 0 >$S/mover_low_watermark
echo 1 >$S/mover_high_watermark
heatctl set-opts fast $MNT/p/f1
run_pass
is "a pin that does not fit under the high watermark ends the pass as pins-full" \
	"$(awk '$1 == "last_pass_result" { print $2 }' $S/mover_stats)" pins-full
is "...leaves the file on the disk" "$(fast_bytes $MNT/p/f1)" 0
is "...and keeps it waiting for the next pass" "$(stat_of pins_pending)" 1
check "heatctl status says so" sh -c "heatctl status $MNT | grep -q '^passes: .*pins-full'"
is "...while demotion took none of the pinned files' bytes" \
	"$(($(fast_bytes $MNT/p/f0) + $(fast_bytes $MNT/p/f4)))" $((2 * M8))
defaults
run_pass
is "with room again, the next pass moves it" "$(fast_bytes $MNT/p/f1)" $M8

# ---- a pin makes its room from cold data ----
# A 40 MiB file promoted by heat, then a 32 MiB file pinned fast with
# the high watermark less than 32 MiB above the fast tier's use: the pass
# demotes the colder unpinned file for it, instead of giving up.
make_files $MNT/c 1 40M
make_files $MNT/r 1 32M
heat_up $MNT/c/f0
run_pass
is "a 40 MiB file is promoted by heat" "$(fast_bytes $MNT/c/f0)" $((5 * M8))
used=$(stat_of fast_used_bytes)
cap=$(stat_of fast_capacity_bytes)
high=$((used * 100 / cap + 1))
diag "fast tier: $used of $cap bytes used; high watermark $high %"
echo $((high - 1)) >$S/mover_low_watermark || bail "mover_low_watermark"
echo "$high" >$S/mover_high_watermark || bail "mover_high_watermark"
echo 223 >$S/mover_promote_temp || bail "mover_promote_temp"
echo 222 >$S/mover_demote_temp || bail "mover_demote_temp"
heatctl set-opts fast $MNT/r/f0
run_pass
is "the file pinned fast moves in although it did not fit under the watermark" \
	"$(fast_bytes $MNT/r/f0)" $((4 * M8))
check "...because the pass demoted the cold unpinned file for it ($(fast_bytes $MNT/c/f0) bytes left)" \
	test "$(fast_bytes $MNT/c/f0)" -lt $((5 * M8))
is "...and took nothing of the other pinned files" \
	"$(($(fast_bytes $MNT/p/f0) + $(fast_bytes $MNT/p/f4) + $(fast_bytes $MNT/p/f1)))" $((3 * M8))
check "...and did not end as pins-full" \
	test "$(awk '$1 == "last_pass_result" { print $2 }' $S/mover_stats)" != pins-full
defaults

# ---- pinned files people have: shared, overwritten, compressed ----
# Every file of the subvolume sv shares its extents with a read-only
# snapshot, f0 also with a reflinked copy; f1 was overwritten in place,
# cmp is compressed. Pinned fast with mover_unshare off, f1, f2 and cmp
# get a copy of their own on the NVMe, while the snapshot keeps its copy
# on the disk; f0 keeps sharing with its reflinked copy, which goes
# wherever f0's extents go (with their block group).
btrfs subvolume create $MNT/sv >/dev/null || bail "subvolume create"
make_files $MNT/sv 3 8M
cp --reflink=always $MNT/sv/f0 $MNT/sv/copy || bail "cp --reflink"
dd if=/dev/urandom of=$MNT/sv/f1 bs=1M count=2 seek=3 conv=notrunc,fsync \
	2>/dev/null
touch $MNT/sv/cmp
btrfs property set $MNT/sv/cmp compression zstd || bail "compression property"
yes "a line that compresses well" | head -c $M8 >$MNT/sv/cmp
sync
btrfs subvolume snapshot -r $MNT/sv $MNT/snap >/dev/null || bail "snapshot"
sums $MNT/sv/* $MNT/snap/* >/tmp/sv.sums
echo 0 >$S/mover_unshare	# pins unshare whatever the knob says
is "mover_unshare is off" "$(cat $S/mover_unshare)" 0
is "the files of the snapshotted subvolume start on the disk" \
	"$(($(fast_bytes $MNT/sv/f0) + $(fast_bytes $MNT/sv/f1) + $(fast_bytes $MNT/sv/f2) + $(fast_bytes $MNT/sv/cmp)))" 0
check "...and share all of their extents (btrfs filesystem du: exclusive $(btrfs filesystem du -s --raw $MNT/sv | awk 'NR == 2 { print $2 }'))" \
	test "$(btrfs filesystem du -s --raw $MNT/sv | awk 'NR == 2 { print $2 }')" -eq 0
unshared=$(stat_of unshared_bytes)
heatctl set-opts fast $MNT/sv/f0 $MNT/sv/f1 $MNT/sv/f2 $MNT/sv/cmp ||
	not_ok "set-opts fast on the subvolume's files failed"
run_pass
is "a reflinked file pinned fast still shares its first extent with its copy (FIEMAP)" \
	"$(phys $MNT/sv/copy)" "$(phys $MNT/sv/f0)"
is "...so the copy has as many bytes on the NVMe as the file ($(fast_bytes $MNT/sv/f0))" \
	"$(fast_bytes $MNT/sv/copy)" "$(fast_bytes $MNT/sv/f0)"
is "a file overwritten in place, pinned fast, is all on the NVMe" \
	"$(fast_bytes $MNT/sv/f1)" $M8
is "a file of a snapshotted subvolume, pinned fast, is all on the NVMe" \
	"$(fast_bytes $MNT/sv/f2)" $M8
is "a compressed file pinned fast is all on the NVMe" "$(fast_bytes $MNT/sv/cmp)" $M8
check "...and still compressed (filefrag: encoded)" \
	sh -c "filefrag -v $MNT/sv/cmp | grep -q encoded"
is "the read-only snapshot's copies of f1, f2 and cmp stay on the disk" \
	"$(($(fast_bytes $MNT/snap/f1) + $(fast_bytes $MNT/snap/f2) + $(fast_bytes $MNT/snap/cmp)))" 0
excl=$(btrfs filesystem du -s --raw $MNT/sv | awk 'NR == 2 { print $2 }')
check "btrfs filesystem du: the pinned files hold their own copies ($excl exclusive bytes)" \
	test "$excl" -ge $((2 * M8))
check "unshared_bytes counts the copies ($unshared -> $(stat_of unshared_bytes))" \
	test "$(stat_of unshared_bytes)" -ge $((unshared + 2 * M8))
sums $MNT/sv/* $MNT/snap/* >/tmp/sv.sums2
check "every file of the subvolume and its snapshot reads back as written" \
	cmp -s /tmp/sv.sums /tmp/sv.sums2

# ---- nothing lost ----
sums $MNT/p/f0 $MNT/p/f1 $MNT/p/f2 $MNT/p/f3 $MNT/p/f4 $MNT/u/f0 >/tmp/pin.sums2
check "every file reads back as written" cmp -s /tmp/pin.sums /tmp/pin.sums2
check "scrub finds no error" scrub_clean $MNT
umount $MNT || bail "umount failed"
check "btrfs check finds nothing wrong" btrfs check --readonly "$SLOW_DEV"
done_testing
