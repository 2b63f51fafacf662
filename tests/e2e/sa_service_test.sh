#!/bin/bash
# Services through the SA (IBA 15.2.5.14 ServiceRecord), judged by OpenSM's
# own test client and by saquery, under the RMPP shim (tests/rig):
#  - osmtest -f s (register, replace, query by ID, name, key and data,
#    GetTable, delete, leases of 4 and 10 s running out) passes against
#    OpenSM, the reference that the flow and the rig are fair, then loomd;
#  - a host registers services with tests/rig/saservice: saquery SR lists
#    them by name and ID; one with a 5 s lease is gone after it, one
#    without a lease stays until a Delete, which answers with the record;
#    a second Delete finds nothing (status 0x0300). On both SMs.
#  - loomd only (where it is stricter than OpenSM, or where OpenSM keeps
#    services of ports it lost): a ServiceGID naming no port is refused
#    (0x0500, invalid GID); a heavy sweep keeps the records, and a host
#    that leaves the fabric (ibsim Unlink) takes its services along.
# Fabric: tests/topologies/2sw2path.topo; the SMs and saquery run at Hca1,
# the services' hosts are Hca2..Hca4.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/2sw2path.topo

need_tools ibsim opensm saquery osmtest
need_rig librmpp_shim.so librmpp_tail.so saservice
SASERVICE=${SASERVICE:-$rig/saservice}
export SIM_RMPP_DIR=$rig
SQ_MS=20000 # saquery's timeout: ample on a loaded machine
LEASE=5     # seconds: the short lease


# sr SIM: saquery SR under the shim into $tmp/sr.out; its status.
sr() {
	SIM_RMPP=1 sim_run "$1" --timeout 60 saquery -t "$SQ_MS" SR >"$tmp/sr.out" 2>"$tmp/sr.err"
}
# listed SIM NAME ID: saquery SR answers, and lists NAME with ServiceID ID (hex, 16 digits).
listed() {
	sr "$1" || return 1
	awk -v n="$2" -v id="$3" '
		/ServiceRecord dump:/ { sid = "" }
		/ServiceID\.+/ { sid = $0; sub(/.*\.+/, "", sid) }
		/ServiceName\.+/ { nm = $0; sub(/.*\.\.+/, "", nm); if (nm == n && sid == id) f = 1 }
		END { exit !f }' "$tmp/sr.out"
}
not_listed() { sr "$1" && ! grep -q "ServiceName\.*$2\$" "$tmp/sr.out"; }
# gone_within SIM NAME SECS: saquery SR stops listing NAME within SECS.
gone_within() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -le $end ]; do
		not_listed "$1" "$2" && return 0
		sleep 1
	done
	return 1
}
# svc SIM HOST TAG ARGS...: saservice at HOST; output in $tmp/TAG.out, its status.
svc() {
	local s=$1 h=$2 tag=$3
	shift 3
	sim_run "$s" --host "$h" --timeout 30 "$SASERVICE" --timeout 3000 "$@" >"$tmp/$tag.out" 2>&1
}

# osmtest -f s: the service flow needs no inventory (osmtest_run reads none for it).
osmtest_s() { # SIM LABEL
	local rc=0 t0=$SECONDS
	SIM_RMPP=1 sim_run "$1" --timeout 180 --out "$tmp/$1.osmtest-s.out" \
		osmtest -f s -l "$tmp/$1.osmtest-s.log" || rc=$?
	tap_is "$2: osmtest -f s (service registration, deregistration, leases) passes" "$rc" 0 ||
		tap_diag "$(grep -v 'EXPECTED' "$tmp/$1.osmtest-s.log" | grep 'ERR' | tail -n 8)"
	tap_check "$2: osmtest says PASS" grep -q 'TEST "Services Registration" PASS' \
		"$tmp/$1.osmtest-s.out"
	tap_diag "$2: osmtest -f s took $((SECONDS - t0)) s, $(grep -c 'IS EXPECTED ERROR' \
		"$tmp/$1.osmtest-s.log") expected refusals"
}

# The client's flow, the same on both SMs.
client_checks() { # SIM LABEL
	local s=$1 l=$2
	svc "$s" Hca2 lease --id 0x10e2e --name loom.e2e.lease --lease "$LEASE" --key 7
	tap_is "$l: Hca2 registers loom.e2e.lease (lease $LEASE s)" "$?" 0
	tap_check "$l: ... answered with the record" grep -q \
		"^registered id 0x0000000000010e2e name loom.e2e.lease lease $LEASE " "$tmp/lease.out"
	tap_diag "$(cat "$tmp/lease.out")"
	svc "$s" Hca2 keep --id 0x10e2f --name loom.e2e.keep --pkey 0xffff
	tap_is "$l: Hca2 registers loom.e2e.keep (no lease: indefinite)" "$?" 0
	tap_check "$l: saquery SR lists loom.e2e.lease with its ServiceID" \
		listed "$s" loom.e2e.lease 0x0000000000010e2e
	tap_check "$l: saquery SR lists loom.e2e.keep with its ServiceID" \
		listed "$s" loom.e2e.keep 0x0000000000010e2f
	tap_check "$l: ... and hides the ServiceKey from saquery" \
		bash -c "! grep -q 'ServiceKey.*0x07' '$tmp/sr.out'"
	local t0=$SECONDS
	tap_check "$l: loom.e2e.lease is gone after its lease" \
		gone_within "$s" loom.e2e.lease $((LEASE + 10))
	tap_diag "$l: gone $((SECONDS - t0)) s after the listing"
	tap_check "$l: ... loom.e2e.keep is still listed" \
		listed "$s" loom.e2e.keep 0x0000000000010e2f
	svc "$s" Hca2 del --id 0x10e2f --name loom.e2e.keep --pkey 0xffff --delete
	tap_is "$l: Hca2 deletes loom.e2e.keep" "$?" 0
	tap_check "$l: ... answered with the deleted record" grep -q \
		'^deleted id 0x0000000000010e2f name loom.e2e.keep ' "$tmp/del.out"
	tap_check "$l: saquery SR no longer lists it" not_listed "$s" loom.e2e.keep
	svc "$s" Hca2 del2 --id 0x10e2f --name loom.e2e.keep --pkey 0xffff --delete
	tap_is "$l: deleting it again is refused" "$?" 1
	tap_check "$l: ... with status 0x0300 (no records)" grep -q 'status 0x0300' "$tmp/del2.out"
}

# ---- OpenSM, the reference ---------------------------------------------------------
if sim_start o "$topo"; then
	dir=$(sim_dir o)
	SIM_RMPP=1 sim_run o --timeout 300 --out "$tmp/osm.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$tmp/osm.log" --dump_files_dir "$dir" &
	osm=$!
	if tap_check "OpenSM: SUBNET UP" log_wait "$tmp/osm.log" 'SUBNET UP'; then
		osmtest_s o OpenSM
		client_checks o OpenSM
	fi
	sim_signal o TERM
	wait "$osm"
	sim_stop o
else
	tap_check "OpenSM simulator starts" false
fi

# ---- loomd ---------------------------------------------------------------------------
if ! sim_start l "$topo"; then
	tap_check "loomd simulator starts" false
	tap_done
	exit
fi
SIM_RMPP=1 sim_run l --timeout 300 --out "$tmp/loomd.log" "$LOOMD" --sweep-interval 2 \
	--state-dir "$tmp/state" &
bg=$!
if tap_check "loomd: SUBNET UP" log_wait "$tmp/loomd.log" 'SUBNET UP'; then
	osmtest_s l loomd
	client_checks l loomd

	svc l Hca2 bad --id 0x10e30 --name loom.e2e.bad --guid 0x777
	tap_is "loomd: a ServiceGID naming no port is refused" "$?" 1
	tap_check "loomd: ... with status 0x0500 (invalid GID)" grep -q 'status 0x0500' "$tmp/bad.out"

	# A heavy sweep keeps services; a host that leaves takes its own along.
	svc l Hca3 stay --id 0x10e31 --name loom.e2e.stay
	tap_is "loomd: Hca3 registers loom.e2e.stay" "$?" 0
	svc l Hca4 leave --id 0x10e32 --name loom.e2e.leave
	tap_is "loomd: Hca4 registers loom.e2e.leave" "$?" 0
	tap_check "loomd: saquery SR lists loom.e2e.stay" listed l loom.e2e.stay 0x0000000000010e31
	tap_check "loomd: ... and loom.e2e.leave" listed l loom.e2e.leave 0x0000000000010e32
	victim=$(sim_topo_links "$topo" | awk -F'\t' '$3 == "Hca4" { print "\"" $1 "\"[" $2 "]"; exit }')
	tap_check "loomd: Unlink $victim (Hca4's link)" sim_console l "Unlink $victim"
	tap_check "loomd: a heavy or targeted sweep finds 5 nodes" \
		log_wait "$tmp/loomd.log" 'sweep [0-9]* (\(heavy\|targeted\)): 5 nodes'
	tap_check "loomd: saquery SR still lists loom.e2e.stay (Hca3's)" \
		listed l loom.e2e.stay 0x0000000000010e31
	tap_check "loomd: ... and no longer loom.e2e.leave (Hca4 left)" \
		not_listed l loom.e2e.leave
fi
sim_signal l TERM
rc=0
wait "$bg" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
tap_done
