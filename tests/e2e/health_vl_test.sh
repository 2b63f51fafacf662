#!/bin/bash
# loom health --only routes judges credit loops per VL on what the fabric
# holds: each switch's SL-to-VL tables (SMP) and each route's SL (the SA's
# PathRecords), on a 5x5 torus loomd routes with vlayered (auto: ftree
# refuses a torus), which breaks its credit loops with 3 VLs:
#   - as loomd left it: exit 0, no credit loop; the progress line counts the
#     tables read (400: 25 switches x 4 links x 4 other ports) and the
#     PathRecords (600: 25 hosts x 24 LIDs) and SLs 0-2 in use; smpquery
#     sl2vl shows the map 0,1,2 health judged by;
#   - the switches of one ring ("sw-*-0") mapping every SL to VL 0 (set by
#     tests/rig/sl2vlset; smpquery shows it): exit 1, a credit loop on VL 0
#     through those switches' links. One switch alone does not make a loop
#     here: after it every route is back on its own SL's VL, so a cycle
#     would have to cross that switch twice in two layers, and vlayered's
#     layers leave no such pair on this torus (tried: every SL and VL
#     combination on the SM's switch and its neighbours, all judged 0);
#   - the ring's tables put back: exit 0 again;
#   - loomd stopped (no SA): the PathRecord read stops after a window's
#     worth unanswered; the VL 0 loop stays a warning saying so (exit 0).
# loomd keeps running (the SA answers the PathRecords); its sweeps do not
# reprogram SL2VL tables of an unchanged fabric while the fault is judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
PYTHON3=${PYTHON3:-python3}
SL2VLSET=${SL2VLSET:-$builddir/tests/rig/sl2vlset}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/health.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

if [ ! -x "$SL2VLSET" ]; then
	echo "Bail out! no $SL2VLSET (run through make check)"
	exit 1
fi
"$PYTHON3" "$srcdir/contrib/topogen.py" torus2d -x 5 -y 5 -o "$tmp/torus.topo"

health() { health_in T "$1" --only routes --progress; } # TAG

# The directed routes from the tools' port (h00001) to every switch, "DESC PATH" a line,
# from an ibnetdiscover capture (breadth first: the shortest).
dr_paths() { # CAPTURE
	"$PYTHON3" - "$1" <<'PY'
import re, sys
links, desc, node = {}, {}, None
for line in open(sys.argv[1]):
    m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"\s+#\s+"([^"]+)"', line)
    if m:
        node = m.group(2)
        desc[node] = (m.group(1), m.group(3))
        continue
    m = re.match(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([^"]+)"\[(\d+)\]', line)
    if m and node:
        links.setdefault(node, {})[int(m.group(1))] = m.group(2)
start = next(n for n, (t, d) in desc.items() if d == 'h00001')
seen, queue = {start: [0]}, [start]
while queue:
    n = queue.pop(0)
    for p, peer in sorted(links.get(n, {}).items()):
        if peer not in seen and desc.get(peer, ('',))[0] == 'Switch':
            seen[peer] = seen[n] + [p]
            queue.append(peer)
for n, path in seen.items():
    if desc[n][0] == 'Switch':
        print(desc[n][1], ','.join(map(str, path)))
PY
}

if ! sim_start T "$tmp/torus.topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run T --timeout 300 --out "$tmp/sm.log" "$LOOMD" --state-dir "$tmp/state" &
sm_pid=$!
log_wait "$tmp/sm.log" 'SUBNET UP' 60
tap_check "loomd brings the torus up, routed with vlayered" \
	grep -q 'routed with vlayered' "$tmp/sm.log" || tap_diag "$(head -5 "$tmp/sm.log")"

health ok
tap_is "as loomd left it: loom health --only routes exits 0, no finding" \
	"$hrc $(grep -cE '^(error|warning) ' "$tmp/ok.out")" "0 0" ||
	tap_diag "$(head -n 8 "$tmp/ok.out" "$tmp/ok.err")"
tap_check "400 SL-to-VL tables read, 600 PathRecords answered, SLs 0-2 in use" \
	grep -q 'routes: 400 SL-to-VL tables read (0 not), 600 PathRecords asked (0 not answered), SLs 0x0007' \
	"$tmp/ok.err" || tap_diag "$(grep routes: "$tmp/ok.err")"
sim_run T smpquery -D sl2vl 0,1 3 2>/dev/null >"$tmp/sl2vl.ok"
tap_check "smpquery sl2vl of the SM's switch maps SL 0,1,2 to VL 0,1,2 between switch ports" \
	grep -qE '^ports: in +2, out +3: \| 0\| 1\| 2\|' "$tmp/sl2vl.ok" || tap_diag "$(cat "$tmp/sl2vl.ok")"

sim_run T ibnetdiscover >"$tmp/ibnd" 2>/dev/null
dr_paths "$tmp/ibnd" >"$tmp/paths"
ring=$(awk '$1 ~ /^sw-[0-9]+-0$/ { print $2 }' "$tmp/paths")
tap_is "the ring sw-*-0: 5 switches reached by directed route" "$(echo "$ring" | grep -c .)" 5 ||
	tap_diag "$(cat "$tmp/paths")"
bad=0
for p in $ring; do
	sim_run T --out "$tmp/set.out" "$SL2VLSET" -D "$p" 255 255 255 0 || bad=$((bad + 1))
done
tap_is "sl2vlset: every SL on VL 0 at the 5 switches of the ring" "$bad" 0
first=$(echo "$ring" | head -1)
sim_run T smpquery -D sl2vl "$first" 3 2>/dev/null >"$tmp/sl2vl.bad"
tap_check "smpquery sl2vl shows it (SL 1, 2 on VL 0)" \
	grep -qE '^ports: in +2, out +3: \| 0\| 0\| 0\|' "$tmp/sl2vl.bad" || tap_diag "$(cat "$tmp/sl2vl.bad")"
health bad
tap_is "the ring on VL 0: loom health --only routes exits 1" "$hrc" 1 ||
	tap_diag "$(head -n 8 "$tmp/bad.out" "$tmp/bad.err")"
tap_check "a credit loop on VL 0 through the ring's switches, judged on the tables and SLs read" \
	grep -qE '^error +routes +fabric: credit loop: .*judged on the SA.s SLs and the SL2VL tables.*credit loop on VL 0: [0-9]+ links .*"sw-[0-9]+-0"\[[0-9]+\] VL 0 -> "sw-[0-9]+-0"' \
	"$tmp/bad.out" || tap_diag "$(cat "$tmp/bad.out")"

bad=0
for p in $ring; do
	for sl in 1 2; do
		sim_run T --out "$tmp/set.out" "$SL2VLSET" -D "$p" 255 255 "$sl" "$sl" || bad=$((bad + 1))
	done
done
tap_is "sl2vlset: the ring's tables put back" "$bad" 0
health back
tap_is "put back: loom health --only routes exits 0 again" "$hrc" 0 ||
	tap_diag "$(head -n 8 "$tmp/back.out")"

# No SA: loomd gone, the PathRecords go unanswered; a window's worth stops
# the read, and the loop VL 0 alone makes stays a warning that says why.
sim_signal T TERM
wait "$sm_pid"
health nosa
tap_is "no SA: loom health --only routes exits 0, one warning" \
	"$hrc $(grep -cE '^error ' "$tmp/nosa.out") $(grep -cE '^warning ' "$tmp/nosa.out")" "0 0 1" ||
	tap_diag "$(head -n 8 "$tmp/nosa.out" "$tmp/nosa.err")"
tap_check "no SA: the warning is the credit loop on one VL, the SA gave no SLs" \
	grep -qE '^warning +routes +fabric: credit loop: .*judged on one VL: the SA gave no SLs' \
	"$tmp/nosa.out" || tap_diag "$(cat "$tmp/nosa.out")"
asked=$(sed -nE 's/.* ([0-9]+) PathRecords asked \(([0-9]+) not answered\), SLs 0x0000$/\1 \2/p' "$tmp/nosa.err")
tap_check "no SA: the read stopped after the first window (asked, not answered: $asked of 600)" \
	test -n "$asked" -a "${asked% *}" = "${asked#* }" -a "${asked% *}" -lt 600
tap_done
