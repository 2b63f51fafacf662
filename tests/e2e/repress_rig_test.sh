#!/bin/bash
# TrapRepress on the simulator (tests/rig/README, sim.sh's SIM_REPRESS=1),
# proven on OpenSM alone. OpenSM 5 is master at h1; OpenSM 1 stands by at
# h2, then its console raises it to 10 (OpenSM's `priority` command): it
# sends the master trap 144 (SM priority changed) and waits for the
# TrapRepress; the master represses it, sweeps, finds the higher standby
# and hands over. ibsim drops every TrapRepress, so without the relay the
# new master's trap stays outstanding and its first sweep never ends (no
# SUBNET UP, the ports' SM LID still names the old master, which stands by
# now: the fabric has no master; bounded wait); with the
# relay the new master comes up, sminfo names it (priority 10, MASTER),
# saquery SMIR lists it as MASTER, and the relay's log shows the master's
# TrapRepress delivered with the trap's TID.
# Fabric: tests/topologies/single-switch.topo (3 nodes).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'

need_tools ibsim opensm sminfo saquery
need_rig librepress.so librmpp_tail.so libagent_guard.so librmpp_shim.so
topo=$srcdir/tests/topologies/single-switch.topo
STUCK_S=12 # how long the new master is given to end its sweep without the relay

# osm SIM NAME HOST PRIORITY [ARGS...]: OpenSM as a daemon, in the background,
# its stdin the caller's (explicitly: a background job's would be /dev/null).
osm() {
	local sim=$1 name=$2 host=$3 prio=$4
	shift 4
	sim_run "$sim" --timeout 120 --host "$host" --out "$tmp/$name.out" opensm -d2 -D 0x0b \
		-F "$tmp/osm.conf" -f "$tmp/$name.log" --dump_files_dir "$tmp" -p "$prio" "$@" <&0 &
}
waitlog() { log_wait "$tmp/$1.log" "$2" "$3"; } # NAME PATTERN SECS
# What the new master's log says after it became master.
since_master() { sed -n '/Entering MASTER state/,$p' "$tmp/$1.log"; }

# run TAG: the scenario on a fresh simulator (SIM_REPRESS as the caller set it).
run() {
	local tag=$1 con i out
	if ! sim_start "$tag" "$topo"; then
		tap_check "$tag: simulator starts" false
		return 1
	fi
	cp "$(sim_dir "$tag")/opensm.conf" "$tmp/osm.conf"
	printf 'sminfo_polling_timeout 1000\npolling_retry_number 2\nsweep_interval 1\n' \
		>>"$tmp/osm.conf"
	# The master gets the kernel's response timeouts (the RMPP shim): a
	# starting OpenSM ignores SMInfo Gets until it has found its own port,
	# and without a timeout the master's sweep would wait for that answer
	# forever. The new master runs without, as in the HA tests.
	SIM_RMPP=1 osm "$tag" "$tag.A" h1 5 </dev/null
	waitlog "$tag.A" 'SUBNET UP' 60
	tap_check "$tag: OpenSM 5 at h1: SUBNET UP" grep -q 'SUBNET UP' "$tmp/$tag.A.log"
	mkfifo "$tmp/$tag.con"
	exec {con}<>"$tmp/$tag.con"
	osm "$tag" "$tag.B" h2 1 --console local <&"$con"
	waitlog "$tag.B" 'Entering STANDBY' 30
	tap_check "$tag: OpenSM 1 at h2 stands by" grep -q 'Entering STANDBY' "$tmp/$tag.B.log"
	printf 'priority 10\n' >&"$con"
	waitlog "$tag.B" 'Entering MASTER' 30
	tap_check "$tag: raised to 10, it sends trap 144 and gets the HANDOVER" \
		grep -q 'Entering MASTER' "$tmp/$tag.B.log" ||
		tap_diag "$(grep -E 'Entering|Trap 144' "$tmp/$tag.B.log" | tail -n 4)"
	grep -q 'Sending Trap 144' "$tmp/$tag.B.log" ||
		tap_diag "$tag: no 'Sending Trap 144' in OpenSM's log"
	for ((i = 0; i < STUCK_S * 10; i++)); do
		since_master "$tag.B" | grep -q 'SUBNET UP' && break
		sleep 0.1
	done
	out=$(sim_run "$tag" sminfo 2>&1)
	printf '%s\n' "$out" >"$tmp/$tag.sminfo"
	sim_run "$tag" saquery SMIR >"$tmp/$tag.smir" 2>&1
	exec {con}>&-
}

# ---- without the relay: the new master's sweep never ends ------------------
SIM_REPRESS=0 run plain
tap_check "plain: no SUBNET UP from the new master in ${STUCK_S}s (its trap 144 is outstanding)" \
	test "$(since_master plain.B | grep -c 'SUBNET UP')" -eq 0
tap_check "plain: sminfo: the ports' SM LID is still the old master's, now STANDBY: no master" \
	grep -q 'priority 5 state 2' "$tmp/plain.sminfo" || tap_diag "$(cat "$tmp/plain.sminfo")"
tap_check "plain: ibsim dropped the master's TrapRepress" \
	grep -q 'got trap repress - dropping' "$(sim_log plain)"
sim_stop plain

# ---- with the relay: the handover completes ------------------------------------
SIM_REPRESS=1 run relay
tap_check "relay: the new master reaches SUBNET UP" \
	test "$(since_master relay.B | grep -c 'SUBNET UP')" -gt 0 ||
	tap_diag "$(tail -n 5 "$tmp/relay.B.log")"
tap_check "relay: sminfo names it: priority 10, MASTER" \
	grep -q 'priority 10 state 3' "$tmp/relay.sminfo" || tap_diag "$(cat "$tmp/relay.sminfo")"
# "Priority..............10" then "SMState...............3", per record.
smir=$(sed -nE 's/^[[:space:]]*(Priority|SMState)\.+([0-9]+)$/\2/p' "$tmp/relay.smir" | paste -sd' ')
tap_check "relay: saquery SMIR: priority 10 MASTER (3), priority 5 STANDBY (2)" \
	grep -qE '^(.* )?10 3( .*)?$' <<<"$smir" ||
	tap_diag "$(head -n 20 "$tmp/relay.smir")"
tap_check "relay: saquery SMIR: the priority-5 SM is STANDBY (2)" \
	grep -qE '^(.* )?5 2( .*)?$' <<<"$smir"
log=$(sim_repress_log relay)
tid=$(sed -nE 's/.*Sending Trap 144, TID 0x([0-9a-f]+) .*/\1/p' "$tmp/relay.B.log" | head -n 1)
tid=${tid:-none}
tap_check "relay: the master's TrapRepress for trap 144 TID 0x$tid was delivered" \
	grep -qE "TrapRepress TID 0x0*$tid from pid [0-9]+ \(LID [0-9]+\): delivered" "$log" ||
	tap_diag "$(cat "$log" 2>/dev/null)"
tap_check "relay: ibsim's own trap 144 (IsSM) is not repressed to the SM" \
	grep -q 'TID 0x0000000000000000 .*not delivered, this process sent no trap' "$log"
tap_check "relay: OpenSM retired its trap on the TrapRepress" \
	grep -q "Retiring MAD with TID 0x$tid" "$tmp/relay.B.log"
tap_done
