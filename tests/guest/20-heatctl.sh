#!/bin/sh
# runtime: 90 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# heatctl against a real mount: every command's help, human and JSON
# output checked against the kernel's debugfs dump, errors and exit codes.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

for c in set-opts get-opts get-info top where status migrate; do
	check "heatctl $c --help prints its usage" \
		sh -c "heatctl $c --help | grep -q '^usage: heatctl $c'"
done
heatctl frobnicate >/dev/null 2>&1
is "an unknown command is a usage error (2)" "$?" 2

fresh_fs
make_files $MNT/d 3 2048K
out=$(heatctl top $MNT 2>&1); rc=$?
check "top on a mount without tracking fails (1) and says why" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'no heat data'"
for c in status migrate; do
	out=$(heatctl $c $MNT 2>&1); rc=$?
	check "$c on a mount without tracking fails (1) and says tracking is off" \
		sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'not enabled on this mount'"
	out=$(heatctl $c /proc 2>&1); rc=$?
	check "$c on a non-btrfs path fails (1) and says so" \
		sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'not on a btrfs filesystem'"
done
mount -o remount,hotdatatrack $MNT
drop_caches
direct_reads $MNT/d/f1 300
direct_reads $MNT/d/f2 30
direct_reads $MNT/d/f0 3

top=$(heatctl top --json $MNT)
is "top lists the most read file first" "$(echo "$top" | jq -r '.[0].path')" $MNT/d/f1
is "...then the next" "$(echo "$top" | jq -r '.[1].path')" $MNT/d/f2
is "top's reads agree with inode_data" \
	"$(echo "$top" | jq -r '.[0].reads')" "$(dbg_inode $MNT/d/f1 3)"
is "top's temperature agrees with inode_data" \
	"$(echo "$top" | jq -r '.[0].temperature')" "$(dbg_inode $MNT/d/f1 9)"
is "top -n 2 shows two entries" "$(heatctl top -n 2 --json $MNT | jq length)" 2
check "top prints a table with a header" \
	sh -c "heatctl top $MNT | head -1 | grep -q 'TEMP *READS *WRITES *TIER *FILE' &&
	       heatctl top $MNT | sed -n 2p | grep -q '$MNT/d/f1\$'"
w_fast=$(heatctl where --json $MNT/d/f1 | jq -r '.[0].fast_bytes')
w_slow=$(heatctl where --json $MNT/d/f1 | jq -r '.[0].slow_bytes')
want=-
[ "$w_fast" -gt 0 ] && [ "$w_slow" = 0 ] && want=fast
[ "$w_slow" -gt 0 ] && [ "$w_fast" = 0 ] && want=slow
[ "$w_slow" -gt 0 ] && [ "$w_fast" -gt 0 ] && want=mixed
is "top's tier column agrees with where ($want)" \
	"$(heatctl top --json $MNT | jq -r '.[0].tier')" "$want"
is "top --ranges lists the hottest range of the hottest file" \
	"$(heatctl top --ranges --json $MNT | jq -r '.[0].path')" $MNT/d/f1
btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 1 4096K
drop_caches
direct_reads $MNT/sv/f0 1000
is "a file of another subvolume is shown by subvolume and inode" \
	"$(heatctl top --json $MNT | jq -r '.[0].path')" null

# ---- top for an ordinary user: their own files, named by a walk ----
# Owners alternate, so that every page of a walk meets root's files too:
# even files are root's (mode 0600), odd ones tester's.
mkdir -m 755 $MNT/u
i=0
while [ $i -lt 40 ]; do
	head -c 65536 /dev/urandom >$MNT/u/g$i
	if [ $((i % 2)) = 1 ]; then chown tester $MNT/u/g$i; else chmod 600 $MNT/u/g$i; fi
	i=$((i + 1))
done
mkdir -m 700 $MNT/priv
head -c 65536 /dev/urandom >$MNT/priv/lost
chown tester $MNT/priv/lost
# reads_of FILE N: N direct reads of a 64 KiB file, 16 at a time.
reads_of() {
	_n=0
	while [ $_n -lt "$2" ]; do direct_reads "$1" 16; _n=$((_n + 16)); done
}
drop_caches
for f in $MNT/u/g* $MNT/priv/lost; do direct_reads "$f" 2; done
reads_of $MNT/u/g0 400
reads_of $MNT/u/g1 192
reads_of $MNT/priv/lost 96
ut=$(as_user heatctl top -n 1000 --json $MNT 2>/tmp/top.err); rc=$?
is "top as an ordinary user succeeds" "$rc" 0
is "...and lists the user's hottest file first, by its path" \
	"$(echo "$ut" | jq -r '.[0].path')" $MNT/u/g1
is "...and every file of the user's that has heat, and nothing else (21)" \
	"$(echo "$ut" | jq length)" 21
owners=$(echo "$ut" | jq -r '.[].path | select(. != null)' | xargs stat -c %U | sort -u)
is "...all of them the user's: root's hotter 0600 file is not shown" "$owners" tester
is "...and root's files are not there by inode number either" \
	"$(echo "$ut" | jq -r '.[].inode' | grep -cxF "$(stat -c %i $MNT/u/g0)")" 0
is "a file the user owns in a directory they cannot read shows as its inode" \
	"$(echo "$ut" | jq -r ".[] | select(.inode == $(stat -c %i $MNT/priv/lost)) | .path")" null
check "...and is named so in the table" \
	sh -c "su -s /bin/sh tester -c 'heatctl top -n 1000 $MNT' | grep -q '<inode $(stat -c %i $MNT/priv/lost)>\$'"
is "the user's tier column agrees with root's where" \
	"$(echo "$ut" | jq -r '.[0].tier')" \
	"$(heatctl where --json $MNT/u/g1 | jq -r 'if .[0].fast_bytes > 0 then "fast" else "slow" end')"
is "top --ranges as the user: the hottest range is of the user's hottest file" \
	"$(as_user heatctl top --ranges --json $MNT | jq -r '.[0].path')" $MNT/u/g1
is "root still sees its hotter file first" \
	"$(heatctl top --json $MNT | jq -r '.[0].path')" null
is "...which is the file of the other subvolume, then root's own" \
	"$(heatctl top --json $MNT | jq -r '.[1].path')" $MNT/u/g0
as_user heat-abuse list $MNT 1024 >/tmp/list-all
as_user heat-abuse list $MNT 3 >/tmp/list-3
is "a walk three entries a call lists what one call does" \
	"$(grep -v '^calls' /tmp/list-3 | md5sum)" "$(grep -v '^calls' /tmp/list-all | md5sum)"
is "...in eight calls: seven full ones, and one that finds nothing left" \
	"$(grep -h '^calls' /tmp/list-all /tmp/list-3 | cut -d' ' -f2 | tr '\n' ' ')" "1 8 "
is "...and it names the user's 21 files" "$(grep -vc '^calls' /tmp/list-3)" 21
as_user heat-abuse list $MNT 2 ranges >/tmp/list-r
is "a walk of ranges two a call lists each range of the user's files once" \
	"$(grep -v '^calls' /tmp/list-r | sort | uniq -d | wc -l) $(grep -vc '^calls' /tmp/list-r)" "0 21"
chown root $MNT/u/g3
chown tester $MNT/u/g2
as_user heat-abuse list $MNT 1024 >/tmp/list-chown
is "a chown moves a file from one owner's list to the other's" \
	"$(grep -c "^5 $(stat -c %i $MNT/u/g3) " /tmp/list-chown) $(grep -c "^5 $(stat -c %i $MNT/u/g2) " /tmp/list-chown) $(grep -vc '^calls' /tmp/list-chown)" "0 1 21"
is "every subvolume is for root only (EPERM)" \
	"$(as_user heat-abuse list $MNT 8 all)" "error EPERM"
check "...and root gets both subvolumes" \
	sh -c "heat-abuse list $MNT 8 all | awk '\$1 != \"calls\" { print \$1 }' | sort -u | wc -l | grep -qx 2"

# status and migrate on a hotdatatrack mount: the mover is off.
is "status says the mover is off with hotdatatrack alone" \
	"$(heatctl status $MNT | sed -n 's/^state: *//p')" off
is "status --json agrees with sysfs mover_state" \
	"$(heatctl status --json $MNT | jq -r .state)" "$(cat "$(hot_sysfs)/mover_state")"
is "status --json passes agree with sysfs mover_stats" \
	"$(heatctl status --json $MNT | jq -r .passes)" \
	"$(awk '$1 == "passes" { print $2 }' "$(hot_sysfs)/mover_stats")"
is "status --json: next_pass_in_s is -1 when no pass is due, as in sysfs" \
	"$(heatctl status --json $MNT | jq .next_pass_in_s)" \
	"$(awk '$1 == "next_pass_in_s" { print $2 }' "$(hot_sysfs)/mover_stats")"
is "...which says -1 here" \
	"$(awk '$1 == "next_pass_in_s" { print $2 }' "$(hot_sysfs)/mover_stats")" -1
out=$(heatctl migrate $MNT 2>&1); rc=$?
check "migrate without hotdatamove fails (1) and names the mount option" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'hotdatamove'"
out=$(as_user heatctl migrate $MNT 2>&1); rc=$?
check "migrate as an unprivileged user fails (1): permission denied" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'permission denied'"

is "get-info --json reads agree with inode_data" \
	"$(info $MNT/d/f2 reads)" "$(dbg_inode $MNT/d/f2 3)"
check "get-info on several paths prints one JSON object each" \
	test "$(heatctl get-info --json $MNT/d/f0 $MNT/d/f1 | jq length)" = 2
heatctl get-info $MNT/d/f0 /nonexistent >/dev/null 2>/tmp/err
is "a missing path fails the command (1) but not the others" "$?" 1
check "...and is named with its reason" grep -q "ERROR: /nonexistent: No such file" /tmp/err
heatctl get-info $MNT/d >/dev/null 2>/tmp/err
check "get-info on a directory explains itself" grep -q "is a directory" /tmp/err

heatctl set-opts -r track $MNT/d
is "set-opts -r sets every file below" \
	"$(heatctl get-opts -r --json $MNT/d | jq -r '[.[].opts] | unique | join(",")')" track
is "get-opts -r lists the directory and its files" \
	"$(heatctl get-opts -r --json $MNT/d | jq length)" 4
check "get-opts prints value and path" \
	sh -c "heatctl get-opts $MNT/d/f0 | grep -q '^track  *$MNT/d/f0\$'"
# -r stays on the filesystem it starts on: a tmpfs mounted below is not
# walked (its files have no hot data options, so walking it fails).
mkdir $MNT/d/other
mount -t tmpfs none $MNT/d/other && touch $MNT/d/other/x
out=$(heatctl get-opts -r --json $MNT/d 2>&1); rc=$?
check "get-opts -r does not cross into another mounted filesystem (0, four entries)" \
	sh -c "[ $rc = 0 ] && [ \"\$(echo '$out' | jq length)\" = 4 ]"
heatctl set-opts -r move $MNT/d; rc=$?
is "set-opts -r succeeds beside the mount point" "$rc" 0
is "...and set what is on btrfs" "$(heatctl get-opts --json $MNT/d/f0 | jq -r '.[0].opts')" move
umount $MNT/d/other
rmdir $MNT/d/other
# A nested subvolume has a device number of its own but is the same
# filesystem: -r walks into it.
btrfs subvolume create $MNT/d/sv >/dev/null || bail "subvolume create failed"
touch $MNT/d/sv/x
before=$(heatctl get-opts --json $MNT/d/sv/x | jq -r '.[0].opts')
is "a new file of the new subvolume is not yet track" "$before" move
is "set-opts -r walks into a nested subvolume (six entries set)" \
	"$(heatctl set-opts -r --json track $MNT/d | jq length)" 6
is "...and sets its files" "$(heatctl get-opts --json $MNT/d/sv/x | jq -r '.[0].opts')" track
# A read-only snapshot below cannot be changed: set-opts -r says so once
# and goes on, rather than failing on each of its files.
btrfs subvolume snapshot -r $MNT/d/sv $MNT/d/ro >/dev/null || bail "snapshot failed"
heatctl set-opts -r move $MNT/d 2>/tmp/err; rc=$?
is "set-opts -r beside a read-only snapshot succeeds (0)" "$rc" 0
check "...and says once that it skipped the snapshot" \
	sh -c "[ \"\$(grep -c 'ro: a read-only subvolume, skipped' /tmp/err)\" = 1 ] && [ \"\$(wc -l </tmp/err)\" = 1 ]"
is "...whose file keeps its options" "$(heatctl get-opts --json $MNT/d/ro/x | jq -r '.[0].opts')" track
btrfs subvolume delete $MNT/d/ro >/dev/null
btrfs subvolume delete $MNT/d/sv >/dev/null
is "set-opts --json prints what it set" \
	"$(heatctl set-opts track $MNT/d/f0 --json | jq -r '.[0].opts')" track
check "the man page is installed" test -s /usr/share/man/man8/heatctl.8
umount $MNT

# ---- where: checked against filefrag and the chunk tree ----
# A filesystem born on the NVMe disk with the SATA disk added later: the
# first file lands on NVMe, later ones where the allocator puts them.
mkfs.btrfs -q -f -K -d single -m single "$FAST_DEV" || bail "mkfs failed"
mount "$FAST_DEV" $MNT || bail "mount failed"
make_files $MNT/a 1 4096K
sync
btrfs device add -K -f "$SLOW_DEV" $MNT >/dev/null || bail "device add failed"
make_files $MNT/b 1 256M
make_files $MNT/c 1 4096K
sync

# The device of a file's first extent, by tools we did not write.
first_dev() {
	case $(block_devid "$(phys "$1" | sed 's/\.\..*//')") in
	"$(devid_of "$FAST_DEV")") echo "$FAST_DEV" ;;
	"$(devid_of "$SLOW_DEV")") echo "$SLOW_DEV" ;;
	esac
}
where_json() { heatctl where --json "$1" | jq -r ".[0].$2"; }

is "the chunk tree puts the first file on NVMe" "$(first_dev $MNT/a/f0)" "$FAST_DEV"
is "where: all 4 MiB of it are on the fast tier" "$(where_json $MNT/a/f0 fast_bytes)" 4194304
is "where: none of it is on the slow tier" "$(where_json $MNT/a/f0 slow_bytes)" 0
seen_slow=0
for f in $MNT/b/f0 $MNT/c/f0; do
	size=$(stat -c %s $f)
	fb=$(where_json $f fast_bytes)
	sb=$(where_json $f slow_bytes)
	dev=$(first_dev $f)
	diag "$f: $fb bytes fast, $sb bytes slow; first extent on $dev"
	is "where: the tiers of $f add up to its size" $((fb + sb)) "$size"
	if [ "$dev" = "$SLOW_DEV" ]; then
		seen_slow=1
		check "where agrees with the chunk tree: $f starts on the slow tier" test "$sb" -gt 0
	else
		check "where agrees with the chunk tree: $f starts on the fast tier" test "$fb" -gt 0
	fi
	[ "$fb" = 0 ] && [ "$dev" != "$SLOW_DEV" ] && not_ok "where says none of $f is fast, the chunk tree disagrees"
	[ "$sb" = 0 ] && [ "$dev" = "$SLOW_DEV" ] && not_ok "where says none of $f is slow, the chunk tree disagrees"
done
is "data landed on the slow tier too, so both tiers were checked" $seen_slow 1
# where -r adds up the same files and ranks their directories.
sum=0
for f in $MNT/a/f0 $MNT/b/f0 $MNT/c/f0; do
	sum=$((sum + $(where_json $f fast_bytes)))
done
heatctl where -r --json $MNT >/tmp/wr.json
is "where -r counts the three files" "$(jq '.[0].files' /tmp/wr.json)" 3
is "where -r: the fast bytes of the tree are those of its files" \
	"$(jq '.[0].fast_bytes' /tmp/wr.json)" $sum
is "...and the first of the top directories holds the most of them" \
	"$(jq -r '.[0].top_dirs[0].fast_bytes' /tmp/wr.json)" \
	"$(for d in a b c; do where_json $MNT/$d/f0 fast_bytes; done | sort -n | tail -1)"
check "where -r prints the top directories" \
	sh -c "heatctl where -r $MNT | grep -q 'top directories by fast-tier use'"
heatctl where -r --chunk-tree --json $MNT >/tmp/wrc.json
is "where -r --chunk-tree (FIEMAP and the chunk tree) agrees with the kernel's answer" \
	"$(jq -c '.[0] | [.fast_bytes, .slow_bytes, .mixed_bytes, .none_bytes]' /tmp/wrc.json)" \
	"$(jq -c '.[0] | [.fast_bytes, .slow_bytes, .mixed_bytes, .none_bytes]' /tmp/wr.json)"
# where -r walks into a nested subvolume too; a file with two links counts
# once.
total() { jq '.[0] | .fast_bytes + .slow_bytes + .mixed_bytes + .none_bytes' "$1"; }
btrfs subvolume create $MNT/a/sv >/dev/null || bail "subvolume create failed"
make_files $MNT/a/sv 1 4096K
ln $MNT/a/sv/f0 $MNT/a/sv/link
sync
heatctl where -r --json $MNT >/tmp/wr2.json
is "where -r walks into a nested subvolume and counts a hard-linked file once (4 files)" \
	"$(jq '.[0].files' /tmp/wr2.json)" 4
is "...and adds its 4 MiB once" "$(total /tmp/wr2.json)" $(($(total /tmp/wr.json) + 4194304))
btrfs subvolume delete $MNT/a/sv >/dev/null
check "where prints human-readable sizes with percentages" \
	sh -c "heatctl where $MNT/a/f0 | grep -q 'fast *4.00MiB  100.0%'"
check "...in bytes with --raw, in kB with --si -k" \
	sh -c "heatctl where --raw $MNT/a/f0 | grep -q 'fast *4194304  100.0%' &&
	       heatctl where $MNT/a/f0 --si -k | grep -q 'fast *4194.30kB  100.0%'"
# The tiers come from the kernel: with the NVMe overridden to slow, where
# says what the mover now sees.
T=/sys/fs/btrfs/$(fs_uuid)/devinfo/$(devid_of "$FAST_DEV")/tier
echo slow >"$T"
is "where follows an override of the NVMe's tier to slow" "$(where_json $MNT/a/f0 slow_bytes)" 4194304
echo auto >"$T"
is "...and back to fast when it is lifted" "$(where_json $MNT/a/f0 fast_bytes)" 4194304
# The kernel answers any reader of a file (BTRFS_IOC_GET_TIER_BYTES); the
# chunk tree, which --chunk-tree reads, needs root.
is "where as an unprivileged user: the 4 MiB of a file it may read are fast" \
	"$(as_user heatctl where --json $MNT/a/f0 | jq '.[0].fast_bytes')" 4194304
chmod 600 $MNT/c/f0
out=$(as_user heatctl where $MNT/c/f0 2>&1); rc=$?
check "...but not of a file it may not read (1, permission denied)" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'Permission denied'"
out=$(as_user heatctl where --chunk-tree $MNT/a/f0 2>&1); rc=$?
check "where --chunk-tree as an unprivileged user fails (1) and says it needs root" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'needs root'"
as_user heatctl where -r --chunk-tree $MNT/a >/tmp/out 2>/tmp/err; rc=$?
check "...with -r too: one error, no partial sums (1)" \
	sh -c "[ $rc = 1 ] && [ \"\$(grep -c 'needs root' /tmp/err)\" = 1 ] && [ ! -s /tmp/out ]"
out=$(heatctl where $MNT/a 2>&1); rc=$?
check "where on a directory without -r says to use -r (1)" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'a directory: -r adds up'"
umount $MNT
done_testing
