#!/bin/bash
# loomd's control socket on the simulator, asked by the loom command:
# - with no loomd, loom status exits 2 and names the socket it tried;
# - a stale socket left at the path is replaced; the socket is mode 0660;
# - loom status (text and --json, parsed by python3) says MASTER, SUBNET UP
#   and counts sweeps, and sminfo (infiniband-diags) agrees on the state;
# - loom sweep --pause holds the sweep a trap asks for after an ibsim Unlink
#   of a switch-to-switch link (status says paused, and since when); loom
#   sweep --heavy runs one anyway, and its summary shows the change (fewer
#   ports, LFT blocks sent); --resume releases sweeps;
# - loom reload with a broken file is refused with the error's place, and a
#   good file is taken;
# - a client that sends nothing does not hold up others, and garbage is
#   refused;
# - a user who is neither root nor in the socket's group is refused and
#   logged (setpriv/runuser; skipped if neither exists), and one in the group
#   sm.control-group names (taken by a reload) may ask;
# - SIGTERM: loomd exits 0 and removes its socket;
# - a socket another program answers on is left alone, and loomd runs without one;
#   so is a file that is not a socket, and the warning says what to do;
# - without -c or /etc/loom/loom.yaml, loom reload says the defaults apply;
# - a --state-dir that is a file is refused at once, with what to do, and so is
#   a --ca the host does not have; a read-only one is used, with a warning
#   that says what to change.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/2sw2path.topo
sock=$tmp/run/control

# A short interval: a light sweep would see a link go down within a second, unless paused.
printf 'sm:\n  routing: { engine: minhop }\n  sweep-interval: 1s\n' >"$tmp/loom.yaml"
heavy() { grep -c 'sweep [0-9]* (heavy)' "$tmp/loomd.log"; }
status() { "$LOOM" status --control "$sock" "$@"; }
json() { # PYTHON-EXPR on the status object j
	status --json | python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"
}
wait_up() {
	for _ in $(seq 150); do
		status 2>/dev/null | grep -q '^subnet: UP$' && return 0
		sleep 0.1
	done
	return 1
}

out=$(status 2>&1)
rc=$?
tap_is "no loomd: loom status exits 2" "$rc" 2
tap_check "no loomd: the message names the socket it tried" grep -qF "$sock" <<<"$out"
tap_diag "$out"

if ! sim_start c "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
# A socket left behind by a loomd that died: nobody listens on it.
mkdir -p "$tmp/run"
python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$sock"
sim_run c --timeout 300 --out "$tmp/loomd.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" --control "$sock" &
bg=$!
tap_check "loom status reports SUBNET UP" wait_up
tap_check "the stale socket was replaced (loomd listens)" \
	grep -q "control socket $sock: listening" \
	"$tmp/loomd.log"
tap_is "the socket is mode 0660" "$(stat -c %a "$sock")" 660

status >"$tmp/status" 2>&1
tap_is "loom status: exit 0" "$?" 0
tap_check "loom status: SM master" grep -q '^SM: master, priority 0,' "$tmp/status"
tap_check "loom status: heavy sweeps counted" grep -qE '^sweeps done: [1-9][0-9]* heavy' \
	"$tmp/status"
tap_check "loom status: SMPs counted" grep -qE '^SMPs: [1-9][0-9]* sent' "$tmp/status"
tap_check "loom status: the routing engine" grep -q '^routing: minhop$' "$tmp/status"
tap_diag "$(cat "$tmp/status")"
sm=$(sim_run c sminfo 2>/dev/null)
tap_check "sminfo (infiniband-diags) agrees: SMINFO_MASTER" grep -q 'SMINFO_MASTER' <<<"$sm"
tap_is "loom status --json: that sminfo's SMInfo Get counted" \
	"$(json 'j["counters"]["sminfo_gets"] >= 1')" True
got=$(json '" ".join(str(x) for x in (j["sm"]["state"], j["subnet"]["up"], j["engine"],
	j["sweeps_heavy"] >= 1, j["counters"]["smps_sent"] > 0, j["sweeps"][-1]["kind"],
	j["paused"], j["uptime_s"] >= 0, j["version"] != ""))')
tap_is "loom status --json: parses, with its fields" "$got" \
	"master True minhop True True heavy False True True"

# Pause, then take a switch-to-switch link down: the trap's sweep is held.
out=$("$LOOM" sweep --pause --control "$sock" 2>&1)
tap_is "loom sweep --pause: exit 0" "$?" 0
tap_check "loom status: paused, and since when" \
	bash -c "'$LOOM' status --control '$sock' | grep -qE '^sweeps: paused since [0-9]{4}-'"
tap_is "loom status --json: paused" "$(json 'j["paused"], j["paused_since"] is not None')" \
	"True True"
n=$(heavy)
swept=$(json 'j["sweeps_heavy"] + j["sweeps_light"]')
tap_check 'Unlink "Switch1"[3] (a switch-to-switch link)' sim_console c 'Unlink "Switch1"[3]'
sleep 2.5
tap_is "paused: no sweep ran in 2.5 s (a 1 s interval)" \
	"$(json 'j["sweeps_heavy"] + j["sweeps_light"]')" "$swept"
tap_is "paused: no heavy sweep after the link went down" "$(heavy)" "$n"
out=$("$LOOM" sweep --heavy --timeout 60 --control "$sock" 2>&1)
tap_is "loom sweep --heavy while paused: exit 0" "$?" 0
tap_diag "$out"
tap_check "loom sweep --heavy: prints the sweep's summary line" \
	grep -qE '^sweep [0-9]+ \(heavy\): .*SUBNET UP$' <<<"$out"
tap_check "loom sweep --heavy: the summary shows the change (LFT blocks sent)" \
	grep -qE '\([1-9][0-9]* LFT blocks' <<<"$out"
out=$("$LOOM" sweep --resume --control "$sock" 2>&1)
tap_is "loom sweep --resume: exit 0" "$?" 0
swept=$(json 'j["sweeps_heavy"] + j["sweeps_light"]')
# A 1 s interval: the next timer sweep within a second or two; polled, 30 s at
# most (a loaded machine's timers come late).
for _ in $(seq 60); do
	[ "$(json 'j["sweeps_heavy"] + j["sweeps_light"]')" -gt "$swept" ] && break
	sleep 0.5
done
tap_check "resumed: timer sweeps run again" \
	test "$(json 'j["sweeps_heavy"] + j["sweeps_light"]')" -gt "$swept"
# Once more with nothing changed: the same summary, no LFT block sent.
out=$("$LOOM" sweep --heavy --timeout 60 --control "$sock" 2>&1)
tap_check "loom sweep --heavy, nothing changed: 0 LFT blocks" grep -qE ' 0 changes \(0 LFT blocks' \
	<<<"$out" || tap_diag "$out"
out=$("$LOOM" sweep --timeout 60 --control "$sock" 2>&1)
tap_check "loom sweep (light): its summary line" grep -qE '^sweep [0-9]+ \(light\): ' <<<"$out" ||
	tap_diag "$out"
tap_check "loom status: sweeps running again" \
	bash -c "'$LOOM' status --control '$sock' | grep -q '^sweeps: running$'"

# reload: a broken file is refused with its place; a good one is taken.
printf 'sm:\n  routing: { engine: minhop }\n  sweep-interval: 1s\n  priority: 99\n' \
	>"$tmp/loom.yaml"
out=$("$LOOM" reload --control "$sock" 2>&1)
tap_is "loom reload, broken file: exit 1" "$?" 1
tap_diag "$out"
tap_check "loom reload, broken file: says where and what" grep -q 'loom.yaml:4:[0-9]*: .*priority' \
	<<<"$out"
tap_check "loom reload, broken file: the running configuration stays" grep -q 'stays in force' \
	<<<"$out"
printf 'sm:\n  routing: { engine: minhop }\n  sweep-interval: 1s\n  priority: 5\n' >"$tmp/loom.yaml"
n=$(heavy)
out=$("$LOOM" reload --control "$sock" 2>&1)
tap_is "loom reload, good file: exit 0" "$?" 0
tap_check "loom reload, good file: taken" grep -q 'loom.yaml reloaded' <<<"$out"
tap_check "loom reload, good file: prints the diff it applied" \
	diff <(printf ' sm:\n-  priority: 0\n+  priority: 5\n') <(tail -n +2 <<<"$out")
tap_diag "$out"
out=$("$LOOM" reload --control "$sock" 2>&1)
tap_check "loom reload, the same file again: no change" grep -q '^no effective value changed$' \
	<<<"$out"
log_wait -n $((n + 1)) "$tmp/loomd.log" 'sweep [0-9]* (heavy)' 30
tap_check "loom status: the new priority" bash -c "'$LOOM' status --control '$sock' |
	grep -q '^SM: master, priority 5,'"

# A client that connects and sends nothing holds up nobody; garbage is refused.
# Judged by order, not by the clock: the silent client connects, loom status
# runs to its end, and only then does the silent client look whether loomd has
# closed it (its "err no request within" is readable at once on a Unix socket).
# A loomd that waited for the silent one would close it before answering, so
# it reads "closed" every time; one that did not reads "open", unless the
# machine was so slow that status took longer than the silent one's 2 s: that
# try says nothing, and another one is made (5 at most).
silent() { # connect, print "connected", wait for $tmp/asked, say open/closed, read the rest
	python3 - "$sock" "$tmp/asked" <<'PY'
import os, select, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected", flush=True)
for _ in range(600):  # polls, not a deadline: only a hang guard
    if os.path.exists(sys.argv[2]):
        break
    time.sleep(0.1)
r, _, _ = select.select([s], [], [], 0)
print("closed" if r else "open", flush=True)
s.settimeout(10)
print(s.recv(4096).decode().strip())
PY
}
for try in 1 2 3 4 5; do
	rm -f "$tmp/asked" "$tmp/slow"
	silent >"$tmp/slow" 2>&1 &
	slow=$!
	log_wait -p "$slow" "$tmp/slow" '^connected$' 30
	status >/dev/null 2>&1
	rc=$?
	touch "$tmp/asked"
	wait "$slow"
	grep -q '^open$' "$tmp/slow" && break
	tap_diag "try $try: the silent client was closed before loom status answered: $(cat "$tmp/slow")"
done
tap_is "a silent client connected: loom status still answers" "$rc" 0
tap_check "... while the silent client is still connected (try $try of 5)" grep -q '^open$' "$tmp/slow"
tap_check "the silent client is closed after its timeout" grep -q '^err no request within' \
	"$tmp/slow"
got=$(printf 'bogus\n' | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); s.settimeout(10); print(s.recv(4096).decode().split("\n")[0])' "$sock")
tap_check "an unknown request is refused" grep -q '^err not a request' <<<"$got"
got=$(python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"status" + b" " * 200 + b"\n")
s.settimeout(10); print(s.recv(4096).decode().split("\n")[0])' "$sock" 2>&1)
tap_check "a request longer than 64 bytes is refused" grep -q '^err not a request' <<<"$got" ||
	tap_diag "$got"

# A user who may not ask: nobody, without root's group.
asnobody=()
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	asnobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
elif command -v runuser >/dev/null && [ "$(id -u)" = 0 ]; then
	asnobody=(runuser -u nobody --)
fi
# nobody must reach the socket's folder (mktemp made it 0700) and run loom.
[ ${#asnobody[@]} -gt 0 ] && chmod 0711 "$tmp" "$tmp/run"
if [ ${#asnobody[@]} -gt 0 ] && "${asnobody[@]}" test -x "$LOOM"; then
	out=$("${asnobody[@]}" "$LOOM" status --control "$sock" 2>&1)
	rc=$?
	tap_is "nobody, socket mode 0660: cannot connect, exit 2" "$rc" 2
	tap_diag "$out"
	# The file mode is the first gate; loomd's own check is the second.
	chmod 0666 "$sock"
	out=$("${asnobody[@]}" "$LOOM" status --control "$sock" 2>&1)
	rc=$?
	tap_is "nobody, socket opened to all: loomd refuses, exit 1" "$rc" 1
	tap_check "... saying why" grep -q 'permission denied: uid 65534' <<<"$out"
	tap_diag "$out"
	tap_check "... and logs the uid and pid" \
		grep -qE 'refused uid 65534 gid 65534 \(pid [0-9]+\)' \
		"$tmp/loomd.log"
	chmod 0660 "$sock"
	# sm.control-group, taken by a reload: nobody's group may ask.
	if getent group nogroup >/dev/null; then
		printf 'sm:\n  routing: { engine: minhop }\n  sweep-interval: 1s\n%s\n%s\n' \
			'  priority: 5' \
			'  control-group: nogroup' >"$tmp/loom.yaml"
		"$LOOM" reload --control "$sock" >/dev/null 2>&1
		tap_is "reload, control-group nogroup: the socket's group" "$(stat -c %G "$sock")" \
			nogroup
		out=$("${asnobody[@]}" "$LOOM" status --control "$sock" 2>&1)
		tap_is "nobody, in the socket's group: may ask, exit 0" "$?" 0
		tap_check "... and is answered" grep -q '^subnet: UP$' <<<"$out"
	else
		tap_check "control-group # SKIP no group nogroup on this host" true
	fi
else
	tap_check "a refused peer # SKIP needs root, setpriv or runuser, a loom nobody may run" \
		true
fi

sim_signal c TERM
rc=0
wait "$bg" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
tap_check "its socket is gone" test ! -e "$sock"
out=$(status 2>&1)
tap_is "loomd gone: loom status exits 2" "$?" 2

# Another program answers at the path: loomd leaves it alone and runs without a socket.
busy=$tmp/run/busy
# Listening before the path appears, so that the path means a live socket.
python3 -c "
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1] + '.new'); s.listen(4)
os.rename(sys.argv[1] + '.new', sys.argv[1]); time.sleep(60)" "$busy" &
holder=$!
for _ in $(seq 50); do [ -S "$busy" ] && break; sleep 0.1; done
sim_run c --timeout 60 --out "$tmp/loomd2.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" --control "$busy" &
bg=$!
log_wait "$tmp/loomd2.log" 'SUBNET UP' 60
tap_check "a live socket at the path: loomd says so and runs without one" \
	grep -q "control socket $busy: another loomd answers there; running without one" \
	"$tmp/loomd2.log"
tap_check "... and reaches SUBNET UP" grep -q 'SUBNET UP' "$tmp/loomd2.log"
sim_signal c TERM
wait "$bg"
tap_check "... and leaves the other's socket in place" test -S "$busy"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# Not a socket at the path (a file someone left): loomd leaves it, says what to do.
notsock=$tmp/run/notsock
echo keep >"$notsock"
sim_run c --timeout 60 --out "$tmp/loomd3.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" --control "$notsock" &
bg=$!
log_wait "$tmp/loomd3.log" 'SUBNET UP' 10
tap_check "a file at the path: loomd says it is not a socket and what to do" \
	grep -q "control socket $notsock: something that is not a socket is there.*remove it, or give loomd another path with --control" \
	"$tmp/loomd3.log"
sim_signal c TERM
wait "$bg"
tap_is "... and leaves the file as it was" "$(cat "$notsock")" keep

# A path loomd cannot make (two missing folders): what to do.
sim_run c --timeout 60 --out "$tmp/loomd7.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" --control "$tmp/no/such/control" &
bg=$!
log_wait "$tmp/loomd7.log" 'SUBNET UP' 10
tap_check "a path whose folders are missing: says what to do" \
	grep -q "control socket $tmp/no/such/control: No such file or directory; running without one (.*give --control a path of at most 107 bytes" \
	"$tmp/loomd7.log"
sim_signal c TERM
wait "$bg"

# No -c and no /etc/loom/loom.yaml: loom reload says the defaults apply, not "reloaded".
if [ -e /etc/loom/loom.yaml ]; then
	tap_check "loom reload without a file # SKIP /etc/loom/loom.yaml exists here" true
else
	sock4=$tmp/run/c4
	sim_run c --timeout 60 --out "$tmp/loomd4.log" "$LOOMD" --state-dir "$tmp/state" \
		--control "$sock4" &
	bg=$!
	log_wait "$tmp/loomd4.log" 'SUBNET UP' 10
	out=$("$LOOM" reload --control "$sock4" 2>&1)
	tap_is "loom reload, no file: exit 0" "$?" 0
	tap_check "loom reload, no file: says the file does not exist and the defaults apply" \
		grep -q '^/etc/loom/loom.yaml does not exist: the built-in defaults apply' <<<"$out"
	tap_check "... not that it was reloaded" bash -c "! grep -q reloaded <<<'$out'"
	tap_diag "$out"
	sim_signal c TERM
	wait "$bg"
fi

# A state dir that is a file: loomd refuses at once and says what to do.
: >"$tmp/statefile"
sim_run c --timeout 30 "$LOOMD" --once --state-dir "$tmp/statefile" --control "$tmp/run/c5" \
	>"$tmp/out5" 2>&1
tap_is "--state-dir a file: exit 1" "$?" 1
tap_check "... says so and what to do" \
	grep -q "state dir $tmp/statefile: Not a directory; give another with --state-dir" "$tmp/out5"

# A read-only state dir (a bind mount in a mount namespace of its own; root
# only): loomd brings the subnet up and says why guid2lid is not saved and
# what to change.
mkdir -p "$tmp/rostate"
# A container may allow the namespace but not the mount: try both first.
if [ "$(id -u)" -eq 0 ] &&
	unshare -m sh -c "mount --bind -o ro '$tmp/rostate' '$tmp/rostate'" 2>/dev/null; then
	sim_run c --timeout 30 unshare -m sh -c "mount --bind -o ro '$tmp/rostate' '$tmp/rostate' &&
		exec '$LOOMD' --once --state-dir '$tmp/rostate' --control '$tmp/run/c8'" \
		>"$tmp/out8" 2>&1
	tap_is "a read-only state dir: SUBNET UP all the same (exit 0)" "$?" 0
	tap_check "... says guid2lid cannot be saved, and what to change" \
		grep -q "$tmp/rostate/guid2lid: cannot save the guid-to-LID map: Read-only file system; .*(make the state dir writable; under systemd, .*ReadWritePaths=)" \
		"$tmp/out8"
else
	tap_check "a read-only state dir # SKIP needs root, unshare -m and a bind mount" true
fi

# A CA the host does not have: named as given (not "port 0"), and where to look.
sim_run c --timeout 30 "$LOOMD" --once --ca nosuch0 --state-dir "$tmp/state" \
	--control "$tmp/run/c6" >"$tmp/out6" 2>&1
tap_is "--ca a CA there is not: exit 1" "$?" 1
tap_check "... says which port it tried and where the CAs are listed" \
	grep -q "cannot open nosuch0, its first usable port for SMPs: .*; ibstat lists the CAs" \
	"$tmp/out6"
tap_done
