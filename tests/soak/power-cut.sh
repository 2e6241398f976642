#!/bin/sh
# shellcheck shell=dash
# guest-env: SLOW_SIZE=3G FAST_SIZE=1G LOG_SIZE=16G
#
# Power cuts that drop what the disks had not flushed (issue #14), the way
# fstests' generic/482 proves it for one device, extended to our two.
#
# Record: each device sits under its own dm-log-writes target (logs on a
# third disk). The mover runs passes back to back, promoting and demoting,
# while a writer creates, fsyncs and deletes files. Every MARK_MS a marker
# suspends both targets (in-flight I/O completes, no new I/O reaches
# either), sends both the same mark, and resumes them. dm-log-writes logs
# a write only once a flush made it durable (or it was FUA), so the log of
# a device up to a mark is what that device holds after a power cut at
# that moment; with both targets suspended around the two marks, the two
# logs cut at the same mark are one instant of the pair, a state a real
# power cut can leave.
#
# Replay: both disks are zeroed, as they were when logging began; for each
# mark in turn the logs are applied up to it, and a copy-on-write snapshot
# of each disk is checked: btrfs check, mount (log replay included), the
# data set the mover moves reads its checksums, every file whose fsync had
# returned before the mark reads back in full, no file reads anything but
# a prefix of what was written to it, and every SCRUB_EVERY-th point a
# scrub. The btrfs devices start 1 MiB into each disk so that only the
# snapshots carry a btrfs superblock where the scanners look for one.
#
# A soak test, not part of make test (about an hour on the debug kernel):
#   make soak TESTS=soak-power-cut
# or
#   SLOW_SIZE=3G FAST_SIZE=1G LOG_SIZE=16G qemu-topology/run-guest.sh \
#       -k debug -t 5400 -n power-cut tests/soak/power-cut.sh
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

RECORD_S=${HEAT_RECORD_S:-200}	# guest seconds of recorded workload
MARK_MS=${HEAT_MARK_MS:-100}	# pause between two marks
SCRUB_EVERY=${HEAT_SCRUB_EVERY:-5}
OFF=2048			# 1 MiB in 512-byte sectors

LOG_DEV=
i=0
while [ -z "$LOG_DEV" ] && [ $i -lt 100 ]; do
	for d in /sys/block/sd*; do
		grep -q HEAT_LOG "$d/device/model" 2>/dev/null && LOG_DEV=/dev/${d##*/}
	done
	[ -n "$LOG_DEV" ] || sleep 0.1
	i=$((i + 1))
done
[ -b "$LOG_DEV" ] || bail "no log disk (run with LOG_SIZE set)"
S=$(blockdev --getsz "$SLOW_DEV")
F=$(blockdev --getsz "$FAST_DEV")
L=$(blockdev --getsz "$LOG_DEV")
# The log disk: the two logs, then the two snapshots' exception stores.
COW=$((1024 * 2048))
LOGLEN=$(((L - OFF - 2 * COW) / 2))
[ $LOGLEN -gt $((2 * S / 3)) ] || bail "log disk too small: $L sectors"
dm() { dmsetup create "$1" --table "$2" && dmsetup mknodes "$1"; }
dm loga "0 $LOGLEN linear $LOG_DEV $OFF" || bail "dm loga"
dm logb "0 $LOGLEN linear $LOG_DEV $((OFF + LOGLEN))" || bail "dm logb"
dm cowa "0 $COW linear $LOG_DEV $((OFF + 2 * LOGLEN))" || bail "dm cowa"
dm cowb "0 $COW linear $LOG_DEV $((OFF + 2 * LOGLEN + COW))" || bail "dm cowb"
dd if=/dev/zero of=/dev/mapper/loga bs=1M count=1 2>/dev/null
dd if=/dev/zero of=/dev/mapper/logb bs=1M count=1 2>/dev/null

# ---- record ----
dm lwa "0 $S log-writes $SLOW_DEV /dev/mapper/loga" || bail "dm lwa"
dm lwb "0 $F log-writes $FAST_DEV /dev/mapper/logb" || bail "dm lwb"
# Fill the first 64 KiB of each log with marks, so that no superblock a
# log holds lies where a scanner looks for one.
i=0
while [ $i -lt 160 ]; do
	dmsetup message lwa 0 mark pad
	dmsetup message lwb 0 mark pad
	i=$((i + 1))
done
dm hs "0 $((S - OFF)) linear /dev/mapper/lwa $OFF" || bail "dm hs"
dm hf "0 $((F - OFF)) linear /dev/mapper/lwb $OFF" || bail "dm hf"
mkfs.btrfs -q -f -K -d single -m raid1 /dev/mapper/hs /dev/mapper/hf ||
	bail "mkfs"
mkdir -p $MNT
mount -o hotdatamove,commit=5 /dev/mapper/hs $MNT || bail "mount"
H=$(hot_sysfs)
U=$(fs_uuid)
is "the device over the NVMe is the fast tier" \
	"$(cut -d' ' -f1 /sys/fs/btrfs/"$U"/devinfo/2/tier)" fast
is "the device over the SATA disk is the slow tier" \
	"$(cut -d' ' -f1 /sys/fs/btrfs/"$U"/devinfo/1/tier)" slow
# Short memory and low watermarks, so that passes both promote and
# demote within the recorded minutes.
echo 3 >$H/halflife
echo 1 >$H/age_interval
echo 40 >$H/mover_demote_temp
# Data cold after a few half-lives must leave, mount or not.
echo 0 >$H/mover_grace
echo 64 >$H/mover_promote_temp
echo 2 >$H/mover_low_watermark
echo 4 >$H/mover_high_watermark

# The pool the writer copies from: a file it wrote reads as a prefix of
# its pool file, or the check calls it garbage.
mkdir -p /tmp/pool /tmp/man
for k in 0 1 2 3; do
	dd if=/dev/urandom of=/tmp/pool/p$k bs=64k count=$((4 * (k + 1))) 2>/dev/null
done
make_files $MNT/d 8 4096K
mkdir -p $MNT/w
sync
dsum=$(sums $MNT/d/f*)
: >/tmp/fsynced

rm -f /tmp/stop
( while [ ! -e /tmp/stop ]; do
	echo 1 >$H/mover_run 2>/dev/null || sleep 0.2
done ) &
mover=$!
# heat: the hot set shifts every few seconds. Promotion stops at the high
# watermark and demotion starts only above it, so every fourth round of
# heating the watermarks drop to half (the passes demote) or come back
# (they promote again).
( n=0; while [ ! -e /tmp/stop ]; do
	if [ $((n % 8)) = 4 ]; then
		echo 1 >$H/mover_low_watermark
		echo 2 >$H/mover_high_watermark
	elif [ $((n % 8)) = 0 ]; then
		echo 4 >$H/mover_high_watermark
		echo 2 >$H/mover_low_watermark
	fi
	heat_up $MNT/d/f$((n % 8)) 2
	heat_up $MNT/d/f$(((n + 1) % 8)) 2
	for f in $(ls $MNT/w 2>/dev/null | tail -n 4); do
		heat_up $MNT/w/"$f" 2 2>/dev/null
	done
	sleep 2
	n=$((n + 1))
done ) &
heater=$!
# writer: a file is listed in /tmp/fsynced once its fsync returned, and
# marked "-" there before it is deleted.
( n=0; while [ ! -e /tmp/stop ]; do
	k=$((n % 4))
	dd if=/tmp/pool/p$k of=$MNT/w/$n.$k bs=64k conv=fsync 2>/dev/null &&
		echo "$n.$k" >>/tmp/fsynced
	if [ $n -ge 12 ] && [ $((n % 3)) = 0 ]; then
		old=$((n - 12))
		echo "-$old.$((old % 4))" >>/tmp/fsynced
		rm -f $MNT/w/$old.$((old % 4))
	fi
	n=$((n + 1))
	sleep 0.3
done ) &
writer=$!

st() { awk -v k="$1" '$1 == k { print $2 }' $H/mover_stats; }
p0=$(st promoted_bytes)
q0=$(st demoted_bytes)
: >/tmp/marks
k=0
t_end=$(($(date +%s) + RECORD_S))
while [ "$(date +%s)" -lt $t_end ]; do
	k=$((k + 1))
	dmsetup suspend --nolockfs lwa lwb
	cp /tmp/fsynced /tmp/man/$k
	dmsetup message lwa 0 mark m$k
	dmsetup message lwb 0 mark m$k
	dmsetup resume lwb lwa
	echo "$k $(st pass_in_progress)" >>/tmp/marks
	usleep $((MARK_MS * 1000))
done
touch /tmp/stop
wait $mover $heater $writer
p1=$(st promoted_bytes)
q1=$(st demoted_bytes)
diag "recorded $k marks over ${RECORD_S} s: promoted $((p1 - p0)) bytes, demoted $((q1 - q0)) bytes, $(wc -l </tmp/fsynced) writer records"
diag "mover: $(tr '\n' ' ' <$H/mover_stats | cut -c1-400)"
check "the passes promoted data while the logs recorded" test $((p1 - p0)) -gt 0
check "...and demoted data" test $((q1 - q0)) -gt 0
mid=$(awk '$2 == 1' /tmp/marks | wc -l)
check "marks fell in the middle of passes ($mid of $k)" test "$mid" -gt 0
umount $MNT || bail "umount"
blockdev --flushbufs /dev/mapper/hs
blockdev --flushbufs /dev/mapper/hf
dmsetup remove hs hf lwa lwb || bail "dm remove"
btrfs device scan --forget

# ---- replay ----
log-replay marks /dev/mapper/loga | grep ' m[0-9]*$' >/tmp/ma || bail "log A"
log-replay marks /dev/mapper/logb | grep ' m[0-9]*$' >/tmp/mb || bail "log B"
diag "log A: $(wc -l </tmp/ma) marks, log B: $(wc -l </tmp/mb) marks"
is "both logs hold every mark" "$(wc -l </tmp/ma) $(wc -l </tmp/mb)" "$k $k"
# Every write that reached the disks went through the targets and, with
# the flushes above, into the logs: zeroing what the logs write restores
# the zeroed disks the run began with.
log-replay zero /dev/mapper/loga "$SLOW_DEV" >/dev/null || bail "zero A"
log-replay zero /dev/mapper/logb "$FAST_DEV" >/dev/null || bail "zero B"

points=0 bad_check=0 bad_mount=0 bad_d=0 bad_sync=0 garbage=0 scrubs=0 bad_scrub=0
# A log's first entry sits one log sector in; "marks" prints the size.
ia=0 oa=$(log-replay marks /dev/mapper/loga | awk 'NR == 1 { print $5 }')
ib=0 ob=$(log-replay marks /dev/mapper/logb | awk 'NR == 1 { print $5 }')
fail() { [ "$nfail" -lt 20 ] && diag "point $1: $2"; nfail=$((nfail + 1)); }
nfail=0
while read -r ja pa ma && read -r jb pb mb <&3; do
	[ "$ma" = "$mb" ] || { fail "$ma" "logs out of step: $ma/$mb"; break; }
	kk=${ma#m}
	log-replay apply /dev/mapper/loga "$SLOW_DEV" $ia $oa $ja >/dev/null ||
		bail "replay A to $ma"
	log-replay apply /dev/mapper/logb "$FAST_DEV" $ib $ob $jb >/dev/null ||
		bail "replay B to $mb"
	ia=$ja oa=$pa ib=$jb ob=$pb
	points=$((points + 1))
	# a superblock an earlier snapshot copied into a store must not
	# show up as a third device to the scanners
	dd if=/dev/zero of=/dev/mapper/cowa bs=1M count=1 2>/dev/null
	dd if=/dev/zero of=/dev/mapper/cowb bs=1M count=1 2>/dev/null
	dm ca "0 $S snapshot $SLOW_DEV /dev/mapper/cowa N 8" || bail "snapshot A"
	dm cb "0 $F snapshot $FAST_DEV /dev/mapper/cowb N 8" || bail "snapshot B"
	dm cs "0 $((S - OFF)) linear /dev/mapper/ca $OFF" || bail "dm cs"
	dm cf "0 $((F - OFF)) linear /dev/mapper/cb $OFF" || bail "dm cf"
	if ! btrfs check /dev/mapper/cs >/tmp/check.out 2>&1; then
		bad_check=$((bad_check + 1))
		fail "$ma" "btrfs check: $(grep -m1 -i 'error\|mismatch' /tmp/check.out)"
	fi
	btrfs device scan --forget
	if mount -t btrfs -o device=/dev/mapper/cf /dev/mapper/cs $MNT; then
		[ "$(sums $MNT/d/f*)" = "$dsum" ] || {
			bad_d=$((bad_d + 1)); fail "$ma" "the moved data set changed"; }
		# what had been fsynced and not deleted must read back in full
		for f in $(awk '/^-/ { gone[substr($1, 2)] = 1; next }
				{ have[$1] = 1 }
				END { for (f in have) if (!(f in gone)) print f }' \
				/tmp/man/"$kk"); do
			cmp -s $MNT/w/"$f" /tmp/pool/p"${f#*.}" || {
				bad_sync=$((bad_sync + 1)); fail "$ma" "fsynced w/$f"; }
		done
		# whatever else is there is a prefix of what was written
		for p in $MNT/w/*; do
			[ -e "$p" ] || continue
			f=${p##*/}
			sz=$(stat -c %s "$p")
			if ! cmp -s -n "$sz" $MNT/w/"$f" /tmp/pool/p"${f#*.}" ||
			   [ "$sz" -gt "$(stat -c %s /tmp/pool/p"${f#*.}")" ]; then
				garbage=$((garbage + 1)); fail "$ma" "w/$f reads garbage"
			fi
		done
		if [ $((points % SCRUB_EVERY)) = 0 ]; then
			# A commit first: btrfs writes the superblock copies
			# without FUA, so after a power cut they may hold an
			# older generation until the next commit rewrites them,
			# which scrub reports as a super block error.
			touch $MNT/.commit && sync
			scrubs=$((scrubs + 1))
			scrub_clean $MNT >/tmp/scrub.out 2>&1 || {
				bad_scrub=$((bad_scrub + 1))
				fail "$ma" "scrub: $(grep -m1 -i 'error' /tmp/scrub.out)"; }
		fi
		umount $MNT || bail "umount at $ma"
	else
		bad_mount=$((bad_mount + 1))
		fail "$ma" "mount failed: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	btrfs device scan --forget
	dmsetup remove cs cf ca cb || bail "dm remove at $ma"
done </tmp/ma 3</tmp/mb

check "at least 200 crash points replayed ($points)" test $points -ge 200
is "btrfs check is clean at every crash point" $bad_check 0
is "the filesystem mounts at every crash point" $bad_mount 0
is "the data set the mover moved reads its checksums at every point" $bad_d 0
is "every file fsynced before a point reads back in full" $bad_sync 0
is "no file reads garbage at any point" $garbage 0
check "scrub ran ($scrubs points)" test $scrubs -gt 0
is "scrub is clean at every point it ran" $bad_scrub 0
dmsetup remove loga logb cowa cowb
done_testing
