#!/bin/bash
# A switch's port 0 and QoS: one rule (plan/qos.h qos_has_data_vls) for
# loomd's programming, its SA and the dry run. A base port 0 has no data VLs:
# no SL-to-VL table out of it (IBA 14.2.5.8), no VL arbitration (14.2.5.9);
# an enhanced port 0 (SwitchInfo:EnhancedPort0; ibsim models it from a switch
# line's "enhanced port 0") has both, and OperationalVLs. On a fabric of one
# switch of each kind, with loom.yaml classes whose tables differ from
# everything ibsim's reset leaves, loomd brings the fabric up; then for every
# switch port, port 0 included, smpquery reads the tables out of it:
#   - the ports whose tables differ from ibsim's reset (what loomd programmed)
#     are exactly the switch ports `loom route --qos` lists, each with the
#     OperationalVLs, the SL-to-VL row (from every input port with data into
#     it) and the VL arbitration entries the dry run prints;
#   - saquery SL2VL and VLAR answer for port 0 exactly what smpquery reads
#     out of the enhanced one, and nothing for the base one.
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

# sw1: enhanced port 0; sw2: base port 0 (ibsim's default, said here). Ports 5
# and 6 unlinked; two links between the switches.
cat >"$tmp/port0.topo" <<'TOPO'
Hca 1 "h1"
[1] "sw1"[1]

Hca 1 "h2"
[1] "sw1"[2]

Hca 1 "h3"
[1] "sw2"[1]

Hca 1 "h4"
[1] "sw2"[2]

Switch 6 "sw1" # "sw1" enhanced port 0
[1] "h1"[1]
[2] "h2"[1]
[3] "sw2"[3]
[4] "sw2"[4]

Switch 6 "sw2" # "sw2" base port 0
[1] "h3"[1]
[2] "h4"[1]
[3] "sw1"[3]
[4] "sw1"[4]
TOPO
# No VL in these maps is at or above its class's VLs, nor does any port run
# fewer (ibsim's run VL0-7): nothing is folded, in the plan or on the fabric.
cat >"$tmp/loom.yaml" <<'YAML'
qos:
  switch-port0:
    operational-vls: 4
    sl2vl: [3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0]
    vlarb-high: [2:7]
    vlarb-low: [3:30, 1:10, 0:20, 2:40]
  switch-external:
    operational-vls: 2
    sl2vl: [1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1]
    vlarb-high: [1:5]
    vlarb-low: [0:16, 1:200]
YAML
# What ibsim's reset leaves in every table (ibsim/sim_net.c default_sl2vl,
# default_vlarb_*), as SMP_ROWS and SMP_ARB (tests/lib/sa.sh) print them.
reset_sl2vl=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7
reset_high=0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0
reset_low=0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4

# "GUID LID NPORTS KIND" of every switch, KIND enhanced or base, and
# "LID PORT" of every linked switch port, from ibnetdiscover.
switches() { # IBND
	sed -nE 's/^Switch[[:space:]]+([0-9]+)[[:space:]]+"S-([0-9a-f]+)".* (enhanced|base) port 0 lid ([0-9]+) .*/0x\2 \4 \1 \3/p' "$1"
}
linked() { # IBND
	awk '/^Switch/ { sw = 1; match($0, /port 0 lid [0-9]+/); lid = substr($0, RSTART + 11, RLENGTH - 11); next }
		/^(Ca|Rt)/ { sw = 0 } sw && /^\[/ { p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p); print lid, p }' "$1"
}

# The first 8 entries of VLArbitration block BLOCK (1 low, 3 high) of switch
# port PORT as "VL:W,...", read raw with smpdump: smpquery vlarb reads
# nothing of a base port 0 ("No VLArbitration tables (BSP0)"), and whether
# loomd wrote one there is what is judged.
vlarb_raw() { # LID PORT BLOCK
	sim_run q smpdump "$1" 0x18 "$(printf '0x%x' $(($3 << 16 | $2)))" 2>/dev/null |
		awk 'function hex(s,  i, v) { v = 0; s = tolower(s)
				for (i = 1; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			NR == 1 && NF == 8 { o = ""
				for (i = 1; i <= 8; i++)
					o = o (i > 1 ? "," : "") hex(substr($i, 1, 2)) % 16 ":" hex(substr($i, 3, 2))
				print o }'
}

# What loomd left out of switch port PORT, in the dry run's form: "GUID PORT
# vls V sl2vl ROW vlarb-high H vlarb-low L" (8 entries each), if its tables
# are not ibsim's reset; ROW "mixed" if the input ports with data disagree.
fabric_port() { # GUID LID PORT INS
	local g=$1 lid=$2 port=$3 ins=$4 rows hi lo vls
	rows=$(sim_run q smpquery sl2vl "$lid" "$port" 2>/dev/null |
		awk -v l="$lid" -v sw=1 -v ins="$ins" "$SMP_ROWS" | cut -d' ' -f4 | sort -u)
	[ "$(grep -c . <<<"$rows")" -eq 1 ] || rows=mixed
	hi=$(vlarb_raw "$lid" "$port" 3) lo=$(vlarb_raw "$lid" "$port" 1)
	[ "$rows" = "$reset_sl2vl" ] && [ "$hi" = "$reset_high" ] && [ "$lo" = "$reset_low" ] &&
		return 0
	vls=$(sim_run q smpquery portinfo "$lid" "$port" 2>/dev/null |
		sed -nE 's/^OperVLs:\.*VL0-([0-9]+).*/\1/p')
	echo "$g $port vls $((${vls:-98} + 1)) sl2vl $rows vlarb-high $hi vlarb-low $lo"
}

# The dry run's switch lines in that form, VLArb entries padded to 8 with
# 0:0 (loomd writes the class's list and zeros up to the port's room, 8).
dry_ports() { # DRY
	sed -nE 's/^switch (0x[0-9a-f]+) ".*" port ([0-9]+) \[[a-z0-9-]+\]: vls ([0-9]+) sl2vl ([0-9,]+) vlarb-high ?([0-9:,]*) vlarb-low ?([0-9:,]*)$/\1 \2 \3 \4 \5 \6/p' "$1" |
		while read -r g p vls row hi lo; do
			echo "$g $p vls $vls sl2vl $row vlarb-high $(pad "$hi") vlarb-low $(pad "$lo")"
		done
}
pad() { # "VL:W,..." -> 8 entries
	local -a e
	IFS=, read -ra e <<<"$1"
	while [ ${#e[@]} -lt 8 ]; do e+=(0:0); done
	(IFS=,; echo "${e[*]}")
}

if ! sim_start q "$tmp/port0.topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
if ! tap_check "loomd with the QoS classes reaches SUBNET UP" \
	sa_loomd q "$tmp/loomd.log" "$tmp/state" -v -c "$tmp/loom.yaml" --routing minhop \
	--sweep-interval 60; then
	tap_diag "$(tail -n 5 "$tmp/loomd.log")"
	sim_stop q
	tap_done
	exit
fi
tap_check "no QoS block refused or unanswered" \
	test -z "$(grep -E '(SLtoVLMapping|VLArbitration)Table (Get|Set)' "$tmp/loomd.log")" ||
	tap_diag "$(grep -m3 -E '(SLtoVLMapping|VLArbitration)Table (Get|Set)' "$tmp/loomd.log")"
"$LOOM" route --engine minhop --config "$tmp/loom.yaml" --qos "$tmp/port0.topo" >"$tmp/dry" 2>"$tmp/dry.err"
tap_is "loom route --qos exits 0" "$?" 0 || tap_diag "$(cat "$tmp/dry.err")"
sim_run q ibnetdiscover >"$tmp/ibnd" 2>/dev/null
switches "$tmp/ibnd" >"$tmp/switches"
linked "$tmp/ibnd" >"$tmp/linked"
tap_is "ibnetdiscover: sw1's port 0 enhanced, sw2's base" \
	"$(awk '{ print $4 }' "$tmp/switches" | sort | tr '\n' ' ')" "base enhanced "
read -r g_enh lid_enh _ < <(awk '$4 == "enhanced"' "$tmp/switches")
read -r g_base lid_base _ < <(awk '$4 == "base"' "$tmp/switches")

# Every switch port, 0 and 1..N, linked or not: what loomd left there.
: >"$tmp/fabric"
while read -r g lid n _; do
	ins=" 0 $(awk -v l="$lid" '$1 == l { print $2 }' "$tmp/linked" | tr '\n' ' ')"
	for ((p = 0; p <= n; p++)); do
		fabric_port "$g" "$lid" "$p" "$ins" >>"$tmp/fabric"
	done
done <"$tmp/switches"
LC_ALL=C sort -o "$tmp/fabric" "$tmp/fabric"
dry_ports "$tmp/dry" | LC_ALL=C sort >"$tmp/dry.sw"
tap_diag "programmed: $(awk '{ print $1 "[" $2 "]" }' "$tmp/fabric" | tr '\n' ' ')"
tap_check "the dry run lists the enhanced port 0 ($g_enh)" \
	grep -q "^$g_enh 0 " "$tmp/dry.sw"
tap_check "... and not the base port 0 ($g_base), which has no data VLs" \
	test -z "$(grep "^$g_base 0 " "$tmp/dry.sw")" ||
	tap_diag "$(grep -i "$g_base.* port 0 " "$tmp/dry")"
tap_check "loomd programmed the enhanced port 0's OperationalVLs, SL-to-VL and VL arbitration tables" \
	grep -q "^$g_enh 0 vls 4 sl2vl 3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0 vlarb-high 2:7,0:0,.* vlarb-low 3:30,1:10,0:20,2:40,0:0," \
	"$tmp/fabric"
tap_check "... and none out of the base port 0 (smpquery reads ibsim's reset there)" \
	test -z "$(grep "^$g_base 0 " "$tmp/fabric")"
tap_check "the switch ports loomd programmed, 0 included, and their VLs and tables are those the dry run prints ($(wc -l <"$tmp/fabric") ports)" \
	test "$(wc -l <"$tmp/fabric")" -ge 8 -a -z "$(diff "$tmp/dry.sw" "$tmp/fabric")" ||
	tap_diag "$(diff "$tmp/dry.sw" "$tmp/fabric" | head -n 8)"

# The SA: its port-0 records of each switch against what smpquery reads.
SIM_RMPP=1 sim_run q --timeout 60 saquery -t 20000 SL2VL >"$tmp/sa.sl2vl.out" 2>"$tmp/sa.err"
tap_is "saquery SL2VL exits 0" "$?" 0 || tap_diag "$(head -n 3 "$tmp/sa.err")"
SIM_RMPP=1 sim_run q --timeout 60 saquery -t 20000 VLAR >"$tmp/sa.vlar.out" 2>"$tmp/sa.err"
tap_is "saquery VLAR exits 0" "$?" 0 || tap_diag "$(head -n 3 "$tmp/sa.err")"
sa_sl2vl "$tmp/sa.sl2vl.out" >"$tmp/sa.sl2vl"
sa_vlarb "$tmp/sa.vlar.out" >"$tmp/sa.vlarb"
ins_enh=" $(awk -v l="$lid_enh" '$1 == l { print $2 }' "$tmp/linked" | tr '\n' ' ')"
sim_run q smpquery sl2vl "$lid_enh" 0 2>/dev/null |
	awk -v l="$lid_enh" -v sw=1 -v ins="$ins_enh" "$SMP_ROWS" | LC_ALL=C sort >"$tmp/smp.sl2vl"
sim_run q smpquery vlarb "$lid_enh" 0 2>/dev/null |
	awk -v l="$lid_enh" -v p=0 "$SMP_ARB" | LC_ALL=C sort >"$tmp/smp.vlarb"
tap_check "saquery SL2VL: out of the enhanced port 0, a record per input port, each what smpquery reads ($(wc -l <"$tmp/smp.sl2vl"))" \
	test "$(wc -l <"$tmp/smp.sl2vl")" -eq 4 -a \
	"$(awk -v l="$lid_enh" '$1 == l && $3 == 0' "$tmp/sa.sl2vl")" = "$(cat "$tmp/smp.sl2vl")" ||
	tap_diag "$(awk -v l="$lid_enh" '$1 == l && $3 == 0' "$tmp/sa.sl2vl" | head -n 3)"
tap_check "saquery VLAR: the enhanced port 0's low and high blocks, as smpquery reads them" \
	test "$(wc -l <"$tmp/smp.vlarb")" -eq 2 -a \
	"$(awk -v l="$lid_enh" '$1 == l && $2 == 0' "$tmp/sa.vlarb")" = "$(cat "$tmp/smp.vlarb")" ||
	tap_diag "$(awk -v l="$lid_enh" '$1 == l && $2 == 0' "$tmp/sa.vlarb")"
tap_is "saquery SL2VL: no record out of the base port 0" \
	"$(awk -v l="$lid_base" '$1 == l && $3 == 0' "$tmp/sa.sl2vl" | wc -l)" 0
tap_is "saquery VLAR: no record of the base port 0" \
	"$(awk -v l="$lid_base" '$1 == l && $2 == 0' "$tmp/sa.vlarb" | wc -l)" 0
tap_check "saquery SL2VL: from the base port 0 into each of its switch's linked ports" \
	test "$(awk -v l="$lid_base" '$1 == l && $2 == 0' "$tmp/sa.sl2vl" | wc -l)" -eq \
	"$(awk -v l="$lid_base" '$1 == l' "$tmp/linked" | wc -l)"

sim_signal q TERM 2>/dev/null
rc=0
wait "$SM_PID" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
sim_stop q
tap_done
