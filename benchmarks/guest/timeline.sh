#!/bin/sh
# shellcheck shell=dash
# The timeline benchmark (issue #11), run inside the guest by
# benchmarks/run: every setup gets the same I/O for the same time on one
# time axis, and the mover (or the cache) works on its own while it runs.
#
# Setups, over the same SATA disk and NVMe:
#   all-SATA, all-NVMe   btrfs on one device: one steady measurement per
#                        workload (nothing converges);
#   tiered               btrfs over both, -o hotdatamove, the mover on its
#                        own timer (mover_interval $MOVER_S s);
#   dm-cache-256k        dm-cache smq writethrough, 256 KiB blocks;
#   dm-cache-<range>     the same with blocks of our range size, so that
#                        granularity and policy are not confused;
#   bcache               bcache writethrough, default sequential_cutoff.
# The caches get the fast data space the tiered setup reports
# (mover_stats fast_capacity_bytes: its NVMe less the metadata and system
# chunks and the room kept for metadata), so all have the same room.
#
# Workloads, 4 KiB direct reads at queue depth 1 (psync):
#   W1  zipf:$ZIPF over the first half of one data file for $T1 s; then
#   W4  one sequential buffered read of the whole file (a backup), W1
#       again for $T2 s;
#   W3  the hot set moves to the second half, for $T3 s: the fast tier
#       cannot hold both hot sets, following means displacing;
#   W6  70/30 random reads and writes over W1's data, $T6 s;
#   W2  $W2_FILES files of $W2_MB MiB, a zipf choice of file, uniform
#       reads inside it, $TW2 s;
#   and W1 and W6 once more with a read-only snapshot of the data's
#   subvolume taken before the timeline (not in the quick run).
# W5 (wear) is in every record: bytes written to each device over the
# timeline, and for tiered the bytes the mover moved.
#
# Each timeline is cut into $INT s intervals: IOPS, p50 and p99 from
# fio's per-I/O latency log (buckets within 1 %),
# and the read hit ratio from completed read requests (field 1 of
# /sys/block/*/stat): reads of the device that holds the fast copy over
# reads of the device the filesystem sits on. dm-cache's and bcache's own
# hit counters are recorded as a cross-check. An interval in which the
# sampler took no sample (it can stall under TCG; sampler_max_gap_s says
# how long) has no hit ratio rather than a wrong one. Every fio run has
# its own seed, recorded.
#
# Output: "@@JSON timeline <json>" per timeline, "@@JSON setup <json>"
# once, and "# ..." progress lines.
. /test/lib/guest.sh

MNT=/mnt/b
mkdir -p $MNT
QUICK=${HEAT_quick:-0}
if [ "$QUICK" = 1 ]; then
	# A smoke run of the machinery (make test): nothing here converges.
	# btrfs does not resize a device below 256 MiB.
	DATA_MB=64 FAST_MB=512 W2_FILES=8 W2_MB=4 INT=5 MOVER_S=5
	T1=10 T2=5 T3=10 T6=5 TW2=10 TSTEADY=5 SNAPSHOTS=0
else
	DATA_MB=1536 FAST_MB=1024 W2_FILES=64 W2_MB=24 INT=10 MOVER_S=20
	T1=120 T2=60 T3=120 T6=60 TW2=120 TSTEADY=60 SNAPSHOTS=1
fi
ZIPF=1.2
SEED0=${HEAT_seed:-$(date +%s)}
SETUPS=$(echo "${HEAT_setups:-all-SATA,all-NVMe,tiered,dm-cache-256k,dm-cache-range,bcache}" | tr , ' ')
# MOVER_KNOBS: hot/ knobs for the tiered setup, as name=value pairs
# separated by colons (heat.knobs=mover_promote_temp=72:mover_budget=64M),
# for a policy run that compares settings; recorded with the setup.
MOVER_KNOBS=$(echo "${HEAT_knobs:-}" | tr : ' ')
FAST=${FAST_DEV##*/}
failed=0

uptime_s() { cut -d' ' -f1 /proc/uptime; }
dm_name() { echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"; }

# The disk. benchmarks/run has QEMU throttle it to 150 MB/s and enough
# operations a second for that (its throttle counts requests, and ours are
# at most 128 KiB), which alone would make a random read cheap: a
# disk pays a seek and half a rotation for every one. So every setup
# reads the SATA disk through dm-delay, DISK_MS per read (writes are not
# delayed, as a disk's write cache absorbs them; the throttle bounds
# them). At 100 IOPS and no delay, as in the tests, the throttle's leaky
# bucket let a tenth of a second's operations through at once, so a miss
# that came while few reads went to the disk cost nothing. dm-delay counts in jiffies (4 ms at HZ=250), so a read
# waits between DISK_MS - 4 and DISK_MS: UNDER_MS, the latency under which
# a read counts as served fast ("under_disk"), is that floor.
DISK_MS=12 UNDER_MS=8
# A sequential read goes through readahead, one bio per window piece, and
# dm-delay delays each: with btrfs's default window the scan of W4 ran at
# 7 to 18 MB/s, differently per setup. Every setup's filesystem gets this
# readahead window, so that a scan is bounded by the disk's throughput.
RA_KB=16384
dmsetup create slow --table "0 $(blockdev --getsz "$SLOW_DEV") delay $SLOW_DEV 0 $DISK_MS $SLOW_DEV 0 0" ||
	{ echo "# dm-delay over $SLOW_DEV failed"; exit 1; }
dmsetup mknodes
SDEV=/dev/mapper/slow
SLOW=$(dm_name slow)

# ---- setups ----
# up SETUP: the devices and a btrfs for SETUP, mounted at $MNT, with the
# subvolume $MNT/sv for the data, ready for the data to be written. Sets
# H (tiered: its hot/ directory) and EXTRA (JSON fields).
up() {
	H="" EXTRA=""
	case $1 in
	all-SATA)
		mkfs.btrfs -q -f -K "$SDEV" >/dev/null && mount "$SDEV" $MNT || return 1
		;;
	all-NVMe)
		mkfs.btrfs -q -f -K "$FAST_DEV" >/dev/null && mount "$FAST_DEV" $MNT || return 1
		;;
	tiered)
		mkfs.btrfs -q -f -K -d single -m raid1 "$SDEV" "$FAST_DEV" >/dev/null &&
			mount -o hotdatamove "$SDEV" $MNT || return 1
		btrfs filesystem resize 2:${FAST_MB}M $MNT >/dev/null || return 1
		H=$(hot_dir $MNT)
		# No pass while the data is written; one on the empty
		# filesystem reports the fast data space.
		echo 86400 >"$H/mover_interval"
		knobs || return 1
		echo 1 >"$H/mover_run"
		EXTRA="\"fast_capacity_bytes\":$(mover_stat fast_capacity_bytes "$H"),\"range_size\":$(cat "$H/range_size"),\"mover_interval_s\":$MOVER_S,\"mover_high_watermark\":$(cat "$H/mover_high_watermark"),\"mover_low_watermark\":$(cat "$H/mover_low_watermark"),\"mover_promote_temp\":$(cat "$H/mover_promote_temp"),\"mover_budget\":$(cat "$H/mover_budget"),\"mover_knobs\":\"$MOVER_KNOBS\""
		;;
	dm-cache-*)
		# The data is written to the bare disk; attach stacks the cache
		# over it, so that the cache starts empty as tiered's NVMe does.
		mkfs.btrfs -q -f -K "$SDEV" >/dev/null && mount "$SDEV" $MNT || return 1
		;;
	bcache)
		# A bcache0 left by a slow teardown would take the new one's name.
		[ -e /sys/block/bcache0 ] && return 1
		dmsetup create tdata --table "0 $((CACHE_MB * 2048)) linear $FAST_DEV 0" || return 1
		dmsetup mknodes
		# make-bcache refuses a device with another signature on it.
		for d in "$SDEV" /dev/mapper/tdata; do
			dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct 2>/dev/null
		done
		make-bcache --wipe-bcache --bucket 128k -B "$SDEV" -C /dev/mapper/tdata \
			>/dev/null || return 1
		echo "$SDEV" >/sys/fs/bcache/register 2>/dev/null
		echo /dev/mapper/tdata >/sys/fs/bcache/register 2>/dev/null
		# bcache0 comes with the backing device; the cache set attaches
		# to it when both are registered.
		local i=0
		while ! [ -e /sys/block/bcache0/bcache/cache ] && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -e /sys/block/bcache0/bcache/cache ] || return 1
		# Nothing cached while the data is written (attach turns
		# writethrough on). bcache bypasses the cache for reads when the
		# cache device's latency passes a threshold (2 ms by default),
		# which the emulated NVMe does under TCG: off.
		echo none >/sys/block/bcache0/bcache/cache_mode
		for f in /sys/fs/bcache/*-*-*-*-*/congested_*_threshold_us; do
			echo 0 >"$f"
		done
		mkfs.btrfs -q -f -K /dev/bcache0 >/dev/null && mount /dev/bcache0 $MNT || return 1
		;;
	*)
		return 1
		;;
	esac
	btrfs subvolume create $MNT/sv >/dev/null
}

# knobs: MOVER_KNOBS on the tiered filesystem (a mount resets them).
knobs() {
	local kv
	for kv in $MOVER_KNOBS; do
		echo "${kv#*=}" >"$H/${kv%%=*}" || return 1
	done
}

# readahead: the same readahead window for every setup's filesystem
# (RA_KB); a mount makes a new bdi.
readahead() {
	local f
	for f in /sys/class/bdi/btrfs-*/read_ahead_kb; do
		echo $RA_KB >"$f"
	done
}

# remount SETUP: unmount and mount the filesystem again, mid-timeline.
# The caches keep what they hold; tiered keeps its data where it is and
# loses its heat (not persisted), which the mover must not take for cold.
remount() {
	local dev gen
	dev=$(awk -v m=$MNT '$2 == m { print $1 }' /proc/mounts)
	# Odd while the filesystem is being remounted: tier_snap drops what
	# it took across a remount.
	gen=$(($(cat /tmp/mount.gen 2>/dev/null || echo 0) + 1))
	echo $gen >/tmp/mount.gen
	umount $MNT || return 1
	if [ "$1" = tiered ]; then
		mount -o hotdatamove "$dev" $MNT && knobs &&
			echo "$MOVER_S" >"$H/mover_interval" || return 1
	else
		mount "$dev" $MNT || return 1
	fi
	echo $((gen + 1)) >/tmp/mount.gen
	readahead
	settle
}

# attach SETUP: after the data is written, make the fast device a cache
# (dm-cache, bcache). Sets TOPS (the devices the filesystem reads from),
# HITS (the device whose reads are served fast; "none" for all-SATA) and
# adds to EXTRA.
attach() {
	case $1 in
	all-SATA) TOPS=$SLOW HITS=none ;;
	all-NVMe) TOPS=$FAST HITS=$FAST ;;
	tiered) TOPS="$SLOW $FAST" HITS=$FAST ;;
	dm-cache-*)
		local kib=${1#dm-cache-}
		[ "$kib" = range ] && kib=$((RANGE / 1024))
		kib=${kib%k}
		umount $MNT
		dmsetup create tmeta --table "0 32768 linear $FAST_DEV 0" &&
			dmsetup create tdata --table "0 $((CACHE_MB * 2048)) linear $FAST_DEV 32768" ||
			return 1
		dmsetup mknodes		# no udev in the guest
		dd if=/dev/zero of=/dev/mapper/tmeta bs=1M count=16 oflag=direct 2>/dev/null
		dmsetup create tcached --table "0 $(blockdev --getsz "$SDEV") cache /dev/mapper/tmeta /dev/mapper/tdata $SDEV $((kib * 2)) 1 writethrough smq 0" ||
			return 1
		dmsetup mknodes
		mount /dev/mapper/tcached $MNT || return 1
		TOPS=$(dm_name tcached) HITS=$(dm_name tdata)
		EXTRA="\"cache_bytes\":$((CACHE_MB << 20)),\"block_bytes\":$((kib * 1024))"
		;;
	bcache)
		echo writethrough >/sys/block/bcache0/bcache/cache_mode
		TOPS=bcache0 HITS=$(dm_name tdata)
		EXTRA="\"cache_bytes\":$((CACHE_MB << 20)),\"bucket_bytes\":131072,\"cache_mode\":\"$(cat /sys/block/bcache0/bcache/cache_mode)\",\"sequential_cutoff\":\"$(cat /sys/block/bcache0/bcache/sequential_cutoff)\",\"congested_read_threshold_us\":$(cat /sys/fs/bcache/*-*-*-*-*/congested_read_threshold_us)"
		;;
	esac
}

# down SETUP: unmount and take the setup's devices apart.
down() {
	umount $MNT
	case $1 in
	dm-cache-*)
		dmsetup remove tcached
		dmsetup remove tdata
		dmsetup remove tmeta
		;;
	bcache)
		echo 1 >/sys/block/bcache0/bcache/stop
		local u i=0
		for u in /sys/fs/bcache/*-*-*-*-*/unregister; do
			[ -e "$u" ] && echo 1 >"$u"
		done
		while [ -e /sys/block/bcache0 ] && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		# The cache set lets go of its device asynchronously.
		i=0
		until dmsetup remove tdata 2>/dev/null || [ $i -ge 50 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		dd if=/dev/zero of="$SDEV" bs=1M count=1 oflag=direct 2>/dev/null
		;;
	esac
}

# fill FILE MIB: MIB MiB of incompressible data, in direct writes of 1 MiB.
# fio makes its buffers of random data once and scrambles them a little
# for each write: reading /dev/urandom runs at about 12 MB/s under TCG.
# And QEMU's throttle counts requests, not bytes: writeback's smaller
# bios made writing each data set take two minutes.
fill() {
	fio --name=fill --filename="$1" --rw=write --bs=1M --size="${2}m" \
		--direct=1 --ioengine=psync --fallocate=none >/dev/null 2>&1
}
w1_data() {
	fill $MNT/sv/data $DATA_MB
}
w2_data() {
	local i=0
	mkdir -p $MNT/sv/w2
	while [ $i -lt $W2_FILES ]; do
		fill $MNT/sv/w2/f.$i $W2_MB
		i=$((i + 1))
	done
}
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# ---- one timeline ----
# sampler: once a second, "uptime dev reads written_sectors" for every
# block device, and "uptime mover passes moved_bytes last_pass_ms
# promoted_bytes displaced_bytes" for tiered.
sample() {
	awk -v t="$(uptime_s)" '
		FILENAME ~ /mover_stats$/ {
			if ($1 == "passes") p = $2
			if ($1 == "promoted_bytes" || $1 == "demoted_bytes") m += $2
			if ($1 == "last_pass_ms") d = $2
			if ($1 == "promoted_bytes") pr = $2
			if ($1 == "displaced_bytes") ds = $2
			mv = 1
			next
		}
		{ split(FILENAME, f, "/"); print t, f[4], $1, $7 }
		END { if (mv) print t, "mover", p, m, d, pr + 0, ds + 0 }' \
		/sys/block/*/stat ${H:+"$H/mover_stats"} >>/tmp/samples
}
# tier_snap: for W5's moves per range, where the tiered setup's data is:
# one line "T WORD..." in /tmp/tiers, a word "F:PATH:I" for each 1 MiB
# piece I of the file PATH (subvolumes and snapshots included) that lies
# mostly on the NVMe, and "U:PATH:I" for one whose extents are in no chunk the chunk tree on disk
# has yet (it keeps its last state). From FIEMAP (filefrag) and the chunk
# tree as btrfs-progs dumps it; a piece that is not named is on the disk.
# Nothing while the filesystem is not mounted, nor when a remount
# (remount(), /tmp/mount.gen) came during the snapshot: the files it could
# not read would count as moved to the disk and back.
tier_snap() {
	local fdev="" d f gen line
	gen=$(cat /tmp/mount.gen 2>/dev/null || echo 0)
	[ $((gen % 2)) = 0 ] || return 0
	for d in "${H%/hot}"/devinfo/*; do
		# "fast", or "fast (auto)" without an override
		case $(cat "$d/tier" 2>/dev/null) in fast*) fdev=${d##*/} ;; esac
	done
	[ -n "$fdev" ] && [ -e "$H/mover_stats" ] || return 0
	line=$({
		chunk_map
		find $MNT -type f | while read -r f; do
			echo "file $f"
			filefrag -v "$f" 2>/dev/null
		done
	} | awk -v t="$(uptime_s)" -v fast="$fdev" '
		BEGIN { n = 0 }
		$1 == "chunk" { cs[n] = $2 + 0; cl[n] = $3 + 0; cd[n] = $4; n++; next }
		$1 == "file" { file = $2; next }
		$1 ~ /^[0-9]+:$/ {
			lo = $2; sub(/\.\..*/, "", lo); ph = $4; sub(/\.\..*/, "", ph)
			len = $6; sub(/:/, "", len)
			if (ph == "" || len == "") next
			lo += 0; len += 0
			p = ph * 4096; dev = -1
			for (i = 0; i < n; i++)
				if (p >= cs[i] && p < cs[i] + cl[i]) { dev = cd[i]; break }
			# Each 4 KiB block counts for the 1 MiB piece it is in.
			for (q = int(lo / 256); q * 256 < lo + len; q++) {
				a = q * 256 > lo ? q * 256 : lo
				e = (q + 1) * 256 < lo + len ? (q + 1) * 256 : lo + len
				k = file ":" q
				if (dev == -1) u[k] += e - a
				else if (dev == fast) fb[k] += e - a
				else sb[k] += e - a
			}
		}
		END {
			line = t
			for (k in fb) if (fb[k] > sb[k] + u[k]) line = line " F:" k
			for (k in u) if (!(k in fb) || fb[k] <= sb[k] + u[k]) line = line " U:" k
			print line
		}')
	[ "$(cat /tmp/mount.gen 2>/dev/null || echo 0)" = "$gen" ] &&
		echo "$line" >>/tmp/tiers
}
sampler_start() {
	: >/tmp/samples
	: >/tmp/tiers
	echo 0 >/tmp/mount.gen
	rm -f /tmp/sampler.stop
	[ -n "$H" ] && tier_snap
	(
		passes=
		while [ ! -e /tmp/sampler.stop ]; do
			sample
			# After each pass of the tiered setup, where its data is.
			if [ -n "$H" ]; then
				p=$(mover_stat passes "$H" 2>/dev/null)
				[ -n "$p" ] && [ "$p" != "$passes" ] && [ -n "$passes" ] && tier_snap
				[ -n "$p" ] && passes=$p
			fi
			sleep 1
		done
		sample
	) &
	SAMPLER=$!
}
sampler_stop() {
	touch /tmp/sampler.stop
	wait "$SAMPLER"
}

# tl_begin SETUP WORKLOAD: start a timeline (the mover's timer with it).
tl_begin() {
	TL_SETUP=$1 TL_WORK=$2 SEGS=""
	# Every setup gets the same seeds: one per segment of a workload.
	case $2 in
	w1) SEED=$((SEED0 + 100)) ;;
	w6) SEED=$((SEED0 + 200)) ;;
	w2) SEED=$((SEED0 + 300)) ;;
	w1-snap) SEED=$((SEED0 + 400)) ;;
	esac
	# First, since bcache's take 6 s: the timeline starts after them.
	C0=$(cache_counters "$1")
	T0=$(uptime_s)
	: >/tmp/points
	: >/tmp/lat_all
	sampler_start
	[ -n "$H" ] && echo "$MOVER_S" >"$H/mover_interval"
	sleep 1
}

# segment NAME SECONDS FIO_ARGS...: one fio run on the timeline. Its
# per-I/O log becomes rows "name t len dir n p50_us p99_us under" in
# /tmp/points, t in seconds from the timeline's start, "under" the share
# of the I/O that took less than UNDER_MS, the least a disk read takes.
segment() {
	local name=$1 secs=$2 t0
	shift 2
	SEED=$((SEED + 1))
	rm -f /tmp/seg_*.log "/tmp/$name.prerun.txt"
	# fio's log counts from the start of the I/O, seconds after fio
	# starts under TCG; its prerun command (output in NAME.prerun.txt in
	# the working directory) says when that was.
	if ! (cd /tmp && fio --name="$name" --direct=1 --ioengine=psync --iodepth=1 \
		--bs=4k --norandommap --randrepeat=0 --randseed=$SEED \
		--time_based --runtime="$secs" --exec_prerun="cat /proc/uptime" \
		--write_lat_log=/tmp/seg --log_avg_msec=0 "$@" >/tmp/fio.out 2>&1); then
		say "fio $name failed: $(tail -3 /tmp/fio.out | tr '\n' ' ')"
		failed=1
	fi
	t0=$(cut -d' ' -f1 "/tmp/$name.prerun.txt")
	# fio's lat log: "msec, nsec, direction, block size, ...".
	awk -F', *' -v seg="$name" -v off="$(echo "$t0 $T0" | awk '{ print $1 - $2 }')" \
		-v iv="$INT" -v secs="$secs" -v disk_us=$((UNDER_MS * 1000)) '
		# Buckets of 1 us below 1 ms, 10 us below 10 ms and so on: within
		# 1 %. (The guest'"'"'s busybox awk has no log().)
		function bucket(us) {
			if (us < 1000) return int(us)
			if (us < 10000) return int(us / 10) * 10
			if (us < 100000) return int(us / 100) * 100
			if (us < 1000000) return int(us / 1000) * 1000
			return int(us / 10000) * 10000
		}
		{
			k = int($1 / 1000 / iv)
			h[k, $3, bucket($2 / 1000)]++
			n[k, $3]++
			if ($2 / 1000 < disk_us) under[k, $3]++
			if (k > maxk) maxk = k
		}
		END {
			for (k = 0; k <= maxk; k++) {
				len = (k + 1) * iv > secs ? secs - k * iv : iv
				if (len <= 0) continue
				for (d = 0; d < 2; d++) {
					if (!((k SUBSEP d) in n)) continue
					c = 0; p50 = ""; p99 = ""; v = 0; step = 1
					while (p99 == "") {
						c += h[k, d, v]
						if (p50 == "" && c >= n[k, d] * 0.5) p50 = v
						if (p99 == "" && c >= n[k, d] * 0.99) p99 = v
						v += step
						if (v == 1000 || v == 10000 || v == 100000 || v == 1000000)
							step *= 10
					}
					printf "%s %.1f %s %d %d %d %d %.3f\n", seg, off + k * iv, len, d, n[k, d], p50, p99, under[k, d] / n[k, d]
				}
			}
		}' /tmp/seg_lat.1.log >>/tmp/points 2>/dev/null
	# Every read, "t lat_us", for the latency during and between passes.
	awk -F', *' -v off="$(echo "$t0 $T0" | awk '{ print $1 - $2 }')" \
		'$3 == 0 { printf "%.3f %d\n", off + $1 / 1000, $2 / 1000 }' \
		/tmp/seg_lat.1.log >>/tmp/lat_all 2>/dev/null
	rm -f /tmp/seg_*.log
	SEGS="$SEGS${SEGS:+,}{\"name\":\"$name\",\"start_s\":$(echo "$t0 $T0" | awk '{ printf "%.1f", $1 - $2 }'),\"seconds\":$secs,\"seed\":$SEED}"
}

# scan FILE: one sequential buffered read of all of FILE.
scan() {
	local t0 t1
	t0=$(uptime_s)
	dd if="$1" of=/dev/null bs=1M 2>/dev/null
	t1=$(uptime_s)
	SEGS="$SEGS${SEGS:+,}$(echo "$t0 $t1 $T0" | awk '{ printf "{\"name\":\"scan\",\"start_s\":%.1f,\"seconds\":%.1f}", $1 - $3, $2 - $1 }')"
}

# tl_end: stop the timeline and emit its record.
tl_end() {
	local extra points passes totals inpass
	[ -n "$H" ] && echo 86400 >"$H/mover_interval"
	sampler_stop
	extra=$(cache_json "$C0" "$(cache_counters "$TL_SETUP" "$C0")")
	# Counters at a time: interpolated between the samples around it.
	points=$(awk -v t0="$T0" -v tops="$TOPS" -v hits="$HITS" '
		FILENAME == "/tmp/samples" {
			if ($2 == "mover") next
			i = ++ns[$2]; st[$2, i] = $1 - t0; rd[$2, i] = $3
			next
		}
		function at(dev, t,   i) {
			for (i = ns[dev]; i > 1 && st[dev, i] > t; i--) ;
			if (i == ns[dev] || st[dev, i] >= t)
				return rd[dev, i]
			return rd[dev, i] + (rd[dev, i + 1] - rd[dev, i]) *
				(t - st[dev, i]) / (st[dev, i + 1] - st[dev, i])
		}
		function reads(devs, a, b,   l, i, s) {
			l = split(devs, x, " ")
			s = 0
			for (i = 1; i <= l; i++) s += at(x[i], b) - at(x[i], a)
			return s
		}
		{
			top = reads(tops, $2, $2 + $3)
			hit = hits == "none" ? 0 : reads(hits, $2, $2 + $3)
			printf "%s{\"seg\":\"%s\",\"t\":%s,\"dir\":\"%s\",\"iops\":%.1f,\"p50_us\":%d,\"p99_us\":%d,\"hit\":%s,\"under_disk\":%s}",
				(out++ ? "," : ""), $1, $2, ($4 == 0 ? "read" : "write"),
				$5 / $3, $6, $7, (top > 0 ? sprintf("%.3f", hit / top) : "null"), $8
		}' /tmp/samples /tmp/points)
	# The mover's passes: when the pass counter went up, and what moved.
	# A remount starts the counters again.
	passes=$(awk -v t0="$T0" '$2 == "mover" {
			if (seen && $3 > p) {
				printf "%s{\"t\":%.0f,\"moved_bytes\":%.0f,\"promoted_bytes\":%.0f,\"displaced_bytes\":%.0f,\"ms\":%d}", (n++ ? "," : ""), $1 - t0, $4 - m, $6 - pr, $7 - ds, $5
			}
			p = $3; m = $4; pr = $6; ds = $7; seen = 1
		}' /tmp/samples)
	inpass=$(in_pass_json)
	# W5 per range: how often each 1 MiB piece changed tier from one
	# snapshot to the next (tier_snap): the first snapshot is where the
	# timeline starts, a piece first named later was on the disk before.
	moves=""
	[ -n "$H" ] && moves=$(awk '
		{
			for (k in now) delete now[k]
			for (i = 2; i <= NF; i++) now[substr($i, 3)] = substr($i, 1, 1)
			for (k in now)
				if (!(k in last) && now[k] == "F") last[k] = snaps ? 0 : 1
			for (k in last) {
				st = (k in now) ? (now[k] == "F" ? 1 : last[k]) : 0
				if (last[k] != st) mv[k]++
				last[k] = st
			}
			snaps++
		}
		END {
			for (k in mv) { r++; if (mv[k] > 2) o++; if (mv[k] > m) m = mv[k] }
			printf "\"range_moves\":{\"snapshots\":%d,\"pieces_moved\":%d,\"moved_more_than_twice\":%d,\"most_moves\":%d}", snaps, r, o, m
		}' /tmp/tiers)
	# Totals over the timeline: reads and written sectors per device.
	totals=$(awk -v tops="$TOPS" -v hits="$HITS" -v slow="$SLOW" -v fast="$FAST" '
		$2 == "mover" {
			if (!mf) { m0 = $4; mf = 1 }
			if ($4 < m1) m0 -= m1	# a remount: the counters start again
			m1 = $4
			next
		}
		{ if (!(($2) in r0)) { r0[$2] = $3; w0[$2] = $4 } r1[$2] = $3; w1[$2] = $4 }
		$2 == slow { if (lt != "" && $1 - lt > gap) gap = $1 - lt; lt = $1 }
		END {
			printf "\"sampler_max_gap_s\":%.1f,", gap
			n = split(tops, x, " "); top = 0
			for (i = 1; i <= n; i++) top += r1[x[i]] - r0[x[i]]
			hit = hits == "none" ? 0 : r1[hits] - r0[hits]
			# %.0f: busybox awk clamps %d to 32 bits.
			printf "\"reads\":%.0f,\"fast_reads\":%.0f,\"slow_written_bytes\":%.0f,\"fast_written_bytes\":%.0f,\"mover_moved_bytes\":%.0f",
				top, hit, (w1[slow] - w0[slow]) * 512, (w1[fast] - w0[fast]) * 512, m1 - m0
		}' /tmp/samples)
	emit timeline "{\"setup\":\"$TL_SETUP\",\"workload\":\"$TL_WORK\",\"metadata_profile\":\"$(btrfs filesystem df $MNT | sed -n 's/^Metadata, \([^:]*\):.*/\1/p')\",\"interval_s\":$INT,\"segments\":[$SEGS],\"points\":[$points],\"passes\":[$passes],$totals${inpass:+,$inpass}${moves:+,$moves}${EXTRA:+,$EXTRA}${extra:+,$extra}}"
}

# in_pass_json: the p99 of the reads that completed while a pass ran,
# against those that did not (issue #12's target: at most 2x). A pass
# ended between the two samples around its counter's step and lasted
# last_pass_ms: its window starts that long before the earlier sample and
# ends at the later one, so it holds the pass and up to a second more.
# Nothing for the setups without a mover.
in_pass_json() {
	grep -q ' mover ' /tmp/samples || return 0
	awk -v t0="$T0" '
		FILENAME == "/tmp/samples" {
			if ($2 != "mover") next
			if (seen && $3 > p) { w++; ws[w] = pt - t0 - $5 / 1000; we[w] = $1 - t0 }
			p = $3; pt = $1; seen = 1
			next
		}
		{
			c = "between_passes"
			for (i = 1; i <= w; i++)
				if ($1 >= ws[i] && $1 <= we[i]) { c = "during_pass"; break }
			print c, $2
		}' /tmp/samples /tmp/lat_all >/tmp/lat_class
	local c n p99 out=""
	for c in during_pass between_passes; do
		n=$(grep -c "^$c " /tmp/lat_class)
		p99=0
		if [ "$n" -gt 0 ]; then
			p99=$(awk -v c="$c" '$1 == c { print $2 }' /tmp/lat_class | sort -n |
				sed -n "$(((n * 99 + 99) / 100))p")
		fi
		out="$out${out:+,}\"reads_${c}\":$n,\"p99_${c}_us\":$p99"
	done
	echo "$out"
}

# cache_counters SETUP [BEFORE]: the cache's own read hits and misses, as
# a cross-check; after the I/O, BEFORE is what they were before it.
cache_counters() {
	local b=/sys/block/bcache0/bcache/stats_total c i
	case $1 in
	bcache)
		# bcache folds its counters into stats_total on a 5 s timer,
		# which a stalled vCPU runs late: after the I/O, wait (up to
		# 30 s) for the fold that counts it.
		sleep 6
		c="$(cat $b/cache_hits) $(cat $b/cache_misses)"
		i=0
		while [ -n "${2:-}" ] && [ "$c" = "$2" ] && [ $i -lt 24 ]; do
			sleep 1
			i=$((i + 1))
			c="$(cat $b/cache_hits) $(cat $b/cache_misses)"
		done
		echo "$c" ;;
	dm-cache-*)
		dmsetup status tcached | awk '{ printf "%d %d", $8, $9 }' ;;
	*)
		echo "0 0" ;;
	esac
}
cache_json() { # cache_json BEFORE AFTER
	echo "$1 $2" | awk '{ printf "\"cache_read_hits\":%d,\"cache_read_misses\":%d", $3 - $1, $4 - $2 }'
}

# ---- the workloads ----
# zipf's centre fixed at 0: without it fio places the hot set by the seed,
# and "W1 again" would be a new hot set.
W1="--filename=$MNT/sv/data --rw=randread --random_distribution=zipf:$ZIPF:0"
W6="--filename=$MNT/sv/data --rw=randrw --rwmixread=70 --random_distribution=zipf:$ZIPF:0 --offset=0% --size=50%"
W2="--directory=$MNT/sv/w2 --filename_format=f.\$filenum --nrfiles=$W2_FILES --filesize=${W2_MB}m --file_service_type=zipf:$ZIPF --rw=randread"

# prepare SETUP WRITER: a fresh filesystem for SETUP with the data WRITER
# writes, the cache attached and every cache cold. Fails the run if not.
prepare() {
	if ! up "$1"; then
		say "$1: setup failed"
		failed=1
		return 1
	fi
	$2
	[ "$3" = snapshot ] && btrfs subvolume snapshot -r $MNT/sv $MNT/snap >/dev/null
	sync
	if ! attach "$1"; then
		say "$1: attaching the cache failed"
		failed=1
		return 1
	fi
	readahead
	settle
}

# run_setup SETUP: every workload on SETUP, each on a fresh filesystem.
run_setup() {
	local s=$1 steady
	local t6=$T6 tw2=$TW2
	case $s in all-*) steady=1 t6=$TSTEADY tw2=$TSTEADY ;; *) steady=0 ;; esac

	say "$s: W1 (scattered), W4 (scan), W3 (shift), then W6 (mixed)"
	prepare "$s" w1_data || return
	tl_begin "$s" w1
	if [ $steady = 1 ]; then
		# shellcheck disable=SC2086
		segment w1 $TSTEADY $W1 --offset=0% --size=50%
	else
		# shellcheck disable=SC2086
		segment w1 $T1 $W1 --offset=0% --size=50%
		scan $MNT/sv/data
		# shellcheck disable=SC2086
		segment w1-after-scan $T2 $W1 --offset=0% --size=50%
		if remount "$s"; then
			SEGS="$SEGS${SEGS:+,}{\"name\":\"remount\",\"start_s\":$(awk -v t0="$T0" '{ printf "%.1f", $1 - t0 }' /proc/uptime),\"seconds\":0}"
			# shellcheck disable=SC2086
			segment w1-after-remount $T2 $W1 --offset=0% --size=50%
		else
			say "$s: remount failed"
			failed=1
		fi
		# shellcheck disable=SC2086
		segment w3-shifted $T3 $W1 --offset=50% --size=50%
	fi
	tl_end
	tl_begin "$s" w6
	# shellcheck disable=SC2086
	segment w6 $t6 $W6
	tl_end
	down "$s"

	say "$s: W2 (hot files)"
	prepare "$s" w2_data || return
	tl_begin "$s" w2
	# shellcheck disable=SC2086
	segment w2 $tw2 $W2
	tl_end
	down "$s"

	[ $steady = 1 ] || [ $SNAPSHOTS = 0 ] && return
	case $s in dm-cache-range) return ;; esac
	say "$s: W1 and W6 with a read-only snapshot of the data"
	prepare "$s" w1_data snapshot || return
	tl_begin "$s" w1-snap
	# shellcheck disable=SC2086
	segment w1 $T1 $W1 --offset=0% --size=50%
	# shellcheck disable=SC2086
	segment w6 $T6 $W6
	tl_end
	down "$s"
}

# The fast data space of the tiered setup sizes the caches.
H=""
up tiered || { echo "# tiered setup failed"; exit 1; }
CACHE_MB=$(($(mover_stat fast_capacity_bytes "$H") >> 20))
RANGE=$(cat "$H/range_size")
down tiered
[ "$CACHE_MB" -gt 0 ] || { echo "# no fast capacity reported"; exit 1; }
if ! [ -d /sys/fs/bcache ] || ! command -v make-bcache >/dev/null; then
	say "bcache is not in this kernel or make-bcache is missing: left out"
	SETUPS=$(echo "$SETUPS" | sed 's/bcache//')
fi
say "timelines: $DATA_MB MiB of data, $FAST_MB MiB of NVMe for tiered ($CACHE_MB MiB for data), caches of $CACHE_MB MiB, $RANGE-byte ranges, intervals of $INT s, mover every $MOVER_S s"
emit setup "{\"data_mb\":$DATA_MB,\"fast_mb\":$FAST_MB,\"cache_mb\":$CACHE_MB,\"range_size\":$RANGE,\"zipf\":$ZIPF,\"interval_s\":$INT,\"disk_read_delay_ms\":$DISK_MS,\"under_disk_ms\":$UNDER_MS,\"readahead_kb\":$RA_KB,\"mover_interval_s\":$MOVER_S,\"w2_files\":$W2_FILES,\"w2_file_mb\":$W2_MB,\"seconds\":{\"w1\":$T1,\"w1_after_scan\":$T2,\"w3\":$T3,\"w6\":$T6,\"w2\":$TW2,\"steady\":$TSTEADY},\"seed_base\":$SEED0,\"setups\":\"$SETUPS\"}"

for s in $SETUPS; do
	run_setup "$s"
done
say "done"
exit $failed
