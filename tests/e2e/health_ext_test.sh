#!/bin/bash
# loom health and PortCountersExtended on ibsim (whose PMAs say, in their
# ClassPortInfo, that they have it: CapabilityMask bit 9):
#   - every port's data counters are its 64-bit ones (--json data_bits 64),
#     PortXmitData above 32 bits read as perfquery -x reads it, in --json and
#     --prometheus;
#   - --reset clears PortCountersExtended too (perfquery -x reads it back low);
#   - a 16-bit error counter saturated in PortCounters: "(saturated)"; with
#     --since, saturated then and now is a warning (what it counted is lost).
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
pyjson() { # FILE EXPR: print EXPR of the JSON d in FILE, ports by (desc, port) in p
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
p = {(x['node_desc'], x['port']): x for x in d.get('ports', [])}
print($2)" "$1"
}
xdata() { # LID PORT: PortXmitData as perfquery -x reads it
	sim_run C perfquery -x "$1" "$2" 2>/dev/null | sed -n 's/^PortXmitData:\.*//p'
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
lid=$(sim_run C ibnetdiscover 2>/dev/null |
	awk '/^Switch/ && /"leaf003"/ { sub(/.* lid /, ""); print $1 + 0; exit }')

# 10^10 four-octet units: more than 32 bits hold. PortCounters' own stays at its 32-bit top.
sim_console C 'PerformanceSet "leaf003"[2] PortCountersExtended.PortXmitData=10000000000' \
	'PerformanceSet "leaf003"[2] PortCounters.PortXmitData=4294967295'
health json --only counters --json --prometheus "$tmp/h.prom"
after=$(xdata "$lid" 2)
tap_is "a healthy fabric: exit 0" "$hrc" 0 || tap_diag "$(head -5 "$tmp/json.out")"
tap_is "every port read with 64-bit data counters (PortCountersExtended)" \
	"$(pyjson "$tmp/json.out" "len(p), all(x['data_bits'] == 64 for x in p.values())")" "128 True"
got=$(pyjson "$tmp/json.out" "p[('leaf003', 2)]['data']['PortXmitData']")
tap_check "leaf003 port 2 PortXmitData: 64-bit value ($got), from 10^10 up to what perfquery -x reads after ($after)" \
	test "${got:-0}" -ge 10000000000 -a "${got:-0}" -le "${after:-0}"
tap_check "--prometheus: loom_port_data for it, the same value" \
	grep -qE "^loom_port_data\{counter=\"PortXmitData\",node_guid=\"0x[0-9a-f]{16}\",node_desc=\"leaf003\",port=\"2\"\} $got\$" \
	"$tmp/h.prom"

health reset --only counters --reset
tap_is "--reset: exit 0" "$hrc" 0
after=$(xdata "$lid" 2)
tap_check "--reset: perfquery -x reads PortXmitData back small ($after, was over 10^10)" \
	test "${after:-99999999999}" -lt 100000

# A 16-bit counter at its top.
sim_console C 'PerformanceSet "spine002"[3] PortCounters.SymbolErrorCounter=65535'
health sat0 --only counters --json
health sat --only counters
tap_check "SymbolErrorCounter at 65535: reported saturated" \
	grep -qE '^error +counters +"spine002" 0x[0-9a-f]{16} port 3: SymbolErrorCounter: 65535 \(saturated\), expected at most 10' \
	"$tmp/sat.out" || tap_diag "$(cat "$tmp/sat.out")"
health satsince --only counters --since "$tmp/sat0.out"
tap_is "--since: saturated then and now: a warning (exit 0, one finding)" \
	"$hrc $(grep -cE '^(error|warning) ' "$tmp/satsince.out")" "0 1"
tap_check "... named so: what it counted since is unknown" \
	grep -qE '^warning +counters +"spine002" 0x[0-9a-f]{16} port 3: SymbolErrorCounter: saturated then and now \(65535\), expected at most 10 \(how much it moved since is unknown' \
	"$tmp/satsince.out" || tap_diag "$(cat "$tmp/satsince.out")"
sim_console C 'PerformanceSet "spine002"[3] PortCounters.SymbolErrorCounter=5'
health since2 --only counters --since "$tmp/sat0.out"
tap_is "--since: a saturated counter that was cleared is judged on its new value (5): exit 0" \
	"$hrc" 0 || tap_diag "$(cat "$tmp/since2.out")"

sim_signal C TERM
wait "$sm_pid"
tap_done
