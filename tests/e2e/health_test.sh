#!/bin/bash
# loom health on simulated fabrics, judged against infiniband-diags:
#   - fabrics brought up by a running loomd and by a running OpenSM (a fat
#     tree, a torus, two switches with parallel links): exit 0, no findings,
#     and iblinkinfo has no "Could be" (a link below what both ends enable);
#     but OpenSM's minhop on the torus: a credit loop on VL 0 (exit 1);
#   - a switch-to-switch link taken down (ibsim Unlink): with --expect the
#     file, exit 1 and the finding names both ends; iblinkinfo shows the port
#     Down with no peer;
#   - a second SM (OpenSM at another host): the sm group names it, with the
#     state and priority sminfo reads from it; --strict exits 1;
#   - a link one end holds back (width, speed enabled lower than its peer's):
#     exit 1, that end named, iblinkinfo shows the width; with the SM gone, a
#     link brought back stays in INIT: both ends named; no master: exit 2;
#   - a switch with another's GUID (dupguid.topo): the sm group names it;
#   - a malformed --expect file: FILE:LINE, exit 2.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/health.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topos=(ft2-k8 torus2d-4x4 parallel)

# Start an SM as a daemon against SIM (its PID in sm_pid, its log $tmp/TAG.sm.log);
# 0 once it says SUBNET UP.
sm_start() { # SIM TAG loomd|opensm [ARGS...]
	local sim=$1 tag=$2 which=$3
	shift 3
	if [ "$which" = loomd ]; then
		sim_run "$sim" --timeout 300 --out "$tmp/$tag.sm.log" "$LOOMD" \
			--state-dir "$tmp/$tag.state" --sweep-interval 2 "$@" &
	else
		sim_run "$sim" --timeout 300 --out "$tmp/$tag.sm.out" opensm -d2 \
			-F "$(sim_dir "$sim")/opensm.conf" -f "$tmp/$tag.sm.log" "$@" &
	fi
	sm_pid=$!
	log_wait "$tmp/$tag.sm.log" 'SUBNET UP' 60
}

# loom health ARGS against SIM: output in $tmp/TAG.out, status in $hrc.
health() { health_in "$2" "$1" "${@:3}"; } # TAG SIM ARGS...

for t in "${topos[@]}"; do
	topo=$srcdir/tests/topologies/$t.topo
	for sm in loomd opensm; do
		tag=$t-$sm sm_pid= sm2_pid=
		if ! sim_start S "$topo"; then
			tap_check "$tag: simulator starts" false
			continue
		fi
		tap_check "$tag: $sm brings the fabric up (SUBNET UP)" sm_start S "$tag" "$sm"
		# OpenSM's default engine (minhop) leaves credit loops on a torus: its
		# SA gives every path SL 0, which every switch maps to VL 0, so the
		# routes group (SLs from the SA, SL2VL tables from the switches) finds
		# a credit loop on VL 0, an error; `loom verify --acyclic` on its
		# dump_lfts agrees, and saquery shows SL 0.
		ne=0 es=s verdict=healthy
		[ "$tag" = torus2d-4x4-opensm ] && ne=1 es= verdict=problems
		health "$tag" S
		tap_is "$tag: loom health exits $ne" "$hrc" "$ne" ||
			tap_diag "$(head -n 8 "$tmp/$tag.out" "$tmp/$tag.err")"
		tap_is "$tag: the verdict says $verdict, $ne error$es, no warnings" \
			"$(head -n 1 "$tmp/$tag.out" | sed -E 's/: [0-9]+ nodes//')" \
			"loom health: $verdict; $ne error$es, 0 warnings"
		if [ "$ne" = 1 ]; then
			tap_check "$tag: the error is a credit loop judged on the SA's SLs and the SL2VL tables" \
				grep -qE '^error +routes +fabric: credit loop: .*judged on the SA.s SLs and the SL2VL tables' \
				"$tmp/$tag.out" || tap_diag "$(cat "$tmp/$tag.out")"
			sim_run S ibnetdiscover >"$tmp/$tag.ibnd" 2>/dev/null
			sim_run S dump_lfts >"$tmp/$tag.lfts" 2>/dev/null
			rc=0
			"$LOOM" verify --acyclic "$tmp/$tag.ibnd" "$tmp/$tag.lfts" >"$tmp/$tag.verify" \
				2>&1 || rc=$?
			tap_check "$tag: loom verify --acyclic on dump_lfts agrees: a credit loop" \
				grep -q 'credit loop' "$tmp/$tag.verify" ||
				tap_diag "rc $rc: $(head -n 10 "$tmp/$tag.verify")"
			sim_run S saquery PR >"$tmp/$tag.pr" 2>/dev/null
			tap_is "$tag: saquery PR: every path on SL 0" \
				"$(sed -nE 's/^[[:space:]]*sl\.+([0-9]+).*/\1/p' "$tmp/$tag.pr" | sort -u | tr '\n' ' ')" "0 " ||
				tap_diag "$(head -n 30 "$tmp/$tag.pr")"
		fi
		health "$tag.json" S --json --expect "$topo"
		tap_is "$tag: --json --expect: exit $ne, valid JSON, verdict $verdict, $ne finding$es" \
			"$hrc $(python3 -c 'import json, sys; d = json.load(sys.stdin)
print(d["verdict"], d["errors"], d["warnings"], len(d["findings"]))' <"$tmp/$tag.json.out")" \
			"$ne $verdict $ne 0 $ne"
		# iblinkinfo's "Could be 12X" compares with LinkWidthSupported; a link
		# trains to what both ends enable (ibsim: 4X, 2.5 Gbps), which loom judges.
		sim_run S iblinkinfo >"$tmp/$tag.iblinkinfo" 2>/dev/null
		tap_is "$tag: iblinkinfo agrees: every link is 4X 2.5 Gbps Active/LinkUp" \
			"$(grep '==>' "$tmp/$tag.iblinkinfo" | grep -v '==( *Down' |
				grep -cv '==( 4X  *2.5 Gbps Active/  LinkUp)==>')" 0
		sim_run S smpquery -D portinfo 0 >"$tmp/$tag.pi" 2>/dev/null
		tap_is "$tag: smpquery agrees: the ports enable 4X and 2.5 Gbps" \
			"$(sed -nE 's/^LinkWidthEnabled:\.+(.*)$/\1/p; s/^LinkSpeedEnabled:\.+(.*)$/\1/p' \
				"$tmp/$tag.pi" | tr '\n' ' ')" "4X 2.5 Gbps "
		if [ "$t" != ft2-k8 ] || [ "$sm" != loomd ]; then
			sim_signal S TERM
			wait "$sm_pid"
			sim_stop S 2>/dev/null
			continue
		fi

		# ---- a switch-to-switch link goes down --------------------------
		link=$(sim_topo_links "$topo" | awk -F'\t' '$1 ~ /spine/ { print; exit }')
		IFS=$'\t' read -r sw port peer pport <<<"$link"
		tap_check "$tag: Unlink \"$sw\"[$port]" sim_console S "Unlink \"$sw\"[$port]"
		health "$tag.unlink" S --expect "$topo"
		tap_is "$tag, link down: loom health --expect exits 1" "$hrc" 1 ||
			tap_diag "$(head -n 5 "$tmp/$tag.unlink.out")"
		tap_check "$tag, link down: the finding names \"$sw\" port $port and its peer \"$peer\" port $pport" \
			grep -qE "^error +links +\"$sw\" 0x[0-9a-f]{16} port $port: missing link: Down/Polling.*peer \"$peer\" 0x[0-9a-f]{16} port $pport" \
			"$tmp/$tag.unlink.out" || tap_diag "$(cat "$tmp/$tag.unlink.out")"
		tap_is "$tag, link down: one finding" "$(grep -cE '^(error|warning) ' "$tmp/$tag.unlink.out")" 1
		health "$tag.unlink.json" S --expect "$topo" --json
		tap_is "$tag, link down: --json has the finding's fields" \
			"$hrc $(python3 -c 'import json, sys; d = json.load(sys.stdin); f = d["findings"][0]
print(d["verdict"], f["group"], f["severity"], f["node_desc"], f["port"], f["what"], f["measured"])' \
				<"$tmp/$tag.unlink.json.out")" "1 problems links error $sw $port missing link Down/Polling"
		got=$(sim_links S | awk -F'\t' -v s="$sw" -v p="$port" '$1 == s && $2 == p { print $3 "/" $4 "/" $5 }')
		tap_is "$tag, link down: iblinkinfo agrees: $sw port $port is Down/Polling, no peer" \
			"$got" "Down/Polling/-"
		tap_check "$tag: ReLink \"$sw\"[$port]" sim_console S "ReLink \"$sw\"[$port]"

		# ---- a second SM at another host ----------------------------------
		host2=$(sim_topo_nodes "$topo" | awk -F'\t' '$1 == "Ca" { n++ } n == 2 { print $2; exit }')
		sim_run S --host "$host2" --timeout 300 --out "$tmp/osm2.out" opensm -d2 \
			-F "$(sim_dir S)/opensm.conf" -f "$tmp/osm2.log" &
		sm2_pid=$!
		tap_check "$tag: a second SM (OpenSM at $host2) enters STANDBY" \
			log_wait "$tmp/osm2.log" 'Entering STANDBY state' 60
		health "$tag.sm2" S --only sm
		tap_is "$tag, second SM: loom health --only sm exits 0 (a standby is a warning)" "$hrc" 0
		tap_check "$tag, second SM: the sm group names \"$host2\" STANDBY, priority 0" \
			grep -qE "^warning +sm +\"$host2\" 0x[0-9a-f]{16} port 1: other sm: STANDBY, priority 0" \
			"$tmp/$tag.sm2.out" || tap_diag "$(cat "$tmp/$tag.sm2.out")"
		lid2=$(sim_run S ibnetdiscover 2>/dev/null |
			sed -nE "s/.*# \"$host2\" lid ([0-9]+) .*/\1/p" | head -n 1)
		sim_run S sminfo "${lid2:-0}" >"$tmp/sminfo2" 2>&1
		tap_check "$tag, second SM: sminfo $lid2 agrees: priority 0, SMINFO_STANDBY" \
			grep -qE 'priority 0 state 2 SMINFO_STANDBY' "$tmp/sminfo2" ||
			tap_diag "$(cat "$tmp/sminfo2")"
		health "$tag.sm2s" S --only sm --strict
		tap_is "$tag, second SM: --strict exits 1" "$hrc" 1
		sim_signal S TERM
		wait "$sm_pid" "$sm2_pid"
		sim_stop S 2>/dev/null
	done
done

# ---- links held back by one end, ports stuck in INIT ---------------------------
# ibsim ignores a LinkWidthEnabled Set (ibportstate width), so the lowered
# width comes from the topology: swA port 3 enables 1X only, its peer 1X and
# 4X (ibsim refuses ends with no width in common); swA port 5 enables
# SDR-QDR, its peer (swB port 5) SDR only.
sed -E 's/^\[3\]\t"swB"\[3\]$/&\tw=1/; s/^\[3\]\t"swA"\[3\]$/&\tw=3/; s/^\[5\]\t"swB"\[5\]$/&\ts=7/' \
	"$srcdir/tests/topologies/parallel.topo" >"$tmp/slow.topo"
tag=slow sm_pid=
if sim_start L "$tmp/slow.topo"; then
	tap_check "$tag: loomd brings the fabric up (SUBNET UP)" sm_start L "$tag" loomd
	health "$tag" L
	tap_is "$tag: loom health exits 1" "$hrc" 1
	tap_check "$tag: swA port 3 is named: 1X, its peer enables 4X" \
		grep -qE '^error +links +"swA" 0x[0-9a-f]{16} port 3: width: 1X \(LinkWidthEnabled 0x1\), expected 4X' \
		"$tmp/$tag.out" || tap_diag "$(cat "$tmp/$tag.out")"
	tap_check "$tag: swB port 5 is named: SDR, its peer enables QDR" \
		grep -qE '^error +links +"swB" 0x[0-9a-f]{16} port 5: speed: SDR .*expected QDR' \
		"$tmp/$tag.out" || tap_diag "$(cat "$tmp/$tag.out")"
	tap_is "$tag: nothing else" "$(grep -cE '^(error|warning) ' "$tmp/$tag.out")" 2
	sim_run L iblinkinfo >"$tmp/$tag.iblinkinfo" 2>/dev/null
	tap_check "$tag: iblinkinfo agrees: swA port 3 runs 1X" \
		grep -qE '^ +[0-9]+ +3\[  \] ==\( 1X ' <(sed -n '/swA:$/,/^[A-Z]/p' "$tmp/$tag.iblinkinfo")

	# The SM goes; a link goes down and comes back: it stays in INIT.
	sim_signal L TERM
	wait "$sm_pid"
	tap_check "$tag: with no SM, Unlink and ReLink \"swB\"[4]" \
		sim_console L 'Unlink "swB"[4]' 'ReLink "swB"[4]'
	health "$tag.init" L --only links
	tap_is "$tag, INIT: loom health --only links exits 1" "$hrc" 1
	tap_is "$tag, INIT: both ends named, Initialize expected Active" \
		"$(grep -E '^error +links .*: state: Initialize, expected Active' "$tmp/$tag.init.out" |
			sed -E 's/^error +links +"([^"]+)" 0x[0-9a-f]{16} port ([0-9]+):.*/\1 \2/' | sort |
			tr '\n' ' ')" "swA 4 swB 4 "
	got=$(sim_links L | awk -F'\t' '$1 == "swB" && $2 == 4 { print $3 "/" $4 }')
	tap_is "$tag, INIT: iblinkinfo agrees: swB port 4 is Initialize/LinkUp" "$got" "Initialize/LinkUp"
	health "$tag.nosm" L
	tap_is "$tag, no SM: loom health exits 2 (cannot check)" "$hrc" 2
	tap_check "$tag, no SM: the verdict says so" grep -q '^loom health: cannot check' "$tmp/$tag.nosm.out"
	sim_stop L 2>/dev/null
else
	tap_check "$tag: simulator starts" false
fi

# ---- a duplicate GUID (ibsim -I: leaf004 has spine001's GUID) ----------------------
tag=dupguid sm_pid=
if sim_start G "$srcdir/tests/topologies/dupguid.topo" -I; then
	tap_check "$tag: loomd brings the fabric up (SUBNET UP)" sm_start G "$tag" loomd
	health "$tag" G
	tap_is "$tag: loom health exits 1" "$hrc" 1
	tap_check "$tag: the sm group names the duplicate GUID 0x0002c90300000001" \
		grep -qE '^error +sm +fabric: duplicate guid: .*duplicate GUID 0x0002c90300000001' \
		"$tmp/$tag.out" || tap_diag "$(cat "$tmp/$tag.out")"
	sim_signal G TERM
	wait "$sm_pid"
	sim_stop G 2>/dev/null
else
	tap_check "$tag: simulator starts" false
fi

# ---- bad input ----------------------------------------------------------------
printf 'Switch 4 "s1"\n[9] "nowhere"[1]\n' >"$tmp/bad.topo"
rc=0
"$LOOM" health --expect "$tmp/bad.topo" >"$tmp/bad.out" 2>&1 || rc=$?
tap_is "a malformed --expect file: exit 2" "$rc" 2
tap_check "a malformed --expect file: FILE:LINE on stderr" grep -q "bad.topo:2:" "$tmp/bad.out" ||
	tap_diag "$(cat "$tmp/bad.out")"
rc=0
"$LOOM" health --only nothing >/dev/null 2>&1 || rc=$?
tap_is "--only with an unknown group: exit 2" "$rc" 2
rc=0
"$LOOM" health --help >"$tmp/help.out" 2>/dev/null || rc=$?
tap_is "--help: exit 0, usage on stdout" "$rc $(head -c 18 "$tmp/help.out")" "0 usage: loom health"

tap_done
