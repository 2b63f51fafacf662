#!/bin/bash
# README command 1: loomd brings a bundled simulated fabric up.
#
# Starts Debian's ibsim on tests/topologies/ft2-k8.topo (or the file given),
# runs loomd on it as a daemon (its own state dir and control socket), asks it
# with loom status, and shows the result the way an operator would check it,
# with infiniband-diags: sminfo (loomd is master),
# iblinkinfo (every link Active), ibtracert (a route through the programmed
# tables), dump_lfts; then loom verify walks every host-to-host route of the
# tables read back, and loom route shows the same tables from the file alone.
# Run it from the source tree after `make` (or set LOOM and LOOMD).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM=${LOOM:-$src/tools/loom}
LOOMD=${LOOMD:-$src/loomd/loomd}
topo=${1:-$src/tests/topologies/ft2-k8.topo}
. "$src/tests/lib/sim.sh"
out=$(mktemp -d)
sim_trap_exit 'rm -rf "$out"'

for b in "$LOOM" "$LOOMD"; do
	if ! [ -x "$b" ]; then
		echo "demo: $b not found: build first (./autogen.sh && ./configure && make)" >&2
		exit 1
	fi
done

echo "== starting a simulated fabric from ${topo#"$src"/}"
sim_start demo "$topo"
echo "== loomd (daemon, state in $out/state): bringing the fabric up"
# Its own control socket: an installed loomd (loomd.service) holds /run/loom/control.
sim_run demo --timeout 300 --out "$out/loomd.log" "$LOOMD" --state-dir "$out/state" \
	--control "$out/control" --sweep-interval 5 &
loomd_job=$!
for _ in $(seq 300); do
	grep -q 'SUBNET UP' "$out/loomd.log" 2>/dev/null && break
	sleep 0.1
done
grep -v '^ibwarn' "$out/loomd.log"
grep -q 'SUBNET UP' "$out/loomd.log" || { echo "demo: loomd did not reach SUBNET UP" >&2; exit 1; }
echo "== loom status: what loomd says of itself (its control socket)"
"$LOOM" status --control "$out/control"
echo "== sminfo: who is master"
sim_run demo sminfo 2>/dev/null
echo "== iblinkinfo (first lines): every link LinkUp and Active"
sim_run demo iblinkinfo >"$out/links" 2>/dev/null
head -n 12 "$out/links"
sim_run demo ibnetdiscover >"$out/capture.topo" 2>/dev/null
lids=$(sed -nE 's/^\[[0-9]+\]\([0-9a-f]+\).*# lid ([0-9]+) lmc.*/\1/p' "$out/capture.topo")
set -- $lids
echo "== ibtracert $1 ${!#}: a route through the tables loomd programmed"
sim_run demo ibtracert "$1" "${!#}" 2>/dev/null
echo "== dump_lfts (first switch)"
sim_run demo dump_lfts >"$out/lfts" 2>/dev/null
sed -n '1,8p' "$out/lfts"
echo "..."
echo "== loom verify: every host to every host LID through the tables read back"
"$LOOM" verify "$out/capture.topo" "$out/lfts"
echo "== loom route: the same tables from the topology file alone (dry run)"
"$LOOM" route --canon "$topo" >"$out/dry" 2>/dev/null
"$LOOM" verify --normalize "$out/capture.topo" "$out/lfts" >"$out/fabric"
if diff -q "$out/dry" "$out/fabric" >/dev/null; then
	echo "loom route's tables equal the fabric's ($(grep -c '^0x' "$out/dry") entries)"
else
	echo "loom route's tables differ from the fabric's:" && diff "$out/dry" "$out/fabric" | head
fi
echo "== stopping loomd (SIGTERM)"
sim_signal demo TERM
wait "$loomd_job" && echo "loomd exited cleanly"
