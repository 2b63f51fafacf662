#!/bin/bash
# loom topo: every bundled fabric reads clean, a generated 11,664-host fat tree
# reads clean with the right counts, and every broken file gets exactly its
# expected FILE:LINE messages on stderr, nothing on stdout, and exit status 2.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Bundled fabrics: all clean (exit 0), except the one with a deliberate
# duplicate GUID, which must be refused.
for topo in "$srcdir"/tests/topologies/*.topo; do
	name=${topo##*/}
	timeout 60 "$LOOM" topo "$topo" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $name in
	dupguid*)
		tap_is "$name: duplicate GUID refused (exit 2)" "$rc" 2
		tap_check "$name: duplicate reported with both lines" \
			grep -q 'has GUID 0x[0-9a-f]*, already used by .*(line [0-9]*)' "$tmp/err"
		;;
	*)
		tap_is "$name: reads clean (exit 0)" "$rc" 0
		[ "$rc" -eq 0 ] || tap_diag "$(cat "$tmp/err" "$tmp/out")"
		;;
	esac
done

# JSON output parses, and its counts agree with the file's headers.
topo=$srcdir/tests/topologies/ft2-k8.topo
if timeout 60 "$LOOM" topo --json "$topo" >"$tmp/json"; then :; fi
want_sw=$(grep -c '^Switch' "$topo")
want_ca=$(grep -Ec '^(Hca|Ca)' "$topo")
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["switches"], d["cas"], len(d["problems"]))' "$tmp/json" 2>&1)
tap_is "ft2-k8 --json: switch and CA counts match the file, no problems" "$got" "$want_sw $want_ca 0"

# A full 3-level fat tree of 36-port switches: 11,664 hosts, 1,620 switches.
python3 "$srcdir/contrib/topogen.py" fattree3 -k 36 >"$tmp/ft3-k36.topo"
timeout 120 "$LOOM" topo --json "$tmp/ft3-k36.topo" >"$tmp/big.json"
tap_is "ft3 k=36: loom topo exits 0" "$?" 0
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["switches"], d["cas"], d["links"]["total"], d["radix"], d["components"])' "$tmp/big.json" 2>&1)
# Links: 11,664 host links + 36 pods x 18 x 18 leaf-agg + 324 cores x 36.
tap_is "ft3 k=36: counts" "$got" "1620 11664 34992 {'36': 1620} 1"

# Broken files: exact messages (golden .err files), exit 2, empty stdout.
for topo in "$srcdir"/tests/tools/bad/*.topo; do
	name=${topo##*/}
	(cd "$srcdir/tests/tools/bad" && timeout 20 "$LOOM" topo "$name") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	tap_is "bad/$name: exit 2" "$rc" 2
	tap_check "bad/$name: nothing on stdout" test ! -s "$tmp/out"
	if diff -u "${topo%.topo}.err" "$tmp/err" >"$tmp/diff"; then
		tap_check "bad/$name: stderr is as expected" true
	else
		tap_check "bad/$name: stderr is as expected" false
		tap_diag "$(cat "$tmp/diff")"
	fi
done

# A readable file with fabric problems: exit 1, the first 16 listed, the rest counted.
{
	printf 'Hca\t1 "h0"\n[1]\t"s"[1]\n\nSwitch\t4 "s"\n[1]\t"h0"[1]\n\n'
	for i in $(seq 1 20); do printf 'Hca\t1 "x%d"\n\n' "$i"; done
} >"$tmp/isolated.topo"
"$LOOM" topo "$tmp/isolated.topo" >"$tmp/out" 2>&1
tap_is "20 isolated CAs: exit 1 (problems)" "$?" 1
tap_check "isolated CAs are named with their line" grep -q 'CA "x1" (line 7) has no links' "$tmp/out"
tap_check "past 16 problems the rest are counted" grep -q '^    (5 more)$' "$tmp/out"

# Misuse: exit 1 with usage on stderr; --help: exit 0 on stdout.
"$LOOM" topo >/dev/null 2>"$tmp/err"
tap_is "no file: exit 1" "$?" 1
tap_check "no file: usage on stderr" grep -q '^usage: loom topo' "$tmp/err"
"$LOOM" topo --help >"$tmp/out"
tap_is "--help: exit 0" "$?" 0
tap_check "--help: usage on stdout" grep -q '^usage: loom topo' "$tmp/out"
"$LOOM" topo /nonexistent/x.topo >/dev/null 2>"$tmp/err"
tap_is "missing file: exit 2" "$?" 2
tap_check "missing file: named in the message" grep -q '/nonexistent/x.topo' "$tmp/err"

tap_done
