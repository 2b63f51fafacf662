#!/bin/bash
# loom health's defaults from loom.yaml (the health section), on ibsim:
#   - a threshold in loom.yaml wins over the built-in default;
#   - a --threshold-file wins over loom.yaml, a --threshold over both,
#     whatever the order of the options;
#   - health.strict makes a warning exit 1;
#   - a loom.yaml with an error: FILE:LINE:COL and exit 2; --config naming a
#     file that is not there: exit 2.
# Counters set with ibsim's PerformanceSet; the value loom reports is checked
# against perfquery's.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/health.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

health() { health_in C "$@"; } # TAG ARGS...
sym() { # TAG: the SymbolErrorCounter findings of that run
	grep -c 'SymbolErrorCounter' "$tmp/$1.out"
}

if ! sim_start C "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run C --timeout 300 --out "$tmp/sm.log" "$LOOMD" --state-dir "$tmp/state" &
sm_pid=$!
log_wait "$tmp/sm.log" 'SUBNET UP' 60
tap_check "loomd brings the fabric up (SUBNET UP)" grep -q 'SUBNET UP' "$tmp/sm.log"

sim_console C 'PerformanceSet "leaf002"[2] PortCounters.SymbolErrorCounter=15'
lid=$(sim_run C ibnetdiscover 2>/dev/null |
	awk '/^Switch/ && /"leaf002"/ { sub(/.* lid /, ""); print $1 + 0; exit }')
tap_is "perfquery reads leaf002 port 2's SymbolErrorCounter as 15" \
	"$(sim_run C perfquery "$lid" 2 2>/dev/null | sed -n 's/^SymbolErrorCounter:\.*//p')" 15

printf 'health:\n  thresholds:\n    SymbolErrorCounter: 20\n' >"$tmp/y20.yaml"
printf 'SymbolErrorCounter=12\n' >"$tmp/t12"

health def --only counters
tap_is "no loom.yaml: the default threshold (10): reported, exit 1" "$hrc $(sym def)" "1 1"
health y20 --only counters --config "$tmp/y20.yaml"
tap_is "loom.yaml SymbolErrorCounter: 20 wins over the default: not reported, exit 0" \
	"$hrc $(sym y20)" "0 0" || tap_diag "$(cat "$tmp/y20.out" "$tmp/y20.err")"
health file --only counters --config "$tmp/y20.yaml" --threshold-file "$tmp/t12"
tap_is "--threshold-file (12) wins over loom.yaml (20): reported, exit 1" "$hrc $(sym file)" "1 1"
tap_check "... against the file's threshold: 15, expected at most 12" \
	grep -qE '^error +counters +"leaf002" 0x[0-9a-f]{16} port 2: SymbolErrorCounter: 15, expected at most 12' \
	"$tmp/file.out" || tap_diag "$(cat "$tmp/file.out")"
health cmd --only counters --threshold SymbolErrorCounter=16 --config "$tmp/y20.yaml" \
	--threshold-file "$tmp/t12"
tap_is "--threshold (16), given first, wins over the file (12) and loom.yaml: exit 0" \
	"$hrc $(sym cmd)" "0 0" || tap_diag "$(cat "$tmp/cmd.out")"
sim_console C 'PerformanceSet "leaf002"[2] PortCounters.SymbolErrorCounter=0'

# strict: a warning (PortXmitWait over its threshold) alone.
sim_console C 'PerformanceSet "spine001"[1] PortCounters.PortXmitWait=5000'
printf 'health:\n  strict: true\n' >"$tmp/strict.yaml"
health nostrict --only counters
rc0=$hrc
health strict --only counters --config "$tmp/strict.yaml"
tap_is "a PortXmitWait warning alone: exit 0; with health.strict: true in loom.yaml, exit 1" \
	"$rc0 $hrc" "0 1"
sim_console C 'PerformanceSet "spine001"[1] PortCounters.PortXmitWait=0'

# A loom.yaml with an error is not used: FILE:LINE:COL, exit 2, nothing checked.
printf 'health:\n  thresholds:\n    SymbolErrors: 3\n' >"$tmp/bad.yaml"
health bad --only counters --config "$tmp/bad.yaml"
tap_is "a loom.yaml with an unknown counter: exit 2, nothing on stdout" \
	"$hrc $(wc -c <"$tmp/bad.out")" "2 0"
tap_check "... FILE:LINE:COL names it" \
	grep -q "bad.yaml:3:5: health.thresholds: unknown key 'SymbolErrors'" "$tmp/bad.err" ||
	tap_diag "$(cat "$tmp/bad.err")"
health none --only counters --config "$tmp/none.yaml"
tap_is "--config naming no file: exit 2" "$hrc" 2
tap_check "... says which file" grep -q "none.yaml" "$tmp/none.err"

sim_signal C TERM
wait "$sm_pid"
tap_done
