#!/usr/bin/env python3
"""topogen: generate InfiniBand fabrics as ibsim topology files.

Subcommands (each prints the file on stdout, or to -o FILE):
  fattree2  -k K [--leaves L] [--hosts-per-leaf H] [--spines S]
            2-level folded Clos of K-port switches: L leaves (default K) with H
            hosts (default K/2) and one uplink to each of S spines (default K/2).
  fattree3  -k K   full 3-level k-ary fat tree: K pods of K/2 leaves and K/2
            aggregation switches, (K/2)^2 cores, K^3/4 hosts. K=36: 11,664
            hosts, 1,620 switches.
  torus2d   -x X -y Y [--hosts-per-switch H]    wraparound 2D torus
  torus3d   -x X -y Y -z Z [--hosts-per-switch H]
            A dimension of size 2 gets two parallel links between its two
            switches (the + and - neighbours are the same switch); size 1 none.
  dragonfly -a A -p P --global H [-g G]
            G groups (default A*H+1) of A routers, all-to-all inside a group, P
            hosts and H global links per router; group g's global link t goes
            to group (g+t+1) mod G, so every pair of groups has one link when
            G = A*H+1.
  random    -n N -d D [--hosts-per-switch H]    random D-regular switch graph,
            simple and connected (retried until it is).
  parallel  -n N [--hosts-per-switch H]   two switches joined by N links.
  check     FILE   verify a file: unique names, ports in range, every link
            listed on both ends and agreeing.

Options for every generator: --degrade F removes that fraction of the
switch-to-switch links; --seed S seeds it (and random); --dup-guid gives the
last switch the GUID of the first one (ibsim loads such a file only with -I).

Output: every node is preceded by an explicit switchguid=/caguid= line, so
GUIDs never depend on ibsim's running counters. GUIDs: switch k (from 1) is
0x0002c90300000000 + k; host k is 0x0002c90400000000 + 0x100 * k, and its port
n is that plus n. The first node is always a host, because the SM attaches to
the first node of the file. Same arguments, byte-identical output.
"""

import argparse
import random
import sys

SWITCH_GUID_BASE = 0x0002C90300000000
HOST_GUID_BASE = 0x0002C90400000000


class Fabric:
    """Nodes and links; ports are 1-based. A link is stored once."""

    def __init__(self):
        self.nodes = []  # dicts: kind ("Switch"/"Hca"), ports, name, guid
        self.index = {}  # name -> node index
        self.links = {}  # (node, port) -> (node, port), both directions
        self.n_sw = 0
        self.n_host = 0

    def add(self, kind, name, ports):
        if name in self.index:
            raise ValueError(f"duplicate node name {name}")
        if kind == "Switch":
            self.n_sw += 1
            guid = SWITCH_GUID_BASE + self.n_sw
        else:
            self.n_host += 1
            guid = HOST_GUID_BASE + 0x100 * self.n_host
        self.index[name] = len(self.nodes)
        self.nodes.append({"kind": kind, "name": name, "ports": ports, "guid": guid})
        return name

    def link(self, a, pa, b, pb):
        ia, ib = self.index[a], self.index[b]
        for i, p in ((ia, pa), (ib, pb)):
            if not 1 <= p <= self.nodes[i]["ports"]:
                raise ValueError(f"port {p} out of range on {self.nodes[i]['name']}")
            if (i, p) in self.links:
                raise ValueError(f"port {p} of {self.nodes[i]['name']} used twice")
        self.links[(ia, pa)] = (ib, pb)
        self.links[(ib, pb)] = (ia, pa)

    def unlink(self, i, p):
        j, q = self.links.pop((i, p))
        del self.links[(j, q)]

    def switch_links(self):
        """Switch-to-switch links, each once, in a stable order."""
        out = []
        for (i, p), (j, q) in sorted(self.links.items()):
            if (i, p) < (j, q) and self.nodes[i]["kind"] == self.nodes[j]["kind"] == "Switch":
                out.append((i, p))
        return out

    def counts(self):
        return self.n_sw, self.n_host, len(self.links) // 2

    def write(self, f, header):
        # Hosts first: the first node is where the SM attaches.
        order = [i for i, n in enumerate(self.nodes) if n["kind"] != "Switch"]
        order += [i for i, n in enumerate(self.nodes) if n["kind"] == "Switch"]
        sw, hosts, links = self.counts()
        for line in header:
            f.write(f"# {line}\n")
        f.write(f"# {sw} switches, {hosts} hosts, {links} links\n\n")
        for i in order:
            n = self.nodes[i]
            key = "switchguid" if n["kind"] == "Switch" else "caguid"
            f.write(f"{key}=0x{n['guid']:016x}\n")
            f.write(f"{n['kind']}\t{n['ports']} \"{n['name']}\"\n")
            for p in range(1, n["ports"] + 1):
                if (i, p) in self.links:
                    j, q = self.links[(i, p)]
                    f.write(f"[{p}]\t\"{self.nodes[j]['name']}\"[{q}]\n")
            f.write("\n")


def fattree2(args):
    k = args.k
    leaves = args.leaves or k
    hpl = args.hosts_per_leaf if args.hosts_per_leaf is not None else k // 2
    spines = args.spines or k // 2
    if hpl + spines > k or leaves > k:
        raise ValueError("a leaf has hosts + spines ports and a spine one per leaf: both <= k")
    fab = Fabric()
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(leaves * hpl)]
    spine = [fab.add("Switch", f"spine{s + 1:03d}", k) for s in range(spines)]
    for l in range(leaves):
        leaf = fab.add("Switch", f"leaf{l + 1:03d}", k)
        for h in range(hpl):
            fab.link(leaf, h + 1, hosts[l * hpl + h], 1)
        for s in range(spines):
            fab.link(leaf, hpl + s + 1, spine[s], l + 1)
    return fab


def fattree3(args):
    k = args.k
    if k % 2:
        raise ValueError("fattree3 needs an even k")
    half = k // 2
    fab = Fabric()
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(k * half * half)]
    core = [fab.add("Switch", f"core{c + 1:04d}", k) for c in range(half * half)]
    for pod in range(k):
        agg = [fab.add("Switch", f"p{pod + 1:02d}agg{a + 1:02d}", k) for a in range(half)]
        for a in range(half):
            for m in range(half):
                fab.link(agg[a], half + m + 1, core[a * half + m], pod + 1)
        for e in range(half):
            edge = fab.add("Switch", f"p{pod + 1:02d}leaf{e + 1:02d}", k)
            for h in range(half):
                fab.link(edge, h + 1, hosts[(pod * half + e) * half + h], 1)
            for a in range(half):
                fab.link(edge, half + a + 1, agg[a], e + 1)
    return fab


def torus(dims, hps):
    fab = Fabric()
    cells = 1
    for d in dims:
        cells *= d

    def coord(i):
        c = []
        for d in dims:
            c.append(i % d)
            i //= d
        return c

    def idx(c):
        i, mul = 0, 1
        for v, d in zip(c, dims):
            i += v * mul
            mul *= d
        return i

    radix = hps + 2 * len(dims)
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(cells * hps)]
    names = [f"sw-{'-'.join(str(v) for v in coord(i))}" for i in range(cells)]
    for i in range(cells):
        fab.add("Switch", names[i], radix)
        for h in range(hps):
            fab.link(names[i], h + 1, hosts[i * hps + h], 1)
    # Port hps+2d+1 goes to the + neighbour in dimension d, hps+2d+2 to the -.
    for i in range(cells):
        for d, size in enumerate(dims):
            if size < 2:
                continue
            c = coord(i)
            c[d] = (c[d] + 1) % size
            fab.link(names[i], hps + 2 * d + 1, names[idx(c)], hps + 2 * d + 2)
    return fab


def dragonfly(args):
    a, p, h = args.a, args.p, args.global_links
    g = args.g or a * h + 1
    if g > a * h + 1 or g < 2:
        raise ValueError("dragonfly needs 2 <= groups <= a*global+1")
    fab = Fabric()
    radix = p + (a - 1) + h
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(g * a * p)]
    r = [[fab.add("Switch", f"g{gi + 1:02d}r{ri + 1:02d}", radix) for ri in range(a)]
         for gi in range(g)]
    for gi in range(g):
        for ri in range(a):
            for hi in range(p):
                fab.link(r[gi][ri], hi + 1, hosts[(gi * a + ri) * p + hi], 1)
            for rj in range(ri + 1, a):
                # local port of router x toward router y (skipping itself)
                fab.link(r[gi][ri], p + rj, r[gi][rj], p + ri + 1)

    def global_port(t):
        return t // h, p + (a - 1) + t % h + 1

    for gi in range(g):
        for t in range(g - 1):
            gj = (gi + t + 1) % g
            if gj < gi:
                continue  # linked from the other group already
            tj = g - t - 2
            ri, pi = global_port(t)
            rj, pj = global_port(tj)
            fab.link(r[gi][ri], pi, r[gj][rj], pj)
    return fab


def random_regular(args, rng):
    n, d, hps = args.n, args.d, args.hosts_per_switch
    if n * d % 2 or d >= n:
        raise ValueError("random needs n*d even and d < n")
    for _ in range(1000):
        stubs = [s for s in range(n) for _ in range(d)]
        rng.shuffle(stubs)
        pairs = [tuple(sorted(stubs[i:i + 2])) for i in range(0, len(stubs), 2)]
        if any(x == y for x, y in pairs) or len(set(pairs)) != len(pairs):
            continue
        adj = {s: [] for s in range(n)}
        for x, y in pairs:
            adj[x].append(y)
            adj[y].append(x)
        seen, todo = {0}, [0]
        while todo:
            for y in adj[todo.pop()]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        if len(seen) == n:
            break
    else:
        raise ValueError("no simple connected random graph found in 1000 tries")
    fab = Fabric()
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(n * hps)]
    names = [fab.add("Switch", f"sw{s + 1:04d}", hps + d) for s in range(n)]
    used = [hps] * n
    for s in range(n):
        for hh in range(hps):
            fab.link(names[s], hh + 1, hosts[s * hps + hh], 1)
    for x, y in sorted(pairs):
        used[x] += 1
        used[y] += 1
        fab.link(names[x], used[x], names[y], used[y])
    return fab


def parallel(args):
    n, hps = args.n, args.hosts_per_switch
    fab = Fabric()
    hosts = [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(2 * hps)]
    a = fab.add("Switch", "swA", hps + n)
    b = fab.add("Switch", "swB", hps + n)
    for i in range(hps):
        fab.link(a, i + 1, hosts[i], 1)
        fab.link(b, i + 1, hosts[hps + i], 1)
    for i in range(n):
        fab.link(a, hps + i + 1, b, hps + i + 1)
    return fab


def degrade(fab, fraction, rng):
    links = fab.switch_links()
    for i, p in sorted(rng.sample(links, round(fraction * len(links)))):
        fab.unlink(i, p)


def check(path):
    """Verify one of our files (ibsim's short form); returns a list of problems."""
    problems, nodes, ports = [], {}, {}
    cur = None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#") or "=" in line.split('"')[0]:
                if not line.strip():
                    cur = None
                continue
            if line.startswith(("Switch", "Hca", "Ca")):
                name = line.split('"')[1]
                if name in nodes:
                    problems.append(f"{path}:{no}: duplicate node name {name}")
                nodes[name] = int(line.split()[1])
                cur = name
            elif line.startswith("["):
                if cur is None:
                    problems.append(f"{path}:{no}: port line outside a node")
                    continue
                p = int(line[1:line.index("]")])
                rest = line[line.index('"') + 1:]
                rname, rport = rest.split('"')[0], int(rest.split("[")[1].split("]")[0])
                if not 1 <= p <= nodes[cur]:
                    problems.append(f"{path}:{no}: port {p} out of range on {cur}")
                ports[(cur, p)] = (rname, rport, no)
            else:
                problems.append(f"{path}:{no}: unknown line {line!r}")
    for (name, p), (rname, rport, no) in ports.items():
        if rname not in nodes:
            problems.append(f"{path}:{no}: {name}[{p}] links to unknown node {rname}")
        elif ports.get((rname, rport), (None, None))[:2] != (name, p):
            problems.append(f"{path}:{no}: {name}[{p}] -> {rname}[{rport}] not listed back")
    return problems


def main(argv):
    ap = argparse.ArgumentParser(prog="topogen.py", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-o", "--output")
    common.add_argument("--seed", type=int, default=1)
    common.add_argument("--degrade", type=float, default=0.0)
    common.add_argument("--dup-guid", action="store_true")
    s = sub.add_parser("fattree2", parents=[common])
    s.add_argument("-k", type=int, required=True)
    s.add_argument("--leaves", type=int)
    s.add_argument("--hosts-per-leaf", type=int)
    s.add_argument("--spines", type=int)
    s = sub.add_parser("fattree3", parents=[common])
    s.add_argument("-k", type=int, required=True)
    for name, dims in (("torus2d", "xy"), ("torus3d", "xyz")):
        s = sub.add_parser(name, parents=[common])
        for d in dims:
            s.add_argument(f"-{d}", type=int, required=True)
        s.add_argument("--hosts-per-switch", type=int, default=1)
    s = sub.add_parser("dragonfly", parents=[common])
    s.add_argument("-a", type=int, required=True)
    s.add_argument("-p", type=int, required=True)
    s.add_argument("--global", dest="global_links", type=int, required=True)
    s.add_argument("-g", type=int)
    s = sub.add_parser("random", parents=[common])
    s.add_argument("-n", type=int, required=True)
    s.add_argument("-d", type=int, required=True)
    s.add_argument("--hosts-per-switch", type=int, default=1)
    s = sub.add_parser("parallel", parents=[common])
    s.add_argument("-n", type=int, required=True)
    s.add_argument("--hosts-per-switch", type=int, default=2)
    s = sub.add_parser("check")
    s.add_argument("file")
    args = ap.parse_args(argv[1:])

    if args.cmd == "check":
        problems = check(args.file)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0

    rng = random.Random(args.seed)
    try:
        if args.cmd == "fattree2":
            fab = fattree2(args)
        elif args.cmd == "fattree3":
            fab = fattree3(args)
        elif args.cmd == "torus2d":
            fab = torus([args.x, args.y], args.hosts_per_switch)
        elif args.cmd == "torus3d":
            fab = torus([args.x, args.y, args.z], args.hosts_per_switch)
        elif args.cmd == "dragonfly":
            fab = dragonfly(args)
        elif args.cmd == "random":
            fab = random_regular(args, rng)
        else:
            fab = parallel(args)
        if args.degrade:
            degrade(fab, args.degrade, rng)
    except ValueError as e:
        print(f"topogen.py {args.cmd}: {e}", file=sys.stderr)
        return 1
    header = ["generated by: topogen.py " + " ".join(a for a in argv[1:] if a != "-o"
                                                      and a != args.output)]
    if args.dup_guid:
        sws = [n for n in fab.nodes if n["kind"] == "Switch"]
        sws[-1]["guid"] = sws[0]["guid"]
        header.append(f"duplicate GUID injected: {sws[-1]['name']} has the GUID of "
                      f"{sws[0]['name']}; start ibsim with -I to load this file")
    out = open(args.output, "w") if args.output else sys.stdout
    fab.write(out, header)
    if args.output:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
