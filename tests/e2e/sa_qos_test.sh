#!/bin/bash
# The SA's SL2VLMappingTableRecords and VLArbitrationTableRecords against the
# ports themselves: loomd programs SL-to-VL and VL arbitration tables on every
# port whatever loom.yaml says (without a qos: section, the default classes:
# SL n -> VL n modulo the VLs a port runs), and its SA answers them. On each
# fabric, `saquery SL2VL` and `saquery VLAR` (every record) must be, record
# for record, what `smpquery sl2vl` and `smpquery vlarb` read off every port
# that ibnetdiscover lists:
#   - a switch: one SL2VL record per (input, output) pair of its linked ports
#     and port 0, input != output, but none out of port 0 (ibsim's switches
#     have a base port 0, which has no table as an output port: IBA
#     14.2.5.8, plan/qos.h qos_has_data_vls); VLArb low (block 1) and high
#     (block 3) of each linked port;
#   - a CA port: its one SL2VL table (input and output 0), its VLArb blocks;
# and the LID / LID/in/out / LID/port/block filters give exactly their part.
# The bring-up sets those tables without reading them (the fabric is fresh:
# fabric/prog_cache.c, prog_fresh_nodes()). A second heavy sweep (loom
# sweep --heavy) then sends no QoS block. After
# events, QoS blocks are read again only where a node may have lost them:
# not after a switch link bounce, nor for a leaf and its hosts back from
# behind their uplinks (until the next whole sweep), but for a host whose
# link went Down and back, and for a CA another SM set up (its
# MasterSMLID), whose blocks the next heavy sweep reads.
# Fabrics: a 2-level fat tree (k=4) with no loom.yaml at all (ftree: no SLs),
# the same with the shipped contrib/loom.yaml (its qos: classes), and a
# 5x3 torus with an empty loom.yaml (auto: vlayered, its SL-to-VL map over
# two VLs).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim saquery smpquery ibnetdiscover
need_rig librmpp_shim.so librmpp_tail.so
SQ_MS=20000

# sq TAG ARGS...: saquery under the shim into $tmp/$T.TAG.out; its status.
sq() {
	local tag=$1
	shift
	SIM_RMPP=1 sim_run q --timeout 60 saquery -t "$SQ_MS" "$@" >"$tmp/$T.$tag.out" \
		2>"$tmp/$T.$tag.err"
}

# The ports ibnetdiscover lists: "S LID PORT" for each switch's port 0 and
# linked ports (all on the switch's LID), "C LID PORT" for each CA port.
ports_of() { # IBND-FILE
	awk '/^Switch/ { sw = 1; match($0, /base port 0 lid [0-9]+/)
			lid = substr($0, RSTART + 16, RLENGTH - 16); print "S", lid, 0; next }
		/^Ca/ { sw = 0; next }
		/^\[/ { p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p)
			if (sw) { print "S", lid, p; next }
			if (match($0, /# lid [0-9]+/)) print "C", substr($0, RSTART + 6, RLENGTH - 6), p }' "$1"
}

# What smpquery reads, in the same form, for every port ports_of lists.
smp_tables() { # PORTS-FILE SL2VL-OUT VLARB-OUT
	local kind lid port ins
	: >"$2"
	: >"$3"
	while read -r kind lid port; do
		if [ "$kind" = C ]; then # a CA's tables: its LID alone
			sim_run q smpquery sl2vl "$lid" 2>/dev/null |
				awk -v l="$lid" -v sw=0 -v ins=" 0 " "$SMP_ROWS" >>"$2"
			sim_run q smpquery vlarb "$lid" 2>/dev/null |
				awk -v l="$lid" -v p="$port" "$SMP_ARB" >>"$3"
			continue
		fi
		ins=" $(awk -v l="$lid" '$1 == "S" && $2 == l { print $3 }' "$1" | tr '\n' ' ')"
		# Out of a base port 0 there is no table (ibsim answers one anyway, the
		# same storage it keeps for any port): compared only as an input port.
		[ "$port" = 0 ] && continue
		sim_run q smpquery sl2vl "$lid" "$port" 2>/dev/null |
			awk -v l="$lid" -v sw=1 -v ins="$ins" "$SMP_ROWS" >>"$2"
		sim_run q smpquery vlarb "$lid" "$port" 2>/dev/null |
			awk -v l="$lid" -v p="$port" "$SMP_ARB" >>"$3"
	done <"$1"
	LC_ALL=C sort -o "$2" "$2"
	LC_ALL=C sort -o "$3" "$3"
}

# The lines of FILE after its first N.
after() { tail -n +"$(($2 + 1))" "$1"; }
# Wait (20 s at most) until FILE has a line matching RE after its first N.
wait_after() { # FILE N RE
	local i
	for ((i = 0; i < 200; i++)); do
		after "$1" "$2" | grep -qE -- "$3" && return 0
		sleep 0.1
	done
	return 1
}

# loom sweep --heavy, its line in the caller's line, the log's length before it in n.
heavy_now() {
	n=$(wc -l <"$tmp/$T.log")
	line=$("$LOOM" sweep --heavy --timeout 120 --control "$tmp/$T.ctl" 2>&1)
	tap_diag "$line"
	sleep 1 # the sweep's debug lines
}

# A leaf's uplinks all down, then back: the leaf and its hosts were cut
# off, not reset (their own links stayed Active, their LIDs and MasterSMLID
# as loomd set them), so the targeted sweeps that find them back read none
# of their QoS blocks again (fabric/prog_cache.c), and smpquery and saquery
# read the same tables as before; the next whole sweep (loom sweep --heavy,
# the safety net) reads the leaf's and its hosts' blocks again, finding
# them right. Fat trees only (a leaf with uplinks to spines).
leaf_back() { # TOPO
	local -a up
	local leaf n line
	mapfile -t up < <(sim_topo_links "$1" | awk -F'\t' '$1 ~ /leaf/ && $3 ~ /spine/ {
		if ($1 != l) s = ""; l = $1; s = s "\"" $1 "\"[" $2 "]\n" } END { printf "%s", s }')
	[ ${#up[@]} -gt 1 ] || return 0
	leaf=${up[0]#\"}
	leaf=${leaf%%\"*}
	n=$(wc -l <"$tmp/$T.log")
	sim_console q "${up[@]/#/Unlink }"
	tap_check "$T: \"$leaf\" with its uplinks down is gone" \
		wait_after "$tmp/$T.log" "$n" "event: node gone: switch .*\"$leaf\""
	sleep 1
	n=$(wc -l <"$tmp/$T.log")
	sim_console q "${up[@]/#/ReLink }"
	tap_check "$T: ... and back with them up" \
		wait_after "$tmp/$T.log" "$n" "event: node new: switch .*\"$leaf\""
	sleep 2
	# The sweep's phases line comes after its event lines (20 s at most).
	wait_after "$tmp/$T.log" "$n" 'heavy sweep: .*LFTs'
	tap_diag "$(after "$tmp/$T.log" "$n" | grep -E 'sweep [0-9]+ \(|sweep: ')"
	tap_check "$T: the sweeps that find \"$leaf\" back are targeted ones, that route and program" \
		test -n "$(after "$tmp/$T.log" "$n" | grep -E 'heavy sweep: .*LFTs')" -a \
		-z "$(after "$tmp/$T.log" "$n" | grep -E 'sweep [0-9]+ \(heavy\)')"
	tap_check "$T: ... and read no QoS block of it or its hosts again" \
		test -z "$(after "$tmp/$T.log" "$n" | grep -E 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)')"
	tap_check "$T: ... nor a P_Key block (a targeted sweep trusts what it knows of block 0)" \
		test -z "$(after "$tmp/$T.log" "$n" | grep -E 'sweep: .*P_Keys [0-9]+ ms \([1-9][0-9]* SMPs\)')"
	smp_tables "$tmp/$T.ports" "$tmp/$T.back.sl2vl" "$tmp/$T.back.vlarb"
	tap_check "$T: smpquery reads the same SL2VL and VLArb tables as before" \
		test -s "$tmp/$T.back.sl2vl" -a -z "$(diff "$tmp/$T.smp.sl2vl" "$tmp/$T.back.sl2vl")" -a \
		-z "$(diff "$tmp/$T.smp.vlarb" "$tmp/$T.back.vlarb")" ||
		tap_diag "$(diff "$tmp/$T.smp.sl2vl" "$tmp/$T.back.sl2vl" | head -n 6)"
	sq back SL2VL
	tap_check "$T: ... and saquery SL2VL answers them" \
		test -z "$(diff "$tmp/$T.back.sl2vl" <(sa_sl2vl "$tmp/$T.back.out"))"
	heavy_now
	tap_check "$T: the next whole sweep reads them again" \
		grep -qE 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <(after "$tmp/$T.log" "$n")
	tap_check "$T: ... and finds them right (0 QoS blocks sent, no P_Key block)" \
		test -n "$(grep -E '^sweep [0-9]+ \(heavy\): .* 0 QoS blocks' <<<"$line" |
			grep -vE ' [1-9][0-9]* P_Key blocks')"
}

# The MasterSMLID (PortInfo:SMLid) of port 1 of the CA with LID L.
smlid_of() { # L
	sim_run q smpquery portinfo "$1" 1 2>/dev/null | sed -nE 's/^SMLid:\.*([0-9]+)$/\1/p'
}

# A CA set up by another SM (ibportstate points its MasterSMLID elsewhere,
# as an SM that took it over would): the next heavy sweep reads its QoS
# blocks again (a second heavy sweep reads none otherwise) and points it
# back at loomd.
other_sm() { # CA-LID
	local n line was
	was=$(smlid_of "$1")
	sim_run q ibportstate "$1" 1 smlid 99 >/dev/null 2>&1
	tap_is "$T: ibportstate points LID $1's MasterSMLID at 99 (loomd's: $was)" "$(smlid_of "$1")" 99
	heavy_now
	tap_check "$T: the next heavy sweep reads that CA's QoS blocks again" \
		grep -qE 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <(after "$tmp/$T.log" "$n")
	tap_is "$T: ... and points it back at loomd" "$(smlid_of "$1")" "$was"
}

check_case() { # TOPO LOOMD-ARGS...
	local topo=$1 rc line ca sw in out n i port sm
	shift
	if ! sim_start q "$topo"; then
		tap_check "$T: simulator starts" false
		return
	fi
	SIM_RMPP=1 sim_run q --timeout 600 --out "$tmp/$T.log" "$LOOMD" -v --state-dir "$tmp/$T.state" \
		--control "$tmp/$T.ctl" --sweep-interval 60 "$@" &
	local pid=$!
	if ! tap_check "$T: loomd reaches SUBNET UP" log_wait "$tmp/$T.log" 'SUBNET UP'; then
		tap_diag "$(tail -n 5 "$tmp/$T.log")"
		sim_stop q
		return
	fi
	tap_diag "$(grep -m1 'sweep 1 ' "$tmp/$T.log")"
	# A fresh fabric: the tables judged below were set without a read (prog_qos.c).
	tap_check "$T: the bring-up set the QoS blocks unread, as on any fresh fabric" \
		grep -q 'QoS tables: [1-9][0-9]* blocks set without a read' "$tmp/$T.log"
	sim_run q ibnetdiscover >"$tmp/$T.ibnd" 2>/dev/null
	ports_of "$tmp/$T.ibnd" >"$tmp/$T.ports"
	tap_check "$T: ibnetdiscover lists switch and CA ports ($(wc -l <"$tmp/$T.ports"))" \
		test "$(grep -c '^S' "$tmp/$T.ports")" -gt 4 -a "$(grep -c '^C' "$tmp/$T.ports")" -gt 4

	sq sl2vl SL2VL
	sa_sl2vl "$tmp/$T.sl2vl.out" >"$tmp/$T.sa.sl2vl"
	sq vlar VLAR
	sa_vlarb "$tmp/$T.vlar.out" >"$tmp/$T.sa.vlarb"
	smp_tables "$tmp/$T.ports" "$tmp/$T.smp.sl2vl" "$tmp/$T.smp.vlarb"
	tap_check "$T: saquery SL2VL: a record for every port pair, each what smpquery sl2vl reads ($(wc -l <"$tmp/$T.smp.sl2vl") tables)" \
		test -s "$tmp/$T.smp.sl2vl" -a -z "$(diff "$tmp/$T.smp.sl2vl" "$tmp/$T.sa.sl2vl")" ||
		tap_diag "$(diff "$tmp/$T.smp.sl2vl" "$tmp/$T.sa.sl2vl" | head -n 6; head -n 3 "$tmp/$T.sl2vl.err")"
	tap_check "$T: saquery VLAR: low and high blocks of every linked port, as smpquery vlarb reads them ($(wc -l <"$tmp/$T.smp.vlarb") blocks)" \
		test -s "$tmp/$T.smp.vlarb" -a -z "$(diff "$tmp/$T.smp.vlarb" "$tmp/$T.sa.vlarb")" ||
		tap_diag "$(diff "$tmp/$T.smp.vlarb" "$tmp/$T.sa.vlarb" | head -n 6; head -n 3 "$tmp/$T.vlar.err")"

	# The filters saquery takes: exactly the records they select.
	ca=$(awk '$1 == "C" { print $2; exit }' "$tmp/$T.ports")
	read -r sw in out < <(awk '$1 == "S" && $3 > 0 { print $2, 0, $3; exit }' "$tmp/$T.ports")
	sq f1 SL2VL "$ca"
	tap_is "$T: saquery SL2VL $ca (a CA's LID): its one table" "$(sa_sl2vl "$tmp/$T.f1.out")" \
		"$(awk -v l="$ca" '$1 == l' "$tmp/$T.smp.sl2vl")"
	sq f2 SL2VL "$sw/$in/$out"
	tap_is "$T: saquery SL2VL $sw/$in/$out: that pair's table" "$(sa_sl2vl "$tmp/$T.f2.out")" \
		"$(awk -v l="$sw" -v i="$in" -v o="$out" '$1 == l && $2 == i && $3 == o' "$tmp/$T.smp.sl2vl")"
	sq f3 SL2VL "$sw"
	n=$(awk -v l="$sw" '$1 == l' "$tmp/$T.smp.sl2vl" | wc -l)
	tap_check "$T: saquery SL2VL $sw (a switch's LID): its $n pairs" \
		test "$(sa_sl2vl "$tmp/$T.f3.out")" = "$(awk -v l="$sw" '$1 == l' "$tmp/$T.smp.sl2vl")" -a "$n" -gt 4
	sq f4 VLAR "$sw/$out/3"
	tap_is "$T: saquery VLAR $sw/$out/3: that port's high block" "$(sa_vlarb "$tmp/$T.f4.out")" \
		"$(awk -v l="$sw" -v p="$out" '$1 == l && $2 == p && $3 == 3' "$tmp/$T.smp.vlarb")"
	sq f5 VLAR "$ca"
	tap_is "$T: saquery VLAR $ca: the CA port's two blocks" "$(sa_vlarb "$tmp/$T.f5.out")" \
		"$(awk -v l="$ca" '$1 == l' "$tmp/$T.smp.vlarb")"

	# Programmed once: a second heavy sweep finds every table as it should be.
	line=$("$LOOM" sweep --heavy --timeout 120 --control "$tmp/$T.ctl" 2>&1)
	tap_diag "$line"
	tap_check "$T: a second heavy sweep sends 0 QoS blocks" grep -qE '^sweep [0-9]+ \(heavy\): .* 0 QoS blocks' <<<"$line"
	# ... and reads none either: the tables are known from the first (the cache).
	sleep 1
	line=$(grep 'heavy sweep: ' "$tmp/$T.log" | tail -n 1)
	tap_diag "$line"
	tap_check "$T: the first heavy sweep reads or sends QoS blocks" \
		grep -qE 'QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <(grep -m1 'heavy sweep: ' "$tmp/$T.log")
	tap_check "$T: a second heavy sweep reads no QoS block either (0 SMPs)" \
		test -n "$line" -a -z "$(grep -E 'QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <<<"$line")"
	# A switch link bounce leaves the switches' tables as they were: read
	# nothing again (loomd/sweep.c forget_reset; only a whole reset does).
	read -r sw port < <(awk -F'\t' 'NR == FNR { if ($1 == "Switch") s[$2] = 1; next }
		($1 in s) && ($3 in s) { print $1 "\t" $2; exit }' <(sim_topo_nodes "$topo") \
		<(sim_topo_links "$topo") | tr '\t' ' ')
	n=$(wc -l <"$tmp/$T.log")
	sim_console q "Unlink \"$sw\"[$port]" && sleep 0.5 && sim_console q "ReLink \"$sw\"[$port]"
	sleep 0.5
	line=$("$LOOM" sweep --heavy --timeout 120 --control "$tmp/$T.ctl" 2>&1)
	tap_diag "$line"
	sleep 1
	tap_check "$T: after a bounce of \"$sw\"[$port], no QoS block is read again" \
		test -z "$(tail -n +"$((n + 1))" "$tmp/$T.log" | grep -E 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)')"
	# A host whose link goes Down and back (as a reboot does: its port
	# comes back Init, its tables may be lost): the targeted sweep that
	# finds it back reads its CA's blocks again (ibsim keeps them: found
	# right, not sent), before any whole sweep.
	read -r sw port < <(awk -F'\t' 'NR == FNR { if ($1 == "Switch") s[$2] = 1; next }
		($1 in s) && !($3 in s) { l = $1 "\t" $2 } END { print l }' <(sim_topo_nodes "$topo") \
		<(sim_topo_links "$topo") | tr '\t' ' ')
	n=$(wc -l <"$tmp/$T.log")
	sim_console q "Unlink \"$sw\"[$port]"
	wait_after "$tmp/$T.log" "$n" 'event: (node gone: CA|link down: .* CA)'
	sim_console q "ReLink \"$sw\"[$port]"
	wait_after "$tmp/$T.log" "$n" 'event: (node new: CA|link up: .* CA)'
	sleep 1
	# The sweep's phases line comes after its event lines (20 s at most).
	wait_after "$tmp/$T.log" "$n" 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)'
	tap_diag "$(after "$tmp/$T.log" "$n" | grep -E 'sweep [0-9]+ \(')"
	tap_check "$T: after the host behind \"$sw\"[$port] went Down and came back, a targeted sweep reads its QoS blocks again" \
		grep -qE 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <(after "$tmp/$T.log" "$n")
	tap_check "$T: ... and leaves them as they were (0 QoS blocks sent)" \
		test -z "$(after "$tmp/$T.log" "$n" | grep -E 'sweep [0-9]+ \(' | grep -vE ' 0 QoS blocks')"
	if grep -q 'P_Key blocks' <(after "$tmp/$T.log" "$n"); then
		tap_check "$T: ... and its P_Key block too" \
			grep -qE 'sweep: .*P_Keys [0-9]+ ms \([1-9][0-9]* SMPs\)' <(after "$tmp/$T.log" "$n")
	fi
	leaf_back "$topo"
	# A CA other than loomd's own (whose LID is the MasterSMLID of all).
	sm=$(smlid_of "$(awk '$1 == "C" { print $2; exit }' "$tmp/$T.ports")")
	other_sm "$(awk -v sm="$sm" '$1 == "C" && $2 != sm { print $2; exit }' "$tmp/$T.ports")"
	rc=0
	sim_signal q TERM 2>/dev/null
	wait "$pid" || rc=$?
	tap_is "$T: loomd stops on SIGTERM with status 0" "$rc" 0
	sim_stop q
}

ft=$tmp/ft2-k4.topo torus=$tmp/torus5x3.topo
"${PYTHON3:-python3}" "$srcdir/contrib/topogen.py" fattree2 -k 4 -o "$ft"
# 5x3: the smallest torus that vlayered layers on 2 VLs (on 3x3 and 4x4 one does).
"${PYTHON3:-python3}" "$srcdir/contrib/topogen.py" torus2d -x 5 -y 3 -o "$torus"
: >"$tmp/empty.yaml"

# No loom.yaml at all: no -c, and none at the default path on a test machine.
T=no-file
check_case "$ft"
# The default classes: SL n -> VL n % VLs, out of every port (ibsim runs VL0-7).
sw_lids=" $(awk '$1 == "S" { print $2 }' "$tmp/$T.ports" | sort -u | tr '\n' ' ')"
tap_is "$T: the default map: SL n on VL n % 8 out of every port (ibsim runs VL0-7)" \
	"$(cut -d' ' -f4 "$tmp/$T.smp.sl2vl" | sort -u)" "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"
# Base port 0: no record out of it, one from it into every other linked port.
tap_is "$T: saquery SL2VL: no record out of a switch's base port 0" \
	"$(awk -v s="$sw_lids" 'index(s, " " $1 " ") && $3 == 0' "$tmp/$T.sa.sl2vl" | wc -l)" 0
tap_is "$T: ... and one from it into each linked port of each switch" \
	"$(awk -v s="$sw_lids" 'index(s, " " $1 " ") && $2 == 0' "$tmp/$T.sa.sl2vl" | wc -l)" \
	"$(awk '$1 == "S" && $3 > 0' "$tmp/$T.ports" | wc -l)"
# The dry run without --config says the same: loom route --qos takes the defaults too
# (and lists no base port 0, which has no table out of it: qos_port0_test.sh).
tap_is "$T: loom route --qos (no --config): the same SL-to-VL tables" \
	"$("$LOOM" route --qos "$ft" 2>/dev/null |
		sed -nE 's/.* sl2vl ([0-9,]+) .*/\1/p' | sort -u)" \
	"$(cut -d' ' -f4 "$tmp/$T.smp.sl2vl" | sort -u)"

T=contrib
check_case "$ft" -c "$srcdir/contrib/loom.yaml"
tap_check "$T: the CA class's map, as contrib/loom.yaml gives it" \
	grep -q ' 0 0 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3$' "$tmp/$T.sa.sl2vl"

T=vlayered
check_case "$torus" -c "$tmp/empty.yaml"
tap_check "$T: auto routed the torus with vlayered" grep -q 'routed with vlayered$' "$tmp/$T.log"
# The engine's map (SL n -> VL n, as many as it layers) wins over the default classes'.
tap_diag "$T: SL-to-VL rows read: $(cut -d' ' -f4 "$tmp/$T.smp.sl2vl" | sort | uniq -c | tr '\n' ';')"
tap_check "$T: the routes' VLs: SL 1 on VL 1 between switches" \
	test "$(awk '$2 > 0 && $3 > 0 { split($4, v, ","); print v[2] }' "$tmp/$T.smp.sl2vl" |
		sort -u)" = 1
tap_done
