#!/bin/bash
# SIGTERM and SIGINT stop loomd while it opens its port, and that open is
# bounded. A simulator stopped with SIGSTOP makes the open hang for real:
# umad2sim waits in recv() for an answer that does not come, with loomd's
# signals blocked for sd-event's signalfd (before the start-up guard, loomd
# could only be KILLed there). Judged by exit status and log lines; the only
# clocks are generous bounds that catch a hang.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/single-switch.topo

# loomd on simulator NAME in the background; its status lands in $tmp/TAG.rc.
start() { # NAME TAG LOOMD-ARGS...
	local name=$1 tag=$2
	shift 2
	(
		sim_run "$name" --timeout 60 --out "$tmp/$tag.log" "$LOOMD" -v \
			--state-dir "$tmp/$tag.state" --control "$tmp/$tag.ctl" "$@"
		echo $? >"$tmp/$tag.rc"
	) 2>/dev/null &
}

# PID ends within SECS.
gone() { # PID SECS
	local end=$((SECONDS + $2))
	while [ "$SECONDS" -le "$end" ]; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# Its status, once it has one (bounded: 'hung' after SECS).
status() { # TAG [SECS]
	local end=$((SECONDS + ${2:-10}))
	while [ "$SECONDS" -le "$end" ]; do
		[ -s "$tmp/$1.rc" ] && { cat "$tmp/$1.rc"; return; }
		sleep 0.1
	done
	echo hung
}

# Control: on a simulator that answers, the guard hands SIGTERM on to the
# event loop once setup is done (STOPPING, exit 0), and lets SIGHUP through.
if ! sim_start ok "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
start ok run --sweep-interval 1
tap_check "control: loomd reaches SUBNET UP" log_wait -E "$tmp/run.log" "SUBNET UP" 30
sim_signal ok TERM
tap_is "control: SIGTERM after start-up: exit 0" "$(status run 20)" 0
tap_check "control: no start-up stop line" \
	bash -c "! grep -q 'while starting' '$tmp/run.log'"
sim_stop ok

if ! sim_start hang "$topo"; then
	tap_check "second simulator starts" false
	tap_done
	exit
fi
kill -STOP "$(sim_pid hang)"
export SIM_CONSOLE_TIMEOUT=3

# TAG SIG STATUS: loomd stuck opening the port, then signalled.
stopped_by() {
	local tag=$1 sig=$2 want=$3
	start hang "$tag"
	tap_check "$sig: loomd gets to the open" log_wait -E "$tmp/$tag.log" "opening the port" 10
	# Still in it: the simulator is stopped, nothing can answer.
	sleep 0.5
	tap_is "$sig: loomd is still opening before the signal" "$(cat "$tmp/$tag.rc" 2>/dev/null)" ""
	local pid f
	for f in "$(sim_dir hang)"/run.*; do pid=$(pgrep -P "${f##*/run.}"); done
	sim_signal hang "$sig"
	tap_check "$sig: loomd (pid $pid) is gone" gone "$pid" 10
	# (sim_run asks the stopped simulator's console about clients for SIM_CONSOLE_TIMEOUT.)
	tap_is "$sig during the open: loomd dies of it (status $want)" "$(status "$tag" 30)" "$want"
	tap_check "$sig: the log says so and names what it was doing" \
		grep -q "^loomd: $sig while starting (opening the first usable port of the first CA); stopping" \
		"$tmp/$tag.log"
}
stopped_by term SIGTERM 143
stopped_by int SIGINT 130

# No signal: the open gives up after --open-timeout, saying what it waited for.
start hang late --open-timeout 6 --port 1
tap_is "no signal: loomd gives up on the open with status 1" "$(status late 30)" 1
tap_check "no signal: it said after 5 s what it waits for" \
	grep -q "opening the first CA port 1: no answer yet after 5 s; waiting up to 6 s" \
	"$tmp/late.log"
tap_check "no signal: it says what it gave up on" \
	grep -q "error: opening the first CA port 1: no answer after 6 s; giving up" "$tmp/late.log"
tap_check "no signal: nothing after the deadline (not the open failing by itself)" \
	bash -c "! grep -q 'cannot open' '$tmp/late.log'"
"$LOOMD" --open-timeout 0 >/dev/null 2>"$tmp/range.err"
tap_is "--open-timeout 0 is refused (status 1)" "$?" 1
tap_check "... saying which option" grep -q -- "--open-timeout" "$tmp/range.err"

kill -CONT "$(sim_pid hang)"
for f in "$tmp"/*.log; do
	tap_diag "--- ${f##*/}"
	tap_diag "$(tail -n 8 "$f")"
done
tap_done
