#!/bin/bash
# The layers of DESIGN.md, checked on the source tree:
#  - includes go one way: a product folder includes only itself and the folders
#    before it in LAYERS; an include of a later folder is reported as
#    FILE:LINE: A/ includes B/, unless tests/tools/layers.allow lists it;
#  - layers.allow only shrinks: an entry that is no longer an upward include
#    (fixed, moved, or never one) fails too, and every entry says why;
#  - every .c and .h of a folder is named in that folder's DOC: block (the one
#    header of the folder that carries `DOC:`); X.h and X_priv.h are named
#    with X.c when there is one (STYLE.md's example lists the .c files, the
#    jobs), and the header that carries the block needs not name itself.
# The checker first runs on a small fixture tree with known faults, so that a
# checker which finds nothing cannot pass.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# DESIGN.md's order: each folder may include only itself and those before it.
LAYERS=(lib mad config model routing plan fabric sa loomd tools verbs)
declare -A rank
for i in "${!LAYERS[@]}"; do
	rank[${LAYERS[$i]}]=$i
done

# layers_sources ROOT DIR: the .c and .h files under ROOT/DIR, relative to ROOT.
layers_sources() {
	(cd "$1" && find "$2" -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
}

# layers_target FILE INC: the folder that `#include "INC"` in FILE (relative to the
# root, cwd = root) reaches. As the compiler does for quotes: the including file's
# folder first, then the root (-I$(top_srcdir)).
layers_target() {
	local dir=${1%/*} inc=$2 path
	case $inc in
	*/*) ;;
	*) echo "${1%%/*}"; return ;;
	esac
	if [ -e "$dir/$inc" ] || [[ $inc == ./* || $inc == ../* ]]; then
		path=$(realpath -m --relative-to=. "$dir/$inc")
	else
		path=$(realpath -m --relative-to=. "$inc")
	fi
	echo "${path%%/*}"
}

# layers_includes ROOT: every upward include as "FILE:LINE: A/ includes B/ (INC)".
layers_includes() {
	local d f line inc to
	(
		cd "$1" || exit 2
		for d in "${LAYERS[@]}"; do
			[ -d "$d" ] || continue
			layers_sources . "$d" | while read -r f; do
				awk 'match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]*"/) {
					s = substr($0, RSTART, RLENGTH)
					sub(/^[^"]*"/, "", s)
					print FNR, substr(s, 1, length(s) - 1)
				}' "$f" | while read -r line inc; do
					to=$(layers_target "$f" "$inc")
					[ -n "${rank[$to]:-}" ] || continue
					[ "${rank[$to]}" -gt "${rank[$d]}" ] || continue
					echo "$f:$line: $d/ includes $to/ ($inc)"
				done
			done
		done
	)
}

# layers_check ROOT ALLOW: the upward includes ALLOW does not list, then ALLOW's
# problems as "ALLOW:LINE: ..." (malformed, no reason, no longer an upward include).
layers_check() {
	local root=$1 allow=$2 n=0 raw entry file arrow inc rest why found
	layers_includes "$root" >"$tmp/found"
	# FILE INC of each, to match against the list
	sed 's/^\([^:]*\):.* (\(.*\))$/\1 \2/' "$tmp/found" >"$tmp/pairs"
	: >"$tmp/allowed"
	while IFS= read -r raw || [ -n "$raw" ]; do
		n=$((n + 1))
		entry=${raw%%#*}
		why=${raw#"$entry"}
		read -r file arrow inc rest <<<"$entry"
		[ -z "$file" ] && continue
		if [ "$arrow" != "->" ] || [ -z "$inc" ] || [ -n "$rest" ]; then
			echo "$allow:$n: not FILE -> HEADER  # why: $raw"
		elif [ -z "${why//[#[:space:]]/}" ]; then
			echo "$allow:$n: $file -> $inc: say why it is allowed (# why)"
		elif ! grep -qxF "$file $inc" "$tmp/pairs"; then
			echo "$allow:$n: $file -> $inc is no longer an upward include: remove it from the list"
		else
			echo "$file $inc" >>"$tmp/allowed"
		fi
	done <"$allow"
	paste -d '\n' "$tmp/pairs" "$tmp/found" | while IFS= read -r file && IFS= read -r found; do
		grep -qxF "$file" "$tmp/allowed" || echo "$found"
	done
}

# layers_named DOCFILE NAME: NAME is a word of DOCFILE.
layers_named() {
	grep -qw -- "${2//./\\.}" "$1"
}

# layers_docs ROOT: every folder's files that its DOC: block does not name, as
# "DIR/FILE: not named in the DOC: block of DIR/HEADER"; a folder with no DOC:
# header, or with two, is reported as such.
layers_docs() {
	local d f hdr docs twin
	(
		cd "$1" || exit 2
		for d in "${LAYERS[@]}"; do
			[ -d "$d" ] || continue
			docs=$(layers_sources . "$d" | grep '\.h$' | xargs -r grep -l 'DOC:')
			if [ -z "$docs" ]; then
				echo "$d/: no header carries a DOC: block"
				continue
			fi
			if [ "$(wc -l <<<"$docs")" -ne 1 ]; then
				echo "$d/: more than one DOC: block: ${docs//$'\n'/ }"
				continue
			fi
			hdr=$docs
			awk '/DOC:/ { p = 1 } p { print } p && /\*\// { exit }' "$hdr" >"$tmp/doc"
			layers_sources . "$d" | while read -r f; do
				[ "$f" != "$hdr" ] || continue
				layers_named "$tmp/doc" "${f##*/}" && continue
				twin=${f%.h}
				twin=${twin%_priv}.c
				[ "$f" != "${f%.h}" ] && [ -e "$twin" ] &&
					layers_named "$tmp/doc" "${twin##*/}" && continue
				echo "$f: not named in the DOC: block of $hdr"
			done
		done
	)
}

# ---- the checker on a fixture with known faults ------------------------------------
fx=$tmp/fixture
mkdir -p "$fx"/{lib,mad,config,sa,tools}
printf '/*\n * DOC: lib/ — fixture\n *   a.h   a header\n *   b.c   a source\n */\n' >"$fx/lib/a.h"
printf '#include "lib/a.h"\n#include "mad/m.h"\n' >"$fx/lib/b.c"
printf '/* DOC: mad/ m.h m.c */\n#include "lib/a.h"\n' >"$fx/mad/m.h"
printf '#include "m.h"\n#include "../lib/a.h"\n#  include "../sa/s.h"\n' >"$fx/mad/m.c"
printf '#include "mad/m.h"\n' >"$fx/config/c.c"
printf '/* DOC: sa/ — s.h only, not the other one */\n#include "mad/m.h"\n' >"$fx/sa/s.h"
printf '#include "sa/s.h"\n#include "tools/t.h"\n' >"$fx/sa/s.c"
printf '/* DOC: tools/\n *   t.c  a source, t_priv.h goes with it\n */\n#include "sa/s.h"\n' >"$fx/tools/t.h"
touch "$fx/tools/t.c" "$fx/tools/t_priv.h" "$fx/tools/u.h"
cat >"$fx/allow" <<'EOF'
# known exceptions
sa/s.c -> tools/t.h  # the fixture's allowed one
sa/s.c -> loomd/gone.h  # was fixed: must be reported
lib/b.c -> sa/s.h
EOF
layers_check "$fx" "$fx/allow" >"$tmp/fx.out"
tap_diag "the checker on the fixture:" "$(cat "$tmp/fx.out")"
tap_check "fixture: an upward include is reported with FILE:LINE and both folders" \
	grep -qxF 'lib/b.c:2: lib/ includes mad/ (mad/m.h)' "$tmp/fx.out"
tap_check "fixture: a relative upward include is reported" \
	grep -qxF 'mad/m.c:3: mad/ includes sa/ (../sa/s.h)' "$tmp/fx.out"
tap_check "fixture: an allowlisted include is not reported" \
	bash -c "! grep -q 'sa/s.c:2' '$tmp/fx.out'"
tap_check "fixture: an allowlisted include that is gone is reported" \
	grep -qxF "$fx/allow:3: sa/s.c -> loomd/gone.h is no longer an upward include: remove it from the list" \
	"$tmp/fx.out"
tap_check "fixture: an allowlist entry without a reason is reported" \
	grep -q "^$fx/allow:4: " "$tmp/fx.out"
tap_is "fixture: nothing else is reported (same folder, earlier folders)" "$(wc -l <"$tmp/fx.out")" 4
layers_docs "$fx" >"$tmp/fx.docs"
tap_is "fixture: a file its folder's DOC: block does not name is reported" \
	"$(grep '^sa/' "$tmp/fx.docs")" "sa/s.c: not named in the DOC: block of sa/s.h"
tap_is "fixture: a folder without a DOC: block is reported" \
	"$(grep '^config/' "$tmp/fx.docs")" "config/: no header carries a DOC: block"
tap_is "fixture: a header without a .c of its name must be named itself" \
	"$(grep '^tools/' "$tmp/fx.docs")" "tools/u.h: not named in the DOC: block of tools/t.h"
tap_is "fixture: nothing else is missing from a DOC: block" "$(wc -l <"$tmp/fx.docs")" 3

# ---- the tree ----------------------------------------------------------------------
allow=$srcdir/tests/tools/layers.allow
layers_check "$srcdir" "$allow" >"$tmp/tree.out"
layers_docs "$srcdir" >"$tmp/tree.docs"
for d in "${LAYERS[@]}"; do
	tap_check "$d/ exists" test -d "$srcdir/$d" || continue
	got=$(grep "^$d/" "$tmp/tree.out")
	tap_check "$d/ includes no folder after it" test -z "$got" ||
		tap_diag "$got" "an include goes up the layers (DESIGN.md): move the code down or," \
			"while it is being moved, list it in tests/tools/layers.allow with why"
	got=$(grep "^$d/" "$tmp/tree.docs")
	tap_check "$d/: every .c and .h is named in its DOC: block" test -z "$got" ||
		tap_diag "$got"
done
got=$(grep -F "$allow:" "$tmp/tree.out")
tap_check "layers.allow: every entry is still an upward include, with a reason" test -z "$got" ||
	tap_diag "$got"
tap_done
