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
#     14.2.5.8, plan/qos.h qos_sl2vl_out); VLArb low (block 1) and high
#     (block 3) of each linked port;
#   - a CA port: its one SL2VL table (input and output 0), its VLArb blocks;
# and the LID / LID/in/out / LID/port/block filters give exactly their part.
# The bring-up sets those tables without reading them (the fabric is fresh:
# fabric/prog_cache.c, prog_fresh_nodes()). A second heavy sweep (loom
# sweep --heavy) then sends no QoS block.
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

# saquery's records as "LID IN OUT VL0,...,VL15" and "LID PORT BLOCK VL:W,..." (the
# first 8 entries: ibsim's ports have room for 8 of each priority, smpquery shows those).
sa_sl2vl() { # FILE
	awk '/dump:$/ { lid = ""; next }
		/LID\.+/ { v = $0; sub(/.*\.+/, "", v); lid = v + 0 }
		/InPort\.+/ { v = $0; sub(/.*\.+/, "", v); ip = v + 0 }
		/OutPort\.+/ { v = $0; sub(/.*\.+/, "", v); op = v + 0 }
		/^[ \t]*VL:/ { r = $0; sub(/^[ \t]*VL: */, "", r); gsub(/ /, "", r); sub(/\|$/, "", r)
			gsub(/\|/, ",", r); print lid, ip, op, r }' "$1" | LC_ALL=C sort
}
sa_vlarb() { # FILE
	awk '/dump:$/ { n = 0; next }
		/LID\.+/ { v = $0; sub(/.*\.+/, "", v); lid = v + 0 }
		/Port\.+/ { v = $0; sub(/.*\.+/, "", v); port = v + 0 }
		/Block\.+/ { v = $0; sub(/.*\.+/, "", v); blk = v + 0 }
		/^[ \t]*VL *:/ { n++; if (n == 1) { vl = $0; sub(/^[ \t]*VL *: */, "", vl) } }
		/^[ \t]*Weight *:/ && n == 1 { w = $0; sub(/^[ \t]*Weight *: */, "", w)
			split(vl, a, "|"); split(w, b, "|"); o = ""
			for (i = 1; i <= 8; i++) o = o (i > 1 ? "," : "") (a[i] + 0) ":" (b[i] + 0)
			print lid, port, blk, o }' "$1" | LC_ALL=C sort
}

# smpquery sl2vl's rows as "LID IN OUT VL0,...": those of the inputs in INS (" 0 1 3 "),
# and on a switch (sw=1) IN != OUT.
SMP_ROWS='/^ports: in/ { i = $3 + 0; o = $5 + 0
	if ((sw && i == o) || index(ins, " " i " ") == 0) next
	r = $0; sub(/^[^|]*\|/, "", r); sub(/\| *$/, "", r); gsub(/ /, "", r); gsub(/\|/, ",", r)
	print l, i, o, r }'
# smpquery vlarb's tables as "LID PORT BLOCK VL:W,..." (low: block 1, high: block 3).
SMP_ARB='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^ *0x/, "", s); sub(/ +$/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }
/^# Low/ { b = 1 } /^# High/ { b = 3 } /^VL *:/ { split($0, a, "|") }
/^WEIGHT *:/ { split($0, w, "|"); o = ""
	for (i = 2; i <= 9; i++) o = o (i > 2 ? "," : "") hex(a[i]) ":" hex(w[i])
	print l, p, b, o }'

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

check_case() { # TOPO LOOMD-ARGS...
	local topo=$1 rc line ca sw in out n i port
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
	# A host that goes and comes back (a reboot resets its port's tables):
	# its CA's blocks are read again (ibsim keeps them: found right, not sent).
	read -r sw port < <(awk -F'\t' 'NR == FNR { if ($1 == "Switch") s[$2] = 1; next }
		($1 in s) && !($3 in s) { print $1 "\t" $2; exit }' <(sim_topo_nodes "$topo") \
		<(sim_topo_links "$topo") | tr '\t' ' ')
	n=$(wc -l <"$tmp/$T.log")
	sim_console q "Unlink \"$sw\"[$port]" && sleep 1 && sim_console q "ReLink \"$sw\"[$port]"
	sleep 1
	line=$("$LOOM" sweep --heavy --timeout 120 --control "$tmp/$T.ctl" 2>&1)
	tap_diag "$line"
	sleep 1
	tap_check "$T: after a host behind \"$sw\"[$port] went and came back, its QoS blocks are read again" \
		grep -qE 'sweep: .*QoS [0-9]+ ms \([1-9][0-9]* SMPs\)' <(tail -n +"$((n + 1))" "$tmp/$T.log")
	tap_check "$T: ... and left as they were (0 QoS blocks sent)" \
		grep -qE '^sweep [0-9]+ \(heavy\): .* 0 QoS blocks' <<<"$line"
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
# (its switch-port0 lines give port 0's class, which has no table out of a base port 0).
tap_is "$T: loom route --qos (no --config): the same SL-to-VL tables" \
	"$("$LOOM" route --qos "$ft" 2>/dev/null | grep -v '\[switch-port0\]' |
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
