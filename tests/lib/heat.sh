# shellcheck shell=dash
# Helpers for the hot data tests (busybox sh). Needs tap.sh.

MNT=/mnt/t

# fresh_fs [MOUNT_OPTIONS]: a new two-device btrfs mounted on $MNT.
fresh_fs() {
	umount "$MNT" 2>/dev/null
	mkfs.btrfs -q -f -K -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" || bail "mkfs failed"
	mkdir -p "$MNT"
	if [ -n "$1" ]; then
		mount -o "$1" "$SLOW_DEV" "$MNT" || bail "mount -o $1 failed"
	else
		mount "$SLOW_DEV" "$MNT" || bail "mount failed"
	fi
}

fs_uuid() {
	btrfs filesystem show "$MNT" | sed -n 's/.*uuid: \([0-9a-f-]*\).*/\1/p'
}

hot_sysfs() { hot_dir "$MNT"; }
hot_debugfs() { echo "/sys/kernel/debug/btrfs/$(fs_uuid)"; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# info FILE FIELD: one field of 'heatctl get-info --json --live'.
info() {
	heatctl get-info --json --live "$1" | jq -r ".[0].$2"
}

# indexed FILE: the temperature as indexed (heat index bucket).
indexed() {
	heatctl get-info --json "$1" | jq -r '.[0].temperature'
}

ino_of() { stat -c %i "$1"; }

# subvol_id PATH: the subvolume id of the subvolume PATH is in.
subvol_id() {
	btrfs inspect-internal rootid "$1"
}

# dbg_inode FILE COLUMN: a column of FILE's line in inode_data (1 root,
# 2 inode, 3 reads, 4 writes, ..., 9 temp, 10 bucket, 11 score).
dbg_inode() {
	awk -v r="$(subvol_id "$1")" -v i="$(ino_of "$1")" -v c="$2" \
		'$1 == r && $2 == i { print $c }' "$(hot_debugfs)/inode_data"
}

# dbg_range FILE START COLUMN: a column of a range line in range_data
# (1 root, 2 inode, 3 start, 4 len, 5 last access ns, 6 mean interval ns,
# 7 temp, 8 bucket, 9 score: decayed accesses, 4096 to one, as of the last).
dbg_range() {
	awk -v r="$(subvol_id "$1")" -v i="$(ino_of "$1")" -v s="$2" -v c="$3" \
		'$1 == r && $2 == i && $3 == s { print $c }' "$(hot_debugfs)/range_data"
}

# direct_reads FILE N: N direct 4 KiB reads, each one access.
direct_reads() {
	dd if="$1" of=/dev/null bs=4k count="$2" iflag=direct 2>/dev/null
}

# as_user CMD...: run a command as the unprivileged user "tester".
as_user() {
	su -s /bin/sh tester -c "$*"
}

# devid_of DEV: the devid of a device of the filesystem, from its superblock.
devid_of() {
	btrfs inspect-internal dump-super "$1" | awk '$1 == "dev_item.devid" { print $2 }'
}

# fast_bytes FILE [FROM [TO]]: bytes of FILE on $FAST_DEV, from FIEMAP
# (filefrag) and the chunk tree (chunk_map), tools that know nothing of the
# mover; only extents that start at file byte FROM or later and before TO.
# Single data profile: an extent is where its chunk's first stripe is. An
# extent that lies in no chunk counts as not on NVMe, and is written to
# $UNMAPPED, which fails the suite at its end (tap_at_end), so that no check
# of "0 bytes on NVMe" can pass unnoticed on a mapping that failed. Inline
# extents (metadata) and delalloc ones (a rewrite that began after the
# sync, not yet placed) are not in a chunk and not a failure.
fast_bytes() {
	local key id
	sync
	# The devid of $FAST_DEV, read again only for a new filesystem (a
	# file, since callers run this in a subshell).
	key=$(echo /sys/fs/btrfs/*/devices/"${FAST_DEV##*/}")
	id=$(sed -n "s|^$key ||p" /tmp/fast-devid 2>/dev/null)
	if [ -z "$id" ]; then
		id=$(devid_of "$FAST_DEV")
		echo "$key $id" >/tmp/fast-devid
	fi
	{ chunk_map; filefrag -v "$1"; } | awk -v fast="$id" -v file="$1" \
		-v unmapped="$UNMAPPED" \
		-v from=$((${2:-0} / 4096)) -v to=$((${3:-0} / 4096)) '
		BEGIN { n = 0 }
		$1 == "chunk" { cs[n] = $2; cl[n] = $3; cd[n] = $4; n++; next }
		$1 ~ /^[0-9]+:$/ {
			s = $2; sub(/\.\..*/, "", s);
			if (s + 0 < from || (to > 0 && s + 0 >= to)) next;
			p = $4; sub(/\.\..*/, "", p); l = $6; sub(/:/, "", l);
			b = p * 4096;
			for (i = 0; i < n; i++)
				if (b >= cs[i] && b < cs[i] + cl[i]) {
					if (cd[i] == fast) t += l * 4096;
					break;
				}
			if (i == n && $0 !~ /inline|delalloc|unknown_loc/)
				printf("%s: extent at block %s, %d blocks, in no chunk\n",
					file, p, l) >>unmapped;
		}
		END { printf "%d\n", t }'
}

# Where fast_bytes notes extents it found in no chunk; and the check that
# there were none, made by done_testing.
UNMAPPED=/tmp/fast-bytes.unmapped
rm -f "$UNMAPPED"
tap_at_end() {
	[ -s "$UNMAPPED" ] || return 0
	not_ok "every extent fast_bytes looked at lies in a chunk of the chunk tree"
	sed 's/^/#   /' "$UNMAPPED" | head -20
}

# block_devid BLOCK: the devid holding filesystem block BLOCK (a physical
# offset of filefrag -v, in 4 KiB blocks), from the chunk tree.
block_devid() {
	chunk_map | awk -v b=$(($1 * 4096)) \
		'$2 <= b && b < $2 + $3 { print $4; exit }'
}

# phys FILE: the physical block where FILE's first extent starts (FIEMAP);
# files that share that extent print the same.
phys() { filefrag -v "$1" | awk '$1 == "0:" { print $4 }'; }

# shared_du DIR: the bytes 'btrfs filesystem du' counts as shared in DIR.
shared_du() { btrfs filesystem du -s --raw "$1" | awk 'NR == 2 { print $3 }'; }

# stat_of NAME: one counter of hot/mover_stats.
stat_of() {
	mover_stat "$1" "$(hot_sysfs)"
}

# run_pass: one mover pass now, through sysfs. A pass that did not run
# (the write failed, or the pass counter did not move) is a failed test of
# its own, so that no check after it can pass because nothing ran.
run_pass() {
	local n0 n1 rc
	n0=$(stat_of passes)
	rc=0
	echo 1 >"$(hot_sysfs)/mover_run" || rc=1
	n1=$(stat_of passes)
	[ "$rc" = 0 ] && [ "${n1:-0}" -gt "${n0:-0}" ] && return 0
	not_ok "a mover pass ran (mover_run failed: $rc, passes $n0 -> $n1)"
	return 1
}

# wait_in_pass [TENTHS]: wait until a pass is in progress (mover_stats
# pass_in_progress), at most TENTHS tenths of a second (default 100).
wait_in_pass() {
	local w=0
	while [ "$(stat_of pass_in_progress)" != 1 ] && [ $w -lt "${1:-100}" ]; do
		sleep 0.1
		w=$((w + 1))
	done
	[ "$(stat_of pass_in_progress)" = 1 ]
}

# heat_up FILE [TIMES [BS]]: read all of FILE directly TIMES times (default
# 4) in BS reads (default 64k: 16 accesses to every 1 MiB range a time),
# so that every range gets well above the promotion threshold. With 4 KiB
# ranges, 1M reads count the same one access a range in a sixteenth of
# the SATA disk's operations.
heat_up() {
	local i=0
	while [ $i -lt "${2:-4}" ]; do
		dd if="$1" of=/dev/null bs="${3:-64k}" iflag=direct 2>/dev/null
		i=$((i + 1))
	done
}

# sums FILE...: sha256 of each file, read from disk with direct I/O so
# that a checksum counts one access per range and heats nothing up.
sums() {
	local f
	sync
	for f in "$@"; do
		echo "$(dd if="$f" bs=4M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1) $f"
	done
}

# small_fs: a two-device btrfs with 512 MiB per device, so that a few
# files put the fast tier above a 1 % high watermark.
small_fs() {
	umount $MNT 2>/dev/null
	mkfs.btrfs -q -f -K -b 512M -d single -m raid1 "$SLOW_DEV" "$FAST_DEV" ||
		bail "mkfs failed"
	mkdir -p $MNT
	mount -o hotdatamove "$SLOW_DEV" $MNT || bail "mount failed"
}

# demote_all / defaults: mover knobs (in $S, the hot/ sysfs directory)
# that demote everything on the fast tier and promote nothing, and back;
# demote_all also ends the grace after mount, for good.
demote_all() {
	echo 0 >$S/mover_grace
	echo 0 >$S/mover_low_watermark
	echo 1 >$S/mover_high_watermark
	echo 223 >$S/mover_promote_temp || bail "demote_all: mover_promote_temp"
	echo 222 >$S/mover_demote_temp || bail "demote_all: mover_demote_temp"
}
defaults() {
	echo 64 >$S/mover_demote_temp
	echo 80 >$S/mover_promote_temp
	echo 90 >$S/mover_high_watermark
	echo 80 >$S/mover_low_watermark
}
