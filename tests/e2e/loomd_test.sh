#!/bin/bash
# loomd brings fabrics up, judged by infiniband-diags, not by loomd:
#   loomd --once exits 0; ibnetdiscover finds every node of the file, each with
#   a LID; iblinkinfo shows every link of the file, each LinkUp and Active;
#   ibtracert follows the programmed LFTs between host pairs (first, middle,
#   last host); loom verify walks the dump_lfts read-back from every host to
#   every host LID (all reach, no loop); a restart on the programmed fabric changes nothing (0 Sets)
#   and every LID stays. On one fabric loomd runs as a daemon: sminfo reads it
#   as master with a growing ActCount, and SIGTERM stops it cleanly.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

examples=/usr/share/doc/ibsim-utils/net-examples
topos=$srcdir/tests/topologies
fabrics=(
	"$examples/net"                     # the SM on a switch (management port 0)
	"$examples/net.2sw2path4hca2port"   # two-port CAs
	"$topos/ft2-k8.topo"
	"$topos/ft3-k4.topo"
	"$topos/ft2-k8-degraded.topo"
	"$topos/torus2d-4x4.topo"
	"$topos/loop.topo"
	"$topos/parallel.topo"
	"$topos/dragonfly-small.topo"
	"$topos/random-16-d4.topo"
)

. "$srcdir/tests/lib/loomd.sh"

i=0
for topo in "${fabrics[@]}"; do
	i=$((i + 1))
	name=${topo##*/}
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	bringup_check "$name" "f$i" "$topo"
	sim_stop "f$i"
done

# Daemon mode: SUBNET UP, then sminfo (LID-routed, through the LFTs) reads
# loomd's SMInfo: master, its port GUID, an ActCount that grows with the
# light sweeps. SIGTERM ends it with status 0.
topo=$topos/ft2-k8.topo
if sim_start d "$topo"; then
	printf 'sm:\n  priority: 7\n  sweep-interval: 1s\n' >"$tmp/loom.yaml"
	sim_run d --timeout 120 --out "$tmp/daemon.log" "$LOOMD" -c "$tmp/loom.yaml" \
		--state-dir "$tmp/d.state" &
	bg=$!
	log_wait "$tmp/daemon.log" 'SUBNET UP' 60
	tap_check "daemon: reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/daemon.log"
	sim_run d sminfo >"$tmp/sminfo1" 2>&1
	tap_check "daemon: sminfo reads loomd as master" grep -q 'state 3 SMINFO_MASTER' "$tmp/sminfo1" ||
		tap_diag "$(cat "$tmp/sminfo1")"
	tap_check "daemon: with the priority loom.yaml gives (7)" grep -q 'priority 7 ' "$tmp/sminfo1"
	guid=$(printf '0x%x' "$(sim_run d ibstat -p 2>/dev/null | head -n 1)")
	tap_check "daemon: SMInfo's GUID is the SM's port GUID ($guid)" \
		grep -qi "sm guid $guid," "$tmp/sminfo1"
	a1=$(sed -nE 's/.*activity count ([0-9]+).*/\1/p' "$tmp/sminfo1")
	sleep 2.5
	# ... or longer on a loaded machine, whose timers come late (30 s at most).
	for _ in $(seq 60); do
		sim_run d sminfo >"$tmp/sminfo2" 2>&1
		a2=$(sed -nE 's/.*activity count ([0-9]+).*/\1/p' "$tmp/sminfo2")
		[ "${a2:-0}" -gt "${a1:-0}" ] && break
		sleep 0.5
	done
	tap_check "daemon: ActCount grows with the light sweeps (${a1:-?} -> ${a2:-?})" \
		test "${a2:-0}" -gt "${a1:-0}"
	sim_signal d TERM
	rc=0
	wait "$bg" || rc=$?
	tap_is "daemon: SIGTERM ends loomd with status 0" "$rc" 0 || tap_diag "$(tail "$tmp/daemon.log")"
	sim_stop d
else
	tap_check "daemon: simulator starts" false
fi

# A duplicate GUID (leaf004 carries spine001's; ibsim -I loads it): reported
# with both directed routes, the namesake left out, the rest comes up.
if sim_start dup "$topos/dupguid.topo" -I; then
	rc=0
	sim_run dup "$LOOMD" --once --state-dir "$tmp/dup.state" >"$tmp/dup.log" 2>&1 || rc=$?
	tap_is "dupguid: loomd --once reaches SUBNET UP (exit 0)" "$rc" 0 || tap_diag "$(tail "$tmp/dup.log")"
	tap_check "dupguid: the duplicate GUID is reported with both directed routes" \
		grep -qE 'duplicate GUID 0x0002c90300000001: path [0-9,]+ reaches .* at path [0-9,]+' "$tmp/dup.log"
	tap_diag "$(grep -m 2 'duplicate GUID' "$tmp/dup.log")"
	# ibnetdiscover and iblinkinfo are themselves misled by the duplicate
	# (they merge the two switches), so routes are checked with LID-routed
	# SMPs from the SM's host to each host not behind the namesake: they
	# travel through the programmed LFTs both ways.
	for h in 2 3 4 5 6; do
		guid=$(printf '0x0002c904%08x' $((h * 256 + 1)))
		lid=$(awk -v g="$guid" '$1 == g { print $2 }' "$tmp/dup.state/guid2lid")
		got=$(sim_run dup smpquery -L nodeinfo "$((lid))" 2>/dev/null | sed -n 's/^PortGuid:\.*//p')
		tap_is "dupguid: smpquery -L nodeinfo (LID-routed) reaches h0000$h at LID $((lid))" \
			"$got" "$guid"
	done
	# Left in Initialize: exactly the two spine ports cabled to the namesake (leaf004).
	sim_links dup | awk -F'\t' '$5 != "-" && $3 != "Active" { print $1 ":" $2 }' |
		sort >"$tmp/dup.init"
	tap_is "dupguid: the ports not Active are the ones facing the namesake" \
		"$(tr '\n' ' ' <"$tmp/dup.init")" "spine001:4 spine002:4 "
	sim_stop dup
else
	tap_check "dupguid: simulator starts" false
fi

# A broken configuration: loomd refuses to start and names every problem.
printf 'sm:\n  priority: 99\n  bogus: 1\n' >"$tmp/bad.yaml"
rc=0
"$LOOMD" -c "$tmp/bad.yaml" --once --state-dir "$tmp/bad.state" >"$tmp/bad.out" 2>&1 || rc=$?
tap_is "bad loom.yaml: loomd exits 1 without touching the fabric" "$rc" 1
tap_check "bad loom.yaml: FILE:LINE:COL of the out-of-range priority" \
	grep -q "bad.yaml:2:13: sm.priority" "$tmp/bad.out"
tap_check "bad loom.yaml: FILE:LINE:COL of the unknown key" grep -q "bad.yaml:3:3: sm: unknown key" "$tmp/bad.out"
rc=0
"$LOOMD" --check-config -c "$srcdir/contrib/loom.yaml" >/dev/null 2>&1 || rc=$?
tap_is "loomd --check-config on the shipped example: exit 0" "$rc" 0

tap_done
