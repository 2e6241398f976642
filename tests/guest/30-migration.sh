#!/bin/sh
# runtime: 510 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# The hot data mover: hot ranges move to NVMe and cold ones back, proved
# with filefrag and the chunk tree; checksums, scrub and btrfs check
# prove that nothing was lost. Also what must never move, the budget, the
# interval, remounts, concurrent writers and a mid-pass unmount.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M=4194304	# bytes per test file

fresh_fs hotdatamove
S=$(hot_sysfs)
is "the mover runs on a hotdatamove mount" "$(cat $S/mover_state)" running
is "the default interval is 300 seconds" "$(cat $S/mover_interval)" 300
is "the NVMe is the fast tier" \
	"$(cat "/sys/fs/btrfs/$(fs_uuid)/devinfo/2/tier")" "fast (auto)"
is "the SATA disk is the slow tier" \
	"$(cat "/sys/fs/btrfs/$(fs_uuid)/devinfo/1/tier")" "slow (auto)"

make_files $MNT/d 8 4096K
sync
before=$(sums $MNT/d/f*)
slow=0
for i in 0 1 2 3 4 5 6 7; do
	[ "$(fast_bytes $MNT/d/f$i)" = 0 ] && slow=$((slow + 1))
done
is "ordinary writes land on the slow device (8 of 8 files, filefrag)" $slow 8

heat_up $MNT/d/f0
heat_up $MNT/d/f1
check "a pass through sysfs succeeds" run_pass
is "the pass counted itself" "$(stat_of passes)" 1
is "the hot file f0 now lies on NVMe (filefrag + chunk tree)" \
	"$(fast_bytes $MNT/d/f0)" $M
is "the hot file f1 now lies on NVMe" "$(fast_bytes $MNT/d/f1)" $M
cold=0
for i in 2 3 4 5 6 7; do
	[ "$(fast_bytes $MNT/d/f$i)" = 0 ] && cold=$((cold + 1))
done
is "the six cold files stayed on SATA" $cold 6
is "mover_stats agrees: 8 MiB promoted" "$(stat_of promoted_bytes)" $((2 * M))
is "every checksum is unchanged after the move" "$(sums $MNT/d/f*)" "$before"
check "a direct read of a moved file still returns its data" \
	sh -c "dd if=$MNT/d/f0 bs=1M iflag=direct 2>/dev/null | cmp - $MNT/d/f0"

# ---- heatctl, against filefrag ----
heat_up $MNT/d/f7
out=$(heatctl migrate --json $MNT)
is "heatctl migrate reports the 4 MiB it promoted" \
	"$(echo "$out" | jq -r .promoted_bytes)" $M
is "...which filefrag confirms" "$(fast_bytes $MNT/d/f7)" $M
is "heatctl where agrees: all of the file is on the fast tier" \
	"$(heatctl where --json $MNT/d/f7 | jq -r '.[0].fast_bytes')" $M
is "heatctl top shows the moved file on the fast tier" \
	"$(heatctl top --json -n 50 $MNT | jq -r --arg p $MNT/d/f7 '.[] | select(.path == $p) | .tier')" fast
is "...and a cold file on the slow tier" \
	"$(heatctl top --json -n 50 $MNT | jq -r --arg p $MNT/d/f6 '.[] | select(.path == $p) | .tier')" slow
is "heatctl status shows the mover running" \
	"$(heatctl status --json $MNT | jq -r .state)" running
is "heatctl status counts the passes" \
	"$(heatctl status --json $MNT | jq -r .passes)" "$(stat_of passes)"

# ---- budget ----
echo 1M >$S/mover_budget
heat_up $MNT/d/f2
p0=$(stat_of promoted_bytes)
run_pass
got=$(($(stat_of promoted_bytes) - p0))
is "a 1 MiB budget moves exactly 1 MiB of the 4 MiB hot file" \
	"$(fast_bytes $MNT/d/f2)" 1048576
is "...and the pass says the budget ended it" "$(stat_of last_pass_result)" budget
check "...and promoted_bytes grew by no more than the budget ($got)" \
	test "$got" -le 1048576
echo 256M >$S/mover_budget
echo 100 >$S/mover_budget 2>/dev/null
is "a budget under 64 KiB is refused" "$(cat $S/mover_budget)" 268435456
echo 50 >$S/mover_demote_temp
echo 40 >$S/mover_promote_temp 2>/dev/null
is "a promotion threshold under the demotion threshold is refused" \
	"$(cat $S/mover_promote_temp)" 80
echo 64 >$S/mover_demote_temp

# ---- per-inode opts ----
heatctl set-opts track $MNT/d/f3
heatctl set-opts none $MNT/d/f4
heat_up $MNT/d/f3
heat_up $MNT/d/f4
sk=$(stat_of skipped_opts)
run_pass
is "a hot file with opts 'track' never moves" "$(fast_bytes $MNT/d/f3)" 0
is "a hot file with opts 'none' never moves" "$(fast_bytes $MNT/d/f4)" 0
check "...and the mover counts why" test "$(stat_of skipped_opts)" -gt "$sk"

# ---- shared extents ----
xfs_io -f -c "reflink $MNT/d/f5 0 0 $M" $MNT/d/f5r >/dev/null
heat_up $MNT/d/f5
sk=$(stat_of skipped_shared)
run_pass
# f5 is 4 MiB of a block group holding about 24 MiB: too little of the
# group to relocate it (MOVER_GROUP_PCT), and it is never rewritten alone.
is "a reflinked hot file in a mostly cold block group is not moved" \
	"$(fast_bytes $MNT/d/f5)" 0
is "...so it stays shared with its clone (same physical start)" \
	"$(phys $MNT/d/f5)" \
	"$(phys $MNT/d/f5r)"
check "...and the mover counts it as shared" \
	test "$(stat_of skipped_shared)" -gt "$sk"

btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 2 4096K
sync
btrfs subvolume snapshot $MNT/sv $MNT/snap >/dev/null
sync
heat_up $MNT/sv/f0
run_pass
is "a snapshotted hot file in a mostly cold block group is not moved" \
	"$(fast_bytes $MNT/sv/f0)" 0
is "...and no block group was relocated for it" "$(stat_of relocated_groups)" 0
is "...and stays shared with its snapshot" \
	"$(phys $MNT/sv/f0)" \
	"$(phys $MNT/snap/f0)"
btrfs subvolume create $MNT/sv2 >/dev/null
make_files $MNT/sv2 1 4096K
sync
heat_up $MNT/sv2/f0
run_pass
is "a hot file in another subvolume moves too" "$(fast_bytes $MNT/sv2/f0)" $M

# ---- mount options, read-only ----
mount -o remount,nohotdatamove $MNT
is "remount,nohotdatamove stops the mover" "$(cat $S/mover_state)" off
make_files $MNT/t 1 4096K
sync
heat_up $MNT/t/f0
check "a pass cannot be triggered with hotdatatrack alone" \
	sh -c "! echo 1 >$S/mover_run"
is "the hot file stays on SATA with hotdatatrack alone" "$(fast_bytes $MNT/t/f0)" 0
mount -o remount,ro,hotdatamove $MNT
is "a read-only mount has no mover" "$(cat $S/mover_state)" read-only
check "a pass cannot be triggered on a read-only mount" \
	sh -c "! echo 1 >$S/mover_run"
is "nothing moved on the read-only mount" "$(fast_bytes $MNT/t/f0)" 0
mount -o remount,rw $MNT
is "remount,rw with hotdatamove starts the mover again" "$(cat $S/mover_state)" running

# ---- the interval ----
# The file is read in a burst: with 2 s passes its accesses count as
# stopped 4 s later (mover_idle_gaps, tested below), which a slow first
# pass could reach.
echo 0 >$S/mover_idle_gaps
heat_up $MNT/t/f0
p0=$(stat_of passes)
echo 2 >$S/mover_interval
sleep 8
check "with a 2 s interval, passes happen on their own" \
	test "$(stat_of passes)" -gt "$p0"
is "...and the hot file moved without a trigger" "$(fast_bytes $MNT/t/f0)" $M
echo 300 >$S/mover_interval
echo 8 >$S/mover_idle_gaps

# ---- concurrent writers ----
heat_up $MNT/d/f6
fio --name=v --filename=$MNT/d/f6 --size=4M --rw=randwrite --bs=4k \
	--ioengine=psync --verify=crc32c --do_verify=1 --loops=4 \
	--output=/tmp/fio.out >/dev/null 2>&1 &
fpid=$!
p0=$(stat_of promoted_bytes)
n=0
while kill -0 $fpid 2>/dev/null && [ $n -lt 20 ]; do
	heat_up $MNT/d/f6 1
	run_pass
	n=$((n + 1))
done
wait $fpid
is "fio with verification on a file being moved ends clean ($n passes)" "$?" 0
check "...and the passes during the writes moved its rewritten ranges" \
	test "$(stat_of promoted_bytes)" -gt "$p0"

# ---- unmount in the middle of a pass ----
# 192 MiB to move: the pass lasts seconds even on a fast host, so it is
# still running a second after it started, when the unmount begins (a CI
# run saw a pass of 32 MiB end within that second).
U="0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"
make_files $MNT/u 24 8192K
sync
for i in $U; do heat_up $MNT/u/f$i 2; done
after=$(sums $MNT/d/f0 $MNT/d/f1 $MNT/d/f2 $MNT/sv2/f0 $MNT/u/f*)
(echo 1 >$S/mover_run) 2>/dev/null &
check "a pass is in progress" wait_in_pass
sleep 1
is "...and still is when the unmount begins" "$(stat_of pass_in_progress)" 1
check "unmount during a pass succeeds" umount $MNT
wait
check "btrfs check is clean after the mid-pass unmount" btrfs check "$SLOW_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT
is "every checksum is intact after the mid-pass unmount" \
	"$(sums $MNT/d/f0 $MNT/d/f1 $MNT/d/f2 $MNT/sv2/f0 $MNT/u/f*)" "$after"
moved=0
for i in $U; do moved=$((moved + $(fast_bytes $MNT/u/f$i))); done
diag "bytes of u/ on NVMe after the mid-pass unmount: $moved of $((192 * 1048576))"
check "...the pass had moved part of u/ to NVMe when the unmount stopped it" \
	test "$moved" -gt 0
check "...and not all of it" test "$moved" -lt $((192 * 1048576))

# ---- a suspend in the middle of a pass ----
# Suspend's freezer without the suspend (pm_test=freezer): the mover must
# freeze between two ranges, not hold the suspend up until its pass ends.
# The rest of u/ takes a pass of many seconds; if the freeze succeeds and
# the pass is still in progress after the thaw, it froze mid-pass.
for i in $U; do heat_up $MNT/u/f$i 2; done
(echo 1 >$S/mover_run) 2>/dev/null &
check "a pass is in progress" wait_in_pass
echo freezer >/sys/power/pm_test
echo 1 >/sys/module/suspend/parameters/pm_test_delay
echo 10000 >/sys/power/pm_freeze_timeout
check "the system freezes for a suspend during a pass (pm_test=freezer)" \
	sh -c 'echo freeze >/sys/power/state'
is "...and the pass goes on after the thaw" "$(stat_of pass_in_progress)" 1
echo none >/sys/power/pm_test
wait
make_files $MNT/r 8 4096K
sync
for i in 0 1 2 3 4 5 6 7; do heat_up $MNT/r/f$i 2; done
(echo 1 >"$(hot_sysfs)/mover_run") 2>/dev/null &
check "a pass is in progress" wait_in_pass
check "remount,ro during a pass succeeds" mount -o remount,ro $MNT
wait
mount -o remount,rw $MNT
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"

# ---- demotion: a 1 GiB fast tier, data on it that nobody touched ----
mkfs.btrfs -q -f -K -b 1G -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
mount -o hotdatamove "$SLOW_DEV" $MNT
S=$(hot_sysfs)
make_files $MNT/c 10 4096K
sync
for i in 0 1 2 3 4 5 6 7 8 9; do heat_up $MNT/c/f$i 2; done
run_pass
on=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	[ "$(fast_bytes $MNT/c/f$i)" = $M ] && on=$((on + 1))
done
is "ten hot files promoted to NVMe" $on 10
before=$(sums $MNT/c/f*)
# The unmount would save the ten files' heat for the mount (29-heatsave).
# A new range size drops the index, so the save is empty and the files'
# heat after the mount is unknown, as after a crash before any save.
echo 2097152 >$S/range_size || bail "range_size"
echo 1048576 >$S/range_size || bail "range_size"
umount $MNT
mount -o hotdatamove "$SLOW_DEV" $MNT
is "with the index dropped before the unmount, the mount loads no heat" \
	"$(cat $S/nr_loaded)" 0
heat_up $MNT/c/f0
heat_up $MNT/c/f1
echo 1 >$S/mover_low_watermark
echo 3 >$S/mover_high_watermark
# In the grace after mount, data nobody read since is of unknown heat,
# not cold, and stays.
is "the grace after mount is on by default" "$(cat $S/mover_grace)" 600
d0=$(stat_of demoted_bytes)
run_pass
seen_fast=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	seen_fast=$((seen_fast + $(fast_bytes $MNT/c/f$i)))
done
is "in the grace, a pass over the watermark demotes none of the ten files (filefrag)" \
	$seen_fast $((10 * M))
is "...and the pass ran, demoting nothing" \
	"$(stat_of last_pass_result) $(stat_of demoted_bytes)" "done $d0"
echo 0 >$S/mover_grace
run_pass
cap=$(stat_of fast_capacity_bytes)
diag "fast data space $cap bytes; high 3%, low 1%"
is "the two files read since mount stay on NVMe" \
	"$(($(fast_bytes $MNT/c/f0) + $(fast_bytes $MNT/c/f1)))" $((2 * M))
cold_fast=0
for i in 2 3 4 5 6 7 8 9; do
	cold_fast=$((cold_fast + $(fast_bytes $MNT/c/f$i)))
done
low=$((cap / 100))
diag "cold bytes left on NVMe: $cold_fast; low watermark $low bytes"
check "the files nobody read since mount went back to SATA down to the low watermark" \
	test $((2 * M + cold_fast)) -le $((low + 1048576))
check "...and no more than that: demotion stops at the low watermark" \
	test $((2 * M + cold_fast)) -ge $((low - 1048576))
is "the pass's own count of fast use agrees with filefrag (the pass commits)" \
	"$(stat_of fast_used_bytes)" $((2 * M + cold_fast))
p0=$(stat_of promoted_bytes)
d0=$(stat_of demoted_bytes)
run_pass
run_pass
is "no range ping-pongs: two more passes promote nothing" "$(stat_of promoted_bytes)" "$p0"
is "...and demote nothing" "$(stat_of demoted_bytes)" "$d0"
is "checksums unchanged after demotion" "$(sums $MNT/c/f*)" "$before"

# ---- the slow tier fills: writes go to NVMe rather than fail ----
echo 90 >$S/mover_high_watermark
echo 80 >$S/mover_low_watermark
dd if=/dev/zero of=$MNT/big bs=1M count=1200 2>/tmp/dd.err
rc=$?
sync
is "a 1200 MiB write to a 1 GiB SATA tier succeeds (no ENOSPC)" "$rc" 0
check "...and part of it went to NVMe" test "$(fast_bytes $MNT/big)" -gt 0
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"

# ---- displacement: a hotter file takes the place of warm ones ----
# A fast tier full to its watermark with warm files (6 accesses per
# range with their write and checksum, temperature 84), then on SATA a
# much hotter file (66 accesses, 112) and a tepid one (10 accesses, 90):
# hotter by more than the margin (16), the hot file makes as many warm
# files leave as it needs, coldest first, and moves in; the tepid file,
# hotter than the warm ones by less than the margin, stays where it is,
# and so does data of equal heat. A reflinked file on NVMe, colder than
# the warm files (4 accesses, 80), cannot leave: the warm ones make the
# room instead.
MB=1048576
small_fs
S=$(hot_sysfs)
mkdir -p $MNT/x
run_pass
cap=$(stat_of fast_capacity_bytes)
echo 0 >$S/mover_low_watermark
echo 2 >$S/mover_high_watermark
echo 72 >$S/mover_promote_temp
dd if=/dev/urandom of=$MNT/x/r bs=1M count=2 2>/dev/null
sync
heat_up $MNT/x/r 2 1M
run_pass
cp --reflink=always $MNT/x/r $MNT/x/r2
sync
is "a file to be reflinked moved to NVMe first (filefrag)" \
	"$(fast_bytes $MNT/x/r)" $((2 * MB))
room=$((cap * 2 / 100 - $(stat_of fast_used_bytes)))
n=$((room / MB))
diag "fast data space $cap bytes, room under the 2 % watermark $room: $n warm files"
i=0
while [ $i -lt $n ]; do
	dd if=/dev/urandom of=$MNT/x/w$i bs=1M count=1 2>/dev/null
	i=$((i + 1))
done
dd if=/dev/urandom of=$MNT/x/h bs=1M count=2 2>/dev/null
dd if=/dev/urandom of=$MNT/x/t bs=1M count=1 2>/dev/null
sync
before=$(sums $MNT/x/*)
warm_fast() {
	wi=0 wt=0
	while [ $wi -lt $n ]; do
		wt=$((wt + $(fast_bytes $MNT/x/w$wi)))
		wi=$((wi + 1))
	done
	echo $wt
}
i=0
while [ $i -lt $n ]; do heat_up $MNT/x/w$i 4 1M; i=$((i + 1)); done
run_pass
check "there is room for at least three warm files" test $n -ge 3
is "the warm files fill the room (filefrag)" "$(warm_fast)" $((n * MB))
is "...and the hot file is still on SATA" "$(fast_bytes $MNT/x/h)" 0
heat_up $MNT/x/h 4 64k
heat_up $MNT/x/t 8 1M
dis0=$(stat_of displaced_bytes)
run_pass
is "a much hotter file displaces warm ones and moves in (filefrag)" \
	"$(fast_bytes $MNT/x/h)" $((2 * MB))
is "...and exactly as many warm files made room, on SATA now (filefrag)" \
	"$(warm_fast)" $(((n - 2) * MB))
is "...while the colder reflinked file, which cannot leave, stays on NVMe (filefrag)" \
	"$(fast_bytes $MNT/x/r)" $((2 * MB))
check "...and the pass counts them as displaced" \
	test "$(stat_of displaced_bytes)" -ge $((dis0 + 2 * MB))
dis1=$(stat_of displaced_bytes)
run_pass
run_pass
is "two passes later the warm files keep the rest of the room (filefrag)" \
	"$(warm_fast)" $(((n - 2) * MB))
is "...and the tepid file, within the margin of them, is still on SATA (filefrag)" \
	"$(fast_bytes $MNT/x/t)" 0
is "...it waits: the fast tier is full" "$(stat_of last_pass_result)" fast-full
is "...but equal heat does not trade places: nothing more displaced" \
	"$(stat_of displaced_bytes)" "$dis1"
is "...and the hot file keeps its place" "$(fast_bytes $MNT/x/h)" $((2 * MB))

# ---- data whose accesses stopped gives its place up ----
# The warm and hot files were read in bursts and not since; the tepid file
# is now read twice a second. With a margin no heat here reaches (48),
# only the stop rule can move it: data accessed twice or more and then not
# for mover_idle_gaps of its mean intervals, nor 8 s, while the
# filesystem is accessed (the tepid file's reads), counts as cold. With the rule off, the same
# timed passes leave the tepid file on SATA; with it on, it moves in.
is "data counts as stopped after eight idle intervals by default" \
	"$(cat $S/mover_idle_gaps)" 8
echo 48 >$S/mover_displace_margin
echo 0 >$S/mover_idle_gaps
others_fast() {
	echo $(($(warm_fast) + $(fast_bytes $MNT/x/h)))
}
o0=$(others_fast)
touch /tmp/keep-reading
(i=0
while [ -e /tmp/keep-reading ] && [ $i -lt 400 ]; do
	dd if=$MNT/x/t of=/dev/null bs=1M iflag=direct 2>/dev/null
	sleep 0.5
	i=$((i + 1))
done) &
reader=$!
p0=$(stat_of passes)
echo 1 >$S/mover_interval
sleep 6
echo 300 >$S/mover_interval
check "with the rule off, timed passes ran" test "$(stat_of passes)" -gt $((p0 + 1))
is "...found the fast tier full" "$(stat_of last_pass_result)" fast-full
is "...and left the tepid file, still read, on SATA (filefrag)" \
	"$(fast_bytes $MNT/x/t)" 0
dis1=$(stat_of displaced_bytes)
was=""
for f in $MNT/x/w* $MNT/x/h; do
	was="$was $(fast_bytes "$f")"
done
echo 8 >$S/mover_idle_gaps
echo 1 >$S/mover_interval
w=0
while [ $w -lt 60 ] && [ "$(fast_bytes $MNT/x/t)" != $MB ]; do
	sleep 1
	w=$((w + 1))
done
# Timed passes go on; once the reader ends nothing is read, and a pause
# of everything stops nothing.
echo 5 >$S/mover_interval
rm -f /tmp/keep-reading
wait $reader
is "with it on, the tepid file moves in (filefrag, ${w} s)" \
	"$(fast_bytes $MNT/x/t)" $MB
check "...displacing data whose accesses stopped" \
	test "$(stat_of displaced_bytes)" -ge $((dis1 + MB))
check "...which was the warm and hot files' (filefrag)" \
	test "$(others_fast)" -le $((o0 - MB))
# What left because it stopped starts over: read once again, it is one
# access (64, under the floor of 72), not its heat of before, which would
# take its place back from the stopped files at once.
left=""
set -- $was
for f in $MNT/x/w* $MNT/x/h; do
	if [ -z "$left" ] && [ "$(fast_bytes "$f")" -lt "$1" ]; then
		left=$f
	fi
	shift
done
check "a file that left because it stopped can be found (filefrag)" \
	test -n "$left"
f0=$(fast_bytes "$left")
dd if="$left" of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null
run_pass
is "...read once again, it does not come back: its heat starts over (filefrag)" \
	"$(fast_bytes "$left")" "$f0"
echo 300 >$S/mover_interval
echo 16 >$S/mover_displace_margin
is "checksums unchanged" "$(sums $MNT/x/*)" "$before"

# ---- a sequential read is one access per range, whatever the window ----
# A backup or a checksum run reads everything once. Through readahead that
# is one window after another, and with 128 KiB windows eight of them
# cover each 1 MiB range: counted as eight accesses, one scan would make
# everything look as hot as data read eight times.
rm -rf $MNT/x
echo 90 >$S/mover_high_watermark
echo 80 >$S/mover_low_watermark
echo 80 >$S/mover_promote_temp
for f in /sys/class/bdi/btrfs-*/read_ahead_kb; do echo 128 >"$f"; done
make_files $MNT/s 2 16M
sync
drop_caches
cat $MNT/s/f0 >/dev/null
i=0
while [ $i -lt 4 ]; do
	drop_caches
	cat $MNT/s/f1 >/dev/null
	i=$((i + 1))
done
r=$(info $MNT/s/f0 reads)
check "one buffered read of a 16 MiB file came in many readahead windows ($r)" \
	test "$r" -ge 32
run_pass
is "one read of a file (plus its write) does not reach 4 accesses: it stays on SATA (filefrag)" \
	"$(fast_bytes $MNT/s/f0)" 0
is "...while four reads of another do, and it moves (filefrag)" \
	"$(fast_bytes $MNT/s/f1)" $((16 * MB))
echo 80 >$S/mover_promote_temp
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"
done_testing
