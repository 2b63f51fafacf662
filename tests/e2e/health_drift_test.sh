#!/bin/bash
# loom health --only drift --expect FILE on ibsim, judged with ibnetdiscover.
# The fabric: ft2-k8 with leaf001 given a 9th port, free. Expect files:
#   - the fabric's own file: exit 0, no finding;
#   - h00004's cable at leaf001 port 9 instead of 4 (a cable moved): exit 1,
#     one "moved cable" finding on h00004 port 1 naming leaf001 port 4 (as
#     ibnetdiscover shows it) against port 9;
#   - one node more, "hextra" at leaf001 port 9 (ibsim cannot delete a node:
#     the file has one the fabric lacks): exit 1, "missing node" with its
#     description and GUID; ibnetdiscover does not list it;
#   - h00032 left out of the file: a warning "extra node" on h00032 (exit 0,
#     --strict 1); ibnetdiscover lists it;
#   - the leaf001-spine001 cable left out: a warning "extra link" naming both.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

sed -E 's/^Switch\t8 "leaf001"$/Switch\t9 "leaf001"/' "$srcdir/tests/topologies/ft2-k8.topo" \
	>"$tmp/live.topo"
# h00004 at leaf001 port 9: both ends of the cable edited.
sed -E '/^Hca\t1 "h00004"$/{n;s/"leaf001"\[4\]/"leaf001"[9]/}; s/^\[4\]\t"h00004"\[1\]$/[9]\t"h00004"[1]/' \
	"$tmp/live.topo" >"$tmp/moved.topo"
# One node more: hextra at leaf001 port 9.
sed -E 's/^\[8\]\t"spine004"\[1\]$/&\n[9]\t"hextra"[1]/' "$tmp/live.topo" >"$tmp/extra.topo"
printf '\ncaguid=0x0002c90400009900\nHca\t1 "hextra"\n[1]\t"leaf001"[9]\n' >>"$tmp/extra.topo"
# One node less: h00032 (its block and leaf008's line).
sed -E '/^caguid=0x0002c90400002000$/,/^$/d; /^\[4\]\t"h00032"\[1\]$/d' "$tmp/live.topo" \
	>"$tmp/less.topo"
# One cable less: leaf001 port 5 <-> spine001 port 1.
sed -E '/^\[5\]\t"spine001"\[1\]$/d; /^\[1\]\t"leaf001"\[5\]$/d' "$tmp/live.topo" >"$tmp/nolink.topo"

# loom health --only drift --expect FILE [ARGS] on S: output $tmp/TAG.out, status $hrc.
drift() { # TAG FILE [ARGS...]
	local tag=$1 file=$2
	shift 2
	hrc=0
	sim_run S "$LOOM" health --only drift --expect "$file" "$@" >"$tmp/$tag.out" \
		2>"$tmp/$tag.err" || hrc=$?
}

findings() { grep -cE '^(error|warning) ' "$1"; }

if ! sim_start S "$tmp/live.topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run S ibnetdiscover >"$tmp/ibnd" 2>/dev/null
G='0x[0-9a-f]{16}'

drift same "$tmp/live.topo"
tap_is "its own file: exit 0, no finding" "$hrc $(findings "$tmp/same.out")" "0 0" ||
	tap_diag "$(cat "$tmp/same.out" "$tmp/same.err")"

drift moved "$tmp/moved.topo"
tap_is "a cable moved: exit 1, one finding" "$hrc $(findings "$tmp/moved.out")" "1 1" ||
	tap_diag "$(cat "$tmp/moved.out" "$tmp/moved.err")"
tap_check "a cable moved: h00004 port 1 named, now at leaf001 port 4, expected port 9" \
	grep -qE "^error +drift +\"h00004\" $G port 1: moved cable: \"leaf001\" $G port 4, expected \"leaf001\" $G port 9 " \
	"$tmp/moved.out" || tap_diag "$(cat "$tmp/moved.out")"
tap_check "a cable moved: ibnetdiscover agrees: h00004 is on leaf001 port 4" \
	grep -qE '^\[1\]\([0-9a-f]+\)[[:space:]]+"S-[0-9a-f]+"\[4\][[:space:]]+# lid [0-9]+ lmc [0-9]+ "leaf001"' \
	<(sed -n '/^Ca.*# "h00004"$/,/^$/p' "$tmp/ibnd")

drift missing "$tmp/extra.topo"
tap_is "a node missing: exit 1, one finding" "$hrc $(findings "$tmp/missing.out")" "1 1" ||
	tap_diag "$(cat "$tmp/missing.out" "$tmp/missing.err")"
tap_check "a node missing: named with its description and GUID from the file" \
	grep -qE '^error +drift +fabric: missing node: not in the fabric, expected "hextra" 0x0002c90400009900' \
	"$tmp/missing.out" || tap_diag "$(cat "$tmp/missing.out")"
tap_is "a node missing: ibnetdiscover agrees: no hextra" "$(grep -c '"hextra"' "$tmp/ibnd")" 0
drift missing.json "$tmp/extra.topo" --json
tap_is "a node missing: --json has its GUID" \
	"$(python3 -c 'import json, sys; f = json.load(sys.stdin)["findings"][0]
print(f["group"], f["what"], f["node_guid"])' <"$tmp/missing.json.out")" \
	"drift missing node 0x0002c90400009900"

drift extra "$tmp/less.topo"
tap_is "a node extra: exit 0 (a warning), one finding" "$hrc $(findings "$tmp/extra.out")" "0 1" ||
	tap_diag "$(cat "$tmp/extra.out" "$tmp/extra.err")"
tap_check "a node extra: h00032 named" \
	grep -qE "^warning +drift +\"h00032\" $G port 0: extra node: " "$tmp/extra.out" ||
	tap_diag "$(cat "$tmp/extra.out")"
tap_is "a node extra: ibnetdiscover agrees: h00032 is there" "$(grep -c '^Ca.*"h00032"' "$tmp/ibnd")" 1
drift extra.strict "$tmp/less.topo" --strict
tap_is "a node extra: --strict exits 1" "$hrc" 1

drift nolink "$tmp/nolink.topo"
tap_is "a link extra: exit 0 (a warning), one finding" "$hrc $(findings "$tmp/nolink.out")" "0 1" ||
	tap_diag "$(cat "$tmp/nolink.out" "$tmp/nolink.err")"
tap_check "a link extra: leaf001 port 5 and spine001 port 1 named" \
	grep -qE "^warning +drift +\"(leaf001\" $G port 5: extra link: \"spine001\" $G port 1|spine001\" $G port 1: extra link: \"leaf001\" $G port 5)," \
	"$tmp/nolink.out" || tap_diag "$(cat "$tmp/nolink.out")"

sim_stop S 2>/dev/null
tap_done
