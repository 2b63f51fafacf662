#!/bin/bash
# ftree on degraded fat trees, judged against OpenSM on the same files: a
# 3-level k=8 fat tree (128 hosts, 80 switches) with 10% and 20% of its
# switch-to-switch links removed, five seeds each. loom's ftree (loom route:
# the code loomd runs, proven equal to the read-back in ftree_test) must
# reach every pair, have no credit loop, and its busiest link under
# all-to-all carry no more than OpenSM's: OpenSM runs on ibsim with -R ftree
# and, where ftree does not manage (a pair unreachable, a loop, a credit
# loop), -R updn, both given the core switches as roots; its tables are read
# back with dump_lfts and judged by the same checker (loom verify). Where
# OpenSM manages neither (on these trees it drops pairs at 20%), its lower
# numbers come partly from the pairs it drops: loom must then carry no more
# than the lesser of OpenSM's two, or else exactly what a degraded leaf
# forces on its uplinks (the leaf's hosts' all-to-all traffic over the
# uplinks it has left), which no routing that delivers every pair beats.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
PYTHON3=${PYTHON3:-python3}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

# "unreachable loops acyclic max" from a --json report.
summary() {
	"$PYTHON3" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["unreachable"], r["loops"], int(r["cdg"]["acyclic"]), r["load"]["all_to_all"]["max"])' "$1"
}

# The all-to-all load some uplink of the worst leaf must carry: h hosts
# sending to the other H - h over the u uplinks left, ceil(h(H-h)/u).
leaf_bound() { # TOPO
	awk '
	/^Switch/ { sw = $0; next }
	/^Hca/ { hca = 1; next }
	/^$/ { sw = ""; hca = 0; next }
	sw != "" && /^\[[0-9]+\]/ {
		name = sw; sub(/.*"/, "", name)
		split(sw, a, "\""); s = a[2]
		if ($0 ~ /"h[0-9]+"/) hosts[s]++; else if (s ~ /leaf/) up[s]++
		if (s ~ /leaf/) leaf[s] = 1
	}
	END {
		for (s in hosts) H += hosts[s]
		for (s in leaf) if (up[s]) { b = int((hosts[s] * (H - hosts[s]) + up[s] - 1) / up[s]); if (b > m) m = b }
		print m + 0
	}' "$1"
}

n=0
for frac in 0.1 0.2; do
	for seed in 1 2 3 4 5; do
		n=$((n + 1))
		tag="k8 3-level, ${frac} of the links gone, seed $seed"
		topo=$tmp/d$n.topo
		"$PYTHON3" "$srcdir/contrib/topogen.py" fattree3 -k 8 --degrade "$frac" --seed "$seed" \
			--keep-connected -o "$topo" || { tap_check "$tag: topogen" false; continue; }
		awk '/^switchguid=/ { g = substr($0, 12) } /^Switch.*"core/ { print g }' "$topo" >"$tmp/roots$n"

		"$LOOM" route --engine ftree --json "$topo" >"$tmp/loom$n.json" 2>"$tmp/loom$n.err"
		read -r lu ll lacyc lmax < <(summary "$tmp/loom$n.json") || lmax=
		tap_check "$tag: loom ftree reaches every pair, no loop, no credit loop" \
			test "${lu:-x}" = 0 -a "${ll:-x}" = 0 -a "${lacyc:-0}" = 1 ||
			tap_diag "$(head -n 5 "$tmp/loom$n.err")"

		if ! sim_start "o$n" "$topo"; then
			tap_check "$tag: simulator starts" false
			continue
		fi
		omax= oeng= omin=
		for eng in ftree updn; do
			sim_opensm "o$n" -R "$eng" -a "$tmp/roots$n" >/dev/null 2>&1 || continue
			sim_run "o$n" ibnetdiscover >"$tmp/o$n.$eng.ibnd" 2>/dev/null
			sim_run "o$n" dump_lfts >"$tmp/o$n.$eng.lfts" 2>/dev/null
			"$LOOM" verify --json "$tmp/o$n.$eng.ibnd" "$tmp/o$n.$eng.lfts" \
				>"$tmp/o$n.$eng.json" 2>/dev/null
			read -r ou ol oacyc m < <(summary "$tmp/o$n.$eng.json") || continue
			tap_diag "$tag: OpenSM $eng: $ou pairs unreachable, $ol loops," \
				"credit loops: $((1 - oacyc)), busiest link $m"
			[ -n "$omin" ] && [ "$omin" -le "$m" ] || omin=$m
			if [ "$ou" = 0 ] && [ "$ol" = 0 ] && [ "$oacyc" = 1 ]; then
				omax=$m oeng=$eng
				break
			fi
		done
		sim_stop "o$n"
		bound=$(leaf_bound "$topo")
		tap_diag "$tag: loom ftree busiest link $lmax; a leaf forces $bound"
		if [ -n "$omax" ]; then
			tap_check "$tag: busiest link $lmax <= OpenSM $oeng's $omax" \
				test "${lmax:-999999}" -le "$omax"
		elif [ -n "$omin" ]; then
			tap_check "$tag: OpenSM drops pairs; busiest link $lmax <= OpenSM's $omin or = the leaf's $bound" \
				test "${lmax:-999999}" -le "$omin" -o "${lmax:-999999}" -eq "$bound"
		else
			tap_check "$tag: OpenSM brings it up with ftree or updn" false
		fi
	done
done
tap_done
