#!/bin/bash
# debian/: dpkg-buildpackage -b -uc -us really builds the .debs from a clean
# copy of the source, and they hold what an operator installs: loomd, loom,
# loomd.service in systemd's unit folder, every man page, /etc/loom/loom.yaml
# as a conffile, the example; loom-verbs apart. systemd-analyze verify finds
# the packaged unit's programs; lintian, when installed, finds no error.
# Skipped without dpkg-buildpackage and debhelper (contrib/setup-debian.sh
# --test installs them).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/tap.sh"

if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
	echo "1..0 # SKIP dpkg-buildpackage or debhelper not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(sed -n '1s/^loom (\([^)]*\)).*/\1/p' "$srcdir/debian/changelog")
src=$tmp/loom-$ver
mkdir -p "$src"
# A clean copy: the files git knows or would add (as they are now), or, from a tarball,
# everything but build trees and what configure made in the source.
if git -C "$srcdir" rev-parse --show-toplevel >/dev/null 2>&1 &&
	[ "$(git -C "$srcdir" rev-parse --show-toplevel)" = "$(cd "$srcdir" && pwd -P)" ]; then
	(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src" 2>/dev/null)
else
	tar -C "$srcdir" --exclude=./_build --exclude=./.git --exclude=autom4te.cache \
		--exclude=config.status --exclude=config.log --exclude=./Makefile \
		--exclude='*.o' --exclude='*.a' -cf - . | tar -C "$src" -xf -
fi
tap_check "the source copy has debian/rules" test -x "$src/debian/rules"

start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}" \
	dpkg-buildpackage -b -uc -us) >"$tmp/build.log" 2>&1
tap_is "dpkg-buildpackage -b -uc -us: exit 0" "$?" 0 || tap_diag "$(tail -n 30 "$tmp/build.log")"
tap_diag "built in $(($(date +%s) - start)) s"
[ -f "$tmp/loom_${ver}_$(dpkg --print-architecture).changes" ] || {
	tap_done
	exit
}

arch=$(dpkg --print-architecture)
deb=$tmp/loom_${ver}_$arch.deb
vdeb=$tmp/loom-verbs_${ver}_$arch.deb
tap_check "loom_${ver}_$arch.deb" test -f "$deb"
tap_check "loom-verbs_${ver}_$arch.deb" test -f "$vdeb"
dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/loom.list"
dpkg-deb -c "$vdeb" 2>/dev/null | awk '{ print $NF }' | sed 's|^\./|/|' >"$tmp/verbs.list"
for f in /usr/sbin/loomd /usr/bin/loom /etc/loom/loom.yaml /usr/share/man/man8/loomd.8.gz \
	/usr/share/man/man8/loom.8.gz /usr/share/man/man8/loom-health.8.gz \
	/usr/share/man/man5/loom.yaml.5.gz /usr/share/doc/loom/examples/loom.yaml \
	/usr/share/doc/loom/copyright; do
	tap_check "loom.deb holds $f" grep -qx -- "$f" "$tmp/loom.list"
done
tap_check "loom.deb holds the README" grep -qE '^/usr/share/doc/loom/README(.gz)?$' "$tmp/loom.list"
tap_check "loom.deb holds loomd.service in systemd's unit folder" \
	grep -qE '^(/usr)?/lib/systemd/system/loomd.service$' "$tmp/loom.list"
tap_check "loom.deb: no loom-verbs" bash -c "! grep -q loom-verbs '$tmp/loom.list'"
for f in /usr/bin/loom-verbs /usr/share/man/man8/loom-verbs.8.gz; do
	tap_check "loom-verbs.deb holds $f" grep -qx -- "$f" "$tmp/verbs.list"
done

dpkg-deb -e "$deb" "$tmp/ctl"
tap_check "/etc/loom/loom.yaml is a conffile" grep -qx /etc/loom/loom.yaml "$tmp/ctl/conffiles"
tap_check "postinst enables and starts loomd.service" \
	bash -c "grep -q 'deb-systemd-helper.*enable.*loomd.service' '$tmp/ctl/postinst' &&
		grep -q 'deb-systemd-invoke .*loomd.service' '$tmp/ctl/postinst' &&
		grep -q '_dh_action=start' '$tmp/ctl/postinst'"
tap_check "loom depends on libibumad, libyaml, libsystemd" \
	bash -c "dpkg-deb -f '$deb' Depends | grep -q libibumad && dpkg-deb -f '$deb' Depends | grep -q libyaml &&
		dpkg-deb -f '$deb' Depends | grep -q libsystemd"
tap_check "only loom-verbs depends on libibverbs" \
	bash -c "dpkg-deb -f '$vdeb' Depends | grep -q libibverbs && ! dpkg-deb -f '$deb' Depends | grep -q libibverbs"
# The programs in the package run (the unit's ExecStartPre, on the shipped file).
dpkg-deb -x "$deb" "$tmp/x"
tap_check "the packaged loomd --check-config accepts the packaged loom.yaml" \
	bash -c "'$tmp/x/usr/sbin/loomd' --check-config -c '$tmp/x/etc/loom/loom.yaml' >/dev/null"
# The packaged unit names the packaged programs, and systemd-analyze verify
# finds them and the man pages in the unpacked tree.
unit=$(find "$tmp/x" -path '*/systemd/system/loomd.service' | head -n 1)
tap_check "the packaged unit's programs are in the package" bash -c "
	grep -E '^Exec[A-Za-z]*=' '$unit' | sed 's/^[^=]*=//; s/ .*//' | sort -u |
		while read -r p; do test -x '$tmp/x'\$p || exit 1; done"
if command -v systemd-analyze >/dev/null; then
	sed -e "s|^\(Exec[A-Za-z]*=\)/|\1$tmp/x/|" "$unit" >"$tmp/loomd.service"
	tap_is "systemd-analyze verify on the packaged unit: silent" \
		"$(MANPATH=$tmp/x/usr/share/man systemd-analyze verify "$tmp/loomd.service" 2>&1)" ""
fi

if command -v lintian >/dev/null; then
	lintian --tag-display-limit 0 "$tmp"/loom*_"$arch".changes >"$tmp/lintian.out" 2>&1
	tap_is "lintian: no error" "$(grep -c '^E:' "$tmp/lintian.out")" 0
	tap_diag "lintian: $(grep -c '^W:' "$tmp/lintian.out") warnings" "$(grep -E '^[EW]:' "$tmp/lintian.out")"
else
	echo "ok $((++_tap_n)) - lintian # SKIP not installed"
fi
tap_done
