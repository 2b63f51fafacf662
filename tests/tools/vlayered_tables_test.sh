#!/bin/bash
# vlayered's tables do not change by accident: `loom route --engine vlayered`
# on small fabrics (bundled ones and generated tori), with a few VL budgets
# and LMCs, prints the same LFTs (--canon) and SLs (--sl) as when
# tests/tools/vlayered_tables.sha256 was written, on one thread and on two.
# A change that is meant to change the routes rewrites that file:
#   REGEN=1 LOOM=_build/tools/loom tests/tools/vlayered_tables_test.sh
# (and says why in its commit). The engine's speed work must keep it.
# ft3-k8-degraded-s2 with --vls 1 is refused (short of VLs: most CA LIDs
# on the escape; updn routes it): its sums are those of no output (e3b0...).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sums=$srcdir/tests/tools/vlayered_tables.sha256

for t in torus2d-4x4 torus3d-3x3x3 random-16-d4 dragonfly-small ft3-k8-degraded-s2 \
	ft2-k8 loop parallel 2sw2path; do
	cp "$srcdir/tests/topologies/$t.topo" "$tmp/"
done
python3 "$srcdir/contrib/topogen.py" torus3d -x 4 -y 4 -z 4 -o "$tmp/t3d-4.topo"
python3 "$srcdir/contrib/topogen.py" torus3d -x 5 -y 4 -z 3 -o "$tmp/t3d-5x4x3.topo"
python3 "$srcdir/contrib/topogen.py" torus2d -x 6 -y 6 --hosts-per-switch 2 -o "$tmp/t2d-6-h2.topo"

: >"$tmp/got"
for f in "$tmp"/*.topo; do
	name=$(basename "$f" .topo)
	for opts in "" "--vls 2" "--vls 1" "--lmc 2 --vls 3"; do
		for mode in --canon --sl; do
			# shellcheck disable=SC2086
			sum=$(timeout 120 "$LOOM" route --engine vlayered --fallback none --threads 2 \
				$opts $mode "$f" 2>/dev/null | sha256sum | cut -c1-64)
			printf '%s\t%s\t%s\t%s\n' "$name" "${opts:--}" "$mode" "$sum" >>"$tmp/got"
		done
	done
	# One thread: the same tables.
	a=$(timeout 120 "$LOOM" route --engine vlayered --fallback none --threads 1 "$f" 2>/dev/null | sha256sum)
	b=$(timeout 120 "$LOOM" route --engine vlayered --fallback none --threads 2 "$f" 2>/dev/null | sha256sum)
	tap_is "$name: the same tables on one thread and on two" "$a" "$b"
done
if [ -n "${REGEN:-}" ]; then
	cp "$tmp/got" "$sums"
	tap_diag "wrote $sums"
fi
while IFS=$'\t' read -r name opts mode want; do
	got=$(awk -F'\t' -v n="$name" -v o="$opts" -v m="$mode" \
		'$1 == n && $2 == o && $3 == m { print $4 }' "$tmp/got")
	tap_is "$name $opts $mode: the tables written in vlayered_tables.sha256" "$got" "$want"
done <"$sums"
tap_done
