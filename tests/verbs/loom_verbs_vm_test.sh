#!/bin/bash
# loom-verbs on soft-RoCE (rdma_rxe) in a throw-away qemu VM booting Debian's own kernel
# (tests/vm/rxe-vm.sh), or directly on this machine when it already has an active RDMA
# port. One boot runs every command below; their outputs come back through a 9p folder and
# are judged here. TAP on stdout.
#   loopback and server/client over 127.0.0.1: every op at 1 byte .. 1 MiB, with inline,
#   selective signaling, batching, SRQ and several QPs off and on, all verified (JSON);
#   the checker fails when it must: a corrupted byte, a stale buffer, a wrong atomic
#   result (exit 1, op/size/message/offset named); no device, a dead peer and a missing
#   client exit 2 within the timeout; the same program built with ASan+UBSan runs clean.
#   --rdma-cm: server/client set up over rdma_cm (to the rxe netdev's address), every op
#   at two sizes with options off and on, verified; a refused and an unreachable rdma_cm
#   peer and a missing client exit 2 within the timeout.
# Environment: LOOM_VERBS (binary), LOOM_VERBS_SAN (sanitizer build), VERBS_ITERS
# (messages per phase, default 20), LOOM_VM_* (see rxe-vm.sh).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
. "$srcdir/tests/lib/tap.sh"

bin=${LOOM_VERBS:-$builddir/verbs/loom-verbs}
san=${LOOM_VERBS_SAN:-$builddir/tests/verbs/loom-verbs-san}
iters=${VERBS_ITERS:-20}
sizes=1,64,4096,65536,1M
cm_sizes=64,65536
rig=$srcdir/tests/vm/rxe-vm.sh

skip_all() {
	[ "${CI:-}" = true ] && { echo "Bail out! $*"; exit 1; }
	echo "1..0 # SKIP $*"
	exit 0
}

[ -x "$bin" ] || skip_all "$bin not built"
[ -x "$san" ] || san=

# Options and help need no device: judged on this machine.
tap_check "--help exits 0 and names every option" bash -c '
	h=$("$1" --help) || exit 1
	for o in --dev --ib-port --gid-index --tests --sizes --iters --duration --inline \
		--signal-every --batch --srq --qps --json --oob-port --timeout --compare-opts \
		--rdma-cm --pingpong; do
		grep -q -- "$o" <<<"$h" || { echo "# --help lacks $o"; exit 1; }
	done' _ "$bin"
tap_check "a bad option exits 2 with one line naming it" bash -c '
	out=$("$1" --qps 0 loopback 2>&1); rc=$?
	[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q -- "--qps" <<<"$out"' _ "$bin"

out=$(mktemp -d "${TMPDIR:-/tmp}/loom-verbs-test.XXXXXX")
trap 'rm -rf "$out"' EXIT

# The guest's script: every command's stdout, stderr, status and wall time into $out.
cat >"$out/guest.sh" <<EOF
OUT=$out
B=$bin
SAN=$san
ITERS=$iters
S="--iters $iters --sizes $sizes -q"
CM_SIZES=$cm_sizes
EOF
cat >>"$out/guest.sh" <<'EOF'
now() { cut -d' ' -f1 /proc/uptime; }
run() { # NAME CMD...
	n=$1; shift
	t0=$(now)
	"$@" >"$OUT/$n.out" 2>"$OUT/$n.err"
	echo $? >"$OUT/$n.rc"
	echo "$t0 $(now)" | awk '{ print $2 - $1 }' >"$OUT/$n.sec"
}
pair() { # NAME SERVER-OPTS -- CLIENT-OPTS
	n=$1; shift
	sargs=""
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	# shellcheck disable=SC2086
	${PAIR_SERVER:-$B} $sargs --timeout 60 server >"$OUT/$n.server.out" 2>"$OUT/$n.server.err" &
	sp=$!
	sleep 0.5
	# rdma_cm refuses at once while nobody listens: wait for the server's LISTEN id (a
	# sanitizer build under emulation may take seconds to get there).
	i=0
	while [ -n "${PAIR_TO:-}" ] && [ $i -lt 100 ] &&
		! rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN'; do
		sleep 0.1
		i=$((i + 1))
	done
	run "$n" "$@" --timeout 60 client ${PAIR_TO:-127.0.0.1}
	wait $sp
	echo $? >"$OUT/$n.server.rc"
}
# rdma_cm resolves an address to an RDMA port: the rxe netdev's, not 127.0.0.1.
cmpair() { # BIN NAME SERVER-OPTS -- CLIENT-OPTS (both get --rdma-cm)
	PAIR_SERVER="$1 --rdma-cm" PAIR_TO=$LOOM_RXE_IP
	shift
	pair "$@" --rdma-cm
	PAIR_SERVER= PAIR_TO=
}
run lo_plain $B $S --json loopback
run lo_opts $B $S --json --inline --signal-every 4 --batch 4 --srq --qps 4 loopback
run lo_qps $B $S --json --qps 3 --batch 2 loopback
pair sc_plain $S -- $B $S --json
pair sc_opts $S --inline --signal-every 4 --batch 4 --srq --qps 4 -- \
	$B $S --json --inline --signal-every 4 --batch 4 --srq --qps 4
CM="--iters $ITERS --sizes $CM_SIZES -q"
cmpair $B cm_plain $CM -- $B $CM --json --pingpong
cmpair $B cm_opts $CM --inline --signal-every 4 --batch 4 --srq --qps 4 -- \
	$B $CM --json --inline --signal-every 4 --batch 4 --srq --qps 4
run cmp $B -q --iters $ITERS --compare-opts --json loopback
run pp_lo $B -q --json --pingpong --iters $ITERS --sizes 1,4096,1M -t rdma_write,send_rc loopback
run f_pp $B -q --pingpong --iters 10 --sizes 4096 -t send_rc --fault corrupt:25:3 loopback
run f_ppw $B -q --pingpong --iters 10 --sizes 64 -t rdma_write --fault stale:27 loopback
run dur $B -q --duration 300ms --sizes 4096 -t rdma_write,send_rc --json loopback
run f_corrupt $B -q --iters 10 --sizes 4096 -t rdma_write --fault corrupt:13:100 loopback
run f_stale $B -q --iters 10 --sizes 1k -t send_rc --fault stale:5 loopback
run f_read $B -q --iters 10 --sizes 64k -t rdma_read --json --fault corrupt:17 loopback
run f_fadd $B -q --iters 10 -t fetch_add --fault atomic:7 loopback
run f_cas $B -q --iters 10 -t cmp_swap --fault atomic:12 loopback
pair f_sc -q --iters 10 --sizes 4096 -t send_ud,send_rc --fault corrupt:3:9 -- \
	$B -q --iters 10 --sizes 4096 -t send_rc --fault corrupt:3:9
run e_nodev $B -q -d nosuchdev loopback
run e_deadpeer $B -q --timeout 5 -p 18999 client 127.0.0.1
run e_noclient $B -q --timeout 3 -p 18998 server
run e_cm_refused $B -q --rdma-cm --timeout 5 -p 18997 client $LOOM_RXE_IP
run e_cm_unreach $B -q --rdma-cm --timeout 3 client 192.0.2.77
run e_cm_noclient $B -q --rdma-cm --timeout 3 -p 18996 server
if [ -n "$SAN" ]; then
	export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	run san_lo $SAN -q --iters 5 --sizes 1,4096,1M --inline --batch 2 --srq --qps 2 loopback
	B=$SAN pair san_sc -q --iters 5 --sizes 1,4096,1M -- $SAN -q --iters 5 --sizes 1,4096,1M
	run san_fault $SAN -q --iters 5 --sizes 64 -t send_rc --fault corrupt:2 loopback
	cmpair $SAN san_cm -q --iters 5 --sizes 1,64k -- $SAN -q --iters 5 --sizes 1,64k
fi
echo done >"$OUT/done"
EOF

# A machine with an active RDMA port runs the script itself; otherwise the VM does.
host_has_rdma() {
	local s
	for s in /sys/class/infiniband/*/ports/*/state; do
		[ -e "$s" ] && grep -q ACTIVE "$s" && return 0
	done
	return 1
}
t0=$SECONDS
if host_has_rdma && [ "${LOOM_VERBS_VM:-auto}" != always ]; then
	where="this machine's RDMA device"
	sh "$out/guest.sh" >"$out/vm.log" 2>&1
	vm_rc=$?
else
	where="soft-RoCE in a qemu VM"
	shares=(--share "$(dirname "$bin")")
	[ -n "$san" ] && shares+=(--share "$(dirname "$san")" --bin "$san")
	"$rig" run --timeout "${VERBS_VM_TIMEOUT:-900}" --bin "$bin" "${shares[@]}" --out "$out" \
		"$out/guest.sh" >"$out/vm.log" 2>&1
	vm_rc=$?
	if [ $vm_rc = 77 ]; then
		skip_all "$(grep 'rxe-vm:' "$out/vm.log" | tail -n 1)"
	fi
fi
tap_diag "ran on $where in $((SECONDS - t0)) s (script status $vm_rc)"
if [ ! -f "$out/done" ]; then
	tap_check "the script in the VM ran to its end" false
	tap_diag "$(tail -n 30 "$out/vm.log")"
	tap_done
	exit
fi

rc_of() { cat "$out/$1.rc" 2>/dev/null || echo missing; }
show() { tap_diag "$1: status $(rc_of "$1"), $(cat "$out/$1.sec" 2>/dev/null) s" \
	"$(head -c 600 "$out/$1.err" 2>/dev/null)"; }

# JSON says verified, and every op ran at every size it can (UD up to the MTU).
judge_json() { # NAME [SIZES]
	python3 - "$out/$1.out" "${2:-$sizes}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {"1": 1, "64": 64, "4096": 4096, "65536": 65536, "1M": 1 << 20}
sizes = [want[s] for s in sys.argv[2].split(",")]
ops = ["send_rc", "send_ud", "rdma_write", "rdma_write_imm", "rdma_read", "fetch_add",
       "cmp_swap"]
seen = {}
ok = d["verified"] is True
for t in d["tests"]:
    seen.setdefault(t["op"], set()).add(t["size"])
    if not t["verified"] or (not t["skipped"] and (not t["ran"] or t["messages"] == 0)):
        print("# not verified:", t["op"], t["size"], t["error"]); ok = False
for op in ops:
    need = {8} if op in ("fetch_add", "cmp_swap") else set(sizes)
    if seen.get(op, set()) != need:
        print("# %s ran at %s, want %s" % (op, sorted(seen.get(op, [])), sorted(need))); ok = False
ran = [t for t in d["tests"] if not t["skipped"]]
if not all(t["latency_us"]["samples"] > 0 and t["mib_per_s"] > 0 for t in ran):
    print("# a case has no latency samples or no bandwidth"); ok = False
sys.exit(0 if ok else 1)
PY
}
for n in lo_plain lo_opts lo_qps sc_plain sc_opts; do
	tap_is "$n: loom-verbs exits 0" "$(rc_of $n)" 0
	[ "$(rc_of $n)" = 0 ] || show $n
	tap_check "$n: JSON parses, every op at every size verified" judge_json $n
done
for n in cm_plain cm_opts; do
	tap_is "$n (--rdma-cm): loom-verbs exits 0" "$(rc_of $n)" 0
	[ "$(rc_of $n)" = 0 ] || { show $n; show $n.server; }
	tap_check "$n (--rdma-cm): every op at $cm_sizes verified" judge_json $n "$cm_sizes"
done
for n in sc_plain sc_opts cm_plain cm_opts; do
	tap_is "$n: the server exits 0 too" "$(rc_of $n.server)" 0
done

tap_is "--compare-opts: exits 0" "$(rc_of cmp)" 0
[ "$(rc_of cmp)" = 0 ] || show cmp
tap_check "--compare-opts: inline, signaling, batching, SRQ each off and on, all verified" \
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["option"]: r for r in d["compare"]}
ok = d["verified"] is True and sorted(rows) == ["batching", "inline", "signaling", "srq"]
ok = ok and all(r[s]["verified"] and r[s]["mpps"] > 0 for r in rows.values() for s in ("off", "on"))
# One SRQ for 64 QPs needs a 64th of the receive memory of 64 own queues.
ok = ok and rows["srq"]["off"]["rx_mem_bytes"] == 64 * rows["srq"]["on"]["rx_mem_bytes"]
sys.exit(0 if ok else 1)' "$out/cmp.out"
# --pingpong: half round trips of echoed messages, every echo checked.
pingponged() { # NAME OPS...: verified, and each named op has ping-pong samples
	python3 - "$out/$1.out" "${@:2}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["verified"] is True
for t in d["tests"]:
    if t["op"] in sys.argv[2:] and not (t.get("pingpong_us", {}).get("samples", 0) > 0
                                        and t["pingpong_us"]["median"] > 0):
        print("# no ping-pong samples:", t["op"], t["size"]); ok = False
sys.exit(0 if ok else 1)
PY
}
tap_is "--pingpong loopback: exits 0" "$(rc_of pp_lo)" 0
[ "$(rc_of pp_lo)" = 0 ] || show pp_lo
tap_check "--pingpong loopback: rdma_write, send_rc 1 B..1 MiB echoed and verified" \
	pingponged pp_lo rdma_write send_rc
tap_check "--pingpong over --rdma-cm server/client: echoed and verified" \
	pingponged cm_plain rdma_write send_rc

tap_is "--duration: exits 0" "$(rc_of dur)" 0
tap_check "--duration: both phases ran messages and verified them" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["verified"] and all(t["messages"] > 0 and t["latency_us"]["samples"] > 0
                                    for t in d["tests"]) else 1)' "$out/dur.out"

# The checker can fail, and says where.
fails() { # NAME PATTERN: exit 1 and the pattern in stdout+stderr
	[ "$(rc_of "$1")" = 1 ] && cat "$out/$1.out" "$out/$1.err" | grep -qE "$2"
}
tap_check "corrupted byte in an RDMA write: exit 1, op/size/message/offset/bytes named" \
	fails f_corrupt 'rdma_write size 4096 message 13: first bad byte at offset 100: expected 0x[0-9a-f]{2}, received 0x'
tap_check "stale receive buffer: exit 1, message 5 named at offset 0" \
	fails f_stale 'send_rc size 1024 message 5: first bad byte at offset 0:'
tap_check "corrupted RDMA read: exit 1, offset in the middle" \
	fails f_read 'rdma_read size 65536 message 17: first bad byte at offset 32768'
tap_check "corrupted read: JSON says verified false" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["verified"] is not False)' \
	"$out/f_read.out"
tap_check "wrong fetch_add result: exit 1, value named" \
	fails f_fadd 'fetch_add message 7: returned 0x[0-9a-f]+, expected 0x'
tap_check "wrong cmp_swap result: exit 1, value named" \
	fails f_cas 'cmp_swap message 12: returned 0x[0-9a-f]+, expected 0x'
tap_check "server/client: a byte spoiled on the server fails the client (exit 1)" \
	fails f_sc 'send_rc size 4096 message 3: first bad byte at offset 9'
tap_is "server/client: and the server exits 1" "$(rc_of f_sc.server)" 1
tap_check "--pingpong: a byte spoiled in an echoed send: exit 1, named" \
	fails f_pp 'ping-pong: send_rc size 4096 message 25: first bad byte at offset 3'
tap_check "--pingpong: a stale echoed write: exit 1, named" \
	fails f_ppw 'ping-pong: rdma_write size 64 message 27: first bad byte at offset 0'

# Cannot run: exit 2, one clear line, within the timeout.
cannot() { # NAME PATTERN MAXSEC
	[ "$(rc_of "$1")" = 2 ] && grep -qE "$2" "$out/$1.err" &&
		awk -v s="$(cat "$out/$1.sec")" -v m="$3" 'BEGIN { exit !(s <= m) }'
}
tap_check "no such device: exit 2 naming it" cannot e_nodev 'no RDMA device "nosuchdev"' 10
tap_check "dead peer: exit 2 within the 5 s timeout" cannot e_deadpeer 'cannot reach the server' 7
tap_check "no client: the server exits 2 after its 3 s timeout" \
	cannot e_noclient 'no client connected' 6
tap_check "--rdma-cm, nobody listening: exit 2 (refused) within the 5 s timeout" \
	cannot e_cm_refused 'rdma_cm connection to .* port 18997: refused' 7
tap_check "--rdma-cm, unreachable address: exit 2 within the 3 s timeout" \
	cannot e_cm_unreach 'rdma_cm connection to 192.0.2.77' 5
tap_check "--rdma-cm, no client: the server exits 2 after its 3 s timeout" \
	cannot e_cm_noclient 'no client connected to rdma_cm port 18996' 6

if [ -n "$san" ]; then
	clean() { [ "$(rc_of "$1")" = "$2" ] &&
		! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$out/$1.err"; }
	tap_check "ASan+UBSan build: loopback verified, no sanitizer report" clean san_lo 0
	tap_check "ASan+UBSan build: server/client verified, no report" clean san_sc 0
	tap_check "ASan+UBSan build: a failed check exits 1 cleanly" clean san_fault 1
	tap_check "ASan+UBSan build: --rdma-cm server/client verified, no report" clean san_cm 0
	tap_check "ASan+UBSan build: --rdma-cm server exits 0, no report" clean san_cm.server 0
else
	tap_diag "no sanitizer build of loom-verbs ($builddir/tests/verbs/loom-verbs-san)"
fi
for n in lo_plain sc_plain cm_plain; do
	tap_diag "$n took $(cat "$out/$n.sec") s"
done
tap_done
