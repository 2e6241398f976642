#!/usr/bin/env bash
# Kernel tree and kernel builds for the guest.
#
#   kernel.sh tree            unpack linux-source-6.1 into build/linux (once),
#                             make it a git repository whose first commit is
#                             the pristine source, apply patches/ and migrate/
#   kernel.sh build FLAVOUR   configure (tinyconfig + fragments) and build
#                             build/bzImage-FLAVOUR, FLAVOUR = lean | debug |
#                             kasan (debug with KASAN, for soak runs only) |
#                             stock (the lean config on the pristine source,
#                             without our series: make compat)
#   kernel.sh export          write the commits of build/linux back to
#                             patches/ and migrate/ with git format-patch
#
# Nothing here is redone when its inputs did not change: the tree is
# re-applied only when a series file or a patch changed, and a flavour is
# rebuilt only when the tree's HEAD, its working files or the config
# fragments changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
tree=$build/linux
tarball=/usr/src/linux-source-6.1.tar.xz
cfgdir=$top/qemu-topology/config
git_id=(-c user.name="heat builder" -c user.email="heat@localhost")
# Commits in build/linux that came from patches/ end at this marker commit;
# the ones after it belong to migrate/.
marker="heat: end of the tracking series"

die() { echo "kernel.sh: $*" >&2; exit 1; }
say() { echo "  $*"; }

series_files() {
	local dir=$1
	[ -f "$dir/series" ] || return 0
	{ grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$dir/series" || true; } |
		sed "s|^|$dir/|"
}

series_hash() {
	{
		cat "$top/patches/series" "$top/migrate/series" 2>/dev/null
		series_files "$top/patches" | xargs -r cat
		series_files "$top/migrate" | xargs -r cat
	} | sha256sum | cut -d' ' -f1
}

make_pristine() {
	[ -f "$tarball" ] || die "$tarball is missing: run 'make deps'"
	echo "Unpacking $(basename "$tarball") into build/linux"
	rm -rf "$build/linux-source-6.1" "$tree"
	mkdir -p "$build"
	tar -C "$build" -xf "$tarball"
	mv "$build/linux-source-6.1" "$tree"
	# Debian's top-level .gitignore ends by ignoring every top-level entry
	# (its packaging repository tracks only debian/). Drop that section
	# so new files of our series show up in git status.
	sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"
	git -C "$tree" init -q
	git -C "$tree" add -A
	git -C "$tree" "${git_id[@]}" commit -q -m "Linux $(kernel_version) (Debian linux-source-6.1, pristine)"
	git -C "$tree" tag pristine
}

kernel_version() {
	make -s -C "$tree" kernelversion 2>/dev/null
}

apply_series() {
	local dir=$1 p
	for p in $(series_files "$dir"); do
		[ -f "$p" ] || die "$p is listed in $dir/series but missing"
		git -C "$tree" "${git_id[@]}" am -q --committer-date-is-author-date "$p" ||
			die "$(basename "$p") does not apply; see 'git -C build/linux am --show-current-patch'"
	done
}

cmd_tree() {
	local want state head applied_head
	[ -d "$tree/.git" ] || make_pristine
	want=$(series_hash)
	state=$tree/.git/heat-applied
	if [ -f "$state" ]; then
		read -r applied_hash applied_head <"$state"
		head=$(git -C "$tree" rev-parse HEAD)
		if [ "$applied_hash" = "$want" ]; then
			say "kernel tree up to date ($(kernel_version), $(git -C "$tree" rev-list --count pristine..HEAD) commits on pristine)"
			return 0
		fi
		if [ "$head" != "$applied_head" ] && [ "${FORCE:-0}" != 1 ]; then
			die "build/linux has commits that differ from what was applied, and patches/ or migrate/ changed too.
Run 'make export' to keep your commits, or 'make kernel FORCE=1' to drop them."
		fi
	fi
	echo "Applying patches/ and migrate/ on pristine $(kernel_version)"
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" reset -q --hard pristine
	git -C "$tree" clean -qfdx
	apply_series "$top/patches"
	git -C "$tree" "${git_id[@]}" commit -q --allow-empty -m "$marker"
	apply_series "$top/migrate"
	echo "$want $(git -C "$tree" rev-parse HEAD)" >"$state"
	say "applied $(git -C "$tree" rev-list --count pristine..HEAD) commits"
}

# Every CONFIG_ line of the fragments must survive olddefconfig.
check_config() {
	local cfg=$1 frag line opt
	shift
	for frag in "$@"; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) opt=$line ;;
			"# CONFIG_"*" is not set") opt=$line ;;
			*) continue ;;
			esac
			if ! grep -qxF "$opt" "$cfg"; then
				case "$opt" in
				\#*) grep -q "^${opt#\# }" "$cfg" || continue ;;
				esac
				die "$(basename "$frag"): '$opt' did not survive olddefconfig (missing dependency?)"
			fi
		done <"$frag"
	done
}

# stock_tree: a worktree of build/linux at the pristine commit, in
# build/stock/linux, built in build/stock/out: the same path from the
# build directory to the source as build/out-lean has, so that ccache
# (base directory: the project) hits for every file the series left alone.
stock_tree() {
	local st=$build/stock/linux
	[ -d "$tree/.git" ] || die "no kernel tree: run 'make kernel'"
	if [ ! -e "$st/.git" ]; then
		git -C "$tree" worktree prune
		mkdir -p "$build/stock"
		git -C "$tree" worktree add -q --detach "$st" pristine ||
			die "cannot check the pristine source out in $st"
	fi
	git -C "$st" checkout -q --detach pristine
}

cmd_build() {
	local flavour=${1:-} out stamp want cc jobs frags
	out=$build/out-$flavour
	case "$flavour" in
	lean | debug) frags=("$cfgdir/base.config" "$cfgdir/$flavour.config") ;;
	kasan) frags=("$cfgdir/base.config" "$cfgdir/debug.config" "$cfgdir/kasan.config") ;;
	stock)
		frags=("$cfgdir/base.config" "$cfgdir/lean.config")
		stock_tree
		tree=$build/stock/linux
		out=$build/stock/out
		;;
	*) die "usage: kernel.sh build lean|debug|kasan|stock" ;;
	esac
	[ -e "$tree/.git" ] || die "no kernel tree: run 'make kernel'"
	stamp=$out/.heat-stamp
	want=$( {
		git -C "$tree" rev-parse HEAD
		git -C "$tree" status --porcelain
		cat "${frags[@]}"
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
		[ -f "$build/bzImage-$flavour" ] &&
		[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
		say "$flavour kernel up to date"
		return 0
	fi
	mkdir -p "$out"
	cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	# Hits across clones of the project in other folders (CI).
	export CCACHE_BASEDIR=$top
	# Fixed build identity keeps ccache hits across rebuilds.
	export KBUILD_BUILD_USER=heat KBUILD_BUILD_HOST=guest
	KBUILD_BUILD_TIMESTAMP=$(git -C "$tree" log -1 --format=%ci)
	export KBUILD_BUILD_TIMESTAMP
	jobs=$(($(nproc) + 1))
	local kmake=(make -s -C "$tree" O="$out" ARCH=x86_64 CC="$cc" HOSTCC="$cc")

	# Configure into a scratch file and install it only when it differs,
	# so an unchanged config does not dirty the build.
	local tmp=$build/.config-$flavour.tmp
	"${kmake[@]}" KCONFIG_CONFIG=.config.heat tinyconfig >/dev/null
	(cd "$out" && KCONFIG_CONFIG=.config.heat "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config.heat" "${frags[@]}" >/dev/null)
	"${kmake[@]}" KCONFIG_CONFIG=.config.heat olddefconfig >/dev/null
	cp "$out/.config.heat" "$tmp"
	check_config "$tmp" "${frags[@]}"
	if ! cmp -s "$tmp" "$out/.config"; then
		cp "$tmp" "$out/.config"
	fi
	rm -f "$tmp"

	echo "Building the $flavour kernel (build/${out#"$build"/}, $jobs jobs$([ "$cc" != gcc ] && echo ", ccache"))"
	local t0=$SECONDS
	"${kmake[@]}" -j"$jobs" bzImage
	cp "$out/arch/x86/boot/bzImage" "$build/bzImage-$flavour"
	echo "$want" >"$stamp"
	say "$flavour kernel built in $((SECONDS - t0)) s: build/bzImage-$flavour ($(kernel_version))"
}

cmd_export() {
	local mark
	[ -d "$tree/.git" ] || die "no kernel tree: run 'make kernel'"
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
		die "build/linux has uncommitted changes: commit them first"
	mark=$(git -C "$tree" log --format='%H %s' pristine..HEAD | awk -v m="$marker" '!found && substr($0, 42) == m { print $1; found = 1 }')
	[ -n "$mark" ] || die "the marker commit '$marker' is missing from build/linux"
	export_range pristine "$mark^" "$top/patches"
	export_range "$mark" HEAD "$top/migrate"
	echo "$(series_hash) $(git -C "$tree" rev-parse HEAD)" >"$tree/.git/heat-applied"
}

export_range() {
	local from=$1 to=$2 dir=$3 n
	mkdir -p "$dir"
	rm -f "$dir"/*.patch
	git -C "$tree" format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$dir" "$from..$to"
	{
		echo "# Applied in this order by 'make kernel'; written by 'make export'."
		(cd "$dir" && ls -1 -- *.patch 2>/dev/null || true)
	} >"$dir/series"
	n=$(grep -vc '^#' "$dir/series" || true)
	say "$(basename "$dir")/: $n patches"
}

# One kernel.sh at a time: two builds in one output tree corrupt it.
mkdir -p "$build"
exec 9>"$build/.kernel.lock"
flock 9

case "${1:-}" in
tree) cmd_tree ;;
build) cmd_build "${2:-}" ;;
export) cmd_export ;;
*) die "usage: kernel.sh tree | build lean|debug | export" ;;
esac
