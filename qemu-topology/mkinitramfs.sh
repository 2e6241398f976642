#!/usr/bin/env bash
# Build the guest's base initramfs: busybox, the storage tools the tests
# and benchmarks use, heatctl when it has been built, and the libraries all
# of them need (found with ldd). The result is an uncompressed newc cpio
# archive, build/initramfs.cpio; run-guest.sh appends a second archive with
# the script to run, which the kernel unpacks over the first.
#
# The archive is rebuilt only when this script, the guest init or one of the
# binaries changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/initramfs.cpio
root=$top/build/initramfs

# Host binaries copied into the guest, with their libraries.
bins=(
	/bin/busybox
	/sbin/mkfs.btrfs /bin/btrfs /bin/btrfs-map-logical
	/usr/sbin/nvme /usr/bin/fio /usr/sbin/xfs_io /usr/sbin/filefrag
	/sbin/dmsetup /usr/sbin/cache_check /usr/bin/jq /usr/bin/getfattr
	/usr/bin/chattr /usr/bin/setfattr /usr/sbin/make-bcache
)
heatctl=$top/userspace/heatctl
abuse=$top/userspace/tests/heat-abuse
replay=$top/userspace/tests/log-replay
[ -x "$heatctl" ] && bins+=("$heatctl")
[ -x "$abuse" ] && bins+=("$abuse")
[ -x "$replay" ] && bins+=("$replay")

for b in "${bins[@]}"; do
	[ -e "$b" ] || { echo "mkinitramfs: $b is missing: run 'make deps'" >&2; exit 1; }
done

stamp=$( {
	cat "$0" "$top/qemu-topology/init"
	for b in "${bins[@]}"; do sha256sum "$(readlink -f "$b")"; done
} | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "  initramfs up to date"
	exit 0
fi

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,mnt,run,root,test}
chmod 1777 "$root/tmp"

copy_with_libs() {
	local src=$1 dst=$2 lib
	install -D -m 0755 "$(readlink -f "$src")" "$root$dst"
	# ldd prints "name => /path (addr)" and "/lib64/ld-linux... (addr)".
	for lib in $(ldd "$src" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		[ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
	done
}

for b in "${bins[@]}"; do
	case "$b" in
	"$heatctl") copy_with_libs "$b" /usr/sbin/heatctl ;;
	"$abuse") copy_with_libs "$b" /usr/sbin/heat-abuse ;;
	"$replay") copy_with_libs "$b" /usr/sbin/log-replay ;;
	*) copy_with_libs "$b" "$b" ;;
	esac
done
# The merged-/usr layout of Debian: /lib is /usr/lib.
if [ -d "$root/usr/lib" ]; then
	cp -a "$root/usr/lib/." "$root/lib/" && rm -rf "$root/usr/lib"
fi
ln -s ../lib "$root/usr/lib"

for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || [ -e "$root/sbin/$applet" ] ||
		[ -e "$root/usr/bin/$applet" ] || [ -e "$root/usr/sbin/$applet" ] ||
		ln -s busybox "$root/bin/$applet"
done

if [ -f "$top/userspace/heatctl.8" ]; then
	install -D -m 0644 "$top/userspace/heatctl.8" "$root/usr/share/man/man8/heatctl.8"
fi

install -m 0755 "$top/qemu-topology/init" "$root/init"
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/tmp:/bin/sh
tester:x:1000:1000:unprivileged test user:/tmp:/bin/sh
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
tester:x:1000:
EOF

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
echo "  initramfs: build/initramfs.cpio ($(du -h "$out" | cut -f1))"
