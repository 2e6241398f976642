#!/bin/sh
# runtime: 220 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# Hot data tracking (patches/): what is counted, the temperature, aging,
# the mount options, the ioctls and the per-inode options, debugfs, memory
# bounds and subvolumes. Counts come from heatctl (the ioctls) and are
# checked against the kernel's debugfs dump.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

# ---- without the mount option nothing is tracked ----
fresh_fs
make_files $MNT 1 1024K
drop_caches
cat $MNT/f0 >/dev/null
out=$(heatctl get-info $MNT/f0 2>&1); rc=$?
is "without hotdatatrack, get-info fails with status 1" "$rc" 1
check "...and says tracking is not enabled on the mount" \
	sh -c "echo '$out' | grep -q 'not enabled on this mount'"
is "...because GET_HEAT_INFO answers EOPNOTSUPP" \
	"$(heat-abuse $MNT/f0 $MNT | grep '^info-good')" "info-good EOPNOTSUPP"
check "sysfs hot/ knobs answer EOPNOTSUPP until tracking is enabled" \
	sh -c "! cat $(hot_sysfs)/nr_inodes 2>/dev/null"
check "no debugfs directory for an untracked filesystem" test ! -e "$(hot_debugfs)"

# ---- mount options and remount ----
check "remount,hotdatatrack enables tracking" mount -o remount,hotdatatrack $MNT
check "/proc/mounts shows hotdatatrack" grep -q " $MNT btrfs .*hotdatatrack" /proc/mounts
drop_caches
cat $MNT/f0 >/dev/null
r1=$(info $MNT/f0 reads)
check "a cold read after dropping caches is counted ($r1 reads)" test "$r1" -ge 1
cat $MNT/f0 >/dev/null
is "a read served from the page cache is not counted" "$(info $MNT/f0 reads)" "$r1"
check "remount,nohotdatatrack" mount -o remount,nohotdatatrack $MNT
check "/proc/mounts no longer shows hotdatatrack" \
	sh -c "! grep -q ' $MNT btrfs .*hotdata' /proc/mounts"
drop_caches
cat $MNT/f0 >/dev/null
check "remount,hotdatamove (implies tracking)" mount -o remount,hotdatamove $MNT
check "/proc/mounts shows hotdatamove" grep -q " $MNT btrfs .*hotdatamove" /proc/mounts
is "reads while tracking was off were not counted" "$(info $MNT/f0 reads)" "$r1"
drop_caches
cat $MNT/f0 >/dev/null
check "after remount,hotdatamove counting resumes" test "$(info $MNT/f0 reads)" -gt "$r1"
check "remount,nohotdatamove keeps tracking" mount -o remount,nohotdatamove $MNT
check "/proc/mounts shows hotdatatrack, not hotdatamove" \
	sh -c "grep ' $MNT btrfs ' /proc/mounts | grep -q 'hotdatatrack' &&
	       ! grep ' $MNT btrfs ' /proc/mounts | grep -q hotdatamove"

# ---- what is counted, and where ----
fresh_fs hotdatatrack
make_files $MNT/w 1 4096K
drop_caches
B=$MNT/w/f0
w_inode=$(info $B writes)
s3=$(dbg_range $B 3145728 9)
l3=$(dbg_range $B 3145728 5)
r2=$(dbg_range $B 2097152 5)/$(dbg_range $B 2097152 9)
dd if=/dev/urandom of=$B bs=4k count=1 seek=769 conv=notrunc,fsync 2>/dev/null
is "a 4 KiB write plus fsync is one more write of the file" \
	"$(info $B writes)" $((w_inode + 1))
# A range keeps no counters: its score (4096 to an access, as of its last
# access) grows by one access, less what the old score lost meanwhile.
s=$(dbg_range $B 3145728 9)
check "...and one more access of the 1 MiB range that holds it ($s3 -> $s)" \
	test $((s - s3)) -le 4096 -a $((s - s3)) -gt 4000
check "...which it records as its last" test "$(dbg_range $B 3145728 5)" -gt "$l3"
is "...and no other range changes" \
	"$(dbg_range $B 2097152 5)/$(dbg_range $B 2097152 9)" "$r2"

r=$(info $B reads)
direct_reads $B 10
is "10 direct I/O reads are 10 reads" "$(info $B reads)" $((r + 10))
w=$(info $B writes)
dd if=/dev/zero of=$B bs=4k count=3 oflag=direct conv=notrunc 2>/dev/null
is "3 direct I/O writes are 3 writes" "$(info $B writes)" $((w + 3))
drop_caches
r=$(info $B reads)
xfs_io -c "mmap -r 0 1m" -c "mread 0 1m" $B >/dev/null
check "reads through mmap are counted" test "$(info $B reads)" -gt "$r"
w=$(info $B writes)
xfs_io -c "mmap -w 0 4k" -c "mwrite 0 4k" -c "msync -s 0 4k" $B >/dev/null
check "writes through mmap are counted at writeback" test "$(info $B writes)" -gt "$w"

# A file written while writeback flushes it (a download, a log, a copy on
# a busy machine; here an fsync after every 512 KiB) reaches the disk in
# pieces, each a write of the ranges it touches. A piece that goes on
# where the last one ended adds only its share of a range, so a range
# written once is one access, however many flushes it took.
Q=$MNT/w/seq
i=0
while [ $i -lt 4 ]; do
	dd if=/dev/urandom of=$Q bs=512k count=1 seek=$i conv=notrunc,fsync \
		2>/dev/null
	i=$((i + 1))
done
s=$(dbg_range $Q 1048576 9)
check "a range written back in two halves scores one access ($s, 4096 less decay)" \
	test "$s" -gt 4000 -a "$s" -le 4096
t=$(dbg_range $Q 1048576 7)
check "...that heat it as one access ($t, 57 to 64), not two (72)" \
	test "$t" -gt 56 -a "$t" -le 64

# Appends of 100000 bytes flushed one by one (a log, a download in odd
# chunks): each flush starts in the block where the last one ended.
i=0
while [ $i -lt 22 ]; do
	dd if=/dev/urandom of=$MNT/w/log bs=100000 count=1 iflag=fullblock \
		oflag=append conv=notrunc,fsync 2>/dev/null
	i=$((i + 1))
done
n=$(info $MNT/w/log writes)
check "each flush of the appends is a write of the file ($n)" test "$n" -ge 22
s=$(dbg_range $MNT/w/log 1048576 9)
check "...and the range's ten or so flushes score one access ($s, 3900 to 4096)" \
	test "$s" -gt 3900 -a "$s" -le 4096
t=$(dbg_range $MNT/w/log 1048576 7)
check "...that heat it as one access ($t, 57 to 64), not ten (over 88)" \
	test "$t" -gt 56 -a "$t" -le 64

# ---- GET_HEAT_INFO against debugfs ----
is "GET_HEAT_INFO and inode_data agree on reads" \
	"$(info $B reads)" "$(dbg_inode $B 3)"
is "GET_HEAT_INFO and inode_data agree on writes" \
	"$(info $B writes)" "$(dbg_inode $B 4)"
is "GET_HEAT_INFO's indexed temperature is inode_data's bucket" \
	"$(indexed $B)" "$(dbg_inode $B 10)"
check "range_data lists the file's four 1 MiB ranges" \
	test "$(awk -v i="$(ino_of $B)" '$2 == i' "$(hot_debugfs)/range_data" | wc -l)" -eq 4
check "heatctl get-info prints dates and a temperature" \
	sh -c "heatctl get-info $B | grep -q 'temperature: *[0-9]*/223' &&
	       heatctl get-info $B | grep -q 'last read: *20[0-9][0-9]-'"

# ---- temperature ----
make_files $MNT/t 2 8192K
# Fresh writes sit in the page cache, where direct reads are served too.
drop_caches
H=$MNT/t/f0
C=$MNT/t/f1
direct_reads $C 1
prev=0 mono=1 i=0
while [ $i -lt 10 ]; do
	direct_reads $H 200
	t=$(info $H temperature)
	[ "$t" -ge "$prev" ] || mono=0
	prev=$t
	i=$((i + 1))
done
diag "2000 reads: temperature $prev; 1 read: $(info $C temperature)"
is "the temperature of a file never drops while its reads grow" $mono 1
check "a file read 2000 times is hotter than a file read once" \
	test "$prev" -gt "$(info $C temperature)"

# ---- aging ----
S=$(hot_sysfs)
echo 2 >$S/halflife
echo 1 >$S/age_interval
make_files $MNT/a 2 4096K
drop_caches
I=$MNT/a/f0
U=$MNT/a/f1
direct_reads $I 500
direct_reads $U 500
echo 1 >$S/age_now
before=$(indexed $I)
i=0
while [ $i -lt 10 ]; do
	sleep 1
	direct_reads $U 50
	i=$((i + 1))
done
after=$(indexed $I)
diag "idle file: bucket $before, then $after after 10 s; busy file: $(indexed $U)"
check "an idle file cools on its own (aging moves it to colder buckets)" \
	test "$after" -lt $((before - 16))
check "...and is colder than a file still in use" test "$after" -lt "$(indexed $U)"
echo 600 >$S/halflife
echo 60 >$S/age_interval

# ---- ioctl arguments, permissions, errors ----
heat-abuse $B $MNT >/tmp/abuse
for want in info-null:EFAULT info-badptr:EFAULT info-unknown-flag:EINVAL \
	info-reserved:EINVAL info-dir:EISDIR info-good:OK opts-get-null:EFAULT \
	opts-get-flag:EINVAL opts-set-null:EFAULT opts-set-value:EINVAL \
	opts-set-flag:EINVAL opts-set-reserved:EINVAL opts-set-good:OK \
	tier-null:EFAULT tier-flag:EINVAL tier-reserved:EINVAL tier-dir:EISDIR \
	tier-wrap:OK tier-good:OK tier-wronly:EBADF list-null:EFAULT \
	list-flag:EINVAL list-reserved:EINVAL list-no-room:EINVAL \
	list-too-many:EINVAL list-other-root:EINVAL list-all:OK list-good:OK; do
	is "ioctl case ${want%%:*} gets ${want#*:}" \
		"$(grep "^${want%%:*} " /tmp/abuse)" "${want%%:*} ${want#*:}"
done
is "the tier ioctl counts every byte of the file" \
	"$(awk '$1 == "tier-good-bytes" { print $2 }' /tmp/abuse)" "$(stat -c %s $B)"
is "an unprivileged caller cannot set opts (EPERM)" \
	"$(as_user heat-abuse $B $MNT | grep '^opts-set-good')" \
	"opts-set-good EPERM"
out=$(as_user heatctl set-opts none $B 2>&1); rc=$?
is "heatctl set-opts as an unprivileged user exits 1" "$rc" 1
check "...saying permission denied" sh -c "echo '$out' | grep -q 'permission denied'"
is "a user who does not own the file may not read its heat (EPERM)" \
	"$(as_user heat-abuse $B $MNT | grep '^info-good')" \
	"info-good EPERM"
is "...nor list it, nor ask for every subvolume (EPERM)" \
	"$(as_user heat-abuse $B $MNT | grep -E '^list-(all|good)')" \
	"$(printf 'list-all EPERM\nlist-good OK\nlist-good-entries 0')"
check "...while root's list of the same subvolume has entries" \
	sh -c "heat-abuse $B $MNT | grep -q '^list-good-entries [1-9]'"
chattr +i $B
is "opts of an immutable file cannot be set (EPERM, as with setxattr)" \
	"$(heat-abuse $B $MNT | grep '^opts-set-good')" "opts-set-good EPERM"
chattr -i $B
echo x >/tmp/x
is "a file on another filesystem gets ENOTTY" \
	"$(heat-abuse /tmp/x /tmp | grep '^info-good')" "info-good ENOTTY"
out=$(heatctl get-info /tmp/x 2>&1); rc=$?
check "heatctl says it is not btrfs, status 1" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'not on a btrfs filesystem'"
heatctl set-opts 7 $B >/dev/null 2>&1; rc=$?
is "heatctl set-opts with a bad value is a usage error (2)" "$rc" 2

# ---- per-inode opts: round trip, persistence, inheritance ----
for v in none track move; do
	heatctl set-opts $v $B
	is "opts $v round-trip" "$(heatctl get-opts --json $B | jq -r '.[0].opts')" $v
done
for v in 0 1 2; do
	heatctl set-opts $v $B
	is "opts $v round-trip by number" "$(heatctl get-opts --json $B | jq -r '.[0].value')" $v
done
heatctl set-opts track $B
mkdir $MNT/cold
heatctl set-opts none $MNT/cold
is "the property is visible as btrfs.hot" \
	"$(getfattr --only-values -n btrfs.hot $B 2>/dev/null)" track
umount $MNT
mount -o hotdatatrack $SLOW_DEV $MNT || bail "remount failed"
is "opts survive unmount and mount" "$(heatctl get-opts --json $B | jq -r '.[0].opts')" track
make_files $MNT/cold 1 1024K
is "a new file inherits its directory's opts" \
	"$(heatctl get-opts --json $MNT/cold/f0 | jq -r '.[0].opts')" none
drop_caches
cat $MNT/cold/f0 >/dev/null
direct_reads $MNT/cold/f0 5
is "a file with opts none is not tracked" "$(info $MNT/cold/f0 tracked)" false

# ---- subvolumes ----
btrfs subvolume create $MNT/sv1 >/dev/null
btrfs subvolume create $MNT/sv2 >/dev/null
make_files $MNT/sv1 1 1024K
make_files $MNT/sv2 1 1024K
drop_caches
direct_reads $MNT/sv1/f0 3
direct_reads $MNT/sv2/f0 7
is "files in two subvolumes share an inode number" \
	"$(ino_of $MNT/sv1/f0)" "$(ino_of $MNT/sv2/f0)"
is "...and are tracked apart (3 reads)" "$(info $MNT/sv1/f0 reads)" 3
is "...(7 reads)" "$(info $MNT/sv2/f0 reads)" 7
is "inode_data has the first under its subvolume" "$(dbg_inode $MNT/sv1/f0 3)" 3
is "...and the second under its own" "$(dbg_inode $MNT/sv2/f0 3)" 7

# ---- memory: the cap and the shrinker ----
echo 4K >$S/range_size
echo 256K >$S/mem_limit
make_files $MNT/m 1 32M
drop_caches
cat $MNT/m/f0 >/dev/null
used=$(cat $S/mem_used)
diag "32 MiB read with 4 KiB ranges under a 256 KiB cap: $(cat $S/nr_ranges) ranges, $used bytes, $(cat $S/nr_skipped) skipped, $(cat $S/nr_evicted) evicted"
check "tracking memory stays under the cap" test "$used" -le 262144
check "accesses beyond the cap are skipped or the coldest evicted" \
	test $(($(cat $S/nr_skipped) + $(cat $S/nr_evicted))) -gt 0
if grep -q '^btrfs_hot_range ' /proc/slabinfo; then
	objs=$(awk '$1 == "btrfs_hot_range" { print $2 * $4 }' /proc/slabinfo)
	check "slab use of ranges stays under the cap ($objs bytes)" test "$objs" -le 300000
else
	skip "slab use of ranges stays under the cap" "btrfs_hot_range is merged with another cache"
fi

# Ten times more ranges than the cap holds, after a hot set: the cap
# holds, and eviction takes the flood's ranges, read once, not the hot
# set's, read eight times each. 256 KiB hold 4096 items of 64 bytes.
make_files $MNT/hot 1 256K
drop_caches
i=0
while [ $i -lt 8 ]; do direct_reads $MNT/hot/f0 64; i=$((i + 1)); done
hot_top() {
	heatctl top --ranges --json -n 64 $MNT |
		jq -r --arg f $MNT/hot/f0 '.[] | select(.path == $f) | "\(.offset) \(.temperature)"' | sort -n
}
before=$(hot_top)
is "the hot set's 64 ranges are the hottest" "$(echo "$before" | wc -l)" 64
ev=$(($(cat $S/nr_evicted) + $(cat $S/nr_skipped)))
truncate -s 160M $MNT/flood
dd if=$MNT/flood of=/dev/null bs=1M iflag=direct 2>/dev/null
sleep 1
used=$(cat $S/mem_used)
gone=$(($(cat $S/nr_evicted) + $(cat $S/nr_skipped) - ev))
diag "40960 ranges read once under a 256 KiB cap: $(cat $S/nr_ranges) tracked, $used bytes, $gone evicted or skipped"
check "the cap holds under ten times the ranges it allows ($used bytes)" \
	test "$used" -le 262144
check "...the others were evicted or never tracked ($gone of 40960)" \
	test "$gone" -ge 36000
after=$(hot_top)
is "...and the hot set's ranges are still the hottest" \
	"$(echo "$after" | cut -d' ' -f1)" "$(echo "$before" | cut -d' ' -f1)"
cold=$(echo "$after" | sort -k2n | head -1)
check "...with the heat of eight accesses, 80 or more (coldest: $cold)" \
	test "$(echo "$cold" | cut -d' ' -f2)" -ge 80

echo 64M >$S/mem_limit
direct_reads $MNT/m/f0 1000
# Let the ranges cool below the shrinker's threshold.
echo 1 >$S/halflife
sleep 6
echo 1 >$S/age_now
before=$(cat $S/nr_ranges)
echo 2 >/proc/sys/vm/drop_caches
after=$(cat $S/nr_ranges)
echo 600 >$S/halflife
diag "shrinker: $before ranges before, $after after drop_caches"
check "under memory pressure the shrinker gives cold items back" test "$after" -lt "$before"
echo 1M >$S/range_size
is "a new range size drops the tracked ranges" "$(cat $S/nr_ranges)" 0

# ---- debugfs streams large dumps ----
echo 4K >$S/range_size
direct_reads $MNT/m/f0 8192
n=$(wc -l <"$(hot_debugfs)/range_data")
check "range_data streams all $n lines of a large dump" test "$n" -gt 8192
# A read at another position would make seq_file show every line before it,
# walking the whole index under the tree lock: the files cannot seek.
is "a positioned read of range_data is refused (ESPIPE)" \
	"$(xfs_io -r -c 'pread -q 65536 4096' "$(hot_debugfs)/range_data" 2>&1 |
		grep -c 'Illegal seek')" 1
# io_uring hands a read's position to the file as given, without the
# nonseekable check of pread().
check "...and so is an io_uring read at a position" \
	sh -c "fio --name=pos --filename=$(hot_debugfs)/range_data --readonly \
		--ioengine=io_uring --rw=read --bs=4k --size=64k --offset=65536 \
		--number_ios=1 2>&1 | grep -q 'err=29.*Illegal seek'"
check "unmount" umount $MNT
check "btrfs check is clean" btrfs check $SLOW_DEV
done_testing
