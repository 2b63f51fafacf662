#!/bin/bash
# A throw-away qemu VM with a soft-RoCE (rdma_rxe) device, for loom-verbs tests.
#
#   rxe-vm.sh prepare                 fetch Debian's kernel package (apt-get download,
#                                     never installed), keep vmlinux + the modules rxe
#                                     needs in the cache; idempotent
#   rxe-vm.sh run [opts] SCRIPT       boot the VM, run SCRIPT (sh) in it, print its
#                                     output, exit with its status
#     --bin FILE        a host binary the script runs: its shared libraries go into the
#                       initramfs (repeatable); the binary itself is reached through 9p
#     --share DIR       a host folder mounted read-only at the same path (repeatable)
#     --out DIR         a host folder mounted read-write at the same path (repeatable)
#     --timeout SEC     bound on the whole VM run (default 600)
#   rxe-vm.sh check                   say whether a VM can run here (exit 0), or why not
#
# Exit status of run: the script's own status; 77 when no VM can run here (the reason
# on stderr, for a test to SKIP with); 124 on timeout; 125 when the VM broke.
# Why a VM: this machine has no RDMA hardware and cannot load modules, but Debian's own
# kernel has rdma_rxe and qemu can boot it (TCG when KVM is missing or broken).
# Environment: LOOM_VM_CACHE (default ~/.cache/loom-vm), LOOM_VM_ACCEL (tcg|kvm, default
# tcg: see below), LOOM_VM_MEM (MiB, default 1024), LOOM_VM_KEEP=1 keeps the temp dir.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${LOOM_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loom-vm}
# The modules the guest loads, in an order modprobe resolves; crc32_generic is not a
# declared dependency of rdma_rxe, but rxe computes its ICRC with it and rxe0 never
# registers without it. rdma_ucm gives user space rdma_cm (loom-verbs --rdma-cm).
want_mods="crc32_generic dummy virtio_pci 9pnet_virtio 9p rdma_rxe rdma_ucm overlay"

die() { echo "rxe-vm: $*" >&2; exit "${rc:-125}"; }
skip() { echo "rxe-vm: cannot run a VM here: $*" >&2; exit 77; }

# ---- prepare: kernel and modules into the cache -------------------------------------
kernel_pkg() {
	# linux-image-amd64 is a meta package: the real image is its dependency.
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1
}

cmd_prepare() {
	local pkg bz off m
	# The cache names the modules it holds: a changed list prepares it again.
	[ "$(cat "$cache/ready" 2>/dev/null)" = "$want_mods" ] && return 0
	command -v apt-get >/dev/null || skip "apt-get not found (Debian only)"
	command -v depmod >/dev/null && command -v modprobe >/dev/null ||
		skip "depmod/modprobe not found: apt-get install kmod"
	pkg=$(kernel_pkg)
	[ -n "$pkg" ] || skip "no linux-image-amd64 in apt's lists: run apt-get update"
	mkdir -p "$cache"
	ptmp=$(mktemp -d "$cache/prep.XXXXXX")
	trap 'rm -rf "${ptmp:-}"' EXIT
	(cd "$ptmp" && apt-get download -q "$pkg" >/dev/null 2>"$ptmp/apt.err") ||
		skip "apt-get download $pkg failed: $(tail -n 1 "$ptmp/apt.err")"
	dpkg-deb --fsys-tarfile "$ptmp"/*.deb | tar -x -C "$ptmp" ./boot ./lib/modules ||
		die "unpacking $pkg failed"
	kver=$(ls "$ptmp/lib/modules")
	depmod -b "$ptmp" "$kver"
	mkdir -p "$cache/new/mods"
	: >"$cache/new/mods/order"
	for m in $want_mods; do
		modprobe -d "$ptmp" -S "$kver" -C /dev/null --show-depends "$m" |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r m; do
		cp "$m" "$cache/new/mods/"
		basename "$m" >>"$cache/new/mods/order"
	done
	# qemu boots an ELF vmlinux through PVH directly, which skips the bzImage's own
	# decompressor (seconds under TCG): cut the xz stream out of the bzImage.
	bz=$ptmp/boot/vmlinuz-$kver
	off=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$bz" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || die "$bz: no xz stream found"
	tail -c +$((off + 1)) "$bz" | xz -dc >"$cache/new/vmlinux" 2>/dev/null || true
	[ -s "$cache/new/vmlinux" ] || die "$bz: the xz stream did not decompress"
	echo "$kver" >"$cache/new/version"
	rm -rf "$cache/mods" "$cache/vmlinux"
	mv "$cache/new/mods" "$cache/new/vmlinux" "$cache/new/version" "$cache/"
	rmdir "$cache/new"
	rm -rf "$ptmp"
	echo "$want_mods" >"$cache/ready"
}

# ---- run: initramfs, boot, collect --------------------------------------------------
need_tools() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
	[ -x /bin/busybox ] || skip "/bin/busybox not found: apt-get install busybox-static"
	command -v cpio >/dev/null || skip "cpio not found: apt-get install cpio"
	command -v rdma >/dev/null || skip "rdma (iproute2) not found: apt-get install iproute2"
	[ -f /etc/libibverbs.d/rxe.driver ] ||
		skip "rxe provider not found: apt-get install ibverbs-providers"
}

# copy_with_libs ROOT FILE...: FILE and every library ldd names, at their own paths.
copy_with_libs() {
	local root=$1 f l
	shift
	for f in "$@"; do
		[ -e "$f" ] || continue
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
			while read -r l; do
				[ -e "$root$l" ] && continue
				mkdir -p "$root$(dirname "$l")"
				cp -L "$l" "$root$l"
			done
	done
}

build_initramfs() { # ROOT OUT BIN...
	local root=$1 out=$2 prov
	shift 2
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc/libibverbs.d,mods,run}
	cp /bin/busybox "$root/bin/busybox"
	cp "$cache"/mods/*.ko "$cache/mods/order" "$root/mods/"
	cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
	prov=$(ls /usr/lib/*/libibverbs/librxe-rdmav*.so | head -n 1)
	copy_with_libs "$root" "$prov" "$(command -v rdma)" "$@"
	# Binaries with sanitizers find their runtime through ldd like any other library.
	cp "$here/guest-init.sh" "$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$out")
}

# A VM accelerator that works. KVM is opt-in: here /dev/kvm exists but qemu aborts with
# -cpu host ("failed to set MSR 0x10a") and a guest with the flag masked hangs, so the
# default is TCG, which always boots.
pick_accel() {
	case ${LOOM_VM_ACCEL:-tcg} in
	kvm) [ -w /dev/kvm ] || skip "LOOM_VM_ACCEL=kvm but /dev/kvm is not usable"
		echo "-accel kvm -cpu ${LOOM_VM_CPU:-host}" ;;
	*) echo "-accel tcg,thread=multi -cpu max" ;;
	esac
}

cmd_run() {
	local bins=() shares=() outs=() tmo=600 script d n accel rc=0 qpid
	while [ $# -gt 0 ]; do
		case $1 in
		--bin) bins+=("$(readlink -f "$2")"); shift 2 ;;
		--share) shares+=("$(readlink -f "$2")"); shift 2 ;;
		--out) outs+=("$(readlink -f "$2")"); shift 2 ;;
		--timeout) tmo=$2; shift 2 ;;
		-*) die "unknown option $1 (see the header of $0)" ;;
		*) break ;;
		esac
	done
	[ $# -eq 1 ] && [ -f "$1" ] || die "run needs one SCRIPT file (see the header of $0)"
	script=$(readlink -f "$1")
	need_tools
	cmd_prepare
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/loom-vm.XXXXXX")
	[ "${LOOM_VM_KEEP:-0}" = 1 ] || trap 'rm -rf "${tmp:-}"' EXIT
	mkdir -p "$tmp/ctl"
	cp "$script" "$tmp/ctl/script"
	build_initramfs "$tmp/root" "$tmp/initrd.gz" "${bins[@]}"

	# Every host folder becomes a 9p export with a tag; the guest mounts each at the
	# same path, so binaries and file names mean the same inside and outside.
	local qargs=() mounts=""
	n=0
	for d in "$tmp/ctl" "${shares[@]}" "${outs[@]}"; do
		local ro=",readonly=on"
		[ "$d" = "$tmp/ctl" ] && ro=""
		for o in "${outs[@]}"; do [ "$d" = "$o" ] && ro=""; done
		qargs+=(-virtfs "local,path=$d,mount_tag=m$n,security_model=none$ro")
		mounts="$mounts m$n:$d"
		n=$((n + 1))
	done
	accel=$(pick_accel)
	# shellcheck disable=SC2086 # accel is a list of words
	timeout -k 5 "$tmo" qemu-system-x86_64 $accel -smp 2 -m "${LOOM_VM_MEM:-1024}" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$cache/vmlinux" -initrd "$tmp/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 loom_mounts=$mounts loom_ctl=$tmp/ctl" \
		-serial "file:$tmp/console" -device virtio-rng-pci "${qargs[@]}" &
	qpid=$!
	wait "$qpid" || rc=$?
	if [ -f "$tmp/ctl/output" ]; then
		cat "$tmp/ctl/output"
	fi
	if [ -f "$tmp/ctl/status" ]; then
		return "$(cat "$tmp/ctl/status")"
	fi
	echo "rxe-vm: the VM ended without a result (qemu status $rc); console:" >&2
	tail -n 40 "$tmp/console" >&2 || true
	[ "$rc" = 124 ] && return 124
	return 125
}

cmd_check() {
	need_tools
	cmd_prepare
	echo "rxe-vm: ready (kernel $(cat "$cache/version"), accel: $(pick_accel))"
}

case ${1:-} in
prepare) cmd_prepare ;;
run) shift; cmd_run "$@" ;;
check) cmd_check ;;
*) echo "usage: $0 prepare | check | run [--bin F] [--share D] [--out D] [--timeout S] SCRIPT" >&2
	exit 2 ;;
esac
