#!/bin/bash
# loomd's SA, judged by saquery (infiniband-diags) under the RMPP shim
# (tests/rig), against two independent references on the same topology:
#  - the fabric itself: ibnetdiscover, smpquery, sminfo and dump_lfts read
#    back what loomd programmed, and the SA must say the same;
#  - OpenSM's SA, run on a second simulator of the same file: the same
#    records (LIDs translated to GUIDs, since the two SMs may number ports
#    differently), field by field except what each SM sets its own way.
# Then component-mask queries (by LID, LID/port, LID/block) return exactly
# their subset, a single-record answer reaches a client without the shim,
# and ServiceRecord is answered at once (no services registered yet: an
# empty table; sa_service_test.sh registers some).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim opensm ibnetdiscover saquery smpquery sminfo dump_lfts
need_rig librmpp_shim.so librmpp_tail.so
SQ_MS=20000 # saquery's timeout: ample on a loaded machine


# sq SIM TAG ARGS...: saquery under the shim; output in $tmp/SIM.TAG.out, status returned.
sq() {
	local s=$1 tag=$2
	shift 2
	SIM_RMPP=1 sim_run "$s" --timeout 60 saquery -t "$SQ_MS" "$@" >"$tmp/$s.$tag.out" \
		2>"$tmp/$s.$tag.err"
}

# recs FILE: one line per record of saquery's dump: |key=value|key=value...
# (LFT entries as |L<lid>=<port>).
recs() {
	awk '/^[^ \t].*dump:$/ { if (r != "") print r "|"; r = "#"; next }
	r != "" {
		l = $0; sub(/^[ \t]+/, "", l)
		if (l ~ /^[0-9]+\t[0-9]+$/) { split(l, a, "\t"); r = r "|L" a[1] "=" a[2]; next }
		if (!match(l, /\.\.+/)) next
		k = substr(l, 1, RSTART - 1); v = substr(l, RSTART + RLENGTH)
		sub(/:$/, "", k); sub(/^:/, "", v); sub(/[ \t]+$/, "", v)
		r = r "|" k "=" v
	}
	END { if (r != "") print r "|" }' "$1"
}
# fld KEY: that field of each record line on stdin.
fld() { sed -nE "s/.*\|$1=([^|]*)\|.*/\1/p"; }

# lidmap SIM: "LID GUID" of every end port, from that SM's NodeRecords
# (switches by NodeGUID: all their ports share port 0's LID).
lidmap() {
	recs "$tmp/$1.NR.out" | awk -F'|' '{
		for (i = 2; i < NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["lid"], (f["node_type"] == "Switch" ? f["node_guid"] : f["port_guid"])
	}' | sort -u
}
# by_guid SIM KEY...: records with their LID-valued fields (listed) turned into GUIDs.
by_guid() {
	local s=$1
	shift
	recs "$tmp/$s.$TAG.out" | awk -F'|' -v keys="$*" -v map="$tmp/$s.lidmap" '
		BEGIN { while ((getline l < map) > 0) { split(l, a, " "); g[a[1]] = a[2] }
			n = split(keys, k, " ") }
		{ for (i = 2; i < NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		  o = ""; for (j = 1; j <= n; j++) {
			v = f[k[j]]; if (k[j] ~ /^(FromLID|ToLID|EndPortLid|LID|lid)$/) v = g[v] ? g[v] : "lid" v
			o = o (j > 1 ? " " : "") k[j] "=" v }
		  print o; delete f }' | LC_ALL=C sort
}

# same_as_osm TAG DESC KEY...: loomd's and OpenSM's records agree on KEYs.
same_as_osm() {
	local tag=$1 desc=$2
	shift 2
	# A Down port's PortInfo beyond its state is stale: OpenSM keeps only the state.
	TAG=$tag by_guid l "$@" | sed -E '/LinkState=Down/ s/ LinkWidthActive=.*$//' >"$tmp/l.$tag.cmp"
	TAG=$tag by_guid o "$@" | sed -E '/LinkState=Down/ s/ LinkWidthActive=.*$//' >"$tmp/o.$tag.cmp"
	tap_check "$T: $desc: as OpenSM's SA ($(wc -l <"$tmp/l.$tag.cmp") records)" \
		diff -u "$tmp/o.$tag.cmp" "$tmp/l.$tag.cmp" ||
		tap_diag "$(diff "$tmp/o.$tag.cmp" "$tmp/l.$tag.cmp" | head -n 8)"
}

# Records in a saquery dump (the inner "PortInfo dump:" lines are indented).
nrec() { grep -c '^[^ 	].*dump:$' "$1" | tr -d ' '; }

start_sms() { # TOPO
	local dir
	sim_start l "$1" && sim_start o "$1" || return 1
	SIM_RMPP=1 sim_run l --timeout 600 --out "$tmp/$T.loomd.log" "$LOOMD" --state-dir \
		"$tmp/state" --sweep-interval 60 &
	LOOMD_PID=$!
	dir=$(sim_dir o)
	SIM_RMPP=1 sim_run o --timeout 600 --out "$tmp/$T.osm.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$tmp/$T.osm.log" --dump_files_dir "$dir" &
	OSM_PID=$!
	tap_check "$T: loomd reaches SUBNET UP (SA agent on)" log_wait "$tmp/$T.loomd.log" 'SUBNET UP'
	tap_check "$T: loomd registered its SA" grep -q ', SA on$' "$tmp/$T.loomd.log"
	tap_check "$T: OpenSM (the reference SA) reaches SUBNET UP" log_wait "$tmp/$T.osm.log" 'SUBNET UP'
}

stop_sms() {
	local rc=0
	sim_signal l TERM 2>/dev/null
	wait "$LOOMD_PID" || rc=$?
	tap_is "$T: loomd stops on SIGTERM with status 0" "$rc" 0
	grep -E 'SA:|dropped an SA' "$tmp/$T.loomd.log" | head -n 5 | while read -r l; do tap_diag "$l"; done
	sim_signal o TERM 2>/dev/null
	wait "$OSM_PID" || true
	sim_stop l
	sim_stop o
}

record_checks() {
	local q c
	for q in NR PIR LR SWIR LFTR GIR SMIR PR; do
		for s in l o; do
			sq "$s" "$q" "$q" || tap_diag "$s: saquery $q: $(head -n 3 "$tmp/$s.$q.err")"
		done
		c=$(nrec "$tmp/l.$q.out")
		tap_is "$T: saquery $q: loomd answers with as many records as OpenSM" "$c" \
			"$(nrec "$tmp/o.$q.out")"
	done
	lidmap l >"$tmp/l.lidmap"
	lidmap o >"$tmp/o.lidmap"

	# NodeRecord: every end port once; the fields NodeInfo gives.
	same_as_osm NR "NodeRecords (GUIDs, type, ports, caps, ids, description)" node_type \
		num_ports sys_guid node_guid port_guid partition_cap device_id revision vendor_id \
		NodeDescription
	sim_run l ibnetdiscover -p 2>/dev/null | awk '{ print $2 }' | sort -un >"$tmp/ibnd.lids"
	recs "$tmp/l.NR.out" | fld lid | sort -un >"$tmp/nr.lids"
	tap_check "$T: NodeRecord LIDs are the LIDs ibnetdiscover reads from the ports" \
		diff -u "$tmp/ibnd.lids" "$tmp/nr.lids"

	# PortInfoRecord: the port's own state, as OpenSM and smpquery see it.
	same_as_osm PIR "PortInfoRecords (state, width, speed, caps)" EndPortLid PortNum LinkState \
		PhysLinkState LinkWidthActive LinkSpeedActive LinkWidthSupported LinkSpeedSupported \
		VLCap LocalPort
	local lid port k want got bad=0
	for lp in $(recs "$tmp/l.PIR.out" | awk -F'|' '{
			for (i = 2; i < NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			print f["EndPortLid"] "/" f["PortNum"] }' | sed -n '1p;5p;$p'); do
		lid=${lp%/*} port=${lp#*/}
		sim_run l smpquery portinfo "$lid" "$port" 2>/dev/null | recs /dev/stdin >/dev/null
		sim_run l smpquery portinfo "$lid" "$port" >"$tmp/smp.pi" 2>/dev/null
		for k in Lid SMLid LinkState PhysLinkState LinkWidthActive LinkSpeedActive LMC NeighborMTU; do
			want=$(sed -nE "s/^$k:\.+(.*)$/\1/p" "$tmp/smp.pi")
			got=$(recs "$tmp/l.PIR.out" | grep "|EndPortLid=$lid|PortNum=$port|" | fld "$k")
			[ "$want" = "$got" ] || { bad=$((bad + 1)); tap_diag "PIR $lid/$port $k: SA '$got', smpquery '$want'"; }
		done
	done
	tap_is "$T: PortInfoRecords agree with smpquery portinfo (3 ports, 8 fields)" "$bad" 0

	# LinkRecord: each link from both ends.
	same_as_osm LR "LinkRecords" FromLID FromPort ToPort ToLID
	# SwitchInfoRecord: what the switch says, with what the SM set.
	# LinearFDBTop depends on how each SM numbers LIDs: checked against smpquery below.
	same_as_osm SWIR "SwitchInfoRecords (caps)" LID LinearFDBCap MulticastFDBCap \
		PartitionEnforcementCap
	lid=$(recs "$tmp/l.SWIR.out" | fld LID | head -n 1)
	want=$(sim_run l smpquery switchinfo "$lid" 2>/dev/null | sed -nE 's/^LinearFdbTop:\.+(.*)$/\1/p')
	got=$(recs "$tmp/l.SWIR.out" | grep "|LID=$lid|" | fld LinearFDBTop)
	tap_is "$T: SWIR LinearFDBTop of switch $lid is what smpquery switchinfo reads" \
		"$((got))" "$((want))"

	# LFTRecord: the tables as the switches hold them (dump_lfts reads them back).
	# Both as "SWITCH-GUID LID PORT", routed entries only (255: no route).
	recs "$tmp/l.LFTR.out" | awk -F'|' -v map="$tmp/l.lidmap" '
		BEGIN { while ((getline l < map) > 0) { split(l, a, " "); g[a[1]] = a[2] } }
		{ for (i = 2; i < NF; i++) { split($i, kv, "="); if (kv[1] == "LID") s = g[kv[2]]
			else if (kv[1] ~ /^L[0-9]+$/ && kv[2] != 255) print s, substr(kv[1], 2) + 0, kv[2] + 0 } }' |
		LC_ALL=C sort >"$tmp/lftr.ent"
	sim_run l dump_lfts 2>/dev/null | awk '
		function hex(s,  i, v) { v = 0; s = tolower(substr(s, 3))
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") s = $(i + 1); next }
		/^0x[0-9a-f]+ [0-9]+ / { print s, hex($1), $2 + 0 }' | LC_ALL=C sort >"$tmp/dump.ent"
	tap_check "$T: LFTRecords hold what dump_lfts reads from every switch ($(wc -l <"$tmp/dump.ent") entries)" \
		diff -u "$tmp/dump.ent" "$tmp/lftr.ent" || tap_diag "$(diff "$tmp/dump.ent" "$tmp/lftr.ent" | head -n 5)"

	# PathRecord: every pair of end ports, by GIDs (the LIDs differ).
	same_as_osm PR "PathRecords (GIDs, reversible, P_Key, SL, MTU, rate, lifetime)" sgid dgid \
		num_path_revers pkey sl mtu rate pkt_life preference

	# GUIDInfoRecord: block 0 of every end port holds its GUID.
	same_as_osm GIR "GUIDInfoRecords" LID BlockNum

	# SMInfoRecord: this SM, master, with its port GUID (as sminfo reads it over SMPs).
	read -r _ _ _ lid _ _ guid _ < <(sim_run l sminfo 2>/dev/null | tr ',' ' ')
	tap_is "$T: SMIR: one record" "$(nrec "$tmp/l.SMIR.out")" 1
	tap_is "$T: SMIR: the SM's GUID, as sminfo reads it" \
		"$(recs "$tmp/l.SMIR.out" | fld GUID)" "$(printf '0x%016x' "$guid")"
	tap_is "$T: SMIR: state 3 (master)" "$(recs "$tmp/l.SMIR.out" | fld SMState)" 3
}

mask_checks() {
	local ca sw n
	ca=$(recs "$tmp/l.NR.out" | grep '|node_type=Channel Adapter|' | fld lid | head -n 1)
	sw=$(recs "$tmp/l.SWIR.out" | fld LID | tail -n 1)
	sq l nr1 NR "$ca"
	tap_is "$T: saquery NR $ca (by LID): exactly that port's record" \
		"$(recs "$tmp/l.nr1.out" | fld lid)" "$ca"
	sq l pir1 PIR "$ca/1"
	n=$(recs "$tmp/l.PIR.out" | grep -c "|EndPortLid=$ca|PortNum=1|")
	tap_is "$T: saquery PIR $ca/1 (LID/port): the one record" "$(nrec "$tmp/l.pir1.out")" "$n"
	sq l pirsw PIR "$sw"
	n=$(recs "$tmp/l.PIR.out" | grep -c "|EndPortLid=$sw|")
	tap_is "$T: saquery PIR $sw (a switch's LID): each of its ports ($n)" \
		"$(nrec "$tmp/l.pirsw.out")" "$n"
	sq l lr1 LR "$sw/1"
	tap_is "$T: saquery LR $sw/1 (from LID/port): one link" "$(nrec "$tmp/l.lr1.out")" 1
	sq l lft1 LFTR "$sw/0"
	tap_is "$T: saquery LFTR $sw/0 (LID/block): one block" "$(nrec "$tmp/l.lft1.out")" 1
	sq l gir1 GIR "$ca/0"
	tap_is "$T: saquery GIR $ca/0 (LID/block): one block" "$(nrec "$tmp/l.gir1.out")" 1
	sq l swir1 SWIR "$sw"
	tap_is "$T: saquery SWIR $sw: one switch" "$(recs "$tmp/l.swir1.out" | fld LID)" "$sw"
	sq l none NR 49000
	tap_is "$T: saquery NR 49000 (no such LID): no records" "$(nrec "$tmp/l.none.out")" 0

	# Without the shim: a one-record answer is one MAD, whole.
	sim_run l --timeout 60 saquery -t "$SQ_MS" NR "$ca" >"$tmp/l.noshim.out" 2>/dev/null
	tap_is "$T: without the shim, saquery NR $ca still gets its record" \
		"$(recs "$tmp/l.noshim.out" | fld lid)" "$ca"

	sq l cpi -c
	tap_check "$T: ClassPortInfo: SA class version 2" grep -q 'Class version.*2$' "$tmp/l.cpi.out"
	tap_check "$T: MFTR: answered (no multicast groups yet: no records)" sq l mftr MFTR
	# ServiceRecord: served; nobody registered a service, so an empty table, at once.
	local t0=$SECONDS rc=0
	sq l sr SR || rc=$?
	tap_is "$T: saquery SR: answered" "$rc" 0
	tap_is "$T: ... no services registered: no records" "$(nrec "$tmp/l.sr.out")" 0
	tap_check "$T: ... at once, not by timing out ($((SECONDS - t0)) s)" test $((SECONDS - t0)) -lt 10
	[ "$rc" -eq 0 ] || tap_diag "SR: $(grep -i 'err\|status' "$tmp/l.sr.err" | head -n 2)"
}

for topo in ${SA_TEST_TOPOS:-2sw2path ft2-k8}; do
	T=$topo
	if start_sms "$srcdir/tests/topologies/$topo.topo"; then
		record_checks
		mask_checks
	fi
	stop_sms
done
tap_done
