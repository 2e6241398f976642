#!/bin/sh
# shellcheck shell=dash
# runtime: 150 s (debug kernel, beside another guest; the runner starts the longest first)
# Parts larger than what a pass may move (issue #37, 2). A file written
# in one go has extents of up to 128 MiB, and the mover checked each part
# against what was left of its budget and of the fast room all or
# nothing: a file pinned fast that was larger than the budget ended every
# pass with "budget" before anything moved, promotion among it, and the
# pin never landed; a cold extent larger than the budget never left the
# NVMe. Now a part is cut at what the pass may still move, and the pin
# step leaves a quarter of the budget to the rest of the pass. Placement
# from FIEMAP and the chunk tree, nothing lost from checksums and btrfs
# check.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

MIB=1048576
fresh_fs hotdatamove
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
echo 0 >$S/mover_grace
echo $((64 * MIB)) >$S/mover_budget || bail "mover_budget"

# A pinned file of 1.25 budgets, one dd: one 80 MiB extent.
dd if=/dev/urandom of=$MNT/big bs=1M count=80 2>/dev/null
# A hot set beside it: three files of 4 MiB, read enough to be promoted.
make_files $MNT/hot 3 4M
sync
filefrag $MNT/big | grep -q "1 extent found" ||
	diag "big has $(filefrag $MNT/big) (one extent wanted)"
sums $MNT/big $MNT/hot/* >/tmp/big.sums
heat_up $MNT/hot/f0 6
heat_up $MNT/hot/f1 6
heat_up $MNT/hot/f2 6
heatctl set-opts fast $MNT/big || not_ok "set-opts fast"

hot_fast() {
	echo $(($(fast_bytes $MNT/hot/f0) + $(fast_bytes $MNT/hot/f1) + $(fast_bytes $MNT/hot/f2)))
}

run_pass
b1=$(fast_bytes $MNT/big)
say "pass 1: $(stat_of last_pass_result), big $b1 on the NVMe, hot set $(hot_fast)"
check "pass 1 moved part of the pinned file, no more than the pins' share of the budget ($b1 bytes)" \
	test "$b1" -gt 0 -a "$b1" -le $((48 * MIB))
is "...and promoted the whole hot set beside it" "$(hot_fast)" $((12 * MIB))
check "...and still waits for the rest of the pin (pins_pending $(stat_of pins_pending))" \
	test "$(stat_of pins_pending)" = 1
run_pass
run_pass
is "the pin landed whole within ceil(80/64) + 1 passes (FIEMAP)" \
	"$(fast_bytes $MNT/big)" $((80 * MIB))
is "...and nothing waits any more" "$(stat_of pins_pending)" 0

# ---- demotion of an extent larger than the budget ----
# Unpinned and cold, the file's 80 MiB leave the NVMe over two passes.
heatctl set-opts move $MNT/big || not_ok "set-opts move"
dem0=$(stat_of demoted_bytes)
demote_all
run_pass
dem1=$(stat_of demoted_bytes)
left=$(fast_bytes $MNT/big)
check "one pass demoted part of it, at most the budget ($((dem1 - dem0)) bytes)" \
	test $((dem1 - dem0)) -gt 0 -a $((dem1 - dem0)) -le $((64 * MIB))
run_pass
run_pass
is "three passes took it all back to the disk" "$(fast_bytes $MNT/big)" 0
check "...it was on the NVMe in between ($left bytes after the first)" test "$left" -gt 0

# ---- a budget below one extent still moves it ----
defaults
echo $((16 * MIB)) >$S/mover_budget
heatctl set-opts fast $MNT/big
run_pass
b=$(fast_bytes $MNT/big)
check "with a 16 MiB budget a pass still moves a piece of the pinned file ($b)" \
	test "$b" -gt 0 -a "$b" -le $((16 * MIB))

sums $MNT/big $MNT/hot/* >/tmp/big.sums2
is "every file reads back the same" "$(cmp -s /tmp/big.sums /tmp/big.sums2 && echo same)" same
umount $MNT
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
