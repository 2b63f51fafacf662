#!/bin/bash
# loomd under a real systemd: the unit make install puts in systemd's unit directory,
# with every line of its hardening, run by systemd as PID 1 in a throw-away qemu VM
# (tests/vm/systemd-vm.sh: this machine's own /usr and systemd, Debian's kernel) on an
# ibsim fabric. A drop-in adds only what the simulator needs (LD_PRELOAD of umad2sim,
# its socket name) and a short watchdog. Checked: systemctl start returns at READY=1
# with the fabric up (sminfo, ibnetdiscover read it), STATUS= says SUBNET UP, the
# watchdog is fed (no restart after several intervals), loom status answers on
# /run/loom/control, the guid2lid map is in /var/lib/loom, systemctl reload succeeds,
# and systemctl stop ends it cleanly (exit 0, Result=success). TAP on stdout.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
srcdir=$(readlink -f "$srcdir")
builddir=$(readlink -f "$builddir")
. "$srcdir/tests/lib/tap.sh"

skip_all() {
	[ "${CI:-}" = true ] && { echo "Bail out! $*"; exit 1; }
	echo "1..0 # SKIP $*"
	exit 0
}
[ "$(id -u)" = 0 ] || skip_all "make install into the VM's /usr needs root (the VM is root's)"
"$srcdir/tests/vm/systemd-vm.sh" check >/dev/null 2>"${TMPDIR:-/tmp}/sdvm-check.$$" || {
	why=$(cat "${TMPDIR:-/tmp}/sdvm-check.$$")
	rm -f "${TMPDIR:-/tmp}/sdvm-check.$$"
	skip_all "no VM: $why"
}
rm -f "${TMPDIR:-/tmp}/sdvm-check.$$"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-sdtest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$builddir" install DESTDIR="$tmp/stage" \
	>"$tmp/install.out" 2>&1 || {
	tap_check "make install DESTDIR=... for the VM" false
	tap_diag "$(tail -n 20 "$tmp/install.out")"
	tap_done
	exit
}

# The guest's script: the values above, then the checks (quoted: they run in the VM).
{
	printf 'srcdir=%q\nbuilddir=%q\nstage=%q\n' "$srcdir" "$builddir" "$tmp/stage"
	cat <<'GUEST'
set -uo pipefail
. "$srcdir/tests/lib/sim.sh"
export TMPDIR=/tmp SIM_START_TIMEOUT=60 SIM_RUN_TIMEOUT=120
# Into the VM's own tree: its /lib is a link into /usr (merged /usr), which cp -a refuses.
(cd "$stage" && tar -cf - .) | tar -xf - -C / --keep-directory-symlink
sim_trap_exit
sim_start f "$srcdir/tests/topologies/ft2-k8.topo" || { tap_check "simulator starts" false; tap_done; exit; }
_sim_find_umad2sim
mkdir -p /etc/systemd/system/loomd.service.d
cat >/etc/systemd/system/loomd.service.d/ibsim.conf <<CONF
# The simulator, not the unit: umad2sim in place of /dev/infiniband. It makes its
# fake sysfs in the working directory, which ProtectSystem=strict makes read-only
# at /: the private /tmp instead.
[Service]
Environment=LD_PRELOAD=$SIM_UMAD2SIM IBSIM_SOCKNAME=$(sim_sock f)
WorkingDirectory=/tmp
WatchdogSec=3s
CONF
systemctl daemon-reload
unit=$(systemctl show -p FragmentPath --value loomd)
tap_check "systemd finds loomd.service where make install put it ($unit)" \
	test -f "$stage$unit"
t0=$(date +%s)
timeout 300 systemctl start loomd
tap_is "systemctl start loomd: exit 0 (returns at READY=1)" "$?" 0 ||
	tap_diag "$(journalctl -u loomd --no-pager -o cat | tail -n 15)"
tap_diag "start took $(( $(date +%s) - t0 )) s under emulation"
tap_is "ActiveState=active" "$(systemctl show -p ActiveState --value loomd)" active
tap_check "StatusText says SUBNET UP" bash -c \
	'systemctl show -p StatusText --value loomd | grep -q "SUBNET UP"'
tap_diag "StatusText: $(systemctl show -p StatusText --value loomd)"
sim_run f sminfo >"$TMPDIR/sminfo" 2>&1
tap_check "sminfo: loomd is the master (state 3)" grep -q 'state 3' "$TMPDIR/sminfo"
tap_diag "$(cat "$TMPDIR/sminfo")"
sim_run f ibnetdiscover >"$TMPDIR/disc" 2>/dev/null
tap_is "ibnetdiscover: exit 0" "$?" 0
tap_is "... 12 switches with a LID (ft2-k8)" "$(grep -Ec '^Switch.* lid [1-9]' "$TMPDIR/disc")" 12
tap_is "... 32 hosts with a LID" "$(grep -Ec '^\[1\]\(.*# lid [1-9]' "$TMPDIR/disc")" 32
tap_check "guid2lid is in the StateDirectory" test -s /var/lib/loom/guid2lid
pid=$(systemctl show -p MainPID --value loomd)
tap_check "MainPID is a running loomd" grep -q loomd "/proc/$pid/comm"
sleep 10
tap_is "the watchdog is fed: same MainPID after 3 intervals of 3 s" \
	"$(systemctl show -p MainPID --value loomd)" "$pid"
tap_is "... and no restart" "$(systemctl show -p NRestarts --value loomd)" 0
/usr/local/bin/loom status >"$TMPDIR/status" 2>&1
tap_is "loom status through /run/loom/control: exit 0" "$?" 0
tap_check "... says MASTER" grep -qi master "$TMPDIR/status"
timeout 60 systemctl reload loomd
tap_is "systemctl reload loomd: exit 0" "$?" 0
tap_is "... still active, same MainPID" "$(systemctl show -p MainPID --value loomd)" "$pid"
timeout 60 systemctl stop loomd
tap_is "systemctl stop loomd: exit 0" "$?" 0
tap_is "Result=success" "$(systemctl show -p Result --value loomd)" success
tap_is "ExecMainStatus=0 (SIGTERM is a clean stop)" \
	"$(systemctl show -p ExecMainStatus --value loomd)" 0
journalctl -u loomd --no-pager -o cat >"$TMPDIR/journal" 2>&1
tap_check "the journal has loomd's sweep line" grep -q 'SUBNET UP' "$TMPDIR/journal"
if ! tap_check "the journal shows no error" bash -c "! grep -qi 'error\|denied' $TMPDIR/journal"; then
	tap_diag "$(grep -i 'error\|denied' "$TMPDIR/journal" | head -n 5)"
fi
tap_done
GUEST
} >"$tmp/guest.sh"

"$srcdir/tests/vm/systemd-vm.sh" run --timeout "${LOOM_VM_TIMEOUT:-600}" --bind "$srcdir" \
	--bind "$builddir" --bind "$tmp" "$tmp/guest.sh"
rc=$?
# 0 and 1 are the guest's TAP verdict, already printed; anything else: no verdict.
case $rc in
0 | 1) exit "$rc" ;;
*) echo "not ok 1 - the VM run ended with status $rc (124: timeout, 125: the VM broke)"
   echo "1..1"
   exit 1 ;;
esac
