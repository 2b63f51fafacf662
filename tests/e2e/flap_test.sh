#!/bin/bash
# Flap damping on a fat tree, loomd as a daemon (sm.flap-damping: 1 change
# allowed in 60s, held 20s; --sweep-interval 1). One spine-to-leaf link is
# flipped 10 times with ibsim's Unlink/ReLink: the first down and up each
# wait for loomd's heavy sweep, so that loomd sees two changes and damps the
# link as it comes up; the other 9 follow quickly. Then, from loomd's log
# and infiniband-diags:
#   - at most 2 heavy sweeps sent LFT blocks while the cable flapped;
#   - one "link damped" line naming both ends, one "link released" line
#     after the hold (a heavy sweep asked for by the hold's end, as nothing
#     else changes);
#   - while damped, the link stays Init (never made Active) and the tables
#     read back pass `loom verify`;
#   - after release the link is Active, the tables pass `loom verify` and
#     equal `loom route` on the whole topology (a fresh bring-up's).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
# The hold is long so that the checks of the damped state (the flips, then
# lfts_check and iblinkinfo) fall inside it with ample margin on a loaded
# machine; the release is waited for, so a longer hold costs only its time.
HOLD=20

cat >"$tmp/loom.yaml" <<YAML
sm:
  flap-damping: { flaps: 1, window: 60s, hold: ${HOLD}s }
YAML

. "$srcdir/tests/lib/loomd.sh"

log=$tmp/daemon.log
count() { local n; n=$(grep -cE "$1" "$log" 2>/dev/null); echo "${n:-0}"; }

# Heavy sweeps that sent LFT blocks, in lines FROM to TO of the log.
reroutes() { # FROM TO
	sed -n "$1,$2p" "$log" | grep -E 'sweep [0-9]+ \((heavy|targeted)\)' | grep -cvE '\(0 LFT blocks'
}

state_of() { # SWITCH PORT: its PortState, as iblinkinfo shows it
	sim_links d | awk -F'\t' -v s="$1" -v p="$2" '$1 == s && $2 == p { print $3 }'
}

if ! sim_start d "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run d --timeout 300 --out "$log" "$LOOMD" --state-dir "$tmp/d.state" -c "$tmp/loom.yaml" \
	--sweep-interval 1 &
bg=$!
tap_check "reaches SUBNET UP" log_wait -E "$log" 'heavy.*SUBNET UP' 30
lfts_check "up" d

# A spine's port 1: a switch-to-switch link of the fat tree, with a way around it.
link=$(sim_topo_links "$topo" | awk -F'\t' '$1 ~ /spine/ { print $1 "\t" $2 "\t" $3 "\t" $4; exit }')
IFS=$'\t' read -r sw port psw pport <<<"$link"
ends="\"$psw\" port $pport <-> switch 0x[0-9a-f]{16} \"$sw\" port $port|\"$sw\" port $port <-> switch 0x[0-9a-f]{16} \"$psw\" port $pport"
start=$(($(wc -l <"$log") + 1))

tap_check "Unlink \"$sw\"[$port]" sim_console d "Unlink \"$sw\"[$port]"
tap_check "loomd names the link down" log_wait -E "$log" "event: link down: switch 0x[0-9a-f]{16} ($ends)\$" 20
tap_check "ReLink \"$sw\"[$port]" sim_console d "ReLink \"$sw\"[$port]"
tap_check "loomd damps the link as it comes back" \
	log_wait -E "$log" "event: link damped: switch 0x[0-9a-f]{16} ($ends): 2 changes in 60s; kept out of the routes until it has been up for ${HOLD}s\$" 20 ||
	tap_diag "$(grep 'event' "$log")"
for i in $(seq 9); do
	sim_console d "Unlink \"$sw\"[$port]" && sleep 0.1 &&
		sim_console d "ReLink \"$sw\"[$port]" && sleep 0.1 || break
done
tap_is "9 more flips, quickly" "$i" 9
flips_end=$(wc -l <"$log")
# Still inside the hold: a heavy sweep during the flips sees a stable link only by chance.
lfts_check "damped" d
tap_is "damped: \"$sw\" port $port is left Init, carrying nothing" "$(state_of "$sw" "$port")" Initialize
# The damped state was read before the release: no released line yet (by log order, not the clock).
tap_is "damped: read inside the hold (released lines since the flips)" \
	"$(sed -n "$((flips_end + 1)),\$p" "$log" | grep -c 'event: link released')" 0
tap_check "the link is released after the hold, with nothing else happening" \
	log_wait -E "$log" "event: link released: switch 0x[0-9a-f]{16} ($ends): up for ${HOLD}s; routed again\$" $((HOLD + 30)) ||
	tap_diag "$(grep 'event' "$log")"
released=$(grep -nE 'event: link released' "$log" | head -n 1 | cut -d: -f1)
flapping=$(reroutes "$start" "${released:-$(wc -l <"$log")}")
# A released line logged before the flips ended: they outlasted the hold (log order, not the clock).
released_early=$(sed -n "1,${flips_end}p" "$log" | grep -c 'event: link released')
if [ "$released_early" -eq 0 ]; then
	tap_check "at most 2 reroutes while the cable flapped (heavy sweeps with LFT blocks: $flapping)" \
		test "$flapping" -le 2
	tap_is "one damped line" "$(count 'event: link damped')" 1
else
	# The flips took longer than the hold: a release between them is right, not a failure.
	tap_check "at most 2 reroutes # SKIP the flips outlasted the ${HOLD}s hold" true
	tap_check "one damped line # SKIP the flips outlasted the ${HOLD}s hold" true
fi
tap_is "one released line" "$(count 'event: link released')" 1
# The released line is logged after its sweep programmed ports and tables: no wait needed.
tap_is "released: \"$sw\" port $port is Active again" "$(state_of "$sw" "$port")" Active
lfts_check "released" d
sim_run d ibnetdiscover >"$tmp/released.ibnd" 2>/dev/null
sim_run d dump_lfts >"$tmp/released.lfts" 2>/dev/null
"$LOOM" verify --normalize "$tmp/released.ibnd" "$tmp/released.lfts" >"$tmp/released.fabric" 2>/dev/null
"$LOOM" route --canon --engine auto --guid2lid "$tmp/d.state/guid2lid" "$topo" \
	>"$tmp/fresh.canon" 2>"$tmp/fresh.err"
tap_is "loom route on the whole topology exits 0" "$?" 0 || tap_diag "$(cat "$tmp/fresh.err")"
tap_check "released: every LFT equals a fresh bring-up's (loom route)" \
	diff -u "$tmp/fresh.canon" "$tmp/released.fabric"
tap_check "released: and they are not empty" test "$(grep -c . "$tmp/fresh.canon")" -gt 100
grep -E 'event|sweep [0-9]+ \(heavy' "$log" | while read -r l; do tap_diag "$l"; done
[ -n "${FLAP_KEEP_LOG:-}" ] && cp "$log" "$FLAP_KEEP_LOG"
sim_signal d TERM
rc=0
wait "$bg" || rc=$?
tap_is "SIGTERM ends loomd with status 0" "$rc" 0
sim_stop d
tap_done
