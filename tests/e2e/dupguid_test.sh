#!/bin/bash
# Duplicate GUIDs, judged by infiniband-diags. Fabrics: a switch with the
# first switch's GUID (dupguid.topo); a host with the first host's node and
# port GUIDs (dupguid-host.topo); a host given another host's GUID and a
# switch given a host's NodeGUID (ibsim's Guid command); a host with a GUID
# of its own but the first host's PortGUID, or a switch's port 0 GUID (files
# rewritten here). On each, loomd --once reaches SUBNET UP and gives no other
# cause; it names the duplicate with both directed paths, and smpquery -D on
# those paths finds the namesake and the node found first; the namesake (and
# what is only behind it) has no LID and the ports facing it are not Active;
# every other node answers smpquery over LID routes (the programmed LFTs,
# both ways) with every one of its linked ports Active. As a daemon, the
# duplicate is reported once, by the one heavy sweep.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topos=$srcdir/tests/topologies

# NAME PORT STATE of every port of every node loomd gave a LID, read over LID
# routes: the node's description from NodeDescription, the state from PortInfo.
lid_states() { # SIM STATEDIR
	local sim=$1 lid desc ni pi type n p st
	for lid in $(awk '!/^#/ && NF { print $2 }' "$2/guid2lid"); do
		lid=$((lid))
		desc=$(sim_run "$sim" smpquery -L nodedesc "$lid" 2>/dev/null |
			sed -n 's/^Node Description:\.*//p')
		ni=$(sim_run "$sim" smpquery -L nodeinfo "$lid" 2>/dev/null)
		type=$(sed -n 's/^NodeType:\.*//p' <<<"$ni")
		n=$(sed -n 's/^NumPorts:\.*//p' <<<"$ni")
		[ -n "$desc" ] && [ -n "$n" ] || { echo "lid$lid ? unreachable"; continue; }
		if [ "$type" = "Switch" ]; then
			for ((p = 1; p <= n; p++)); do
				st=$(sim_run "$sim" smpquery -L portinfo "$lid" "$p" 2>/dev/null |
					sed -n 's/^LinkState:\.*//p')
				echo "$desc $p ${st:-?}"
			done
		else
			# A CA answers for the port the LID is on.
			pi=$(sim_run "$sim" smpquery -L portinfo "$lid" 2>/dev/null)
			st=$(sed -n 's/^LinkState:\.*//p' <<<"$pi")
			p=$(sed -n 's/^LocalPort:\.*//p' <<<"$pi")
			echo "$desc ${p:-?} ${st:-?}"
		fi
	done
}

# The link ends of a topology (sim_topo_links) between nodes the SM's host
# (the file's first node) reaches without going through NAMESAKE: "NODE PORT
# in" for those, "NODE PORT facing" for the ports cabled to NAMESAKE.
reached_links() { # TOPO NAMESAKE
	local first
	first=$(sed -nE 's/^(Hca|Ca|Switch)[[:space:]]+[0-9]+[[:space:]]+"([^"]*)".*/\2/p' "$1" |
		head -n 1)
	sim_topo_links "$1" | python3 -c '
import sys
ns, first = sys.argv[1], sys.argv[2]
links = [l.rstrip("\n").split("\t") for l in sys.stdin]
adj = {}
for a, _, b, _ in links:
    adj.setdefault(a, set()).add(b)
seen, todo = {first}, [first]
while todo:
    for b in adj.get(todo.pop(), ()):
        if b != ns and b not in seen:
            seen.add(b)
            todo.append(b)
for a, p, b, _ in links:
    if a in seen and b in seen:
        print(a, p, "in")
    elif a in seen and b == ns:
        print(a, p, "facing")
' "$2" "$first"
}

# TAG SIM TOPO NAMESAKE FIRST: the checks above, on a simulator already started.
dup_check() {
	local tag=$1 sim=$2 topo=$3 namesake=$4 first=$5 rc=0 line pn pf got want
	sim_run "$sim" "$LOOMD" --once --state-dir "$tmp/$tag.state" >"$tmp/$tag.log" 2>&1 || rc=$?
	tap_is "$tag: loomd --once reaches SUBNET UP (exit 0)" "$rc" 0 ||
		tap_diag "$(tail -n 5 "$tmp/$tag.log")"
	tap_check "$tag: no other cause is given (nothing unanswered, refused or contradictory)" \
		bash -c "! grep -qE 'unanswered|refused|contradict|not up' '$tmp/$tag.log'"
	line=$(grep -m 1 -E 'duplicate GUID 0x[0-9a-f]+: path [0-9,]+ reaches .* at path [0-9,]+' \
		"$tmp/$tag.log")
	tap_check "$tag: the duplicate is reported with both directed paths" test -n "$line"
	tap_diag "$line"
	pn=$(sed -nE 's/.*: path ([0-9,]+) reaches .*/\1/p' <<<"$line")
	pf=$(sed -nE 's/.* at path ([0-9,]+)[;,].*/\1/p' <<<"$line")
	got=$(sim_run "$sim" smpquery -D nodedesc "${pn:-0,9,9}" 2>/dev/null |
		sed -n 's/^Node Description:\.*//p')
	tap_is "$tag: smpquery -D nodedesc on the namesake's path ($pn) finds $namesake" \
		"$got" "$namesake"
	got=$(sim_run "$sim" smpquery -D nodedesc "${pf:-0,9,9}" 2>/dev/null |
		sed -n 's/^Node Description:\.*//p')
	tap_is "$tag: smpquery -D nodedesc on the first one's path ($pf) finds $first" "$got" "$first"

	# Every link end the SM reaches but the namesake's, as LID-routed SMPs read it.
	lid_states "$sim" "$tmp/$tag.state" | sed 's/ /:/' | sort >"$tmp/$tag.states"
	reached_links "$topo" "$namesake" | sed 's/ /:/' | sort >"$tmp/$tag.want"
	want=$(grep -c ' in$' "$tmp/$tag.want")
	got=$(join "$tmp/$tag.want" "$tmp/$tag.states" | awk '$2 == "in" && $3 == "Active"' | wc -l)
	tap_is "$tag: smpquery -L: every linked port reached ($want) is Active" "$got" "$want" ||
		tap_diag "$(grep -v Active "$tmp/$tag.states" | head -n 5)"
	got=$(cut -d: -f 1 "$tmp/$tag.states" | sort -u | tr '\n' ' ')
	want=$(grep ' in$' "$tmp/$tag.want" | cut -d: -f 1 | sort -u | tr '\n' ' ')
	tap_is "$tag: every node but the namesake (and what is only behind it) has a LID" \
		"$got" "$want"
	# The ports facing the namesake are the only linked ones not Active.
	want=$(grep -c ' facing$' "$tmp/$tag.want")
	got=$(join "$tmp/$tag.want" "$tmp/$tag.states" | awk '$2 == "facing" && $3 != "Active"' |
		wc -l)
	tap_is "$tag: the $want ports facing the namesake are left alone (not Active)" "$got" "$want"
}

if sim_start sw "$topos/dupguid.topo" -I; then
	dup_check dupguid sw "$topos/dupguid.topo" leaf004 spine001
	sim_stop sw
else
	tap_check "dupguid: simulator starts" false
fi

if sim_start ca "$topos/dupguid-host.topo" -I; then
	dup_check dupguid-host ca "$topos/dupguid-host.topo" h00008 h00001
	# iblinkinfo keys on port GUIDs too and is misled about the namesake's
	# neighbours, but each switch port's own state is its PortInfo: one
	# switch port is not Active, the one cabled to h00008 (leaf004 port 2).
	re='^0x[0-9a-f]+ +" *([^"]*)" +[0-9]+ +([0-9]+)\[[^]]*\] +==\(.* ([A-Za-z]+)/ *LinkUp\)==>'
	sim_run ca iblinkinfo -l 2>/dev/null | sed -nE "s#$re.*#\\1 \\2 \\3#p" |
		grep '^leaf\|^spine' | sort -u >"$tmp/ca.iblinks"
	tap_is "dupguid-host: iblinkinfo shows every switch port LinkUp (24)" \
		"$(wc -l <"$tmp/ca.iblinks")" 24
	tap_is "dupguid-host: iblinkinfo: only leaf004 port 2 is not Active" \
		"$(awk '$3 != "Active" { print $1 ":" $2 }' "$tmp/ca.iblinks" | tr '\n' ' ')" "leaf004:2 "

	# As a daemon with 1 s sweeps: up at the first heavy sweep, then light
	# sweeps only, and the duplicate is reported by that heavy sweep alone.
	printf 'sm:\n  sweep-interval: 1s\n' >"$tmp/loom.yaml"
	sim_run ca --timeout 30 --out "$tmp/daemon.log" "$LOOMD" -c "$tmp/loom.yaml" \
		--state-dir "$tmp/daemon.state" &
	bg=$!
	log_wait "$tmp/daemon.log" 'SUBNET UP' 60
	sleep 3.5
	sim_signal ca TERM
	wait "$bg"
	heavy=$(grep -c 'sweep [0-9]* (heavy)' "$tmp/daemon.log")
	tap_is "dupguid-host: daemon: one heavy sweep in 3.5 s of 1 s sweeps" "$heavy" 1 ||
		tap_diag "$(grep 'sweep' "$tmp/daemon.log" | tail -n 3)"
	tap_is "dupguid-host: daemon: the duplicate reported once" \
		"$(grep -c 'duplicate GUID' "$tmp/daemon.log")" 1
	sim_stop ca
else
	tap_check "dupguid-host: simulator starts" false
fi

# Neither host the SM's: h00032 takes h00002's GUID (ibsim's Guid command;
# ibsim makes a CA's port GUIDs from its NodeGUID).
topo=$topos/ft2-k8.topo
if sim_start node "$topo" -I; then
	sim_console node 'Guid "h00032" 0x0002c90400000200'
	dup_check dupguid-node node "$topo" h00032 h00002
	sim_stop node
else
	tap_check "dupguid-node: simulator starts" false
fi

# Another type: leaf008 takes h00001's NodeGUID (ibsim's Guid command).
if sim_start type "$topos/ft2-k8.topo"; then
	sim_console type 'Guid "leaf008" 0x0002c90400000100'
	dup_check dupguid-type type "$topos/ft2-k8.topo" leaf008 h00001
	tap_check "dupguid-type: a switch with the NodeGUID of CA h00001" \
		grep -q 'duplicate GUID 0x0002c90400000100: .* reaches a switch .* NodeGUID of CA "h00001"' \
		"$tmp/dupguid-type.log"
	sim_stop type
else
	tap_check "dupguid-type: simulator starts" false
fi

# The PortGUID alone: h00008 made a two-port CA with NodeGUID 0x...00ff,
# cabled by port 2, whose GUID ibsim makes NodeGUID + 2: h00001's port GUID.
awk 'prev ~ /^caguid=/ && $0 ~ /"h00008"/ { sub(/^Hca\t1/, "Hca\t2"); held = 1 }
     /^caguid=/ { if (prev != "") print prev; prev = $0; next }
     prev != "" { if (held) prev = "caguid=0x0002c904000000ff"; print prev; prev = "" }
     held && /^\[1\]/ { sub(/^\[1\]/, "[2]"); held = 0 }
     { gsub(/"h00008"\[1\]/, "\"h00008\"[2]"); print }' \
	"$topos/dupguid-host.topo" >"$tmp/dupguid-port.topo"
if sim_start port "$tmp/dupguid-port.topo" -I; then
	dup_check dupguid-port port "$tmp/dupguid-port.topo" h00008 h00001
	tap_check "dupguid-port: reported as the PortGUID of h00001, entered by port 2" \
		grep -q 'duplicate GUID 0x0002c90400000101: .*(entered by port 2) with the PortGUID' \
		"$tmp/dupguid-port.log"
	sim_stop port
else
	tap_check "dupguid-port: simulator starts" false
fi

# A CA port with a switch's port GUID: h00008's caguid= one below spine001's
# GUID makes its port 1 GUID spine001's port 0 GUID (its NodeGUID is free).
sed '0,/caguid=0x0002c90400000100/! s/caguid=0x0002c90400000100/caguid=0x0002c90300000000/' \
	"$topos/dupguid-host.topo" >"$tmp/dupguid-swport.topo"
if sim_start swport "$tmp/dupguid-swport.topo"; then
	dup_check dupguid-swport swport "$tmp/dupguid-swport.topo" h00008 spine001
	tap_check "dupguid-swport: reported as the PortGUID of switch spine001" \
		grep -q 'duplicate GUID 0x0002c90300000001: .* with the PortGUID of switch "spine001"' \
		"$tmp/dupguid-swport.log"
	sim_stop swport
else
	tap_check "dupguid-swport: simulator starts" false
fi

tap_done
