#!/bin/sh
# shellcheck shell=dash
# runtime: 70 s (warm run, debug kernel; the runner starts the longest first)
# metadata_tier=fast (issue #15): with dup metadata over a SATA disk and
# an NVMe, a plain mount puts metadata chunks on the disk (most room);
# with the option, new metadata chunks and those a balance -m rewrites go
# to the NVMe, and a metadata walk over a cold cache reads nothing from
# the disk. When raid1 needs a second fast device, chunks go where a
# plain mount puts them, and nothing fails.
# Placement from the chunk tree (btrfs-progs), which device served the
# reads from /sys/block/*/stat, nothing lost from checksums, scrub and
# btrfs check.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

# reads DEV: read requests the device completed (field 1 of its stat).
reads() { awk '{ print $1 }' "/sys/block/${1##*/}/stat"; }

# meta_devids: the devids of every stripe of every METADATA chunk, from
# the chunk tree as btrfs-progs dumps it (sync first), sorted, unique.
meta_devids() {
	sync
	btrfs inspect-internal dump-tree -t chunk "$FAST_DEV" 2>/dev/null | awk '
		/ type / { for (i = 1; i < NF; i++) if ($i == "type") t = $(i + 1) }
		$1 == "stripe" && $3 == "devid" && t ~ /^METADATA/ { print $4 }' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

# walk: read every file of $MNT/m over a cold cache (a remount, since
# drop_caches leaves btrfs's tree blocks in memory); prints the read
# requests of the SATA disk and of the NVMe it caused.
walk() {
	local s0 f0
	umount $MNT && mount ${1:+-o "$1"} "$SLOW_DEV" $MNT || bail "remount failed"
	s0=$(reads "$SLOW_DEV")
	f0=$(reads "$FAST_DEV")
	ls -lR $MNT/m >/dev/null
	cat $MNT/m/*/* >/dev/null
	echo "$(($(reads "$SLOW_DEV") - s0)) $(($(reads "$FAST_DEV") - f0))"
}

umount $MNT 2>/dev/null
mkfs.btrfs -q -f -K -d single -m dup "$SLOW_DEV" "$FAST_DEV" || bail "mkfs failed"
mkdir -p $MNT
mount "$SLOW_DEV" $MNT || bail "mount failed"
SID=$(devid_of "$SLOW_DEV")
FID=$(devid_of "$FAST_DEV")
# 2000 files of 1 KiB (inline): their data is in tree blocks.
small_files $MNT/m 4 500
find $MNT/m -type f -exec sha256sum {} + >/tmp/meta.sums
check "2000 files to walk" test "$(wc -l </tmp/meta.sums)" -eq 2000

# ---- a plain mount: the disk, which has most room ----
btrfs balance start -m $MNT >/dev/null 2>&1 || not_ok "balance -m failed"
is "a plain mount: balance -m puts every metadata chunk on the SATA disk" \
	"$(meta_devids)" "$SID"
# shellcheck disable=SC2046
set -- $(walk "")
check "...and a cold walk reads its tree blocks from the disk ($1 SATA, $2 NVMe reads)" \
	test "$1" -gt 50

# ---- metadata_tier=fast ----
umount $MNT
dmesg -c >/dev/null
out=$(mount -o metadata_tier=bogus "$SLOW_DEV" $MNT 2>&1); rc=$?
check "metadata_tier=bogus is refused ($rc: $out)" test "$rc" != 0
check "...and the kernel log says why" \
	sh -c "dmesg | grep -q 'unrecognized metadata_tier value bogus'"
mount -o metadata_tier=fast "$SLOW_DEV" $MNT || bail "mount -o metadata_tier=fast failed"
check "/proc/mounts shows metadata_tier=fast" \
	sh -c "grep ' $MNT ' /proc/mounts | grep -q metadata_tier=fast"
is "...and the chunks stay where they were until a balance" "$(meta_devids)" "$SID"
btrfs balance start -m $MNT >/dev/null 2>&1 || not_ok "balance -m failed"
is "metadata_tier=fast: balance -m puts every metadata chunk on the NVMe" \
	"$(meta_devids)" "$FID"
# shellcheck disable=SC2046
set -- $(walk metadata_tier=fast)
is "...and a cold walk reads nothing from the disk ($2 NVMe reads)" "$1" 0
check "...but from the NVMe" test "$2" -gt 50

# ---- remount to any: back to the disk ----
mount -o remount,metadata_tier=any $MNT || bail "remount metadata_tier=any"
check "remount,metadata_tier=any drops it from /proc/mounts" \
	sh -c "! grep ' $MNT ' /proc/mounts | grep -q metadata_tier"
btrfs balance start -m $MNT >/dev/null 2>&1 || not_ok "balance -m failed"
is "...and balance -m puts the chunks back on the disk" "$(meta_devids)" "$SID"
mount -o remount,metadata_tier=fast $MNT || bail "remount metadata_tier=fast"
btrfs balance start -m $MNT >/dev/null 2>&1 || not_ok "balance -m failed"
is "remount,metadata_tier=fast: balance -m puts them on the NVMe again" \
	"$(meta_devids)" "$FID"

# ---- nothing lost ----
check "every file reads back as written" sha256sum -c -s /tmp/meta.sums
check "scrub finds no error" scrub_clean $MNT
umount $MNT

# ---- raid1 with one NVMe: not enough fast devices, nothing fails ----
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs failed"
mount -o metadata_tier=fast "$SLOW_DEV" $MNT || bail "mount failed"
make_files $MNT/r 4 1M
btrfs balance start -m $MNT >/dev/null 2>&1
is "raid1 with one NVMe (fewer fast devices than the profile needs): balance -m succeeds" "$?" 0
is "...with every metadata chunk on both devices" "$(meta_devids)" "$SID $FID"
umount $MNT
check "btrfs check finds nothing wrong" btrfs check --readonly "$SLOW_DEV"
done_testing
