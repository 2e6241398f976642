#!/usr/bin/env bash
# quick: no kernel build, no guest (make check)
# heatctl's copy of the ioctl ABI (userspace/heat-ioctl.h) matches the
# kernel's include/uapi/linux/btrfs.h in build/linux: ioctl numbers, struct
# sizes, every field's offset and size, and the flag and option values.
set -u
cd "$(dirname "$0")/../.." || exit 1
tree=build/linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..2"

cat >"$tmp/dump.c" <<'C'
#include <stdio.h>
#include <stddef.h>
#include HEADER
#define F(s, f) printf(#s "." #f " %zu %zu\n", offsetof(struct s, f), sizeof(((struct s *)0)->f))
#define V(x) printf(#x " %llu\n", (unsigned long long)(x))
int main(void)
{
	V(sizeof(struct btrfs_ioctl_heat_info));
	F(btrfs_ioctl_heat_info, flags); F(btrfs_ioctl_heat_info, out_flags);
	F(btrfs_ioctl_heat_info, num_reads); F(btrfs_ioctl_heat_info, num_writes);
	F(btrfs_ioctl_heat_info, last_read_time); F(btrfs_ioctl_heat_info, last_write_time);
	F(btrfs_ioctl_heat_info, avg_delta_reads); F(btrfs_ioctl_heat_info, avg_delta_writes);
	F(btrfs_ioctl_heat_info, temp); F(btrfs_ioctl_heat_info, reserved32);
	F(btrfs_ioctl_heat_info, reserved);
	V(sizeof(struct btrfs_ioctl_heat_opts));
	F(btrfs_ioctl_heat_opts, flags); F(btrfs_ioctl_heat_opts, opts);
	F(btrfs_ioctl_heat_opts, reserved32); F(btrfs_ioctl_heat_opts, reserved);
	V(BTRFS_IOC_GET_HEAT_INFO); V(BTRFS_IOC_GET_HEAT_OPTS); V(BTRFS_IOC_SET_HEAT_OPTS);
	V(BTRFS_HEAT_OPTS_NONE); V(BTRFS_HEAT_OPTS_TRACK); V(BTRFS_HEAT_OPTS_MOVE);
	V(BTRFS_HEAT_OPTS_FAST); V(BTRFS_HEAT_OPTS_SLOW);
	V(sizeof(struct btrfs_ioctl_tier_bytes));
	F(btrfs_ioctl_tier_bytes, start); F(btrfs_ioctl_tier_bytes, len);
	F(btrfs_ioctl_tier_bytes, flags); F(btrfs_ioctl_tier_bytes, fast_bytes);
	F(btrfs_ioctl_tier_bytes, slow_bytes); F(btrfs_ioctl_tier_bytes, mixed_bytes);
	F(btrfs_ioctl_tier_bytes, inline_bytes); F(btrfs_ioctl_tier_bytes, reserved);
	V(BTRFS_IOC_GET_TIER_BYTES); V(BTRFS_TIER_BYTES_SYNC); V(BTRFS_TIER_BYTES_FLAGS);
	V(BTRFS_HEAT_INFO_LIVE); V(BTRFS_HEAT_INFO_TRACKED);
	V(sizeof(struct btrfs_ioctl_heat_list));
	F(btrfs_ioctl_heat_list, flags); F(btrfs_ioctl_heat_list, out_flags);
	F(btrfs_ioctl_heat_list, root); F(btrfs_ioctl_heat_list, ino);
	F(btrfs_ioctl_heat_list, offset); F(btrfs_ioctl_heat_list, entries);
	F(btrfs_ioctl_heat_list, nr_entries); F(btrfs_ioctl_heat_list, reserved32);
	F(btrfs_ioctl_heat_list, reserved);
	V(sizeof(struct btrfs_heat_list_entry));
	F(btrfs_heat_list_entry, root); F(btrfs_heat_list_entry, ino);
	F(btrfs_heat_list_entry, start); F(btrfs_heat_list_entry, len);
	F(btrfs_heat_list_entry, score); F(btrfs_heat_list_entry, temp);
	F(btrfs_heat_list_entry, nr_reads); F(btrfs_heat_list_entry, nr_writes);
	F(btrfs_heat_list_entry, reserved32); F(btrfs_heat_list_entry, reserved);
	V(BTRFS_IOC_HEAT_LIST); V(BTRFS_HEAT_LIST_RANGES); V(BTRFS_HEAT_LIST_ALL_SUBVOLS);
	V(BTRFS_HEAT_LIST_FLAGS); V(BTRFS_HEAT_LIST_END); V(BTRFS_HEAT_LIST_MAX_ENTRIES);
	return 0;
}
C
# The kernel's header, reached as <linux/btrfs.h> before the system's:
# build/linux's after make kernel; without a tree (make check), 6.1's
# headers from the Debian source tarball with the series' hunks for them.
mkdir -p "$tmp/inc/linux"
if [ -d "$tree/include" ]; then
	cp "$tree/include/uapi/linux/btrfs.h" "$tree/include/uapi/linux/btrfs_tree.h" "$tmp/inc/linux/"
	echo "# headers of $tree"
else
	mkdir "$tmp/src"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$tmp/src" --strip-components=1 \
		linux-source-6.1/include/uapi/linux/btrfs.h linux-source-6.1/include/uapi/linux/btrfs_tree.h
	for dir in patches migrate; do
		sed -e '/^#/d' -e '/^$/d' "$dir/series" | while read -r p; do
			(cd "$tmp/src" && git apply --include='include/uapi/linux/btrfs*.h' \
				"$OLDPWD/$dir/$p") || echo "$dir/$p does not apply" >>"$tmp/apply"
		done
	done
	cp "$tmp/src/include/uapi/linux/btrfs.h" "$tmp/src/include/uapi/linux/btrfs_tree.h" "$tmp/inc/linux/"
	echo "# headers of linux-source-6.1 with the series applied"
fi
ok=1
[ -s "$tmp/apply" ] && { cat "$tmp/apply" >"$tmp/err"; ok=0; }
gcc -Ulinux -D__user= -I"$tmp/inc" -DHEADER='<linux/btrfs.h>' -o "$tmp/kernel" "$tmp/dump.c" 2>"$tmp/err" || ok=0
gcc -Iuserspace -DHEADER='"heat-ioctl.h"' -o "$tmp/ours" "$tmp/dump.c" 2>>"$tmp/err" || ok=0
if [ $ok = 1 ]; then
	echo "ok 1 - both headers compile"
else
	echo "not ok 1 - both headers compile"
	sed 's/^/# /' "$tmp/err" | head -20
fi
if [ $ok = 1 ] && diff <("$tmp/kernel") <("$tmp/ours") >"$tmp/diff"; then
	echo "ok 2 - ioctl numbers, sizes, offsets and values match ($("$tmp/kernel" | wc -l) checked)"
else
	echo "not ok 2 - ioctl numbers, sizes, offsets and values match"
	sed 's/^/# /' "$tmp/diff" 2>/dev/null | head -20
fi
