#!/bin/sh
# shellcheck shell=dash
# The read-policy benchmark (issue #15), run inside the guest by
# benchmarks/run-readpolicy: a two-device btrfs with raid1 metadata over
# the SATA disk (through dm-delay, as in the timelines) and the NVMe, many
# small files, and two metadata workloads over a cold cache, each run
# under read_policy pid and tier in interleaved rounds:
#   stat   ls -lR over the whole tree: readdir and a stat of every file;
#   small  reading every file (1 KiB each: inline, so metadata too).
# Each runs as four processes at once, one per quarter of the tree, so
# that pid spreads its reads as it would under several users. The cache
# is cold for each run: a remount (drop_caches leaves btrfs's tree blocks
# in memory), which also resets read_policy, set again after it.
# Then metadata placement: the same files on a filesystem with dup
# metadata, its chunks rewritten by balance -m first on a plain mount
# (they go to the disk, which has most room: "dup-disk"), then under
# metadata_tier=fast (the NVMe: "dup-nvme"), the same rounds for each.
# Result: per round, policy (or placement) and workload, the wall time in
# ms and the read requests of each device (/sys/block/*/stat).
. /test/lib/guest.sh

MNT=/mnt/r
mkdir -p $MNT
QUICK=${HEAT_quick:-0}
if [ "$QUICK" = 1 ]; then
	DIRS=8 FILES=100 ROUNDS=2
else
	DIRS=40 FILES=500 ROUNDS=5
fi
DISK_MS=12

now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
reads() { awk '{ print $1 }' "/sys/block/$1/stat"; }
dm_name() { echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"; }

dmsetup create slow --table "0 $(blockdev --getsz "$SLOW_DEV") delay $SLOW_DEV 0 $DISK_MS $SLOW_DEV 0 0" ||
	{ echo "# dm-delay over $SLOW_DEV failed"; exit 1; }
dmsetup mknodes
SDEV=/dev/mapper/slow
SLOW=$(dm_name slow)
FAST=${FAST_DEV##*/}

head -c 1024 /dev/urandom >/tmp/p1k
# make_tree PROFILE: a fresh filesystem with PROFILE metadata, mounted,
# holding the files.
make_tree() {
	local d=0 i
	umount $MNT 2>/dev/null
	mkfs.btrfs -q -f -K -d single -m "$1" "$SDEV" "$FAST_DEV" >/dev/null 2>&1 ||
		{ echo "# mkfs failed"; exit 1; }
	mount "$SDEV" $MNT || { echo "# mount failed"; exit 1; }
	UUID=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
	while [ $d -lt $DIRS ]; do
		mkdir -p $MNT/q$((d % 4))/d$d
		i=0
		while [ $i -lt $FILES ]; do
			cp /tmp/p1k $MNT/q$((d % 4))/d$d/f$i
			i=$((i + 1))
		done
		d=$((d + 1))
	done
	sync
}
say "read policy: $((DIRS * FILES)) files of 1 KiB in $DIRS directories, $ROUNDS rounds of pid and tier, the disk at $DISK_MS ms a read"
make_tree raid1
emit readsetup "{\"files\":$((DIRS * FILES)),\"dirs\":$DIRS,\"rounds\":$ROUNDS,\"disk_read_delay_ms\":$DISK_MS}"
say "metadata: $(btrfs filesystem df $MNT | sed -n 's/^Metadata, \(.*\)/\1/p')"

# run POLICY WORKLOAD ROUND: one cold run, printed as a JSON object.
# POLICY pid or tier is a read policy; dup-disk and dup-nvme are the
# placements, whose mount keeps metadata_tier as placed.
run() {
	local s0 f0 t0 t1 q opts=""
	[ "$1" = dup-nvme ] && opts=metadata_tier=fast
	umount $MNT && mount ${opts:+-o $opts} "$SDEV" $MNT || { echo "# remount failed"; exit 1; }
	case $1 in
	pid|tier) echo "$1" >/sys/fs/btrfs/$UUID/read_policy ||
		{ echo "# read_policy $1 refused"; exit 1; } ;;
	esac
	s0=$(reads "$SLOW")
	f0=$(reads "$FAST")
	t0=$(now_ms)
	for q in 0 1 2 3; do
		case $2 in
		stat) ls -lR $MNT/q$q >/dev/null & ;;
		small) find $MNT/q$q -type f -exec cat {} + >/dev/null & ;;
		esac
	done
	wait
	t1=$(now_ms)
	echo "{\"round\":$3,\"policy\":\"$1\",\"workload\":\"$2\",\"ms\":$((t1 - t0)),\"slow_reads\":$(($(reads "$SLOW") - s0)),\"fast_reads\":$(($(reads "$FAST") - f0))}"
}

r=1
while [ $r -le $ROUNDS ]; do
	# The order alternates, so that neither policy always runs first.
	if [ $((r % 2)) = 1 ]; then order="pid tier"; else order="tier pid"; fi
	for p in $order; do
		for w in stat small; do
			emit readpolicy "$(run $p $w $r)"
		done
	done
	say "round $r of $ROUNDS done"
	r=$((r + 1))
done
umount $MNT
btrfs check --readonly "$SDEV" >/dev/null 2>&1 || { echo "# btrfs check failed"; exit 1; }

# meta_devids: the devids of the metadata chunks' stripes (chunk tree).
meta_devids() {
	sync
	btrfs inspect-internal dump-tree -t chunk "$FAST_DEV" 2>/dev/null | awk '
		/ type / { for (i = 1; i < NF; i++) if ($i == "type") t = $(i + 1) }
		$1 == "stripe" && $3 == "devid" && t ~ /^METADATA/ { print $4 }' |
		sort -u | tr '\n' ' '
}
say "placement: the same files, dup metadata, placed by balance -m"
make_tree dup
for p in dup-disk dup-nvme; do
	opts=""
	[ "$p" = dup-nvme ] && opts=metadata_tier=fast
	umount $MNT && mount ${opts:+-o $opts} "$SDEV" $MNT || { echo "# remount failed"; exit 1; }
	btrfs balance start -m $MNT >/dev/null 2>&1 || { echo "# balance -m failed"; exit 1; }
	say "$p: metadata chunks on devids $(meta_devids)"
	r=1
	while [ $r -le $ROUNDS ]; do
		for w in stat small; do
			emit readpolicy "$(run $p $w $r)"
		done
		r=$((r + 1))
	done
done
umount $MNT
btrfs check --readonly "$SDEV" >/dev/null 2>&1 || { echo "# btrfs check failed"; exit 1; }
say "done"
