#!/bin/bash
# OpenSM's own SA test suite, osmtest, against loomd's SA, under the RMPP
# shim (tests/rig) as a host's kernel would carry the answers:
#  - osmtest -f c writes its inventory (every node, port, link and path)
#    from loomd's SA, and it lists every node ibnetdiscover finds;
#  - osmtest -f a (all validations) passes: the SA against that inventory
#    (node, port, path and multipath records, the statuses of bad requests,
#    trusted P_KeyTableRecords, SMInfo-, InformInfo- and GUIDInfoRecords,
#    links, LFT/MFT records, subscriptions with the requester's QPN), a
#    request with a wrong SM_Key left unanswered, and ServiceRecords:
#    register, lease, query by every field, delete;
#  - osmtest -f m (the multicast flow: creating, joining and leaving
#    groups, MGID, JoinState, rate/MTU/lifetime and P_Key/Q_Key rules) on
#    2sw2path;
#  - the same runs against OpenSM's SA on a twin simulator, to show the
#    comparison is fair.
# Fabrics: tests/topologies/2sw2path.topo (6 nodes, both SMs) and
# ft2-k8.topo (44 nodes, loomd).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
LOOMD=${LOOMD:-loomd}
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
need_tools ibsim opensm ibnetdiscover osmtest
need_rig librmpp_shim.so librmpp_tail.so

# osmtest_flows NAME LABEL: -f c, then -f a against whichever SM runs on NAME.
osmtest_flows() {
	local n=$1 l=$2 rc nodes inv t0=$SECONDS
	rc=0
	SIM_RMPP=1 sim_run "$n" --timeout 120 --out "$tmp/$n.c.out" \
		osmtest -f c -i "$tmp/$n.dat" -l "$tmp/$n.c.log" || rc=$?
	tap_is "$l: osmtest -f c creates its inventory" "$rc" 0 ||
		tap_diag "$(grep ERR "$tmp/$n.c.log" | tail -n 5)"
	nodes=$(sim_nodes "$n" | wc -l)
	inv=$(awk '/^DEFINE_NODE/ { in_node = 1 } /^END/ { in_node = 0 }
		   in_node && $1 == "node_guid" { print $2 }' "$tmp/$n.dat" 2>/dev/null | sort -u | wc -l)
	tap_is "$l: the inventory has every node of the fabric" "$inv" "$nodes"
	rc=0
	SIM_RMPP=1 sim_run "$n" --timeout 240 --out "$tmp/$n.a.out" \
		osmtest -f a -i "$tmp/$n.dat" -l "$tmp/$n.a.log" || rc=$?
	tap_is "$l: osmtest -f a (all validations) passes" "$rc" 0 ||
		tap_diag "$(grep -v 'EXPECTED\|Expecting' "$tmp/$n.a.log" | grep ERR | tail -n 5)"
	tap_check "$l: osmtest says PASS" grep -q 'TEST "All Validations" PASS' "$tmp/$n.a.out"
	tap_diag "$l: osmtest -f c and -f a took $((SECONDS - t0)) s"
}

# osmtest_mcast NAME LABEL: the multicast flow (needs -f c's inventory).
osmtest_mcast() {
	local n=$1 l=$2 rc=0
	SIM_RMPP=1 sim_run "$n" --timeout 240 --out "$tmp/$n.m.out" \
		osmtest -f m -i "$tmp/$n.dat" -l "$tmp/$n.m.log" || rc=$?
	tap_is "$l: osmtest -f m (multicast) passes" "$rc" 0 ||
		tap_diag "$(grep -v 'EXPECTED\|Expecting' "$tmp/$n.m.log" | grep ERR | tail -n 5)"
	tap_check "$l: osmtest says PASS" grep -q 'TEST "Multicast" PASS' "$tmp/$n.m.out"
}

# ---- OpenSM, the reference -------------------------------------------------
if sim_start o "$srcdir/tests/topologies/2sw2path.topo"; then
	tap_check "OpenSM: SUBNET UP" sa_opensm o "$tmp/osm.log"
	osmtest_flows o "OpenSM 2sw2path"
	osmtest_mcast o "OpenSM 2sw2path"
	sim_signal o TERM
	sim_stop o
else
	tap_check "OpenSM simulator starts" false
fi

# ---- loomd -------------------------------------------------------------------
i=0
for name in 2sw2path ft2-k8; do
	i=$((i + 1))
	if ! sim_start "l$i" "$srcdir/tests/topologies/$name.topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	tap_check "loomd $name: SUBNET UP" sa_loomd "l$i" "$tmp/l$i.loomd.log" "$tmp/l$i.state"
	osmtest_flows "l$i" "loomd $name"
	[ "$name" = 2sw2path ] && osmtest_mcast "l$i" "loomd $name"
	# osmtest -f a asks once with a wrong SM_Key: dropped unanswered, and said.
	tap_check "loomd $name: the request with a wrong SM_Key was dropped and logged" \
		grep -q 'with a wrong SM_Key' "$tmp/l$i.loomd.log"
	sim_signal "l$i" TERM
	sim_stop "l$i"
done

tap_done
