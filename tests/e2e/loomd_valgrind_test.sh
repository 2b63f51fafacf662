#!/bin/bash
# loomd under valgrind on the simulator, in the normal build: valgrind also sees
# reads of uninitialised memory, which AddressSanitizer (make check-sanitize, with
# tests/asan.supp for libumad2sim's reads past libibumad's buffers) does not.
# One bring-up with partitions and QoS, then a daemon that takes a SIGHUP and
# a SIGTERM: no invalid access and no leak of loomd's own (the simulator
# shim's known behaviour is suppressed by frames inside it only).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
if ! command -v valgrind >/dev/null; then
	tap_check "valgrind is installed (apt-get install valgrind)" false
	tap_done
	exit
fi
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	--suppressions="$srcdir/tests/e2e/umad2sim.supp")
cat >"$tmp/loom.yaml" <<'YAML'
partitions:
  - name: compute
    pkey: 0x0010
    members:
      - { node: h00001 }
      - { node: h00002, membership: limited }
qos:
  ca:
    operational-vls: 4
    sl2vl: [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
YAML
if ! sim_start v "$srcdir/tests/topologies/ft2-k8.topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
rc=0
sim_run v --timeout 300 "${vg[@]}" "$LOOMD" --once -c "$tmp/loom.yaml" --state-dir "$tmp/s" \
	>"$tmp/once.log" 2>&1 || rc=$?
tap_is "loomd --once under valgrind: exit 0, no error" "$rc" 0 ||
	tap_diag "$(grep -v ibwarn "$tmp/once.log" | head -n 40)"

sim_run v --timeout 300 --out "$tmp/d.log" "${vg[@]}" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/s" --sweep-interval 1 &
bg=$!
log_wait "$tmp/d.log" 'SUBNET UP' 60
tap_check "daemon under valgrind reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/d.log"
sleep 2 # a few light sweeps
sim_signal v HUP
sleep 3
sim_signal v TERM
rc=0
wait "$bg" || rc=$?
tap_is "daemon under valgrind: SIGHUP, light sweeps, SIGTERM: exit 0, no error" "$rc" 0 ||
	tap_diag "$(grep -v ibwarn "$tmp/d.log" | head -n 40)"
tap_check "daemon: the SIGHUP was taken" grep -q 'SIGHUP: .* reloaded' "$tmp/d.log"
tap_done
