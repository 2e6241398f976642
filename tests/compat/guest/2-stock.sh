#!/bin/sh
# shellcheck shell=dash
# make compat, phase 2 of 3, on the unpatched 6.1 kernel (the lean config
# on the pristine source): btrfs check, then a mount, the files read back
# against their checksums, a scrub, new writes, an unmount and btrfs check
# again; the kernel log must hold no btrfs error or warning.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

check "btrfs check is clean before the stock kernel mounts it" \
	btrfs check --readonly "$SLOW_DEV"
mkdir -p $MNT
# A new boot: the kernel must learn of both devices before a mount.
btrfs device scan >/dev/null 2>&1 || bail "btrfs device scan failed"
check "this kernel is unpatched: it refuses -o hotdatamove" \
	sh -c "! mount -o hotdatamove '$SLOW_DEV' $MNT 2>/dev/null"
check "...and has no hot data sysfs" sh -c "! ls /sys/fs/btrfs/*/hot >/dev/null 2>&1"
dmesg -c >/dev/null
mount "$SLOW_DEV" $MNT || bail "the stock kernel cannot mount the filesystem"
ok "the stock kernel mounts it"
# sums: the lines "SHA256 PATH" of phase 1, recomputed the same way.
bad=0
while read -r sum path; do
	now=$(dd if="$path" bs=4M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$now" = "$sum" ] || { diag "$path: $now, was $sum"; bad=$((bad + 1)); }
done <$MNT/sums
check "every file reads back as written ($(wc -l <$MNT/sums) files)" \
	test "$bad" = 0 -a "$(wc -l <$MNT/sums)" = 4
check "getfattr shows the pin as an ordinary xattr" \
	sh -c "getfattr --only-values -n btrfs.hot $MNT/d/f3 2>/dev/null | grep -qx fast"
check "scrub finds no error" scrub_clean $MNT
out=$(heatctl top $MNT 2>&1); rc=$?
check "heatctl top as root on this kernel fails (1): no heat data" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'no heat data'"
out=$(as_user heatctl top $MNT 2>&1); rc=$?
check "...and as a user says the kernel cannot list heat for them (1)" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'cannot list heat for other users than root'"
dd if=/dev/urandom of=$MNT/new bs=1M count=4 conv=fsync 2>/dev/null
rm $MNT/d/f2
sums $MNT/d/f0 $MNT/d/f1 $MNT/d/f3 $MNT/new >$MNT/sums
umount $MNT || bail "umount failed"
check "the kernel log has no btrfs error or warning" \
	sh -c "! dmesg | grep -iE 'btrfs.*(error|warn|corrupt|invalid)'"
check "btrfs check is clean after the stock kernel wrote" btrfs check --readonly "$SLOW_DEV"
dump=$(btrfs inspect-internal dump-tree -t dev "$SLOW_DEV" 2>/dev/null)
check "the device tree still holds the override and heat items" \
	sh -c "echo '$dump' | grep -q 'key (18446744073709550592 PERSISTENT_ITEM ' && echo '$dump' | grep -q 'key (18446744073709550591 PERSISTENT_ITEM '"
done_testing
