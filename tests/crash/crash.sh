#!/bin/sh
# HEAT_cycle and HEAT_delay come from heat.* on the kernel command line.
# shellcheck disable=SC2154
# One power cut during mover passes (run by tests/host/crash.sh). The first
# run makes the filesystem and records checksums; every later run first
# checks what the last cut left (/test/verify.sh, its lines prefixed
# "verify: " for the host), then every run heats half of the files and
# runs a whole pass, heats the other half, starts a pass (one that demotes
# on even cycles) and, once it runs and has written 1 MiB, cuts the power
# about HEAT_delay ms later or sooner (see below) with sysrq-b: no sync,
# no unmount.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

mkdir -p $MNT
# A new boot knows no btrfs devices: register both before mounting.
btrfs device scan >/dev/null 2>&1
if [ "$HEAT_cycle" != 1 ]; then
	sh /test/verify.sh >/tmp/verify.out 2>&1
	vrc=$?
	sed 's/^/verify: /' /tmp/verify.out
	echo "verify: status $vrc"
	mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount after a power cut"
else
	mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs"
	mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount"
	make_files $MNT/d 16 8192K
	sync
	sums $MNT/d/f* >$MNT/sums.txt
	sync
fi
S=$(hot_sysfs)
# Two recent accesses (temperature 72) make a range hot here: three 1 MiB
# reads of a file heat it in a few SATA operations. The policy is not
# what this test is about; the moves are.
echo 72 >$S/mover_promote_temp
lo0=$(cat $S/mover_low_watermark) hi0=$(cat $S/mover_high_watermark)
pt0=$(cat $S/mover_promote_temp) dt0=$(cat $S/mover_demote_temp)
# demote_all (heat.sh): a fast tier "over" 1 % and every range cold
# enough to go.
defaults() {
	echo "$hi0" >$S/mover_high_watermark
	echo "$lo0" >$S/mover_low_watermark
	echo "$dt0" >$S/mover_demote_temp
	echo "$pt0" >$S/mover_promote_temp
}
# One whole pass first, so that committed moves must survive the cut too.
# On odd cycles after the first it demotes everything, so that the pass
# the cut falls in has data to promote.
for i in $(seq 0 15); do
	[ $(( (i + HEAT_cycle) % 2 )) = 0 ] && heat_up $MNT/d/f$i 3 1M
done
[ "$HEAT_cycle" -gt 1 ] && [ $((HEAT_cycle % 2)) = 1 ] && demote_all
echo 1 >$S/mover_run
# The pass saved the heat; a commit makes the save what the boot after the
# cut must load (verify.sh), as the periodic commit would in time.
sync
defaults
echo "the first pass: $(awk '$1 ~ /^(last_pass_result|promoted_bytes|demoted_bytes|fast_used_bytes|fast_capacity_bytes)$/ { printf "%s %s ", $1, $2 }' $S/mover_stats)"
echo "moved before the cut: $(awk '$1 ~ /^(promoted|demoted)_bytes$/ { s += $2 } END { print s }' $S/mover_stats) bytes"
for i in $(seq 0 15); do
	[ $(( (i + HEAT_cycle) % 2 )) = 1 ] && heat_up $MNT/d/f$i 3 1M
done
# With heat.writers=1 (the kill loop of make soak), writers run through
# the pass: fio with verification, small files made, truncated, punched
# and reflinked from the data files, and read-only snapshots of the
# writers' own subvolume made and deleted, so that the pass also meets
# shared extents (the reflinked first MiB of each data file). A snapshot
# of the whole filesystem would share all the data and leave the passes
# nothing they may rewrite. Snapshots a cut left behind go first.
if [ "${HEAT_writers:-0}" = 1 ]; then
	[ -d $MNT/c ] || btrfs subvolume create $MNT/c >/dev/null || bail "subvolume create"
	mkdir -p $MNT/snaps
	for s in $MNT/snaps/*; do
		[ -d "$s" ] || continue
		btrfs subvolume delete "$s" >/dev/null || bail "subvolume delete $s"
	done
	( fio --name=v --filename=$MNT/c/fio --size=8M --rw=randwrite --bs=4k \
		--ioengine=psync --verify=crc32c --do_verify=1 --loops=1000 \
		--runtime=60 --time_based >/dev/null 2>&1 ) &
	( n=0; while :; do
		f=$MNT/c/s$((n % 32))
		dd if=/dev/urandom of=$f bs=4k count=$((1 + n % 64)) 2>/dev/null
		xfs_io -c "fpunch 4k 8k" $f 2>/dev/null
		truncate -s $((n % 7 * 4096)) $MNT/c/s$(((n + 5) % 32)) 2>/dev/null
		xfs_io -f -c "reflink $MNT/d/f$((n % 16)) 0 0 1m" $MNT/c/r$((n % 8)) >/dev/null 2>&1
		if [ $((n % 10)) = 0 ]; then
			btrfs subvolume snapshot -r $MNT/c $MNT/snaps/s$n >/dev/null 2>&1
			btrfs subvolume delete $MNT/snaps/s$((n - 20)) >/dev/null 2>&1
		fi
		n=$((n + 1))
	done ) &
fi
# Every other cut falls in a pass that demotes what the earlier passes
# promoted.
[ $((HEAT_cycle % 2)) = 0 ] && demote_all
fast=${FAST_DEV##*/}
slow=${SLOW_DEV##*/}
# sectors written so far, to each disk: field 7 of /sys/block/DEV/stat
wsec() { awk '{ print $7 }' /sys/block/"$1"/stat; }
f0=$(wsec "$fast") s0=$(wsec "$slow")
echo "crashing ${HEAT_delay} ms into a pass"
(echo 1 >$S/mover_run) &
wait_in_pass
# The moment of the cut: HEAT_delay ms into the pass, or sooner once the
# pass has written 8 KiB for every millisecond of the delay (a pass that
# moves fast must still be running at the cut), and not before it has
# written 1 MiB (a block group relocation reads before it writes, a
# snapshot's commit can hold a pass up): up to 10 s more for that.
# With writers, their writes count too.
in_pass() { [ "$(awk '$1 == "pass_in_progress" { print $2 }' $S/mover_stats)" = 1 ]; }
target=$((2048 + HEAT_delay * 16))
t=0
while in_pass; do
	wr=$(($(wsec "$fast") - f0 + $(wsec "$slow") - s0))
	[ $wr -ge $target ] && break
	[ $t -ge "$HEAT_delay" ] && [ $wr -ge 2048 ] && break
	[ $t -ge $((HEAT_delay + 10000)) ] && break
	usleep 20000
	t=$((t + 20))
done
# The kernel log, written synchronously to the console, says what the cut
# interrupted; the host checks it.
echo "heat-cut: pass_in_progress $(awk '$1 == "pass_in_progress" { print $2 }' $S/mover_stats) fast_written $(($(wsec "$fast") - f0)) slow_written $(($(wsec "$slow") - s0)) waited_ms $t" >/dev/kmsg
echo b >/proc/sysrq-trigger
sleep 30
bail "still running after sysrq-b"
