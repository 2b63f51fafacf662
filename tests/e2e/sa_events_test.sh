#!/bin/bash
# Events through the SA (IBA 13.4.8): a host subscribes with InformInfo
# (tests/rig/sasub), a link goes down (ibsim Unlink of a host's link), and
# the subscriber receives a Report within a bounded wait and answers
# ReportResp: trap 128 (link state change) forwarded from the switch, and,
# from loomd, trap 65 (GID out of service) from the heavy sweep. OpenSM
# first, as the reference that the client and the checks are fair (trap
# 128 only: OpenSM reports 64-67 only about ports still in its model,
# osm_inform.c's P_Key check, so never 65 for a port it dropped); then
# loomd, where saquery IIR lists the subscriptions and unsubscribing
# removes them, and a group created through the SA is reported as trap 66;
# with partitions, a Report reaches only subscribers that share one with
# the port it is about (o13-17.1.1).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

need_tools ibsim opensm saquery
need_rig librmpp_shim.so librmpp_tail.so sasub mcjoin
SASUB=${SASUB:-$rig/sasub}
MCJOIN=${MCJOIN:-$rig/mcjoin}
WAIT_MS=30000 # a Report within this: a sweep or two, on a loaded machine


# The leaf port facing h00002: Unlink takes the host off the fabric.
victim=$(sim_topo_links "$topo" | awk -F'\t' '$3 == "h00002" { print "\"" $1 "\"[" $2 "]"; exit }')
# port_guid SIM HOST: the host's port GUID as its CA says (ibstat -p).
port_guid() { sim_run "$1" --host "$2" --timeout 30 ibstat -p 2>/dev/null | head -n 1; }

# Subscribers are hosts other than h00001, where the SMs run: on ibsim the
# Report to a host goes to its first issm client, which there is the SM.
# sub SIM HOST TAG ARGS...: sasub in the background; its pid in $sub_pid, output $tmp/TAG.out.
sub() {
	local s=$1 h=$2 tag=$3
	shift 3
	sim_run "$s" --host "$h" --timeout 90 "$SASUB" --issm --timeout 3000 "$@" >"$tmp/$tag.out" \
		2>"$tmp/$tag.err" &
	sub_pid=$!
}

# ---- OpenSM, the reference ---------------------------------------------------------
if sim_start o "$topo"; then
	dir=$(sim_dir o)
	sim_run o --timeout 300 --out "$tmp/osm.out" opensm -d2 -F "$dir/opensm.conf" \
		-f "$tmp/osm.log" --dump_files_dir "$dir" &
	tap_check "OpenSM: SUBNET UP" log_wait "$tmp/osm.log" 'SUBNET UP'
	sub o h00009 o128 --trap 128 --wait "$WAIT_MS"
	p128=$sub_pid
	tap_check "OpenSM: h00009 subscribes to trap 128" log_wait "$tmp/o128.out" '^subscribed'
	tap_check "OpenSM: Unlink $victim (h00002's link)" sim_console o "Unlink $victim"
	wait "$p128"
	tap_is "OpenSM: h00009 receives a Report" "$?" 0
	tap_check "OpenSM: ... of trap 128, from leaf001" grep -q '^report trap 128 generic 1 type 1 producer 2 ' "$tmp/o128.out"
	tap_diag "$(cat "$tmp/o128.out" "$tmp/o128.err")"
	sim_signal o TERM
	sim_stop o
else
	tap_check "OpenSM simulator starts" false
fi

# ---- loomd ---------------------------------------------------------------------------
if ! sim_start l "$topo"; then
	tap_check "loomd simulator starts" false
	tap_done
	exit
fi
SIM_RMPP=1 sim_run l --timeout 300 --out "$tmp/loomd.log" "$LOOMD" --sweep-interval 2 \
	--state-dir "$tmp/state" &
bg=$!
tap_check "loomd: SUBNET UP" log_wait "$tmp/loomd.log" 'SUBNET UP'

sub l h00009 l65 --trap 65 --wait "$WAIT_MS"
p65=$sub_pid
tap_check "loomd: h00009 subscribes to trap 65" log_wait "$tmp/l65.out" '^subscribed'
sub l h00003 lall --wait "$WAIT_MS"
pall=$sub_pid
tap_check "loomd: h00003 subscribes to every trap" log_wait "$tmp/lall.out" '^subscribed'
sub l h00011 l128 --trap 128 --wait "$WAIT_MS"
p128=$sub_pid
tap_check "loomd: h00011 subscribes to trap 128" log_wait "$tmp/l128.out" '^subscribed'
SIM_RMPP=1 sim_run l --host h00001 saquery IIR >"$tmp/iir" 2>&1
tap_check "loomd: saquery IIR lists the subscriptions (trap 65 and 0xFFFF)" \
	bash -c "grep -q 'trap_num\\.*65\$' '$tmp/iir' && grep -q 'trap_num\\.*65535\$' '$tmp/iir'"
tap_diag "$(head -n 40 "$tmp/iir")"

guid2=$(port_guid l h00002)
tap_check "loomd: Unlink $victim (h00002's link)" sim_console l "Unlink $victim"
wait "$p65"
tap_is "loomd: h00009 receives a Report" "$?" 0
tap_check "loomd: ... of trap 65, generic, from the SM" grep -q '^report trap 65 generic 1 type 4 ' "$tmp/l65.out"
tap_check "loomd: ... naming h00002's port ($guid2)" grep -qi " guid 0x0*${guid2#0x} " "$tmp/l65.out"
tap_diag "$(cat "$tmp/l65.out" "$tmp/l65.err")"
wait "$pall"
tap_is "loomd: h00003 (every trap) receives a Report" "$?" 0
tap_diag "$(cat "$tmp/lall.out" "$tmp/lall.err")"
wait "$p128"
tap_is "loomd: h00011 receives a Report" "$?" 0
tap_check "loomd: ... of trap 128 forwarded from leaf001, its GID filled in" \
	grep -q '^report trap 128 generic 1 type 1 producer 2 .* issuer_gid fe80::' "$tmp/l128.out"
tap_diag "$(cat "$tmp/l128.out" "$tmp/l128.err")"

# Multicast: a group created through the SA is trap 66.
sub l h00010 l66 --trap 66 --wait "$WAIT_MS"
p66=$sub_pid
log_wait "$tmp/l66.out" '^subscribed'
sim_run l --host h00005 --timeout 30 "$MCJOIN" --timeout 3000 --create ff12:601b:ffff::e66 \
	>"$tmp/join.out" 2>&1
wait "$p66"
tap_is "loomd: a group created through the SA: h00010 receives a Report" "$?" 0
tap_check "loomd: ... of trap 66, naming the group" grep -q '^report trap 66 .* gid ff12:601b:ffff::e66 ' "$tmp/l66.out"
tap_diag "$(cat "$tmp/l66.out" "$tmp/l66.err")"

# Unsubscribe.
for t in 65 66 128 0xffff; do
	case $t in 65) h=h00009 ;; 66) h=h00010 ;; 128) h=h00011 ;; *) h=h00003 ;; esac
	sim_run l --host "$h" --timeout 30 "$SASUB" --timeout 3000 --unsubscribe --trap "$t" \
		>"$tmp/unsub.out" 2>&1
	tap_is "loomd: $h unsubscribes from trap $t" "$?" 0
done
SIM_RMPP=1 sim_run l --host h00001 saquery IIR >"$tmp/iir2" 2>&1
tap_check "loomd: saquery IIR lists none after unsubscribing" \
	bash -c "! grep -qi 'InformInfoRecord dump' '$tmp/iir2'"
tap_diag "$(head -n 10 "$tmp/iir2")"
sim_run l --host h00009 --timeout 30 "$SASUB" --timeout 3000 --unsubscribe --trap 65 \
	>"$tmp/unsub.out" 2>&1
tap_is "loomd: unsubscribing again is refused" "$?" 1
tap_check "loomd: ... with status 0x0200 (request invalid)" grep -q 'status 0x0200' "$tmp/unsub.out"

sim_signal l TERM
rc=0
wait "$bg" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
sim_stop l

# ---- partitions: a Report only to who may see its source (o13-17.1.1) ---------
# h00002 comes back (ReLink: trap 64 about it). h00003 (full in the default
# partition) and h00011 (full with h00002 in "lab") may see it; h00009,
# like h00002 only a limited member of the default partition, may not.
cat >"$tmp/parts.yaml" <<'YAML'
partitions:
  - name: default
    members:
      - all-switches
      - self
      - h00003
      - { node: h00002, membership: limited }
      - { node: h00009, membership: limited }
      - { node: h00011, membership: limited }
  - name: lab
    pkey: 0x0030
    members:
      - h00002
      - h00011
YAML
if sim_start p "$topo"; then
	SIM_RMPP=1 sim_run p --timeout 300 --out "$tmp/p.loomd.log" "$LOOMD" --sweep-interval 2 \
		--state-dir "$tmp/p.state" -c "$tmp/parts.yaml" &
	bg=$!
	tap_check "partitions: loomd SUBNET UP" log_wait "$tmp/p.loomd.log" 'SUBNET UP'
	n0=$(grep -c ' [1-9][0-9]* changes' "$tmp/p.loomd.log")
	tap_check "partitions: Unlink $victim" sim_console p "Unlink $victim"
	log_wait -n $((n0 + 1)) "$tmp/p.loomd.log" ' [1-9][0-9]* changes' 30
	tap_check "partitions: a sweep sees h00002 gone" \
		test "$(grep -c ' [1-9][0-9]* changes' "$tmp/p.loomd.log")" -gt "$n0"
	sub p h00003 p3 --trap 64 --wait "$WAIT_MS"
	p3=$sub_pid
	sub p h00011 p11 --trap 64 --wait "$WAIT_MS"
	p11=$sub_pid
	sub p h00009 p9 --trap 64 --wait 15000
	p9=$sub_pid
	for t in p3 p11 p9; do
		tap_check "partitions: $(printf 'h%05d' "${t#p}") subscribes to trap 64" log_wait "$tmp/$t.out" '^subscribed'
	done
	tap_check "partitions: ReLink $victim" sim_console p "ReLink $victim"
	wait "$p3"
	tap_is "partitions: h00003 (full, default) receives the Report of trap 64" "$?" 0
	wait "$p11"
	tap_is "partitions: h00011 (full with h00002 in lab) receives it" "$?" 0
	tap_check "partitions: ... naming h00002's port" grep -qi " guid 0x0*${guid2#0x} " "$tmp/p11.out"
	wait "$p9"
	tap_is "partitions: h00009 (limited, like h00002) receives none (sasub: 3)" "$?" 3
	tap_diag "$(cat "$tmp/p9.out" "$tmp/p9.err")"
	sim_signal p TERM
	wait "$bg"
	sim_stop p
else
	tap_check "partitions: simulator starts" false
fi
tap_done
