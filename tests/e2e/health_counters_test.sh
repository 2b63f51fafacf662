#!/bin/bash
# loom health's counters group on ibsim, judged against ibqueryerrors:
#   - a fabric brought up by a running loomd: every port's PMA answers, no
#     finding (all groups), exit 0;
#   - counters set through ibsim's console (PerformanceSet), one per kind of
#     threshold: at the threshold not reported, over it reported with node,
#     GUID, port and value, exit 1; a 4-bit counter at 15 is saturated;
#     PortXmitWait is a warning (exit 0, --strict 1);
#   - with all of them set, every port ibqueryerrors flags (the suggested
#     threshold file) loom flags too, and nothing else;
#   - --threshold-file (ibqueryerrors' format) is honoured; a bad one gets
#     FILE:LINE and exit 2;
#   - --since an earlier --json run: a counter high then that did not move is
#     not reported, one that moved is, with its delta; a malformed file gets
#     FILE:LINE and exit 2.
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

pset() { # NODE PORT COUNTER VALUE
	sim_console C "PerformanceSet \"$1\"[$2] PortCounters.$3=$4"
}

if ! sim_start C "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run C --timeout 300 --out "$tmp/sm.log" "$LOOMD" --state-dir "$tmp/state" \
	--sweep-interval 2 &
sm_pid=$!
log_wait "$tmp/sm.log" 'SUBNET UP' 60
tap_check "loomd brings the fabric up (SUBNET UP)" grep -q 'SUBNET UP' "$tmp/sm.log"
health base
tap_is "every PMA answers, no finding: exit 0" "$hrc $(grep -cE '^(error|warning) ' "$tmp/base.out")" "0 0" ||
	tap_diag "$(head -n 5 "$tmp/base.out")"

# NODE PORT COUNTER THRESHOLD OVER WANT: at THRESHOLD nothing; at OVER the finding WANT.
check_counter() {
	local node=$1 port=$2 name=$3 thr=$4 over=$5 want=$6 sev=${7:-error} rc=${8:-1}
	pset "$node" "$port" "$name" "$thr"
	health "$name.at" --only counters
	tap_is "$name=$thr (the threshold) on $node port $port: not reported, exit 0" \
		"$hrc $(grep -c "$name" "$tmp/$name.at.out")" "0 0"
	pset "$node" "$port" "$name" "$over"
	health "$name.over" --only counters
	tap_is "$name=$over on $node port $port: exit $rc" "$hrc" "$rc"
	tap_check "$name=$over: named \"$node\" port $port: $want" \
		grep -qE "^$sev +counters \"$node\" 0x[0-9a-f]{16} port $port: $name: $want" \
		"$tmp/$name.over.out" || tap_diag "$(cat "$tmp/$name.over.out")"
	tap_is "$name=$over: nothing else" "$(grep -cE '^(error|warning) ' "$tmp/$name.over.out")" 1
	pset "$node" "$port" "$name" 0
}

check_counter leaf003 2 SymbolErrorCounter 10 11 "11, expected at most 10"
check_counter spine001 3 PortXmitDiscards 100 101 "101, expected at most 100"
check_counter h00005 1 PortRcvErrors 10 12 "12, expected at most 10"
check_counter spine002 4 LocalLinkIntegrityErrors 10 15 "15 \\(saturated\\), expected at most 10"
check_counter leaf002 6 PortXmitWait 1000 5000 "5000, expected at most 1000" warning 0
# A switch read as one sum first (AllPortSelect): two ports at 6 sum to 12, over 10,
# so its ports are read one by one, and neither is over.
pset spine003 1 SymbolErrorCounter 6
pset spine003 2 SymbolErrorCounter 6
health sum --only counters
tap_is "two ports of spine003 at 6 (a sum of 12): neither reported, exit 0" \
	"$hrc $(grep -c SymbolErrorCounter "$tmp/sum.out")" "0 0" || tap_diag "$(cat "$tmp/sum.out")"
pset spine003 2 SymbolErrorCounter 11
health sum2 --only counters
tap_check "... one at 11: that one reported, port 2" \
	grep -qE '^error +counters +"spine003" 0x[0-9a-f]{16} port 2: SymbolErrorCounter: 11,' "$tmp/sum2.out"
tap_is "... and not the other" "$(grep -c SymbolErrorCounter "$tmp/sum2.out")" 1
pset spine003 1 SymbolErrorCounter 0
pset spine003 2 SymbolErrorCounter 0

pset leaf002 6 PortXmitWait 5000
health wait.strict --only counters --strict
tap_is "PortXmitWait alone: --strict exits 1" "$hrc" 1
health thr --only counters --threshold PortXmitWait=6000
tap_is "--threshold PortXmitWait=6000: not reported" "$hrc $(grep -c PortXmitWait "$tmp/thr.out")" "0 0"

# ---- against ibqueryerrors -------------------------------------------------------
pset leaf003 2 SymbolErrorCounter 11
pset spine001 3 PortXmitDiscards 101
pset h00005 1 PortRcvErrors 12
pset spine002 4 LocalLinkIntegrityErrors 15
pset leaf001 1 LinkDownedCounter 9
sed -n 's/^#\([A-Za-z0-9]*=[0-9]*\)$/\1/p' /etc/infiniband-diags/error_thresholds >"$tmp/thresholds" 2>/dev/null
[ -s "$tmp/thresholds" ] || printf '%s\n' SymbolErrorCounter=10 LinkErrorRecoveryCounter=10 \
	LinkDownedCounter=10 PortRcvErrors=10 PortRcvRemotePhysicalErrors=100 \
	PortRcvSwitchRelayErrors=100 PortXmitDiscards=100 PortXmitConstraintErrors=100 \
	PortRcvConstraintErrors=100 LocalLinkIntegrityErrors=10 ExcessiveBufferOverrunErrors=10 \
	VL15Dropped=100 PortXmitWait=1000 >"$tmp/thresholds"
sim_run C ibqueryerrors --threshold-file "$tmp/thresholds" >"$tmp/iqe" 2>/dev/null
awk '/^Errors for/ { match($0, /"[^"]*"/); d = substr($0, RSTART + 1, RLENGTH - 2) }
     /port [0-9]+:/ { match($0, /port [0-9]+/); print d " " substr($0, RSTART + 5, RLENGTH - 5) }' \
	"$tmp/iqe" | sort >"$tmp/iqe.ports"
health all --only counters
sed -nE 's/^(error|warning) +counters +"([^"]+)" 0x[0-9a-f]{16} port ([0-9]+):.*/\2 \3/p' \
	"$tmp/all.out" | sort -u >"$tmp/loom.ports"
tap_is "ibqueryerrors flags 5 ports" "$(wc -l <"$tmp/iqe.ports")" 5 || tap_diag "$(cat "$tmp/iqe")"
tap_check "every port ibqueryerrors flags, loom flags, and no other" \
	diff -u "$tmp/iqe.ports" "$tmp/loom.ports"
tap_is "the whole run: exit 1" "$hrc" 1

health json --json
tap_is "--json: every port's raw counters: as many ports as --prometheus, leaf003 port 2 at 11" \
	"$(python3 -c 'import json, sys; d = json.load(sys.stdin)
p = [x for x in d["ports"] if x["node_desc"] == "leaf003" and x["port"] == 2][0]
print(len(d["ports"]), all(x["up"] for x in d["ports"]), p["counters"]["SymbolErrorCounter"])' \
		<"$tmp/json.out")" "128 True 11"

# ---- --prometheus: node_exporter's textfile format ----------------------------------
health prom --prometheus "$tmp/h.prom"
tap_is "--prometheus: exit 1, the file written, no temporary file left" \
	"$hrc $(test -s "$tmp/h.prom" && echo yes) $(ls "$tmp" | grep -c 'h.prom.tmp')" "1 yes 0"
tap_is "--prometheus: one loom_port_up series a port, as many as ibqueryerrors checks" \
	"$(grep -c '^loom_port_up{' "$tmp/h.prom")" \
	"$(sed -nE 's/^## *([0-9]+) ports checked.*/\1/p' "$tmp/iqe")"
tap_is "--prometheus: every port up, 13 counters each (healthy ports too)" \
	"$(grep -c '^loom_port_up{.*} 0$' "$tmp/h.prom") $(( $(grep -c '^loom_port_counter{' "$tmp/h.prom") / 13 ))" \
	"0 $(grep -c '^loom_port_up{' "$tmp/h.prom")"
tap_check "--prometheus: leaf003 port 2 SymbolErrorCounter 11" \
	grep -qE '^loom_port_counter\{counter="SymbolErrorCounter",node_guid="0x[0-9a-f]{16}",node_desc="leaf003",port="2"\} 11$' \
	"$tmp/h.prom"
tap_is "--prometheus: problems by group: counters 4 errors, 1 warning; verdict 1" \
	"$(grep -E '^loom_health_problems\{group="counters"|^loom_health_verdict' "$tmp/h.prom" | awk '{ print $2 }' | tr '\n' ' ')" \
	"1 4 1 "

# ---- threshold files, as ibqueryerrors reads them ------------------------------------
sed 's/^SymbolErrorCounter=.*/SymbolErrorCounter=20/' "$tmp/thresholds" >"$tmp/thr20"
health file --only counters --threshold-file "$tmp/thr20"
tap_is "--threshold-file with SymbolErrorCounter=20: leaf003's 11 is not reported" \
	"$(grep -c SymbolErrorCounter "$tmp/file.out") $(grep -c PortXmitDiscards "$tmp/file.out")" "0 1"
printf 'SymbolErrorCounter=20\nSymbolErrors=3\n' >"$tmp/thrbad"
health filebad --only counters --threshold-file "$tmp/thrbad"
tap_is "a threshold file with an unknown counter: exit 2" "$hrc" 2
tap_check "and FILE:LINE names it" grep -q "thrbad:2: unknown counter 'SymbolErrors'" "$tmp/filebad.err" ||
	tap_diag "$(cat "$tmp/filebad.err")"

# ---- --since: what moved since an earlier --json run ------------------------------------
health since0 --only counters --json
health since1 --only counters --since "$tmp/since0.out"
tap_is "--since: counters high in the first run that did not move: exit 0, no finding but one" \
	"$hrc $(grep -cE '^(error|warning) ' "$tmp/since1.out")" "0 1" || tap_diag "$(cat "$tmp/since1.out")"
# ... spine002 port 4's LocalLinkIntegrityErrors at 15, its 4-bit top: what it counted is lost.
tap_check "--since: the one is a counter saturated then and now, a warning" \
	grep -qE '^warning +counters +"spine002" 0x[0-9a-f]{16} port 4: LocalLinkIntegrityErrors: saturated then and now \(15\)' \
	"$tmp/since1.out"
pset leaf003 2 SymbolErrorCounter 30
health since2 --only counters --since "$tmp/since0.out"
tap_is "--since: SymbolErrorCounter 11 -> 30: exit 1, one error" \
	"$hrc $(grep -cE '^error ' "$tmp/since2.out")" "1 1"
tap_check "--since: named with its delta: leaf003 port 2 up 19 since (11, now 30)" \
	grep -qE '^error +counters +"leaf003" 0x[0-9a-f]{16} port 2: SymbolErrorCounter: up 19 since \(11, now 30\), expected at most 10' \
	"$tmp/since2.out" || tap_diag "$(cat "$tmp/since2.out")"
printf '{"ports": [\n  {"node_guid": 12, "port": 1}\n]}\n' >"$tmp/bad.json"
health sincebad --only counters --since "$tmp/bad.json"
tap_is "--since a malformed file: exit 2" "$hrc" 2
tap_check "and FILE:LINE says where" grep -q "bad.json:2: " "$tmp/sincebad.err" ||
	tap_diag "$(cat "$tmp/sincebad.err")"

# ---- --reset: read, judge what was read, then clear ----------------------------------
health reset0 --only counters
n0=$(grep -cE '^(error|warning) ' "$tmp/reset0.out")
tap_check "before --reset: counters over their thresholds are found ($n0)" test "$n0" -gt 0
health reset1 --only counters --reset
tap_is "--reset: judged on the values read before the clear (exit 1, $n0 findings)" \
	"$hrc $(grep -cE '^(error|warning) ' "$tmp/reset1.out")" "1 $n0"
tap_check "--reset: says how many ports it cleared" \
	grep -qE '^loom health: PortCounters cleared on [1-9][0-9]* ports$' "$tmp/reset1.err" ||
	tap_diag "$(cat "$tmp/reset1.err")"
lid=$(sim_run C ibnetdiscover 2>/dev/null |
	awk '/^Switch/ && /"leaf003"/ { sub(/.* lid /, ""); print $1 + 0; exit }')
sym=$(sim_run C perfquery "$lid" 2 2>/dev/null | sed -n 's/^SymbolErrorCounter:\.*//p')
tap_is "--reset: perfquery reads leaf003 port 2's SymbolErrorCounter back as 0 (was 30)" "$sym" 0
health reset2 --only counters
tap_is "after --reset: nothing over a threshold any more (exit 0, no finding)" \
	"$hrc $(grep -cE '^(error|warning) ' "$tmp/reset2.out")" "0 0" ||
	tap_diag "$(head -n 5 "$tmp/reset2.out")"

sim_signal C TERM
wait "$sm_pid"
tap_done
