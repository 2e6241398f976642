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
# Result: per round, policy and workload, the wall time in ms and the read
# requests of each device (/sys/block/*/stat).
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

mkfs.btrfs -q -f -K -d single -m raid1 "$SDEV" "$FAST_DEV" >/dev/null ||
	{ echo "# mkfs failed"; exit 1; }
mount "$SDEV" $MNT || { echo "# mount failed"; exit 1; }
UUID=$(btrfs filesystem show $MNT | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p')
head -c 1024 /dev/urandom >/tmp/p1k
say "read policy: $((DIRS * FILES)) files of 1 KiB in $DIRS directories, $ROUNDS rounds of pid and tier, the disk at $DISK_MS ms a read"
d=0
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
emit readsetup "{\"files\":$((DIRS * FILES)),\"dirs\":$DIRS,\"rounds\":$ROUNDS,\"disk_read_delay_ms\":$DISK_MS}"
say "metadata: $(btrfs filesystem df $MNT | sed -n 's/^Metadata, \(.*\)/\1/p')"

# run POLICY WORKLOAD ROUND: one cold run, printed as a JSON object.
run() {
	local s0 f0 t0 t1 q
	umount $MNT && mount "$SDEV" $MNT || { echo "# remount failed"; exit 1; }
	echo "$1" >/sys/fs/btrfs/$UUID/read_policy || { echo "# read_policy $1 refused"; exit 1; }
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
say "done"
