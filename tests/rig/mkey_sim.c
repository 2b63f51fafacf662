/* SPDX-License-Identifier: MIT */
/*
 * mkey_sim.c: mkeyproxy's sockets. It stands between every simulator client
 * and ibsim: clients talk to NAME as they would to ibsim, the proxy relays
 * the control channel unchanged (a CONNECT carries the client's own PID, so
 * ibsim's "Attached" list and sim.sh's reaping of dead clients still work)
 * and hands each packet to mkey_proxy.c on its way.
 *
 *   mkeyproxy --sim SIMNAME --listen NAME [--sim-pid PID]
 *
 * Prints "mkeyproxy: ready" on stderr once NAME is served; ends when ibsim
 * (--sim-pid) is gone, or on SIGTERM/SIGINT.
 *
 * ibsim writes to its clients in a busy loop while their queue is full
 * (net.unix.max_dgram_qlen may be as small as 10), so the proxy never
 * blocks on a send to ibsim: while one waits it keeps reading what ibsim
 * sends (sim_drain_up).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "mkey_sim.h"

static volatile sig_atomic_t stop;

int64_t sim_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An abstract-namespace address BASE KIND N, as ibsim makes them. */
static socklen_t sim_addr(struct sockaddr_un *a, const char *base, const char *kind, unsigned n)
{
	int len;

	/* kind is ":ctl", ":mkctl", ":in" or ":out"; n follows, except for ":ctl". */
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strcmp(kind, ":ctl") == 0)
		len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s:ctl", base);
	else
		len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s%s%u", base, kind, n);
	if (len < 0 || (size_t)len >= sizeof(a->sun_path) - 2)
		len = (int)sizeof(a->sun_path) - 3;
	/* ibsim and umad2sim count the name's terminating NUL in. */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len + 1);
}

int sim_bind(const char *base, const char *kind, unsigned n)
{
	struct sockaddr_un a;
	socklen_t len = sim_addr(&a, base, kind, n);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, len) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int sim_connect_to(int fd, const char *base, const char *kind, unsigned n)
{
	struct sockaddr_un a;
	socklen_t len = sim_addr(&a, base, kind, n);

	return connect(fd, (struct sockaddr *)&a, len) < 0 ? -errno : 0;
}

int sim_unconnect(int fd)
{
	struct sockaddr a = { .sa_family = AF_UNSPEC };

	return connect(fd, &a, sizeof(a)) < 0 ? -errno : 0;
}

/* One control request to ibsim and its answer (ibsim answers every one it
 * understands at once). -ETIMEDOUT after 5 s. */
int sim_ctl_ask(struct proxy *px, struct sim_ctl *ctl)
{
	struct pollfd pf = { .fd = px->up_ctl, .events = POLLIN };
	int64_t end = sim_now_ms() + 5000;

	if (send(px->up_ctl, ctl, sizeof(*ctl), 0) != (ssize_t)sizeof(*ctl))
		return -errno;
	while (sim_now_ms() < end) {
		if (poll(&pf, 1, 100) > 0 &&
		    recv(px->up_ctl, ctl, sizeof(*ctl), MSG_DONTWAIT) == (ssize_t)sizeof(*ctl))
			return 0;
	}
	return -ETIMEDOUT;
}

void sim_slot_close(struct proxy *px, unsigned i)
{
	struct slot *s = &px->slot[i];

	if (s->up >= 0)
		close(s->up);
	sim_unconnect(px->dn_out[i]);
	memset(s, 0, sizeof(*s));
	s->up = -1;
}

/* A client's CONNECT: bind SIM:inPID first (ibsim connects to it while it
 * handles the CONNECT), then wire the slot ibsim gave. */
static void ctl_connect(struct proxy *px, struct sim_ctl *ctl)
{
	struct sim_client_info *info = (struct sim_client_info *)ctl->data;
	uint32_t pid = info->id;
	unsigned i;
	int up, r;

	for (i = 0; i < SIM_MAX_CLIENTS; i++)
		if (px->slot[i].used && px->slot[i].pid == pid)
			sim_slot_close(px, i);
	up = sim_bind(px->sim_name, ":in", pid);
	if (up < 0) {
		plog("client pid %u: cannot bind %s:in%u: %s; refusing it\n", pid, px->sim_name,
		     pid, strerror(-up));
		ctl->type = SIM_CTL_ERROR;
		return;
	}
	r = sim_ctl_ask(px, ctl);
	if (r < 0 || ctl->type == SIM_CTL_ERROR || info->id >= SIM_MAX_CLIENTS) {
		plog("client pid %u: ibsim refused the connection (%s)\n", pid,
		     r < 0 ? strerror(-r) : "error reply");
		ctl->type = SIM_CTL_ERROR;
		close(up);
		return;
	}
	i = info->id;
	if (px->slot[i].used)
		sim_slot_close(px, i); /* ibsim reused a slot ("X" on its console) */
	if (sim_connect_to(up, px->sim_name, ":out", i) < 0 ||
	    sim_connect_to(px->dn_out[i], px->name, ":in", pid) < 0) {
		plog("client pid %u slot %u: cannot connect its sockets: %s\n", pid, i,
		     strerror(errno));
		close(up);
		ctl->type = SIM_CTL_ERROR;
		return;
	}
	px->slot[i].used = true;
	px->slot[i].pid = pid;
	px->slot[i].up = up;
	plog("client pid %u attached as slot %u at \"%.32s\"\n", pid, i, info->nodeid);
}

void sim_ctl_relay(struct proxy *px)
{
	struct sim_ctl ctl;
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	ssize_t n;
	uint32_t type, id;

	n = recvfrom(px->dn_ctl, &ctl, sizeof(ctl), MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
	if (n != (ssize_t)sizeof(ctl) || ctl.magic != SIM_MAGIC)
		return;
	type = ctl.type;
	id = ctl.clientid;
	if (type == SIM_CTL_CONNECT) {
		ctl_connect(px, &ctl);
	} else if (sim_ctl_ask(px, &ctl) < 0) {
		ctl.type = SIM_CTL_ERROR;
	} else if (type == SIM_CTL_DISCONNECT && id < SIM_MAX_CLIENTS) {
		plog("client pid %u slot %u detached\n", px->slot[id].pid, id);
		sim_slot_close(px, id);
	}
	sendto(px->dn_ctl, &ctl, sizeof(ctl), MSG_DONTWAIT, (struct sockaddr *)&from, flen);
}

/* Everything ibsim has sent, to mkey_proxy.c; but for slot `skip` (-1:
 * none), whose probe answer the caller waits for itself. */
void sim_drain_up(struct proxy *px, int skip)
{
	uint8_t buf[512];
	ssize_t n;

	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++) {
		while ((int)i != skip && px->slot[i].used &&
		       (n = recv(px->slot[i].up, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			proxy_from_sim(px, i, buf, (size_t)n);
	}
}

int sim_up_send(struct proxy *px, unsigned i, const void *buf, size_t n)
{
	int64_t end = sim_now_ms() + 5000;

	while (px->slot[i].used) {
		if (send(px->slot[i].up, buf, n, MSG_DONTWAIT) == (ssize_t)n)
			return 0;
		if (errno != EAGAIN || sim_now_ms() > end)
			return -errno;
		sim_drain_up(px, -1);
		usleep(500);
	}
	return -ENOTCONN;
}

/* To the client of slot i; a client that is gone is detached from ibsim,
 * as ibsim would detach it. */
void sim_dn_send(struct proxy *px, unsigned i, const void *buf, size_t n)
{
	int64_t end = sim_now_ms() + 2000;
	struct sim_ctl ctl;

	for (;;) {
		if (send(px->dn_out[i], buf, n, MSG_DONTWAIT) == (ssize_t)n)
			return;
		if (errno == EAGAIN && sim_now_ms() < end) {
			usleep(500);
			continue;
		}
		break;
	}
	if (errno == EAGAIN) {
		plog("slot %u (pid %u): client reads nothing for 2 s; packet dropped\n", i,
		     px->slot[i].pid);
		return;
	}
	plog("slot %u (pid %u): client gone (%s); detaching it from ibsim\n", i,
	     px->slot[i].pid, strerror(errno));
	memset(&ctl, 0, sizeof(ctl));
	ctl.magic = SIM_MAGIC;
	ctl.clientid = i;
	ctl.type = SIM_CTL_DISCONNECT;
	sim_ctl_ask(px, &ctl);
	sim_slot_close(px, i);
}

static bool sim_alive(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool alive = false;

	if (pid <= 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] && p[2])
		alive = p[2] != 'Z';
	fclose(f);
	return alive;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int setup(struct proxy *px)
{
	int fd;

	px->dn_ctl = sim_bind(px->name, ":ctl", 0);
	if (px->dn_ctl < 0) {
		plog("cannot bind %s:ctl: %s (another proxy or ibsim on that name?)\n", px->name,
		     strerror(-px->dn_ctl));
		return -1;
	}
	fd = px->up_ctl = sim_bind(px->sim_name, ":mkctl", (unsigned)getpid());
	if (fd < 0 || sim_connect_to(fd, px->sim_name, ":ctl", 0) < 0) {
		plog("cannot reach ibsim's %s:ctl: %s (is ibsim running with that "
		     "IBSIM_SOCKNAME?)\n", px->sim_name, strerror(fd < 0 ? -fd : errno));
		return -1;
	}
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++) {
		px->slot[i].up = -1;
		px->dn_out[i] = sim_bind(px->name, ":out", i);
		if (px->dn_out[i] < 0) {
			plog("cannot bind %s:out%u: %s\n", px->name, i, strerror(-px->dn_out[i]));
			return -1;
		}
	}
	return 0;
}

static void loop(struct proxy *px)
{
	struct pollfd pf[1 + 2 * SIM_MAX_CLIENTS];
	uint8_t buf[512];
	unsigned n, i;
	ssize_t len;

	while (!stop && sim_alive(px->sim_pid)) {
		n = 0;
		pf[n++] = (struct pollfd){ .fd = px->dn_ctl, .events = POLLIN };
		for (i = 0; i < SIM_MAX_CLIENTS; i++) {
			pf[n++] = (struct pollfd){ .fd = px->dn_out[i], .events = POLLIN };
			pf[n++] = (struct pollfd){ .fd = px->slot[i].used ? px->slot[i].up : -1,
						   .events = POLLIN };
		}
		if (poll(pf, n, 500) <= 0)
			continue;
		if (pf[0].revents & POLLIN)
			sim_ctl_relay(px);
		for (i = 0; i < SIM_MAX_CLIENTS; i++) {
			if ((pf[1 + 2 * i].revents & POLLIN) &&
			    (len = recv(px->dn_out[i], buf, sizeof(buf), MSG_DONTWAIT)) > 0 &&
			    px->slot[i].used)
				proxy_from_client(px, i, buf, (size_t)len);
		}
		sim_drain_up(px, -1);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mkeyproxy --sim SIMNAME --listen NAME [--sim-pid PID]\n"
		   "Stands between simulator clients (IBSIM_SOCKNAME=NAME) and ibsim\n"
		   "(IBSIM_SOCKNAME=SIMNAME) and enforces IBA 14.2.4 M_Key rules on\n"
		   "every SMP (see tests/rig/README).\n");
}

int main(int argc, char **argv)
{
	static struct proxy px;
	static const struct option opts[] = {
		{ "sim", required_argument, NULL, 's' },
		{ "listen", required_argument, NULL, 'l' },
		{ "sim-pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	int c;

	while ((c = getopt_long(argc, argv, "s:l:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': px.sim_name = optarg; break;
		case 'l': px.name = optarg; break;
		case 'p': px.sim_pid = (pid_t)atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (!px.sim_name || !px.name || optind != argc) {
		usage(stderr);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (setup(&px) < 0)
		return 1;
	plog("ready: clients on %s, ibsim on %s\n", px.name, px.sim_name);
	loop(&px);
	plog("exiting: %lu SMPs checked, %lu passed, %lu with M_Key hidden, %lu violations, "
	     "%lu traps\n", px.probes, px.passed, px.hidden, px.violations, px.traps);
	return 0;
}
