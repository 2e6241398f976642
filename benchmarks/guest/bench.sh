#!/bin/sh
# shellcheck shell=dash
# The benchmarks, run inside the guest by benchmarks/run. Results go to
# the output as lines "@@JSON <name> <json>"; progress as "# ..." lines.
# HEAT_quick=1 (heat.quick=1 on the kernel command line) makes a smoke
# run of a few minutes with small sizes.
. /test/lib/guest.sh

MNT=/mnt/b
mkdir -p $MNT
QUICK=${HEAT_quick:-0}
if [ "$QUICK" = 1 ]; then
	DATA_MB=192 FAST_MB=128 RUNTIME=4 PASSES=2 OVER_RT=3 SMALL=300
	SCALE="10 100 1000"
else
	DATA_MB=1536 FAST_MB=1024 RUNTIME=20 PASSES=4 OVER_RT=10 SMALL=3000
	SCALE="10 100 1000 10000 100000"
fi
ZIPF=1.2
t_start=$(date +%s)

# Milliseconds since boot (busybox date has no %N).
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
say() { echo "# [$(($(date +%s) - t_start)) s] $*"; }
emit() { echo "@@JSON $1 $2"; }

sectors_read() { awk '{ print $3 }' /sys/block/$1/stat; }

# measure LABEL [OFFSET%]: zipf 4 KiB QD1 direct random reads of $MNT/data
# for $RUNTIME s; emits one JSON object with the latency percentiles, IOPS,
# the NVMe share of read sectors, and the per-second latency series.
measure() {
	local label=$1 off=${2:-0} s0 n0 s1 n1
	s0=$(sectors_read sda)
	n0=$(sectors_read nvme0n1)
	rm -f /tmp/lat_clat.1.log
	fio --name=hot --filename=$MNT/data --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --iodepth=1 --random_distribution=zipf:$ZIPF \
		--offset=$off% --size=$((100 - off))% \
		--time_based --runtime=$RUNTIME --norandommap \
		--lat_percentiles=1 --percentile_list=50:99:99.9 \
		--write_lat_log=/tmp/lat --log_avg_msec=1000 \
		--output-format=json >/tmp/fio.json 2>/dev/null
	s1=$(sectors_read sda)
	n1=$(sectors_read nvme0n1)
	# Seconds into the phase; render.py lays the phases end to end.
	series=$(awk -F', *' '{ printf "%s[%d,%.1f]", (NR > 1 ? "," : ""), $1 / 1000, $2 / 1000 }' \
		/tmp/lat_clat.1.log 2>/dev/null)
	jq -c --arg phase "$label" --argjson sata $((s1 - s0)) --argjson nvme $((n1 - n0)) \
		--argjson series "[$series]" '.jobs[0].read as $r | {
			label: $phase,
			iops: ($r.iops | floor),
			p50_us: ($r.lat_ns.percentile["50.000000"] / 1000 | floor),
			p99_us: ($r.lat_ns.percentile["99.000000"] / 1000 | floor),
			p999_us: ($r.lat_ns.percentile["99.900000"] / 1000 | floor),
			nvme_read_share: (if ($sata + $nvme) > 0 then ($nvme / ($sata + $nvme) * 1000 | floor) / 1000 else 0 end),
			series: $series }' /tmp/fio.json
}

write_data() {
	dd if=/dev/urandom of=$MNT/data bs=1M count=$DATA_MB 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$2/mover_stats"; }

# ---- 1. hot-set latency and convergence ----
say "hot set: $DATA_MB MiB data, $FAST_MB MiB fast tier, zipf:$ZIPF, ${RUNTIME} s per phase"
phases=""
add() { phases="$phases${phases:+,}$1"; }

say "all-SATA btrfs"
mkfs.btrfs -q -f -K "$SLOW_DEV" && mount "$SLOW_DEV" $MNT && write_data
add "$(measure all-SATA)"
umount $MNT

say "all-NVMe btrfs"
mkfs.btrfs -q -f -K "$FAST_DEV" && mount "$FAST_DEV" $MNT && write_data
add "$(measure all-NVMe)"
umount $MNT

say "tiered btrfs (SATA + $FAST_MB MiB of NVMe), -o hotdatamove"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT
btrfs filesystem resize 2:${FAST_MB}M $MNT >/dev/null
uuid=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
H=/sys/fs/btrfs/$uuid/hot
write_data
add "$(measure tiered-before)"
moved=""
p=1
while [ $p -le $PASSES ]; do
	b0=$(($(stat_of promoted_bytes $H) + $(stat_of demoted_bytes $H)))
	echo 1 >$H/mover_run
	b1=$(($(stat_of promoted_bytes $H) + $(stat_of demoted_bytes $H)))
	moved="$moved${moved:+,}{\"pass\":$p,\"bytes\":$((b1 - b0)),\"ms\":$(stat_of last_pass_ms $H)}"
	say "pass $p moved $((b1 - b0)) bytes"
	add "$(measure tiered-after-pass-$p)"
	p=$((p + 1))
done
say "hot set shifts to the second half of the file"
add "$(measure tiered-shifted 50)"
p=1
shift_passes=""
while [ $p -le $PASSES ]; do
	echo 1 >$H/mover_run
	r=$(measure tiered-shifted-after-pass-$p 50)
	add "$r"
	shift_passes="$shift_passes${shift_passes:+,}$(echo "$r" | jq -c '{pass: '$p', p50_us, p99_us}')"
	p=$((p + 1))
done
umount $MNT

say "dm-cache (smq) over the same devices: $FAST_MB MiB cache, 256 KiB blocks"
size=$(blockdev --getsz "$SLOW_DEV")
dmsetup create bmeta --table "0 32768 linear $FAST_DEV 0"
dmsetup create bcache --table "0 $((FAST_MB * 2048)) linear $FAST_DEV 32768"
dmsetup mknodes		# no udev in the guest
dd if=/dev/zero of=/dev/mapper/bmeta bs=1M count=16 oflag=direct 2>/dev/null
dmsetup create bcached --table "0 $size cache /dev/mapper/bmeta /dev/mapper/bcache $SLOW_DEV 512 1 writethrough smq 0" ||
	say "dm-cache could not be set up"
dmsetup mknodes
mkfs.btrfs -q -f -K /dev/mapper/bcached && mount /dev/mapper/bcached $MNT && write_data
add "$(measure dm-cache-cold)"
p=1
while [ $p -le $PASSES ]; do
	add "$(measure dm-cache-warm-$p)"
	p=$((p + 1))
done
umount $MNT
dmsetup status bcached | sed 's/^/# dm-cache status: /'
dmsetup remove bcached
dmsetup remove bcache
dmsetup remove bmeta

emit hotset "{\"data_mb\":$DATA_MB,\"fast_mb\":$FAST_MB,\"zipf\":$ZIPF,\"runtime_s\":$RUNTIME,\"phases\":[$phases],\"passes\":[$moved],\"shift\":[$shift_passes]}"

# ---- 2. tracking overhead ----
say "tracking overhead on an all-NVMe btrfs: off, hotdatatrack, hotdatamove (idle)"
over=""
for opt in none hotdatatrack hotdatamove; do
	mkfs.btrfs -q -f -K "$FAST_DEV"
	if [ $opt = none ]; then mount "$FAST_DEV" $MNT; else mount -o $opt "$FAST_DEV" $MNT; fi
	uuid=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
	[ $opt = hotdatamove ] && echo 86400 >/sys/fs/btrfs/$uuid/hot/mover_interval
	dd if=/dev/urandom of=$MNT/r bs=1M count=128 2>/dev/null
	sync
	fio --name=r --filename=$MNT/r --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--time_based --runtime=$OVER_RT --output-format=json >/tmp/r.json 2>/dev/null
	fio --name=w --filename=$MNT/w --rw=write --bs=1M --size=256M --end_fsync=1 \
		--ioengine=psync --output-format=json >/tmp/w.json 2>/dev/null
	mkdir $MNT/small
	t0=$(now_ms)
	i=0
	while [ $i -lt $SMALL ]; do echo "file $i" >$MNT/small/f$i; i=$((i + 1)); done
	sync
	cat $MNT/small/* >/dev/null
	rm -r $MNT/small
	sync
	t1=$(now_ms)
	over="$over${over:+,}$(jq -c -n --arg mount $opt --slurpfile r /tmp/r.json --slurpfile w /tmp/w.json \
		--argjson small_ms $((t1 - t0)) '{
			mount: $mount,
			randread_iops: ($r[0].jobs[0].read.iops | floor),
			randread_p50_us: ($r[0].jobs[0].read.clat_ns.percentile["50.000000"] / 1000 | floor),
			seqwrite_mbps: ($w[0].jobs[0].write.bw / 1024 | floor),
			smallfiles_ms: $small_ms }')"
	umount $MNT
done
emit overhead "{\"small_files\":$SMALL,\"runtime_s\":$OVER_RT,\"results\":[$over]}"

# ---- 3. memory and scale ----
say "memory and scale: 4 KiB ranges, one read each"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT
uuid=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
H=/sys/fs/btrfs/$uuid/hot
echo 4096 >$H/range_size
echo 1G >$H/mem_limit
scale=""
total=0
for n in $SCALE; do
	add_n=$((n - total))
	dd if=/dev/zero of=$MNT/s$n bs=4k count=$add_n 2>/dev/null
	sync
	# 1 MiB direct reads: one access to each of 256 ranges per I/O.
	dd if=$MNT/s$n of=/dev/null bs=1M iflag=direct 2>/dev/null
	total=$n
	echo 1 >$H/mover_run
	scale="$scale${scale:+,}{\"target\":$n,\"nr_ranges\":$(cat $H/nr_ranges),\"nr_inodes\":$(cat $H/nr_inodes),\"mem_used\":$(cat $H/mem_used),\"pass_ms\":$(stat_of last_pass_ms $H)}"
	say "$(cat $H/nr_ranges) ranges tracked, $(cat $H/mem_used) bytes"
done
umount $MNT
emit scale "{\"range_size\":4096,\"points\":[$scale]}"
say "done"
