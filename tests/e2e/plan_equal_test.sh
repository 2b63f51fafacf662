#!/bin/bash
# One plan: `loom route` builds from a topology file the plan that loomd's
# sweep builds from the live fabric (both call plan_build), so what the dry
# run prints is what loomd programs. loomd brings the simulated fabric up with
# partitions and QoS classes; then every port's P_Key table, OperationalVLs,
# SL-to-VL table and VL arbitration entries are read back with smpquery and
# compared with `loom route --pkeys --qos`, and every LFT with dump_lfts
# against `loom route --guid2lid` (loomd's state file: the same LIDs).
# Classes with different VL counts per port class; vlayered on a torus checks
# the engine's SL-to-VL map, which wins over the classes'.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topos=$srcdir/tests/topologies

cat >"$tmp/loom.yaml" <<'YAML'
partitions:
  - name: default
    ipoib: true
    members: [ self, all-switches, { group: all-cas, membership: limited } ]
  - name: compute
    pkey: 0x0010
    members: [ all-cas ]
  - name: odd
    pkey: 0x0030
    members: [ { node: h00001 }, { node: h00003 } ]
qos:
  ca:
    operational-vls: 4
    sl2vl: [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]
    vlarb-high: [0:255]
    vlarb-low: [0:32, 1:64, 2:96, 3:128]
  switch-external:
    operational-vls: 2
    sl2vl: [1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1]
    vlarb-low: [0:16, 1:200]
YAML

# "NODEGUID PORT LID" for every port, from ibnetdiscover (a switch answers on its base LID).
port_lids() { # NAME
	sim_run "$1" ibnetdiscover 2>/dev/null | awk '
		/^(Switch|Ca)/ { g = $0; sub(/.*"[SH]-/, "", g); sub(/".*/, "", g); sw = $1 == "Switch"
			lid = ""; if (sw && match($0, /base port 0 lid [0-9]+/))
				lid = substr($0, RSTART + 16, RLENGTH - 16)
			if (sw) print "0x" g, 0, lid }
		/^\[/ { p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p); l = lid
			if (!sw && match($0, /# lid [0-9]+/)) l = substr($0, RSTART + 6, RLENGTH - 6)
			print "0x" g, p, l }'
}

# smpquery's rows as the dry run writes them: "0,1,2,..." and "VL:WEIGHT,...".
sl2vl_row() { # NAME LID [PORT]: the SL-to-VL row of output port PORT (an input port's row)
	sim_run "$1" smpquery sl2vl "$2" ${3:+"$3"} 2>/dev/null |
		awk -v o="${3:-}" '/^ports: in/ { in_p = $3 + 0; if (o != "" && in_p == o + 0) next
			r = $0; sub(/.*:/, "", r); sub(/^ *\|/, "", r)
			sub(/\| *$/, "", r); gsub(/ /, "", r); gsub(/\|/, ",", r); print r; exit }'
}
vlarb_row() { # NAME LID PORT-OR-EMPTY Low|High N: "VL:WEIGHT,..." of the first N entries
	local vl w i out=
	read -ra vl < <(sim_run "$1" smpquery vlarb "$2" ${3:+"$3"} 2>/dev/null |
		sed -n "/^# $4 priority/,/^# /{s/^VL *: *//p}" | tr '|' ' ')
	read -ra w < <(sim_run "$1" smpquery vlarb "$2" ${3:+"$3"} 2>/dev/null |
		sed -n "/^# $4 priority/,/^# /{s/^WEIGHT: *//p}" | tr '|' ' ')
	for ((i = 0; i < $5; i++)); do
		out+="${out:+,}$((${vl[i]:-0})):$((${w[i]:-0}))"
	done
	echo "$out"
}
opvls() { # NAME LID [PORT]: OperationalVLs as a count
	sim_run "$1" smpquery portinfo "$2" ${3:+"$3"} 2>/dev/null |
		sed -n 's/^OperVLs:\.*VL0-\([0-9]*\)/\1/p' | awk '{ print $1 + 1 }'
}
pkeys_of() { # NAME LID [PORT]
	sim_run "$1" smpquery pkeys "$2" ${3:+"$3"} 2>/dev/null | grep -oE '0x[0-9a-f]{4}' |
		grep -v '^0x0000$' | tr '\n' ' ' | sed 's/ $//'
}

check_fabric() { # NAME TOPO ENGINE
	local name=$1 topo=$2 engine=$3 tag rc line g p lid keys cls vls row hi lo
	local bad_pk=0 bad_vls=0 bad_sl=0 bad_arb=0 n_pk=0 n_q=0
	tag="$(basename "$topo") $engine"
	if ! sim_start "$name" "$topo"; then
		tap_check "$tag: simulator starts" false
		return
	fi
	rc=0
	sim_run "$name" --timeout 120 "$LOOMD" --once --routing "$engine" -c "$tmp/loom.yaml" \
		--state-dir "$tmp/$name" >"$tmp/$name.log" 2>&1 || rc=$?
	tap_is "$tag: loomd --once with partitions and QoS exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 5 "$tmp/$name.log")"
	"$LOOM" route --engine "$engine" --guid2lid "$tmp/$name/guid2lid" --config "$tmp/loom.yaml" \
		--pkeys --qos "$topo" >"$tmp/$name.dry" 2>"$tmp/$name.dry.err"
	tap_is "$tag: loom route --pkeys --qos exits 0" "$?" 0 || tap_diag "$(cat "$tmp/$name.dry.err")"
	port_lids "$name" >"$tmp/$name.lids"
	tap_check "$tag: every port's LID from ibnetdiscover" test -s "$tmp/$name.lids"

	# P_Keys: "TYPE GUID "DESC" port N[ enforce]: KEYS"
	while IFS= read -r line; do
		[[ $line =~ ^[A-Za-z]+\ (0x[0-9a-f]+)\ \".*\"\ port\ ([0-9]+)(\ enforce)?:\ (.*)$ ]] || continue
		g=${BASH_REMATCH[1]} p=${BASH_REMATCH[2]} keys=${BASH_REMATCH[4]}
		lid=$(awk -v g="$g" -v p="$p" '$1 == g && $2 == p { print $3 }' "$tmp/$name.lids")
		n_pk=$((n_pk + 1))
		[ "$p" = 0 ] && p= # a switch's own port: its LID alone
		[ "$(pkeys_of "$name" "$lid" $p)" = "$keys" ] ||
			{ bad_pk=$((bad_pk + 1)); tap_diag "P_Keys differ: $line; read back: $(pkeys_of "$name" "$lid" $p)"; }
	done <"$tmp/$name.dry"
	tap_check "$tag: every port's P_Key table as the dry run says ($n_pk ports)" \
		test "$bad_pk" -eq 0 -a "$n_pk" -gt 10

	# QoS: "TYPE GUID "DESC" port N [CLASS]: vls V sl2vl ROW vlarb-high H vlarb-low L"
	while IFS= read -r line; do
		[[ $line =~ ^([A-Za-z]+)\ (0x[0-9a-f]+)\ \".*\"\ port\ ([0-9]+)\ \[([a-z0-9-]+)\]:\ vls\ ([0-9]+)\ sl2vl\ ([0-9,]+)\ vlarb-high\ ?([0-9:,]*)\ vlarb-low\ ?([0-9:,]*)$ ]] || continue
		g=${BASH_REMATCH[2]} p=${BASH_REMATCH[3]} cls=${BASH_REMATCH[4]} vls=${BASH_REMATCH[5]}
		row=${BASH_REMATCH[6]} hi=${BASH_REMATCH[7]} lo=${BASH_REMATCH[8]}
		lid=$(awk -v g="$g" -v p="$p" '$1 == g && $2 == p { print $3 }' "$tmp/$name.lids")
		n_q=$((n_q + 1))
		# A CA's tables are addressed by its LID alone; a switch's by LID and port.
		local port=$p
		[ "${BASH_REMATCH[1]}" = CA ] && port=
		# A switch's port 0 has no link (IBA 14.2.5.6): loomd leaves its OperationalVLs.
		[ "$cls" = switch-port0 ] || [ "$(opvls "$name" "$lid" $port)" = "$vls" ] ||
			{ bad_vls=$((bad_vls + 1)); tap_diag "OperationalVLs differ: $line"; }
		# Every port listed has data VLs (a base port 0 is not listed: qos_port0_test.sh).
		if [ "$(sl2vl_row "$name" "$lid" $port)" != "$row" ]; then
			bad_sl=$((bad_sl + 1))
			tap_diag "SL2VL differs: $line; read back: $(sl2vl_row "$name" "$lid" $port)"
		fi
		local n_hi n_lo
		n_hi=$(tr ',' '\n' <<<"$hi" | grep -c .) n_lo=$(tr ',' '\n' <<<"$lo" | grep -c .)
		if [ "$n_hi" -gt 0 ] && [ "$(vlarb_row "$name" "$lid" "$port" High "$n_hi")" != "$hi" ]; then
			bad_arb=$((bad_arb + 1)); tap_diag "VLArb high differs: $line"
		fi
		if [ "$n_lo" -gt 0 ] && [ "$(vlarb_row "$name" "$lid" "$port" Low "$n_lo")" != "$lo" ]; then
			bad_arb=$((bad_arb + 1)); tap_diag "VLArb low differs: $line"
		fi
	done <"$tmp/$name.dry"
	tap_check "$tag: the dry run lists QoS for the ports ($n_q)" test "$n_q" -gt 10
	tap_is "$tag: every port's OperationalVLs as the dry run says" "$bad_vls" 0
	tap_is "$tag: every port's SL-to-VL table as the dry run says" "$bad_sl" 0
	tap_is "$tag: every port's VL arbitration entries as the dry run says" "$bad_arb" 0

	# LFTs, with loomd's LIDs: dump_lfts against the dry run, in canonical form.
	sim_run "$name" ibnetdiscover >"$tmp/$name.ibnd" 2>/dev/null
	sim_run "$name" dump_lfts >"$tmp/$name.lfts" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.fabric" 2>/dev/null
	"$LOOM" route --canon --engine "$engine" --guid2lid "$tmp/$name/guid2lid" \
		--config "$tmp/loom.yaml" "$topo" >"$tmp/$name.canon" 2>/dev/null
	tap_check "$tag: every LFT as the dry run says (dump_lfts)" \
		diff -u "$tmp/$name.fabric" "$tmp/$name.canon"
	# MFTs: the plan's groups are the partitions' IPoIB broadcast groups, which
	# have no member until a host joins through the SA (mcast_test.sh): no
	# switch forwards any MLID yet, in the plan as on the fabric.
	sim_run "$name" dump_mfts >"$tmp/$name.mfts" 2>/dev/null
	tap_check "$tag: MFTs as planned: every switch read, no MLID forwarded (dump_mfts)" \
		test "$(grep -c '^0 valid mlids dumped' "$tmp/$name.mfts")" -eq \
		"$(grep -c '^Multicast mlids' "$tmp/$name.mfts")" -a \
		"$(grep -c '^Multicast mlids' "$tmp/$name.mfts")" -gt 0
	sim_stop "$name"
}

check_fabric ft "$topos/ft2-k8.topo" minhop
check_fabric tor "$topos/torus2d-4x4.topo" vlayered
tap_done
