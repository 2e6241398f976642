#!/bin/sh
# Harness self-test: a script that fails. The launcher must return its status.
echo "slow=$SLOW_DEV fast=$FAST_DEV"
echo "about to fail"
exit 3
