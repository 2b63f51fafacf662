#!/bin/bash
# A leaf's uplinks all down, then up again (ft2-k8: leaf008, hosts h00029-
# h00032), loomd as a daemon handling each with a targeted sweep. What loomd
# sends is counted on the wire: tests/rig/libsmplog_shim.so logs every SMP it
# writes, and each directed route of those is named by smpquery -D nodeinfo
# (from the same port, so the same route reaches the same node).
#  1. The hosts untouched while the leaf was away: each costs one SMP, a
#     PortInfo Get (its port Active, the LID and MasterSMLID as before; no
#     NodeInfo, no NodeDescription), and is as it was: Active at its LID
#     (smpquery portinfo), named by the SA (saquery NR LID, from h00002: its description),
#     reached by every host (dump_lfts read back, loom verify).
#  2. Away again; meanwhile, from h00032 on the leaf's island, h00029's LID
#     is changed (ibportstate ... lid) and h00030 reset (ibsim's Clear, then
#     ReLink: Down, LID 0, back in Init). Back: both are read anew (NodeInfo
#     on the wire), both hold their LIDs again and are Active, their P_Key
#     tables are not taken on trust (P_Key SMPs on the wire: a Get for
#     h00029, a Set unread for h00030, which no SM has configured since its
#     reset) and h00030's holds the default partition (smpquery pkeys);
#     h00031 costs one SMP again.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP:-}" ] || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
need_rig libsmplog_shim.so
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/wire.sh"

# master-lid-checks 0: the light sweeps read no CA's PortInfo, so every SMP
# to a host on the wire is the targeted sweep's.
cat >"$tmp/loom.yaml" <<YAML
sm:
  flap-damping: { flaps: 0 }
  heavy-sweep-interval: 1h
  master-lid-checks: 0
YAML

log=$tmp/daemon.log wire=$tmp/wire
hosts="h00029 h00030 h00031 h00032"
count() { sweep_count "$log" "$1"; }
settle() { sweep_settle "$log"; }

# event TAG CMD: leaf008's uplinks taken down (Unlink) or up (ReLink), then
# sweeps until quiet, the last at SUBNET UP (sweep_event); back up, only
# targeted ones. (Down, the first trap's sweep may still reach the leaf
# through an uplink not yet down and the whole fabric be read: that is not
# what this test judges.)
event() {
	local heavy cmds
	heavy=$(count 'sweep [0-9]+ \(heavy\)')
	mapfile -t cmds < <(leaf_uplinks "$topo" leaf008 "$2")
	sweep_event "$1" d "$log" "${cmds[@]}"
	[ "$2" = Unlink ] || tap_is "$1: targeted sweeps only" \
		"$(count 'sweep [0-9]+ \(heavy\)')" "$heavy"
}

guid_at() { dr_guid d "$1"; }

# The wire since line FROM: "HOST ATTR METHOD" for every SMP to a host behind leaf008.
to_hosts() { # FROM
	local m a to
	while read -r m a to _; do
		local g
		g=$(guid_at "$to")
		[ -n "${NAME_OF[$g]:-}" ] && printf '%s %s %s\n' "${NAME_OF[$g]}" "$a" "$m"
	done < <(wire_dr "$wire" "$1")
}

# What to_hosts found: SMPs a host, attribute and method (and the last sweep's line).
wire_diag() { # FILE
	tap_diag "SMPs to the hosts behind leaf008: $(sort "$1" | uniq -c | paste -sd";")"
	tap_diag "$(grep -E 'sweep [0-9]+ \((targeted|heavy)\)' "$log" | tail -n 1)"
}

# smps_to HOST FILE: "ATTR METHOD;" for each SMP to HOST in to_hosts' FILE.
smps_to() { awk -v h="$1" '$1 == h { print $2, $3 }' "$2" | tr '\n' ';'; }

# The NodeDescription of the SA's NodeRecord for a LID, asked from h00002.
sa_desc() { # LID
	sim_run d --host h00002 saquery NR "$1" 2>/dev/null |
		sed -nE 's/^[[:space:]]*NodeDescription\.+(.*)$/\1/p'
}

# as_before TAG HOST: Active at its LID, MasterSMLID loomd's (smpquery), named by the SA.
as_before() {
	tap_is "$1: $2 Active at LID ${LID_OF[$2]}, MasterSMLID $smlid (smpquery)" \
		"$(pi_field "$2" LinkState) $(pi_field "$2" Lid) $(pi_field "$2" SMLid)" \
		"Active ${LID_OF[$2]} $smlid"
	tap_is "$1: the SA names LID ${LID_OF[$2]} $2 (saquery NR)" \
		"$(sa_desc "${LID_OF[$2]}")" "$2"
}

# pi_field NAME FIELD: a host's PortInfo field as smpquery reads it (by directed route).
declare -A PATH_OF NAME_OF
pi_field() { # NAME FIELD
	sim_run d smpquery -D portinfo "${PATH_OF[$1]}" 1 2>/dev/null |
		sed -nE "s/^$2:\\.*([^.].*)$/\\1/p"
}

if ! sim_start d "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
: >"$wire"
SIM_PRELOAD_FRONT=$rig/libsmplog_shim.so SMPLOG_SHIM_LOG=$wire \
	sim_run d --timeout 600 --out "$log" "$LOOMD" --state-dir "$tmp/state" -c "$tmp/loom.yaml" \
	--sweep-interval 1 &
bg=$!
tap_check "reaches SUBNET UP" log_wait -E "$log" 'heavy.*SUBNET UP' 30
settle
tap_check "the shim logs loomd's SMPs" test -s "$wire"

# Each host's GUID (the topology file's), route and LID before anything happens.
declare -A LID_OF
for h in $hosts; do
	g=$(grep -B1 -E "^Hca[[:space:]].*\"$h\"" "$topo" | sed -nE 's/^caguid=(0x[0-9a-f]+)$/\1/p')
	NAME_OF[$g]=$h
done
# Routes to the hosts: through leaf001, spine001 (port 5 of a leaf) and leaf008.
for p in 1 2 3 4; do
	path=0,1,5,8,$p
	g=$(guid_at "$path")
	h=${NAME_OF[$g]:-}
	[ -n "$h" ] && PATH_OF[$h]=$path
done
tap_is "smpquery -D finds the four hosts behind leaf008" "${#PATH_OF[@]}" 4
for h in $hosts; do
	LID_OF[$h]=$(pi_field "$h" Lid)
done
tap_diag "LIDs: $(for h in $hosts; do printf '%s=%s ' "$h" "${LID_OF[$h]}"; done)"
smlid=$(pi_field h00031 SMLid)

# 1. Away and back, nothing else changing.
event "uplinks down" Unlink
from=$(($(wc -l <"$wire") + 1))
event "uplinks up" ReLink
to_hosts "$from" >"$tmp/back1"
wire_diag "$tmp/back1"
for h in $hosts; do
	tap_is "back untouched: $h cost one SMP, a PortInfo Get" \
		"$(smps_to "$h" "$tmp/back1")" "portinfo get;"
	as_before "back untouched" "$h"
done
lfts_check "back untouched" d

# 2. Away again: h00029's LID changed and h00030 reset on the leaf's island.
event "uplinks down again" Unlink
newlid=$((LID_OF[h00029] + 100))
tap_check "h00029's LID set to $newlid from h00032 (ibportstate -D 0,1,1)" \
	sim_run d --host h00032 --out "$tmp/ibportstate.out" ibportstate -D 0,1,1 1 lid "$newlid"
tap_is "... smpquery from h00032 reads it" \
	"$(sim_run d --host h00032 smpquery -D portinfo 0,1,1 1 2>/dev/null |
		sed -nE 's/^Lid:\.*([0-9]+)$/\1/p')" "$newlid"
sim_console d 'Clear "h00030"[1]' 'ReLink "h00030"[1]'
from=$(($(wc -l <"$wire") + 1))
event "uplinks up again" ReLink
to_hosts "$from" >"$tmp/back2"
wire_diag "$tmp/back2"
for h in h00029 h00030; do
	tap_check "changed while away: $h read anew (NodeInfo Get on the wire)" \
		grep -q "^$h nodeinfo get$" "$tmp/back2"
	as_before "changed while away" "$h"
done
for h in h00029 h00030; do
	tap_check "changed while away: $h's P_Key table not taken on trust (P_Key SMPs sent)" \
		grep -qE "^$h pkey (get|set)$" "$tmp/back2"
done
tap_check "reset while away: h00030 holds the default partition 0xffff (smpquery pkeys)" \
	grep -qE '0xffff' <(sim_run d smpquery -D pkeys "${PATH_OF[h00030]}" 1 2>/dev/null)
tap_is "untouched again: h00031 cost one SMP, a PortInfo Get" \
	"$(smps_to h00031 "$tmp/back2")" "portinfo get;"
lfts_check "changed while away" d

sim_signal d TERM
rc=0
wait "$bg" || rc=$?
tap_is "SIGTERM ends loomd with status 0" "$rc" 0
sim_stop d
tap_done
