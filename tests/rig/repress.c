/* SPDX-License-Identifier: MIT */
/*
 * librepress.so: the TrapRepress that ibsim drops, carried to its port.
 * Preloaded behind umad2sim and librmpp_tail.so (tests/lib/sim.sh does it
 * with SIM_REPRESS=1):
 *
 *   LD_PRELOAD=libagent_guard.so:libumad2sim.so:librmpp_tail.so:librepress.so
 *
 * Why. An SM that sends a trap (OpenSM's trap 144 "SM priority changed",
 * to a master it outranks) waits for the master's TrapRepress as for the
 * answer of a request (IBA 13.4.9, 14.4.1): OpenSM keeps the trap among
 * its outstanding QP0 MADs and ends no sweep until they are all answered.
 * ibsim drops every MAD with method 0x07 before routing it ("got trap
 * repress - dropping", process_packet() in ibsim/sim_mad.c), and umad2sim
 * reports no timeouts, so that SM's next sweep never ends.
 *
 * Where. umad2sim's receiver thread waits with poll() on its socket from
 * ibsim, reads each packet (ibsim's struct rig_mad_simrequest) with read(), and
 * sends with write(); it reaches libc through dlsym(RTLD_NEXT), which,
 * behind umad2sim and the tail, is this library. So this is the boundary
 * between the process and ibsim: what it writes here is what ibsim would
 * have routed, and what it hands to umad2sim here is what ibsim would have
 * delivered; umad2sim, the tail and the client above treat it as any other
 * packet from the fabric.
 *
 * How.
 *  - Every process finds its socket to ibsim (the one connected to ibsim's
 *    "NAME:outN", N its client slot) and binds a datagram socket of its own
 *    at $SIM_REPRESS_DIR/sock.N.PID (the simulator's temp dir: sim.sh).
 *  - It watches umad2sim's control messages to ibsim for the slot's IsSM
 *    (SIM_CTL_CONNECT, SIM_CTL_SET_ISSM): ibsim hands SMP requests, a
 *    TrapRepress among them, to the SM client of a port only.
 *  - A TrapRepress (SubnTrapRepress, LID-routed SMP, method 0x07) that the
 *    process writes to ibsim still goes to ibsim (which drops it, as
 *    before), and a copy is queued for this library's relay thread. That
 *    thread asks ibsim (its control channel, SIM_CTL_GET_PORTINFO) for the
 *    LID and LMC of every slot that has a socket in the folder, and sends
 *    the packet to those whose port the DLID names, with the sender's own
 *    LID as SLID, as ibsim fills it in. The relay thread holds none of
 *    umad2sim's locks while it waits for ibsim.
 *  - The receiver's poll() (umad2sim's receiver thread) waits on its ibsim
 *    socket and on its relay socket; a relayed packet, if the process is
 *    the port's SM, is handed out by the next read() of the ibsim socket.
 * Nothing else changes: the MAD goes as the master wrote it (its TID, with
 * the bits umad2sim put in, as ibsim would carry it), and only when it
 * wrote one. Each relay and delivery is a line in $SIM_REPRESS_DIR/log.
 *
 * Not done: a directed-route TrapRepress (class 0x81; traps are LID-routed,
 * IBA 14.3.2, so a TrapRepress to one is too); a master behind mkeyproxy
 * (its control relay answers the slots it knows only).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#undef _FORTIFY_SOURCE /* this file defines read, write, poll */
#include <dirent.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "rig_mad.h"

#define SIM_MAGIC 0xdeadbeef
#define CTL_CONNECT 1     /* ibsim's enum SIM_CTL_TYPES (include/ibsim.h) */
#define CTL_GET_PORTINFO 8
#define CTL_SET_ISSM 9
#define MAX_SLOTS 10      /* IBSIM_MAX_CLIENTS */
#define QUEUE 32          /* TrapRepresses written, not yet relayed */
#define CTL_WAIT_MS 2000  /* ibsim answers its control channel from its main loop */
#define MSG_MAGIC 0x52505253u /* "RPRS" */
#define TRAPS 64          /* traps this process sent, not yet repressed */
/*
 * The TID bits a request keeps on the simulator: umad2sim puts the sender's
 * agent in bits 32..47 and ibsim its client slot in 48..63 (update_trid() in
 * sim_mad.c), of every request, a trap and a TrapRepress among them.
 */
#define TID_KEPT 0x00000000ffffffffULL

/* ibsim's control message (struct sim_ctl): 80 bytes. */
struct sim_ctl {
	uint32_t magic, clientid, type, len;
	uint8_t data[64];
};

/* What one process sends another through the folder. */
struct relay_msg {
	uint32_t magic;
	uint32_t from_pid;
	struct rig_mad_simreq req;
};

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*write)(int, const void *, size_t);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*open)(const char *, int, ...); /* libc's: umad2sim's would take its lock */
	int (*close)(int);
	const char *dir;  /* $SIM_REPRESS_DIR; NULL: off */
	const char *sock; /* $IBSIM_SOCKNAME */
	int sim_fd;       /* our socket to ibsim; -1 until found */
	int slot;         /* our ibsim client slot */
	int relay_fd;     /* ours in the folder */
	bool issm;
	bool have_pending; /* a relayed packet for the next read of sim_fd */
	struct rig_mad_simreq pending;
	struct rig_mad_simreq queue[QUEUE]; /* TrapRepresses written, for the relay thread */
	unsigned q_head, q_len;
	uint64_t traps[TRAPS]; /* TIDs of traps written, oldest overwritten first; 0: free */
	unsigned next_trap;
	bool thread_up;
	int ctl_fd; /* the relay thread's own control socket to ibsim */
} g = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER, .sim_fd = -1, .slot = -1, .relay_fd = -1,
	.ctl_fd = -1 };

static void init(void)
{
	g.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	g.write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	g.poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	g.open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	g.close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	g.dir = getenv("SIM_REPRESS_DIR");
	if (g.dir && !*g.dir)
		g.dir = NULL;
	g.sock = getenv("IBSIM_SOCKNAME");
	if (!g.sock || !*g.sock)
		g.sock = "sim"; /* ibsim's SIM_BASENAME */
}

/*
 * One line in $SIM_REPRESS_DIR/log (O_APPEND: whole lines from every process).
 * Through libc's open and close: umad2sim's take the lock it holds while it
 * writes to ibsim, which is where this is called from.
 */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char path[512], line[512];
	struct timespec ts;
	va_list ap;
	int fd, n;

	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(line, sizeof(line), "%lld.%03ld pid %d: ", (long long)ts.tv_sec,
		     ts.tv_nsec / 1000000, (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	snprintf(path, sizeof(path), "%s/log", g.dir);
	fd = g.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)!g.write(fd, line, (size_t)n);
	g.close(fd);
}

/* An abstract socket name "\0NAME:..." of ibsim's; the part after "NAME:" or NULL. */
static const char *sim_name_tail(const struct sockaddr_un *a, socklen_t len, char *buf,
				 size_t size)
{
	size_t n = strlen(g.sock), l;

	if (len <= offsetof(struct sockaddr_un, sun_path) + 1 || a->sun_family != AF_UNIX ||
	    a->sun_path[0])
		return NULL;
	l = len - offsetof(struct sockaddr_un, sun_path) - 1;
	if (l >= size)
		return NULL;
	memcpy(buf, a->sun_path + 1, l);
	buf[l] = 0; /* ibsim's names end with a NUL of their own (make_name() in ibsim.c) */
	if (strncmp(buf, g.sock, n) || buf[n] != ':')
		return NULL;
	return buf + n + 1;
}

/* Is fd the socket umad2sim connected to ibsim's "NAME:outN"? Then N, else -1. */
static int sim_slot_of(int fd)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	char buf[sizeof(a.sun_path) + 1];
	const char *t;
	char *end;
	long n;

	if (getpeername(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	t = sim_name_tail(&a, len, buf, sizeof(buf));
	if (!t || strncmp(t, "out", 3))
		return -1;
	n = strtol(t + 3, &end, 10);
	return *end || n < 0 || n >= MAX_SLOTS ? -1 : (int)n;
}

/* Our socket in the folder: sock.SLOT.PID. Under g.lock. */
static void relay_bind(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock.%d.%d", g.dir, g.slot,
			     (int)getpid()) >= sizeof(a.sun_path)) {
		say("cannot relay: the path of %s/sock.* is longer than a socket's (%zu); "
		    "use a shorter TMPDIR", g.dir, sizeof(a.sun_path) - 1);
		return;
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	unlink(a.sun_path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		say("cannot bind %s: %s; TrapRepresses for this port are lost", a.sun_path,
		    strerror(errno));
		g.close(fd);
		return;
	}
	g.relay_fd = fd;
}

/* fd is a socket to ibsim: remember it (the first one only). Under g.lock. */
static bool is_sim_fd(int fd)
{
	int slot;

	if (g.sim_fd >= 0)
		return fd == g.sim_fd;
	slot = sim_slot_of(fd);
	if (slot < 0)
		return false;
	g.sim_fd = fd;
	g.slot = slot;
	relay_bind();
	return true;
}

/* ---- the sender: a TrapRepress written, relayed to its port ------------------ */

/* Ask ibsim for slot's port: its LID and LMC. 0, or -1. Relay thread only. */
static int port_of(int slot, uint16_t *lid, uint8_t *lmc)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct sim_ctl c = { .magic = SIM_MAGIC, .clientid = (uint32_t)slot,
			     .type = CTL_GET_PORTINFO, .len = 64 };
	socklen_t alen;
	struct pollfd p;
	ssize_t n;

	if (g.ctl_fd < 0) {
		g.ctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		/* Autobind: a fresh abstract name, for ibsim's answer. */
		if (g.ctl_fd < 0 || bind(g.ctl_fd, (struct sockaddr *)&a, sizeof(sa_family_t)) < 0)
			return -1;
	}
	/* ibsim's names count their terminating NUL (make_name() in ibsim.c). */
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 +
			   (size_t)snprintf(a.sun_path + 1, sizeof(a.sun_path) - 2, "%s:ctl",
					    g.sock));
	if (sendto(g.ctl_fd, &c, sizeof(c), 0, (struct sockaddr *)&a, alen) != sizeof(c))
		return -1;
	p = (struct pollfd){ .fd = g.ctl_fd, .events = POLLIN };
	for (;;) {
		if (g.poll(&p, 1, CTL_WAIT_MS) <= 0)
			return -1;
		n = recv(g.ctl_fd, &c, sizeof(c), 0);
		if (n < 0)
			return -1;
		/* A late answer to an earlier question (it timed out): skip it. */
		if (n == sizeof(c) && c.magic == SIM_MAGIC && c.clientid == (uint32_t)slot &&
		    c.type == CTL_GET_PORTINFO)
			break;
	}
	*lid = rig_mad_be16(c.data + 16); /* IBA 14.2.5.6 PortInfo:LID */
	*lmc = c.data[34] & 7;                           /* PortInfo:LMC */
	return 0;
}

/* Send m to sock.SLOT.PID in the folder; false if it is gone (stale, removed). */
static bool relay_to(const char *name, const struct relay_msg *m)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", g.dir, name) >=
	    sizeof(a.sun_path))
		return false; /* not one of ours: relay_bind() refuses longer paths */
	if (sendto(g.ctl_fd, m, sizeof(*m), 0, (struct sockaddr *)&a, sizeof(a)) == sizeof(*m))
		return true;
	if (errno == ECONNREFUSED || errno == ENOENT) {
		unlink(a.sun_path); /* its process is gone */
		return false;
	}
	say("TrapRepress not relayed to %s: %s", name, strerror(errno));
	return false;
}

/* One TrapRepress written by this process: to every SM slot whose port the DLID names. */
static void relay_one(struct rig_mad_simreq *q)
{
	uint16_t dlid = be16toh((uint16_t)q->dlid), lid = 0, plid;
	uint8_t lmc, plmc;
	unsigned sent = 0;
	int slot, pid;
	struct relay_msg m = { .magic = MSG_MAGIC, .from_pid = (uint32_t)getpid() };
	struct dirent *e;
	DIR *d;

	/* What ibsim does to a request before it routes it (decode_sim_MAD()): a
	 * SLID of 0 becomes the sender port's LID, TID bits 48..63 its slot. */
	if (port_of(g.slot, &lid, &lmc) == 0 && !be16toh((uint16_t)q->slid))
		q->slid = htobe16(lid);
	rig_mad_set_tid(q->mad, (rig_mad_tid(q->mad) & 0xffffffffffffULL) | (uint64_t)g.slot << 48);
	m.req = *q;
	d = opendir(g.dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (sscanf(e->d_name, "sock.%d.%d", &slot, &pid) != 2 || pid == getpid())
			continue;
		if (port_of(slot, &plid, &plmc) < 0 || !plid || dlid < plid ||
		    dlid >= plid + (1u << plmc))
			continue;
		if (relay_to(e->d_name, &m)) {
			sent++;
			say("TrapRepress TID 0x%016" PRIx64 " from LID %u to LID %u: relayed to "
			    "slot %d (pid %d)", rig_mad_tid(q->mad), lid, dlid, slot, pid);
		}
	}
	closedir(d);
	if (!sent)
		say("TrapRepress TID 0x%016" PRIx64 " from LID %u to LID %u: no process of this "
		    "simulator with the relay at that port; dropped (as ibsim drops it)",
		    rig_mad_tid(q->mad), lid, dlid);
}

static void *relay_thread(void *arg)
{
	struct rig_mad_simreq q;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	for (;;) {
		while (!g.q_len)
			pthread_cond_wait(&g.cond, &g.lock);
		q = g.queue[g.q_head];
		g.q_head = (g.q_head + 1) % QUEUE;
		g.q_len--;
		pthread_mutex_unlock(&g.lock);
		relay_one(&q);
		pthread_mutex_lock(&g.lock);
	}
	return NULL;
}

/* Under g.lock: queue a written TrapRepress for the relay thread. */
static void queue_repress(const struct rig_mad_simreq *q)
{
	pthread_t t;
	sigset_t all, old;

	if (!g.thread_up) {
		/* The thread takes no signal: the client's handlers stay in its own threads. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		g.thread_up = pthread_create(&t, NULL, relay_thread, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!g.thread_up) {
			say("cannot start the relay thread; TrapRepress dropped");
			return;
		}
		pthread_detach(t);
	}
	if (g.q_len == QUEUE) {
		say("%d TrapRepresses waiting to be relayed; TID 0x%016" PRIx64 " dropped", QUEUE,
		    rig_mad_tid(q->mad));
		return;
	}
	g.queue[(g.q_head + g.q_len++) % QUEUE] = *q;
	pthread_cond_signal(&g.cond);
}

/* umad2sim's control messages: the slot's IsSM, as ibsim keeps it. */
static void note_ctl(const struct sim_ctl *c)
{
	int v;

	if (c->magic != SIM_MAGIC)
		return;
	if (c->type == CTL_SET_ISSM) {
		memcpy(&v, c->data, sizeof(v));
		g.issm = v != 0;
	} else if (c->type == CTL_CONNECT) {
		/* struct sim_client_info: id, qp, issm, nodeid */
		memcpy(&v, c->data + 8, sizeof(v));
		g.issm = v != 0;
	}
}

/* Under g.lock: a trap this process sends; its TrapRepress may be delivered. */
static void note_trap(const struct rig_mad_simreq *q)
{
	g.traps[g.next_trap] = rig_mad_tid(q->mad);
	g.next_trap = (g.next_trap + 1) % TRAPS;
}

/* Under g.lock: was tid one of our traps (and not repressed yet)? Then forget it. */
static bool our_trap(uint64_t tid)
{
	for (unsigned i = 0; i < TRAPS; i++)
		if (g.traps[i] && !((g.traps[i] ^ tid) & TID_KEPT)) {
			g.traps[i] = 0;
			return true;
		}
	return false;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const struct rig_mad_simreq *q = buf;

	pthread_once(&g.once, init);
	if (!g.dir || (count != sizeof(struct rig_mad_simreq) && count != sizeof(struct sim_ctl)))
		return g.write(fd, buf, count);
	pthread_mutex_lock(&g.lock);
	if (count == sizeof(struct sim_ctl))
		note_ctl(buf);
	/* LID-routed SMPs (class 0x01): SubnTrap (IBA 13.4.5: method 0x05), SubnTrapRepress (0x07). */
	else if (q->mad[1] == 0x01 && q->mad[3] == 0x05 && is_sim_fd(fd))
		note_trap(q);
	else if (q->mad[1] == 0x01 && q->mad[3] == 0x07 && is_sim_fd(fd))
		queue_repress(q);
	pthread_mutex_unlock(&g.lock);
	return g.write(fd, buf, count);
}

/* ---- the receiver: a relayed packet, read as if ibsim had sent it --------------- */

/* Under g.lock: take what waits on the relay socket. */
static void relay_take(void)
{
	struct relay_msg m;
	ssize_t n;

	while ((n = recv(g.relay_fd, &m, sizeof(m), MSG_DONTWAIT)) >= 0) {
		if (n != sizeof(m) || m.magic != MSG_MAGIC)
			continue;
		if (!g.issm) {
			/* ibsim hands SMP requests at a port to its SM client only. */
			say("TrapRepress TID 0x%016" PRIx64 " from pid %u: not delivered, this "
			    "process is not its port's SM", rig_mad_tid(m.req.mad), m.from_pid);
			continue;
		}
		/*
		 * The kernel hands a TrapRepress to the client only as the answer
		 * to its own trap; one for a trap of the port's SMA (ibsim sends
		 * trap 144 when an SM sets IsSM) is the SMA's, which ignores it.
		 */
		if (!our_trap(rig_mad_tid(m.req.mad))) {
			say("TrapRepress TID 0x%016" PRIx64 " from pid %u: not delivered, this "
			    "process sent no trap with that TID (the port's SMA, ibsim, did?)",
			    rig_mad_tid(m.req.mad), m.from_pid);
			continue;
		}
		if (g.have_pending) {
			say("TrapRepress TID 0x%016" PRIx64 " from pid %u: not delivered, one is "
			    "still waiting to be read", rig_mad_tid(m.req.mad), m.from_pid);
			continue;
		}
		g.pending = m.req;
		g.have_pending = true;
		say("TrapRepress TID 0x%016" PRIx64 " from pid %u (LID %u): delivered to this "
		    "process", rig_mad_tid(m.req.mad), m.from_pid, be16toh((uint16_t)m.req.slid));
		return;
	}
}

/*
 * umad2sim's receiver thread waits on its ibsim socket alone, with no
 * timeout: wait on our relay socket too. Any other poll passes.
 */
int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	struct pollfd p[2];
	bool ours;
	int r;

	pthread_once(&g.once, init);
	if (!g.dir || nfds != 1 || timeout >= 0 || fds[0].events != POLLIN)
		return g.poll(fds, nfds, timeout);
	pthread_mutex_lock(&g.lock);
	ours = is_sim_fd(fds[0].fd) && g.relay_fd >= 0;
	pthread_mutex_unlock(&g.lock);
	if (!ours)
		return g.poll(fds, nfds, timeout);
	for (;;) {
		pthread_mutex_lock(&g.lock);
		if (g.have_pending) {
			pthread_mutex_unlock(&g.lock);
			fds[0].revents = POLLIN;
			return 1;
		}
		pthread_mutex_unlock(&g.lock);
		p[0] = fds[0];
		p[1] = (struct pollfd){ .fd = g.relay_fd, .events = POLLIN };
		r = g.poll(p, 2, -1);
		if (r < 0)
			return r;
		if (p[1].revents & POLLIN) {
			pthread_mutex_lock(&g.lock);
			relay_take();
			pthread_mutex_unlock(&g.lock);
		}
		if (p[0].revents) {
			fds[0].revents = p[0].revents;
			return 1;
		}
	}
}

ssize_t read(int fd, void *buf, size_t count)
{
	pthread_once(&g.once, init);
	if (g.dir && count == sizeof(struct rig_mad_simreq) && fd == g.sim_fd) {
		pthread_mutex_lock(&g.lock);
		if (g.have_pending) {
			memcpy(buf, &g.pending, sizeof(g.pending));
			g.have_pending = false;
			pthread_mutex_unlock(&g.lock);
			return (ssize_t)count;
		}
		pthread_mutex_unlock(&g.lock);
	}
	return g.read(fd, buf, count);
}
