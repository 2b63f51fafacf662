#!/bin/sh
# Install what loom needs on Debian 12 (run as root, or with sudo available).
#   contrib/setup-debian.sh          build loom and run it on a simulated fabric
#   contrib/setup-debian.sh --test   also everything the test suite needs
set -eu

# Build: compiler, autotools, and the libraries configure looks for. ibsim-utils
# and infiniband-diags are here too: the demo runs loom on a simulated fabric.
pkgs="build-essential autoconf automake pkg-config python3
	libibumad-dev libyaml-dev libsystemd-dev libopensm-dev libcmocka-dev
	ibsim-utils infiniband-diags"
# Tests: OpenSM (the reference SM and osmtest) and clang with libFuzzer.
test_pkgs="opensm clang libclang-rt-14-dev valgrind"

case "${1:-}" in
--test) pkgs="$pkgs $test_pkgs" ;;
"") ;;
*) echo "usage: $0 [--test]" >&2; exit 1 ;;
esac

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086 # the list is meant to split
$sudo apt-get install -y -q --no-install-recommends $pkgs
