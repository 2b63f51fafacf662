# shellcheck shell=bash
# What the fabric tests of the SA share (sourced after sim.sh): the tools
# they need, the test rig (tests/rig: the RMPP shim and the SA clients),
# and either SM started in the background under the shim, as a head node
# runs it (each waited for with log_wait, tests/lib/log.sh).

# need_tools TOOL...: without one of them the test is skipped (plan 0),
# or, in CI, bails out: CI installs everything a test needs.
need_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null && continue
		[ "${CI:-}" = true ] && { echo "Bail out! $tool not installed"; exit 1; }
		echo "1..0 # SKIP $tool not installed (contrib/setup-debian.sh --test)"
		exit 0
	done
}

# need_rig FILE...: sets rig to the rig's folder, absolute (sim_run runs
# commands in the simulator's folder), exports it as SIM_RMPP_DIR, and
# bails out unless every FILE is in it (make check builds them).
need_rig() {
	local f
	rig=$(cd "${SIM_RMPP_DIR:-${builddir:-.}/tests/rig}" 2>/dev/null && pwd) || rig=
	for f in "$@"; do
		[ -n "$rig" ] && [ -r "$rig/$f" ] && continue
		echo "Bail out! no $f in ${rig:-tests/rig} (run through make check)"
		exit 1
	done
	export SIM_RMPP_DIR=$rig
}

# sa_opensm NAME LOG [ARGS...]: OpenSM on simulator NAME, under the shim,
# in the background (no -o: it stays to answer), its log in LOG; waits for
# SUBNET UP (bounded). SM_PID is its sim_run.
sa_opensm() {
	local name=$1 log=$2 dir
	shift 2
	dir=$(sim_dir "$name")
	SIM_RMPP=1 sim_run "$name" --timeout 600 --out "$log.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$log" --dump_files_dir "$dir" "$@" &
	SM_PID=$!
	log_wait "$log" 'SUBNET UP'
}

# sa_loomd NAME LOG STATEDIR [ARGS...]: loomd the same way; its log in LOG.
sa_loomd() {
	local name=$1 log=$2 state=$3
	shift 3
	SIM_RMPP=1 sim_run "$name" --timeout 600 --out "$log" "${LOOMD:-loomd}" \
		--state-dir "$state" "$@" &
	SM_PID=$!
	log_wait "$log" 'SUBNET UP'
}

# sl2vl_switch_read SIM IBND MAP: read every switch's SL-to-VL tables out of
# its ports 1..N (smpquery sl2vl LID OUT; not out of base port 0, which has
# none, IBA 14.2.5.8), every input but the output itself, against MAP
# ("| 3| 2|...|"). Sets sl2vl_bad (output ports with a row that is not MAP,
# each also a TAP diagnostic) and sl2vl_rows (the rows read).
sl2vl_switch_read() {
	local lid n o got
	sl2vl_bad=0 sl2vl_rows=0
	while read -r lid n; do
		for o in $(seq 1 "$n"); do
			got=$(sim_run "$1" smpquery sl2vl "$lid" "$o" 2>/dev/null |
				grep -E '^ports: in +[0-9]+, out' | grep -vE "^ports: in +$o,")
			sl2vl_rows=$((sl2vl_rows + $(grep -c . <<<"$got")))
			grep -vqF -- "$3" <<<"$got" &&
				{ sl2vl_bad=$((sl2vl_bad + 1)); tap_diag "LID $lid out $o: $got"; }
		done
	done < <(sed -nE 's/^Switch[[:space:]]+([0-9]+) .* lid ([0-9]+) lmc.*/\2 \1/p' "$2")
}

# The SL-to-VL and VL arbitration tables, read both ways (sa_qos_test.sh,
# qos_port0_test.sh compare them).
# saquery's records as "LID IN OUT VL0,...,VL15" and "LID PORT BLOCK VL:W,..." (the
# first 8 entries: ibsim's ports have room for 8 of each priority, smpquery shows those).
sa_sl2vl() { # FILE
	awk '/dump:$/ { lid = ""; next }
		/LID\.+/ { v = $0; sub(/.*\.+/, "", v); lid = v + 0 }
		/InPort\.+/ { v = $0; sub(/.*\.+/, "", v); ip = v + 0 }
		/OutPort\.+/ { v = $0; sub(/.*\.+/, "", v); op = v + 0 }
		/^[ \t]*VL:/ { r = $0; sub(/^[ \t]*VL: */, "", r); gsub(/ /, "", r); sub(/\|$/, "", r)
			gsub(/\|/, ",", r); print lid, ip, op, r }' "$1" | LC_ALL=C sort
}
sa_vlarb() { # FILE
	awk '/dump:$/ { n = 0; next }
		/LID\.+/ { v = $0; sub(/.*\.+/, "", v); lid = v + 0 }
		/Port\.+/ { v = $0; sub(/.*\.+/, "", v); port = v + 0 }
		/Block\.+/ { v = $0; sub(/.*\.+/, "", v); blk = v + 0 }
		/^[ \t]*VL *:/ { n++; if (n == 1) { vl = $0; sub(/^[ \t]*VL *: */, "", vl) } }
		/^[ \t]*Weight *:/ && n == 1 { w = $0; sub(/^[ \t]*Weight *: */, "", w)
			split(vl, a, "|"); split(w, b, "|"); o = ""
			for (i = 1; i <= 8; i++) o = o (i > 1 ? "," : "") (a[i] + 0) ":" (b[i] + 0)
			print lid, port, blk, o }' "$1" | LC_ALL=C sort
}

# smpquery sl2vl's rows as "LID IN OUT VL0,...": those of the inputs in INS (" 0 1 3 "),
# and on a switch (sw=1) IN != OUT.
SMP_ROWS='/^ports: in/ { i = $3 + 0; o = $5 + 0
	if ((sw && i == o) || index(ins, " " i " ") == 0) next
	r = $0; sub(/^[^|]*\|/, "", r); sub(/\| *$/, "", r); gsub(/ /, "", r); gsub(/\|/, ",", r)
	print l, i, o, r }'
# smpquery vlarb's tables as "LID PORT BLOCK VL:W,..." (low: block 1, high: block 3).
SMP_ARB='function hex(s,  i, v) { v = 0; s = tolower(s); sub(/^ *0x/, "", s); sub(/ +$/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }
/^# Low/ { b = 1 } /^# High/ { b = 3 } /^VL *:/ { split($0, a, "|") }
/^WEIGHT *:/ { split($0, w, "|"); o = ""
	for (i = 2; i <= 9; i++) o = o (i > 2 ? "," : "") hex(a[i]) ":" hex(w[i])
	print l, p, b, o }'
