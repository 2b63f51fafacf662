#!/bin/bash
# A throw-away qemu VM that boots this machine's own root file system with its own
# systemd as PID 1, to run loomd as systemd runs it (tests/contrib/systemd_vm_test.sh).
#
#   systemd-vm.sh run [--timeout SEC] [--bind DIR]... SCRIPT
#                     boot, run SCRIPT (bash, as root, from a oneshot service once the VM
#                     is up), print its output, exit with its status; each DIR of the
#                     host (read-only) at its own path, e.g. the source and build trees
#   systemd-vm.sh check                        say whether it can run here (exit 0)
#
# How: the kernel and 9p/overlay modules are rxe-vm.sh's cache (Debian's own kernel).
# The host's / is exported read-only over 9p: the VM's /usr is the host's and its /etc
# the host's under a tmpfs overlay, so it runs every binary and library of the host,
# writes nothing back, and needs no image.
# Only the control folder (the script, its output and status) is shared read-write.
# Exit status: the script's; 77 when no VM can run here; 124 timeout; 125 VM broke.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${LOOM_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loom-vm}

die() { echo "systemd-vm: $*" >&2; exit 125; }
skip() { echo "systemd-vm: cannot run a VM here: $*" >&2; exit 77; }

need_tools() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
	[ -x /bin/busybox ] || skip "/bin/busybox not found: apt-get install busybox-static"
	command -v cpio >/dev/null || skip "cpio not found: apt-get install cpio"
	[ -x /lib/systemd/systemd ] || skip "/lib/systemd/systemd not found: apt-get install systemd"
	"$here/rxe-vm.sh" prepare || exit $?
	[ -f "$cache/mods/overlay.ko" ] || skip "no overlay module in $cache"
}

# The VM's only units of its own: a target to isolate, and the service that runs the
# script, writes its status and powers the VM off whatever the script did.
write_units() { # DIR CTL
	cat >"$1/loom-vmtest.target" <<-UNIT
	[Unit]
	Description=loom test VM
	Requires=loom-vmtest.service
	After=loom-vmtest.service
	AllowIsolate=yes
	UNIT
	cat >"$1/loom-vmtest.service" <<-UNIT
	[Unit]
	Description=loom test script
	After=basic.target
	Wants=basic.target

	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'bash $2/script >$2/output 2>&1; echo \$? >$2/status; sync; systemctl --force --force poweroff'
	UNIT
}

cmd_run() {
	local tmo=600 script rc=0 root binds=
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) tmo=$2; shift 2 ;;
		--bind) binds="$binds,$(readlink -f "$2")"; shift 2 ;;
		-*) die "unknown option $1 (see the header of $0)" ;;
		*) break ;;
		esac
	done
	[ $# -eq 1 ] && [ -f "$1" ] || die "run needs one SCRIPT file (see the header of $0)"
	script=$(readlink -f "$1")
	need_tools
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-sdvm.XXXXXX")
	[ "${LOOM_VM_KEEP:-0}" = 1 ] || trap 'rm -rf "${tmp:-}"' EXIT
	mkdir -p "$tmp/ctl" "$tmp/root"/{bin,dev,proc,sys,mods,units}
	cp "$script" "$tmp/ctl/script"
	root=$tmp/root
	cp /bin/busybox "$root/bin/busybox"
	cp "$cache"/mods/*.ko "$cache/mods/order" "$root/mods/"
	cp "$here/guest-systemd-init.sh" "$root/init"
	chmod 755 "$root/init"
	write_units "$root/units" "$tmp/ctl"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$tmp/initrd.gz")

	timeout -k 5 "$tmo" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 \
		-m "${LOOM_VM_MEM:-1024}" -nodefaults -no-user-config -display none -no-reboot \
		-kernel "$cache/vmlinux" -initrd "$tmp/initrd.gz" \
		-append "console=ttyS0 panic=-1 systemd.unit=loom-vmtest.target systemd.show_status=0 loom_ctl=$tmp/ctl loom_binds=${binds#,}" \
		-serial "file:$tmp/console" -device virtio-rng-pci \
		-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on" \
		-virtfs "local,path=$tmp/ctl,mount_tag=ctl,security_model=none" &
	wait $! || rc=$?
	[ -f "$tmp/ctl/output" ] && cat "$tmp/ctl/output"
	[ -f "$tmp/ctl/status" ] && return "$(cat "$tmp/ctl/status")"
	echo "systemd-vm: the VM ended without a result (qemu status $rc); console:" >&2
	tail -n 60 "$tmp/console" >&2 || true
	[ "$rc" = 124 ] && return 124
	return 125
}

case ${1:-} in
run) shift; cmd_run "$@" ;;
check) need_tools; echo "systemd-vm: ready" ;;
*) die "usage: $0 run [--timeout SEC] SCRIPT | check" ;;
esac
