#!/bin/bash
# Partitions from loom.yaml, read back with smpquery pkeys: three partitions
# (full members only, full + limited, an IPoIB one with the SM's own port)
# program exactly their P_Keys on the member ports (and the switch ports
# facing them) and none elsewhere. SIGHUP with one partition changed sends
# P_Key blocks only to the ports it touches; a broken file on SIGHUP is
# refused and every table stays as it was.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

conf() { # STORAGE_EXTRA
	cat <<YAML
sm:
  sweep-interval: 60s
partitions:
  - name: compute
    pkey: 0x0010
    members:
      - { node: h00001 }
      - { node: h00002 }
  - name: storage
    pkey: 0x0020
    members:
      - { node: h00003 }
      - { node: h00004, membership: limited }
$1
  - name: ipoib
    pkey: 0x0030
    ipoib: true
    members:
      - { node: h00005 }
      - self
YAML
}

host_guid() { printf '0x0002c904%08x' $(($1 * 256 + 1)); }
lid_of() { awk -v g="$1" '$1 == g { print $2 }' "$tmp/state/guid2lid"; }
# The P_Keys a port holds, in table order, zeros left out.
pkeys() { # LID [PORT]
	sim_run p smpquery pkeys "$@" 2>/dev/null | grep -oE '0x[0-9a-f]{4}' | grep -v '^0x0000$' |
		tr '\n' ' ' | sed 's/ $//'
}
# The sweep summary lines only: the SIGHUP line also says "heavy sweep".
heavy() { grep -c 'sweep [0-9]* (heavy)' "$tmp/loomd.log"; }
wait_heavy() { # N: a heavy sweep after the Nth has ended
	log_wait -n $(($1 + 1)) "$tmp/loomd.log" 'sweep [0-9]* (heavy)' 60
}

conf "" >"$tmp/loom.yaml"
if ! sim_start p "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
sim_run p --timeout 120 --out "$tmp/loomd.log" "$LOOMD" -c "$tmp/loom.yaml" \
	--state-dir "$tmp/state" &
bg=$!
tap_check "loomd reaches SUBNET UP with three partitions" wait_heavy 0
tap_diag "$(grep sweep "$tmp/loomd.log")"

declare -A want=(
	[1]="0xffff 0x8010 0x8030" [2]="0xffff 0x8010" [3]="0xffff 0x8020" [4]="0xffff 0x0020"
	[5]="0xffff 0x8030" [6]="0xffff" [32]="0xffff"
)
for h in 1 2 3 4 5 6 32; do
	lid=$(lid_of "$(host_guid "$h")")
	tap_is "h$(printf %05d "$h") (LID $((lid))): P_Keys read back" "$(pkeys "$((lid))")" "${want[$h]}"
done
# leaf001 (switch GUID ...05) holds h00001-h00004 on ports 1-4.
leaf=$(lid_of 0x0002c90300000005)
for p in 1 3 4; do
	tap_is "leaf001 port $p (facing h0000$p): the host's P_Keys" "$(pkeys "$((leaf))" "$p")" \
		"${want[$p]}"
done
tap_is "leaf001 port 5 (an uplink): only the default P_Key" "$(pkeys "$((leaf))" 5)" "0xffff"

# The dry run shows the same tables from the file alone.
"$LOOM" route --config "$tmp/loom.yaml" --pkeys "$topo" >"$tmp/dry" 2>"$tmp/dry.err"
tap_is "loom route --pkeys: exit 0" "$?" 0
bad=0
for h in 1 2 3 4 5 6 32; do
	dry=$(sed -nE "s/^CA [^ ]+ \"h$(printf %05d "$h")\" port 1: //p" "$tmp/dry")
	[ "$dry" = "${want[$h]}" ] || { bad=$((bad + 1)); tap_diag "h$h: dry run '$dry'"; }
done
tap_is "loom route --pkeys shows what the hosts hold" "$bad" 0
tap_check "loom route --pkeys marks the switch ports facing members as enforcing" \
	grep -q '^switch .*"leaf001" port 3 enforce: 0xffff 0x8020$' "$tmp/dry"

# SIGHUP, one partition changed: h00006 joins storage as a full member.
conf "      - { node: h00006 }" >"$tmp/loom.yaml"
n=$(heavy)
sim_signal p HUP
tap_check "SIGHUP: a heavy sweep applies the new file" wait_heavy "$n"
line=$(grep 'sweep [0-9]* (heavy)' "$tmp/loomd.log" | tail -n 1)
tap_diag "$line"
tap_check "SIGHUP: only 2 P_Key blocks sent (h00006's port and the switch port facing it)" \
	grep -q ', 2 P_Key blocks, 0 QoS blocks, ' <<<"$line"
lid6=$(lid_of "$(host_guid 6)")
tap_is "h00006: now in storage" "$(pkeys "$((lid6))")" "0xffff 0x8020"

# SIGHUP with a broken file: refused, nothing changes.
for h in 1 2 3 4 5 6; do
	pkeys "$(($(lid_of "$(host_guid "$h")")))"
done >"$tmp/before"
printf 'partitions:\n  - name: x\n    pkey: 0x8001\n    members: [ {node: h00001} ]\n' >"$tmp/loom.yaml"
n=$(heavy)
sim_signal p HUP
sleep 1
# The refusal's lines, when loomd has read the file (60 s at most on a loaded machine).
log_wait "$tmp/loomd.log" 'stays in force, nothing changes' 60
tap_check "SIGHUP, broken file: refused, with its place" \
	grep -q 'loom.yaml:3:[0-9]*: partitions' "$tmp/loomd.log"
tap_check "SIGHUP, broken file: the running configuration stays" \
	grep -q 'stays in force, nothing changes' "$tmp/loomd.log"
tap_is "SIGHUP, broken file: no sweep was started" "$(heavy)" "$n"
for h in 1 2 3 4 5 6; do
	pkeys "$(($(lid_of "$(host_guid "$h")")))"
done >"$tmp/after"
tap_check "SIGHUP, broken file: every table as it was" diff -u "$tmp/before" "$tmp/after"

sim_signal p TERM
rc=0
wait "$bg" || rc=$?
tap_is "loomd stops on SIGTERM with status 0" "$rc" 0
tap_done
