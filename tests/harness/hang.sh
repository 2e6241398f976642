#!/bin/sh
# Harness self-test: the guest never finishes. The launcher must kill it
# at its time limit and say so.
echo "about to hang"
while :; do sleep 1; done
