#!/bin/bash
# Multicast through the SA, judged by what the switches hold (dump_mfts,
# infiniband-diags) against the topology file: OpenSM first, as the
# reference that the client (tests/rig/mcjoin) and the checks are fair,
# then loomd on a second simulator of the same fat tree.
#  - joins from hosts create the group (mcjoin's answer, saquery -g);
#  - the MFT entries of its MLID are a tree over the switches: every
#    receiving member's switch port, the links of one tree, and nothing
#    else (no port facing a non-member, no branch that leads to no member);
#  - loomd: a send-only member's port is not in the mask (OpenSM puts it
#    in; IBA 15.2.5.17 says a send-only member does not receive);
#  - saquery -m: members' PortGIDs and JoinStates only with the SM_Key;
#  - leave removes that port; the last full member's leave deletes the group
#    and clears its entries; a join to a partition's group the port is not
#    in, and a create by a non-member, are refused;
#  - the IPoIB broadcast groups of loom.yaml's partitions exist at SUBNET UP
#    with the configured Q_Key, MTU, rate and SL (saquery MCMR).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

need_tools ibsim opensm saquery dump_mfts
need_rig librmpp_shim.so librmpp_tail.so mcjoin
MCJOIN=${MCJOIN:-$rig/mcjoin}
G=ff12:601b:ffff::4d43 # the test's group

sim_topo_nodes "$topo" >"$tmp/types"
sim_topo_links "$topo" >"$tmp/links"


# join SIM HOST ARGS...: mcjoin from host hNNNNN; its answer in $tmp/join.out.
join() {
	local s=$1 h=$2
	shift 2
	sim_run "$s" --host "$h" --timeout 30 "$MCJOIN" --timeout 3000 "$@" >"$tmp/join.out" \
		2>"$tmp/join.err"
}
mlid_of_join() { sed -nE 's/.* mlid (0x[0-9a-f]+) .*/\1/p' "$tmp/join.out"; }

# marked SIM MLID: "switch<TAB>port" of every port dump_mfts shows for MLID.
marked() {
	sim_run "$1" dump_mfts 2>/dev/null | awk -v mlid="$2" '
	/^Multicast mlids/ { s = $0; sub(/^.*\(/, "", s); sub(/\):$/, "", s); next }
	/Ports:/ { delete col; l = $0; i = index(l, "Ports:") + 6
		while (i <= length(l)) {
			if (substr(l, i, 1) ~ /[0-9]/) { j = i; while (substr(l, j + 1, 1) ~ /[0-9]/) j++
				col[j] = substr(l, i, j - i + 1); i = j + 1 } else i++
		}
		next }
	tolower($1) == tolower(mlid) { for (c in col) if (substr($0, c, 1) == "x") print s "\t" col[c] }' |
		LC_ALL=C sort
}

# tree_ok MARKED RECEIVERS SENDERS: the marked ports are exactly one tree over the
# switches of the members (hosts, space-separated), reaching every receiver's
# port and no other CA port; send-only members' ports are not marked.
tree_ok() {
	awk -F'\t' -v recv="$2" -v send="$3" '
	FILENAME == ARGV[1] { type[$2] = $1; next }
	FILENAME == ARGV[2] { peer[$1 SUBSEP $2] = $3 SUBSEP $4; next }
	{ m[$1 SUBSEP $2] = 1; ports[$1]++ }
	function bad(msg) { print msg; nbad++ }
	function find(x) { while (up[x] != x) x = up[x]; return x }
	END {
		n = split(recv, R, " "); for (i = 1; i <= n; i++) rc[R[i]] = 1
		n = split(send, S, " "); for (i = 1; i <= n; i++) sd[S[i]] = 1
		for (h in rc) { split(peer[h SUBSEP 1], a, SUBSEP); memb[a[1]] = 1
			if (!((a[1] SUBSEP a[2]) in m)) bad("receiver " h ": " a[1] " port " a[2] " not in the mask") }
		for (h in sd) { split(peer[h SUBSEP 1], a, SUBSEP); memb[a[1]] = 1
			if ((a[1] SUBSEP a[2]) in m) bad("send-only " h ": " a[1] " port " a[2] " in the mask") }
		for (k in m) {
			split(k, a, SUBSEP)
			if (!(k in peer)) { bad(a[1] " port " a[2] ": marked, links nowhere"); continue }
			split(peer[k], b, SUBSEP)
			if (type[b[1]] != "Switch") {
				if (!(b[1] in rc)) bad(a[1] " port " a[2] ": marked, faces " b[1] ", not a receiver")
				continue
			}
			if (!(peer[k] in m)) bad(a[1] " port " a[2] ": marked, the other end " b[1] " port " b[2] " is not")
			half++; deg[a[1]]++; tsw[a[1]] = 1; tsw[b[1]] = 1
			if (!(a[1] in up)) up[a[1]] = a[1]
			if (!(b[1] in up)) up[b[1]] = b[1]
			up[find(a[1])] = find(b[1])
		}
		for (s in memb) { tsw[s] = 1; if (!(s in up)) up[s] = s }
		nt = 0; for (s in tsw) { nt++; root[find(s)] = 1 }
		nr = 0; for (r in root) nr++
		if (nr > 1) bad("the tree is in " nr " pieces")
		if (nt && half / 2 != nt - 1) bad(half / 2 " switch links for " nt " switches: not a tree")
		for (s in tsw) if (nt > 1 && deg[s] <= 1 && !(s in memb)) bad(s ": a branch to no member")
		exit nbad > 0
	}' "$tmp/types" "$tmp/links" "$1"
}

# until_tree SIM MLID RECEIVERS SENDERS: the MFTs settle (programming follows a join) to a tree.
until_tree() {
	for _ in $(seq 30); do
		marked "$1" "$2" >"$tmp/marked"
		tree_ok "$tmp/marked" "$3" "$4" >"$tmp/why" && return 0
		sleep 0.3
	done
	cat "$tmp/why" >&2
	return 1
}

# ---- OpenSM, the reference ---------------------------------------------------------
if sim_start o "$topo"; then
	dir=$(sim_dir o)
	sim_run o --timeout 300 --out "$tmp/osm.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$tmp/osm.log" --dump_files_dir "$dir" &
	tap_check "OpenSM: SUBNET UP" log_wait "$tmp/osm.log" 'SUBNET UP'
	tap_check "OpenSM: h00001 creates $G" join o h00001 --create "$G"
	om=$(mlid_of_join)
	ok=0
	for h in h00005 h00009; do join o "$h" "$G" && ok=$((ok + 1)); done
	join o h00013 --state sendonly "$G" && ok=$((ok + 1))
	tap_is "OpenSM: 3 more joins (h00013 send-only) answered" "$ok" 3
	# OpenSM forwards to send-only members too: h00013 counts as a receiver here.
	tap_check "OpenSM: dump_mfts: MLID $om is a tree reaching every member, nothing else" \
		until_tree o "$om" "h00001 h00005 h00009 h00013" ""
	tap_diag "$(tr '\t' ' ' <"$tmp/marked" | paste -sd, -)"
	sim_signal o TERM
	sim_stop o
else
	tap_check "OpenSM simulator starts" false
fi

# ---- loomd ---------------------------------------------------------------------------
cat >"$tmp/loom.yaml" <<YAML
sm:
  sweep-interval: 2s
partitions:
  - name: p1
    pkey: 0x0031
    ipoib: true
    mtu: 2048
    rate: 10Gb/s
    qkey: 0x00001234
    sl: 1
    members:
      - { node: h00002 }
      - self
YAML
if ! sim_start l "$topo"; then
	tap_check "loomd simulator starts" false
	tap_done
	exit
fi
SIM_RMPP=1 sim_run l --timeout 300 --out "$tmp/loomd.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" &
bg=$!
tap_check "loomd: SUBNET UP" log_wait "$tmp/loomd.log" 'SUBNET UP'

# The IPoIB broadcast groups, before any host asked.
SIM_RMPP=1 sim_run l --host h00002 saquery MCMR >"$tmp/mcmr" 2>&1
rec=$(awk '/dump:$/ { p = 0 } /MGID/ { p = /ff12:401b:8031::ffff:ffff/ } p' "$tmp/mcmr" |
	tr -d '\t ' | sed -E 's/\.\.+/:/' | paste -sd' ' -)
tap_diag "$rec"
[ -n "$rec" ] || tap_diag "$(head -n 20 "$tmp/mcmr")"
for f in Mlid:0xC001 Mtu:0x84 Rate:0x83 qkey:0x1234 pkey:0x8031 SL:0x1; do
	tap_check "loomd: p1's IPoIB group at SUBNET UP: $f" grep -qi " ${f}\b" <<<" $rec"
done
tap_check "loomd: the default partition's IPoIB group at SUBNET UP (MLID 0xC000)" \
	grep -qi 'ff12:401b:ffff::ffff:ffff' "$tmp/mcmr"
SIM_RMPP=1 sim_run l --host h00003 saquery MCMR >"$tmp/mcmr1" 2>&1
tap_check "loomd: h00003 (not in p1) does not see p1's group" \
	bash -c "! grep -q 'ff12:401b:8031' '$tmp/mcmr1'"

# Joins.
tap_check "loomd: h00001 creates $G" join l h00001 --create "$G"
lm=$(mlid_of_join)
tap_is "loomd: the new group gets the lowest free MLID" "$lm" 0xc002
ok=0
for h in h00005 h00009; do
	join l "$h" "$G" && [ "$(mlid_of_join)" = "$lm" ] && ok=$((ok + 1))
done
join l h00013 --state sendonly "$G" && ok=$((ok + 1))
join l h00017 --state non "$G" && ok=$((ok + 1))
tap_is "loomd: 4 more joins answered with the group's MLID" "$ok" 4
SIM_RMPP=1 sim_run l saquery -g >"$tmp/g" 2>&1
tap_check "loomd: saquery -g lists $G" grep -q "$G" "$tmp/g"
# Who is in a group, and how: only a request with the SM_Key (loom.yaml's default, 1)
# learns it; others see PortGID and JoinState zero (IBA 15.2.5.17).
SIM_RMPP=1 sim_run l --host h00005 saquery -m >"$tmp/m0" 2>&1
tap_check "loomd: saquery -m without the SM_Key: records, no member's PortGid" \
	awk '/PortGid/ { n++; if ($0 !~ /\.::$/) bad++ } END { exit !(n > 0 && !bad) }' "$tmp/m0"
tap_check "loomd: ... and no JoinState" \
	awk '/ScopeState/ && $0 !~ /0x[0-9a-fA-F]0$/ { bad++ } END { exit bad > 0 }' "$tmp/m0"
SIM_RMPP=1 sim_run l --host h00005 saquery --smkey 1 -m "$lm" >"$tmp/m1" 2>&1
tap_is "loomd: saquery --smkey 1 -m $lm: the 5 members" \
	"$(grep -c 'PortGid.*fe80:.*(h000\(01\|05\|09\|13\|17\))' "$tmp/m1")" 5
tap_check "loomd: dump_mfts: MLID $lm is a tree to h00001,5,9,17 and h00013's switch, nothing else" \
	until_tree l "$lm" "h00001 h00005 h00009 h00017" "h00013"
tap_diag "$(tr '\t' ' ' <"$tmp/marked" | paste -sd, -)"
SIM_RMPP=1 sim_run l saquery MFTR >"$tmp/mftr" 2>&1
tap_check "loomd: saquery MFTR answers with the programmed blocks" grep -qi "0x${lm#0x}" "$tmp/mftr"

# Topology change: the tree's link spine001[1]-leaf001[5] goes down; the sweep
# that follows (targeted: only the part the event changed) builds the tree
# again without it, and back.
heavy_up() { grep -cE 'sweep [0-9]* \((heavy|targeted)\).*SUBNET UP' "$tmp/loomd.log"; }
wait_heavy() { # N: a heavy sweep after the Nth reached SUBNET UP
	log_wait -E -n $(($1 + 1)) "$tmp/loomd.log" 'sweep [0-9]* \((heavy|targeted)\).*SUBNET UP' 30
}
n=$(heavy_up)
tap_check "loomd: Unlink spine001[1] (the tree's link to leaf001)" sim_console l 'Unlink "spine001"[1]'
tap_check "loomd: a heavy or targeted sweep follows" wait_heavy "$n"
grep -v $'^spine001\t1\t\|^leaf001\t5\t' "$tmp/links" >"$tmp/links.all"
cp "$tmp/links" "$tmp/links.orig"
cp "$tmp/links.all" "$tmp/links"
tap_check "loomd: dump_mfts: a tree again, around the dead link" \
	until_tree l "$lm" "h00001 h00005 h00009 h00017" "h00013"
tap_diag "$(tr '\t' ' ' <"$tmp/marked" | paste -sd, -)"
cp "$tmp/links.orig" "$tmp/links"
n=$(heavy_up)
sim_console l 'ReLink "spine001"[1]' >/dev/null
wait_heavy "$n"
tap_check "loomd: ReLink: a tree still" until_tree l "$lm" "h00001 h00005 h00009 h00017" "h00013"

# Leaves.
tap_check "loomd: h00005 leaves" join l h00005 --leave "$G"
tap_check "loomd: dump_mfts: h00005's port and its leaf's branch are gone" \
	until_tree l "$lm" "h00001 h00009 h00017" "h00013"
join l h00001 --leave "$G" && join l h00009 --leave "$G"
tap_is "loomd: the last full members leave" "$?" 0
SIM_RMPP=1 sim_run l saquery -g >"$tmp/g2" 2>&1
tap_check "loomd: the group is gone from saquery -g" bash -c "! grep -q '$G' '$tmp/g2'"
tap_check "loomd: dump_mfts: MLID $lm holds no port" until_tree l "$lm" "" ""
tap_check "loomd: MLID $lm is marked nowhere" test ! -s "$tmp/marked"

# Refusals.
join l h00003 ff12:401b:8031::ffff:ffff
tap_is "loomd: h00003 joining p1's group (not in p1): refused" "$?" 1
tap_check "loomd: ... with status 0x0200 (request invalid)" grep -q 'status 0x0200' "$tmp/join.err"
tap_check "loomd: h00002 (in p1) joins p1's group" join l h00002 ff12:401b:8031::ffff:ffff
join l h00003 --state non --create ff12:601b:ffff::99
tap_is "loomd: a non-member cannot create a group" "$?" 1

sim_signal l TERM
rc=0
wait "$bg" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
tap_diag "$(grep -E 'multicast|sweep' "$tmp/loomd.log" | tail -n 6)"
tap_done
