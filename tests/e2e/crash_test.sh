#!/bin/bash
# Crash safety: loomd killed with SIGKILL at 20 random moments, during
# bring-up and during heavy sweeps after a link change, never leaves a
# guid2lid file that does not parse; and the next start converges to the
# same LIDs and the same tables (read back with dump_lfts) as an
# uninterrupted run on a fresh copy of the fabric.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
# A dragonfly: 108 nodes, a bring-up of some 7,000 SMPs (tens of ms) to kill inside.
topo=$srcdir/tests/topologies/dragonfly-small.topo
KILLS=${CRASH_KILLS:-20}

# The tables as dump_lfts reads them, in canonical form.
tables() { # NAME OUT
	sim_run "$1" ibnetdiscover >"$2.ibnd" 2>/dev/null
	sim_run "$1" dump_lfts >"$2.lfts" 2>/dev/null
	"$LOOM" verify --normalize "$2.ibnd" "$2.lfts" >"$2" 2>/dev/null
}

# A guid2lid file parses: loom route reads it without a complaint about it.
parses() { # FILE
	[ -e "$1" ] || return 0 # not written yet: the next start assigns afresh
	"$LOOM" route --guid2lid "$1" "$topo" >/dev/null 2>"$tmp/parse.err" &&
		! grep -q "$(basename "$1")" "$tmp/parse.err"
}

# Reference: one uninterrupted run.
if ! sim_start ref "$topo"; then
	tap_check "reference simulator starts" false
	tap_done
	exit
fi
sim_run ref --timeout 120 "$LOOMD" --once --state-dir "$tmp/ref" --control "$tmp/ref.ctl" \
	>"$tmp/ref.log" 2>&1
tap_is "reference: loomd --once exits 0" "$?" 0
tables ref "$tmp/ref.tables"
sim_stop ref

if ! sim_start c "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
bad=0
for ((i = 1; i <= KILLS; i++)); do
	# (sim_run's own words on a killed command, and the shell's, are expected.)
	(sim_run c --timeout 60 --out "$tmp/run$i.log" "$LOOMD" --state-dir "$tmp/crash" \
		--control "$tmp/c.ctl" --sweep-interval 1) 2>/dev/null &
	bg=$!
	# Not before loomd is attached: ibsim panics when a client dies in the
	# middle of connecting (sim_ctl_new_client), which is ibsim's fault, not
	# a moment of loomd's to test. The line is logged once the port is open.
	for _ in $(seq 5000); do
		grep -q ', LMC ' "$tmp/run$i.log" 2>/dev/null && break
		sleep 0.002
	done
	if ((i % 2 == 0)); then
		# After SUBNET UP: a link change starts a heavy sweep; kill inside it.
		for _ in $(seq 100); do
			grep -q 'SUBNET UP' "$tmp/run$i.log" 2>/dev/null && break
			sleep 0.05
		done
		# The link flips each time: every even run has a change to sweep for.
		if ((i % 4 == 0)); then
			sim_console c 'ReLink "g01r01"[3]' >/dev/null
		else
			sim_console c 'Unlink "g01r01"[3]' >/dev/null
		fi
	fi
	# Bring-up and a heavy sweep take tens of milliseconds here: kill within them.
	sleep "0.0$((RANDOM % 2))$((RANDOM % 10))"
	sim_signal c KILL 2>/dev/null
	wait "$bg" 2>/dev/null
	parses "$tmp/crash/guid2lid" || {
		bad=$((bad + 1))
		tap_diag "kill $i: guid2lid does not parse: $(head -c 300 "$tmp/parse.err")"
	}
done
tap_is "$KILLS SIGKILLs (bring-up and heavy sweeps): guid2lid parsed after each" "$bad" 0
early=0
for ((i = 1; i <= KILLS; i++)); do
	grep -q 'SUBNET UP' "$tmp/run$i.log" 2>/dev/null || early=$((early + 1))
done
tap_diag "$early of the $KILLS kills came before the first SUBNET UP of their run, \
$(cat "$tmp"/run*.log 2>/dev/null | grep -c 'event: link') link events seen"
sim_console c 'ReLink "g01r01"[3]' >/dev/null 2>&1
rc=0
sim_run c --timeout 120 "$LOOMD" --once --state-dir "$tmp/crash" --control "$tmp/c.ctl" \
	>"$tmp/last.log" 2>&1 || rc=$?
tap_is "the next start reaches SUBNET UP" "$rc" 0 || tap_diag "$(tail -n 5 "$tmp/last.log")"
tap_check "... with the LIDs of the uninterrupted run (guid2lid)" \
	diff -u <(sort "$tmp/ref/guid2lid") <(sort "$tmp/crash/guid2lid")
tables c "$tmp/crash.tables"
tap_check "... and its tables, read back with dump_lfts" \
	diff -u "$tmp/ref.tables" "$tmp/crash.tables"
tap_check "... which are not empty" test "$(grep -c '^0x' "$tmp/crash.tables")" -gt 10
tap_done
