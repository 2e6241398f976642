# shellcheck shell=dash
# Helpers for in-guest scripts (busybox sh).

# make_files DIR COUNT SIZE: COUNT files of random data of SIZE (dd units,
# e.g. 4096K) in DIR, named f0..f(COUNT-1).
make_files() {
	local dir=$1 n=$2 size=$3 i=0 bs count
	mkdir -p "$dir"
	case "$size" in
	*K) bs=4096 count=$((${size%K} / 4)) ;;
	*M) bs=1048576 count=${size%M} ;;
	*) bs=1 count=$size ;;
	esac
	while [ $i -lt "$n" ]; do
		dd if=/dev/urandom of="$dir/f$i" bs=$bs count=$count 2>/dev/null
		i=$((i + 1))
	done
}

# qd1_read_lat_us DEV [SECONDS]: mean completion latency in microseconds of
# 4 KiB random direct reads at queue depth 1 over the first GiB of DEV.
# fio's terse format v3: field 40 is the mean total read latency in us.
qd1_read_lat_us() {
	fio --name=qd1 --filename="$1" --readonly --direct=1 --rw=randread \
		--bs=4k --iodepth=1 --ioengine=psync --size=1g \
		--time_based --runtime="${2:-5}" --minimal --terse-version=3 |
		awk -F';' '{ print $40 }'
}

# qd1_read_p50_us DEV [SECONDS]: median completion latency in microseconds
# of the same reads. Under TCG the mean of the fast device is pulled up by
# rare stalls of the emulator; the median is what a user sees.
qd1_read_p50_us() {
	fio --name=qd1 --filename="$1" --readonly --direct=1 --rw=randread \
		--bs=4k --iodepth=1 --ioengine=psync --size=1g \
		--time_based --runtime="${2:-5}" --minimal --terse-version=3 |
		awk -F';' '{
			for (i = 18; i <= 37; i++) {
				split($i, kv, "=")
				if (kv[1] == "50.000000%") print kv[2]
			}
		}'
}

# scrub_clean MNT: scrub MNT and succeed only if scrub found no error at
# all. btrfs scrub exits 0 when it corrected errors or found a superblock
# copy with a stale generation, so its status alone is not "clean".
# small_files DIR NDIRS NFILES: NFILES files of the same 1 KiB (inline:
# their data is in tree blocks) in each of DIR/d1 ... DIR/dNDIRS, synced.
small_files() {
	local d=1 i
	head -c 1024 /dev/urandom >/tmp/p1k
	while [ $d -le "$2" ]; do
		mkdir -p "$1/d$d"
		i=0
		while [ $i -lt "$3" ]; do
			cp /tmp/p1k "$1/d$d/f$i"
			i=$((i + 1))
		done
		d=$((d + 1))
	done
	sync
}

scrub_clean() {
	local out
	out=$(btrfs scrub start -B "$1" 2>&1)
	echo "$out"
	echo "$out" | grep -q "Error summary: *no errors found"
}

# wait_pid PID [SECONDS]: wait up to SECONDS (default 120) for the
# background job PID of the calling shell. Sets WAITED to the seconds
# waited. Returns the job's exit status, or 124 if it is still running.
# Not from a command substitution: a subshell cannot wait for its
# parent's jobs.
wait_pid() {
	local pid=$1 max=${2:-120}
	WAITED=0
	while kill -0 "$pid" 2>/dev/null; do
		[ $WAITED -lt "$max" ] || return 124
		sleep 1
		WAITED=$((WAITED + 1))
	done
	wait "$pid"
}

# hot_dir MOUNTPOINT: the hot/ directory in sysfs of the btrfs mounted there.
hot_dir() {
	echo "/sys/fs/btrfs/$(btrfs filesystem show "$1" |
		sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')/hot"
}

# mover_stat NAME HOTDIR: one counter of HOTDIR/mover_stats.
mover_stat() {
	awk -v k="$1" '$1 == k { print $2 }' "$2/mover_stats"
}

# For the benchmark scripts: say MESSAGE prints a progress line stamped
# with the seconds since this file was sourced; emit NAME JSON prints a
# result that benchmarks/run collects.
GUEST_T0=$(date +%s)
say() { echo "# [$(($(date +%s) - GUEST_T0)) s] $*"; }
emit() { echo "@@JSON $1 $2"; }

# chunk_map [DEV]: "chunk START LENGTH DEVID" for every chunk of the
# filesystem on DEV (default $FAST_DEV), with the device of its first stripe, from the chunk tree as
# btrfs-progs dumps it (what is committed: sync first). The tests map
# extents through it rather than with btrfs-map-logical, which in
# btrfs-progs 6.2 answers "no extent found" for about one extent in a
# hundred (one that begins an extent tree leaf, with a gap before it).
# shellcheck disable=SC2120 # callers in the suites pass DEV
chunk_map() {
	btrfs inspect-internal dump-tree -t chunk "${1:-$FAST_DEV}" 2>/dev/null | awk '
		/ CHUNK_ITEM / {
			for (i = 1; i < NF; i++)
				if ($i == "CHUNK_ITEM") { s = $(i + 1); sub(/\)/, "", s) }
		}
		$1 == "length" { len = $2 }
		$1 == "stripe" && $2 == 0 && s != "" { print "chunk", s, len, $4; s = "" }'
}
