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
# The Debian package's test builds the .debs (dpkg-buildpackage, from build-essential's
# dpkg-dev, with debhelper) and runs lintian on them.
test_pkgs="$test_pkgs debhelper lintian"
# loom-verbs (verbs/) builds against libibverbs. Its test boots Debian's kernel in qemu
# with soft-RoCE (tests/vm/rxe-vm.sh): the rxe provider, busybox for the initramfs, kmod
# to order the modules, iproute2's rdma to create rxe0.
pkgs="$pkgs libibverbs-dev librdmacm-dev"
test_pkgs="$test_pkgs ibverbs-providers qemu-system-x86 busybox-static kmod cpio xz-utils iproute2"
# loomd.service's test boots this machine's own systemd in that VM (tests/vm/systemd-vm.sh).
test_pkgs="$test_pkgs systemd"

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
# The VM's kernel and modules: downloaded with apt-get download (never installed on this
# machine) into the test cache, so the test itself does not wait for it.
if [ "${1:-}" = --test ]; then
	"$(dirname "$0")/../tests/vm/rxe-vm.sh" prepare ||
		echo "setup-debian: could not prepare the loom-verbs test VM; its test will try again" >&2
fi
