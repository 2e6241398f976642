#!/bin/sh
# shellcheck shell=dash
# runtime: 80 s (warm run, debug kernel; the runner starts the longest first)
# The read policy "tier" (issue #15): with raid1 metadata over the SATA
# disk and the NVMe, a metadata walk over a cold cache (find, stat, and
# reading small files, which btrfs keeps inline in the tree) reads its
# tree blocks from the NVMe only, while the default "pid" policy reads
# half of them from the disk. Which device served the reads comes from
# the block layer's counters (/sys/block/*/stat), not from btrfs.
. /test/lib/tap.sh
. /test/lib/guest.sh
. /test/lib/heat.sh

# reads DEV: read requests the device completed (field 1 of its stat).
reads() { awk '{ print $1 }' "/sys/block/${1##*/}/stat"; }

# on_parity P CMD...: run CMD in a process whose pid is P modulo 2 (exec
# keeps the pid; ls -lR stats each file in the ls process itself).
on_parity() {
	local p=$1
	shift
	while :; do
		sh -c '[ $(($$ % 2)) = "$0" ] || exit 99; exec "$@"' "$p" "$@"
		[ $? = 99 ] || return 0
	done
}

# walk POLICY [SLOW_TIER FAST_TIER]: the metadata workload over a cold
# cache, four times, each after a remount (drop_caches leaves btrfs's tree
# blocks in memory) that also resets the read policy and the tier
# overrides, which are then set for the round. Odd rounds read from odd
# pids, even ones from even pids, so that the pid policy uses both copies. Prints the read
# requests of the SATA disk and of the NVMe the workload caused.
walk() {
	local s=0 f=0 s0 f0 i
	for i in 1 2 3 4; do
		umount $MNT && mount "$SLOW_DEV" $MNT || bail "remount failed"
		echo "$1" >"$P" || bail "read_policy refused $1"
		if [ -n "${2:-}" ]; then
			echo "$2" >"$D/$(devid_of "$SLOW_DEV")/tier" &&
				echo "$3" >"$D/$(devid_of "$FAST_DEV")/tier" ||
				bail "a tier override failed"
		fi
		s0=$(reads "$SLOW_DEV")
		f0=$(reads "$FAST_DEV")
		on_parity $((i % 2)) ls -lR $MNT/m >/dev/null
		on_parity $((i % 2)) cat $MNT/m/d$i/* >/dev/null
		s=$((s + $(reads "$SLOW_DEV") - s0))
		f=$((f + $(reads "$FAST_DEV") - f0))
	done
	echo "$s $f"
}

fresh_fs
P=/sys/fs/btrfs/$(fs_uuid)/read_policy
D=/sys/fs/btrfs/$(fs_uuid)/devinfo
is "read_policy offers tier beside pid, pid the default" "$(cat $P)" "[pid] tier"
is "metadata is raid1 over both devices" \
	"$(btrfs filesystem df $MNT | sed -n 's/^Metadata, \([^:]*\):.*/\1/p')" RAID1
# 4000 files of 1 KiB (inline): about 6 MiB of tree blocks.
small_files $MNT/m 8 500

# shellcheck disable=SC2046
set -- $(walk pid)
diag "pid: $1 reads of the SATA disk, $2 of the NVMe"
check "pid: the walk read tree blocks (over 40 reads)" test $(($1 + $2)) -gt 40
check "pid: a good share of them (over a fifth) came from the SATA disk" \
	test $(($1 * 5)) -gt $(($1 + $2))

# shellcheck disable=SC2046
set -- $(walk tier)
is "read_policy says tier once chosen" "$(cat $P)" "pid [tier]"
diag "tier: $1 reads of the SATA disk, $2 of the NVMe"
check "tier: the walk read tree blocks (over 40 reads)" test "$2" -gt 40
is "tier: none of them came from the SATA disk" "$1" 0

# The fast copy is what is preferred, whatever the device: with the NVMe
# overridden to slow and the disk to fast, the disk serves the reads.
# shellcheck disable=SC2046
set -- $(walk tier fast slow)
diag "tier, tiers swapped: $1 reads of the SATA disk, $2 of the NVMe"
check "tier follows the tier overrides: the disk, now fast, serves the walk" \
	sh -c "[ $1 -gt 40 ] && [ $2 = 0 ]"

# With both copies on one tier, tier is pid: the disk serves its share.
# shellcheck disable=SC2046
set -- $(walk tier fast auto)
diag "tier, both devices fast: $1 reads of the SATA disk, $2 of the NVMe"
check "tier with both copies fast spreads the reads as pid does" \
	sh -c "[ $(($1 * 5)) -gt $(($1 + $2)) ] && [ $(($2 * 5)) -gt $(($1 + $2)) ]"

rc=0
echo bogus 2>/dev/null >$P || rc=1
check "read_policy rejects an unknown policy and keeps tier" \
	sh -c "[ $rc != 0 ] && [ \"\$(cat $P)\" = 'pid [tier]' ]"
check "every file still reads back as written" \
	sh -c "for f in $MNT/m/d*/*; do cmp -s \$f /tmp/p1k || exit 1; done"
umount $MNT
check "btrfs check is clean" btrfs check --readonly "$SLOW_DEV"
done_testing
