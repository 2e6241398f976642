#!/usr/bin/env bash
# heatctl builds with -Wall -Wextra -Werror, its unit tests pass and
# cppcheck has nothing to say.
set -u
cd "$(dirname "$0")/../../userspace" || exit 1
echo "1..3"
if make -s heatctl tests/test-util >/tmp/heatctl-build.log 2>&1; then
	echo "ok 1 - heatctl builds with -Wall -Wextra -Werror"
else
	echo "not ok 1 - heatctl builds with -Wall -Wextra -Werror"
	sed 's/^/# /' /tmp/heatctl-build.log | head -20
fi
out=$(./tests/test-util 2>&1); rc=$?
echo "$out" | grep '^not ok' | sed 's/^/# /'
if [ $rc = 0 ]; then
	echo "ok 2 - unit tests of parsing and formatting ($(echo "$out" | grep -c '^ok') passed)"
else
	echo "not ok 2 - unit tests of parsing and formatting"
fi
out=$(cppcheck --quiet --error-exitcode=1 --enable=warning,style,portability \
	--inline-suppr --suppress=missingIncludeSystem -I. ./*.c tests/*.c 2>&1); rc=$?
if [ $rc = 0 ] && [ -z "$out" ]; then
	echo "ok 3 - cppcheck is silent"
else
	echo "not ok 3 - cppcheck is silent"
	echo "$out" | sed 's/^/# /' | head -20
fi
