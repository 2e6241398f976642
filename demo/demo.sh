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

# hot_read DIR: 5 s of QD1 4 KiB random direct reads of DIR/f0..f3;
# prints "IOPS P50 P99" (microseconds).
hot_read() {
	fio --name=hot --directory="$1" --filename=f0:f1:f2:f3 \
		--direct=1 --rw=randread --bs=4k --iodepth=1 --ioengine=psync \
		--time_based --runtime=5 --minimal --terse-version=3 |
		awk -F';' '{
			for (i = 18; i <= 37; i++) {
				split($i, kv, "=")
				if (kv[1] == "50.000000%") p50 = kv[2]
				if (kv[1] == "99.000000%") p99 = kv[2]
			}
			printf "%d %d %d\n", $8, p50, p99
		}'
}
show() { # show LABEL "IOPS P50 P99"
	set -- "$1" $2
	printf '  %-34s %6s IOPS  p50 %6s us  p99 %6s us\n' "$1" "$2" "$3" "$4"
}

# baseline DEV: the same hot set on a btrfs on DEV alone.
baseline() {
	mkfs.btrfs -q -f -K "$1" >/dev/null
	mount "$1" /mnt/heat
	make_files /mnt/heat/data 4 4096K
	sync
	echo 3 >/proc/sys/vm/drop_caches
	r=$(hot_read /mnt/heat/data)
	umount /mnt/heat
	echo "$r"
}

mkdir -p /mnt/heat
step "The floor and the ceiling: the hot set on an all-SATA and an all-NVMe btrfs"
sata=$(baseline "$SLOW_DEV")
show "all-SATA btrfs" "$sata"
nvme=$(baseline "$FAST_DEV")
show "all-NVMe btrfs" "$nvme"

step "One btrfs across both disks (data single, metadata raid1)"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV"
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
for d in 1 2; do
	[ -e /sys/fs/btrfs/$uuid/devinfo/$d/tier ] &&
		echo "  devid $d: $(cat /sys/fs/btrfs/$uuid/devinfo/$d/tier) tier"
done

step "A data set: 32 files of 4 MiB; the first 4 are the hot set"
make_files /mnt/heat/data 32 4096K
sync
echo 3 >/proc/sys/vm/drop_caches

step "Hot-set read latency, where the data was first written"
before=$(hot_read /mnt/heat/data)
show "tiered btrfs, before a pass" "$before"

step "What the filesystem learnt: the hottest files (heatctl top)"
heatctl top -n 6 /mnt/heat | sed 's/^/  /'

step "Where the files live (heatctl where: FIEMAP + chunk tree)"
heatctl where /mnt/heat/data/f0 /mnt/heat/data/f1 /mnt/heat/data/f4 /mnt/heat/data/f5 | sed 's/^/  /'

if [ "$moving" = 0 ]; then
	step "Migration"
	echo "  the mover (migrate/) is not in this kernel, see ROADMAP.md:"
	echo "  the hot set stays where it was written"
	umount /mnt/heat
	echo
	echo "Demo done."
	exit 0
fi

step "One mover pass now (heatctl migrate)"
heatctl migrate /mnt/heat | sed 's/^/  /'

step "Where the files live now"
heatctl where /mnt/heat/data/f0 /mnt/heat/data/f1 /mnt/heat/data/f4 /mnt/heat/data/f5 | sed 's/^/  /'
echo "  (f0-f3 were read; f4 and f5 were only written and stay on SATA)"

step "Hot-set read latency after the pass"
echo 3 >/proc/sys/vm/drop_caches
after=$(hot_read /mnt/heat/data)

step "Summary: 4 KiB random reads of the hot set at queue depth 1"
show "all-SATA btrfs" "$sata"
show "tiered btrfs, before the pass" "$before"
show "tiered btrfs, after the pass" "$after"
show "all-NVMe btrfs" "$nvme"
set -- $before
b50=$2
set -- $after
[ "$2" -gt 0 ] && echo "  p50 improved ${b50} us -> ${2} us ($((b50 / $2))x)"

step "The mover's state (heatctl status)"
heatctl status /mnt/heat | sed 's/^/  /'
umount /mnt/heat
echo
echo "Demo done."
