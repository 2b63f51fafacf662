#!/bin/bash
# The topology reader against the real thing: ibsim builds a fabric from a
# file; ibnetdiscover (infiniband-diags, not loom) captures it as real fabrics
# are captured; `loom topo --list` of the capture must equal `loom topo --list`
# of the original file: same nodes, same GUIDs, same descriptions, same links.
# That proves both readings (ibsim's form and ibnetdiscover's) and that the
# reader assigns GUIDs as the simulator does.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

examples=/usr/share/doc/ibsim-utils/net-examples
fabrics=(
	"$examples/net.2sw2path4hca2port"
	"$srcdir/tests/topologies/ft2-k8.topo"
	"$srcdir/tests/topologies/torus2d-4x4.topo"
	"$srcdir/tests/topologies/parallel.topo"
)

i=0
for topo in "${fabrics[@]}"; do
	i=$((i + 1))
	name=${topo##*/}
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	# OpenSM assigns LIDs, so the capture has the "lid N" comments of a live fabric.
	tap_check "$name: OpenSM brings it up" sim_opensm "f$i"
	tap_check "$name: ibnetdiscover captures it" \
		sim_run "f$i" ibnetdiscover "$tmp/$name.capture"
	tap_check "$name: the capture shows LIDs" grep -q ' lid [1-9]' "$tmp/$name.capture"
	"$LOOM" topo --list "$topo" | sort >"$tmp/$name.want"
	"$LOOM" topo --list "$tmp/$name.capture" | sort >"$tmp/$name.got"
	tap_check "$name: the file lists nodes and links" grep -q '^link ' "$tmp/$name.want"
	if diff -u "$tmp/$name.want" "$tmp/$name.got" >"$tmp/$name.diff"; then
		tap_check "$name: capture and file give the same model" true
	else
		tap_check "$name: capture and file give the same model" false
		tap_diag "$(head -n 40 "$tmp/$name.diff")"
	fi
	"$LOOM" topo "$tmp/$name.capture" >"$tmp/$name.counts" 2>&1
	tap_is "$name: loom topo reads the capture clean" "$?" 0
	sim_stop "f$i"
done

tap_done
