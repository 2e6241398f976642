#!/bin/sh
# shellcheck shell=dash
# guest-env: SLOW_SIZE=2G FAST_SIZE=1G LOG_SIZE=2G
#
# Administrative operations during mover passes (issue #14). Passes run
# back to back, promoting and demoting both unshared files (rewritten
# range by range) and files shared with a read-only snapshot (moved with
# their block group, holding balance's exclusive operation), while a
# writer creates, fsyncs and deletes files. Each operation starts while
# a pass is in progress and must succeed as it would on an idle
# filesystem: scrub, full and filtered balance, shrinking and growing
# each device, snapshot deletion, quota enable and rescan, fstrim,
# freeze and thaw, removing the NVMe and adding it back, and replacing
# the SATA disk with a spare (the third disk, made rotational). After
# each one every file reads its checksum; at the end every fsynced file
# reads back, scrub and btrfs check are clean and no pass counted an
# error.
#
# A soak test, not part of make test (about 15 minutes on the debug
# kernel):
#   make soak TESTS=soak-admin-ops
# or
#   SLOW_SIZE=2G FAST_SIZE=1G LOG_SIZE=2G qemu-topology/run-guest.sh \
#       -k debug -t 3600 -n admin-ops tests/soak/admin-ops.sh
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

SPARE=
i=0
while [ -z "$SPARE" ] && [ $i -lt 100 ]; do
	for d in /sys/block/sd*; do
		grep -q HEAT_LOG "$d/device/model" 2>/dev/null && SPARE=/dev/${d##*/}
	done
	[ -n "$SPARE" ] || sleep 0.1
	i=$((i + 1))
done
[ -b "$SPARE" ] || bail "no spare disk (run with LOG_SIZE set)"
# The spare stands in for a second hard disk.
echo 1 >/sys/block/"${SPARE#/dev/}"/queue/rotational

fresh_fs hotdatamove,commit=5
S=$(hot_sysfs)
U=$(fs_uuid)
echo 3 >$S/halflife
echo 1 >$S/age_interval
echo 40 >$S/mover_demote_temp
# Data cold after a few half-lives must leave, mount or not.
echo 0 >$S/mover_grace
echo 64 >$S/mover_promote_temp
echo 3 >$S/mover_low_watermark
echo 6 >$S/mover_high_watermark

make_files $MNT/d 8 4096K
btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 8 4096K
sync
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
sync
sums $MNT/d/f* $MNT/sv/f* $MNT/ro/f* >/tmp/dsum
mkdir -p /tmp/pool $MNT/w
for k in 0 1 2 3; do
	dd if=/dev/urandom of=/tmp/pool/p$k bs=64k count=$((4 * (k + 1))) 2>/dev/null
done
: >/tmp/fsynced

rm -f /tmp/stop
( while [ ! -e /tmp/stop ]; do
	echo 1 >$S/mover_run 2>/dev/null || sleep 0.5
done ) &
mover=$!
# heat: the hot set shifts every few seconds, among unshared files and
# files shared with the snapshot; every fourth round the watermarks drop
# to half (passes demote) or come back (they promote again).
( n=0; while [ ! -e /tmp/stop ]; do
	if [ $((n % 8)) = 4 ]; then
		echo 1 >$S/mover_low_watermark
		echo 2 >$S/mover_high_watermark
	elif [ $((n % 8)) = 0 ]; then
		echo 6 >$S/mover_high_watermark
		echo 3 >$S/mover_low_watermark
	fi
	heat_up $MNT/d/f$((n % 8)) 2
	heat_up $MNT/sv/f$((n % 8)) 2
	heat_up $MNT/sv/f$(((n + 3) % 8)) 2
	sleep 2
	n=$((n + 1))
done ) &
heater=$!
# writer: a file is listed in /tmp/fsynced once its fsync returned, and
# its line is removed before it is deleted.
( n=0; while [ ! -e /tmp/stop ]; do
	k=$((n % 4))
	dd if=/tmp/pool/p$k of=$MNT/w/$n.$k bs=64k conv=fsync 2>/dev/null &&
		echo "$n.$k" >>/tmp/fsynced
	if [ $n -ge 12 ] && [ $((n % 3)) = 0 ]; then
		old=$((n - 12))
		grep -v "^$old\.$((old % 4))\$" /tmp/fsynced >/tmp/fsynced.new
		mv /tmp/fsynced.new /tmp/fsynced
		rm -f $MNT/w/$old.$((old % 4))
	fi
	n=$((n + 1))
	sleep 0.5
done; echo "$n" >/tmp/writer.done ) &
writer=$!

ops=0
# during NAME CMD...: run CMD while a pass is in progress; it must
# succeed, passes must go on during it and every file keep its data.
during() {
	local name=$1 p0 p1 m0 m1 t0 rc
	shift
	ops=$((ops + 1))
	wait_in_pass 100 || diag "$name: no pass in progress at the start"
	p0=$(stat_of passes)
	m0=$(($(stat_of promoted_bytes) + $(stat_of demoted_bytes)))
	t0=$(date +%s)
	check "$name, started during a pass, succeeds" "$@"
	rc=$?
	sleep 1
	p1=$(stat_of passes)
	m1=$(($(stat_of promoted_bytes) + $(stat_of demoted_bytes)))
	diag "$name: $(($(date +%s) - t0)) s, $((p1 - p0)) passes ended, $((m1 - m0)) bytes moved meanwhile"
	check "...passes went on during it" test "$p1" -gt "$p0"
	is "...every file reads its checksum" \
		"$(sums $MNT/d/f* $MNT/sv/f* $MNT/ro/f*)" "$(cat /tmp/dsum)"
	return $rc
}

resize() { btrfs filesystem resize "$1" $MNT >/dev/null; }
freeze() { fsfreeze --freeze $MNT && sleep 3 && fsfreeze --unfreeze $MNT; }
snapdel() {
	btrfs subvolume snapshot $MNT/sv $MNT/tmpsnap >/dev/null &&
		dd if=/dev/urandom of=$MNT/tmpsnap/f0 bs=1M count=4 conv=notrunc,fsync 2>/dev/null &&
		btrfs subvolume delete $MNT/tmpsnap >/dev/null &&
		btrfs subvolume sync $MNT
}
quota() {
	btrfs quota enable $MNT && btrfs quota rescan -w $MNT >/dev/null
}
# the NVMe leaves (metadata to dup first: raid1 needs two devices) and
# comes back as a new device
remove_fast() {
	btrfs balance start -mconvert=dup -sconvert=dup -f $MNT >/dev/null &&
		btrfs device remove "$FAST_DEV" $MNT
}
add_fast() {
	btrfs device add -f "$FAST_DEV" $MNT &&
		btrfs balance start -mconvert=raid1 -sconvert=raid1 -f $MNT >/dev/null
}

# Let the passes get going before the first operation.
sleep 20
check "passes have promoted data before the operations" \
	test "$(stat_of promoted_bytes)" -gt 0
during "scrub" scrub_clean $MNT
during "a full balance" btrfs balance start --full-balance $MNT
during "a balance of data under half full" btrfs balance start -dusage=50 $MNT
during "a balance of the NVMe's data" btrfs balance start -ddevid=2 $MNT
during "shrinking the NVMe by 256 MiB" resize 2:-256M
during "growing it back" resize 2:max
during "shrinking the SATA disk by 512 MiB" resize 1:-512M
during "growing it back" resize 1:max
during "snapshot deletion" snapdel
during "quota enable and rescan" quota
during "fstrim" fstrim $MNT
during "freeze and thaw" freeze
during "removing the NVMe" remove_fast
is "...and the filesystem has one device left" \
	"$(btrfs filesystem show $MNT | grep -c 'devid ')" 1
during "adding it back" add_fast
devid=$(btrfs filesystem show $MNT | awk -v d="$FAST_DEV" '$NF == d { print $2 }')
is "...as the fast tier" \
	"$(cut -d' ' -f1 /sys/fs/btrfs/"$U"/devinfo/"$devid"/tier)" fast
during "replacing the SATA disk with the spare" \
	btrfs replace start -B 1 "$SPARE" $MNT
is "...which is the slow tier" \
	"$(cut -d' ' -f1 /sys/fs/btrfs/"$U"/devinfo/1/tier)" slow
p_end=$(stat_of promoted_bytes)
sleep 30
check "passes promote onto the NVMe that came back" \
	test "$(stat_of promoted_bytes)" -gt "$p_end"
diag "fast bytes of the hot files: $(for f in $MNT/d/f* $MNT/sv/f*; do fast_bytes "$f"; done | tr '\n' ' ')"

touch /tmp/stop
wait $mover $heater
wait $writer
check "the writer ran to the end" test -s /tmp/writer.done
diag "mover: $(tr '\n' ' ' <$S/mover_stats | cut -c1-600)"
check "passes demoted data too" test "$(stat_of demoted_bytes)" -gt 0
is "no pass counted an error" "$(stat_of errors)" 0
bad=0
for f in $(cat /tmp/fsynced); do
	k=${f#*.}
	cmp -s -n "$(stat -c %s /tmp/pool/p"$k")" $MNT/w/"$f" /tmp/pool/p"$k" ||
		bad=$((bad + 1))
done
is "every fsynced file reads what was written ($(wc -l </tmp/fsynced) files)" $bad 0
is "the filesystem stayed writable (no abort)" \
	"$(grep " $MNT " /proc/mounts | cut -d' ' -f4 | cut -d, -f1)" rw
check "scrub is clean" scrub_clean $MNT
umount $MNT || bail "umount"
check "btrfs check is clean (quota groups included)" btrfs check --qgroup-report "$SPARE"
check "...and the filesystem mounts again" mount "$SPARE" $MNT
is "...with every file's data" \
	"$(sums $MNT/d/f* $MNT/sv/f* $MNT/ro/f*)" "$(cat /tmp/dsum)"
umount $MNT
diag "$ops operations"
done_testing
