#!/bin/bash
# The rig's M_Key layer (tests/rig/README, "M_Key"), proven on OpenSM's
# m_key options before loomd relies on it. On the smallest fabric with a
# switch (h1, h2, sw1), OpenSM at h1 sets one M_Key everywhere; host tools
# at h2 without it are judged by what infiniband-diags get back:
#   level 2: smpquery times out (PortInfo, NodeInfo); with -y KEY it answers
#     and shows the key; ibportstate's Set is refused and the key stays;
#     M_KeyViolations counts; trap 256 reaches OpenSM (its log says
#     "num:256"); a second SM at h2 without OpenSM's guid2mkey changes
#     nothing; past the proxy (SIM_MKEY_BYPASS=1) the same query answers;
#   level 1: smpquery answers with M_Key 0; ibportstate's Sets (a new
#     M_Key, disabling a port) are refused and change nothing;
#   level 3: as level 2 for a Get;
#   lease: once a wrong key started the countdown and M_KeyLeasePeriod
#     passed, protection is 0 and the key reads back (bounded wait);
#   and without the layer (a plain simulator), OpenSM's keys protect
#   nothing: the wrong-key query answers.
# Last, loomd (with the RMPP shim) sweeps through the proxy, and fails to
# once OpenSM keyed the fabric: loomd's M_Key support starts from there.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
. "$srcdir/tests/lib/mkey.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/single-switch.topo

need_tools ibsim opensm smpquery ibportstate
SIM_MKEY_PROXY=$(readlink -f "${SIM_MKEY_PROXY:-$builddir/tests/rig/mkeyproxy}")
if ! [ -x "$SIM_MKEY_PROXY" ]; then
	echo "Bail out! no tests/rig/mkeyproxy (run through make check)"
	exit 1
fi
export SIM_MKEY_PROXY

K=0x00c0ffee12345678 # OpenSM's M_Key
W=0x0000000000bad0bd # a wrong one
SW=0,1               # sw1 from any host; its port 0 holds the switch's key
H1=0,1,1             # h1's port, from h2 through sw1

fails() { ! "$@" >/dev/null; }
quiet() { "$@" >/dev/null 2>&1; }

# expect_pi DESC LINE FIELD=VALUE...: every field of an mkey_pi line as said.
expect_pi() {
	local desc=$1 line=$2 kv got want=''
	shift 2
	got=''
	for kv in "$@"; do
		got+="${kv%%=*}=$(mkey_field "$line" "${kv%%=*}") "
		want+="$kv "
	done
	tap_is "$desc" "$got" "$want"
}

# ---- level 2, OpenSM running: timeouts, key, Set refused, trap 256 ----------------
if ! SIM_MKEY=1 sim_start m "$topo"; then
	tap_check "simulator behind mkeyproxy starts" false
	tap_done
	exit
fi
dir=$(sim_dir m)
mkey_opensm_conf "$dir/lvl2.conf" "$K" 2
sim_run m --timeout 300 --out "$tmp/osm.out" opensm -d2 -F "$dir/lvl2.conf" \
	-f "$tmp/osm.log" --dump_files_dir "$dir" &
osm=$!
tap_check "level 2: OpenSM reaches SUBNET UP through the proxy" log_wait "$tmp/osm.log" 'SUBNET UP'

pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "level 2: sw1 port 0 holds OpenSM's M_Key at protect 2 (smpquery -y KEY)" "$pi" \
	mkey="$K" protect=2 lease=0
pi=$(mkey_pi m h2 "$H1" 0 "$K")
expect_pi "level 2: so does h1's port" "$pi" mkey="$K" protect=2
pi=$(mkey_pi m h2 0 0 "$K")
expect_pi "level 2: and h2's own port" "$pi" mkey="$K" protect=2
v0=$(mkey_field "$(mkey_pi m h2 "$SW" 0 "$K")" violations)

tap_check "level 2: smpquery PortInfo without the key gets no answer" \
	fails mkey_pi m h2 "$SW" 0
tap_check "level 2: smpquery NodeInfo without the key gets no answer" \
	fails quiet sim_run m --host h2 --timeout 30 smpquery -D nodeinfo "$SW"
tap_check "level 2: ... nor with a wrong key" fails mkey_pi m h2 "$SW" 0 "$W"
tap_check "level 2: trap 256 (Bad M_Key) reaches OpenSM" log_wait "$tmp/osm.log" 'num:256'
tap_check "level 2: ... naming sw1, PortInfo Get and the wrong key" log_wait "$tmp/osm.log" \
	'"Bad M_Key" from LID [0-9]*, GUID 0x0000000000200000, Method 0x1, Attribute 0x15, AttrMod 0x0, M_Key '"$W"
tap_diag "$(grep -m 2 'num:256\|"Bad M_Key"' "$tmp/osm.log")"
v1=$(mkey_field "$(mkey_pi m h2 "$SW" 0 "$K")" violations)
tap_check "level 2: M_KeyViolations counted them ($v0 -> $v1)" test "${v1:-0}" -gt "${v0:-0}"

sim_run m --host h2 --timeout 30 ibportstate -D "$SW" 0 mkey "$W" >"$tmp/ps.out" 2>&1
tap_check "level 2: ibportstate mkey without the key fails" test $? -ne 0
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "level 2: ... and sw1 keeps OpenSM's key and protect 2" "$pi" mkey="$K" protect=2

pi=$(SIM_MKEY_BYPASS=1 mkey_pi m h2 "$SW" 0)
tap_check "negative control: past the proxy the same query answers ($pi)" test -n "$pi"

# A second SM at h2, without OpenSM's guid2mkey (its own cache dir): every
# SMP it sends is refused, so it changes no port.
mkdir -p "$tmp/osm2"
mkey_opensm_conf "$tmp/osm2.conf" 0 0
lid_before=$(mkey_field "$(mkey_pi m h2 "$H1" 0 "$K")" lid)
drops=$(mkey_proxy_count m 'wrong key')
# Every SMP it sends fails at once, and it sweeps again: 20 s of trying.
sim_run m --host h2 --timeout 20 --out "$tmp/osm2.out" env OSM_CACHE_DIR="$tmp/osm2" \
	opensm -o -d2 -F "$tmp/osm2.conf" -f "$tmp/osm2.log" -p 15 --dump_files_dir "$tmp/osm2" \
	2>/dev/null
tap_diag "second SM at h2 ended with status $?"
tap_check "second SM without the key: its SMPs were refused" \
	test "$(mkey_proxy_count m 'wrong key')" -gt "$drops"
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "second SM without the key: sw1 keeps its key and protect 2" "$pi" mkey="$K" protect=2
pi=$(mkey_pi m h2 "$H1" 0 "$K")
expect_pi "second SM without the key: h1 keeps its key and LID" "$pi" mkey="$K" protect=2 \
	lid="$lid_before"

sim_signal m TERM
wait "$osm"
tap_diag "proxy: $(mkey_proxy_count m 'wrong key') SMPs dropped," \
	"$(mkey_proxy_count m 'trap 256 from') traps sent"

# ---- level 1: a Get reads M_Key 0, a Set is refused --------------------------------
mkey_opensm_conf "$dir/opensm.conf" "$K" 1
tap_check "level 1: OpenSM sweeps with protect 1" sim_opensm m
pi=$(mkey_pi m h2 "$SW" 0)
expect_pi "level 1: smpquery without the key answers, M_Key reads 0" "$pi" \
	mkey=0x0000000000000000 protect=1
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "level 1: with the key it reads OpenSM's" "$pi" mkey="$K" protect=1
sim_run m --host h2 --timeout 30 ibportstate -D "$SW" 0 mkey "$W" >"$tmp/ps1.out" 2>&1
tap_check "level 1: ibportstate mkey without the key fails" test $? -ne 0
sim_run m --host h2 --timeout 30 ibportstate -D "$SW" 1 disable >"$tmp/ps2.out" 2>&1
tap_check "level 1: ibportstate disable (sw1 port 1) without the key fails" test $? -ne 0
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "level 1: ... sw1 keeps its key" "$pi" mkey="$K" protect=1
pi=$(mkey_pi m h2 "$SW" 1 "$K")
expect_pi "level 1: ... and port 1 stays Active" "$pi" state=Active
tap_check "level 1: the proxy hid the key from the keyless Get" \
	test "$(mkey_proxy_count m 'M_Key reads 0')" -gt 0

# ---- level 3 ----------------------------------------------------------------------
mkey_opensm_conf "$dir/opensm.conf" "$K" 3
tap_check "level 3: OpenSM sweeps with protect 3" sim_opensm m
tap_check "level 3: smpquery without the key gets no answer" \
	fails mkey_pi m h2 "$SW" 0
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "level 3: with the key it answers" "$pi" mkey="$K" protect=3

# ---- the lease: protection ends once M_KeyLeasePeriod passed after a failure ----------
mkey_opensm_conf "$dir/opensm.conf" "$K" 2 3 2
tap_check "lease: OpenSM sweeps with protect 2, lease 3 s" sim_opensm m
pi=$(mkey_pi m h2 "$SW" 0 "$K")
expect_pi "lease: sw1 has lease 3" "$pi" mkey="$K" protect=2 lease=3
tap_check "lease: a keyless query fails (and starts the countdown)" \
	fails mkey_pi m h2 "$SW" 0
pi=''
for ((i = 0; i < 120; i++)); do # the lease is 3 s; a loaded machine gets 60
	pi=$(mkey_pi m h2 "$SW" 0) && break
	sleep 0.5
done
expect_pi "lease: after it, a keyless query answers: protect 0, the key readable" "$pi" \
	mkey="$K" protect=0
sim_stop m

# ---- without the layer ---------------------------------------------------------------
if sim_start p "$topo"; then
	mkey_opensm_conf "$(sim_dir p)/opensm.conf" "$K" 2
	tap_check "no layer: OpenSM sweeps with protect 2" sim_opensm p
	pi=$(mkey_pi p h2 "$SW" 0)
	tap_check "no layer: the keyless query answers: ibsim enforces nothing ($pi)" test -n "$pi"
	sim_stop p
else
	tap_check "plain simulator starts" false
fi

# ---- loomd through the layer (its M_Key support builds on this) ----------------
LOOMD=${LOOMD:-loomd}
if command -v "$LOOMD" >/dev/null && SIM_MKEY=1 sim_start l "$topo"; then
	SIM_RMPP=1 sim_run l --timeout 120 --out "$tmp/loomd1.log" "$LOOMD" --once \
		--state-dir "$tmp/state"
	tap_is "loomd --once reaches SUBNET UP through the proxy (no keys yet)" "$?" 0 ||
		tap_diag "$(tail -5 "$tmp/loomd1.log")"
	mkey_opensm_conf "$(sim_dir l)/opensm.conf" "$K" 2
	tap_check "OpenSM keys the fabric at protect 2" sim_opensm l
	SIM_RMPP=1 sim_run l --timeout 120 --out "$tmp/loomd2.log" "$LOOMD" --once \
		--state-dir "$tmp/state"
	tap_check "loomd without the key cannot sweep it" test $? -ne 0
	tap_diag "$(grep -m 2 'warning\|error' "$tmp/loomd2.log")"
	sim_stop l
else
	tap_diag "no loomd (LOOMD=$LOOMD): its smoke checks skipped"
fi
tap_done
