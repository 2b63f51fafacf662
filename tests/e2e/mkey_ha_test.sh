#!/bin/bash
# M_Key protection (loom.yaml mkey:, IBA 14.2.4) across an HA failover
# (IBA 14.4), on the rig's M_Key layer (SIM_MKEY=1, tests/rig/README) and a
# small fat tree (fattree2 -k 4: 6 switches, 8 hosts):
#  - loomd A (priority 10, protect 2) keys every node; B (priority 5) gets a
#    copy of A's mkey.secret (0600), as an operator copies it, and nothing
#    else (no mkey.links, no mkey.paths: B is attached elsewhere);
#  - B reads its own port with its key, asks the SA of its MasterSMLID (A)
#    for the fabric's links (NodeRecords, LinkRecords), and from then reads
#    the protected fabric with the right keys: it finds A, goes standby,
#    polls it and compares its routing with the LFTs it reads back, and the
#    proxy logs no wrong key (0 M_Key violations);
#  - SIGKILL A: B takes over with the same keys: 0 wrong keys, 0 LID and 0
#    LFT changes, `loom status` shows 0 traps 256 and no foreign node; every
#    node keeps its key at protect 2; a keyless ibportstate Set still fails;
#  - a loomd C without the secret says that it cannot read the protected
#    fabric or take over, and changes nothing; a loomd D with the secret
#    whose SA requests the master drops (another sm.sm-key) learns no
#    links, says so and does not elect itself master of what it can read;
#  - A restarted: B hands over, 0 wrong keys, 0 LID and 0 LFT changes.
# Tools read the fabric past the proxy (SIM_MKEY_BYPASS=1) where they have no
# key. Times are reported, never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-$builddir/loomd/loomd}
LOOM=${LOOM:-$builddir/tools/loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/ha.sh"
. "$srcdir/tests/lib/sa.sh"
. "$srcdir/tests/lib/mkey.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'
HA=h00001 HB=h00005 HC=h00003 HD=h00007 # A, B: the SMs; C: asks; D: the SM without secret
POLL_MS=300

need_tools ibsim smpquery ibportstate ibnetdiscover openssl xxd python3
SIM_MKEY_PROXY=$(readlink -f "${SIM_MKEY_PROXY:-$builddir/tests/rig/mkeyproxy}")
if ! [ -x "$SIM_MKEY_PROXY" ]; then
	echo "Bail out! no tests/rig/mkeyproxy (run through make check)"
	exit 1
fi
export SIM_MKEY_PROXY
topo=$tmp/ft2-k4.topo
python3 "$srcdir/contrib/topogen.py" fattree2 -k 4 -o "$topo"
SIM_MKEY=1 ha_sim "$topo" "simulator behind mkeyproxy starts"

mkey_conf() { # NAME PRIORITY
	ha_conf "$1" "$2" "$POLL_MS"
	printf 'mkey:\n  protect: 2\n  lease: 0s\n' >>"$tmp/$1.yaml"
}
wrong_keys() { mkey_proxy_count F 'wrong key'; }
status_json() { # NAME FIELD...: a field of loom status --json
	"$LOOM" status --json --control "$tmp/$1.sock" 2>/dev/null |
		python3 -c 'import json,sys
v = json.load(sys.stdin)
for k in sys.argv[1:]: v = v[k]
print(v)' "${@:2}"
}
# From host C (h00003 on leaf002 port 1): leaf002, spine001 and h00001's port,
# each read with the key derived from its node GUID (read past the proxy);
# "SUM in N": their PortInfo:M_KeyViolations summed, N read, in $tmp/violations.
keys_ok() { # SECRETFILE: how many of the three hold their derivation at protect 2
	local ok=0 p g want pi v=0 n=0 x
	for p in 0,1 0,1,3 0,1,3,1,1; do
		g=$(SIM_MKEY_BYPASS=1 sim_run F --host "$HC" --timeout 30 smpquery -D nodeinfo "$p" \
			2>/dev/null | sed -n 's/^Guid:\.*//p')
		want=$(mkey_derive "$1" "$g")
		pi=$(mkey_pi F "$HC" "$p" 0 "$want")
		[ -n "$g" ] && [ "$(mkey_field "$pi" mkey) $(mkey_field "$pi" protect)" = "$want 2" ] &&
			ok=$((ok + 1))
		x=$(mkey_field "$pi" violations)
		[ -n "$x" ] && v=$((v + x)) n=$((n + 1))
	done
	echo "$v in $n" >"$tmp/violations"
	echo "$ok"
}

# ---- A, the master, keys the fabric -------------------------------------------------
mkey_conf A 10
mkey_conf B 5
# The SA's GetTable answers are RMPP: the rig's shim reassembles them.
export SIM_RMPP=1
ha_master A "$HA" "A (priority 10, mkey protect 2): master, SUBNET UP"
tap_is "A's state dir: mkey.secret 0600, 32 bytes" \
	"$(stat -c '%a %s' "$tmp/A.state/mkey.secret" 2>/dev/null)" "600 32"
tap_check "A's state dir: mkey.links, one line a link end (32 of 16 links)" \
	test "$(grep -vc '^#' "$tmp/A.state/mkey.links" 2>/dev/null)" -eq 32
tap_is "every node holds its derived key at protect 2 (3 of 3 looked at)" \
	"$(keys_ok "$tmp/A.state/mkey.secret")" 3
# As an operator would: the secret (0600, the user loomd runs as), nothing else.
mkdir -p "$tmp/B.state"
install -m 0600 "$tmp/A.state/mkey.secret" "$tmp/B.state/mkey.secret"
w0=$(wrong_keys)
tap_diag "wrong keys in the proxy's log after A's bring-up: $w0"

# ---- B, standby, reads the protected fabric ------------------------------------------
ha_standby B "$HB" "B (priority 5, A's secret only): STANDBY, master A found"
tap_check "B learned the fabric's 32 link ends from A's SA before discovering" \
	grep -qE 'M_Key: 32 links learned from the master.s SA' "$tmp/B.log" ||
	tap_diag "$(grep 'SM' "$tmp/B.log" | head -n 6)"
tap_check "... and keeps them in its state dir (mkey.links)" \
	test "$(grep -vc '^#' "$tmp/B.state/mkey.links" 2>/dev/null)" -eq 32
log_wait -E "$tmp/B.log" 'SM: standby: ' 30
tap_check "B as standby reads A's LFTs back with the keys: would change nothing" \
	grep -q 'SM: standby: as master this SM would route with .* and change nothing' \
	"$tmp/B.log" || tap_diag "$(grep 'SM: standby' "$tmp/B.log")"
sleep 1 # a few polls
tap_is "B's discovery, polls and reads: 0 wrong M_Keys at the proxy" "$(wrong_keys)" "$w0"
tap_check "B logged no M_Key trouble" test "$(grep -c 'warning.*M_Key\|error.*M_Key' "$tmp/B.log")" -eq 0
tap_is "A's loom status: 0 traps 256" "$(status_json A counters trap256)" 0
SIM_MKEY_BYPASS=1 ha_lids >"$tmp/lids.before"
SIM_MKEY_BYPASS=1 sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
gb=$(ha_guid "$HB") ga=$(ha_guid "$HA")

# ---- SIGKILL A: B takes over, keys and all -----------------------------------------
pa=$(ha_pid A)
tap_check "A's loomd found (pid ${pa:-none})" test -n "$pa"
t0=$(ha_ms)
[ -z "$pa" ] || kill -KILL $pa
log_wait -E "$tmp/B.log" 'STANDBY -> DISCOVERING' 30
log_wait -E "$tmp/B.log" 'SUBNET UP' 30
t1=$(ha_ms)
tap_check "B takes over: DISCOVERING -> MASTER, the master is gone" \
	grep -q 'DISCOVERING -> MASTER: the master is gone' "$tmp/B.log" ||
	tap_diag "$(tail -n 8 "$tmp/B.log")"
tap_diag "takeover: SIGKILL -> SUBNET UP as master $((t1 - t0)) ms (poll ${POLL_MS} ms x 3)"
SIM_MKEY_BYPASS=1 ha_nothing_changed failover B "$gb"
tap_is "takeover: 0 wrong M_Keys at the proxy" "$(wrong_keys)" "$w0"
tap_is "B's loom status: 0 traps 256" "$(status_json B counters trap256)" 0
tap_is "B's loom status: 0 nodes with another SM's key" "$(status_json B mkey foreign_nodes)" 0
"$LOOM" status --control "$tmp/B.sock" >"$tmp/B.status" 2>&1
tap_check "B's loom status: M_Key protect 2, 0 traps 256" \
	grep -qE '^M_Key: protect 2, 0 traps 256' "$tmp/B.status" || tap_diag "$(cat "$tmp/B.status")"
tap_is "every node keeps its derived key at protect 2 (3 of 3)" \
	"$(keys_ok "$tmp/A.state/mkey.secret")" 3
tap_is "... and counts 0 M_KeyViolations (PortInfo, 3 nodes)" "$(cat "$tmp/violations")" "0 in 3"
sim_run F --host "$HC" --timeout 30 ibportstate -D 0,1 2 disable >"$tmp/ps.out" 2>&1
tap_check "a keyless ibportstate Set (disable leaf002 port 2) from host C still fails" \
	test $? -ne 0
pi=$(SIM_MKEY_BYPASS=1 sim_run F --host "$HC" --timeout 30 smpquery -D portinfo 0,1 2 2>/dev/null |
	sed -n 's/^LinkState:\.*//p')
tap_is "... and leaf002 port 2 stays Active" "$pi" Active

# ---- C: a loomd without the secret -------------------------------------------------
mkey_conf C 1
w1=$(wrong_keys)
ha_loomd C "$HD"
log_wait -E "$tmp/C.log" 'M_Key: .*cannot read its nodes' 30
tap_check "C (no secret: a new one is created) says it cannot read the protected fabric" \
	grep -q 'M_Key: .*cannot read its nodes, find its master or take over' "$tmp/C.log" ||
	tap_diag "$(tail -n 5 "$tmp/C.log")"
tap_check "... and names the file to copy" grep -q 'Copy that SM.s mkey.secret' "$tmp/C.log"
tap_diag "C's SMPs the proxy dropped: $(($(wrong_keys) - w1))"
sleep 1
out=$(SIM_MKEY_BYPASS=1 ha_sminfo)
tap_check "B stays master" grep -qE "sm guid 0x0*${gb#0*},.* state 3" <<<"$out" || tap_diag "$out"
tap_is "C changed no key (3 of 3 nodes keep theirs)" "$(keys_ok "$tmp/A.state/mkey.secret")" 3
SIM_MKEY_BYPASS=1 ha_lids >"$tmp/lids.C"
tap_check "C changed no LID" diff -u "$tmp/lids.before" "$tmp/lids.C"
ha_stop TERM C

# ---- D: the secret, but the master's SA will not answer it ---------------------------
# Another sm.sm-key: its GetTables are dropped unanswered (IBA 15.2.1.1), so
# it learns no links, and its discovery meets nodes it has no key for.
mkey_conf D 1
sed -i 's/^sm:$/sm:\n  sm-key: 0x77/' "$tmp/D.yaml"
mkdir -p "$tmp/D.state"
install -m 0600 "$tmp/A.state/mkey.secret" "$tmp/D.state/mkey.secret"
ha_loomd D "$HD"
log_wait -E "$tmp/D.log" 'not electing|-> MASTER' 40
tap_check "D (secret, no links, the SA silent): says an SM may be beyond, does not elect" \
	grep -q 'an SM may be beyond them: not electing' "$tmp/D.log" ||
	tap_diag "$(grep 'SM' "$tmp/D.log" | tail -n 5)"
tap_check "... and never becomes MASTER" test "$(grep -c -- '-> MASTER' "$tmp/D.log")" -eq 0
out=$(SIM_MKEY_BYPASS=1 ha_sminfo)
tap_check "... B stays master" grep -qE "sm guid 0x0*${gb#0*},.* state 3" <<<"$out" || tap_diag "$out"
ha_stop TERM D

# ---- A comes back: B hands over, A keeps the keys -------------------------------------
w2=$(wrong_keys)
ha_loomd A "$HA" A2
log_wait -E "$tmp/A2.log" 'SUBNET UP' 30
tap_check "A restarted (its own state dir): B hands over, A is master again" \
	grep -q 'SMInfo Set ACKNOWLEDGE to SM.*answered' "$tmp/A2.log" ||
	tap_diag "$(grep 'SM' "$tmp/A2.log" | tail -n 5)"
SIM_MKEY_BYPASS=1 ha_nothing_changed handover A2 "$ga"
tap_is "handover: 0 wrong M_Keys at the proxy" "$(wrong_keys)" "$w2"
tap_is "... every node keeps its derived key at protect 2 (3 of 3)" \
	"$(keys_ok "$tmp/A.state/mkey.secret")" 3
ha_stop TERM A B
tap_done
