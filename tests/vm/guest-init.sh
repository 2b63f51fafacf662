#!/bin/busybox sh
# /init of the rxe test VM (see rxe-vm.sh): load the modules, mount the host's 9p
# folders at their own paths, make rxe0 on a dummy netdev, run the host's script,
# write its output and status into the control folder, power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp

fail() {
	echo "guest: $*"
	[ -n "$ctl" ] && [ -d "$ctl" ] && { echo "guest: $*" >>"$ctl/output"; echo 125 >"$ctl/status"; }
	poweroff -f
}

for m in $(cat /mods/order); do
	insmod "/mods/$m" || fail "insmod $m failed"
done

for w in $(cat /proc/cmdline); do
	case $w in
	loom_mounts=*) mounts=${w#loom_mounts=} ;;
	loom_ctl=*) ctl=${w#loom_ctl=} ;;
	esac
done
# The kernel hands "a:b c:d" over as separate words after the first: collect them.
mounts=$(tr ' ' '\n' </proc/cmdline | sed -n '/^loom_mounts=/,/^loom_ctl=/p' |
	sed 's/^loom_mounts=//; /^loom_ctl=/d')
for pair in $mounts; do
	tag=${pair%%:*}
	dir=${pair#*:}
	mkdir -p "$dir"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose "$tag" "$dir" ||
		fail "mount 9p $tag at $dir failed"
done
[ -d "$ctl" ] || fail "control folder $ctl not mounted"

# TEST-NET-1 on a dummy netdev: the VM has no NIC, so nothing leaves it.
ip link set lo up
ip link add rxe_net type dummy || fail "ip link add dummy failed"
ip addr add 192.0.2.1/24 dev rxe_net
ip link set rxe_net up
rdma link add rxe0 type rxe netdev rxe_net || fail "rdma link add rxe0 failed"
i=0
while [ "$(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null)" != "4: ACTIVE" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "rxe0 port 1 not ACTIVE after 10 s"
	sleep 0.1
done
# RoCE v2 over IPv4: the GID table entry with the v4-mapped address. Read the low
# slots with shell builtins only: reading all 1,024 costs seconds under emulation.
gid_index=
i=0
while [ $i -lt 16 ]; do
	g=$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i 2>/dev/null)
	t=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)
	case "$g/$t" in
	0000:0000:0000:0000:0000:ffff:*/RoCE\ v2) gid_index=$i; break ;;
	esac
	i=$((i + 1))
done
[ -n "$gid_index" ] || fail "no RoCE v2 IPv4 GID on rxe0"
export LOOM_GID_INDEX=$gid_index LOOM_RXE_IP=192.0.2.1

cd /tmp
sh "$ctl/script" >"$ctl/output" 2>&1
echo $? >"$ctl/status"
sync
poweroff -f
