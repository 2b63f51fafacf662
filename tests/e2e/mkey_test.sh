#!/bin/bash
# loomd's M_Key protection (loom.yaml mkey:, IBA 14.2.4) on the rig's M_Key
# layer (SIM_MKEY=1, tests/rig/README "M_Key"), judged by smpquery:
#  - loomd with mkey protect 2 brings the fabric up; every node's key (switch
#    port 0, each CA port) is HMAC-SHA256(secret, node GUID)[0..7], computed
#    here with openssl from the secret file, at protect 2;
#  - the secret file is 0600, 32 bytes; a looser mode stops loomd;
#  - smpquery without the key gets no answer; with it, it does;
#  - loomd restarted on the same state dir sweeps the keyed fabric again,
#    no LID changes;
#  - a second loomd at another host with its own state dir (another secret)
#    cannot sweep or change a port; the traps 256 its SMPs cause are
#    counted in `loom status` of the first.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
. "$srcdir/tests/lib/mkey.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/single-switch.topo
LOOMD=${LOOMD:-$builddir/loomd/loomd}
LOOM=${LOOM:-$builddir/tools/loom}

need_tools ibsim smpquery openssl
SIM_MKEY_PROXY=$(readlink -f "${SIM_MKEY_PROXY:-$builddir/tests/rig/mkeyproxy}")
if ! [ -x "$SIM_MKEY_PROXY" ]; then
	echo "Bail out! no tests/rig/mkeyproxy (run through make check)"
	exit 1
fi
export SIM_MKEY_PROXY

SW=0,1   # sw1 from any host; its port 0 holds the switch's key
H1=0     # h1's own port, from h1
H2=0,1,2 # h2's port, from h1 through sw1

fails() { ! "$@" >/dev/null; }

# node_guid NAME HOST DRPATH KEY: NodeGUID read with KEY.
node_guid() {
	sim_run "$1" --host "$2" --timeout 30 smpquery -y "$4" -D nodeinfo "$3" 2>/dev/null |
		sed -n 's/^Guid:\.*//p'
}

if ! SIM_MKEY=1 sim_start m "$topo"; then
	tap_check "simulator behind mkeyproxy starts" false
	tap_done
	exit
fi
cat >"$tmp/loom.yaml" <<YAML
mkey:
  protect: 2
  lease: 0s
YAML
state=$tmp/state1
SIM_RMPP=1 sim_run m --timeout 120 --out "$tmp/once.log" "$LOOMD" -c "$tmp/loom.yaml" --once \
	--state-dir "$state"
tap_is "loomd with mkey protect 2 reaches SUBNET UP" "$?" 0 || tap_diag "$(tail -5 "$tmp/once.log")"
secret=$state/mkey.secret
tap_is "the secret is created 0600, 32 bytes" "$(stat -c '%a %s' "$secret" 2>/dev/null)" "600 32"

ok=0 n=0
for hp in "h1 $H1" "h1 $SW" "h1 $H2"; do
	set -- $hp
	n=$((n + 1))
	# The node's GUID from ibsim itself, past the proxy.
	g=$(SIM_MKEY_BYPASS=1 node_guid m "$1" "$2" 0)
	want=$(mkey_derive "$secret" "$g")
	pi=$(mkey_pi m "$1" "$2" 0 "$want")
	tap_diag "node $g at $2: $pi (derived key $want)"
	[ -n "$g" ] && [ "$(mkey_field "$pi" mkey)" = "$want" ] &&
		[ "$(mkey_field "$pi" protect)" = 2 ] && ok=$((ok + 1))
done
tap_is "every node's M_Key is its derivation, at protect 2 ($ok of $n)" "$ok" "$n"
lids() { # the LIDs of h1, sw1, h2, read with their keys
	local out='' hp
	for hp in "$H1 $k_h1" "$SW $k_sw" "$H2 $k_h2"; do
		set -- $hp
		out+="$(mkey_field "$(mkey_pi m h1 "$1" 0 "$2")" lid) "
	done
	printf '%s\n' "$out"
}
k_h1=$(mkey_derive "$secret" "$(SIM_MKEY_BYPASS=1 node_guid m h1 "$H1" 0)")
k_sw=$(mkey_derive "$secret" "$(SIM_MKEY_BYPASS=1 node_guid m h1 "$SW" 0)")
k_h2=$(mkey_derive "$secret" "$(SIM_MKEY_BYPASS=1 node_guid m h1 "$H2" 0)")

# ---- without the key: nothing answers --------------------------------------------
tap_check "smpquery PortInfo of sw1 without the key gets no answer" fails mkey_pi m h2 "$SW" 0
tap_check "smpquery NodeInfo of h1 (from h2) without the key gets no answer" \
	fails node_guid m h2 0,1,1 0
tap_check "... with sw1's key, h1's NodeInfo still gets none (keys are per node)" \
	fails node_guid m h2 0,1,1 "$k_sw"
tap_check "... with h1's own key it answers" test -n "$(node_guid m h2 0,1,1 "$k_h1")"
lids0=$(lids)
tap_diag "LIDs h1 sw1 h2: $lids0"

# ---- a restarted loomd (same state dir) keeps managing the keyed fabric ----------
sock=$tmp/control
status() { "$LOOM" status --control "$sock" "$@"; }
wait_up() {
	for _ in $(seq 1 120); do
		status 2>/dev/null | grep -q '^subnet: UP$' && return 0
		sleep 0.5
	done
	return 1
}
SIM_RMPP=1 sim_run m --timeout 300 --out "$tmp/loomd.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$state" --control "$sock" &
bg=$!
tap_check "restarted loomd (same secret) reaches SUBNET UP on the keyed fabric" wait_up ||
	tap_diag "$(tail -5 "$tmp/loomd.log")"
out=$("$LOOM" sweep --heavy --timeout 60 --control "$sock" 2>&1)
tap_is "... and a heavy sweep works (loom sweep --heavy exits 0)" "$?" 0 || tap_diag "$out"
tap_diag "$out"
tap_is "... no LID changed" "$(lids)" "$lids0"
pi=$(mkey_pi m h1 "$SW" 0 "$k_sw")
tap_is "... sw1 keeps its key and protect 2" \
	"$(mkey_field "$pi" mkey) $(mkey_field "$pi" protect)" "$k_sw 2"

# ---- a second loomd at h2, another state dir (another secret) --------------------
traps0=$(status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"]["trap256"])')
SIM_RMPP=1 sim_run m --host h2 --timeout 60 --out "$tmp/other.log" "$LOOMD" \
	-c "$tmp/loom.yaml" --once --state-dir "$tmp/state2" --mad-retries 0
tap_check "a loomd at h2 with another secret cannot bring the fabric up" test $? -ne 0
tap_diag "$(grep -m 2 'warning\|error' "$tmp/other.log")"
tap_is "... no LID changed" "$(lids)" "$lids0"
ok=0
for hp in "$H1 $k_h1" "$SW $k_sw" "$H2 $k_h2"; do
	set -- $hp
	pi=$(mkey_pi m h1 "$1" 0 "$2")
	[ "$(mkey_field "$pi" mkey) $(mkey_field "$pi" protect) $(mkey_field "$pi" state)" = \
		"$2 2 Active" ] && ok=$((ok + 1))
done
tap_is "... every node keeps loomd's key, protect 2, Active" "$ok" 3
for _ in $(seq 1 20); do
	traps=$(status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"]["trap256"])')
	[ "${traps:-0}" -gt "${traps0:-0}" ] && break
	sleep 0.5
done
tap_check "the traps 256 its SMPs caused are counted in loom status ($traps0 -> $traps)" \
	test "${traps:-0}" -gt "${traps0:-0}"
status >"$tmp/status"
tap_check "loom status shows the M_Key line" grep -qE '^M_Key: protect 2, [1-9][0-9]* traps 256' \
	"$tmp/status"
tap_diag "$(grep M_Key "$tmp/status")"
tap_check "loomd logged the Bad M_Key trap" grep -q 'trap 256 (Bad M_Key)' "$tmp/loomd.log"
sim_signal m TERM
wait "$bg"
tap_is "loomd stops on SIGTERM with status 0" "$?" 0

# ---- the secret's mode -------------------------------------------------------------
cp -a "$state" "$tmp/state3"
chmod 0644 "$tmp/state3/mkey.secret"
SIM_RMPP=1 sim_run m --timeout 60 --out "$tmp/loose.log" "$LOOMD" -c "$tmp/loom.yaml" --once \
	--state-dir "$tmp/state3"
tap_check "a secret readable by others: loomd refuses to start" test $? -ne 0
tap_check "... and says to make it 0600" grep -q 'mode 0600' "$tmp/loose.log"
tap_done
