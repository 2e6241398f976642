#!/usr/bin/env bash
# The kill loop of make soak (issue #14): CUTS (50) power cuts with sysrq-b,
# each while a pass writes, with writers running through the passes (fio
# with verification, small files made, truncated, punched and reflinked,
# snapshots made and deleted); tests/host/crash.sh does the work.
exec env CUTS="${CUTS:-50}" WRITERS=1 "$(dirname "$0")/../../host/crash.sh"
