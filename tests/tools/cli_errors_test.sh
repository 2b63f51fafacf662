#!/bin/bash
# A command line that is wrong says what is wrong before the usage, and the
# exit status is the documented one: loom route, loom topo, loom verify,
# loom health, loom discover (misuse: the usage lines and "Try 'loom X
# --help'", not the whole help; loom route's --guid2lid naming a missing
# file), and loomd
# (misuse: that one line and "Try 'loomd --help'", not the usage; --version;
# a configuration file that is missing says what to do, not to run
# --check-config on it). No fabric: loomd stops at its configuration,
# before it opens a port.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
topo=$srcdir/tests/topologies/single-switch.topo

misuse() { # NAME EXPECTED-STATUS FIRST-LINE-PATTERN USAGE-PATTERN CMD...
	local name=$1 want=$2 first=$3 use=$4 rc
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	tap_is "$name: exit $want" "$rc" "$want"
	head -n 1 "$tmp/err" >"$tmp/first"
	tap_check "$name: says what is wrong first" grep -qE -- "$first" "$tmp/first"
	tap_check "$name: then the usage" grep -q "^usage: $use" "$tmp/err"
	tap_is "$name: then where the rest is, not the whole help" "$(tail -n 1 "$tmp/err")" \
		"Try '$use --help' for more information."
	tap_check "$name: nothing on stdout" test ! -s "$tmp/out"
}

misuse "loom route, no file" 1 '^loom route: no TOPOFILE given$' 'loom route' "$LOOM" route
misuse "loom route, two files" 1 "^loom route: one TOPOFILE only; 'x' is one too many$" 'loom route' \
	"$LOOM" route "$topo" x
misuse "loom route --json --canon" 1 '^loom route: --json and --canon: one at most$' 'loom route' \
	"$LOOM" route --json --canon "$topo"
misuse "loom route --pkeys without --config" 1 '^loom route: --pkeys needs .*--config' 'loom route' \
	"$LOOM" route --pkeys "$topo"
misuse "loom topo, no file" 1 '^loom topo: no TOPOFILE given$' 'loom topo' "$LOOM" topo
misuse "loom topo --json --list" 1 '^loom topo: --json and --list: one at most$' 'loom topo' \
	"$LOOM" topo --json --list "$topo"
misuse "loom verify, one file" 2 '^loom verify: two files, TOPOFILE and LFTFILE, not 1$' 'loom verify' \
	"$LOOM" verify "$topo"
misuse "loom verify --from without --reprint" 2 '^loom verify: --from goes only with --reprint$' \
	'loom verify' "$LOOM" verify --from 0x1 "$topo" x
misuse "loom route --bogus" 1 "unrecognized option '--bogus'" 'loom route' "$LOOM" route --bogus "$topo"
misuse "loom verify --bogus" 2 "unrecognized option '--bogus'" 'loom verify' "$LOOM" verify --bogus "$topo" x
# Both stop at the command line, before they open a port.
misuse "loom health --bogus" 2 "unrecognized option '--bogus'" 'loom health' "$LOOM" health --bogus
misuse "loom discover --bogus" 1 "unrecognized option '--bogus'" 'loom discover' "$LOOM" discover --bogus

# A --guid2lid that is not there is not an empty map: loom route stops.
"$LOOM" route --guid2lid "$tmp/none" "$topo" >"$tmp/out" 2>"$tmp/err"
tap_is "loom route --guid2lid a missing file: exit 2" "$?" 2
tap_check "... says so, with where loomd keeps it" \
	grep -qF "loom route: --guid2lid $tmp/none: No such file or directory; nothing routed (loomd keeps it in its state dir" \
	"$tmp/err"
tap_check "... and prints no tables" test ! -s "$tmp/out"

# The usage lines name every option (the body lists them all too).
"$LOOM" route --help >"$tmp/help"
for o in --engine --fallback --lmc --vls --root --lfts --guid2lid --keep --config --threads \
	--check --json --canon --sl --pkeys --qos; do
	sed -n '/^usage:/,/^$/p' "$tmp/help" | grep -qE -- "[[|] ?$o[] |]" || missing+=" $o"
done
tap_is "loom route's usage lines name every option" "${missing:-}" ""

# loomd's misuse: the line that says what is wrong, then where help is; not
# its 40-line usage burying that line. Exit 1 as before.
loomd_misuse() { # NAME FIRST-LINE-PATTERN ARGS...
	local name=$1 first=$2 rc
	shift 2
	"$LOOMD" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	tap_is "$name: exit 1" "$rc" 1
	tap_check "$name: says what is wrong first" bash -c "head -n 1 '$tmp/err' | grep -qE -- \"\$1\"" _ "$first"
	tap_is "$name: then where help is, and nothing else" "$(sed 1d "$tmp/err")" \
		"Try 'loomd --help' for more information."
	tap_check "$name: nothing on stdout" test ! -s "$tmp/out"
}
loomd_misuse "loomd --bogus" "unrecognized option '--bogus'" --bogus
loomd_misuse "loomd --lmc (no value)" "option '--lmc' requires an argument" --lmc
loomd_misuse "loomd -q" "invalid option -- 'q'" -q
loomd_misuse "loomd --lmc 9 --bogus (the first error only)" "^loomd: --lmc: '9' is not a number in 0\.\.7$" \
	--lmc 9 --bogus
loomd_misuse "loomd with an argument" "^loomd: unexpected argument 'x'$" x
"$LOOMD" --help >"$tmp/out" 2>"$tmp/err"
tap_is "loomd --help: exit 0" "$?" 0
tap_check "loomd --help: the usage, on stdout" grep -q '^usage: loomd' "$tmp/out"

"$LOOMD" --version >"$tmp/out" 2>&1
tap_is "loomd --version: exit 0" "$?" 0
tap_check "loomd --version: its version, as loom --version prints it" \
	test "$(sed 's/^loomd //' "$tmp/out")" = "$("$LOOM" --version | sed 's/^loom //')"

"$LOOMD" --once -c "$tmp/none.yaml" --state-dir "$tmp/state" >"$tmp/out" 2>&1
tap_is "loomd -c a missing file: exit 1" "$?" 1
tap_check "... names the file and what to do" \
	grep -qF "$tmp/none.yaml: No such file or directory; not starting (give a readable file with -c" \
	"$tmp/out"
tap_check "... does not send to --check-config, which cannot read it either" \
	bash -c "! grep -q -- '--check-config' '$tmp/out'"
tap_done
