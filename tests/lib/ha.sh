# shellcheck shell=bash
# ha.sh — two SMs on one simulated fabric (sourced after sim.sh, tap.sh and
# loomd.sh; needs $tmp, $LOOMD, the simulator F, and $HC, a host that asks).

ha_sim() { # TOPO [CHECK]: simulator F, or CHECK ("simulator starts") fails and the test ends
	sim_start F "$1" && return 0
	tap_check "${2:-simulator starts}" false
	tap_done
	exit
}
ha_conf() { # NAME PRIORITY POLL_MS: a loom.yaml with short sweeps and polls
	printf 'sm:\n  priority: %s\n  sweep-interval: 1s\n  poll-interval: %sms\n  poll-misses: 3\n' \
		"$2" "$3" >"$tmp/$1.yaml"
}
ha_loomd() { # NAME HOST [LOG]: loomd NAME in the background, attached at HOST
	sim_run F --timeout 300 --host "$2" --out "$tmp/${3:-$1}.log" "$LOOMD" -c "$tmp/$1.yaml" \
		--state-dir "$tmp/$1.state" --control "$tmp/$1.sock" &
}
# The first two SMs of a test: loomd NAME (with $tmp/NAME.yaml) at HOST, then
# CHECK: it became master (alone: SUBNET UP, 60 s at most), or it went
# standby under the master it found (30 s at most); the log's tail if not.
ha_master() { # NAME HOST CHECK
	ha_loomd "$1" "$2"
	log_wait -E "$tmp/$1.log" 'SUBNET UP' 60
	tap_check "$3" grep -q 'DISCOVERING -> MASTER' "$tmp/$1.log" ||
		tap_diag "$(tail -n 5 "$tmp/$1.log")"
}
ha_standby() { # NAME HOST CHECK
	ha_loomd "$1" "$2"
	log_wait -E "$tmp/$1.log" '-> STANDBY' 30
	tap_check "$3" grep -q 'DISCOVERING -> STANDBY: master SM' "$tmp/$1.log" ||
		tap_diag "$(tail -n 5 "$tmp/$1.log")"
}
# The process sim_run started for NAME (an argument of it names $tmp/NAME.):
# its PID, a child of the timeout that sim_run started.
ha_pid() { # NAME
	local f kid
	for f in "$(sim_dir F)"/run.*; do
		[ -e "$f" ] || continue
		for kid in $(pgrep -P "${f##*/run.}"); do
			tr '\0' ' ' <"/proc/$kid/cmdline" 2>/dev/null | grep -qF -- "$tmp/$1." &&
				echo "$kid"
		done
	done
}
ha_stop() { # SIG NAME...: signal each, wait (10 s at most) for it to go
	local sig=$1 n p i
	shift
	for n in "$@"; do
		p=$(ha_pid "$n")
		[ -n "$p" ] || continue
		kill -"$sig" $p 2>/dev/null
		for ((i = 0; i < 100; i++)); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	done
}
# A host's port GUID and LID, from a switch's line in ibnetdiscover ($tmp/ibnd):
# [1]	"H-0002c90400000100"[1](2c90400000101) 		# "h00001" lid 13 4xSDR
ha_guid() { sed -nE "s/^\[[0-9]+\][[:space:]]+\"[^\"]*\"\[1\]\(([0-9a-f]+)\).*# \"$1\" lid .*/\1/p" "$tmp/ibnd" | head -n 1; }
ha_lid() { sed -nE "s/^\[[0-9]+\][[:space:]]+\"[^\"]*\"\[1\]\([0-9a-f]+\).*# \"$1\" lid ([0-9]+) .*/\1/p" "$tmp/ibnd" | head -n 1; }
ha_sminfo() { sim_run F --host "$HC" sminfo "$@" 2>/dev/null; } # [LID]: asked from host C
# IBA 14.4: the SM that got a HANDOVER (LOG) answers it, sends the old master
# (GUID) ACKNOWLEDGE and only then works as master: in its log, after the
# HANDOVER, the ACKNOWLEDGE answered, then the takeover (the old master's SA
# state installed), then the first sweep's line. Line order, never time.
ha_took_handover() { # CHECK LOG GUID
	local out ok=0
	out=$(ha_order "$tmp/$2.log" '-> MASTER: HANDOVER received' \
		"SMInfo Set ACKNOWLEDGE to SM 0x0*${3#0*}: answered" 'SM: master in place of SM' \
		'sweep [0-9]+ \(|SUBNET UP') || ok=1
	tap_diag "$2's log: HANDOVER received, ACKNOWLEDGE answered, takeover, first sweep at lines $out"
	tap_check "$1" test $ok -eq 0 ||
		tap_diag "$(grep -nE 'SM|sweep [0-9]' "$tmp/$2.log" | head -n 20)"
}
# The old master (LOG) stands by on the ACKNOWLEDGE of the SM it handed to
# (GUID): after its HANDOVER, the Set ACKNOWLEDGE (2) from that SM, then its
# MASTER -> STANDBY naming it.
ha_got_ack() { # CHECK LOG GUID
	local out ok=0
	out=$(ha_order "$tmp/$2.log" 'outranks us: sending it HANDOVER' \
		"SMInfo Set 2 from SM 0x0*${3#0*} \(priority [0-9]+, STANDBY\)" \
		"MASTER -> STANDBY: SM 0x0*${3#0*} acknowledged our HANDOVER") || ok=1
	tap_diag "$2's log: HANDOVER sent, ACKNOWLEDGE received, MASTER -> STANDBY at lines $out"
	tap_check "$1" test $ok -eq 0 || tap_diag "$(grep -n 'SM' "$tmp/$2.log" | tail -n 8)"
}
ha_lids() { sim_run F ibnetdiscover -l 2>/dev/null | sort; }
ha_ms() { date +%s%3N; }
# The number of FILE's first line at or after line FROM (default 1) that matches
# the extended regular expression ERE; nothing if none does.
ha_line() { # FILE ERE [FROM]
	ERE=$2 awk -v from="${3:-1}" 'NR >= from && $0 ~ ENVIRON["ERE"] { print NR; exit }' "$1"
}
# Order in a log, not time: after FILE's first line matching AT, the first
# line matching each ERE that follows comes in that order, each one there.
# Prints "at:N N1 N2 ..." on stdout: the line numbers, "-" for one not there.
ha_order() { # FILE AT ERE...
	local f=$1 at n prev ok=0 out ere
	at=$(ha_line "$f" "$2")
	out="at:${at:--}"
	[ -n "$at" ] || ok=1
	prev=${at:-0}
	shift 2
	for ere in "$@"; do
		n=$([ -z "$at" ] || ha_line "$f" "$ere" "$at")
		out+=" ${n:--}"
		if [ -z "$n" ] || [ "$n" -le "$prev" ]; then ok=1; fi
		prev=${n:-$prev}
	done
	echo "$out"
	return $ok
}
# After a change of master: no LID moved since $tmp/lids.before, the LFTs
# still route every pair, sminfo names the new master; a loomd's first sweep
# as master (LOG; "" for OpenSM) sends no LFT block, nor, when that sweep
# left the LFTs unread (its routes matched them while standby), does the
# heavy sweep after it, which reads them back ("takeover check").
ha_nothing_changed() { # WHAT LOG GUID
	local sweep out
	if [ -n "$2" ]; then
		# A takeover's "takeover sweep:" line comes just after its sweep's
		# SUBNET UP line, which is all the caller waited for (bounded).
		log_wait -F "$tmp/$2.log" 'takeover sweep:' 30
		sweep=$(grep 'sweep [0-9]* (heavy)' "$tmp/$2.log" | head -n 1)
		tap_diag "$2's first sweep as master after the $1: $sweep"
		tap_check "$1: the new master's first sweep sends 0 LFT blocks" \
			grep -q '(0 LFT blocks' <<<"$sweep"
		if grep 'takeover sweep:' "$tmp/$2.log" | head -n 1 | grep -q 'LFTs: as the old'; then
			log_wait -E "$tmp/$2.log" 'takeover check:' 120
			out=$(grep 'takeover check:' "$tmp/$2.log" | head -n 1)
			tap_diag "$out"
			tap_check "$1: the heavy sweep after it reads the LFTs back and sends 0 blocks" \
				grep -qE 'blocks read back, 0 sent' <<<"$out"
		fi
	fi
	ha_lids >"$tmp/lids.$1"
	tap_check "$1: ibnetdiscover -l: 0 LID changes" diff -u "$tmp/lids.before" "$tmp/lids.$1"
	out=$(ha_sminfo)
	tap_check "$1: sminfo names the new master 0x$3" \
		grep -qE "sm guid 0x0*${3#0*},.* state 3" <<<"$out" || tap_diag "$out"
	lfts_check "$1" F "after the $1: "
}
