#!/bin/bash
# A standby's mirror of the master's SA state (IBA 14.4 leaves how a standby
# learns it to the SM; loomd reads it with SA GetTables as a trusted client):
# two loomd on 2sw2path, priorities 10 (master) and 5 (standby). Hosts join
# two groups, register a service and subscribe through the master; the
# standby mirrors them; SIGKILL of the master: the new master installs the
# mirror before its first sweep, so `saquery -g` (MGID, MLID), `saquery SR`
# and `saquery IIR` asked of it list what the old master had, and dump_mfts
# reads back the same MFTs on every switch (0 MFT blocks changed). B starts
# with a stale guid2lid (every LID rotated): taking over a running subnet,
# it keeps the LIDs the ports hold, and its map learns them.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/ha.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/2sw2path.topo
HA=Hca1 HB=Hca4 HC=Hca2 # A, B: the SMs; C: a host that asks
POLL_MS=300
G1=ff12:601b:ffff::4e01
G2=ff12:601b:ffff::4e02

need_tools ibsim saquery dump_mfts
need_rig librmpp_shim.so librmpp_tail.so mcjoin saservice sasub stucksm
# Both SMs and every client under the RMPP shim: GetTable answers span segments.
export SIM_RMPP=1

at() { sim_run F --host "$1" --timeout 60 "${@:2}"; }

# What the hosts see of the SA, sorted: groups (MGID MLID), services, subscriptions.
sa_state() { # LABEL
	at "$HC" saquery -g 2>&1 | awk '/MGID\.+/ { g = $0; sub(/.*\.+/, "", g) }
		/Mlid\.+/ { v = $0; sub(/.*\.+/, "", v); print g, tolower(v) }' |
		sort -u >"$tmp/$1.groups"
	at "$HC" saquery SR 2>&1 | awk '/ServiceID\.+/ { id = $0; sub(/.*\.+/, "", id) }
		/ServiceName\.+/ { n = $0; sub(/.*\.\.+/, "", n); print id, n }' |
		sort >"$tmp/$1.services"
	at "$HC" saquery --smkey 1 IIR 2>&1 | awk '/SubscriberGID\.+/ { g = $0; sub(/.*\.+/, "", g) }
		/trap_num\.+/ { t = $0; sub(/.*\.+/, "", t); print g, t }' | sort >"$tmp/$1.subs"
	sim_run F dump_mfts 2>/dev/null | grep -v '^#' >"$tmp/$1.mfts"
}

ha_sim "$topo"
ha_conf A 10 "$POLL_MS"
ha_conf B 5 "$POLL_MS"
ha_loomd A "$HA"
tap_check "A (priority 10): SUBNET UP" log_wait -E "$tmp/A.log" 'SUBNET UP' 60 ||
	tap_diag "$(tail -n 5 "$tmp/A.log")"
# Port GUID and LID of every port, as the SA's NodeRecords say.
nr_lids() { # FILE
	local g l
	at "$HC" saquery 2>/dev/null | awk '/^[[:space:]]*lid\.+/ { l = $0; sub(/.*\.+/, "", l) }
		/port_guid\.+/ { g = $0; sub(/.*\.+/, "", g); print g, l }' |
		while read -r g l; do printf '%s %d\n' "$g" "$l"; done | sort -u >"$1"
}
nr_lids "$tmp/nr.before"
tap_check "NodeRecords list the 7 ports with LIDs" test "$(wc -l <"$tmp/nr.before")" -eq 7 ||
	tap_diag "$(cat "$tmp/nr.before")"
# B's stale map: the same GUIDs, each with the next one's LID.
mkdir -p "$tmp/B.state"
awk '{ g[NR] = $1; l[NR] = $2 } END { for (i = 1; i <= NR; i++)
	printf "%s 0x%04x 0x%04x\n\n", g[i], l[i % NR + 1], l[i % NR + 1] }' \
	"$tmp/nr.before" >"$tmp/B.state/guid2lid"
ha_loomd B "$HB"
tap_check "B (priority 5): STANDBY" log_wait -E "$tmp/B.log" '-> STANDBY' 30 ||
	tap_diag "$(tail -n 5 "$tmp/B.log")"

at "$HC" "$rig/mcjoin" --timeout 3000 --create "$G1" >/dev/null
tap_is "Hca2 creates $G1 through A" "$?" 0
at Hca3 "$rig/mcjoin" --timeout 3000 "$G1" >/dev/null
tap_is "Hca3 joins $G1" "$?" 0
at Hca3 "$rig/mcjoin" --timeout 3000 --create "$G2" >/dev/null
tap_is "Hca3 creates $G2" "$?" 0
at "$HC" "$rig/saservice" --timeout 3000 --id 0x10e50 --name loom.ha.a --lease 600 >/dev/null
tap_is "Hca2 registers loom.ha.a" "$?" 0
at Hca3 "$rig/sasub" --timeout 3000 --no-wait --trap 64 >/dev/null
tap_is "Hca3 subscribes to trap 64" "$?" 0
# Hca2 subscribes to trap 64 through A too, and stays to receive a Report
# (--issm: on ibsim a Report goes only to the port's issm holder).
sim_run F --host "$HC" --timeout 150 "$rig/sasub" --issm --timeout 3000 --trap 64 \
	--wait 120000 >"$tmp/r64.out" 2>"$tmp/r64.err" &
r64=$!
tap_check "Hca2 subscribes to trap 64 through A and waits for Reports" \
	log_wait "$tmp/r64.out" '^subscribed' || tap_diag "$(cat "$tmp/r64.err")"
# The multicast pass programs the MFTs after the joins: a bounded poll (not a
# sleep) until dump_mfts forwards G1's MLID (two members: some switch must)
# and reads the same twice in a row, the SA's view taken with it.
mfts_settled() {
	local i mlid prev=''
	for ((i = 0; i < 60; i++)); do
		sa_state before
		mlid=$(awk -v g="$G1" '$1 == g { print $2 }' "$tmp/before.groups")
		if [ -n "$mlid" ] && awk -v m="$mlid" 'tolower($1) == m { f = 1 } END { exit !f }' \
			"$tmp/before.mfts" && [ "$(cat "$tmp/before.mfts")" = "$prev" ]; then
			return 0
		fi
		prev=$(cat "$tmp/before.mfts")
		sleep 0.5
	done
	return 1
}
tap_check "before: dump_mfts forwards $G1's MLID, settled" mfts_settled ||
	tap_diag "$(cat "$tmp/before.groups" "$tmp/before.mfts")"
tap_check "before: saquery -g lists $G1 and $G2" \
	bash -c "grep -q '^$G1 ' '$tmp/before.groups' && grep -q '^$G2 ' '$tmp/before.groups'" ||
	tap_diag "$(cat "$tmp/before.groups")"
tap_check "before: saquery SR lists loom.ha.a" grep -q 'loom.ha.a' "$tmp/before.services"
tap_check "before: saquery IIR lists a subscription to trap 64" grep -qw 64 "$tmp/before.subs"
tap_check "B (same configuration): as master it would change nothing" \
	log_wait -E "$tmp/B.log" 'as master this SM would route with [a-z]+ and change nothing \(0 of [1-9]' 20 ||
	tap_diag "$(grep 'standby:' "$tmp/B.log")"
# C: a standby whose LMC is not the master's says so when it starts.
ha_conf C 3 "$POLL_MS"
printf '  routing:\n    lmc: 1\n' >>"$tmp/C.yaml"
ha_loomd C Hca3
tap_check "C (LMC 1 under a master with LMC 0): says its configuration differs" \
	log_wait -E "$tmp/C.log" "configuration differs from what the master programmed: .* send [1-9][0-9]* of" 30 ||
	tap_diag "$(grep -E 'standby|STANDBY' "$tmp/C.log")"
tap_diag "$(grep -o 'as master it would.*' "$tmp/C.log")"
ha_stop TERM C
tap_check "B mirrors them (groups, 1 service, 2 subscriptions)" \
	log_wait -E "$tmp/B.log" "mirrored the master's SA state: [0-9]+ groups, 1 services, 2 subscriptions" 20 ||
	tap_diag "$(grep -i mirror "$tmp/B.log" | tail -n 3)"

ha_stop KILL A
tap_check "A killed: B takes over and installs the mirror" \
	log_wait -E "$tmp/B.log" 'installed its SA state as mirrored' 30 || tap_diag "$(tail -n 5 "$tmp/B.log")"
tap_diag "$(grep -o 'installed its SA state.*' "$tmp/B.log")"
tap_check "B: SUBNET UP as master" log_wait -E "$tmp/B.log" 'SUBNET UP' 30
first=$(grep 'sweep [0-9]* (heavy)' "$tmp/B.log" | head -n 1)
tap_diag "B's first sweep as master: $first"
tap_check "... it sends 0 LFT and 0 MFT blocks" grep -qE '\(0 LFT blocks, .*0 MFT blocks\)' <<<"$first"
sleep 2
tap_check "B's install refused no group and moved none" \
	grep -q ' 0 moved, 0 refused' "$tmp/B.log"
sa_state after
nr_lids "$tmp/nr.after"
tap_check "after the takeover: every port keeps its LID (B's stale map did not move one)" \
	diff -u "$tmp/nr.before" "$tmp/nr.after"
awk '/^0x/ { print $1, $2 }' "$tmp/B.state/guid2lid" |
	while read -r g l; do printf '%s %d\n' "$g" "$l"; done | sort >"$tmp/B.map"
tap_check "... and B's guid2lid learned them" diff -u "$tmp/nr.before" "$tmp/B.map"
for what in "groups (MGID, MLID)" "services (ServiceID, name)" "subs (subscriber, trap)"; do
	tap_check "after the takeover: the SA lists the same $what" \
		diff -u "$tmp/before.${what%% *}" "$tmp/after.${what%% *}"
done
tap_check "after the takeover: dump_mfts reads the same MFTs on every switch" \
	diff -u "$tmp/before.mfts" "$tmp/after.mfts"
tap_check "... and they forward some MLID (the test compares something)" \
	grep -qiE '^0xc0' "$tmp/after.mfts"

# The master defends the subnet: a port pointed at another MasterSMLID is set back.
smlid() { at "$HC" smpquery -D portinfo 0 1 2>/dev/null | sed -n 's/^SMLid:\.*//p'; }
before=$(smlid)
tap_check "Hca2's MasterSMLID is B's LID (smpquery: $before)" test -n "$before"
at "$HC" ibportstate -D 0 1 smlid 999 >/dev/null 2>&1
tap_is "Hca2's MasterSMLID pointed at 999 (ibportstate)" "$(smlid)" 999
tap_check "B's light sweep finds it" log_wait -E "$tmp/B.log" 'point at MasterSMLID 999, not this SM' 20 ||
	tap_diag "$(tail -n 3 "$tmp/B.log")"
for _ in $(seq 50); do [ "$(smlid)" = "$before" ] && break; sleep 0.2; done
tap_is "... and sets it back to B's LID ($before)" "$(smlid)" "$before"
# A subscription made through the old master: a Report from the new one,
# for an event after the takeover (Hca3's link down, then up: trap 64).
g3=$(at Hca3 ibstat -p 2>/dev/null | head -n 1)
n=$(grep -c 'event handled' "$tmp/B.log")
sim_console F 'Unlink "Switch2"[1]' >/dev/null
log_wait -n $((n + 1)) "$tmp/B.log" 'event handled' 20
sim_console F 'ReLink "Switch2"[1]' >/dev/null
wait "$r64"
tap_is "Hca2 (subscribed through A) receives a Report from B after the takeover" "$?" 0
tap_check "... of trap 64, naming Hca3's port ($g3), back in service" \
	grep -qiE "^report trap 64 .* guid 0x0*${g3#0x} " "$tmp/r64.out"
tap_diag "$(cat "$tmp/r64.out" "$tmp/r64.err")"
ha_stop TERM B

# A master whose agent answers SMInfo with an ActCount that stands still and
# that has no SA (tests/rig/stucksm, priority 15): D stands by, finds it
# stuck, takes over without a mirror, and asks every CA port to reregister.
SIM_SET_ISSM=1 sim_run F --timeout 90 --host "$HA" --out "$tmp/stuck.out" "$rig/stucksm" \
	-p 15 -t 60 -g "$(at "$HA" ibstat -p 2>/dev/null | head -n 1)" &
log_wait "$tmp/stuck.out" '^ready' 10
ha_conf D 5 "$POLL_MS"
ha_loomd D "$HB"
tap_check "D (priority 5) stands by under the stuck SM (priority 15)" \
	log_wait -E "$tmp/D.log" 'DISCOVERING -> STANDBY: master SM' 30 || tap_diag "$(tail -n 5 "$tmp/D.log")"
tap_check "D: its ActCount stands still: taken as stuck, D takes over" \
	log_wait -E "$tmp/D.log" 'taken as stuck' 30 || tap_diag "$(grep 'SM' "$tmp/D.log" | tail -n 5)"
tap_check "... with no mirror (no SA answered): every CA port asked to reregister" \
	log_wait -E "$tmp/D.log" 'no mirror of its SA state .* reregister \(ClientReregister\)' 30
tap_check "D: SUBNET UP" log_wait -E "$tmp/D.log" 'SUBNET UP' 30 || tap_diag "$(tail -n 5 "$tmp/D.log")"
first=$(grep 'sweep [0-9]* (heavy)' "$tmp/D.log" | head -n 1)
tap_diag "D's first sweep as master: $first"
tap_check "... sending 0 LFT blocks" grep -q '(0 LFT blocks' <<<"$first"
ha_stop TERM D
tap_done
