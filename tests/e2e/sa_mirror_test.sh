#!/bin/bash
# The SA mirror a standby keeps (sa/sa_mirror.h, issue 18), fetched from a
# master's SA by tests/rig/samirror (the code loomd runs: mad/umad.c's SA
# agent with kernel RMPP, the rig's shim here, and sa_mirror_fetch_run),
# judged against saquery, first with OpenSM as the master, then loomd:
#  - hosts join two groups (mcjoin), register two services (saservice) and
#    subscribe twice (sasub); samirror at another host lists exactly:
#  - the groups with their MLIDs that `saquery --smkey 1 -m` shows members
#    of (each also in `saquery -g` with that MLID), and every member's
#    PortGID and JoinState;
#  - the services `saquery SR` lists (ServiceID, name);
#  - the subscriptions `saquery --smkey 1 IIR` lists (subscriber, trap);
#  - with a wrong SM_Key the master discards the requests: no mirror.
# What OpenSM does not answer: its trusted MCMemberRecord table has one
# record a member, so a group without members (its IPoIB broadcast group
# before any host joins) is not in the mirror; loomd lists such a group
# with PortGID 0, so it is. Both checked below.
#  - on ft2-k8, 31 hosts in one group of loomd's: a 9-segment answer, whole.
# Fabric: tests/topologies/2sw2path.topo; the SM at Hca1, the mirror at Hca2.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/2sw2path.topo

need_tools ibsim opensm saquery
need_rig librmpp_shim.so librmpp_tail.so mcjoin saservice sasub samirror
G1=ff12:601b:ffff::4d01
G2=ff12:601b:ffff::4d02

# at SIM HOST CMD...: CMD at HOST under the shim, bounded.
at() {
	local s=$1 h=$2
	shift 2
	SIM_RMPP=1 sim_run "$s" --host "$h" --timeout 60 "$@"
}

# What clients make on the master: two groups, two services, two subscriptions.
populate() { # SIM LABEL
	local s=$1 l=$2
	at "$s" Hca2 "$rig/mcjoin" --timeout 3000 --create "$G1" >/dev/null
	tap_is "$l: Hca2 creates $G1" "$?" 0
	at "$s" Hca3 "$rig/mcjoin" --timeout 3000 "$G1" >/dev/null
	tap_is "$l: Hca3 joins it" "$?" 0
	at "$s" Hca4 "$rig/mcjoin" --timeout 3000 --create "$G2" >/dev/null
	tap_is "$l: Hca4 creates $G2" "$?" 0
	at "$s" Hca3 "$rig/mcjoin" --timeout 3000 --state non "$G2" >/dev/null
	tap_is "$l: Hca3 joins it as a non-member" "$?" 0
	at "$s" Hca2 "$rig/saservice" --timeout 3000 --id 0x10e40 --name loom.mirror.a \
		--lease 600 --key 7 >/dev/null
	tap_is "$l: Hca2 registers loom.mirror.a" "$?" 0
	at "$s" Hca3 "$rig/saservice" --timeout 3000 --id 0x10e41 --name loom.mirror.b \
		--pkey 0xffff >/dev/null
	tap_is "$l: Hca3 registers loom.mirror.b" "$?" 0
	at "$s" Hca3 "$rig/sasub" --timeout 3000 --no-wait --trap 64 >/dev/null
	tap_is "$l: Hca3 subscribes to trap 64" "$?" 0
	at "$s" Hca4 "$rig/sasub" --timeout 3000 --no-wait >/dev/null
	tap_is "$l: Hca4 subscribes to every trap" "$?" 0
}

# same LABEL WHAT A B: the sorted lines of files A and B agree, and are not empty.
same() {
	sort "$3" >"$3.s"
	sort "$4" >"$4.s"
	if [ -s "$3.s" ] && cmp -s "$3.s" "$4.s"; then
		tap_check "$1: the mirror's $2 are saquery's ($(wc -l <"$3.s"))" true
	else
		tap_check "$1: the mirror's $2 are saquery's" false
		tap_diag "mirror:" "$(cat "$3.s")" "saquery:" "$(cat "$4.s")"
	fi
}

judge() { # SIM LABEL
	local s=$1 l=$2 o=$tmp/$1
	at "$s" Hca2 "$rig/samirror" -t 20000 >"$o.mirror" 2>"$o.mirror.err"
	tap_is "$l: samirror at Hca2 fetches the mirror" "$?" 0 || tap_diag "$(cat "$o.mirror.err")"
	tap_diag "$(tail -n 1 "$o.mirror")"
	tap_check "$l: ... 4 members, 2 services, 2 subscriptions, nothing skipped" grep -Eq \
		'^mirror: [0-9]+ groups, 4 members, 2 services, 2 subscriptions, 0 skipped, 0 incon' \
		"$o.mirror"
	tap_check "$l: ... $G1 and $G2 among its groups" bash -c \
		"grep -q '^group $G1 ' '$o.mirror' && grep -q '^group $G2 ' '$o.mirror'"
	at "$s" Hca2 saquery --smkey 1 -m >"$o.m" 2>&1
	tap_is "$l: saquery --smkey 1 -m answers" "$?" 0
	at "$s" Hca2 saquery -g >"$o.g" 2>&1
	tap_is "$l: saquery -g answers" "$?" 0
	at "$s" Hca2 saquery SR >"$o.sr" 2>&1
	tap_is "$l: saquery SR answers" "$?" 0
	at "$s" Hca2 saquery --smkey 1 IIR >"$o.iir" 2>&1
	tap_is "$l: saquery --smkey 1 IIR answers" "$?" 0

	# Members: MGID, PortGID, JoinState (ScopeState's low nibble); PortGID :: is a group alone.
	awk '/MGID\.+/ { g = $0; sub(/.*\.+/, "", g) } /PortGid\.+/ { p = $0; sub(/.*\.+/, "", p) }
	     /ScopeState\.+/ { v = $0; sub(/.*\.+/, "", v)
		if (p != "::") print g, p, "0x" substr(v, length(v)) }' \
		"$o.m" >"$o.sq-members"
	awk '$1 == "member" { print $2, $3, $5 }' "$o.mirror" >"$o.mi-members"
	same "$l" "members (MGID, PortGID, JoinState)" "$o.mi-members" "$o.sq-members"
	# Groups: MGID and MLID, of the groups with members.
	awk '/MGID\.+/ { g = $0; sub(/.*\.+/, "", g) }
	     /Mlid\.+/ { v = $0; sub(/.*\.+/, "", v); print g, tolower(v) }' "$o.m" |
		sort -u >"$o.sq-groups"
	awk '$1 == "group" { print $2, tolower($4) }' "$o.mirror" >"$o.mi-groups"
	same "$l" "groups (MGID, MLID)" "$o.mi-groups" "$o.sq-groups"
	awk '/MGID\.+/ { g = $0; sub(/.*\.+/, "", g) }
	     /Mlid\.+/ { v = $0; sub(/.*\.+/, "", v); print g, tolower(v) }' "$o.g" |
		sort -u >"$o.sq-all"
	tap_check "$l: ... each with that MLID in saquery -g" \
		bash -c "[ -z \"\$(comm -23 '$o.mi-groups.s' '$o.sq-all')\" ]"
	tap_diag "$l: saquery -g lists $(wc -l <"$o.sq-all") groups; not in the mirror:" \
		"$(comm -13 "$o.mi-groups.s" "$o.sq-all")"
	# Services: ServiceID and name.
	awk '/ServiceID\.+/ { id = $0; sub(/.*\.+/, "", id) }
	     /ServiceName\.+/ { n = $0; sub(/.*\.\.+/, "", n); print id, n }' "$o.sr" >"$o.sq-sr"
	awk '$1 == "service" { print $2, $NF }' "$o.mirror" >"$o.mi-sr"
	same "$l" "services (ServiceID, name)" "$o.mi-sr" "$o.sq-sr"
	# Subscriptions: subscriber and trap.
	awk '/SubscriberGID\.+/ { g = $0; sub(/.*\.+/, "", g) }
	     /trap_num\.+/ { t = $0; sub(/.*\.+/, "", t); print g, t }' "$o.iir" >"$o.sq-iir"
	awk '$1 == "sub" { print $2, $6 }' "$o.mirror" >"$o.mi-iir"
	same "$l" "subscriptions (subscriber, trap)" "$o.mi-iir" "$o.sq-iir"

	at "$s" Hca2 "$rig/samirror" -k 0x5eed -t 4000 >"$o.bad" 2>&1
	tap_is "$l: with a wrong SM_Key the master answers nothing (samirror: 2)" "$?" 2
	tap_diag "$(cat "$o.bad")"
}

# ---- OpenSM as the master -----------------------------------------------------------
if sim_start o "$topo"; then
	if tap_check "OpenSM: SUBNET UP" sa_opensm o "$tmp/osm.log"; then
		populate o OpenSM
		judge o OpenSM
		tap_check "OpenSM: its IPoIB broadcast group (no members) is not in the mirror" \
			bash -c "grep -q '^ff12:401b:ffff::ffff:ffff ' '$tmp/o.sq-all' &&
				! grep -q '^group ff12:401b:ffff::ffff:ffff ' '$tmp/o.mirror'"
	fi
	sim_signal o TERM
	wait "$SM_PID"
	sim_stop o
else
	tap_check "OpenSM simulator starts" false
fi

# ---- loomd as the master ------------------------------------------------------------
if sim_start l "$topo"; then
	if tap_check "loomd: SUBNET UP" sa_loomd l "$tmp/loomd.log" "$tmp/state" \
		--sweep-interval 2; then
		populate l loomd
		judge l loomd
		tap_check "loomd: its IPoIB broadcast group (no members) is in the mirror" \
			grep -q '^group ff12:401b:ffff::ffff:ffff ' "$tmp/l.mirror"
	fi
	sim_signal l TERM
	rc=0
	wait "$SM_PID" || rc=$?
	tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
	sim_stop l
else
	tap_check "loomd simulator starts" false
fi
# ---- many members: an answer of many RMPP segments -----------------------------------
# Every other host of ft2-k8 (31) joins loomd's IPoIB broadcast group: the
# MCMemberRecord table is 31 records, 1736 bytes, 9 segments.
big=$srcdir/tests/topologies/ft2-k8.topo
if sim_start b "$big"; then
	if tap_check "ft2-k8, loomd: SUBNET UP" sa_loomd b "$tmp/loomd-b.log" "$tmp/state-b" \
		--sweep-interval 5; then
		bad=0
		for h in $(sim_topo_nodes "$big" | awk -F'\t' '$1 == "Ca" { print $2 }' | sed 1d); do
			at b "$h" "$rig/mcjoin" --timeout 3000 ff12:401b:ffff::ffff:ffff >/dev/null ||
				bad=$((bad + 1))
		done
		tap_is "ft2-k8, loomd: 31 hosts join ff12:401b:ffff::ffff:ffff" "$bad" 0
		at b h00002 "$rig/samirror" -t 20000 >"$tmp/b.mirror" 2>&1
		tap_is "ft2-k8, loomd: samirror fetches the mirror" "$?" 0
		tap_check "ft2-k8, loomd: ... 1 group with 31 members" \
			grep -q '^mirror: 1 groups, 31 members, 0 services, 0 subscriptions, 0 skipped' \
			"$tmp/b.mirror" || tap_diag "$(tail -n 3 "$tmp/b.mirror")"
		at b h00002 saquery --smkey 1 -m >"$tmp/b.m" 2>&1
		awk '/PortGid\.+/ { p = $0; sub(/.*\.+/, "", p); print p }' "$tmp/b.m" >"$tmp/b.sq"
		awk '$1 == "member" { print $3 }' "$tmp/b.mirror" >"$tmp/b.mi"
		same "ft2-k8, loomd" "members" "$tmp/b.mi" "$tmp/b.sq"
	fi
	sim_signal b TERM
	wait "$SM_PID"
	sim_stop b
else
	tap_check "ft2-k8 simulator starts" false
fi
tap_done
