#!/bin/sh
# runtime: 60 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# The guest topology itself, before any of our kernel changes matter: two
# tiers that look like what they stand for, and a stock btrfs across both
# that keeps data intact.
. /test/lib/tap.sh
. /test/lib/guest.sh

slow=${SLOW_DEV#/dev/}
fast=${FAST_DEV#/dev/}
diag "slow tier: $SLOW_DEV ($(cat /sys/block/$slow/device/model 2>/dev/null | tr -s ' '))"
diag "fast tier: $FAST_DEV ($(cat /sys/block/$fast/device/model 2>/dev/null | tr -s ' '))"

is "the SATA disk reports itself rotational" "$(cat /sys/block/$slow/queue/rotational)" 1
is "the NVMe disk reports itself non-rotational" "$(cat /sys/block/$fast/queue/rotational)" 0
check "the SATA disk is clearly larger than the NVMe disk" \
	test "$(cat /sys/block/$slow/size)" -ge $(($(cat /sys/block/$fast/size) * 2))

# 4 KiB random direct reads at queue depth 1 on each raw device.
slow_lat=$(qd1_read_p50_us "$SLOW_DEV")
fast_lat=$(qd1_read_p50_us "$FAST_DEV")
diag "4 KiB random direct read, QD1, median latency: SATA ${slow_lat} us, NVMe ${fast_lat} us"
check "SATA 4 KiB random reads take milliseconds, like a 7200 rpm disk" \
	test "${slow_lat%.*}" -ge 1000
check "SATA random reads are at least 10 times slower than NVMe" \
	test "${slow_lat%.*}" -ge $((${fast_lat%.*} * 10))

# A stock two-device btrfs: write, drop caches, read back, scrub, check.
check "mkfs.btrfs across SATA and NVMe" \
	mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs failed"
mkdir -p /mnt/t
check "mount the two-device filesystem" mount -t btrfs "$SLOW_DEV" /mnt/t || bail "mount failed"
is "btrfs sees two devices" \
	"$(btrfs filesystem show /mnt/t | grep -c 'devid ')" 2
make_files /mnt/t 8 4096K
make_files /mnt/t/small 64 12K
sync
(cd /mnt/t && find . -type f | sort | xargs sha256sum) >/tmp/sums
echo 3 >/proc/sys/vm/drop_caches
check "files read back after dropping caches match their checksums" \
	sh -c 'cd /mnt/t && sha256sum -c -s /tmp/sums'
check "btrfs scrub finds no errors" scrub_clean /mnt/t
check "unmount" umount /mnt/t
check "btrfs check is clean" btrfs check "$SLOW_DEV"
done_testing
