#!/bin/bash
# sm.sweep-interval 0: no timed light sweeps (doc/loom.yaml.5), and loomd
# still reacts to traps. Before, the file's 0 was dropped for the 10 s
# default and --sweep-interval 0 was refused. On a small fabric: SUBNET UP,
# then 12 s (longer than that default) with no light sweep and little CPU
# (no timer firing in a loop), then a switch link cut in ibsim: the trap's
# sweep runs and loom status shows the link gone. Times are never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/2sw2path.topo
sock=$tmp/control
IDLE_S=12

printf 'sm:\n  routing: { engine: minhop }\n  sweep-interval: 0\n' >"$tmp/loom.yaml"
json() { # PYTHON-EXPR on the status object j
	"$LOOM" status --control "$sock" --json 2>/dev/null |
		python3 -c "import json, sys; j = json.load(sys.stdin); print($1)" 2>/dev/null
}
wait_json() { # PYTHON-CONDITION SECS
	for _ in $(seq "$(($2 * 10))"); do
		[ "$(json "$1")" = True ] && return 0
		sleep 0.1
	done
	return 1
}

if ! sim_start c "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run c --timeout 300 --out "$tmp/loomd.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" --control "$sock" &
bg=$!
tap_check "SUBNET UP with sm.sweep-interval 0" wait_json 'j["subnet"]["up"]' 60 ||
	tap_diag "$(tail -n 5 "$tmp/loomd.log")"
# loomd itself: the child of the timeout sim_run started (its run.PID file).
pid=
for f in "$(sim_dir c)"/run.*; do
	[ -e "$f" ] && pid=$(pgrep -P "${f##*/run.}" | head -n 1)
done
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
t0=$(ticks "$pid")
light0=$(json 'j["sweeps_light"]')
sleep "$IDLE_S"
t1=$(ticks "$pid")
light1=$(json 'j["sweeps_light"]')
tap_check "no timed light sweep in ${IDLE_S} s (light sweeps: ${light0:-?} then ${light1:-?})" \
	test -n "$light0" -a "$light0" = "$light1"
hz=$(getconf CLK_TCK)
tap_check "loomd idle meanwhile: $((t1 - t0)) CPU ticks of $((IDLE_S * hz)) (no timer loop)" \
	test -n "$t0" -a -n "$t1" -a $((t1 - t0)) -lt $((IDLE_S * hz / 4))

heavy0=$(json 'j["sweeps_heavy"]')
tap_check 'Unlink "Switch1"[3] (a switch-to-switch link)' sim_console c 'Unlink "Switch1"[3]'
tap_check "the trap still starts a sweep (heavy sweeps: ${heavy0:-?} then more)" \
	wait_json "j[\"sweeps_heavy\"] > ${heavy0:-0} and j[\"subnet\"][\"up\"]" 30 ||
	tap_diag "$(tail -n 5 "$tmp/loomd.log")"
kill -TERM "$pid" 2>/dev/null
wait "$bg"
tap_done
