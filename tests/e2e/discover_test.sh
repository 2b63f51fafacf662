#!/bin/bash
# loom discover against the simulator: the model a directed-route sweep builds
# must equal the model `loom topo --list` reads from the file ibsim built the
# fabric from (GUIDs, descriptions, port counts, every link), and hold as many
# nodes as ibnetdiscover (infiniband-diags, not loom) finds. Then the same with
# ibsim dropping SMPs on some switch ports: retries must make up for it.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

examples=/usr/share/doc/ibsim-utils/net-examples
fabrics=(
	"$examples/net"
	"$examples/net.2sw2path4hca2port"
	"$srcdir/tests/topologies/ft2-k8.topo"
	"$srcdir/tests/topologies/loop.topo"
	"$srcdir/tests/topologies/torus2d-4x4.topo"
	"$srcdir/tests/topologies/parallel.topo"
	"$srcdir/tests/topologies/2sw2path.topo"
)

# discover_check TAG SIMNAME TOPO: one sweep, judged against the file.
discover_check() {
	local tag=$1 sim=$2 topo=$3 rc=0 want got
	sim_run "$sim" "$LOOM" discover --list >"$tmp/$tag.out" 2>"$tmp/$tag.err" || rc=$?
	tap_is "$tag: loom discover exits 0" "$rc" 0 || tap_diag "$(head -n 20 "$tmp/$tag.err")"
	tap_diag "$(grep 'SMPs sent' "$tmp/$tag.err")"
	"$LOOM" topo --list "$topo" | LC_ALL=C sort >"$tmp/$tag.want"
	LC_ALL=C sort "$tmp/$tag.out" >"$tmp/$tag.got"
	if diff -u "$tmp/$tag.want" "$tmp/$tag.got" >"$tmp/$tag.diff"; then
		tap_check "$tag: discovered model equals the file's" true
	else
		tap_check "$tag: discovered model equals the file's" false
		tap_diag "$(head -n 40 "$tmp/$tag.diff")"
	fi
}

i=0
for topo in "${fabrics[@]}"; do
	i=$((i + 1))
	name=${topo##*/}
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	discover_check "$name" "f$i" "$topo"
	want=$(sim_nodes "f$i" | wc -l)
	got=$(grep -c '^node ' "$tmp/$name.got")
	tap_is "$name: as many nodes as ibnetdiscover finds" "$got" "$want"
	sim_stop "f$i"
done

# Fault injection: ibsim's console "Error NODEID RATE" drops RATE% of the
# packets arriving at any port of that node (ibsim/sim_mad.c). Put it on the
# switch the SM's host hangs off, which nearly every SMP and answer crosses.
topo=$srcdir/tests/topologies/ft2-k8.topo
if sim_start lossy "$topo"; then
	leaf=$(sim_topo_links "$topo" | head -n 1 | cut -f 3)
	tap_check "lossy: ibsim drops 5% of SMPs at \"$leaf\"" \
		sim_console lossy "Error \"$leaf\" 5"
	discover_check lossy lossy "$topo"
	retries=$(sed -nE 's/.*retries ([0-9]+),.*/\1/p' "$tmp/lossy.err")
	tap_check "lossy: stderr reports retries (${retries:-none})" test "${retries:-0}" -gt 0
	sim_stop lossy
else
	tap_check "lossy: simulator starts" false
fi

tap_done
