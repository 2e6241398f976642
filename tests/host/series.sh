#!/usr/bin/env bash
# runtime: 700 s (with a cold compiler cache; 120 warm; the runner starts the longest first)
# The patch series: it applies on pristine linux-source-6.1 (make kernel
# did that; here we check the tree is exactly what patches/ and migrate/
# say), every patch is clean under checkpatch --strict, and every patch
# builds on its own: each commit is checked out in a separate worktree and
# the directories it touches are compiled with the debug config, warnings
# as errors.
set -u
. "$(dirname "$0")/../lib/host.sh"
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
tree=$top/build/linux
wt=$top/build/series-check
out=$top/build/out-series

patches=()
for dir in patches migrate; do
	while read -r p; do
		case "$p" in "" | \#*) continue ;; esac
		patches+=("$dir/$p")
	done <"$dir/series"
done

# What build/linux holds, exported the way 'make export' does, must be
# byte for byte what the repository has.
applied_ok() {
	local tmp mark dir rc=0
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] || return 1
	tmp=$(mktemp -d)
	mark=$(git -C "$tree" log --format=%H --grep="^heat: end of the tracking series$" -1)
	[ -n "$mark" ] || return 1
	git -C "$tree" format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$tmp/patches" "pristine..$mark^" || rc=1
	git -C "$tree" format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$tmp/migrate" "$mark..HEAD" || rc=1
	for dir in patches migrate; do
		mkdir -p "$tmp/$dir"
		diff -r -x series "$tmp/$dir" "$dir" >/dev/null || rc=1
	done
	rm -rf "$tmp"
	return $rc
}
t "build/linux is pristine 6.1 plus exactly the ${#patches[@]} patches of patches/ and migrate/" applied_ok

# btrfs names its mount option tokens Opt_*; checkpatch flags every new one
# as CamelCase. That is the one report we accept, and only for Opt_ names.
checkpatch() {
	# spdxcheck.py wants Debian's python3 with python3-ply.
	(cd "$tree" && export PATH=/usr/bin:$PATH && scripts/checkpatch.pl --strict --quiet --no-summary \
		--show-types --ignore CAMELCASE "$1" 2>&1
	 scripts/checkpatch.pl --strict --quiet --no-summary --show-types \
		--types CAMELCASE "$1" 2>&1 | grep 'CHECK:CAMELCASE' | grep -v '<Opt_')
}

for p in "${patches[@]}"; do
	res=$(checkpatch "$top/$p")
	t "checkpatch --strict is silent on $p" test -z "$res"
	[ -z "$res" ] || echo "$res" | head -20 | sed 's/^/#   /'
done

[ ${#patches[@]} -gt 0 ] || { tap_end; exit; }

# A fresh worktree each run: a half-made one would let git walk up into
# the project's own repository.
rm -rf "$wt"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$wt" pristine || { echo "Bail out! cannot make $wt"; exit 1; }
mkdir -p "$out"
cp "$top/build/out-debug/.config" "$out/.config"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
export CCACHE_BASEDIR=$top
kmake=(make -s -C "$wt" O="$out" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"$(($(nproc) + 1))")
"${kmake[@]}" olddefconfig >/dev/null 2>&1
"${kmake[@]}" prepare >/dev/null 2>&1

for c in $(git -C "$tree" rev-list --reverse pristine..HEAD); do
	subj=$(git -C "$tree" log -1 --format=%s "$c")
	[ "$subj" = "heat: end of the tracking series" ] && continue
	if ! git -C "$wt" checkout -q --detach "$c"; then
		t "builds on its own: $subj (checkout failed)" false
		continue
	fi
	# The directories of the C files it touches; a header-only patch
	# builds the directories of the headers instead.
	dirs=$(git -C "$tree" show --format= --name-only "$c" |
		grep -E '\.[ch]$' | grep -v '^include/uapi/' | grep -v '^tools/' |
		xargs -r -n1 dirname | sort -u | sed 's|^include/.*|fs/btrfs|' | sort -u)
	log=$top/build/logs/series-build-$(git -C "$tree" rev-list --count pristine.."$c").log
	ok=1
	for d in $dirs; do
		if ! "${kmake[@]}" KCFLAGS=-Werror "$d/" >"$log" 2>&1; then
			ok=0
			break
		fi
	done
	t "builds on its own: $subj" test $ok = 1
	[ $ok = 1 ] || tail -20 "$log" | sed 's/^/#   /'
done
tap_end
