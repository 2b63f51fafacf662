# shellcheck shell=bash
# What a loomd sent, as tests/rig/libsmplog_shim.so logs it (one line an
# SMP: METHOD ATTR TO ..., TO a directed route or lid:N), and which node a
# directed route reaches. Sourced after sim.sh; used by the tests that count
# a sweep's SMPs on the wire (leaf_back_test, leaf_whole_back_test).

# wire_dr WIRE FROM: the directed-route SMPs from line FROM on.
wire_dr() { tail -n +"$2" "$1" | awk '$3 !~ /^lid:/'; }

# dr_guid SIM PATH: the node GUID directed route PATH reaches from SIM's
# first host (smpquery -D nodeinfo: loomd's port there, so the node loomd's
# SMP on that route reached), "none" if nothing answers. Cached per PATH:
# the tests ask it once for each line on the wire.
declare -gA _DR_GUID=()
dr_guid() {
	if [ -z "${_DR_GUID[$1 $2]:-}" ]; then
		_DR_GUID[$1 $2]=$(sim_run "$1" smpquery -D nodeinfo "$2" 2>/dev/null |
			sed -nE 's/^Guid:\.*(0x[0-9a-f]+)$/\1/p')
		_DR_GUID[$1 $2]=${_DR_GUID[$1 $2]:-none}
	fi
	printf '%s\n' "${_DR_GUID[$1 $2]}"
}

# leaf_uplinks TOPO LEAF CMD: the console lines 'CMD "LEAF"[PORT]' for each of
# LEAF's links to a spine (Unlink takes them down, ReLink up).
leaf_uplinks() {
	sim_topo_links "$1" | awk -F'\t' -v l="$2" -v c="$3" '$1 == l && $3 ~ /spine/ {
		printf "%s \"%s\"[%s]\n", c, $1, $2 }'
}
