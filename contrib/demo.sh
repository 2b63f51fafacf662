#!/bin/bash
# README command 1: run loom on a bundled simulated fabric.
#
# Starts Debian's ibsim on tests/topologies/ft2-k8.topo (or the file given),
# brings the fabric up with OpenSM (loomd takes its place once the daemon
# lands), captures the live fabric with ibnetdiscover, and shows what
# `loom topo` reads from the capture and from every bundled fabric.
# Run it from the source tree after `make` (or set LOOM to the loom binary).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM=${LOOM:-$src/tools/loom}
topo=${1:-$src/tests/topologies/ft2-k8.topo}
. "$src/tests/lib/sim.sh"
out=$(mktemp -d)
sim_trap_exit 'rm -rf "$out"'

if ! [ -x "$LOOM" ]; then
	echo "demo: $LOOM not found: build first (./autogen.sh && ./configure && make)" >&2
	exit 1
fi

echo "== starting a simulated fabric from ${topo#"$src"/}"
sim_start demo "$topo"
echo "== bringing it up with OpenSM (the reference SM, until loomd lands)"
sim_opensm demo
echo "== iblinkinfo (first lines): the links OpenSM brought to Active"
sim_run demo iblinkinfo >"$out/links" 2>/dev/null
head -n 12 "$out/links"
echo "== capturing the live fabric with ibnetdiscover"
sim_run demo ibnetdiscover "$out/capture.topo"
grep -m 6 -E '^(Switch|Ca)' "$out/capture.topo"
echo "..."
echo "== loom topo on the capture"
"$LOOM" topo "$out/capture.topo"
echo "== loom topo on every bundled fabric"
for f in "$src"/tests/topologies/*.topo; do
	rc=0
	"$LOOM" topo "$f" >"$out/one" 2>&1 || rc=$?
	printf '%-28s exit %s  %s\n' "${f##*/}" "$rc" "$(sed -n 's/^  nodes *//p' "$out/one")"
	[ "$rc" -eq 0 ] || sed -n '1,3p' "$out/one" | sed 's/^/    /'
done
