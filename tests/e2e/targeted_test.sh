#!/bin/bash
# Targeted sweeps on a fat tree (ft2-k8), loomd as a daemon (--sweep-interval
# 1, flap damping off, sm.heavy-sweep-interval 1h so no safety-net sweep runs
# in between). For each event made with ibsim's console:
#   a spine-to-leaf link down, the same link up, a host link down, up, a leaf
#   switch removed (Unlink of all its ports), back (ReLink), and a host link
#   down whose trap is lost (its switch's MasterSMLID points nowhere, set with
#   ibportstate: the light sweep must catch it)
# and on a 4x4 torus (vlayered, through auto) a switch-to-switch link down
# and up, then the last host's link down and up, where the routes also keep every VL free of credit loops and the
# ports hold the engine's SL-to-VL map (on 4x4, shortest paths need only one
# VL: bigger tori cost CI time).
# loomd's log must show a targeted sweep and no heavy one, with its SMPs
# (printed) at most a fifth of the bring-up's; the tables read back with
# dump_lfts pass `loom verify` and equal `loom route` on the fabric as
# ibnetdiscover sees it then (a fresh bring-up's on the changed fabric), or,
# where loomd kept the routes that still held, are no worse than those by
# loom verify's measures (reach, loops, credit loops, busiest link).
# Each event's "event handled" line says how many destination LIDs it
# rerouted: as many as differ (on a switch in both) between dump_lfts before
# and after the event, when one sweep handled it all.
# Then, on a fresh fabric with sm.heavy-sweep-interval 2s, heavy sweeps come
# on that timer alone (the safety net for lost traps).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

# master-lid-checks 0: the lost-trap case points leaf003's MasterSMLID
# elsewhere, which the master's check would mend (ha_mirror_test tests it).
cat >"$tmp/loom.yaml" <<YAML
sm:
  flap-damping: { flaps: 0 }
  heavy-sweep-interval: 1h
  master-lid-checks: 0
YAML

. "$srcdir/tests/lib/loomd.sh"

log=$tmp/daemon.log
count() { local n; n=$(grep -cE "$1" "$log" 2>/dev/null); echo "${n:-0}"; }

settle() { sweep_settle "$log"; }

# dump_lfts as "switch-GUID LID port" lines, switches and LIDs in hex.
lft_lines() { # DUMP
	awk '/^Unicast lids/ { sw = ""; for (i = 1; i < NF; i++) if ($i == "guid") sw = $(i + 1) }
	     /^0x[0-9a-f]+ [0-9]+ / && sw != "" { print sw, $1, $2 }' "$1" | sort
}

# The LIDs whose entry differs on some switch in both dumps.
rerouted() { # BEFORE AFTER
	local a=$tmp/rr.a b=$tmp/rr.b
	lft_lines "$1" >"$a"
	lft_lines "$2" >"$b"
	comm -12 <(cut -d' ' -f1 "$a" | sort -u) <(cut -d' ' -f1 "$b" | sort -u) >"$tmp/rr.sw"
	comm -3 "$a" "$b" | awk 'NR == FNR { sw[$1] = 1; next } { $1 = $1 } sw[$1] { print $2 }' \
		"$tmp/rr.sw" - | sort -u | wc -l
}

# The tables as read back equal a fresh bring-up's on the fabric as it is now,
# or, where loomd kept the routes that still held (its "routes: kept" line),
# are no worse by loom verify's measures: every pair delivered, no loop, no
# credit loop where the fresh tables have none, a busiest link (all-to-all)
# no busier than the fresh tables' (loom route --json on the same fabric).
fresh_check() { # TAG
	local tag=$1 kept
	sim_run "$sim" ibnetdiscover >"$tmp/$tag.ibnd" 2>/dev/null
	sim_run "$sim" dump_lfts >"$tmp/$tag.dump" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/$tag.ibnd" "$tmp/$tag.dump" >"$tmp/$tag.fabric" 2>/dev/null
	"$LOOM" route --canon --engine auto --guid2lid "$tmp/$sim.state/guid2lid" "$tmp/$tag.ibnd" \
		>"$tmp/$tag.fresh" 2>"$tmp/$tag.err"
	kept=$(grep -c 'routes: kept where they still hold' "$tmp/$tag.log")
	if [ "$kept" = 0 ]; then
		tap_check "$tag: every LFT equals a fresh bring-up's on the changed fabric (loom route)" \
			diff -u "$tmp/$tag.fresh" "$tmp/$tag.fabric" ||
			tap_diag "$(head -n 20 "$tmp/$tag.err")"
		return
	fi
	"$LOOM" verify --json "$tmp/$tag.ibnd" "$tmp/$tag.dump" >"$tmp/$tag.vjson" 2>/dev/null
	"$LOOM" route --json --engine auto --guid2lid "$tmp/$sim.state/guid2lid" "$tmp/$tag.ibnd" \
		>"$tmp/$tag.fjson" 2>/dev/null
	tap_diag "$tag: routes kept; busiest link $(jget "$tmp/$tag.vjson" 'r["load"]["all_to_all"]["max"]') routes, fresh $(jget "$tmp/$tag.fjson" 'r["load"]["all_to_all"]["max"]'); $(diff "$tmp/$tag.fresh" "$tmp/$tag.fabric" | grep -c '^>') entries differ from fresh"
	tap_check "$tag: kept routes no worse than a fresh bring-up's (reach, loops, credit loops, busiest link)" \
		"${PYTHON3:-python3}" -c 'import json, sys
v, f = (json.load(open(a)) for a in sys.argv[1:3])
ok = (v["unreachable"] <= f["unreachable"] and v["loops"] <= f["loops"] and v["pairs"] == f["pairs"]
      and (v["cdg"]["acyclic"] or not f["cdg"]["acyclic"])
      and v["load"]["all_to_all"]["max"] <= f["load"]["all_to_all"]["max"])
sys.exit(0 if ok else 1)' "$tmp/$tag.vjson" "$tmp/$tag.fjson" ||
		tap_diag "$(head -c 400 "$tmp/$tag.vjson")"
}

jget() { "${PYTHON3:-python3}" -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$1"; }

# event TAG WANT_LIGHT CONSOLE-COMMAND...: the event, then the checks above.
event() {
	local tag=$1 light=$2 from smps heavy before
	shift 2
	from=$(($(wc -l <"$log") + 1))
	before=$(count 'sweep [0-9]+ \(targeted\)')
	sim_console "$sim" "$@"
	tap_check "$tag: a targeted sweep follows" log_wait -E -n $((before + 1)) "$log" 'sweep [0-9]+ \(targeted\)' 20
	settle
	sed -n "$from,\$p" "$log" >"$tmp/$tag.log"
	heavy=$(grep -cE 'sweep [0-9]+ \(heavy\)' "$tmp/$tag.log")
	tap_is "$tag: no heavy sweep" "$heavy" 0 || tap_diag "$(grep -E 'sweep|warn' "$tmp/$tag.log")"
	if [ "$light" = light ]; then
		tap_check "$tag: a light sweep saw it (the trap was lost)" \
			grep -qE 'sweep [0-9]+ \(light\).* [1-9][0-9]* changes' "$tmp/$tag.log"
	fi
	smps=$(sed -nE 's/.*sweep [0-9]+ \(targeted\).* ([0-9]+) SMPs.*/\1/p' "$tmp/$tag.log" |
		awk '{ s += $1 } END { print s + 0 }')
	tap_diag "$tag: targeted sweeps sent $smps SMPs (bring-up: $bringup)"
	grep -E 'event( handled)?:|sweep [0-9]+ \((targeted|light)' "$tmp/$tag.log" | while read -r l; do
		tap_diag "  $l"
	done
	tap_check "$tag: at most a fifth of the bring-up's SMPs ($smps of $bringup)" \
		test "$smps" -gt 0 -a "$smps" -le $((bringup / 5))
	tap_check "$tag: SUBNET UP" grep -qE 'sweep [0-9]+ \(targeted\).*SUBNET UP$' "$tmp/$tag.log"
	lfts_check "$tag" "$sim"
	fresh_check "$tag"
	handled_check "$tag"
}

# The event's "event handled" line(s): LIDs rerouted as dump_lfts tells them.
prev_dump=
handled_check() { # TAG
	local tag=$1 n said want
	n=$(grep -c 'event handled: .*: [0-9]* LIDs rerouted, [0-9]* LFT blocks, [0-9]* SMPs, [0-9]* ms$' \
		"$tmp/$tag.log")
	tap_check "$tag: an 'event handled' line says LIDs rerouted, blocks, SMPs, ms" test "$n" -ge 1 ||
		tap_diag "$(grep -E 'event' "$tmp/$tag.log")"
	said=$(sed -nE 's/.*event handled: .*: ([0-9]+) LIDs rerouted.*/\1/p' "$tmp/$tag.log" |
		awk '{ s += $1 } END { print s + 0 }')
	if [ "$n" = 1 ] && [ -n "$prev_dump" ]; then
		want=$(rerouted "$prev_dump" "$tmp/$tag.dump")
		tap_is "$tag: LIDs rerouted as dump_lfts before and after differ" "$said" "$want"
	fi
	prev_dump=$tmp/$tag.dump
}

sim=d
if ! sim_start d "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run d --timeout 600 --out "$log" "$LOOMD" --state-dir "$tmp/d.state" -c "$tmp/loom.yaml" \
	--sweep-interval 1 &
bg=$!
tap_check "reaches SUBNET UP" log_wait -E "$log" 'heavy.*SUBNET UP' 30
bringup=$(sed -nE 's/.*sweep 1 \(heavy\).* ([0-9]+) SMPs.*/\1/p' "$log")
bringup=${bringup:-0}
settle
sim_run d dump_lfts >"$tmp/bringup.dump" 2>/dev/null
prev_dump=$tmp/bringup.dump

link=$(sim_topo_links "$topo" | awk -F'\t' '$1 ~ /spine/ { print $1 "\t" $2; exit }')
IFS=$'\t' read -r sw port <<<"$link"
event "switch link down" trap "Unlink \"$sw\"[$port]"
event "switch link up" trap "ReLink \"$sw\"[$port]"
event "host link down" trap 'Unlink "h00009"[1]'
event "host link up" trap 'ReLink "h00009"[1]'
event "switch removed" trap 'Unlink "leaf004"'
event "switch back" trap 'ReLink "leaf004"'
# leaf003's traps go to LID 999, which nobody has: ibsim drops them.
tap_check "leaf003's MasterSMLID set to 999 (ibportstate)" \
	sim_run d ibportstate -G 0x0002c90300000007 0 smlid 999
event "lost trap: host link down" light 'Unlink "h00010"[1]'
event "lost trap: host link up" light 'ReLink "h00010"[1]'

sim_signal d TERM
rc=0
wait "$bg" || rc=$?
tap_is "SIGTERM ends loomd with status 0" "$rc" 0
sim_stop d

# The SL-to-VL rows a port reads back (smpquery sl2vl) that differ from WANT
# ("| 0| 1|...|"): a switch's into output port 1 from every other input port
# (not out of port 0: a base port 0 has no table of its own, IBA 14.2.5.8,
# plan/qos.h qos_has_data_vls), or a CA's port 1. No row at all counts as one bad.
sl2vl_bad() { # WANT LID
	sim_run "$sim" smpquery sl2vl "$2" 1 2>/dev/null |
		awk -v w="$1" '/^ports:/ { i = $3 + 0; o = $5 + 0
			row = $0; sub(/^[^|]*/, "", row)
			if (i != o) { bad += row != w; n++ } }
			END { print n ? bad + 0 : 1 }'
}

# A torus (auto routes it with vlayered): the routes the engine makes on the
# changed fabric (loom route --json on ibnetdiscover's view, which the tables
# read back equal) reach every pair with no loop and no credit loop on any of
# its VLs, and ports read back the engine's SL-to-VL map.
torus_check() { # TAG
	local tag=$1 bad=0 want lid vls
	"$LOOM" route --json --engine auto --guid2lid "$tmp/$sim.state/guid2lid" "$tmp/$tag.ibnd" \
		>"$tmp/$tag.json" 2>/dev/null
	tap_check "$tag: every pair delivered, no loop, no credit loop on any VL (loom route --json)" \
		test "$(jget "$tmp/$tag.json" 'r["unreachable"] == 0 and r["loops"] == 0 and r["cdg"]["acyclic"] and all(v["acyclic"] for v in r["vls"])')" = True ||
		tap_diag "$(head -c 600 "$tmp/$tag.json")"
	vls=$(jget "$tmp/$tag.json" 'r["vls_used"]')
	tap_diag "$tag: $(jget "$tmp/$tag.json" 'r["engine"]') uses $vls VLs"
	# One VL: the read-back tables' own channel dependencies must be acyclic.
	if [ "$vls" = 1 ]; then
		tap_check "$tag: one VL, dump_lfts read-back has no credit loop (loom verify --acyclic)" \
			"$LOOM" verify --acyclic "$tmp/$tag.ibnd" "$tmp/$tag.dump"
	fi
	want=$(jget "$tmp/$tag.json" '"|" + "|".join("%2d" % v for v in r["sl2vl"]) + "|"')
	for lid in $(awk 'match($0, / lid [0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5) }' \
		"$tmp/$tag.ibnd" | sort -un | head -n 6); do
		bad=$((bad + $(sl2vl_bad "$want" "$lid")))
	done
	tap_is "$tag: six ports read back the engine's SL->VL $want" "$bad" 0
}

ttopo=$srcdir/tests/topologies/torus2d-4x4.topo
log=$tmp/torus.log
sim=t
if sim_start t "$ttopo"; then
	sim_run t --timeout 600 --out "$log" "$LOOMD" --state-dir "$tmp/t.state" \
		-c "$tmp/loom.yaml" --sweep-interval 1 &
	bg=$!
	tap_check "torus: reaches SUBNET UP" log_wait -E "$log" 'heavy.*SUBNET UP' 30
	tap_check "torus: routed with vlayered" grep -q 'vlayered' "$log" ||
		tap_diag "$(grep -iE 'engine|rout' "$log" | head -n 5)"
	bringup=$(sed -nE 's/.*sweep 1 \(heavy\).* ([0-9]+) SMPs.*/\1/p' "$log")
	bringup=${bringup:-0}
	settle
	sim_run t dump_lfts >"$tmp/torus-bringup.dump" 2>/dev/null
	prev_dump=$tmp/torus-bringup.dump
	link=$(sim_topo_links "$ttopo" | awk -F'\t' '$1 ~ /^sw-/ && $3 ~ /^sw-/ { print $1 "\t" $2; exit }')
	IFS=$'\t' read -r sw port <<<"$link"
	event "torus: switch link down" trap "Unlink \"$sw\"[$port]"
	torus_check "torus: switch link down"
	event "torus: switch link up" trap "ReLink \"$sw\"[$port]"
	torus_check "torus: switch link up"
	# The last host: its LID may be the top one, which LinearFDBTop cuts.
	event "torus: last host link down" trap 'Unlink "h00016"[1]'
	event "torus: last host link up" trap 'ReLink "h00016"[1]'
	sim_signal t TERM
	rc=0
	wait "$bg" || rc=$?
	tap_is "torus: SIGTERM ends loomd with status 0" "$rc" 0
	sim_stop t
else
	tap_check "torus: simulator starts" false
fi

# The safety net: with sm.heavy-sweep-interval 2s, heavy sweeps come by
# themselves, with nothing changing (no trap, no light sweep's change).
printf 'sm:
  heavy-sweep-interval: 2s
' >"$tmp/net.yaml"
log=$tmp/net.log
if sim_start n "$topo"; then
	sim_run n --timeout 120 --out "$log" "$LOOMD" --state-dir "$tmp/n.state" -c "$tmp/net.yaml" \
		--sweep-interval 1 &
	bg=$!
	tap_check "safety net: heavy sweeps on the timer, nothing changing" \
		log_wait -E -n 3 "$log" 'sweep [0-9]+ \(heavy\).*SUBNET UP' 30
	tap_is "safety net: no targeted sweep" "$(count 'sweep [0-9]+ \(targeted\)')" 0
	sim_signal n TERM
	wait "$bg"
	sim_stop n
else
	tap_check "safety net: simulator starts" false
fi
tap_done
