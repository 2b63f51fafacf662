#!/bin/bash
# RMPP on the simulator (tests/rig, sim.sh's SIM_RMPP=1): with the shim, an
# SA's multi-segment answers reach libibumad clients whole, as the kernel
# hands them over on hardware. Proven on OpenSM, which runs under the shim
# too (it sends its answers through the kernel's RMPP):
#  - saquery NR, PIR, LR, SWIR and PR list every node, port LID, link,
#    switch and LID pair that ibnetdiscover (plain SMPs) finds; without the
#    shim saquery NR shows only the first segment's records (both counted);
#  - osmtest -f c writes an inventory of every node, then osmtest -f a
#    (all validations) passes against OpenSM's SA;
#  - a sender that loses segments (RMPP_SHIM_DROP), to a receiver with a
#    small window (RMPP_SHIM_WINDOW), still gets the whole answer across:
#    ACKs, timeouts and retransmission;
#  - the shim prints nothing unless RMPP_SHIM_DEBUG=1; OpenSM under it
#    stops cleanly on TERM.
# Fabrics: tests/topologies/2sw2path.topo (in the shape of ibsim's example
# net.2sw2path4hca2port, 6 nodes) and ft2-k8.topo (44 nodes).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim opensm ibnetdiscover saquery osmtest
need_rig librmpp_shim.so librmpp_tail.so

SQ_MS=20000 # saquery's timeout: ample on a loaded machine

# osm_start NAME [VAR=VALUE...]: OpenSM (no -o: it must stay to answer) under
# the shim, with VAR=VALUE in its environment, in the background; waits
# (bounded) for SUBNET UP. Sets OSM_PID.
osm_start() {
	local name=$1 dir
	shift
	dir=$(sim_dir "$name")
	(
		for kv in "$@"; do
			export "${kv?}"
		done
		SIM_RMPP=1 sim_run "$name" --timeout 300 --out "$tmp/$name.osm.out" \
			opensm -d2 -F "$dir/opensm.conf" -f "$tmp/$name.osm.log" --dump_files_dir "$dir"
	) &
	OSM_PID=$!
	log_wait -p "$OSM_PID" "$tmp/$name.osm.log" 'SUBNET UP' 30
}

# osm_stop NAME: TERM to OpenSM; it must exit 0 in time (its status).
osm_stop() {
	local rc=0
	sim_signal "$1" TERM 2>/dev/null || true
	wait "$OSM_PID" || rc=$?
	return "$rc"
}

# What ibnetdiscover finds with plain SMPs: "nodes switches lids links".
fabric_counts() { # NAME
	local out
	out=$(sim_run "$1" ibnetdiscover -p 2>/dev/null) || return 1
	awk '{ lid[$2] = 1; guid[$4] = $1 }
	     / - (CA|SW|RT) / { ends++ }
	     END { for (g in guid) if (guid[g] == "SW") s++
		   for (l in lid) n++
		   print s + 0, n, ends / 2 }' <<<"$out" | {
		read -r sw lids links
		echo "$(sim_nodes "$1" | wc -l) $sw $lids $links"
	}
}

# saquery_count NAME WHAT: records `saquery WHAT` shows under the shim.
saquery_count() {
	SIM_RMPP=1 sim_run "$1" --timeout 60 saquery -t "$SQ_MS" "$2" >"$tmp/$1.$2.out" \
		2>"$tmp/$1.$2.err" || return 1
	grep -c 'Record dump:' "$tmp/$1.$2.out"
}

sa_checks() { # NAME LABEL
	local n=$1 l=$2 nodes sw lids links got raw
	read -r nodes sw lids links < <(fabric_counts "$n") ||
		{ tap_check "$l: ibnetdiscover reads the fabric" false; return; }
	tap_diag "$l: ibnetdiscover: $nodes nodes, $sw switches, $lids LIDs, $links links"
	got=$(saquery_count "$n" NR)
	tap_is "$l: saquery NR: a record per LID" "$got" "$lids"
	tap_is "$l: saquery NR: every node" \
		"$(grep -o 'node_guid\.*0x[0-9a-f]*' "$tmp/$n.NR.out" | sort -u | wc -l)" "$nodes"
	raw=$(sim_run "$n" --timeout 60 saquery -t "$SQ_MS" NR 2>/dev/null | grep -c 'Record dump:')
	tap_diag "$l: saquery NR shows $got records with the shim, $raw without"
	tap_check "$l: without the shim, NR shows only the first segment ($raw < $got)" \
		test "$raw" -lt "$got"
	saquery_count "$n" PIR >/dev/null
	tap_is "$l: saquery PIR: every LID" \
		"$(grep -o 'EndPortLid\.*[0-9]*' "$tmp/$n.PIR.out" | sort -u | wc -l)" "$lids"
	tap_is "$l: saquery LR: each link both ways" "$(saquery_count "$n" LR)" "$((2 * links))"
	tap_is "$l: saquery SWIR: every switch" "$(saquery_count "$n" SWIR)" "$sw"
	tap_is "$l: saquery PR: every pair of LIDs" "$(saquery_count "$n" PR)" "$((lids * lids))"
}

osmtest_checks() { # NAME LABEL
	local n=$1 l=$2 rc t0 nr
	rc=0
	SIM_RMPP=1 sim_run "$n" --timeout 120 --out "$tmp/$n.osmtest-c.out" \
		osmtest -f c -i "$tmp/$n.dat" -l "$tmp/$n.osmtest-c.log" || rc=$?
	tap_is "$l: osmtest -f c creates its inventory" "$rc" 0
	nr=$(grep -c 'Record dump:' "$tmp/$n.NR.out")
	tap_is "$l: the inventory lists every node record" \
		"$(grep -c '^DEFINE_NODE' "$tmp/$n.dat" 2>/dev/null)" "$nr"
	rc=0 t0=$SECONDS
	SIM_RMPP=1 sim_run "$n" --timeout 240 --out "$tmp/$n.osmtest-a.out" \
		osmtest -f a -i "$tmp/$n.dat" -l "$tmp/$n.osmtest-a.log" || rc=$?
	tap_is "$l: osmtest -f a (all validations) passes" "$rc" 0 ||
		tap_diag "$(grep -v 'EXPECTED\|Expecting' "$tmp/$n.osmtest-a.log" | grep ERR | tail -n 5)"
	tap_check "$l: osmtest says PASS" grep -q 'TEST "All Validations" PASS' \
		"$tmp/$n.osmtest-a.out"
	tap_diag "$l: osmtest -f a took $((SECONDS - t0)) s"
}

i=0
for name in 2sw2path ft2-k8; do
	i=$((i + 1))
	if ! sim_start "f$i" "$srcdir/tests/topologies/$name.topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	tap_check "$name: OpenSM under the shim reaches SUBNET UP" osm_start "f$i"
	sa_checks "f$i" "$name"
	osmtest_checks "f$i" "$name"
	tap_check "$name: OpenSM under the shim stops cleanly on TERM" osm_stop "f$i"
	tap_check "$name: the shim printed nothing (no RMPP_SHIM_DEBUG)" \
		bash -c '! grep -q "rmpp_shim\[" "$@"' _ "$tmp/f$i".*.err "$tmp/f$i".*.out
	sim_stop "f$i"
done

# Losses: OpenSM loses every 5th segment it sends; saquery grants 3 a time.
if sim_start loss "$srcdir/tests/topologies/2sw2path.topo"; then
	tap_check "loss: OpenSM under the shim reaches SUBNET UP" \
		osm_start loss RMPP_SHIM_DROP=5 RMPP_SHIM_DEBUG=1
	got=$(RMPP_SHIM_WINDOW=3 saquery_count loss PR)
	tap_is "loss: saquery PR still gets every pair" "$got" 49
	tap_check "loss: OpenSM resent after a silence" grep -q 'resending' "$tmp/loss.osm.out"
	# saquery has every record once the last segment is in; OpenSM's side logs the
	# final ACK a moment later: wait for it (bounded) rather than race it.
	log_wait "$tmp/loss.osm.out" 'all 16 segments acknowledged' 5
	tap_check "loss: and every segment was acknowledged in the end" \
		grep -q 'all 16 segments acknowledged' "$tmp/loss.osm.out"
	tap_diag "loss: $(grep -c 'losing segment' "$tmp/loss.osm.out") segments lost, $(grep -c \
		'resending' "$tmp/loss.osm.out") resends"
	tap_check "loss: OpenSM stops cleanly on TERM" osm_stop loss
	sim_stop loss
else
	tap_check "loss: simulator starts" false
fi

tap_done
