#!/bin/sh
# shellcheck shell=dash
# guest-env: SLOW_SIZE=1G FAST_SIZE=512M
#
# Both tiers nearly full with writers running (issue #14). The mover is
# told to fill the fast tier (watermarks 97/98 %) and passes run back to
# back while one writer fills the filesystem with 1 MiB files and another
# creates small files, whose data is inline and so takes metadata space.
# A write may fail with ENOSPC only when the filesystem is really full
# (the big writer's first ENOSPC comes with little free space left), the
# small-file writer never hits ENOSPC first (metadata does not run out
# while data has room), no transaction aborts, the mover backs off
# without counting errors, and once space is freed passes move data
# again. Every file that was written in full reads back; scrub and
# btrfs check are clean.
#
# A soak test, not part of make test (a few minutes on the debug kernel):
#   make soak TESTS=soak-full
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

fresh_fs hotdatamove,commit=5
S=$(hot_sysfs)
# each knob must keep low < high and demote < promote as it is written
echo 98 >$S/mover_high_watermark || bail "high watermark"
echo 97 >$S/mover_low_watermark || bail "low watermark"
echo 4 >$S/mover_demote_temp || bail "demote temperature"
echo 0 >$S/mover_grace || bail "grace"
echo 8 >$S/mover_promote_temp || bail "promote temperature"
a0=$(dmesg | grep -c -E "Transaction aborted|forced readonly")

make_files $MNT/d 16 4096K
sync
sums $MNT/d/f* >/tmp/dsum
mkdir -p $MNT/big $MNT/small
dd if=/dev/urandom of=/tmp/mb bs=1M count=1 2>/dev/null
head -c 1500 /dev/urandom >/tmp/kb

rm -f /tmp/stop
( while [ ! -e /tmp/stop ]; do
	echo 1 >$S/mover_run 2>/dev/null || sleep 0.5
done ) &
mover=$!
( while [ ! -e /tmp/stop ]; do
	for f in $MNT/d/f* $(ls $MNT/big/* 2>/dev/null | tail -n 8); do
		heat_up "$f" 1 2>/dev/null
	done
	sleep 1
done ) &
heater=$!
# small files: the first failure is recorded with the time
( n=0; while [ ! -e /tmp/stop ]; do
	if cp /tmp/kb $MNT/small/$n 2>/tmp/small.err; then
		n=$((n + 1))
	else
		[ -e /tmp/small.enospc ] || date +%s.%N >/tmp/small.enospc
		rm -f $MNT/small/$n
		sleep 0.2
	fi
done; echo $n >/tmp/small.n ) &
small=$!

# the big writer, in the foreground: until the first ENOSPC
n=0
while dd if=/tmp/mb of=$MNT/big/$n bs=1M conv=fsync 2>/tmp/big.err; do
	n=$((n + 1))
done
t_big=$(date +%s.%N)
rm -f $MNT/big/$n
diag "big writer: $n files of 1 MiB, then: $(tail -1 /tmp/big.err)"
usage=$(btrfs filesystem usage -b $MNT)
echo "$usage" | sed -n '1,12p' | sed 's/^/# /'
# Data chunks full, and no room for a new one: what is left unallocated
# is the room tiered allocation keeps for metadata.
dsize=$(echo "$usage" | awk '/^Data,/ { s = $2; gsub(/[^0-9]/, "", s); print s }')
dused=$(echo "$usage" | awk '/^Data,/ { u = $3; gsub(/[^0-9]/, "", u); print u }')
check "the big writer's failure is ENOSPC" grep -q "No space left" /tmp/big.err
check "...with the data chunks 97 % used or more ($dused of $dsize bytes)" \
	test $((dused * 100)) -ge $((dsize * 97))
if [ -e /tmp/small.enospc ]; then
	check "the small-file writer hit ENOSPC no earlier than the big one" \
		awk -v a="$(cat /tmp/small.enospc)" -v b="$t_big" 'BEGIN { exit !(a + 0 >= b + 0) }'
else
	ok "the small-file writer hit no ENOSPC while data had room"
fi
# Full: passes go on a while and must not fail.
e0=$(stat_of errors)
p0=$(stat_of passes)
sleep 20
p1=$(stat_of passes)
check "passes go on with the filesystem full ($((p1 - p0)))" test "$p1" -gt "$p0"
is "...and count no error" "$(stat_of errors)" "$e0"
check "deleting files works on the full filesystem" rm -f $MNT/big/1 $MNT/big/2 $MNT/big/3
touch /tmp/stop
wait $mover $heater $small
diag "small writer: $(cat /tmp/small.n) files; mover: $(tr '\n' ' ' <$S/mover_stats | cut -c1-600)"
is "no transaction aborted" \
	"$(dmesg | grep -c -E "Transaction aborted|forced readonly")" "$a0"
is "the filesystem is still writable" \
	"$(grep " $MNT " /proc/mounts | cut -d' ' -f4 | cut -d, -f1)" rw

# Free half of the big files: passes move data again.
i=0
while [ $i -lt "$n" ]; do
	rm -f $MNT/big/$i
	i=$((i + 2))
done
sync
echo 80 >$S/mover_low_watermark
echo 90 >$S/mover_high_watermark
m0=$(($(stat_of promoted_bytes) + $(stat_of demoted_bytes)))
for f in $MNT/big/*; do heat_up "$f" 2; done
run_pass
run_pass
m1=$(($(stat_of promoted_bytes) + $(stat_of demoted_bytes)))
check "with space freed, passes move data again ($((m1 - m0)) bytes)" test "$m1" -gt "$m0"
is "the data set reads its checksums" "$(sums $MNT/d/f*)" "$(cat /tmp/dsum)"
bad=0
for f in $MNT/big/*; do
	cmp -s /tmp/mb "$f" || bad=$((bad + 1))
done
is "every big file written in full reads back" $bad 0
bad=0
for f in $MNT/small/*; do
	cmp -s /tmp/kb "$f" || bad=$((bad + 1))
done
is "every small file reads back ($(ls $MNT/small | wc -l))" $bad 0
check "scrub is clean" scrub_clean $MNT
umount $MNT || bail "umount"
check "btrfs check is clean" btrfs check "$SLOW_DEV"
done_testing
