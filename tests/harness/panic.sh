#!/bin/sh
# Harness self-test: the guest kernel panics. The launcher must say so.
echo "about to panic"
echo c >/proc/sysrq-trigger
sleep 60
