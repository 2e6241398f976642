#!/bin/sh
# shellcheck shell=dash
# make compat, phase 3 of 3, on our kernel again: the filesystem the stock
# kernel wrote mounts with hotdatamove, keeps its override, loads the
# saved heat and reads back as written.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

mkdir -p $MNT
# A new boot: the kernel must learn of both devices before a mount.
btrfs device scan >/dev/null 2>&1 || bail "btrfs device scan failed"
mount -o hotdatamove "$SLOW_DEV" $MNT || bail "our kernel cannot mount it again"
S=$(hot_sysfs)
is "the tier override is still there" \
	"$(cat "/sys/fs/btrfs/$(fs_uuid)/devinfo/$(devid_of "$SLOW_DEV")/tier")" slow
check "the saved heat is loaded ($(cat $S/nr_loaded) ranges)" test "$(cat $S/nr_loaded)" -gt 0
sums $MNT/d/f0 $MNT/d/f1 $MNT/d/f3 $MNT/new >/tmp/sums
check "every file reads back as the stock kernel left it" cmp -s /tmp/sums $MNT/sums
echo 86400 >$S/mover_interval
run_pass
umount $MNT || bail "umount failed"
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
