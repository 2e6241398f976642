#!/bin/sh
# shellcheck shell=dash
# make compat, phase 1 of 3, on our kernel: a tiered filesystem with
# everything our series stores on disk: data promoted to the NVMe, a file
# pinned fast (the btrfs.hot property), a tier override (a device tree
# item) and the heat saved at unmount (device tree items). The files'
# checksums go into the filesystem for the next phases.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

M8=8388608
fresh_fs hotdatamove
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
make_files $MNT/d 4 8M
heatctl set-opts fast $MNT/d/f3 || not_ok "set-opts fast failed"
heat_up $MNT/d/f0
heat_up $MNT/d/f1
run_pass
is "our kernel promoted the two files read and the pinned one" \
	"$(($(fast_bytes $MNT/d/f0) + $(fast_bytes $MNT/d/f1) + $(fast_bytes $MNT/d/f3)))" $((3 * M8))
echo slow >"/sys/fs/btrfs/$(fs_uuid)/devinfo/$(devid_of "$SLOW_DEV")/tier" ||
	not_ok "tier override refused"
sums $MNT/d/* >$MNT/sums
umount $MNT || bail "umount failed"
dump=$(btrfs inspect-internal dump-tree -t dev "$SLOW_DEV" 2>/dev/null)
check "the device tree holds the tier override item (-1024)" \
	sh -c "echo '$dump' | grep -q 'key (18446744073709550592 PERSISTENT_ITEM '"
check "...and the heat save items (-1025)" \
	sh -c "echo '$dump' | grep -q 'key (18446744073709550591 PERSISTENT_ITEM '"
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
