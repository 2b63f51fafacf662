#!/bin/bash
# HA (IBA 14.4) on a small fat tree, two loomd attached at two hosts:
# priorities 10 and 5 elect the 10 (sminfo, asked of the subnet and of each
# SM); SIGKILL of the master: the standby takes over, no LID changes
# (ibnetdiscover -l), 0 LFT blocks, every host pair still routed (dump_lfts
# read back); the 10 restarted: the 5 hands over (HANDOVER, ACKNOWLEDGE), no
# LID changes; equal priorities: the lower port GUID is master, in either
# start order. Short poll intervals; times are reported, never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/loomd.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
HA=h00001 HB=h00005 HC=h00009 # A, B: the SMs; C: a host that asks
POLL_MS=300

conf() { # NAME PRIORITY
	printf 'sm:\n  priority: %s\n  sweep-interval: 1s\n  poll-interval: %sms\n  poll-misses: 3\n' \
		"$2" "$POLL_MS" >"$tmp/$1.yaml"
}
start() { # NAME HOST [LOG]
	sim_run F --timeout 300 --host "$2" --out "$tmp/${3:-$1}.log" "$LOOMD" -c "$tmp/$1.yaml" \
		--state-dir "$tmp/$1.state" --control "$tmp/$1.sock" &
}
# The loomd of NAME, by its state dir: its PID (a child of a timeout that sim_run started).
pid_of() { # NAME
	local f kid
	for f in "$(sim_dir F)"/run.*; do
		[ -e "$f" ] || continue
		for kid in $(pgrep -P "${f##*/run.}"); do
			tr '\0' ' ' <"/proc/$kid/cmdline" 2>/dev/null | grep -qF -- "$tmp/$1.state" &&
				echo "$kid"
		done
	done
}
wait_log() { # LOG PATTERN SECS: 0 once the log has it
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -qE -- "$2" "$tmp/$1.log" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
stop() { # NAME...: SIGTERM, wait for it to go
	local n p i
	for n in "$@"; do
		p=$(pid_of "$n")
		[ -n "$p" ] || continue
		kill -TERM $p 2>/dev/null
		for ((i = 0; i < 100; i++)); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	done
}
# A host's port GUID and LID, from a switch's line in ibnetdiscover:
# [1]	"H-0002c90400000100"[1](2c90400000101) 		# "h00001" lid 13 4xSDR
guid_of() { sed -nE "s/^\[[0-9]+\][[:space:]]+\"[^\"]*\"\[1\]\(([0-9a-f]+)\).*# \"$1\" lid .*/\1/p" "$tmp/ibnd" | head -n 1; }
lid_of() { sed -nE "s/^\[[0-9]+\][[:space:]]+\"[^\"]*\"\[1\]\([0-9a-f]+\).*# \"$1\" lid ([0-9]+) .*/\1/p" "$tmp/ibnd" | head -n 1; }
sminfo_at() { # [LID]: sminfo asked from host C
	sim_run F --host "$HC" sminfo "$@" 2>/dev/null
}
lids() { sim_run F ibnetdiscover -l 2>/dev/null | sort; }
ms() { date +%s%3N; }
# After a change of master: its first sweep sends no LFT block, no LID moved, sminfo names it.
nothing_changed() { # WHAT LOG GUID
	local sweep out
	sweep=$(grep 'sweep [0-9]* (heavy)' "$tmp/$2.log" | head -n 1)
	tap_diag "$2's first sweep as master after the $1: $sweep"
	tap_check "$1: the new master's first sweep sends 0 LFT blocks" grep -q '(0 LFT blocks' <<<"$sweep"
	lids >"$tmp/lids.$1"
	tap_check "$1: ibnetdiscover -l: 0 LID changes" diff -u "$tmp/lids.before" "$tmp/lids.$1"
	out=$(sminfo_at)
	tap_check "$1: sminfo names the new master 0x$3" \
		grep -qE "sm guid 0x0*${3#0*},.* state 3" <<<"$out" || tap_diag "$out"
}

if ! sim_start F "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi

# ---- priorities 10 and 5 ---------------------------------------------------------
conf A 10
conf B 5
start A "$HA"
wait_log A 'SUBNET UP' 60
tap_check "A (priority 10) alone: master, SUBNET UP" grep -q 'DISCOVERING -> MASTER' "$tmp/A.log" ||
	tap_diag "$(tail -n 5 "$tmp/A.log")"
start B "$HB"
wait_log B '-> STANDBY' 30
tap_check "B (priority 5): STANDBY, master A found" \
	grep -q 'DISCOVERING -> STANDBY: master SM' "$tmp/B.log" || tap_diag "$(tail -n 5 "$tmp/B.log")"
sleep 1
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
ga=$(guid_of "$HA") gb=$(guid_of "$HB") la=$(lid_of "$HA") lb=$(lid_of "$HB")
tap_diag "A: port GUID 0x$ga LID $la; B: port GUID 0x$gb LID $lb"
out=$(sminfo_at)
tap_check "sminfo (the subnet's SM): A, priority 10, MASTER" \
	grep -qE "sm guid 0x0*${ga#0*},.* priority 10 state 3" <<<"$out" || tap_diag "$out"
out=$(sminfo_at "$lb")
tap_check "sminfo $lb (B): priority 5, STANDBY" grep -qE "priority 5 state 2" <<<"$out" ||
	tap_diag "$out"
out=$(sim_run F --host "$HC" saquery SMIR 2>&1)
tap_check "saquery SMIR (the master's SA answers): A is MASTER" \
	grep -qiE "(SMState|state).*3|MASTER" <<<"$out" || tap_diag "$(head -n 12 <<<"$out")"
tap_check "B sent no Set (a standby programs nothing): no sweep in its log" \
	test "$(grep -c 'sweep [0-9]* (heavy)' "$tmp/B.log")" -eq 0
lids >"$tmp/lids.before"
tap_check "B's state dir has no guid2lid (fresh, never master)" test ! -s "$tmp/B.state/guid2lid"

# ---- SIGKILL the master --------------------------------------------------------------
pa=$(pid_of A)
tap_check "A's loomd found (pid ${pa:-none})" test -n "$pa"
t0=$(ms)
[ -z "$pa" ] || kill -KILL $pa
wait_log B 'STANDBY -> DISCOVERING' 30
t1=$(ms)
wait_log B 'SUBNET UP' 30
t2=$(ms)
tap_check "B takes over: STANDBY -> DISCOVERING -> MASTER" \
	grep -q 'DISCOVERING -> MASTER: the master is gone' "$tmp/B.log" ||
	tap_diag "$(tail -n 8 "$tmp/B.log")"
tap_check "... after ${POLL_MS} ms x 3 polls missed (sm.poll-misses)" \
	grep -q 'did not answer 3 polls in a row' "$tmp/B.log"
tap_diag "takeover: SIGKILL -> master declared lost $((t1 - t0)) ms, -> SUBNET UP as master $((t2 - t0)) ms (poll interval ${POLL_MS} ms x 3)"
nothing_changed failover B "$gb"
lfts_check failover F "after the failover: "

# ---- the priority 10 comes back: handover ---------------------------------------
start A "$HA" A2
wait_log B '-> STANDBY' 30
wait_log A2 'SUBNET UP' 30
tap_check "A restarted: finds master B, waits for its HANDOVER" \
	grep -q 'we outrank it: waiting for its HANDOVER' "$tmp/A2.log" || tap_diag "$(tail -n 5 "$tmp/A2.log")"
tap_check "B sends HANDOVER to A" grep -q 'SMInfo Set HANDOVER to SM.*answered' "$tmp/B.log"
tap_check "A takes it and answers ACKNOWLEDGE" \
	grep -q 'SMInfo Set ACKNOWLEDGE to SM.*answered' "$tmp/A2.log"
tap_check "B goes STANDBY on the ACKNOWLEDGE" grep -q 'MASTER -> STANDBY: SM .* acknowledged' "$tmp/B.log" ||
	tap_diag "$(grep 'SM' "$tmp/B.log" | tail -n 5)"
nothing_changed handover A2 "$ga"
out=$(sminfo_at "$lb")
tap_check "sminfo $lb (B): STANDBY" grep -qE "priority 5 state 2" <<<"$out" || tap_diag "$out"
stop A B

# ---- equal priorities: the lower port GUID ---------------------------------------
if [ "$((16#$ga))" -lt "$((16#$gb))" ]; then low=$HA; else low=$HB; fi
for run in 1 2 3 4; do
	conf E 7
	if [ $((run % 2)) -eq 1 ]; then first=$HA second=$HB; else first=$HB second=$HA; fi
	cp "$tmp/E.yaml" "$tmp/E1.yaml"
	cp "$tmp/E.yaml" "$tmp/E2.yaml"
	rm -f "$tmp/E1.log" "$tmp/E2.log"
	start E1 "$first"
	[ $run -le 2 ] || sleep 1 # runs 3, 4: the first is master already when the second starts
	start E2 "$second"
	wait_log E1 'SUBNET UP|-> STANDBY' 30
	wait_log E2 'SUBNET UP|-> STANDBY' 30
	sleep 2 # a light sweep or two: time to hand over if the wrong one won
	out=$(sminfo_at)
	want=$(guid_of "$low")
	tap_check "equal priorities, run $run (first at $first): the lower GUID 0x$want is master" \
		grep -qE "sm guid 0x0*${want#0*},.* state 3" <<<"$out" ||
		tap_diag "$out; E1: $(grep 'SM state' "$tmp/E1.log" | tail -n 2); E2: $(grep 'SM state' "$tmp/E2.log" | tail -n 2)"
	stop E1 E2
	rm -rf "$tmp/E1.state" "$tmp/E2.state"
done
tap_done
