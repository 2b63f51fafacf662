#!/bin/bash
# loomd as systemd sees it (Type=notify, sd_notify(3)): this test plays
# systemd's side on a notify socket of its own. READY=1 comes once, at the
# first SUBNET UP, with STATUS= saying so and naming the engine; WATCHDOG=1
# keeps coming (sd-event sends it every half of WATCHDOG_USEC); SIGHUP gives RELOADING=1 (with
# MONOTONIC_USEC) and then READY=1; SIGTERM gives STOPPING=1 and exit 0.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
listener=
sim_trap_exit '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$tmp"'

# systemd's end: every datagram, one line per assignment, "SECONDS VAR=VALUE".
python3 - "$tmp/notify" "$tmp/got" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
t0 = time.monotonic()
with open(sys.argv[2], "a", buffering=1) as out:
    s.settimeout(120)
    while True:
        try:
            msg = s.recv(4096).decode(errors="replace")
        except socket.timeout:
            break
        for line in msg.split("\n"):
            if line:
                out.write("%.3f %s\n" % (time.monotonic() - t0, line))
PY
listener=$!
for _ in $(seq 50); do [ -S "$tmp/notify" ] && break; sleep 0.1; done
tap_check "the test's notify socket is up" test -S "$tmp/notify"

# Wait (bounded) for a line matching RE in what loomd sent.
got() { log_wait -E "$tmp/got" "$1" "${2:-20}"; } # RE [SECS]

if ! sim_start n "$srcdir/tests/topologies/ft2-k8.topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
: >"$tmp/got"
sim_run n --timeout 120 --out "$tmp/loomd.log" env NOTIFY_SOCKET="$tmp/notify" \
	WATCHDOG_USEC=2000000 "$LOOMD" --state-dir "$tmp/state" --control "$tmp/control" &
bg=$!
tap_check "READY=1 once the subnet is up" got '^[0-9.]+ READY=1$' 30 ||
	tap_diag "$(tail -n 5 "$tmp/loomd.log")"
tap_check "STATUS= says SUBNET UP and names the engine" got '^[0-9.]+ STATUS=SUBNET UP; routed with ftree'
tap_is "READY=1 only once before any reload" "$(grep -c ' READY=1$' "$tmp/got")" 1
sleep 3
# ... and longer on a loaded machine: wait (60 s at most) for the second.
log_wait -n 2 "$tmp/got" ' WATCHDOG=1$' 60
wd=$(awk '$2 == "WATCHDOG=1" { print $1 }' "$tmp/got")
n=$(wc -w <<<"$wd")
tap_check "WATCHDOG=1 keeps coming (every 1 s of a 2 s watchdog: $n in 3 s or more)" test "$n" -ge 2
# The gaps are the machine's business, not a verdict (never fail on time): shown.
tap_diag "largest gap between WATCHDOG=1: $(awk 'NR > 1 && $1 - p > m { m = $1 - p } { p = $1 } END { printf "%.3f", m + 0 }' <<<"$(tr ' ' '\n' <<<"$wd")") s"

ready=$(grep -c ' READY=1$' "$tmp/got")
sim_signal n HUP
tap_check "SIGHUP: RELOADING=1 with MONOTONIC_USEC" got '^[0-9.]+ RELOADING=1$' &&
	tap_check "... MONOTONIC_USEC= beside it" got '^[0-9.]+ MONOTONIC_USEC=[0-9]+$'
log_wait -n $((ready + 1)) "$tmp/got" ' READY=1$' 20
tap_check "SIGHUP: then READY=1 again" test "$(grep -c ' READY=1$' "$tmp/got")" -gt "$ready"
tap_check "... in that order" awk '$2 == "RELOADING=1" { r = NR } $2 == "READY=1" && r && NR > r { ok = 1 } END { exit !ok }' "$tmp/got"

sim_signal n TERM
rc=0
wait "$bg" || rc=$?
tap_is "SIGTERM: loomd exits 0" "$rc" 0
tap_check "SIGTERM: STOPPING=1 was sent" got '^[0-9.]+ STOPPING=1$' 5
sim_stop n
tap_done
