#!/bin/bash
# A takeover that leaves the LFTs unread must still repair them: two loomd
# (priorities 10 and 5) on a small fat tree; the standby B finds its routes
# equal to the LFTs A programmed; then one LFT entry of a leaf is changed
# behind both SMs' backs (tests/rig/lftset: a table the old master did not
# leave as B computes it) and A is killed. B's first sweep as master sends 0
# LFT blocks and says it left the LFTs as the old master set them; the heavy
# sweep right after reads them back, sends the block that differs and says
# so ("takeover check"); dump_lfts then shows the entry repaired and every
# host pair routed. A control run without the change is ha_test.sh's
# failover (0 blocks sent by both sweeps). Times are never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
LFTSET=${LFTSET:-$builddir/tests/rig/lftset}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/ha.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
HA=h00001 HB=h00005 HC=h00009 # A, B: the SMs; C: a host that asks
POLL_MS=300

if [ ! -x "$LFTSET" ]; then
	echo "Bail out! no $LFTSET (run through make check)"
	exit 1
fi
if ! sim_start F "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi

ha_conf A 10 "$POLL_MS"
ha_conf B 5 "$POLL_MS"
ha_loomd A "$HA"
log_wait -E "$tmp/A.log" 'SUBNET UP' 60
ha_loomd B "$HB"
log_wait -E "$tmp/B.log" 'standby: as master this SM would' 30
tap_check "B (priority 5) stands by and finds its routes equal to A's LFTs" \
	grep -q 'standby: as master this SM would route with .* and change nothing' "$tmp/B.log" ||
	tap_diag "$(tail -n 5 "$tmp/B.log")"

# C's leaf (0,1 from C) drops the LID of the host A (the SM port: far from C's leaf).
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
la=$(ha_lid "$HA") gb=$(ha_guid "$HB")
tap_check "lftset: C's leaf drops LID $la" \
	sim_run F --host "$HC" --out "$tmp/set.out" "$LFTSET" -D 0,1 "$la" 255 ||
	tap_diag "$(cat "$tmp/set.out")"
sim_run F dump_lfts 2>/dev/null >"$tmp/fault.lfts"
rc=0
"$LOOM" verify "$tmp/ibnd" "$tmp/fault.lfts" >"$tmp/fault.verify" 2>&1 || rc=$?
tap_check "the fault took: loom verify on dump_lfts finds unrouted pairs (exit $rc)" test "$rc" -ne 0
ha_lids >"$tmp/lids.before"

pa=$(ha_pid A)
tap_check "A's loomd found (pid ${pa:-none})" test -n "$pa"
[ -z "$pa" ] || kill -KILL $pa
log_wait -E "$tmp/B.log" 'SUBNET UP' 30
# Its "takeover sweep:" line comes just after the sweep's SUBNET UP line.
log_wait -F "$tmp/B.log" 'takeover sweep:' 30
sweep=$(grep 'sweep [0-9]* (heavy)' "$tmp/B.log" | head -n 1)
tap_diag "B's first sweep as master: $sweep"
tap_check "B takes over" grep -q 'DISCOVERING -> MASTER: the master is gone' "$tmp/B.log"
tap_check "its first sweep sends 0 LFT blocks" grep -q '(0 LFT blocks' <<<"$sweep"
tap_check "... and says it left the LFTs as the old master set them" \
	grep -q 'takeover sweep: .*LFTs: as the old master left them' "$tmp/B.log" ||
	tap_diag "$(grep 'takeover sweep' "$tmp/B.log")"
log_wait -E "$tmp/B.log" 'takeover check:' 60
out=$(grep 'takeover check:' "$tmp/B.log" | head -n 1)
tap_diag "$out"
tap_check "the heavy sweep after it reads them back and sends the block that differs" \
	grep -qE 'blocks read back, [1-9][0-9]* sent \(they differed' <<<"$out"
sweep=$(grep 'sweep [0-9]* (heavy)' "$tmp/B.log" | sed -n 2p)
tap_check "... counted in its sweep line: LFT blocks sent" \
	grep -qE '\([1-9][0-9]* LFT blocks' <<<"$sweep" || tap_diag "$sweep"
ha_lids >"$tmp/lids.after"
tap_check "ibnetdiscover -l: 0 LID changes" diff -u "$tmp/lids.before" "$tmp/lids.after"
lfts_check repaired F "after the takeover check: "
ha_stop TERM B
tap_done
