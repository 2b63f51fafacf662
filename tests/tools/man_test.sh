#!/bin/bash
# Man pages and --help cannot drift apart: every option that a program's (or a
# loom command's) --help lists is documented in its man page section, and every
# option that section's .TP entries document is one --help lists.
#   loomd --help          doc/loomd.8, OPTIONS
#   loom CMD --help       doc/loom.8, the ".SS CMD" of COMMANDS
#   loom health --help    doc/loom-health.8, OPTIONS
#   loom-verbs --help     verbs/loom-verbs.8, OPTIONS
# and every key that loom config prints is named in loom.yaml(5).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
LOOM=${LOOM:-$builddir/tools/loom}
LOOMD=${LOOMD:-$builddir/loomd/loomd}
VERBS=${VERBS:-$builddir/verbs/loom-verbs}
. "$srcdir/tests/lib/tap.sh"

# The options of --help text on stdin: those an option line starts with
# (indented at most 6 columns, "-x, --long ARG" or "--long ARG") and those in
# the usage lines' brackets. Prose that mentions another tool's flags is left out.
help_opts() {
	awk '
	/^usage:/ || (inuse && /^ +[[a-z]/) { inuse = 1; line = $0
		while (match(line, /[[| ]-[-a-zA-Z0-9]+/)) {
			print substr(line, RSTART + 1, RLENGTH - 1)
			line = substr(line, RSTART + RLENGTH) }
		next }
	{ inuse = 0 }
	/^ +-/ && !/^       / { for (i = 1; i <= NF && $i ~ /^-/; i++) print $i }' |
		sed 's/[,=].*//' | sort -u
}

# A man page as plain text, roff escapes and fonts gone, from the line that
# matches START up to (not including) the next line that matches STOP.
man_part() { # FILE START STOP
	awk -v a="$2" -v b="$3" '$0 ~ a && !on { on = 1; print; next } on && $0 ~ b { exit } on' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/--/g' -e 's/\\&//g'
}

# The options the section's .TP entries document (the line after each .TP).
man_tp_opts() {
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
		grep -oE '(^|[ ",])--?[a-zA-Z][-a-zA-Z0-9]*' | sed 's/^[ ",]*//' | sort -u
}

check_pair() { # NAME HELP-TEXT-FILE MAN-TEXT-FILE
	local name=$1 help=$2 man=$3 o missing=() extra=() hopts
	hopts=$(help_opts <"$help")
	tap_check "$name: --help lists options" test -n "$hopts"
	tap_check "$name: the man page has that section" test -s "$man"
	for o in $hopts; do
		grep -qE -- "(^|[^-a-zA-Z0-9])$o([^-a-zA-Z0-9]|\$)" "$man" || missing+=("$o")
	done
	tap_is "$name: every --help option in the man page" "${missing[*]}" ""
	for o in $(man_tp_opts <"$man"); do
		# Every program takes --help (STYLE.md); a command's --help need not say so.
		case $o in --help | -h) continue ;; esac
		grep -qxF -- "$o" <<<"$hopts" || extra+=("$o")
	done
	tap_is "$name: every option the man page documents in --help" "${extra[*]}" ""
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$LOOMD" --help >"$tmp/h" 2>&1
man_part "$srcdir/doc/loomd.8" '^\.SH OPTIONS' '^\.SH' >"$tmp/m"
check_pair loomd "$tmp/h" "$tmp/m"

"$VERBS" --help >"$tmp/h" 2>&1
man_part "$srcdir/verbs/loom-verbs.8" '^\.SH OPTIONS' '^\.SH' >"$tmp/m"
check_pair loom-verbs "$tmp/h" "$tmp/m"

"$LOOM" health --help >"$tmp/h" 2>&1
man_part "$srcdir/doc/loom-health.8" '^\.SH OPTIONS' '^\.SH' >"$tmp/m"
check_pair "loom health" "$tmp/h" "$tmp/m"

# Every command loom --help lists has its section in loom(8).
cmds=$("$LOOM" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
tap_check "loom --help lists commands" test -n "$cmds"
for c in $cmds; do
	[ "$c" = health ] && continue
	"$LOOM" "$c" --help >"$tmp/h" 2>&1
	man_part "$srcdir/doc/loom.8" "^\\.SS $c\$" '^\.S[SH]' >"$tmp/m"
	check_pair "loom $c" "$tmp/h" "$tmp/m"
done
man_part "$srcdir/doc/loom.8" '^\.SS health$' '^\.S[SH]' >"$tmp/m"
tap_check "loom(8) points to loom-health(8)" grep -q 'loom-health (8)' "$tmp/m"
# ... and no section for a command that loom does not have.
for c in $(man_part "$srcdir/doc/loom.8" '^\.SH COMMANDS' '^\.SH [^C]' | sed -n 's/^\.SS //p'); do
	tap_check "loom(8) section '$c' is a command of loom --help" grep -qx -- "$c" <<<"$cmds"
done

# loom.yaml(5): every key of the normalised configuration (the commented
# example's, defaults filled in) is named in the page.
"$LOOM" config -c "$srcdir/contrib/loom.yaml" >"$tmp/conf" 2>&1
keys=$(grep -oE '^ *(- )?[a-z][a-z0-9-]*:' "$tmp/conf" | sed 's/^ *//; s/^- //; s/:$//' | sort -u)
tap_check "loom config prints the example's keys" test "$(wc -l <<<"$keys")" -gt 20
man_part "$srcdir/doc/loom.yaml.5" '^\.TH' '^\.SH SEE ALSO' >"$tmp/m"
missing=()
for k in $keys; do
	grep -qE -- "(^|[^-a-z0-9])$k([^-a-z0-9]|\$)" "$tmp/m" || missing+=("$k")
done
tap_is "loom.yaml(5) names every key loom config prints" "${missing[*]}" ""
tap_done
