#!/bin/bash
# The simulated-fabric harness (tests/lib/sim.sh) itself: two simulators side
# by side, each brought up by OpenSM at the same time, each seen by
# infiniband-diags exactly as its topology file says; a link cut and restored
# through one console without the other noticing; a simulator that dies is
# reported; everything is gone after sim_stop. TAP on stdout.
# TOPO_A / TOPO_B pick the fabrics (default: two of ibsim's examples).
set -euo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"

examples=/usr/share/doc/ibsim-utils/net-examples
TOPO_A=${TOPO_A:-$examples/net.2sw2path4hca}
TOPO_B=${TOPO_B:-$examples/net.2sw2path4hca2port}

# Without the tools there is nothing to test; in CI that is a failure.
for tool in ibsim opensm ibnetdiscover iblinkinfo; do
	if ! command -v "$tool" >/dev/null; then
		[ "${CI:-}" = true ] && { echo "Bail out! $tool not installed"; exit 1; }
		echo "1..0 # SKIP $tool not installed (contrib/setup-debian.sh --test)"
		exit 0
	fi
done

start=$SECONDS
sys_before=$(find . -maxdepth 1 -name 'sys-*' | wc -l)

# Links of a running fabric as "node port remote rport" (connected ports only),
# and the ones that are not Active/LinkUp.
links_of() { sim_links "$1" | awk -F'\t' '$5 != "-" { print $1 "\t" $2 "\t" $5 "\t" $6 }' | LC_ALL=C sort; }
not_active() { sim_links "$1" | awk -F'\t' '$5 != "-" && ($3 != "Active" || $4 != "LinkUp")'; }
gone() { ! kill -0 "$1" 2>/dev/null; }
refused() { ! "$@" 2>/dev/null; }
count() { printf 'switches=%s cas=%s' "$(grep -c '^Switch' <<<"$1")" "$(grep -c '^Ca' <<<"$1")"; }
port_state() { # NAME NODE PORT -> "STATE PHYS REMOTE RPORT"
	sim_links "$1" | awk -F'\t' -v n="$2" -v p="$3" '$1 == n && $2 == p { print $3, $4, $5, $6 }'
}

# 1. Two simulators at once.
for s in A B; do
	topo=TOPO_$s
	if ! sim_start "$s" "${!topo}"; then
		echo "Bail out! sim_start $s ${!topo} failed (see stderr)"
		exit 1
	fi
done
tap_check "two simulators run side by side" sim_alive A
tap_check "B runs too" sim_alive B
tap_check "they have different sockets" test "$(sim_sock A)" != "$(sim_sock B)"
tap_check "and different temp dirs" test "$(sim_dir A)" != "$(sim_dir B)"

# 2. OpenSM in both at the same time.
sim_opensm A & pa=$!
sim_opensm B & pb=$!
ra=0; wait "$pa" || ra=$?
rb=0; wait "$pb" || rb=$?
tap_is "A: opensm -o reaches SUBNET UP (run alongside B's)" "$ra" 0
tap_is "B: opensm -o reaches SUBNET UP (run alongside A's)" "$rb" 0
tap_check "A: OpenSM's dump files stay in the sim dir" test -e "$(sim_dir A)/opensm-subnet.lst"

# 3. and 4. Each fabric is exactly its file: nodes, counts, links, all Active.
for s in A B; do
	topo=TOPO_$s
	want=$(sim_topo_nodes "${!topo}")
	got=$(sim_nodes "$s") || got="ibnetdiscover failed"
	tap_is "$s: ibnetdiscover sees exactly the nodes of ${!topo##*/}" "$got" "$want"
	tap_is "$s: switch and CA counts" "$(count "$got")" "$(count "$want")"
	tap_is "$s: iblinkinfo shows exactly the links of the file" \
		"$(links_of "$s")" "$(sim_topo_links "${!topo}" | LC_ALL=C sort)"
	tap_is "$s: every link is Active/LinkUp" "$(not_active "$s")" ""
done

# 5. Cut A's first switch-to-switch link through the console.
switches=$(sim_topo_nodes "$TOPO_A" | awk -F'\t' '$1 == "Switch" { print $2 }')
link=$(sim_topo_links "$TOPO_A" | awk -F'\t' -v sw="$switches" '
	BEGIN { n = split(sw, a, "\n"); for (i = 1; i <= n; i++) is[a[i]] = 1 }
	is[$1] && is[$3] && !found { print; found = 1 }')
if [ -z "$link" ]; then
	tap_check "# SKIP $TOPO_A has no switch-to-switch link" true
else
	IFS=$'\t' read -r sw port rsw rport <<<"$link"
	want_a=$(sim_topo_links "$TOPO_A" | LC_ALL=C sort)
	want_b=$(sim_topo_links "$TOPO_B" | LC_ALL=C sort)
	tap_check "A: console Unlink \"$sw\"[$port] is acknowledged" \
		sim_console A "Unlink \"$sw\"[$port]"
	tap_is "A: $sw port $port is Down/Polling, unconnected" \
		"$(port_state A "$sw" "$port")" "Down Polling - -"
	tap_is "A: so is the far end, $rsw port $rport" \
		"$(port_state A "$rsw" "$rport")" "Down Polling - -"
	tap_is "A: the other links are all still there" "$(links_of A)" \
		"$(grep -v -e "^$sw	$port	" -e "^$rsw	$rport	" <<<"$want_a")"
	tap_is "A: and all Active" "$(not_active A)" ""
	tap_is "B: all its links are there (A's console does not reach B)" \
		"$(links_of B)" "$want_b"
	tap_is "B: and all Active" "$(not_active B)" ""

	# 6. Restore it. ibsim brings the link up in Initialize (LinkUp); only
	# an SM sweep makes it Active again.
	tap_check "A: console ReLink \"$sw\"[$port] is acknowledged" \
		sim_console A "ReLink \"$sw\"[$port]"
	tap_is "A: after ReLink the link is back, Initialize until an SM sweeps" \
		"$(port_state A "$sw" "$port")" "Initialize LinkUp $rsw $rport"
	tap_check "A: opensm -o again" sim_opensm A
	tap_is "A: all links back" "$(links_of A)" "$want_a"
	tap_is "A: and all Active" "$(not_active A)" ""
fi

# The console refuses what ibsim refuses.
tap_check "A: console reports an unknown node as a failure" \
	refused sim_console A 'Unlink "NoSuchNode"[1]'

# A simulator that dies under a running command is reported at once (not
# after the command's timeout), and so is one that is already dead.
if sim_start C "$TOPO_A"; then
	dir_c=$(sim_dir C)
	t0=$SECONDS
	# OpenSM without -o runs until stopped; ibsim dies under it.
	sim_run C --timeout 40 opensm -F "$dir_c/opensm.conf" -f "$dir_c/osm.log" \
		--dump_files_dir "$dir_c" >/dev/null 2>&1 & pc=$!
	sleep 0.5
	kill -KILL "$(sim_pid C)"
	rc=0; wait "$pc" || rc=$?
	tap_is "C: sim_run fails with 125 when ibsim dies under it" "$rc" 125
	tap_check "C: and says so within 5 s, not after its 40 s timeout" \
		test $((SECONDS - t0)) -lt 6
	rc=0; sim_run C ibnetdiscover >/dev/null 2>&1 || rc=$?
	tap_is "C: sim_run on a dead simulator fails with 125" "$rc" 125
	tap_check "C: sim_stop reports it had died" refused sim_stop C
	if [ "${KEEP_SIM_DIR:-0}" = 1 ]; then
		tap_check "C: keeps its dir (KEEP_SIM_DIR=1)" test -d "$dir_c"
	else
		tap_check "C: and still removes its dir" test ! -e "$dir_c"
	fi
else
	tap_check "C: sim_start" false
fi

# 7. Stop both: processes and temp dirs gone.
pid_a=$(sim_pid A) pid_b=$(sim_pid B) dir_a=$(sim_dir A) dir_b=$(sim_dir B)
tap_check "sim_stop A: ibsim quits when asked" sim_stop A
tap_check "sim_stop B: ibsim quits when asked" sim_stop B
tap_check "A's ibsim is gone" gone "$pid_a"
tap_check "B's ibsim is gone" gone "$pid_b"
if [ "${KEEP_SIM_DIR:-0}" = 1 ]; then
	tap_check "A's temp dir is kept (KEEP_SIM_DIR=1)" test -d "$dir_a"
	tap_check "B's temp dir is kept (KEEP_SIM_DIR=1)" test -d "$dir_b"
else
	tap_check "A's temp dir is removed" test ! -e "$dir_a"
	tap_check "B's temp dir is removed" test ! -e "$dir_b"
fi
tap_is "no umad2sim sys-* dirs left in the working directory" \
	"$(find . -maxdepth 1 -name 'sys-*' | wc -l)" "$sys_before"
tap_diag "took $((SECONDS - start)) s"
tap_done
