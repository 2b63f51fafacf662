#!/bin/bash
# loom health's sm group and the master's ActCount (IBA 14.2.5.13: a working
# SM's count moves; a standby that sees it stop takes over), on ibsim:
#   - OpenSM brings the fabric up once and leaves; a rig SM (tests/rig/stucksm)
#     then answers SMInfo at the same port as MASTER with an ActCount that
#     does not move: sminfo reads the same count twice, and loom health names
#     the master, its count and the wait, exit 1;
#   - --activity-wait 0 reads it once: not judged, exit 0;
#   - the same rig with a moving count (-m): sminfo sees it move, loom health
#     reports nothing, exit 0;
#   - --progress (the count stuck: loom health waits): lines on stderr,
#     stdout's --json unchanged;
#   - a moving count is read again at once, not after the wait.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
builddir=${builddir:-$PWD}
STUCKSM=${STUCKSM:-$builddir/tests/rig/stucksm}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/health.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
if [ ! -x "$STUCKSM" ]; then
	echo "Bail out! no $STUCKSM (run through make check)"
	exit 1
fi
topo=$srcdir/tests/topologies/ft2-k8.topo
host2=$(sim_topo_nodes "$topo" | awk -F'\t' '$1 == "Ca" { n++ } n == 2 { print $2; exit }')

health() { health_in --host "$host2" C "$@"; } # TAG ARGS...: from the second host
act() { # the activity count sminfo reads from the second host
	sim_run C --host "$host2" sminfo 2>/dev/null | sed -n 's/.*activity count \([0-9]*\).*/\1/p'
}
rig() { # TAG ARGS...: stucksm at the first host (where OpenSM ran), until it says ready
	SIM_SET_ISSM=1 sim_run C --timeout 120 --out "$tmp/$1.rig" "$STUCKSM" -t 100 "${@:2}" &
	rig_pid=$!
	log_wait "$tmp/$1.rig" '^ready' 10
}

if ! sim_start C "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
tap_check "OpenSM brings the fabric up and exits (-o)" sim_opensm C --timeout 120

tap_check "a rig SM answers SMInfo at the first host, ActCount stuck at 1234" rig stuck -a 1234
a1=$(act)
sleep 1
a2=$(act)
tap_is "sminfo reads MASTER's activity count twice, a second apart: 1234, 1234" "$a1 $a2" "1234 1234"
health stuck --only sm --activity-wait 300
tap_is "loom health: exit 1, one finding" "$hrc $(grep -cE '^(error|warning) ' "$tmp/stuck.out")" "1 1" ||
	tap_diag "$(cat "$tmp/stuck.out" "$tmp/stuck.err")"
tap_check "... the master, its ActCount and how long it waited" \
	grep -qE '^error +sm +"[^"]*" 0x[0-9a-f]{16} port 1: act count: ActCount 1234 unchanged after [0-9]+ ms, expected ActCount moving' \
	"$tmp/stuck.out" || tap_diag "$(cat "$tmp/stuck.out")"
health once --only sm --activity-wait 0
tap_is "--activity-wait 0: ActCount read once, not judged: exit 0" "$hrc" 0 ||
	tap_diag "$(cat "$tmp/once.out")"
printf 'health:\n  activity-wait: 0s\n' >"$tmp/nowait.yaml"
health yaml --only sm --config "$tmp/nowait.yaml"
tap_is "loom.yaml health.activity-wait: 0s: the same" "$hrc" 0
# --progress, with the count stuck (a count that moves at once is not waited
# for, so it may leave nothing to tell): on stderr only; stdout the same JSON.
health prog --only sm,counters --json --progress --activity-wait 1500
tap_check "--progress: progress lines on stderr" grep -q '^loom health: ' "$tmp/prog.err" ||
	tap_diag "$(cat "$tmp/prog.err")"
tap_check "--progress: stdout is JSON alone" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/prog.out"
if command -v script >/dev/null; then
	# A terminal (script's pty) for stdout and stderr: progress by default.
	sim_run C --host "$host2" --out "$tmp/tty.out" script -qec \
		"$LOOM health --only sm --activity-wait 1500" /dev/null
	tap_check "stderr a terminal: progress without --progress" \
		grep -q "^loom health: waiting to read the master's ActCount again" "$tmp/tty.out" ||
		tap_diag "$(cat "$tmp/tty.out")"
fi
sim_signal C TERM
wait "$rig_pid"

tap_check "the rig again, its ActCount moving with each answer (-m)" rig moving -a 1234 -m
a1=$(act)
a2=$(act)
tap_check "sminfo sees it move ($a1, then $a2)" test "${a2:-0}" -gt "${a1:-0}"
health moving --only sm
tap_is "loom health: exit 0, no finding" "$hrc $(grep -cE '^(error|warning) ' "$tmp/moving.out")" "0 0" ||
	tap_diag "$(cat "$tmp/moving.out")"

# The count moved between the first read and the end of the other reads: it
# is not read again after the whole wait (no "waiting" line), the same verdict.
health early --only sm --progress --activity-wait 20000
tap_is "a moving count: exit 0, no finding" "$hrc $(grep -cE '^(error|warning) ' "$tmp/early.out")" "0 0" ||
	tap_diag "$(cat "$tmp/early.out")"
tap_is "... and loom health did not sit out the 20 s wait" \
	"$(grep -c "waiting to read the master's ActCount again" "$tmp/early.err")" 0 ||
	tap_diag "$(cat "$tmp/early.err")"
health noprog --only sm,counters --json
tap_is "without --progress (stderr not a terminal): nothing on stderr" "$(wc -c <"$tmp/noprog.err")" 0
sim_signal C TERM
wait "$rig_pid"
tap_done
