#!/bin/bash
# loom config, table-driven over the golden files in tests/config:
#   NN-name.yaml + NN-name.out: valid; stdout is exactly .out (the normalised
#     config), nothing on stderr, exit 0; --check prints nothing; and the
#     printed config reads back and prints the same (round trip).
#   NN-name.yaml + NN-name.err: invalid; stderr is exactly .err (every
#     FILE:LINE:COL: message and the summary), nothing on stdout, exit 1.
# Then the shipped example, the exit codes for unreadable files, and usage.
# UPDATE_GOLDEN=1 rewrites the golden files from the current output (review
# the diff before committing it).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$srcdir/tests/config

# same DESC FILE WANT: FILE equals the golden WANT, with the diff on failure.
same() {
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$2" "$3"
	fi
	if diff -u "$3" "$2" >"$tmp/diff"; then
		tap_check "$1" true
	else
		tap_check "$1" false
		tap_diag "$(cat "$tmp/diff")"
	fi
}

n=0
for yaml in "$dir"/[0-9]*.yaml; do
	name=${yaml##*/}
	base=${yaml%.yaml}
	n=$((n + 1))
	(cd "$dir" && timeout 20 "$LOOM" config "$name") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ -f "$base.err" ]; then
		tap_is "$name: invalid (exit 1)" "$rc" 1
		tap_check "$name: nothing on stdout" test ! -s "$tmp/out"
		same "$name: stderr is $(basename "$base.err")" "$tmp/err" "$base.err"
		continue
	fi
	if [ ! -f "$base.out" ]; then
		tap_check "$name: has a golden .out or .err" false
		continue
	fi
	tap_is "$name: valid (exit 0)" "$rc" 0
	tap_check "$name: nothing on stderr" test ! -s "$tmp/err"
	[ -s "$tmp/err" ] && tap_diag "$(cat "$tmp/err")"
	same "$name: normalised print is $(basename "$base.out")" "$tmp/out" "$base.out"
	(cd "$dir" && "$LOOM" config --check "$name") >"$tmp/check" 2>&1
	tap_is "$name: --check exits 0" "$?" 0
	tap_check "$name: --check prints nothing" test ! -s "$tmp/check"
	"$LOOM" config -c "$tmp/out" >"$tmp/again" 2>"$tmp/err2"
	tap_is "$name: the normalised print reads back (exit 0)" "$?" 0
	# The same but for comments ("allocated from the name" is said only once).
	sed 's/  # .*//' "$tmp/out" >"$tmp/out.nc"
	same "$name: ... and prints the same (round trip)" "$tmp/again" "$tmp/out.nc"
done
tap_check "golden cases found ($n)" test "$n" -ge 40

# The shipped example is valid, and its normalised print round-trips.
"$LOOM" config --check "$srcdir/contrib/loom.yaml" >"$tmp/out" 2>&1
tap_is "contrib/loom.yaml: --check exits 0" "$?" 0
[ -s "$tmp/out" ] && tap_diag "$(cat "$tmp/out")"
"$LOOM" config "$srcdir/contrib/loom.yaml" >"$tmp/ex1" 2>/dev/null
"$LOOM" config "$tmp/ex1" >"$tmp/ex2" 2>/dev/null
sed -i 's/  # .*//' "$tmp/ex1"
same "contrib/loom.yaml: normalised print round-trips" "$tmp/ex2" "$tmp/ex1"
# Every key loom.yaml(5) documents (a line "\fBkey\fR: ...") is shown in the example.
keys=$(sed -n 's/^\\fB\([a-z0-9-]*\)\\fR:.*/\1/p' "$srcdir/doc/loom.yaml.5" | sort -u)
missing=""
for k in $keys; do
	grep -Eq "(^|[ {,#-])$k:" "$srcdir/contrib/loom.yaml" || missing="$missing $k"
done
tap_check "loom.yaml(5) documents keys ($(echo $keys | wc -w))" test "$(echo $keys | wc -w)" -ge 30
tap_is "every key in loom.yaml(5) is shown in contrib/loom.yaml" "${missing# }" ""

# Exit 2 for a file that cannot be read; the default file may be absent.
"$LOOM" config -c "$tmp/none.yaml" >"$tmp/out" 2>"$tmp/err"
tap_is "-c with a missing file: exit 2" "$?" 2
tap_check "missing file: says so with the name" grep -q "^$tmp/none.yaml: cannot open: No such file" "$tmp/err"
tap_check "missing file: nothing on stdout" test ! -s "$tmp/out"
"$LOOM" config "$tmp" >/dev/null 2>"$tmp/err"
tap_is "a directory: exit 2" "$?" 2
# A FIFO would block the read until a writer came: refused at once instead.
mkfifo "$tmp/fifo.yaml"
timeout 10 "$LOOM" config "$tmp/fifo.yaml" >/dev/null 2>"$tmp/err"
tap_is "a FIFO: exit 2, without waiting for a writer" "$?" 2
tap_check "a FIFO: says it is not a regular file" \
	grep -q "^$tmp/fifo.yaml: not a regular file" "$tmp/err"
timeout 10 "${LOOMD:-loomd}" --check-config -c "$tmp/fifo.yaml" >/dev/null 2>"$tmp/err"
tap_is "loomd --check-config on a FIFO: exit 2, without waiting" "$?" 2

# loomd --check-config checks what loomd would run with: the file under the options.
printf 'sm:\n  routing:\n    engine: ftree\n' >"$tmp/ft.yaml"
"${LOOMD:-loomd}" --check-config -c "$tmp/ft.yaml" --routing bogus >"$tmp/out" 2>"$tmp/err"
tap_is "loomd --check-config --routing bogus: exit 1" "$?" 1
tap_check "... names the engine it does not have" grep -q "'bogus' is not an engine" "$tmp/err"
"${LOOMD:-loomd}" --check-config -c "$tmp/ft.yaml" --routing vlayered,updn --lmc 2 >"$tmp/out" 2>&1
tap_is "loomd --check-config with options: exit 0" "$?" 0
tap_check "... prints the options over the file (engines, LMC)" \
	bash -c "grep -q '^    engine: \[vlayered, updn\]$' '$tmp/out' && grep -q '^    lmc: 2$' '$tmp/out'"
# sm.sweep-interval 0 (no timed light sweeps) is what loomd runs with, not
# its 10 s default; --sweep-interval 0 says the same.
printf 'sm:\n  sweep-interval: 0\n' >"$tmp/sw0.yaml"
"${LOOMD:-loomd}" --check-config -c "$tmp/sw0.yaml" >"$tmp/out" 2>&1
tap_check "loomd --check-config: sm.sweep-interval 0 stays 0 (no timed light sweeps)" \
	grep -q '^  sweep-interval: 0s$' "$tmp/out" || tap_diag "$(grep sweep "$tmp/out")"
"${LOOMD:-loomd}" --check-config --sweep-interval 0 >"$tmp/out" 2>&1
tap_is "loomd --sweep-interval 0: exit 0" "$?" 0
tap_check "... sweep-interval: 0s" grep -q '^  sweep-interval: 0s$' "$tmp/out"
# One table of limits: an option takes what the file takes, and no more.
"${LOOMD:-loomd}" --check-config -c "$tmp/ft.yaml" --mad-window 256 --mad-timeout 10000 >"$tmp/out" 2>&1
tap_is "loomd --mad-window 256 --mad-timeout 10000 (the file's limits): exit 0" "$?" 0
tap_check "... printed as the file would have them" \
	bash -c "grep -q '^    window: 256$' '$tmp/out' && grep -q '^    timeout: 10s$' '$tmp/out'"
for bad in "--mad-window 257" "--mad-timeout 10001"; do
	# shellcheck disable=SC2086 # the option and its value
	"${LOOMD:-loomd}" --check-config -c "$tmp/ft.yaml" $bad >/dev/null 2>"$tmp/err"
	tap_is "loomd $bad (past sm.mad's limit): exit 1" "$?" 1
done
"${LOOMD:-loomd}" --check-config -c "$tmp/ft.yaml" --routing file >/dev/null 2>"$tmp/err"
tap_is "loomd --check-config --routing file without --lfts: exit 1" "$?" 1
timeout 10 "${LOOMD:-loomd}" --once -c "$tmp/ft.yaml" --routing file --lfts "$tmp/none.lfts" \
	--state-dir "$tmp/state" >/dev/null 2>"$tmp/err"
tap_is "loomd --routing file with a missing --lfts: refuses to start (exit 1)" "$?" 1
tap_check "... and says why, before touching a port" \
	grep -q "routing engine file: $tmp/none.lfts: No such file.*not starting" "$tmp/err"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$tmp/big.yaml"
"$LOOM" config "$tmp/big.yaml" >/dev/null 2>"$tmp/err"
tap_is "a file over 1 MiB: exit 2" "$?" 2
tap_check "a file over 1 MiB: says so" grep -q 'larger than a configuration may be (1 MiB)' "$tmp/err"
if [ ! -e /etc/loom/loom.yaml ]; then
	"$LOOM" config >"$tmp/out" 2>"$tmp/err"
	tap_is "no -c and no /etc/loom/loom.yaml: exit 0" "$?" 0
	same "no -c and no /etc/loom/loom.yaml: the defaults" "$tmp/out" "$dir/01-empty.out"
fi

# Usage: --help on stdout and 0; misuse on stderr and 1.
"$LOOM" config --help >"$tmp/out"
tap_is "--help: exit 0" "$?" 0
tap_check "--help: usage on stdout" grep -q '^usage: loom config' "$tmp/out"
"$LOOM" config --bogus >/dev/null 2>"$tmp/err"
tap_is "unknown option: exit 1" "$?" 1
tap_check "unknown option: usage on stderr" grep -q '^usage: loom config' "$tmp/err"
"$LOOM" config a.yaml b.yaml >/dev/null 2>&1
tap_is "two files: exit 1" "$?" 1
tap_done
