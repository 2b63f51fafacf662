#!/usr/bin/env python3
"""topogen: generate InfiniBand fabrics as ibsim topology files.

Subcommands (each prints the file on stdout, or writes it to -o FILE):
  fattree2  -k K [--leaves L] [--hosts-per-leaf H] [--spines S]
            2-level folded Clos of K-port switches: L leaves (default K), each
            with H hosts (default K/2) and one uplink to each of S spines
            (default K/2); spine port l goes to leaf l. Needs H + S <= K, L <= K.
  fattree3  -k K [--pods P]
            full 3-level k-ary fat tree (K even): K pods of K/2 leaves and K/2
            aggregation switches, (K/2)^2 cores, K^3/4 hosts, 5K^2/4 switches.
            K=36: 11,664 hosts and 1,620 switches (well under a second).
            --pods P (<= K) builds only P pods, the cores' other ports left
            free: K=36 P=12 is 3,888 hosts and 756 switches.
  torus2d   -x X -y Y [--hosts-per-switch H]
  torus3d   -x X -y Y -z Z [--hosts-per-switch H]
            wraparound torus, H hosts per switch (default 1), switch radix
            H + 2 * dimensions. A dimension of size 2 gets two deliberately
            parallel links between its two switches (the + and the - neighbour
            are the same switch); a dimension of size 1 gets no link.
  dragonfly -a A -p P -h H [-g G]     (-h is --global; use --help for help)
            G groups (default A*H+1) of A routers, all-to-all inside a group,
            P hosts and H global links per router. Group g's global link t
            (t = 0 .. G-2, on router t // H) goes to group (g+t+1) mod G, so
            every pair of groups has exactly one link; with G < A*H+1 the
            highest global ports stay unused.
  random    -n N -d D [--seed S] [--hosts-per-switch H]
            random D-regular graph of N switches, simple and connected
            (drawn again until it is), H hosts per switch (default 1).
  parallel  -n N [--hosts-per-switch H]
            two switches joined by N parallel links, H hosts on each (default 2).
  check     [-I] FILE...
            read files the way ibsim does and report, as FILE:LINE: messages,
            what ibsim would refuse or silently get wrong: duplicate or
            reserved node names, ports out of range, links not listed on both
            ends or disagreeing, a missing remote port, lines ibsim swallows,
            a first node that is not a host, duplicate GUIDs (not with -I, as
            ibsim -I) and header counts that do not match. Exit 1 on problems.

Options for every generator:
  -o FILE        write FILE instead of stdout (the header omits this option).
  --seed S       seed of random.Random for random and --degrade (default 1).
  --degrade F    remove the fraction F of the switch-to-switch links (both
                 ends), chosen by the seeded generator. High fractions can
                 disconnect the fabric, unless:
  --keep-connected  with --degrade: skip links whose removal would cut the
                 fabric in two (fails if not enough links can go).
  --dup-guid [switch|host]
                 give the last switch (default) the GUID of the first one (a
                 second switchguid= line repeating an earlier value); with
                 host, the last host takes the first host's caguid=, so its
                 node and port GUIDs are the first host's (ibsim numbers a
                 CA's ports from its node GUID). ibsim refuses such a file
                 unless started with -I (ignore duplicates); the file's
                 header says so.

Output: a '#' header with the command line and the counts, then hosts, then
switches, each preceded by an explicit switchguid=/caguid= line so that no
GUID depends on ibsim's running counters. GUID scheme, nodes numbered from 1
in the order the generator creates them:
  switch k:  0x0002c90300000000 + k
  host k:    0x0002c90400000000 + 0x100 * k; its port n is that + n.
The first node is always a host: the SM (umad2sim's client 0) attaches to the
first node of the file. Same arguments, byte-identical output.
"""

import argparse
import random
import re
import shlex
import sys

SWITCH_GUID_BASE = 0x0002C90300000000
HOST_GUID_BASE = 0x0002C90400000000
HOST_GUID_STRIDE = 0x100
MAX_PORTS = 254         # IB NumPorts; a CA's ports must fit HOST_GUID_STRIDE
IBSIM_NODEID_MAX = 64   # ibsim's NODEIDLEN (65) less the NUL
IBSIM_LINE_MAX = 255    # ibsim's MAXLINE (256) less the NUL


class Fabric:
    """Nodes and links of a fabric; ports are 1-based."""

    def __init__(self):
        self.nodes = []  # dicts: kind ("Switch"/"Hca"), name, ports, guid
        self.index = {}  # name -> node index
        self.links = {}  # (node, port) -> (node, port), both directions
        self.n_sw = 0
        self.n_host = 0

    def add(self, kind, name, ports):
        if name in self.index:
            raise ValueError(f"duplicate node name {name}")
        if not 1 <= ports <= MAX_PORTS:
            raise ValueError(f"{name} would have {ports} ports (1..{MAX_PORTS})")
        if kind == "Switch":
            self.n_sw += 1
            guid = SWITCH_GUID_BASE + self.n_sw
        else:
            self.n_host += 1
            guid = HOST_GUID_BASE + HOST_GUID_STRIDE * self.n_host
        self.index[name] = len(self.nodes)
        self.nodes.append({"kind": kind, "name": name, "ports": ports, "guid": guid})
        return name

    def link(self, a, pa, b, pb):
        ends = ((self.index[a], pa), (self.index[b], pb))
        for i, p in ends:
            node = self.nodes[i]
            if not 1 <= p <= node["ports"]:
                raise ValueError(f"port {p} out of range on {node['name']}")
            if (i, p) in self.links:
                raise ValueError(f"port {p} of {node['name']} used twice")
        self.links[ends[0]] = ends[1]
        self.links[ends[1]] = ends[0]

    def unlink(self, i, p):
        j, q = self.links.pop((i, p))
        del self.links[(j, q)]

    def switch_links(self):
        """Switch-to-switch links, each once as its lower end, in a stable order."""
        return [(i, p) for (i, p), (j, q) in sorted(self.links.items())
                if (i, p) < (j, q)
                and self.nodes[i]["kind"] == self.nodes[j]["kind"] == "Switch"]

    def counts(self):
        return self.n_sw, self.n_host, len(self.links) // 2

    def adjacency(self):
        """Node index -> {neighbour index: number of links}."""
        adj = {i: {} for i in range(len(self.nodes))}
        for (i, _), (j, _) in self.links.items():
            adj[i][j] = adj[i].get(j, 0) + 1
        return adj

    def render(self, header):
        """The file as one string: header comments, then hosts, then switches."""
        sw, hosts, links = self.counts()
        out = [f"# {line}\n" for line in header]
        out.append(f"# {sw} switches, {hosts} hosts, {links} links\n\n")
        # Hosts first: the first node is where the SM attaches.
        order = [i for i, n in enumerate(self.nodes) if n["kind"] != "Switch"]
        order += [i for i, n in enumerate(self.nodes) if n["kind"] == "Switch"]
        for i in order:
            out.append(self._record(i))
        return "".join(out)

    def _record(self, i):
        n = self.nodes[i]
        key = "switchguid" if n["kind"] == "Switch" else "caguid"
        lines = [f"{key}=0x{n['guid']:016x}\n", f"{n['kind']}\t{n['ports']} \"{n['name']}\"\n"]
        for p in range(1, n["ports"] + 1):
            if (i, p) in self.links:
                j, q = self.links[(i, p)]
                lines.append(f"[{p}]\t\"{self.nodes[j]['name']}\"[{q}]\n")
        lines.append("\n")  # a blank line ends a record for ibsim
        return "".join(lines)


def add_hosts(fab, count):
    return [fab.add("Hca", f"h{i + 1:05d}", 1) for i in range(count)]


def need(condition, message):
    if not condition:
        raise ValueError(message)


# ---------------------------------------------------------------- generators

def fattree2(args, rng):
    k = args.k
    leaves = k if args.leaves is None else args.leaves
    hpl = k // 2 if args.hosts_per_leaf is None else args.hosts_per_leaf
    spines = k // 2 if args.spines is None else args.spines
    need(k >= 2 and leaves >= 1 and hpl >= 0 and spines >= 0, "sizes must be positive")
    need(hpl + spines <= k, "a leaf has hosts + spines ports: must be <= k")
    need(leaves <= k, "a spine has one port per leaf: leaves must be <= k")
    fab = Fabric()
    hosts = add_hosts(fab, leaves * hpl)
    spine = [fab.add("Switch", f"spine{s + 1:03d}", k) for s in range(spines)]
    for l in range(leaves):
        leaf = fab.add("Switch", f"leaf{l + 1:03d}", k)
        for h in range(hpl):
            fab.link(leaf, h + 1, hosts[l * hpl + h], 1)
        for s in range(spines):
            fab.link(leaf, hpl + s + 1, spine[s], l + 1)
    return fab


def fattree3(args, rng):
    k = args.k
    need(k >= 2 and k % 2 == 0, "fattree3 needs an even k >= 2")
    pods = k if args.pods is None else args.pods
    need(1 <= pods <= k, "fattree3 needs 1 <= --pods <= k")
    half = k // 2
    fab = Fabric()
    hosts = add_hosts(fab, pods * half * half)
    core = [fab.add("Switch", f"core{c + 1:04d}", k) for c in range(half * half)]
    for pod in range(pods):
        # Aggregation switch a of every pod: ports 1..k/2 down to the pod's
        # leaves, ports k/2+1..k up to cores a*k/2 .. a*k/2+k/2-1 (core port = pod).
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
    need(all(d >= 1 for d in dims) and hps >= 0, "sizes must be positive")
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

    fab = Fabric()
    radix = hps + 2 * len(dims)
    hosts = add_hosts(fab, cells * hps)
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


def torus2d(args, rng):
    return torus([args.x, args.y], args.hosts_per_switch)


def torus3d(args, rng):
    return torus([args.x, args.y, args.z], args.hosts_per_switch)


def dragonfly(args, rng):
    a, p, h = args.a, args.p, args.global_links
    g = a * h + 1 if args.g is None else args.g
    need(a >= 1 and p >= 0 and h >= 1, "sizes must be positive")
    need(2 <= g <= a * h + 1, "dragonfly needs 2 <= groups <= a*h+1")
    fab = Fabric()
    # Router ports: 1..p hosts, p+1..p+a-1 the other routers of the group
    # (router j at p+j+1, skipping itself), then h global ports.
    radix = p + (a - 1) + h
    hosts = add_hosts(fab, g * a * p)
    r = [[fab.add("Switch", f"g{gi + 1:02d}r{ri + 1:02d}", radix) for ri in range(a)]
         for gi in range(g)]
    for gi in range(g):
        for ri in range(a):
            for hi in range(p):
                fab.link(r[gi][ri], hi + 1, hosts[(gi * a + ri) * p + hi], 1)
            for rj in range(ri + 1, a):
                fab.link(r[gi][ri], p + rj, r[gi][rj], p + ri + 1)

    def global_port(t):
        """Router and port of a group's global link t."""
        return t // h, p + (a - 1) + t % h + 1

    for gi in range(g):
        for t in range(g - 1):
            gj = (gi + t + 1) % g
            if gj < gi:
                continue  # linked from the other group already
            tj = g - t - 2  # group gi is link (gi - gj - 1) mod g of group gj
            ri, pi = global_port(t)
            rj, pj = global_port(tj)
            fab.link(r[gi][ri], pi, r[gj][rj], pj)
    return fab


def regular_pairs(n, d, rng):
    """Edges of a random simple d-regular graph on n nodes, or None if this
    attempt gets stuck (Steger-Wormald: join two random free stubs whose
    nodes differ and are not joined yet, until no stub is left)."""
    stubs = [s for s in range(n) for _ in range(d)]
    pairs = set()

    def fits(x, y):
        return x != y and (min(x, y), max(x, y)) not in pairs

    while stubs:
        i = rng.randrange(len(stubs))
        x = stubs[i]
        j = None
        for _ in range(32):  # a few blind tries, then look at every stub
            c = rng.randrange(len(stubs))
            if fits(x, stubs[c]):
                j = c
                break
        if j is None:
            candidates = [c for c, y in enumerate(stubs) if fits(x, y)]
            if not candidates:
                return None
            j = rng.choice(candidates)
        y = stubs[j]
        pairs.add((min(x, y), max(x, y)))
        for c in sorted((i, j), reverse=True):
            stubs[c] = stubs[-1]
            stubs.pop()
    return pairs


def connected(n, pairs):
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
    return len(seen) == n


def random_regular(args, rng):
    n, d, hps = args.n, args.d, args.hosts_per_switch
    need(n >= 2 and 1 <= d < n and hps >= 0, "random needs n >= 2, 1 <= d < n")
    need(n * d % 2 == 0, "random needs n*d even")
    for _ in range(1000):
        pairs = regular_pairs(n, d, rng)
        if pairs is not None and connected(n, pairs):
            break
    else:
        raise ValueError("no simple connected random graph found in 1000 tries")
    fab = Fabric()
    hosts = add_hosts(fab, n * hps)
    names = [fab.add("Switch", f"sw{s + 1:04d}", hps + d) for s in range(n)]
    for s in range(n):
        for hh in range(hps):
            fab.link(names[s], hh + 1, hosts[s * hps + hh], 1)
    used = [hps] * n
    for x, y in sorted(pairs):
        used[x] += 1
        used[y] += 1
        fab.link(names[x], used[x], names[y], used[y])
    return fab


def parallel(args, rng):
    n, hps = args.n, args.hosts_per_switch
    need(n >= 1 and hps >= 0, "sizes must be positive")
    fab = Fabric()
    hosts = add_hosts(fab, 2 * hps)
    a = fab.add("Switch", "swA", hps + n)
    b = fab.add("Switch", "swB", hps + n)
    for i in range(hps):
        fab.link(a, i + 1, hosts[i], 1)
        fab.link(b, i + 1, hosts[hps + i], 1)
    for i in range(n):
        fab.link(a, hps + i + 1, b, hps + i + 1)
    return fab


# ---------------------------------------------------------------- variants

def still_reachable(adj, a, b):
    """Whether b can be reached from a without the (single) link a-b."""
    seen, todo = {a}, [a]
    for x in todo:  # breadth first: fat trees have short detours
        for y, n in adj[x].items():
            if n and y not in seen and (x, y) not in ((a, b), (b, a)):
                if y == b:
                    return True
                seen.add(y)
                todo.append(y)
    return False


def degrade(fab, fraction, rng, keep_connected=False):
    """Remove round(fraction * switch links) of them; a header line. With
    keep_connected, links whose loss would cut the fabric are skipped."""
    links = fab.switch_links()
    want = round(fraction * len(links))
    if not keep_connected:
        for i, p in sorted(rng.sample(links, want)):
            fab.unlink(i, p)
        return f"degraded: {want} of {len(links)} switch-to-switch links removed"
    adj = fab.adjacency()
    gone = 0
    for i, p in rng.sample(links, len(links)):
        if gone == want:
            break
        j, _ = fab.links[(i, p)]
        if adj[i][j] > 1 or still_reachable(adj, i, j):
            adj[i][j] -= 1
            adj[j][i] -= 1
            fab.unlink(i, p)
            gone += 1
    need(gone == want, f"--keep-connected: only {gone} of the {want} links can go")
    return (f"degraded: {want} of {len(links)} switch-to-switch links removed, "
            "fabric kept connected")


def dup_guid(fab, what):
    """Give the last switch (what == "switch"; a host if there are fewer than
    two switches) or the last host (what == "host") the GUID of the first of
    its kind; a header line."""
    kinds = ("Switch", "Hca") if what == "switch" else ("Hca",)
    for kind in kinds:
        same = [n for n in fab.nodes if n["kind"] == kind]
        if len(same) >= 2:
            same[-1]["guid"] = same[0]["guid"]
            return (f"duplicate GUID injected: {same[-1]['name']} has the GUID of "
                    f"{same[0]['name']}; start ibsim with -I to load this file")
    raise ValueError(f"--dup-guid {what} needs two nodes of one kind")


# ---------------------------------------------------------------- check

class Checker:
    """Reads an ibsim topology file the way ibsim's parse_netconf does and
    collects problems as "FILE:LINE: message"."""

    def __init__(self, path, ignore_duplicate=False):
        self.path = path
        self.ignore_duplicate = ignore_duplicate
        self.problems = []
        self.nodes = {}      # name -> {"kind", "ports", "line"}
        self.order = []      # names in file order
        self.ports = {}      # (name, port) -> (remote name, remote port, line)
        self.guids = {}      # node GUID -> name
        # ibsim's GUID counters: absolute base and current value per type.
        self.base = {"Switch": 0x200000, "Hca": 0x100000, "Rt": 0xFFFFFFFFFFFFFFFF}
        self.next_guid = dict(self.base)
        self.header_counts = None

    def problem(self, no, msg):
        self.problems.append((no, msg))

    def run(self):
        try:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
        except OSError as e:
            return [f"{self.path}: {e.strerror}"]
        if lines and lines[-1] == "":
            lines.pop()
        no = 0
        while no < len(lines):
            no = self.top_line(lines, no)
        self.check_links()
        self.check_summary()
        return [f"{self.path}:{no}: {msg}"
                for no, msg in sorted(self.problems, key=lambda p: p[0])]

    # One top-level line (1-based number no+1); returns the next index.
    def top_line(self, lines, no):
        line = lines[no]
        if len(line) > IBSIM_LINE_MAX:
            self.problem(no + 1, f"line longer than {IBSIM_LINE_MAX} characters: ibsim splits it")
        m = re.match(r"# (\d+) switch(?:es)?, (\d+) hosts?, (\d+) links?$", line)
        if m and self.header_counts is None:
            self.header_counts = (no + 1, tuple(int(v) for v in m.groups()))
        # Keyword order and prefixes exactly as parse_netconf tests them.
        for prefix, kind in (("Switch", "Switch"), ("Hca", "Hca"), ("Ca", "Hca"), ("Rt", "Rt")):
            if line.startswith(prefix):
                return self.node(lines, no, kind, 6 if kind == "Switch" else 3)
        for prefix, kind in (("switchguid", "Switch"), ("hcaguids", "Hca"),
                             ("caguid", "Hca"), ("rtguid", "Rt")):
            if line.startswith(prefix):
                self.guid_line(no + 1, line, kind)
                return no + 1
        if line.startswith(("vendid", "devid", "sysimgguid", "width", "speed",
                            "extspeed", "pdebug")):
            return no + 1
        if line.startswith(("module", "include", "do")):
            self.problem(no + 1, "module/include/do lines are not supported by check "
                         "('do...' is run as a console command by ibsim)")
        elif line.startswith(("[", "@")):
            self.problem(no + 1, "port line outside a node record: ibsim ignores it")
        elif line.strip() and not line.startswith("#"):
            self.problem(no + 1, "line ignored by ibsim")
        return no + 1

    def guid_line(self, no, line, kind):
        # ibsim: the first '=' (else '+'), then strtoull(..., 0): 0x hex, 0 octal.
        m = re.search(r"([=+])\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)", line)
        if not m:
            self.problem(no, "bad GUID assignment")
            return
        text = m.group(2)
        value = int(text, 16 if text[:2].lower() == "0x" else 8 if text[0] == "0" else 10)
        if m.group(1) == "=":
            self.base[kind] = value
            value = 0
        self.next_guid[kind] = self.base[kind] + value

    def node(self, lines, no, kind, skip):
        header = lines[no]
        name_m = re.search(r'"([^"]*)"', header)
        digits = re.search(r"\d+", header[skip:])
        ports = int(digits.group()) if digits else 0
        if name_m is None:
            self.problem(no + 1, "node header without a quoted node id")
            return no + 1
        name = name_m.group(1)
        if digits is None or skip + digits.start() > name_m.start():
            self.problem(no + 1, "no port count before the node id (ibsim takes "
                         "the first digits it finds, even in the name)")
        if not 1 <= ports <= MAX_PORTS:
            self.problem(no + 1, f"{name}: port count {ports} not in 1..{MAX_PORTS}")
        if "#" in name or "@" in name:
            self.problem(no + 1, f"node id {name!r}: '#' and '@' are reserved")
        if len(name) > IBSIM_NODEID_MAX:
            self.problem(no + 1, f"node id {name!r} longer than {IBSIM_NODEID_MAX}")
        if name in self.nodes:
            self.problem(no + 1, f"duplicate node id {name} (first at line "
                         f"{self.nodes[name]['line']})")
        else:
            self.nodes[name] = {"kind": kind, "ports": ports, "line": no + 1}
            self.order.append(name)
        self.assign_guid(no + 1, name, kind, ports)
        return self.records_ports(lines, no + 1, name, kind, ports)

    def assign_guid(self, no, name, kind, ports):
        guid = self.next_guid[kind]
        if guid in self.guids and not self.ignore_duplicate:
            self.problem(no, f"{name}: GUID 0x{guid:016x} already used by "
                         f"{self.guids[guid]} (ibsim loads this only with -I)")
        self.guids.setdefault(guid, name)
        self.next_guid[kind] = guid + (1 if kind == "Switch" else ports + 1)

    # Port lines of a record, as parse_ports reads them: at most `ports`
    # of them; '#' lines are skipped; any other line ends the record and is
    # consumed (so a non-blank one is lost).
    def records_ports(self, lines, no, name, kind, ports):
        left = ports
        while left and no < len(lines):
            line = lines[no]
            if line.startswith("#"):
                no += 1
                continue
            if not line.startswith(("[", "@")):
                if line.strip():
                    self.problem(no + 1, f"ends the record of {name} and is swallowed "
                                 "by ibsim: put a blank line before it")
                return no + 1
            self.port_line(no + 1, line, name, kind, ports)
            left -= 1
            no += 1
        return no

    def port_line(self, no, line, name, kind, ports):
        if line.startswith("@"):
            self.problem(no, "port aliases ('@' lines) are not supported by check")
            return
        m = re.match(r'\[(\d+)\]\s*"([^"]*)"(\[(\d+)\])?', line)
        if m is None:
            self.problem(no, "cannot read this port line: want [PORT] \"REMOTE\"[PORT]")
            return
        port, rname = int(m.group(1)), m.group(2)
        if m.group(3) is None:
            self.problem(no, f"{name}[{port}]: no [port] right after the remote id: "
                         "ibsim takes port 1")
        rport = int(m.group(4)) if m.group(4) else 1
        if not 1 <= port <= ports:
            self.problem(no, f"{name}: port {port} not in 1..{ports}")
        if (name, port) in self.ports:
            self.problem(no, f"{name}[{port}] listed twice")
        self.ports[(name, port)] = (rname, rport, no)

    def check_links(self):
        for (name, port), (rname, rport, no) in self.ports.items():
            if rname not in self.nodes:
                self.problem(no, f"{name}[{port}] links to unknown node {rname}")
            elif (rname, rport) == (name, port):
                self.problem(no, f"{name}[{port}] is linked to itself")
            elif not 1 <= rport <= self.nodes[rname]["ports"]:
                self.problem(no, f"{name}[{port}] -> {rname}[{rport}]: {rname} has "
                             f"ports 1..{self.nodes[rname]['ports']}")
            elif self.ports.get((rname, rport), (None, None))[:2] != (name, port):
                back = self.ports.get((rname, rport))
                said = f"{back[0]}[{back[1]}]" if back else "nothing"
                self.problem(no, f"{name}[{port}] -> {rname}[{rport}], but "
                             f"{rname}[{rport}] lists {said}")

    def check_summary(self):
        if self.order and self.nodes[self.order[0]]["kind"] == "Switch":
            self.problem(self.nodes[self.order[0]]["line"],
                         "the first node is a switch: the SM attaches to the first node, "
                         "put a host first")
        if not self.order:
            self.problem(1, "no nodes")
        if self.header_counts:
            no, want = self.header_counts
            if want != self.counts():
                self.problem(no, "header says {} switches, {} hosts, {} links; the file "
                             "has {}, {}, {}".format(*want, *self.counts()))

    def counts(self):
        sw = sum(1 for n in self.nodes.values() if n["kind"] == "Switch")
        return sw, len(self.nodes) - sw, len(self.ports) // 2


def check(args):
    status = 0
    for path in args.files:
        checker = Checker(path, args.ignore_duplicate)
        problems = checker.run()
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            status = 1
        else:
            print("{}: ok: {} switches, {} hosts, {} links".format(path, *checker.counts()))
    return status


# ---------------------------------------------------------------- command line

GENERATORS = {
    "fattree2": fattree2, "fattree3": fattree3, "torus2d": torus2d,
    "torus3d": torus3d, "dragonfly": dragonfly, "random": random_regular,
    "parallel": parallel,
}


def build_parser():
    ap = argparse.ArgumentParser(
        prog="topogen.py", description=__doc__.split("\n")[0], allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n", 1)[1])
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="SUBCOMMAND")
    common = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    common.add_argument("-o", "--output", metavar="FILE", help="write FILE, not stdout")
    common.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    common.add_argument("--degrade", type=float, default=0.0, metavar="FRACTION",
                        help="remove this fraction of the switch-to-switch links")
    common.add_argument("--keep-connected", action="store_true",
                        help="with --degrade: never remove a link that would cut the fabric")
    common.add_argument("--dup-guid", nargs="?", const="switch", choices=("switch", "host"),
                        metavar="switch|host",
                        help="repeat the first switch's (or host's) GUID on the last one "
                             "(ibsim then needs -I); default switch")

    def gen(name, help_text, **kw):
        return sub.add_parser(name, parents=[common], help=help_text,
                              description=help_text, allow_abbrev=False, **kw)

    s = gen("fattree2", "2-level fat tree (leaf/spine)")
    s.add_argument("-k", type=int, required=True, help="switch radix")
    s.add_argument("--leaves", type=int, help="number of leaves (default k)")
    s.add_argument("--hosts-per-leaf", type=int, help="hosts on each leaf (default k/2)")
    s.add_argument("--spines", type=int, help="number of spines (default k/2)")
    s = gen("fattree3", "3-level k-ary fat tree")
    s.add_argument("-k", type=int, required=True, help="switch radix (even)")
    s.add_argument("--pods", type=int, help="number of pods (default k)")
    for name, dims in (("torus2d", "xy"), ("torus3d", "xyz")):
        s = gen(name, f"{len(dims)}D torus with wraparound links")
        for d in dims:
            s.add_argument(f"-{d}", type=int, required=True, help=f"switches along {d}")
        s.add_argument("--hosts-per-switch", type=int, default=1, help="default 1")
    # -h is the number of global links, as in the literature; --help helps.
    s = gen("dragonfly", "dragonfly (all-to-all groups)", add_help=False)
    s.add_argument("--help", action="help", help="show this help message and exit")
    s.add_argument("-a", type=int, required=True, help="routers per group")
    s.add_argument("-p", type=int, required=True, help="hosts per router")
    s.add_argument("-h", "--global", dest="global_links", type=int, required=True, metavar="H",
                   help="global links per router")
    s.add_argument("-g", type=int, help="groups (default a*h+1)")
    s = gen("random", "random regular switch graph")
    s.add_argument("-n", type=int, required=True, help="switches")
    s.add_argument("-d", type=int, required=True, help="switch-to-switch links per switch")
    s.add_argument("--hosts-per-switch", type=int, default=1, help="default 1")
    s = gen("parallel", "two switches joined by parallel links")
    s.add_argument("-n", type=int, required=True, help="parallel links")
    s.add_argument("--hosts-per-switch", type=int, default=2, help="default 2")
    s = sub.add_parser("check", help="verify topology files",
                       description="Verify ibsim topology files (see topogen.py --help).")
    s.add_argument("-I", "--ignore-duplicate", action="store_true",
                   help="accept duplicate GUIDs, as ibsim -I does")
    s.add_argument("files", nargs="+", metavar="FILE")
    return ap


def command_line(args):
    """The arguments as typed, without -o/--output FILE (where the file goes
    does not change it), shell-quoted."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "--output"):
            skip = True
        elif not (a.startswith("--output=") or (a.startswith("-o") and not a.startswith("--"))):
            out.append(a)
    return "topogen.py " + shlex.join(out)


def generate(args, argv):
    rng = random.Random(args.seed)
    fab = GENERATORS[args.cmd](args, rng)
    need(fab.n_host >= 1, "no hosts: the first node must be a host (the SM attaches there)")
    header = ["generated by: " + command_line(argv)]
    if args.degrade:
        need(0 <= args.degrade <= 1, "--degrade takes a fraction 0..1")
        header.append(degrade(fab, args.degrade, rng, args.keep_connected))
    if args.dup_guid:
        header.append(dup_guid(fab, args.dup_guid))
    return fab.render(header)


def main(argv):
    args = build_parser().parse_args(argv)
    if args.cmd == "check":
        return check(args)
    try:
        text = generate(args, argv)
    except ValueError as e:
        print(f"topogen.py {args.cmd}: {e}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
