#!/bin/bash
# tests/lib/log.sh's log_wait, the one bounded wait for a log line the fabric
# tests share: each kind of pattern, a count, the bound, a writer that ended.
# Its bounds are 1-2 s here; nothing is judged by the clock but "it ended".
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/tap.sh"
. "$srcdir/tests/lib/log.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/log_wait_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
f=$tmp/log
printf 'sweep 1 (heavy): 8 nodes, SUBNET UP\nsweep 2 (light)\nsweep 3 (heavy): 0 LFT blocks\n' >"$f"

tap_check "BRE (the default): a line that has it" log_wait "$f" 'sweep [0-9]* (heavy)' 1
tap_check "BRE: + and | are plain characters" bash -c \
	". '$srcdir/tests/lib/log.sh'; ! log_wait '$f' 'sweep [0-9]+ (heavy|light)' 0"
tap_check "-E: an extended expression" log_wait -E "$f" 'sweep [0-9]+ \((heavy|light)\)' 1
tap_check "-F: a fixed string, brackets and all" log_wait -F "$f" '(heavy): 0 LFT' 1
tap_check "-F: no expression" bash -c ". '$srcdir/tests/lib/log.sh'; ! log_wait -F '$f' 'sweep .' 0"
tap_check "-n 2: two lines match" log_wait -E -n 2 "$f" '\(heavy\)' 1
out=$(log_wait -E -n 3 "$f" '\(heavy\)' 1; echo "rc=$?")
tap_is "-n 3: only two do: 1 once the bound has passed" "$out" "rc=1"
out=$(log_wait "$tmp/absent" 'x' 1; echo "rc=$?")
tap_is "a file that is not there: 1, quietly" "$out" "rc=1"
(sleep 0.5; echo 'late line' >>"$f") &
tap_check "a line written while it waits" log_wait "$f" '^late line$' 10
wait
# The line comes 3 s after the "writer" has ended: without -p it would be
# found within the bound; with -p the wait gave up when the writer ended.
(sleep 3; echo 'after the writer' >>"$f") &
late=$!
sleep 0.3 &
out=$(log_wait -p $! "$f" '^after the writer$' 60; echo "rc=$?")
tap_is "-p: 1 once PID has ended without the line" "$out" "rc=1"
wait "$late"
tap_check "... the line that came later is found without -p" log_wait "$f" '^after the writer$' 1
out=$(log_wait "$f" 2>&1; echo "rc=$?")
tap_check "misuse: 2, with a usage line" grep -q '^log_wait: usage: .*rc=2$' <<<"${out//$'\n'/}"
tap_done
