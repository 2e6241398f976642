#!/bin/sh
# shellcheck shell=dash
# runtime: 300 s (debug kernel, beside another guest; the runner starts the longest first)
# guest-env: FAST_SIZE=512M
# Room for metadata on the fast tier (issue #37, 1). The README's layout,
# -d single -m raid1 over the SATA disk and a small NVMe, mounted
# hotdatamove: the mover and writes to a directory pinned fast fill the
# NVMe with data, then an ordinary workload of small files (inline: only
# metadata) grows the raid1 metadata, which needs a chunk on both devices.
# Before the fix the NVMe kept one 51 MiB chunk stripe for it and the
# commit that needed the next chunk aborted (error -28, forced read-only)
# with gigabytes unallocated on the SATA disk. Now metadata keeps growing:
# the NVMe keeps a metadata chunk unallocated, and when metadata takes it
# the mover relocates the emptiest fast data block group to the disk.
# Proof from btrfs-progs (device usage, filesystem df), nothing lost from
# checksums, scrub and btrfs check.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

MIB=1048576
# Both devices start at 512 MiB, so that mkfs makes a small metadata chunk
# (a tenth of the filesystem) that the workload fills in a minute; then the
# SATA disk grows to its 8 GiB.
umount $MNT 2>/dev/null
mkfs.btrfs -q -f -K -b 512M -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" ||
	bail "mkfs failed"
mkdir -p $MNT
# Files up to 4000 bytes are inline: one file, about 4.3 KiB of metadata.
mount -o hotdatamove,max_inline=4095 "$SLOW_DEV" $MNT || bail "mount failed"
btrfs filesystem resize 1:max $MNT >/dev/null || bail "resize of the SATA disk failed"
S=$(hot_sysfs)
echo 86400 >$S/mover_interval
echo 0 >$S/mover_grace
echo 98 >$S/mover_high_watermark
echo 97 >$S/mover_low_watermark

# unalloc DEV: bytes of DEV not allocated to any chunk (btrfs device usage).
unalloc() {
	btrfs device usage -b $MNT | awk -v dev="$1" '
		$1 ~ /^\// { here = ($1 == dev ",") }
		here && $1 == "Unallocated:" { print $2; exit }'
}
# meta_total: bytes allocated to metadata chunks, one copy (btrfs fi df).
meta_total() {
	btrfs filesystem df -b $MNT | sed -n 's/^Metadata, [^:]*: total=\([0-9]*\).*/\1/p'
}

# ---- fill the NVMe with data: a directory pinned fast ----
mkdir $MNT/pin
heatctl set-opts fast $MNT/pin || not_ok "set-opts fast on the directory"
run_pass
i=0
while [ $i -lt 8 ]; do
	make_files $MNT/pin/b$i 8 8M
	sync
	run_pass
	i=$((i + 1))
	[ "$(unalloc "$FAST_DEV")" -lt $((140 * MIB)) ] && break
done
sums $MNT/pin/b*/* >/tmp/pin.sums
fast0=$(unalloc "$FAST_DEV")
meta0=$(meta_total)
say "NVMe unallocated $fast0, metadata $meta0, SATA unallocated $(unalloc "$SLOW_DEV")"
check "the pinned files filled the NVMe down to its room for metadata ($fast0 bytes unallocated)" \
	test "$fast0" -lt $((140 * MIB))

# ---- then an ordinary workload of small files ----
# Metadata grows by the NVMe's unallocated space and 96 MiB more: the
# chunks raid1 can still place without the mover's help hold less.
want=$((meta0 + fast0 + 96 * MIB))
blk=$(head -c 3000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 4000)
d=0 err=0 n=0
while [ "$(meta_total)" -lt $want ] && [ $d -lt 200 ]; do
	mkdir -p $MNT/small/d$d || { err=1; break; }
	i=0
	while [ $i -lt 1000 ]; do
		printf '%s' "$blk" >$MNT/small/d$d/f$i || { err=1; break; }
		i=$((i + 1))
	done
	n=$((n + i))
	[ $err = 0 ] || break
	d=$((d + 1))
	[ $((d % 10)) = 0 ] && sync
done
sync
meta1=$(meta_total)
say "$n small files, metadata $meta0 -> $meta1, NVMe unallocated $(unalloc "$FAST_DEV")"
is "$n small files were written without an error" "$err" 0
check "metadata grew past what the NVMe had room for ($meta0 -> $meta1, wanted $want)" \
	test "$meta1" -ge $want
check "no transaction aborted" sh -c '! dmesg | grep -q "Transaction aborted"'
check "the filesystem is still writeable" sh -c "echo x >$MNT/after && sync"
# The chunk that took the room started a pass: wait for it to end.
w=0
while [ "$(stat_of room_groups)" = 0 ] && [ $w -lt 240 ]; do
	sleep 1
	w=$((w + 1))
done
while [ "$(stat_of pass_in_progress)" = 1 ] && [ $w -lt 240 ]; do
	sleep 1
	w=$((w + 1))
done
rg=$(stat_of room_groups)
check "the mover gave metadata its room back by relocating fast data groups (room_groups $rg)" \
	test "${rg:-0}" -ge 1
# Before the fix the NVMe was down to 1 MiB here; the room is 51 MiB.
check "...and the NVMe has room for a metadata chunk again ($(unalloc "$FAST_DEV") unallocated)" \
	test "$(unalloc "$FAST_DEV")" -ge $((32 * MIB))

# ---- nothing lost ----
sums $MNT/pin/b*/* >/tmp/pin.sums2
is "the pinned files read back the same" "$(cmp -s /tmp/pin.sums /tmp/pin.sums2 && echo same)" same
check "a small file reads back" sh -c "[ \"\$(cat $MNT/small/d0/f7)\" = '$blk' ]"
check "scrub finds no error" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
