#!/bin/sh
# The demo, run inside the guest by 'make demo': the two tiers, a btrfs
# across both, a skewed read workload, and the read latency of its hot set.
# Each step says what it shows.
. /test/lib/guest.sh

step() { echo; echo "==> $*"; }

step "Topology: a slow SATA disk and a fast NVMe disk"
for d in "$SLOW_DEV" "$FAST_DEV"; do
	b=${d#/dev/}
	printf '  %-14s %6s MiB  rotational=%s\n' "$d" \
		$(($(cat /sys/block/$b/size) / 2048)) "$(cat /sys/block/$b/queue/rotational)"
done

step "Raw 4 KiB random read latency at queue depth 1"
printf '  SATA %8s us\n' "$(qd1_read_lat_us "$SLOW_DEV" 3)"
printf '  NVMe %8s us\n' "$(qd1_read_lat_us "$FAST_DEV" 3)"

step "One btrfs across both disks (data single, metadata raid1)"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV"
mkdir -p /mnt/heat
if mount -o hotdatamove "$SLOW_DEV" /mnt/heat 2>/dev/null; then
	echo "  mounted with -o hotdatamove"
else
	mount "$SLOW_DEV" /mnt/heat
	echo "  this kernel does not know -o hotdatamove: mounted without it"
fi
uuid=$(btrfs filesystem show /mnt/heat | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
# The mover (migrate/) adds its knobs next to the tracking ones.
moving=0
[ -e /sys/fs/btrfs/$uuid/hot/mover_interval ] && moving=1
btrfs filesystem show /mnt/heat | sed 's/^/  /'

step "A data set: 32 files of 4 MiB; the first 4 are the hot set"
make_files /mnt/heat/data 32 4096K
sync
echo 3 >/proc/sys/vm/drop_caches

hot_read() {
	fio --name=hot --directory=/mnt/heat/data --filename=f0:f1:f2:f3 \
		--direct=1 --rw=randread --bs=4k --iodepth=1 --ioengine=psync \
		--time_based --runtime=5 --minimal --terse-version=3 |
		awk -F';' '{
			for (i = 18; i <= 37; i++) {
				split($i, kv, "=")
				if (kv[1] == "50.000000%") p50 = kv[2]
				if (kv[1] == "99.000000%") p99 = kv[2]
			}
			printf "  hot-set reads: %d IOPS, p50 %d us, p99 %d us\n", $8, p50, p99
		}'
}

step "Hot-set read latency, where the data was first written"
hot_read

step "What the filesystem learnt (heatctl get-info --live)"
for f in f0 f1 f2 f3 f4 f5; do
	heatctl get-info --json --live /mnt/heat/data/$f | jq -r \
		'.[0] | "  \(.path): \(.reads) reads, \(.writes) writes, temperature \(.temperature)/255"'
done
echo "  (f0-f3 are the hot set; f4 and f5 were only written)"

if [ "$moving" = 0 ]; then
	step "Migration"
	echo "  the mover (migrate/) is not in this kernel yet, see ROADMAP.md:"
	echo "  the hot set stays where it was written"
fi
umount /mnt/heat
echo
echo "Demo done."
