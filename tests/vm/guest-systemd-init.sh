#!/bin/busybox sh
# /init of the systemd test VM (see systemd-vm.sh): the host's own root, read-only over
# 9p, gives the VM its /usr and /etc, and the host's systemd boots it as PID 1 into
# loom-vmtest.target, whose service runs the test script and powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() {
	echo "guest: $*"
	[ -n "$ctl" ] && [ -d "/new$ctl" ] && { echo "guest: $*" >>"/new$ctl/output"; echo 125 >"/new$ctl/status"; }
	poweroff -f
}

for m in $(cat /mods/order); do
	case $m in rdma*|ib_*|iw_cm*|crc32*|dummy*|udp_tunnel*|ip6_udp*) continue ;; esac
	insmod "/mods/$m" || fail "insmod $m failed"
done
for w in $(cat /proc/cmdline); do
	case $w in loom_ctl=*) ctl=${w#loom_ctl=} ;; esac
done

# The root is a tmpfs; the host's /usr (Debian's merged /usr: /bin, /lib and /sbin are
# links into it) and /etc come read-only over 9p under tmpfs overlays (make install
# writes into them), and the folders
# the test names (loom_binds=) at their own paths. systemd's own mounts (/run, /dev/shm,
# cgroups) go on the tmpfs: on an overlay over 9p they fail with ENOSYS.
mkdir -p /new
mount -t tmpfs -o mode=0755 root /new || fail "tmpfs root failed"
mkdir -p /new/host /new/dev /new/proc /new/sys /new/run /new/tmp /new/var/tmp /new/root \
	/new/etc /new/usr /new/.etc/upper /new/.etc/work /new/mnt
chmod 1777 /new/tmp /new/var/tmp
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro root /new/host ||
	fail "mount of the host's root over 9p failed"
for l in bin sbin lib lib32 lib64 libx32; do
	[ -L "/new/host/$l" ] && ln -s "$(readlink "/new/host/$l")" "/new/$l"
done
mkdir -p /new/.usr/upper /new/.usr/work
mount -t overlay -o lowerdir=/new/host/usr,upperdir=/new/.usr/upper,workdir=/new/.usr/work \
	usr /new/usr || fail "overlay on /usr failed"
mount -t overlay -o lowerdir=/new/host/etc,upperdir=/new/.etc/upper,workdir=/new/.etc/work \
	etc /new/etc || fail "overlay on /etc failed"
for w in $(cat /proc/cmdline); do
	case $w in loom_binds=*) binds=${w#loom_binds=} ;; esac
done
for d in $(echo "$binds" | tr ',' ' '); do
	mkdir -p "/new$d"
	mount --bind "/new/host$d" "/new$d" || fail "bind of $d failed"
done
mkdir -p "/new$ctl"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 ctl "/new$ctl" || fail "mount of $ctl failed"
# What the host's root cannot give a booting VM: its own machine id, no fstab.
: >/new/etc/machine-id
: >/new/etc/fstab
cp -a /units/. /new/etc/systemd/system/
# The API file systems move along: systemd finds them mounted, as after any initramfs
# (the host's /sys and /proc seen through 9p would otherwise look mounted to it).
mount --move /dev /new/dev
mount --move /proc /new/proc
mount --move /sys /new/sys
exec switch_root /new /lib/systemd/systemd
