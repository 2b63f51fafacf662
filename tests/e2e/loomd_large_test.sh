#!/bin/bash
# loomd on the fabric sizes the issue names, generated at test time: a
# 2-level fat tree of 648 hosts, a 3-level fat tree of 3,456 hosts and a
# 4x4x4 torus; judged as in loomd_test.sh (ibnetdiscover, iblinkinfo,
# ibtracert, the dump_lfts read-back walked by loom verify, a restart that
# changes nothing).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
export SIM_RUN_TIMEOUT=600
. "$srcdir/tests/lib/loomd.sh"

gen=$srcdir/contrib/topogen.py
python3 "$gen" fattree2 -k 36 -o "$tmp/ft2-k36-648.topo"
python3 "$gen" fattree3 -k 24 -o "$tmp/ft3-k24-3456.topo"
python3 "$gen" torus3d -x 4 -y 4 -z 4 -o "$tmp/torus3d-4x4x4.topo"

i=0
for topo in "$tmp"/*.topo; do
	i=$((i + 1))
	name=$(basename "$topo" .topo)
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	bringup_check "$name" "f$i" "$topo"
	sim_stop "f$i"
done

tap_done
