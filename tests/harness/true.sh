#!/bin/sh
# A guest script that does nothing: used for the KUnit boot.
exit 0
