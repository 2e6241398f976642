#!/usr/bin/env bash
# quick: no kernel build, no guest (make check)
# Every shell script of the project (host and guest side, the sourced
# libraries too) is clean under shellcheck at warning level, so quoting
# and portability mistakes show up before a guest boots.
set -u
cd "$(dirname "$0")/../.." || exit 1
echo "1..2"
scripts=()
while read -r f; do
	case "$f" in
	*.sh) scripts+=("$f") ;;
	*) head -n 1 "$f" | grep -qE '^#!.*\b(ba|da)?sh\b' && scripts+=("$f") ;;
	esac
done < <(git ls-files --cached --others --exclude-standard -- . ':!build')
if [ "${#scripts[@]}" -ge 30 ]; then
	echo "ok 1 - found the project's shell scripts (${#scripts[@]})"
else
	echo "not ok 1 - found the project's shell scripts (only ${#scripts[@]})"
fi
if out=$(shellcheck -S warning -f gcc "${scripts[@]}" 2>&1); then
	echo "ok 2 - shellcheck -S warning is silent"
else
	echo "not ok 2 - shellcheck -S warning is silent"
	printf '%s\n' "$out" | head -20 | sed 's/^/# /'
fi
