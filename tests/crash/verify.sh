#!/bin/sh
# After a power cut: btrfs check, mount, every checksum, scrub.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

check "btrfs check is clean after the power cut" btrfs check "$SLOW_DEV"
btrfs device scan >/dev/null 2>&1
mkdir -p $MNT
check "the filesystem mounts after the power cut" \
	mount -o hotdatamove "$SLOW_DEV" $MNT
check "...and loads the heat the last pass before the cut saved ($(cat "$(hot_sysfs)/nr_loaded") ranges)" \
	test "$(cat "$(hot_sysfs)/nr_loaded")" -gt 0
bad=0
while read -r sum f; do
	got=$(dd if="$f" bs=4M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$sum" ] || { bad=$((bad + 1)); diag "checksum mismatch: $f"; }
done <$MNT/sums.txt
is "every file's checksum matches the one synced before the cuts" $bad 0
is "the checksum list covers the 16 files" "$(wc -l <$MNT/sums.txt)" 16
diag "bytes on NVMe after the cuts: $(for i in $(seq 0 15); do fast_bytes $MNT/d/f$i; done | awk "{ s += \$1 } END { print s }")"
# what the writers of the kill loop left must read without an error
check "every file reads without an I/O error" \
	sh -c "find $MNT -type f -print0 | xargs -0 cat >/dev/null"
# A commit first: the superblock copies are written without FUA, so after
# a power cut they may hold an older generation until the next commit.
touch $MNT/.commit && sync
check "scrub is clean" scrub_clean $MNT
umount $MNT
done_testing
