#!/bin/bash
# loom-verbs' SA PathRecord query (verbs/path.c), judged by saquery on a simulated fabric:
# OpenSM with its deadlock-free DFSSSP engine routes a 4x4 torus and hands out a non-zero
# SL for many paths (that is how it keeps routes on deadlock-free VLs). For several
# destinations, `loom-verbs --path-to LID` must print the MTU that saquery reads from the
# same SA and the same SL each time, and some SL must be non-zero (so the value comes
# from the SA, not from a default).
# The same against loomd's SA with its vlayered engine on a 6x6 torus: SL and MTU exactly
# as saquery reads them, some SL non-zero.
# A fabric without an SM gives exit 2 with one line. TAP on stdout.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
bin=${LOOM_VERBS:-$builddir/verbs/loom-verbs}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

for tool in ibsim opensm saquery; do
	if ! command -v "$tool" >/dev/null; then
		[ "${CI:-}" = true ] && { echo "Bail out! $tool not installed"; exit 1; }
		echo "1..0 # SKIP $tool not installed (contrib/setup-debian.sh --test)"
		exit 0
	fi
done
# OpenSM's SA answers through kernel-style RMPP: the simulator needs the test shim.
export SIM_RMPP=1

# Before any SM: no SM LID, exit 2 at once.
sim_start f "$srcdir/tests/topologies/torus2d-4x4.topo" || { echo "Bail out! ibsim"; exit 1; }
rc=0
sim_run f "$bin" --path-to 5 --timeout 3 >/dev/null 2>"$tmp/nosm.err" || rc=$?
tap_is "no SM yet: exit 2" "$rc" 2
tap_check "no SM yet: one line naming the missing SM" grep -q 'no SM LID\|no subnet manager' \
	"$tmp/nosm.err"

dir=$(sim_dir f)
# start_osm TAG [OPENSM-ARGS...]: OpenSM in the background until SUBNET UP.
start_osm() {
	local tag=$1
	shift
	sim_run f --timeout 300 --out "$tmp/osm.$tag.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$tmp/osm.$tag.log" --dump_files_dir "$dir" "$@" &
	osm=$!
	log_wait "$tmp/osm.$tag.log" 'SUBNET UP' 60
	tap_check "OpenSM ($tag) reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/osm.$tag.log"
}
stop_osm() {
	sim_signal f TERM 2>/dev/null
	wait "$osm" 2>/dev/null
}
dests="2 5 9 14 20 27 31"

# saquery's SL and MTU for SLID -> DLID, as "sl N mtu BYTES".
sa_path() {
	local out sl mtu
	out=$(sim_run f --timeout 60 saquery -t 20000 -p --slid "$1" --dlid "$2" 2>/dev/null)
	sl=$(sed -n 's/^[[:space:]]*sl\.\.*//p' <<<"$out" | head -n 1)
	mtu=$(sed -n 's/^[[:space:]]*mtu\.\.*//p' <<<"$out" | head -n 1)
	[ -n "$sl" ] && [ -n "$mtu" ] || return 0
	# MTU byte: selector in the top 2 bits, the IBA code (1 = 256 .. 5 = 4096) below.
	echo "sl $((sl)) mtu $((128 << ($((mtu)) & 63)))"
}
# 1. Min-hop: SL and MTU exactly as saquery reads them from the same SA.
start_osm minhop
for d in $dests; do
	got=$(sim_run f "$bin" --path-to "$d" --timeout 10 2>"$tmp/err.$d")
	slid=$(awk '{ print $2 }' <<<"$got")
	want=$(sa_path "${slid:-1}" "$d")
	tap_is "min-hop, path to LID $d: SL and MTU as saquery reads them" "sl ${got#* sl }" "$want"
	grep -v ibwarn "$tmp/err.$d" | while read -r l; do tap_diag "$l"; done
done
stop_osm

# 2. DFSSSP hands out SLs: loom-verbs must come back with them, not with a default 0.
# (OpenSM 3.3.23's dfsssp answers one path with a different SL from one query to the
# next, to saquery too, so the SLs are not compared one by one.)
start_osm dfsssp -R dfsssp
nonzero=0
for d in $dests; do
	got=$(sim_run f "$bin" --path-to "$d" --timeout 10 2>/dev/null)
	want=$(sa_path 1 "$d")
	tap_diag "dfsssp, path to LID $d: loom-verbs: $got; saquery: $want"
	case $got in *" sl 0 "*) ;; *" sl "*) nonzero=$((nonzero + 1)) ;; esac
	tap_is "dfsssp, path to LID $d: MTU as saquery reads it" "${got##* mtu }" "${want##* mtu }"
done
tap_check "dfsssp: the SA's non-zero SLs reach loom-verbs ($nonzero of 7 paths)" \
	[ "$nonzero" -gt 0 ]
stop_osm
sim_stop f

# 3. loomd's SA, with its deadlock-free vlayered engine on a 6x6 torus (3 VLs): loom-verbs
# must take the SL and MTU loomd's PathRecord gives (loomd answers the same each time, so
# they are compared one by one), and some SL must be non-zero. From h00008: every route
# entering at the first switch happens to fit on SL 0.
python3 "$srcdir/contrib/topogen.py" torus2d -x 6 -y 6 -o "$tmp/torus6x6.topo"
sim_start g "$tmp/torus6x6.topo" || { echo "Bail out! ibsim"; exit 1; }
sim_run g --timeout 300 --out "$tmp/loomd.log" "${LOOMD:-$builddir/loomd/loomd}" --routing vlayered \
	--state-dir "$tmp/state" --sweep-interval 60 &
lpid=$!
log_wait "$tmp/loomd.log" 'SUBNET UP' 60
tap_check "loomd (vlayered) reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/loomd.log"
nonzero=0
for d in 8 15 22 29 36 43 50 57 64 71; do
	got=$(SIM_HOST=h00008 sim_run g "$bin" --path-to "$d" --timeout 10 2>"$tmp/lerr.$d")
	slid=$(awk '{ print $2 }' <<<"$got")
	out=$(SIM_HOST=h00008 sim_run g --timeout 60 saquery -t 20000 -p --slid "${slid:-1}" --dlid "$d" 2>/dev/null)
	sl=$(sed -n 's/^[[:space:]]*sl\.\.*//p' <<<"$out" | head -n 1)
	mtu=$(sed -n 's/^[[:space:]]*mtu\.\.*//p' <<<"$out" | head -n 1)
	want=
	[ -n "$sl" ] && [ -n "$mtu" ] && want="sl $((sl)) mtu $((128 << ($((mtu)) & 63)))"
	tap_is "loomd vlayered, path to LID $d: SL and MTU as saquery reads them" "sl ${got#* sl }" "$want"
	case $got in *" sl 0 "*) ;; *" sl "*) nonzero=$((nonzero + 1)) ;; esac
done
tap_check "loomd vlayered: the engine's non-zero SLs reach loom-verbs ($nonzero of 10 paths)" \
	[ "$nonzero" -gt 0 ]
sim_signal g TERM 2>/dev/null
wait "$lpid" 2>/dev/null
sim_stop g
tap_done
