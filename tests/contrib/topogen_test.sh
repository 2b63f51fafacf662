#!/bin/bash
# contrib/topogen.py: deterministic, right counts at k=36, consistent files,
# the bundled files are what the generator makes, and ibsim loads its output
# into a fabric that ibnetdiscover (not loom) sees whole.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"
gen="python3 $srcdir/contrib/topogen.py"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

$gen random -n 24 -d 3 --seed 7 --degrade 0.2 >"$tmp/a" && $gen random -n 24 -d 3 --seed 7 --degrade 0.2 >"$tmp/b"
tap_check "same arguments, identical bytes" cmp -s "$tmp/a" "$tmp/b"
$gen random -n 24 -d 3 --seed 8 >"$tmp/c"
tap_check "another seed, another fabric" bash -c "! cmp -s '$tmp/a' '$tmp/c'"

timeout 120 $gen fattree3 -k 36 >"$tmp/k36"
tap_is "fattree3 k=36: 1,620 switches" "$(grep -c '^Switch' "$tmp/k36")" 1620
tap_is "fattree3 k=36: 11,664 hosts" "$(grep -c '^Hca' "$tmp/k36")" 11664
tap_check "fattree3 k=36: every link listed on both ends" bash -c "timeout 120 $gen check '$tmp/k36' >/dev/null"
tap_check "the first node is a host" bash -c "grep -m1 -E '^(Switch|Hca)' '$tmp/k36' | grep -q ^Hca"

for f in "$srcdir"/tests/topologies/*.topo; do
	case ${f##*/} in
	dupguid*)
		tap_check "${f##*/}: check finds the duplicate GUID" bash -c "! $gen check '$f' >/dev/null 2>&1"
		tap_check "${f##*/}: consistent but for it (check -I)" bash -c "$gen check -I '$f' >/dev/null"
		;;
	*) tap_check "${f##*/}: consistent" bash -c "$gen check '$f' >/dev/null" ;;
	esac
done
# The generated bundle is exactly what regen.sh makes.
mkdir -p "$tmp/regen/contrib" "$tmp/regen/tests/topologies"
cp "$srcdir/contrib/topogen.py" "$tmp/regen/contrib/"
cp "$srcdir/tests/topologies/regen.sh" "$tmp/regen/tests/topologies/"
sh "$tmp/regen/tests/topologies/regen.sh"
for f in "$tmp"/regen/tests/topologies/*.topo; do
	tap_check "${f##*/}: bundled file equals regenerated" cmp -s "$f" "$srcdir/tests/topologies/${f##*/}"
done

# --dup-guid alone (or switch) repeats a switch's GUID; host: the last host
# takes the first host's caguid=, so its node and port GUIDs (ibsim numbers
# ports from it) are the first host's.
$gen fattree2 -k 4 --dup-guid >"$tmp/dsw" && $gen fattree2 -k 4 --dup-guid switch >"$tmp/dsw2"
tap_is "--dup-guid and --dup-guid switch make the same fabric" \
	"$(grep -v '^# generated' "$tmp/dsw" | md5sum)" "$(grep -v '^# generated' "$tmp/dsw2" | md5sum)"
$gen fattree2 -k 4 --dup-guid host >"$tmp/dh"
first=$(grep -m 1 '^caguid=' "$tmp/dh")
tap_is "--dup-guid host: the last host has the first host's caguid" \
	"$(grep '^caguid=' "$tmp/dh" | tail -n 1)" "$first"
tap_is "--dup-guid host: no switch GUID repeats" \
	"$(grep '^switchguid=' "$tmp/dh" | sort | uniq -d | wc -l)" 0
tap_check "--dup-guid host: the header names both hosts" \
	grep -q '^# duplicate GUID injected: h00008 has the GUID of h00001' "$tmp/dh"
tap_check "--dup-guid bogus is refused" bash -c "! $gen fattree2 -k 4 --dup-guid bogus 2>/dev/null"

# A consistency error is caught: drop one end of a link.
sed '0,/^\[2\]/{/^\[2\]/d}' "$srcdir/tests/topologies/ft2-k8.topo" >"$tmp/broken"
tap_check "check refuses a one-sided link" bash -c "! $gen check '$tmp/broken' 2>/dev/null"

# ibsim loads generated files; ibnetdiscover sees every node.
for f in ft2-k8 torus2d-4x4 dragonfly-small parallel dupguid dupguid-host; do
	topo=$srcdir/tests/topologies/$f.topo
	extra=()
	[[ $f == dupguid* ]] && extra=(-I)
	if ! sim_start "g_${f//-/_}" "$topo" "${extra[@]}"; then
		tap_check "$f: ibsim loads it" false
		continue
	fi
	tap_check "$f: ibsim loads it" true
	sim_run "g_${f//-/_}" ibnetdiscover >"$tmp/$f.disc" 2>/dev/null
	got="$(grep -c '^Switch' "$tmp/$f.disc") $(grep -c '^Ca' "$tmp/$f.disc")"
	want="$(grep -c '^Switch' "$topo") $(grep -c '^Hca' "$topo")"
	if [ "$f" = dupguid-host ]; then
		# ibnetdiscover keys ports on their GUIDs: it lists one of the
		# two hosts, and says the port GUID is a duplicate.
		tap_check "$f: ibnetdiscover is fooled by the duplicate" \
			test "${got#* }" -lt "${want#* }"
	elif [ "$f" = dupguid ]; then
		# Two switches with one GUID look like one to a discovery that keys
		# on GUIDs: ibnetdiscover finds fewer switches than there are. That
		# is the trap an SM must detect (both DR paths, same GUID).
		tap_check "$f: ibnetdiscover is fooled by the duplicate" \
			test "${got% *}" -lt "${want% *}"
	else
		tap_is "$f: ibnetdiscover finds every switch and host" "$got" "$want"
	fi
	sim_stop "g_${f//-/_}"
done

tap_done
