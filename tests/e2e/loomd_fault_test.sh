#!/bin/bash
# loomd under faults, judged by infiniband-diags:
#   - ibsim drops 5% of the packets arriving at every node: loomd --once still
#     reaches SUBNET UP, and the LFTs read back are the ones a lossless run
#     programs on an identical fabric;
#   - as a daemon: a switch-to-switch link is taken down (ibsim Unlink) and
#     brought back (ReLink); after the sweep that follows each, the tables
#     read back route every host to every host LID again, and every linked
#     port is Active.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
SWEEP=2

lfts_normal() { # SIM OUT
	sim_run "$1" ibnetdiscover 2>/dev/null >"$2.topo"
	sim_run "$1" dump_lfts 2>/dev/null >"$2.lfts"
	"$LOOM" verify --normalize "$2.topo" "$2.lfts" >"$2" 2>&1
}

. "$srcdir/tests/lib/loomd.sh"

# ---- 5% loss everywhere ------------------------------------------------------
if sim_start ref "$topo" && sim_start lossy "$topo"; then
	rc=0
	sim_run ref "$LOOMD" --once --state-dir "$tmp/ref.state" >"$tmp/ref.log" 2>&1 || rc=$?
	tap_is "lossless: loomd --once exits 0" "$rc" 0
	lfts_normal ref "$tmp/ref.norm"
	cmds=()
	while IFS=$'\t' read -r _ node; do
		cmds+=("Error \"$node\" 5")
	done < <(sim_topo_nodes "$topo")
	tap_check "lossy: ibsim drops 5% of the packets arriving at each of ${#cmds[@]} nodes" \
		sim_console lossy "${cmds[@]}"
	rc=0
	sim_run lossy --timeout 120 "$LOOMD" --once --state-dir "$tmp/lossy.state" \
		>"$tmp/lossy.log" 2>&1 || rc=$?
	tap_is "lossy: loomd --once reaches SUBNET UP (exit 0)" "$rc" 0 ||
		tap_diag "$(tail -n 10 "$tmp/lossy.log")"
	tap_diag "$(grep sweep "$tmp/lossy.log")"
	sim_console lossy "${cmds[@]/% 5/ 0}" >/dev/null
	lfts_normal lossy "$tmp/lossy.norm"
	tap_check "lossy: the LFTs read back equal the lossless run's" \
		diff -u "$tmp/ref.norm" "$tmp/lossy.norm"
	tap_check "lossy: and they are not empty" test "$(grep -c . "$tmp/ref.norm")" -gt 100
	sim_stop lossy
	sim_stop ref
else
	tap_check "lossy: simulators start" false
fi

# ---- daemon: a link goes down and comes back ------------------------------
# A sweep that plans and programs: heavy, or targeted (only the part an event changed).
heavy_up() { grep -cE '(heavy|targeted).*SUBNET UP' "$tmp/daemon.log" 2>/dev/null; }

# Wait for a heavy or targeted sweep after the Nth. The trap asks for it at
# once, a light sweep finds the change within two sweep intervals otherwise;
# 30 s at most, counted in polls (log_wait): never a verdict on the clock.
wait_resweep() { # N
	log_wait -E -n $(($1 + 1)) "$tmp/daemon.log" '(heavy|targeted).*SUBNET UP' 30
}

if sim_start d "$topo"; then
	sim_run d --timeout 300 --out "$tmp/daemon.log" "$LOOMD" --state-dir "$tmp/d.state" \
		--sweep-interval "$SWEEP" &
	bg=$!
	wait_resweep 0
	tap_check "daemon: reaches SUBNET UP" test "$(heavy_up)" -gt 0
	lfts_check "daemon" d
	# A spine's port 1: a switch-to-switch link of the fat tree.
	link=$(sim_topo_links "$topo" | awk -F'\t' '$1 ~ /spine/ { print $1 "\t" $2; exit }')
	sw=${link%%$'\t'*} port=${link##*$'\t'}
	n=$(heavy_up)
	tap_check "daemon: Unlink \"$sw\"[$port]" sim_console d "Unlink \"$sw\"[$port]"
	tap_check "daemon: a heavy or targeted sweep reaches SUBNET UP" wait_resweep "$n"
	lfts_check "daemon, link down" d
	got=$(sim_links d | awk -F'\t' -v s="$sw" -v p="$port" '$1 == s && $2 == p { print $3 "/" $5 }')
	tap_is "daemon, link down: iblinkinfo shows $sw port $port down, no peer" "$got" "Down/-"
	# The event by name: both ends, as the topology file has them (the leaf's end from it).
	peer=$(sim_topo_links "$topo" | awk -F'\t' -v s="$sw" -v p="$port" '$1 == s && $2 == p { print $3 "\t" $4 }')
	psw=${peer%%$'\t'*} pport=${peer##*$'\t'}
	ends="\"$psw\" port $pport <-> switch 0x[0-9a-f]* \"$sw\" port $port|\"$sw\" port $port <-> switch 0x[0-9a-f]* \"$psw\" port $pport"
	tap_check "daemon, link down: the log names it, both ends" \
		grep -qE "event: link down: switch 0x[0-9a-f]{16} ($ends)\$" "$tmp/daemon.log" ||
		tap_diag "$(grep 'event' "$tmp/daemon.log")"
	n=$(heavy_up)
	tap_check "daemon: ReLink \"$sw\"[$port]" sim_console d "ReLink \"$sw\"[$port]"
	tap_check "daemon: a heavy or targeted sweep reaches SUBNET UP" wait_resweep "$n"
	lfts_check "daemon, link back" d
	bad=$(sim_links d | awk -F'\t' '$5 != "-" && $3 != "Active"' | wc -l)
	tap_is "daemon, link back: every linked port is Active again (iblinkinfo)" "$bad" 0
	tap_check "daemon, link back: the log names it, both ends" \
		grep -qE "event: link up: switch 0x[0-9a-f]{16} ($ends)\$" "$tmp/daemon.log"
	tap_is "daemon: no other event was named" "$(grep -c 'event: ' "$tmp/daemon.log")" 2
	grep 'sweep' "$tmp/daemon.log" | while read -r l; do tap_diag "$l"; done
	sim_signal d TERM
	rc=0
	wait "$bg" || rc=$?
	tap_is "daemon: SIGTERM ends loomd with status 0" "$rc" 0
	sim_stop d
else
	tap_check "daemon: simulator starts" false
fi

tap_done
