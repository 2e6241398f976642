#!/bin/sh
# shellcheck shell=dash
# runtime: 60 s (warm clean-clone run, debug kernel; the runner starts the longest first)
# Hostile input: every hot/ and devinfo/*/tier sysfs knob given negative,
# huge, non-numeric, empty, overlong and boundary values (a clear error,
# the value unchanged) and written by an unprivileged user; the hot data
# ioctls fuzzed with random arguments on every kind of file, as root and
# as an unprivileged user (only documented errnos, no permission leak);
# the mount options in combination, on mount and on remount. Nothing may
# be lost: checksums, scrub and btrfs check at the end.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

fresh_fs hotdatamove
S=$(hot_sysfs)
make_files $MNT/d 4 1024K
sync
before=$(sums $MNT/d/f*)

# reject KNOB VALUE...: every VALUE written to KNOB fails with EINVAL or
# ERANGE and leaves what KNOB reads unchanged. Prints what went wrong.
reject() {
	local f=$1 v was now err
	shift
	for v in "$@"; do
		was=$(cat "$f" 2>/dev/null)
		# busybox's echo, unlike its printf, says why a write failed.
		if err=$( { echo "$v" >"$f"; } 2>&1); then
			echo "'$(echo "$v" | cut -c1-24)' accepted;"
			continue
		fi
		case "$err" in
		*"Invalid argument"* | *"out of range"* | *"not representable"*) ;;
		*) echo "'$(echo "$v" | cut -c1-24)': $err;" ;;
		esac
		now=$(cat "$f" 2>/dev/null)
		[ "$now" = "$was" ] ||
			echo "'$(echo "$v" | cut -c1-24)' changed '$was' to '$now';"
	done
}

long=$(head -c 5000 /dev/zero | tr '\0' 1)
junk="-1 abc 1x 0x 99999999999999999999 18446744073709551616 16EiB $long"
# The empty write is a lone newline: "" reaches the kernel as "\n".
diag "junk for every knob: -1 abc 1x 0x 2^64+ 20 nines 16EiB, a newline, 5000 ones"

# ---- sysfs: junk and boundaries, knob by knob ----
is "range_size rejects junk, 0, 4095 and sizes out of bounds" \
	"$(reject $S/range_size $junk "" 0 4095 32M 2G 16E)" ""
is "mem_limit rejects junk and sizes that overflow 64 bits" \
	"$(reject $S/mem_limit $junk "" 17179869184G 16E)" ""
half=$(awk '/^MemTotal:/ { printf "%d", $2 * 512 }' /proc/meminfo)
is "mem_limit rejects more than half the memory ($half bytes) and 1T" \
	"$(reject $S/mem_limit $((half + 4096)) 1T)" ""
is "halflife rejects junk, 0 and more than a week" \
	"$(reject $S/halflife $junk "" 0 604801 4294967296)" ""
is "age_interval rejects junk, 0 and more than a day" \
	"$(reject $S/age_interval $junk "" 0 86401)" ""
is "mover_interval rejects junk, 0 and more than a day" \
	"$(reject $S/mover_interval $junk "" 0 86401)" ""
is "mover_budget rejects junk, less than 64 KiB and overflow" \
	"$(reject $S/mover_budget $junk "" 0 65535 17179869184G)" ""
is "mover_promote_temp rejects junk, 224 (no score gets there), 256 and values not above the demote floor" \
	"$(reject $S/mover_promote_temp $junk "" 224 256 "$(cat $S/mover_demote_temp)" 0)" ""
was=$(cat $S/mover_promote_temp)
echo 223 >$S/mover_promote_temp 2>/dev/null
is "...and takes 223, the hottest a score gets" "$(cat $S/mover_promote_temp)" 223
echo "$was" >$S/mover_promote_temp
is "mover_demote_temp rejects junk and values not below the promote floor" \
	"$(reject $S/mover_demote_temp $junk "" "$(cat $S/mover_promote_temp)" 255)" ""
is "mover_high_watermark rejects junk, 101 and values not above the low one" \
	"$(reject $S/mover_high_watermark $junk "" 101 "$(cat $S/mover_low_watermark)" 0)" ""
is "mover_low_watermark rejects junk and values not below the high one" \
	"$(reject $S/mover_low_watermark $junk "" "$(cat $S/mover_high_watermark)" 100)" ""
is "mover_displace_margin rejects junk, 223 (no temperature above it to displace with) and 256" \
	"$(reject $S/mover_displace_margin $junk "" 223 256 4294967296)" ""
is "mover_idle_gaps rejects junk and more than 1024" \
	"$(reject $S/mover_idle_gaps $junk "" 1025 4294967296)" ""
is "mover_grace rejects junk and more than a day" \
	"$(reject $S/mover_grace $junk "" 86401 4294967296)" ""
is "mover_unshare rejects junk and anything but 0 and 1" \
	"$(reject $S/mover_unshare $junk "" 2 4294967296)" ""
for dev in 1 2; do
	is "devinfo/$dev/tier rejects junk and unknown tier names" \
		"$(reject "/sys/fs/btrfs/$(fs_uuid)/devinfo/$dev/tier" $junk "" fastest "slow fast")" ""
done
# The triggers have no value to keep: a write that is not "1" must still
# fail rather than act.
p0=$(stat_of passes)
is "mover_run rejects junk and 0, and runs no pass for them" \
	"$(reject $S/mover_run $junk "" 0 no)$(stat_of passes)" "$p0"
is "age_now rejects junk and 0" "$(reject $S/age_now $junk "" 0 no)" ""

# ---- sysfs: an unprivileged user changes nothing ----
denied=""
for f in $S/* /sys/fs/btrfs/"$(fs_uuid)"/devinfo/*/tier; do
	[ -f "$f" ] || continue
	was=$(cat "$f" 2>/dev/null)
	if as_user "echo 1 >$f" 2>/dev/null; then
		denied="$denied $(basename "$f") accepted;"
	fi
	# a read-only file (mover_stats counts down to the next pass) may
	# change by itself; a knob must not
	case "$(stat -c %a "$f")" in
	*[2367]*) [ "$(cat "$f" 2>/dev/null)" = "$was" ] ||
		denied="$denied $(basename "$f") changed;" ;;
	esac
done
is "an unprivileged user can write no hot/ knob and no tier" "$denied" ""

# ---- ioctl fuzz: every kind of file, root and an unprivileged user ----
btrfs subvolume create $MNT/sv >/dev/null
make_files $MNT/sv 1 1024K
btrfs subvolume snapshot -r $MNT/sv $MNT/ro >/dev/null
mkfifo $MNT/fifo
echo x >/tmp/other-fs
touch $MNT/mine
chown tester $MNT/mine
# 0 regular, 1 directory, 2 fifo on btrfs, 3 read-only snapshot file,
# 4 file of another filesystem, 5 character device, 6 tester's own file.
paths="$MNT/d/f0 $MNT/d $MNT/fifo $MNT/ro/f0 /tmp/other-fs /dev/null $MNT/mine"
heat-abuse fuzz 3000 1 $paths >/tmp/fuzz-root 2>&1
rc=$?
diag "root: $(awk '{ n[$3] += $4 } END { for (e in n) printf "%s %d ", e, n[e] }' /tmp/fuzz-root)"
is "root: 21000 fuzzed ioctls get only documented errnos" \
	"$rc $(grep -c '^unexpected' /tmp/fuzz-root)" "0 0"
check "...and some of them succeed (the fuzz reaches the ioctls' work)" \
	grep -q '^0 info OK' /tmp/fuzz-root
is "...and a file of a read-only snapshot never takes new opts" \
	"$(grep -c '^3 set-opts OK' /tmp/fuzz-root)" 0
is "...and a FIFO, another filesystem's file and a device answer ENOTTY only" \
	"$(awk '$1 == 2 || $1 == 4 || $1 == 5 { if ($3 != "ENOTTY") print }' /tmp/fuzz-root)" ""
as_user "heat-abuse fuzz 3000 2 $paths" >/tmp/fuzz-user 2>&1
rc=$?
diag "tester: $(awk '{ n[$3] += $4 } END { for (e in n) printf "%s %d ", e, n[e] }' /tmp/fuzz-user)"
is "unprivileged: 21000 fuzzed ioctls get only documented errnos" \
	"$rc $(grep -c '^unexpected' /tmp/fuzz-user)" "0 0"
is "...and never read the heat of or set the opts of root's files" \
	"$(grep -E '^[0-3] (info|set-opts) OK' /tmp/fuzz-user)" ""
check "...while the tester's own file answers (the calls got through)" \
	grep -q '^6 info OK' /tmp/fuzz-user
is "the fuzz changed no file" "$(sums $MNT/d/f*)" "$before"

# ---- btrfs.hot: setxattr and the ioctl follow one rule ----
# via_xattr FILE / via_ioctl FILE [user]: set the opts of FILE to "track"
# through each interface; print OK or the error.
via_xattr() {
	local cmd="setfattr -n btrfs.hot -v track $1 2>&1"
	local out
	if [ "$2" = user ]; then out=$(as_user "$cmd"); else out=$(sh -c "$cmd"); fi
	case "$out" in
	"") echo OK ;;
	*"not permitted"*) echo EPERM ;;
	*"ermission denied"*) echo EACCES ;;
	*) echo "$out" ;;
	esac
}
via_ioctl() {
	if [ "$2" = user ]; then
		as_user "heat-abuse $1 $MNT" | sed -n 's/^opts-set-good //p'
	else
		heat-abuse "$1" $MNT | sed -n 's/^opts-set-good //p'
	fi
}
make_files $MNT/p 3 4K
chmod 666 $MNT/p/f0
chattr +i $MNT/p/f1
chattr +a $MNT/p/f2
touch $MNT/p/own
chown tester $MNT/p/own
is "root, immutable file: setxattr and the ioctl both refuse (EPERM)" \
	"$(via_xattr $MNT/p/f1) $(via_ioctl $MNT/p/f1)" "EPERM EPERM"
is "root, append-only file: setxattr and the ioctl both refuse (EPERM)" \
	"$(via_xattr $MNT/p/f2) $(via_ioctl $MNT/p/f2)" "EPERM EPERM"
chattr -i $MNT/p/f1
chattr -a $MNT/p/f2
is "a user with write permission on a file it does not own: both refuse (EPERM)" \
	"$(via_xattr $MNT/p/f0 user) $(via_ioctl $MNT/p/f0 user)" "EPERM EPERM"
is "...and its opts are still unset" \
	"$(getfattr --only-values -n btrfs.hot $MNT/p/f0 2>/dev/null)" ""
is "the owner may set them both ways" \
	"$(via_xattr $MNT/p/own user) $(via_ioctl $MNT/p/own user)" "OK OK"
is "root may set them both ways" \
	"$(via_xattr $MNT/p/f0) $(via_ioctl $MNT/p/f0)" "OK OK"

# ---- mount options, alone and in pairs, on mount and remount ----
# expect OPTS: the option /proc/mounts should show and the mover state,
# applying the hot options of OPTS left to right as btrfs does.
expect() {
	local t=0 m=0 ro=0 o
	for o in $(echo "$1" | tr , ' '); do
		case $o in
		hotdatatrack) t=1 ;;
		nohotdatatrack) t=0 m=0 ;;
		hotdatamove) t=1 m=1 ;;
		nohotdatamove) m=0 ;;
		ro) ro=1 ;;
		esac
	done
	if [ $m = 1 ]; then printf 'hotdatamove '; elif [ $t = 1 ]; then printf 'hotdatatrack '; else printf 'none '; fi
	if [ $m = 0 ]; then echo off; elif [ $ro = 1 ]; then echo read-only; else echo running; fi
}
# seen: what /proc/mounts and mover_state say.
seen() {
	local o
	o=$(awk -v m=$MNT '$2 == m { print $4 }' /proc/mounts | tr , '\n' |
		grep -E '^hotdata(track|move)$')
	echo "${o:-none} $(cat "$S/mover_state")"
}
umount $MNT
hot="hotdatatrack nohotdatatrack hotdatamove nohotdatamove"
extras="nodatacow compress=zstd degraded ssd"
bad=""
n=0
for a in $hot; do
	for b in "" $hot; do
		o=$a${b:+,$b}
		x=$(echo $extras | cut -d' ' -f$((n % 4 + 1)))
		[ $((n % 3)) = 0 ] && x="$x,ro"
		n=$((n + 1))
		if ! mount -o "$o,$x" "$SLOW_DEV" $MNT 2>/tmp/mount.err; then
			bad="$bad mount $o,$x failed: $(cat /tmp/mount.err);"
			continue
		fi
		S=$(hot_sysfs)
		[ "$(seen)" = "$(expect "$o,$x")" ] ||
			bad="$bad mount $o,$x: $(seen), want $(expect "$o,$x");"
		# Remount read-write with the next option in turn; the options
		# not named keep their values, so the state follows from both.
		r=$(echo $hot | cut -d' ' -f$((n % 4 + 1)))
		if mount -o "remount,rw,$r" $MNT 2>/tmp/mount.err; then
			[ "$(seen)" = "$(expect "$o,$r")" ] ||
				bad="$bad remount $o then $r: $(seen), want $(expect "$o,$r");"
		else
			bad="$bad remount $o then $r failed: $(cat /tmp/mount.err);"
		fi
		umount $MNT || bad="$bad umount after $o,$x failed;"
	done
done
is "$n mounts and remounts with hot data options in combination end in the state they ask for" \
	"$bad" ""

mount "$SLOW_DEV" $MNT
is "every file still holds its data" "$(sums $MNT/d/f*)" "$before"
check "scrub is clean" scrub_clean $MNT
umount $MNT
check "btrfs check is clean" btrfs check "$SLOW_DEV"
done_testing
