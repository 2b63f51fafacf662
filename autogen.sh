#!/bin/sh
# Generate configure and Makefile.in from a git checkout.
set -eu
cd "$(dirname "$0")"
mkdir -p build-aux m4
# The TAP test driver ships with automake; copy it rather than keep a copy in git.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
autoreconf -fi
