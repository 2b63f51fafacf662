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
	sim_run d --timeout 120 --out "$tmp/daemon.log" "$LOOMD" --state-dir "$tmp/d.state" \
		--sweep-interval 1 &
	bg=$!
	for _ in $(seq 100); do
		grep -q 'SUBNET UP' "$tmp/daemon.log" 2>/dev/null && break
		sleep 0.1
	done
	tap_check "daemon: reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/daemon.log"
	sim_run d sminfo >"$tmp/sminfo1" 2>&1
	tap_check "daemon: sminfo reads loomd as master" grep -q 'state 3 SMINFO_MASTER' "$tmp/sminfo1" ||
		tap_diag "$(cat "$tmp/sminfo1")"
	guid=$(printf '0x%x' "$(sim_run d ibstat -p 2>/dev/null | head -n 1)")
	tap_check "daemon: SMInfo's GUID is the SM's port GUID ($guid)" \
		grep -qi "sm guid $guid," "$tmp/sminfo1"
	sleep 2.5
	sim_run d sminfo >"$tmp/sminfo2" 2>&1
	a1=$(sed -nE 's/.*activity count ([0-9]+).*/\1/p' "$tmp/sminfo1")
	a2=$(sed -nE 's/.*activity count ([0-9]+).*/\1/p' "$tmp/sminfo2")
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

tap_done
