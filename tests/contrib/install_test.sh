#!/bin/bash
# make install DESTDIR=...: the programs, every man page, the example and the
# default loom.yaml, and loomd.service in systemd's unit directory with the
# paths make install used (loom-health.service too, in the examples).
# systemd-analyze verify passes on both units (their programs and man pages
# found in the DESTDIR tree) and systemd-analyze security rates loomd.service
# OK or better; the exposure is printed.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-$PWD}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/root

# The test runs under make check: a make of its own, without the caller's jobserver.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$builddir" install DESTDIR="$d" \
	>"$tmp/install.out" 2>&1
tap_is "make install DESTDIR=...: exit 0" "$?" 0 || tap_diag "$(tail -n 20 "$tmp/install.out")"

unit=$(find "$d" -name loomd.service -path '*/systemd/system/*' | head -n 1)
tap_check "loomd.service is in a systemd/system folder" test -n "$unit" || {
	tap_done
	exit
}
tap_diag "unit: ${unit#"$d"}"
for f in loomd.8 loom.8 loom.yaml.5 loom-health.8 loom-verbs.8 examples/loom.yaml; do
	tap_check "installed: $f" test -n "$(find "$d" -path "*/$f" -type f)"
done
conf=$(find "$d" -path '*/loom/loom.yaml' -not -path '*/examples/*' -type f)
tap_check "installed: loom/loom.yaml (all defaults)" test -n "$conf"
[ -n "$conf" ] && tap_check "  loom config --check reads it" "$builddir/tools/loom" config --check -c "$conf"

# Every Exec line names a program make install put there.
exec_lines=$(grep -E '^Exec[A-Za-z]*=' "$unit")
while IFS= read -r line; do
	prog=${line#*=}
	prog=${prog%% *}
	tap_check "${line%%=*}: $prog is installed and executable" test -x "$d$prog"
done <<<"$exec_lines"
tap_is "ExecStart runs the installed loomd" "$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")" \
	"$(cd "$d" && find . -path '*/sbin/loomd' | sed 's/^\.//')"

# loom-health.service goes with the examples, made like loomd.service: its
# ExecStart is the loom make install put there, not a fixed /usr/bin/loom.
health=$(find "$d" -path '*/examples/loom-health.service' -type f | head -n 1)
tap_check "installed: examples/loom-health.service" test -n "$health"
tap_check "installed: examples/loom-health.timer" \
	test -n "$(find "$d" -path '*/examples/loom-health.timer' -type f)"
hprog=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "${health:-/dev/null}")
tap_is "loom-health.service: ExecStart runs the installed loom" "$hprog" \
	"$(cd "$d" && find . -path '*/bin/loom' -type f | sed 's/^\.//')"
tap_check "loom-health.service: no @...@ left" bash -c "! grep -q '@[a-z]*@' '${health:-/dev/null}'"

# What the unit must say (issue 20): notify with a watchdog, reload, the three
# directories, restart, and the sandbox an SM on /dev/infiniband allows.
for want in Type=notify WatchdogSec= ExecReload= Restart=on-failure StateDirectory=loom \
	RuntimeDirectory=loom ConfigurationDirectory=loom ProtectSystem=strict ProtectHome=yes \
	PrivateTmp=yes NoNewPrivileges=yes 'DeviceAllow=char-infiniband_mad rw' \
	RestrictAddressFamilies=AF_UNIX CapabilityBoundingSet= SystemCallFilter=@system-service; do
	tap_check "unit says $want" grep -q "^$want" "$unit"
done

if ! command -v systemd-analyze >/dev/null; then
	echo "ok $((++_tap_n)) - systemd-analyze # SKIP not installed"
	tap_done
	exit
fi
# verify wants the programs where the unit says; here they are under $d.
sed -e "s|^\(Exec[A-Za-z]*=\)/|\1$d/|" "$unit" >"$tmp/loomd.service"
man=$(dirname "$(dirname "$(find "$d" -name loomd.8 | head -n 1)")")
MANPATH=$man systemd-analyze verify "$tmp/loomd.service" >"$tmp/verify.out" 2>&1
tap_is "systemd-analyze verify: exit 0" "$?" 0 || tap_diag "$(cat "$tmp/verify.out")"
tap_is "systemd-analyze verify: says nothing" "$(cat "$tmp/verify.out")" ""

sed -e "s|^\(Exec[A-Za-z]*=\)/|\1$d/|" "$health" >"$tmp/loom-health.service"
MANPATH=$man systemd-analyze verify "$tmp/loom-health.service" >"$tmp/verify.out" 2>&1
tap_is "loom-health.service: systemd-analyze verify exit 0" "$?" 0 || tap_diag "$(cat "$tmp/verify.out")"

systemd-analyze security --offline=yes "$tmp/loomd.service" >"$tmp/sec.out" 2>&1
score=$(sed -n 's/.*Overall exposure level for loomd.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p' "$tmp/sec.out")
tap_diag "systemd-analyze security: exposure $score"
tap_check "systemd-analyze security: OK or better (got '$score')" \
	bash -c "case '${score#* }' in OK | SAFE | PERFECT) ;; *) exit 1 ;; esac" ||
	tap_diag "$(grep '✗' "$tmp/sec.out")"
tap_done
