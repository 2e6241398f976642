#!/bin/sh
# shellcheck shell=dash
# DRAFT (issue #11), not yet run: the timeline benchmark, one continuous
# measurement per setup with the mover (or the cache) working on its own
# while the workload runs.
#
# Setups over the same SATA disk and NVMe: tiered btrfs (-o hotdatamove,
# mover_interval $MOVER_S), dm-cache smq writethrough with 256 KiB blocks
# and with blocks of our range size, and bcache writethrough; each cache
# gets the fast data space the tiered setup reports (fast_capacity_bytes),
# so that all have the same room for data. all-SATA and all-NVMe btrfs get
# one steady measurement each (they do not converge).
#
# A timeline is a run of fio segments back to back on one time axis:
#   W1  zipf:$ZIPF 4 KiB QD1 direct random reads over the first half of
#       the data file, for $T1 s;
#   W4  one sequential read of all the data (a backup), then W1 again for
#       $T2 s: what the scan did to the hit ratio;
#   W3  the hot set moves to the second half, for $T3 s.
# fio logs every I/O; intervals of $INT s give p50, p99 and IOPS. A sampler
# reads the completed reads (field 1) and the sectors written (field 7) of
# every block device each interval: the hit ratio is the fast device's
# share of the reads of the data device, counted in requests, not sectors.
# Every segment has its own fio seed, recorded.
#
# Output: "@@JSON timeline <json>" per setup, "# ..." progress lines.
. /test/lib/guest.sh

MNT=/mnt/b
mkdir -p $MNT
QUICK=${HEAT_quick:-0}
if [ "$QUICK" = 1 ]; then
	DATA_MB=192 FAST_MB=128 T1=30 T2=10 T3=30 INT=5 MOVER_S=10
else
	DATA_MB=1536 FAST_MB=1024 T1=300 T2=60 T3=300 INT=10 MOVER_S=30
fi
ZIPF=1.2
SEED=${HEAT_seed:-$(date +%s)}
t_start=$(date +%s)

say() { echo "# [$(($(date +%s) - t_start)) s] $*"; }
emit() { echo "@@JSON $1 $2"; }
uptime_s() { awk '{ printf "%d\n", $1 }' /proc/uptime; }

# ---- the sampler: one line per interval, "t dev reads wsectors ..." ----
sampler_start() {
	: >/tmp/samples
	(
		while [ ! -e /tmp/sampler.stop ]; do
			t=$(uptime_s)
			for d in /sys/block/*; do
				awk -v t="$t" -v d="${d##*/}" '{ print t, d, $1, $7 }' "$d/stat"
			done >>/tmp/samples
			sleep "$INT"
		done
	) &
	SAMPLER=$!
}

sampler_stop() {
	touch /tmp/sampler.stop
	wait "$SAMPLER"
	rm -f /tmp/sampler.stop
}

# ---- fio segments ----
# segment NAME FILE OFFSET% SIZE% SECONDS: zipf random reads; appends the
# per-I/O log to /tmp/lat.all with the segment's start on the common axis.
segment() {
	local name=$1 file=$2 off=$3 size=$4 secs=$5 t0
	SEED=$((SEED + 1))
	t0=$(uptime_s)
	rm -f /tmp/seg_lat.1.log
	fio --name="$name" --filename="$file" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --iodepth=1 --random_distribution=zipf:$ZIPF \
		--offset="$off%" --size="$size%" --norandommap --randrepeat=0 \
		--randseed=$SEED --time_based --runtime="$secs" \
		--write_lat_log=/tmp/seg --log_avg_msec=0 >/dev/null 2>&1
	# fio's time is in ms from the segment's start; shift it to uptime.
	awk -F', *' -v t0="$t0" '{ printf "%d %d\n", t0 + $1 / 1000, $2 / 1000 }' \
		/tmp/seg_lat.1.log >>/tmp/lat.all
	SEGS="$SEGS${SEGS:+,}{\"name\":\"$name\",\"start\":$t0,\"seconds\":$secs,\"seed\":$SEED,\"offset_pct\":$off}"
}

# scan FILE: one sequential buffered read of all of it, timed.
scan() {
	local t0
	t0=$(uptime_s)
	dd if="$1" of=/dev/null bs=1M 2>/dev/null
	SEGS="$SEGS${SEGS:+,}{\"name\":\"scan\",\"start\":$t0,\"seconds\":$(($(uptime_s) - t0))}"
}

# intervals DATA_DEV FAST_DEV TOP_DEV: per interval of the latency log,
# "[t, iops, p50_us, p99_us, hit]" as JSON. TOP_DEV is the device btrfs
# reads (the cached device; for tiered btrfs the sum of the two disks).
intervals() {
	local data=$1 fast=$2 top=$3
	awk -v iv="$INT" '{ print int($1 / iv) * iv, $2 }' /tmp/lat.all |
		sort -k1,1n -k2,2n >/tmp/lat.sorted
	awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' /tmp/lat.sorted |
		sort -n >/tmp/lat.counts
	# Reads per device and interval, from the sampler's counters.
	awk -v iv="$INT" -v data="$data" -v fast="$fast" -v top="$top" '
		$2 == data || $2 == fast || $2 == top {
			k = int($1 / iv) * iv
			if (!(($2, "first") in seen)) { prev[$2] = $3; seen[$2, "first"] = 1; next }
			d[k, $2] += $3 - prev[$2]; prev[$2] = $3; ks[k] = 1
		}
		END {
			for (k in ks) {
				t = (top == "sum") ? d[k, data] + d[k, fast] : d[k, top]
				printf "%d %s\n", k, (t > 0 ? sprintf("%.3f", d[k, fast] / t) : "null")
			}
		}' /tmp/samples | sort -n >/tmp/hits
	awk 'FILENAME == "/tmp/lat.counts" { n[$1] = $2; next }
		FILENAME == "/tmp/hits" { h[$1] = $2; next }
		{
			if ($1 != cur) { cur = $1; i = 0 }
			i++
			if (i == int((n[cur] + 1) * 0.5)) p50[cur] = $2
			if (i == int((n[cur] + 1) * 0.99)) p99[cur] = $2
			ts[cur] = 1
		}
		END {
			for (t in ts)
				printf "%d [%d,%.1f,%d,%d,%s]\n", t, t, n[t] / iv, p50[t], p99[t], \
					(t in h ? h[t] : "null")
		}' iv="$INT" /tmp/lat.counts /tmp/hits /tmp/lat.sorted |
		sort -n | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }'
}

# written DEV: sectors written to DEV over the whole timeline.
written() {
	awk -v d="$1" '$2 == d { if (!f) { a = $4; f = 1 } b = $4 } END { print b - a + 0 }' \
		/tmp/samples
}

write_data() {
	dd if=/dev/urandom of=$MNT/data bs=1M count=$DATA_MB 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# timeline NAME DATA_DEV FAST_DEV TOP_DEV [EXTRA_JSON]
timeline() {
	local name=$1 data=$2 fast=$3 top=$4 extra=${5:-}
	SEGS=""
	rm -f /tmp/lat.all
	sampler_start
	segment w1 $MNT/data 0 50 "$T1"
	scan $MNT/data
	segment w1-after-scan $MNT/data 0 50 "$T2"
	segment w3-shifted $MNT/data 50 50 "$T3"
	sampler_stop
	emit timeline "{\"setup\":\"$name\",\"interval_s\":$INT,\"segments\":[$SEGS],\"fast_written_sectors\":$(written "$fast"),\"points\":[$(intervals "$data" "$fast" "$top")]${extra:+,$extra}}"
}

# ---- tiered btrfs ----
say "tiered btrfs: $DATA_MB MiB of data, $FAST_MB MiB of NVMe, mover every $MOVER_S s"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || exit 1
mount -o hotdatamove "$SLOW_DEV" $MNT || exit 1
btrfs filesystem resize 2:${FAST_MB}M $MNT >/dev/null
uuid=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
H=/sys/fs/btrfs/$uuid/hot
echo 86400 >"$H/mover_interval"
write_data
echo "$MOVER_S" >"$H/mover_interval"
fast_cap=$(awk '$1 == "fast_capacity_bytes" { print $2 }' "$H/mover_stats")
range=$(cat $H/range_size)
timeline tiered sda nvme0n1 sum \
	"\"fast_capacity_bytes\":$fast_cap,\"range_size\":$range,\"mover_interval_s\":$MOVER_S,\"mover_stats\":\"$(tr '\n' ' ' <$H/mover_stats)\""
umount $MNT

# ---- dm-cache, two block sizes, the same fast data space ----
cache_mb=$((fast_cap >> 20))
size=$(blockdev --getsz "$SLOW_DEV")
for blk in 512 $((range / 512)); do
	say "dm-cache smq writethrough: $cache_mb MiB cache, $((blk / 2)) KiB blocks"
	dmsetup create bmeta --table "0 32768 linear $FAST_DEV 0"
	dmsetup create bcdata --table "0 $((cache_mb * 2048)) linear $FAST_DEV 32768"
	dmsetup mknodes
	dd if=/dev/zero of=/dev/mapper/bmeta bs=1M count=16 oflag=direct 2>/dev/null
	dmsetup create bcached --table "0 $size cache /dev/mapper/bmeta /dev/mapper/bcdata $SLOW_DEV $blk 1 writethrough smq 0"
	dmsetup mknodes
	top=$(basename "$(readlink -f /dev/mapper/bcached)")
	mkfs.btrfs -q -f -K /dev/mapper/bcached && mount /dev/mapper/bcached $MNT && write_data
	timeline "dm-cache-$((blk / 2))k" sda nvme0n1 "$top" \
		"\"cache_bytes\":$((cache_mb << 20)),\"block_bytes\":$((blk * 512)),\"dmsetup_status\":\"$(dmsetup status bcached)\""
	umount $MNT
	dmsetup remove bcached
	dmsetup remove bcdata
	dmsetup remove bmeta
done

# ---- bcache ----
if [ -d /sys/fs/bcache ] && command -v make-bcache >/dev/null; then
	say "bcache writethrough: $cache_mb MiB cache"
	dmsetup create bcdata --table "0 $((cache_mb * 2048)) linear $FAST_DEV 0"
	dmsetup mknodes
	wipefs -a "$SLOW_DEV" /dev/mapper/bcdata >/dev/null 2>&1
	make-bcache --wipe-bcache -B "$SLOW_DEV" -C /dev/mapper/bcdata >/dev/null
	echo "$SLOW_DEV" >/sys/fs/bcache/register 2>/dev/null
	echo /dev/mapper/bcdata >/sys/fs/bcache/register 2>/dev/null
	i=0
	while [ ! -b /dev/bcache0 ] && [ $i -lt 50 ]; do
		mdev -s 2>/dev/null
		sleep 0.2
		i=$((i + 1))
	done
	mkfs.btrfs -q -f -K /dev/bcache0 && mount /dev/bcache0 $MNT && write_data
	timeline bcache sda nvme0n1 bcache0 \
		"\"cache_bytes\":$((cache_mb << 20)),\"cache_hits\":$(cat /sys/block/bcache0/bcache/stats_total/cache_hits),\"cache_misses\":$(cat /sys/block/bcache0/bcache/stats_total/cache_misses)"
	umount $MNT
	echo 1 >/sys/block/bcache0/bcache/stop
	for s in /sys/fs/bcache/*/unregister; do echo 1 >"$s"; done
	sleep 1
	dmsetup remove bcdata
else
	say "bcache: not in this kernel or make-bcache missing, skipped"
fi
say "done"
