#!/bin/sh
# shellcheck shell=dash
# The overhead and scale benchmarks (the timelines are timeline.sh), run
# inside the guest by benchmarks/run. Results go to
# the output as lines "@@JSON <name> <json>"; progress as "# ..." lines.
# HEAT_quick=1 (heat.quick=1 on the kernel command line) makes a smoke
# run of a few minutes with small sizes.
. /test/lib/guest.sh

MNT=/mnt/b
mkdir -p $MNT
QUICK=${HEAT_quick:-0}
if [ "$QUICK" = 1 ]; then
	OVER_RT=2 SMALL=200 ROUNDS=2 OVER_MB=32
	SCALE="10 100 1000"
else
	OVER_RT=10 SMALL=3000 ROUNDS=6 OVER_MB=128
	SCALE="10 100 1000 10000 100000 1000000"
fi

# Milliseconds since boot (busybox date has no %N).
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }


# ---- 2. tracking overhead ----
# $ROUNDS interleaved rounds of (none, hotdatatrack, hotdatamove), the
# order rotated each round so that no mount always runs first or last;
# every run on a fresh all-NVMe btrfs, so the CPU cost is not hidden
# behind a slow disk. render.py reports medians and the spread.
say "tracking overhead on an all-NVMe btrfs: $ROUNDS rounds of off, hotdatatrack, hotdatamove (idle)"
over=""
r=0
while [ $r -lt $ROUNDS ]; do
	case $((r % 3)) in
	0) order="none hotdatatrack hotdatamove" ;;
	1) order="hotdatatrack hotdatamove none" ;;
	2) order="hotdatamove none hotdatatrack" ;;
	esac
	for opt in $order; do
		mkfs.btrfs -q -f -K "$FAST_DEV"
		if [ $opt = none ]; then mount "$FAST_DEV" $MNT; else mount -o $opt "$FAST_DEV" $MNT; fi
		[ $opt = hotdatamove ] && echo 86400 >"$(hot_dir $MNT)/mover_interval"
		dd if=/dev/urandom of=$MNT/r bs=1M count=$OVER_MB 2>/dev/null
		sync
		fio --name=r --filename=$MNT/r --rw=randread --bs=4k --direct=1 --ioengine=psync \
			--randrepeat=0 --time_based --runtime=$OVER_RT --output-format=json \
			>/tmp/r.json 2>/dev/null
		# Two jobs reading the same file: both take the locks of its
		# inode item and of the buckets its ranges are in.
		fio --name=r2 --filename=$MNT/r --rw=randread --bs=4k --direct=1 --ioengine=psync \
			--numjobs=2 --group_reporting --randrepeat=0 --time_based --runtime=$OVER_RT \
			--output-format=json >/tmp/r2.json 2>/dev/null
		fio --name=w --filename=$MNT/w --rw=write --bs=1M --size=$((OVER_MB * 2))M --end_fsync=1 \
			--ioengine=psync --output-format=json >/tmp/w.json 2>/dev/null
		# Small files: create and sync, read with cold caches, delete.
		mkdir $MNT/small
		t0=$(now_ms)
		i=0
		while [ $i -lt $SMALL ]; do echo "file $i" >$MNT/small/f$i; i=$((i + 1)); done
		sync
		t1=$(now_ms)
		echo 3 >/proc/sys/vm/drop_caches
		t2=$(now_ms)
		cat $MNT/small/* >/dev/null
		rm -r $MNT/small
		sync
		t3=$(now_ms)
		over="$over${over:+,}$(jq -c -n --arg mount $opt --argjson round $r \
			--slurpfile r /tmp/r.json --slurpfile r2 /tmp/r2.json --slurpfile w /tmp/w.json \
			--argjson small_ms $((t1 - t0 + t3 - t2)) '{
				round: $round,
				mount: $mount,
				randread_iops: ($r[0].jobs[0].read.iops | floor),
				randread_p50_us: ($r[0].jobs[0].read.clat_ns.percentile["50.000000"] / 1000 | floor),
				randread_cpu_ns: (($r[0].jobs[0].usr_cpu + $r[0].jobs[0].sys_cpu) * $r[0].jobs[0].job_runtime * 10000
					/ ([$r[0].jobs[0].read.total_ios, 1] | max) | floor),
				randread2_iops: ($r2[0].jobs[0].read.iops | floor),
				seqwrite_mbps: ($w[0].jobs[0].write.bw / 1024 | floor),
				smallfiles_ms: $small_ms }')"
		umount $MNT
	done
	say "overhead round $((r + 1)) of $ROUNDS done"
	r=$((r + 1))
done
emit overhead "{\"rounds\":$ROUNDS,\"file_mb\":$OVER_MB,\"small_files\":$SMALL,\"runtime_s\":$OVER_RT,\"results\":[$over]}"

# ---- 3. memory and scale ----
say "memory and scale: 4 KiB ranges, one read each, up to $(echo $SCALE | awk '{ print $NF }')"
mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV"
mount -o hotdatamove "$SLOW_DEV" $MNT
H=$(hot_dir $MNT)
echo 4096 >$H/range_size
# Room for a million ranges; at most half of the guest's memory.
echo 512M >$H/mem_limit || exit 1
scale=""
total=0
for n in $SCALE; do
	# A sparse file (a million ranges are 4 GiB): tracking counts the
	# reads of holes as of data, and no disk time hides the CPU's.
	truncate -s $(((n - total) * 4096)) $MNT/s$n
	# 1 MiB direct reads: one access to each of 256 ranges per I/O.
	dd if=$MNT/s$n of=/dev/null bs=1M iflag=direct 2>/dev/null
	total=$n
	echo 1 >$H/mover_run
	# The slab's own count of range items, to check the tracker's
	# accounting against (the guest boots with slab_nomerge): objects in
	# use, object size, and bytes of slab pages per object.
	slab=$(awk '$1 == "btrfs_hot_range" {
		printf "\"slab_objs\":%d,\"slab_objsize\":%d,\"slab_bytes\":%d", $2, $4, $2 * $6 * 4096 / $5 }' /proc/slabinfo)
	scale="$scale${scale:+,}{\"target\":$n,\"nr_ranges\":$(cat $H/nr_ranges),\"nr_inodes\":$(cat $H/nr_inodes),\"mem_used\":$(cat $H/mem_used),\"pass_ms\":$(mover_stat last_pass_ms $H)${slab:+,$slab}}"
	say "$(cat $H/nr_ranges) ranges tracked, $(cat $H/mem_used) bytes; slab: ${slab:-none}"
done

# Reads beside aging: 4 KiB direct reads of a sparse file, each making a
# new range in the coldest bucket, the one that aging takes apart at
# length while everything above is tracked; alone, then with aging
# passes over the whole index back to back. Holes, so that the latency
# is the I/O path's CPU and any wait on a bucket lock, not a disk's.
truncate -s 1G $MNT/io
beside=""
for mode in alone aging; do
	rm -f /tmp/aging.n
	if [ $mode = aging ]; then
		touch /tmp/aging
		(n=0; while [ -e /tmp/aging ]; do echo 1 >$H/age_now; n=$((n + 1)); done; echo $n >/tmp/aging.n) &
	fi
	fio --name=io --filename=$MNT/io --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--randrepeat=0 --time_based --runtime=$OVER_RT --output-format=json \
		>/tmp/io.json 2>/dev/null
	rm -f /tmp/aging
	wait
	beside="$beside${beside:+,}$(jq -c --arg mode $mode --argjson ages "$(cat /tmp/aging.n 2>/dev/null || echo 0)" \
		'.jobs[0].read as $r | {mode: $mode, ages: $ages, ios: $r.total_ios,
		 p50_ns: $r.clat_ns.percentile["50.000000"], p99_ns: $r.clat_ns.percentile["99.000000"],
		 p999_ns: $r.clat_ns.percentile["99.900000"], max_ns: $r.clat_ns.max}' /tmp/io.json)"
	say "reads beside aging ($mode): $(echo "$beside" | tail -c 200)"
done
umount $MNT
emit scale "{\"range_size\":4096,\"points\":[$scale],\"beside_aging\":[$beside]}"
say "done"
