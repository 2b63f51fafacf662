#!/bin/bash
# A leaf switch unplugged whole and plugged back (ft2-k8: leaf008, every link
# of it unlinked on ibsim's console, then relinked: its hosts' links go down
# too), loomd as a daemon with QoS tables configured. What loomd sends is
# counted on the wire (tests/rig/libsmplog_shim.so; each directed route named
# by smpquery -D nodeinfo from the same port).
#  1. Back untouched: its port 0 kept the LID and MasterSMLID loomd gave it
#     (a switch's SMA keeps them, and its tables, whatever its links do), so
#     its tables are taken as they were: no Get of an SL2VL, VLArb, LFT or
#     P_Key block to it on the wire. They are what loomd programs: every
#     SL2VL pair of two output ports as configured (smpquery sl2vl), every
#     host reaches every host (dump_lfts read back, loom verify).
#  2. Away again, its uplinks down first: from h00032 on its island its
#     tables are changed behind loomd's back (tests/rig/sl2vlset: every SL on
#     VL 0; tests/rig/lftset: h00029's LID dropped, LinearFDBTop 0), then it
#     is reset (ibsim's Clear: port 0's LID and MasterSMLID 0) and relinked.
#     Back: its tables are not taken from the cache (every SL2VL pair, the
#     VLArb and LFT blocks read or set on the wire) and are right again
#     (smpquery sl2vl, dump_lfts as in 1).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
SL2VLSET=${SL2VLSET:-$builddir/tests/rig/sl2vlset}
LFTSET=${LFTSET:-$builddir/tests/rig/lftset}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP:-}" ] || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
need_rig libsmplog_shim.so
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/wire.sh"
for t in "$SL2VLSET" "$LFTSET"; do
	if [ ! -x "$t" ]; then
		echo "Bail out! no $t (run through make check)"
		exit 1
	fi
done

cat >"$tmp/loom.yaml" <<'YAML'
sm:
  flap-damping: { flaps: 0 }
  heavy-sweep-interval: 1h
  master-lid-checks: 0
qos:
  switch-external:
    operational-vls: 2
    sl2vl: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    vlarb-low: [0:16, 1:200]
YAML
sw_row='| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0|'

log=$tmp/daemon.log wire=$tmp/wire
leaf=leaf008
leaf_guid=$(grep -B1 -E "^Switch[[:space:]].*\"$leaf\"" "$topo" |
	sed -nE 's/^switchguid=(0x[0-9a-f]+)$/\1/p')
leaf_path=0,1,5,8 # from the SM's host h00001: leaf001, spine001 (its port 5), leaf008
settle() { sweep_settle "$log"; }
# event TAG CMD...: console commands, then sweeps until quiet, the last at SUBNET UP.
event() { local tag=$1; shift; sweep_event "$tag" d "$log" "$@"; }
guid_at() { dr_guid d "$1"; }

# The wire since line FROM: "ATTR METHOD" for every SMP to leaf008 (by directed route).
to_leaf() { # FROM
	local m a to
	while read -r m a to _; do
		[ "$(guid_at "$to")" = "$leaf_guid" ] && printf '%s %s\n' "$a" "$m"
	done < <(wire_dr "$wire" "$1")
}

wire_diag() { # TAG FILE
	tap_diag "$1: SMPs to $leaf: $(sort "$2" | uniq -c | paste -sd";")"
	tap_diag "$1: $(grep -E 'sweep [0-9]+ \((targeted|heavy)\)' "$log" | tail -n 1)"
}

# sl2vl_check TAG: every input port's SL2VL to leaf008's ports 1 (a host) and 5 (a spine).
sl2vl_check() {
	local out bad n
	for out in 1 5; do
		sim_run d smpquery -D sl2vl "$leaf_path" "$out" >"$tmp/sl2vl.$out" 2>/dev/null
		bad=$(grep -E "^ports: in +[0-9]+, out +$out:" "$tmp/sl2vl.$out" |
			grep -vE "^ports: in +$out," | grep -vcF "$sw_row")
		n=$(grep -cE "^ports: in +[0-9]+, out +$out:" "$tmp/sl2vl.$out")
		tap_check "$1: $leaf out port $out: every input port's SL2VL as configured ($n rows)" \
			test "$bad" -eq 0 -a "$n" -ge 8 || tap_diag "$(cat "$tmp/sl2vl.$out")"
	done
}

if ! sim_start d "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
: >"$wire"
SIM_PRELOAD_FRONT=$rig/libsmplog_shim.so SMPLOG_SHIM_LOG=$wire \
	sim_run d --timeout 600 --out "$log" "$LOOMD" --state-dir "$tmp/state" -c "$tmp/loom.yaml" \
	--sweep-interval 1 &
bg=$!
tap_check "reaches SUBNET UP" log_wait -E "$log" 'heavy.*SUBNET UP' 30
settle
tap_check "the shim logs loomd's SMPs" test -s "$wire"
tap_is "smpquery -D $leaf_path reaches $leaf ($leaf_guid)" "$(guid_at "$leaf_path")" "$leaf_guid"
sl2vl_check "bring-up"

# 1. Unplugged whole and back, nothing else changing.
event "$leaf unlinked" "Unlink \"$leaf\""
from=$(($(wc -l <"$wire") + 1))
event "$leaf relinked" "ReLink \"$leaf\""
to_leaf "$from" >"$tmp/back1"
wire_diag "back untouched" "$tmp/back1"
tap_check "back untouched: SMPs to $leaf on the wire" test -s "$tmp/back1"
for a in sl2vl vlarb lft pkey; do
	tap_is "back untouched: no $a Get to $leaf (its port 0 vouches for its tables)" \
		"$(grep -c "^$a get$" "$tmp/back1")" 0
done
sl2vl_check "back untouched"
lfts_check "back untouched" d

# 2. Away again; its tables changed, then it is reset; back.
mapfile -t down < <(leaf_uplinks "$topo" "$leaf" Unlink)
event "$leaf's uplinks down" "${down[@]}"
lid29=$(sim_run d --host h00032 smpquery -D portinfo 0,1,1 1 2>/dev/null |
	sed -nE 's/^Lid:\.*([0-9]+)$/\1/p')
tap_check "sl2vlset from h00032: every SL of $leaf on VL 0" \
	sim_run d --host h00032 --out "$tmp/sl2vlset.out" "$SL2VLSET" -D 0,1 255 255 255 0
tap_check "lftset from h00032: $leaf drops h00029's LID ${lid29:-?}" \
	sim_run d --host h00032 --out "$tmp/lftset.out" "$LFTSET" -D 0,1 "${lid29:-0}" 255
tap_check "lftset from h00032: $leaf's LinearFDBTop 0" \
	sim_run d --host h00032 --out "$tmp/lfttop.out" "$LFTSET" -D 0,1 -t 0
sim_console d "Clear \"$leaf\""
from=$(($(wc -l <"$wire") + 1))
event "$leaf reset, relinked" "ReLink \"$leaf\""
to_leaf "$from" >"$tmp/back2"
wire_diag "back reset" "$tmp/back2"
# Every (in, out) pair of its 8 ports and port 0, in != out: 9 x 8 - 8. Read
# first (Gets) or, the leaf judged fresh (port 0 at LID 0, LinearFDBTop 0),
# set unread; never taken from the cache.
tap_check "back reset: every SL2VL table of $leaf read or set anew (64 SMPs on the wire)" \
	test "$(grep -cE '^sl2vl (get|set)$' "$tmp/back2")" -ge 64
tap_check "back reset: $leaf's VLArb tables read or set anew" \
	grep -qE '^vlarb (get|set)$' "$tmp/back2"
tap_check "back reset: $leaf's LFT read anew or set whole (LFT SMPs on the wire)" \
	grep -qE '^lft (get|set)$' "$tmp/back2"
tap_is "back reset: $leaf's port 0 at a LID again (smpquery)" \
	"$(sim_run d smpquery -D portinfo "$leaf_path" 0 2>/dev/null |
		sed -nE 's/^Lid:\.*([0-9]+)$/\1/p' | grep -c '^[1-9]')" 1
sl2vl_check "back reset"
lfts_check "back reset" d

sim_signal d TERM
rc=0
wait "$bg" || rc=$?
tap_is "SIGTERM ends loomd with status 0" "$rc" 0
sim_stop d
tap_done
