#!/usr/bin/env bash
# quick: no kernel build, no guest (make check)
# runtime: 5 s (host only; the runner starts the longest first)
# The guest helper that every placement check rests on, fast_bytes
# (tests/lib/heat.sh), run by busybox sh as in the guest, on a chunk tree
# and a FIEMAP listing given here instead of read from a device: it counts
# the extents that lie in the NVMe's chunks, the first chunk included;
# honours its FROM and TO bounds; and an extent in no chunk fails the
# suite at its end (done_testing), except inline and delalloc ones.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../.." || exit 1

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The guest's tools are busybox's: its awk, sed and sh.
mkdir "$dir/bin"
for a in awk sed head cut sh; do ln -s "$(command -v busybox)" "$dir/bin/$a"; done

# run_helper LISTING SCRIPT: run SCRIPT under busybox sh with the guest
# libraries, a chunk tree of two chunks (the first, at 1 MiB, on devid 2 =
# the NVMe; the second, at 8 MiB, on devid 1) and LISTING as what
# filefrag -v prints. Prints the script's output.
run_helper() {
	printf '%s\n' "$1" >"$dir/listing"
	cat >"$dir/script.sh" <<EOF
. tests/lib/tap.sh
. tests/lib/guest.sh
. tests/lib/heat.sh
FAST_DEV=/dev/nvme0n1
UNMAPPED=$dir/unmapped
devid_of() { echo 2; }
chunk_map() { printf 'chunk 1048576 1048576 2\nchunk 8388608 8388608 1\n'; }
filefrag() { cat "$dir/listing"; }
$2
EOF
	PATH=$dir/bin:$PATH HOME=$dir busybox sh "$dir/script.sh" 2>&1
	rm -f /tmp/fast-devid
}

head='Filesystem type is: 9123683e
 ext:     logical_offset:        physical_offset: length:   expected: flags:'
# 16 blocks in the first chunk (NVMe), 16 in the second (SATA).
mapped="$head
   0:        0..      15:        256..       271:     16:
   1:       16..      31:       2048..      2063:     16:             last,eof"

out=$(run_helper "$mapped" 'echo "bytes $(fast_bytes /f)"; echo "from16 $(fast_bytes /f 65536)"; echo "to16 $(fast_bytes /f 0 65536)"; done_testing')
t "an extent in the first chunk of the chunk tree counts (64 KiB on NVMe)" \
	grep -qx "bytes 65536" <<<"$out"
t "FROM leaves out the extents that start before it" grep -qx "from16 0" <<<"$out"
t "TO leaves out the extents that start at or after it" grep -qx "to16 65536" <<<"$out"
t "a file whose extents all lie in chunks passes the end check" \
	bash -c '! grep -q "^not ok" <<<"$1"' _ "$out"

out=$(run_helper "$head
   0:        0..      15:        256..       271:     16:
   1:       16..      31:      99999..    100014:     16:
   2:       32..      32:          0..         0:      1:             not_aligned,inline
   3:       33..      33:          0..         0:      1:             unknown_loc,delalloc,last,eof" \
	'echo "bytes $(fast_bytes /g)"; done_testing')
t "an extent in no chunk fails the suite at its end, named" \
	grep -q "^not ok .* every extent fast_bytes looked at lies in a chunk" <<<"$out"
t "...only that one: inline and delalloc extents are not in a chunk and not a failure" \
	test "$(grep -c "in no chunk" <<<"$out")" = 1 -a "$(grep -c "block 99999," <<<"$out")" = 1
tap_end
