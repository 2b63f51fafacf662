# shellcheck shell=bash
# loomd.sh — bring-up checks shared by the loomd fabric tests (sourced after
# sim.sh and tap.sh; needs $tmp, $LOOMD and $LOOM).

# CA port LIDs of an ibnetdiscover capture, in file order: "lid N" after a CA port.
ca_lids() {
	sed -nE 's/^\[[0-9]+\]\(([0-9a-f]+)\).*# lid ([0-9]+) lmc.*/\2/p' "$1"
}

# The tables as the switches hold them, judged by walking them (loom verify
# reads only ibnetdiscover and dump_lfts text; it shares no code with routing).
lfts_check() { # TAG SIM [WHAT]
	local tag=$1 sim=$2 what=${3:-} rc=0
	sim_run "$sim" ibnetdiscover 2>/dev/null >"$tmp/$tag.vtopo"
	sim_run "$sim" dump_lfts 2>/dev/null >"$tmp/$tag.lfts"
	"$LOOM" verify "$tmp/$tag.vtopo" "$tmp/$tag.lfts" >"$tmp/$tag.verify" 2>&1 || rc=$?
	tap_is "$tag: ${what}dump_lfts read-back: every host reaches every host LID, no loop" "$rc" 0 ||
		tap_diag "$(head -n 15 "$tmp/$tag.verify")"
}

bringup_check() { # TAG SIM TOPO
	local tag=$1 sim=$2 topo=$3 rc=0 want got lids n bad
	sim_run "$sim" --timeout 600 "$LOOMD" --once --state-dir "$tmp/$tag.state" \
		>"$tmp/$tag.log" 2>&1 || rc=$?
	tap_is "$tag: loomd --once exits 0" "$rc" 0 || tap_diag "$(tail -n 20 "$tmp/$tag.log")"
	tap_diag "$(grep 'sweep' "$tmp/$tag.log" | tail -n 1)"

	sim_run "$sim" ibnetdiscover 2>/dev/null | grep -v '^# Topology file' >"$tmp/$tag.ibnd"
	want=$(sim_topo_nodes "$topo" | wc -l)
	got=$(grep -cE '^(Switch|Ca|Rt)[[:space:]]' "$tmp/$tag.ibnd")
	tap_is "$tag: ibnetdiscover finds every node of the file" "$got" "$want"
	bad=$(grep -E '^Switch' "$tmp/$tag.ibnd" | grep -cvE 'port 0 lid [1-9]')
	tap_is "$tag: every switch has a LID (ibnetdiscover)" "$bad" 0
	lids=$(ca_lids "$tmp/$tag.ibnd")
	n=$(grep -cE '^\[[0-9]+\]\([0-9a-f]+\)' "$tmp/$tag.ibnd")
	got=$(printf '%s\n' $lids | grep -c '^[1-9]')
	tap_is "$tag: every linked CA port has a LID (ibnetdiscover)" "$got" "$n"
	got=$(printf '%s\n' $lids | sort | uniq -d | wc -l)
	tap_is "$tag: no LID twice" "$got" 0

	# sim_links: NODE PORT STATE PHYS PEER PEERPORT, from iblinkinfo
	sim_links "$sim" >"$tmp/$tag.iblinks"
	awk -F'\t' '$5 != "-" { print $1 "\t" $2 "\t" $5 "\t" $6 }' "$tmp/$tag.iblinks" |
		sort >"$tmp/$tag.links"
	sim_topo_links "$topo" | sort >"$tmp/$tag.want_links"
	tap_check "$tag: iblinkinfo shows every link of the file" \
		diff -u "$tmp/$tag.want_links" "$tmp/$tag.links"
	bad=$(awk -F'\t' '$5 != "-" && ($3 != "Active" || $4 != "LinkUp")' "$tmp/$tag.iblinks" | wc -l)
	tap_is "$tag: every linked port is LinkUp and Active (iblinkinfo)" "$bad" 0 ||
		tap_diag "$(awk -F'\t' '$5 != "-" && $3 != "Active"' "$tmp/$tag.iblinks" | head -n 5)"

	lfts_check "$tag" "$sim"

	set -- $lids
	if [ $# -ge 2 ]; then
		local pairs=("$1 ${!#}" "${!#} $1") mid=$(( ($# + 1) / 2 ))
		pairs+=("$1 ${!mid}")
		for p in "${pairs[@]}"; do
			sim_run "$sim" ibtracert $p >"$tmp/$tag.trace" 2>&1
			rc=$?
			tap_check "$tag: ibtracert $p follows the LFTs to the host" \
				test "$rc" -eq 0 -a -n "$(grep '^To ca' "$tmp/$tag.trace")" ||
				tap_diag "$(tail -n 5 "$tmp/$tag.trace")"
		done
	fi

	# A GSI (PerfMgt) query to the farthest host: a MAD on QP1 that only the
	# programmed LFTs can carry there and back.
	local far
	far=$(sed -nE 's/^\[([0-9]+)\]\([0-9a-f]+\).*# lid ([0-9]+) lmc.*/\2 \1/p' "$tmp/$tag.ibnd" | tail -n 1)
	if [ -n "$far" ]; then
		sim_run "$sim" perfquery $far >"$tmp/$tag.perf" 2>&1
		tap_check "$tag: perfquery $far (LID-routed GSI) gets the port counters" \
			grep -q '^# Port counters: Lid' "$tmp/$tag.perf" || tap_diag "$(tail -n 3 "$tmp/$tag.perf")"
	fi

	# Restart on the programmed fabric: nothing to change, every LID kept.
	rc=0
	sim_run "$sim" --timeout 600 "$LOOMD" --once --state-dir "$tmp/$tag.state" \
		>"$tmp/$tag.log2" 2>&1 || rc=$?
	tap_is "$tag: restart: loomd --once exits 0" "$rc" 0
	tap_check "$tag: restart: the sweep sends 0 Sets: 0 LFT or QoS blocks, no port or SwitchInfo change" \
		grep -q ' 0 changes (0 LFT blocks, 0 QoS blocks, 0 MFT blocks),' "$tmp/$tag.log2" || tap_diag "$(grep sweep "$tmp/$tag.log2")"
	sim_run "$sim" ibnetdiscover 2>/dev/null | grep -v '^# Topology file' >"$tmp/$tag.ibnd2"
	tap_check "$tag: restart: ibnetdiscover (LIDs included) is unchanged" \
		diff -u "$tmp/$tag.ibnd" "$tmp/$tag.ibnd2"
}

# Wait until no sweep line has come to LOG for 3 s (at most 30 s; 1 then).
sweep_settle() { # LOG
	local end=$((SECONDS + 30)) n last=-1 since=$SECONDS
	while [ "$SECONDS" -le "$end" ]; do
		n=$(grep -cE 'sweep [0-9]+ \(' "$1" 2>/dev/null)
		if [ "${n:-0}" != "$last" ]; then
			last=${n:-0}
			since=$SECONDS
		elif [ $((SECONDS - since)) -ge 3 ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# sweep_count LOG PATTERN: the lines of LOG that match PATTERN (-E), 0 if none.
sweep_count() { local n; n=$(grep -cE "$2" "$1" 2>/dev/null); echo "${n:-0}"; }

# sweep_event TAG SIM LOG CMD...: SIM's console runs CMD..., then loomd (its
# log LOG) sweeps until quiet (sweep_settle). Checks that a sweep followed
# and that the last one ended at SUBNET UP.
sweep_event() {
	local tag=$1 sim=$2 log=$3 before
	shift 3
	before=$(sweep_count "$log" 'sweep [0-9]+ \((targeted|heavy)\)')
	sim_console "$sim" "$@"
	tap_check "$tag: a sweep follows" \
		log_wait -E -n $((before + 1)) "$log" 'sweep [0-9]+ \((targeted|heavy)\)' 20
	sweep_settle "$log"
	tap_check "$tag: SUBNET UP" grep -qE 'sweep [0-9]+ \((targeted|heavy)\).*SUBNET UP$' \
		<(grep -E 'sweep [0-9]+ \((targeted|heavy)\)' "$log" | tail -n 1)
}
