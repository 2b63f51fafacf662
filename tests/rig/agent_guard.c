/* SPDX-License-Identifier: MIT */
/*
 * libagent_guard.so: what the kernel does with a MAD no agent registered
 * for, for clients that run without the RMPP shim. Preloaded in front of
 * umad2sim, with librmpp_tail.so behind it:
 *
 *   LD_PRELOAD=libagent_guard.so:libumad2sim.so:librmpp_tail.so
 *
 * Why. umad2sim's receiver thread hands every MAD from ibsim to the fd of
 * the agent registered for its class; with none, it locks the mutex of fd
 * data it never found and the client dies of SIGSEGV (any client: seen with
 * saquery and ibtracert, about 1 run in 300 on a busy machine). ibsim routes
 * a response by the client slot in its TID, so a late answer meant for a
 * process that has just exited reaches the next one to take the slot, often
 * before it has registered anything. A kernel drops such a MAD.
 *
 * How. This library sees libibumad's REGISTER_AGENT and UNREGISTER_AGENT
 * ioctls (they go to umad2sim right below) and tells the tail which classes
 * have agents; the tail, which reads ibsim's socket for umad2sim, drops the
 * others. The RMPP shim does the same for the clients it serves.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <rdma/ib_user_mad.h>

#define MAX_AGENTS 64

static int (*next_ioctl)(int, unsigned long, ...);
static void (*tail_agent)(uint8_t, int);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int fd; /* -1: free */
	uint32_t id;
	uint8_t mgmt_class;
} agents[MAX_AGENTS];

__attribute__((constructor)) static void guard_init(void)
{
	next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	tail_agent = (void (*)(uint8_t, int))dlsym(RTLD_DEFAULT, "rmpp_tail_agent");
	for (int i = 0; i < MAX_AGENTS; i++)
		agents[i].fd = -1;
	/* From now on the tail drops MADs of classes with no agent (none yet). */
	if (tail_agent)
		tail_agent(0, 0);
}

static void note(int fd, unsigned long request, const void *arg)
{
	const struct ib_user_mad_reg_req *q = arg;
	const struct ib_user_mad_reg_req2 *q2 = arg;
	uint32_t id;
	int i;

	pthread_mutex_lock(&lock);
	if (request == IB_USER_MAD_REGISTER_AGENT || request == IB_USER_MAD_REGISTER_AGENT2) {
		for (i = 0; i < MAX_AGENTS && agents[i].fd >= 0; i++)
			;
		if (i < MAX_AGENTS) {
			agents[i].fd = fd;
			agents[i].id = request == IB_USER_MAD_REGISTER_AGENT ? q->id : q2->id;
			agents[i].mgmt_class = request == IB_USER_MAD_REGISTER_AGENT ?
						       q->mgmt_class : q2->mgmt_class;
			tail_agent(agents[i].mgmt_class, 1);
		}
	} else if (request == IB_USER_MAD_UNREGISTER_AGENT) {
		id = *(const uint32_t *)arg;
		for (i = 0; i < MAX_AGENTS; i++)
			if (agents[i].fd == fd && agents[i].id == id) {
				tail_agent(agents[i].mgmt_class, -1);
				agents[i].fd = -1;
				break;
			}
	}
	pthread_mutex_unlock(&lock);
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next_ioctl)
		guard_init();
	r = next_ioctl(fd, request, arg);
	if (r == 0 && arg && tail_agent &&
	    (request == IB_USER_MAD_REGISTER_AGENT || request == IB_USER_MAD_REGISTER_AGENT2 ||
	     request == IB_USER_MAD_UNREGISTER_AGENT))
		note(fd, request, arg);
	return r;
}
