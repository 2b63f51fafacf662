#!/bin/bash
# loom status, sweep, reload and handover without a simulator: against no socket
# (exit 2, the path named), against a stand-in loomd in python3 that
# records the request line and plays a canned reply (ok: the body on
# stdout as sent; err: exit 1 and the reason on stderr; not the protocol,
# or no reply in time: exit 2), and their command lines (--help, misuse).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
fake=
trap '[ -n "$fake" ] && kill "$fake" 2>/dev/null; rm -rf "$tmp"' EXIT
sock=$tmp/control

# One connection: write what the client sent to $tmp/req, answer REPLY (\n escapes), or
# sleep and close when REPLY is "silent". Every wait of the stand-in is bounded.
serve() { # REPLY
	rm -f "$sock" "$tmp/req"
	python3 - "$sock" "$tmp/req" "$1" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
# Listening before the path appears: the test waits for the path.
s.bind(sys.argv[1] + ".new")
s.listen(1)
os.rename(sys.argv[1] + ".new", sys.argv[1])
s.settimeout(20)
c, _ = s.accept()
c.settimeout(5)
req = b""
while not req.endswith(b"\n"):
    b = c.recv(100)
    if not b:
        break
    req += b
open(sys.argv[2], "wb").write(req)
if sys.argv[3] == "silent":
    time.sleep(20)
else:
    c.sendall(sys.argv[3].encode().decode("unicode_escape").encode())
c.close()
PY
	fake=$!
	for _ in $(seq 50); do [ -S "$sock" ] && return 0; sleep 0.1; done
	return 1
}
done_fake() { wait "$fake" 2>/dev/null; fake=; }

"$LOOM" status --control "$sock" >"$tmp/out" 2>"$tmp/err"
tap_is "no socket: exit 2" "$?" 2
tap_check "no socket: the message names the path" grep -qF "no loomd answers at $sock" "$tmp/err"
tap_check "no socket: nothing on stdout" test ! -s "$tmp/out"
"$LOOM" sweep --control "$tmp/nothing/here" 2>/dev/null
tap_is "loom sweep, no socket: exit 2" "$?" 2
"$LOOM" reload --control "$tmp/nothing/here" 2>/dev/null
tap_is "loom reload, no socket: exit 2" "$?" 2
"$LOOM" handover --control "$tmp/nothing/here" 2>/dev/null
tap_is "loom handover, no socket: exit 2" "$?" 2

# Each command sends its request line.
for c in "status|status" "status --json|status json" "sweep|sweep" "sweep --heavy|sweep heavy" \
	"sweep --pause|sweep pause" "sweep --resume|sweep resume" "reload|reload" \
	"handover|handover"; do
	args=${c%%|*} want=${c#*|}
	serve 'ok\nbody\n'
	# shellcheck disable=SC2086 # args are words
	out=$("$LOOM" $args --control "$sock" 2>&1)
	rc=$?
	done_fake
	tap_is "loom $args: sends '$want'" "$(cat "$tmp/req" 2>/dev/null)" "$want"
	tap_is "loom $args: ok: exit 0, the body printed" "$rc:$out" "0:body"
done

serve 'ok\nline 1\n  line 2\n'
"$LOOM" status --control "$sock" >"$tmp/out" 2>"$tmp/err"
rc=$?
done_fake
tap_is "ok: exit 0" "$rc" 0
tap_check "ok: the body exactly, on stdout" diff <(printf 'line 1\n  line 2\n') "$tmp/out"
tap_check "ok: nothing on stderr" test ! -s "$tmp/err"

serve 'err reload refused: a.yaml: invalid configuration\na.yaml:3:1: bad\n'
"$LOOM" reload --control "$sock" >"$tmp/out" 2>"$tmp/err"
rc=$?
done_fake
tap_is "err: exit 1" "$rc" 1
tap_check "err: the reason on stderr" \
	grep -q "^loom reload: loomd refused 'reload': reload refused: a.yaml" \
	"$tmp/err"
tap_check "err: the details on stderr too" grep -q '^a.yaml:3:1: bad$' "$tmp/err"
tap_check "err: nothing on stdout" test ! -s "$tmp/out"

serve 'HTTP/1.0 200 OK\n\nhello\n'
"$LOOM" status --control "$sock" >"$tmp/out" 2>"$tmp/err"
rc=$?
done_fake
tap_is "not the protocol: exit 2" "$rc" 2
tap_check "not the protocol: says so" grep -q "not loomd's control protocol" "$tmp/err"

serve 'ok'
"$LOOM" status --control "$sock" >/dev/null 2>"$tmp/err"
tap_is "a head line without its end: exit 2" "$?" 2
done_fake

serve silent
start=$SECONDS
"$LOOM" sweep --timeout 1 --control "$sock" >/dev/null 2>"$tmp/err"
rc=$?
took=$((SECONDS - start))
kill "$fake" 2>/dev/null
done_fake
tap_is "no reply within --timeout 1: exit 2" "$rc" 2
# The stand-in would answer (by closing) only after 20 s; a loaded machine may be slow.
tap_check "... after about a second, not 20 ($took s)" test "$took" -le 6
tap_check "... saying so" grep -q "no whole reply to 'sweep' within 1 s" "$tmp/err"

# Command lines.
for c in status sweep reload handover; do
	"$LOOM" "$c" --help >"$tmp/out" 2>&1
	tap_is "loom $c --help: exit 0" "$?" 0
	tap_check "loom $c --help: usage on stdout" grep -q "^usage: loom $c" "$tmp/out"
	"$LOOM" "$c" --bogus >/dev/null 2>"$tmp/err"
	tap_is "loom $c --bogus: exit 1" "$?" 1
	tap_check "loom $c --bogus: usage on stderr" grep -q "^usage: loom $c" "$tmp/err"
done
"$LOOM" sweep --heavy --pause >/dev/null 2>"$tmp/err"
tap_is "loom sweep --heavy --pause: exit 1" "$?" 1
tap_check "... one at most" grep -q 'one at most' "$tmp/err"
"$LOOM" status --heavy >/dev/null 2>&1
tap_is "loom status --heavy: exit 1" "$?" 1
"$LOOM" status extra >/dev/null 2>&1
tap_is "loom status with an argument: exit 1" "$?" 1
"$LOOM" sweep --timeout 0 >/dev/null 2>&1
tap_is "loom sweep --timeout 0: exit 1" "$?" 1
tap_done
