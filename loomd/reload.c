/* SPDX-License-Identifier: MIT */
/* Reloading the configuration: SIGHUP and `loom reload`, one path. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "lib/log.h"
#include "loomd/cfgdiff.h"
#include "loomd/daemon.h"

/*
 * SIGHUP (or `loom reload`): read the file again. A valid one replaces the
 * configuration and a heavy sweep applies the difference (only blocks that
 * differ are sent); an invalid one is reported and changes nothing. What
 * happened is logged, and written to out too when a client asked.
 */
static int reload_file(struct loomd *d, const char *who, FILE *out)
{
	struct config *c = NULL;
	struct diag msgs = { 0 };
	const char *path = d->o.config ? d->o.config : CONFIG_DEFAULT_PATH;
	uint64_t now;
	int r;

	r = config_load_file(path, d->o.config != NULL, &c, &msgs);
	if (r < 0 && out)
		fprintf(out, "%s: %s; the running configuration stays in force\n", path,
			r == -EINVAL ? "invalid configuration" : strerror(-r));
	for (unsigned i = 0; i < msgs.n; i++) {
		log_err("%s", msgs.msg[i]);
		if (out)
			fprintf(out, "%s\n", msgs.msg[i]);
	}
	diag_free(&msgs);
	if (r < 0) {
		log_err("%s: %s: %s; the running configuration stays in force, nothing changes",
			who, path, r == -EINVAL ? "invalid configuration" : strerror(-r));
		return r;
	}
	/* What it changes, for `loom reload`: before the old one goes. */
	if (out) {
		if (c->file)
			fprintf(out, "%s reloaded; a heavy sweep applies what changed%s\n", path,
				ctl_paused(d->ctl) ? " when sweeps resume (paused)" : "");
		else /* no -c and no default file: nothing was read */
			fprintf(out, "%s does not exist: the built-in defaults apply (write the "
				"file, or give loomd -c FILE, to change them)\n", path);
		if (d->cfg && cfgdiff_print(d->cfg, c, out) == 0)
			fprintf(out, "no effective value changed\n");
	}
	if (d->cfg == d->sw.plan.config && d->cfg) {
		config_free(d->cfg_planned);
		d->cfg_planned = d->cfg;
	} else {
		config_free(d->cfg);
	}
	d->cfg = c;
	ctl_set_group(d->ctl, c->sm.control_group);
	d->sw.o.config = c->file ? c : NULL;
	/* Damping as the new file says from the next sweep (flaps 0 releases every link). */
	flap_opts_from(&d->sw.flap.o, c);
	d->sw.o.heavy_ms = (unsigned)(c->sm.heavy_sweep_us / 1000);
	d->sw.o.sm_lid_checks = c->sm.master_lid_checks;
	d->agent.priority = c->sm.priority;
	d->agent.sm_key = c->sm.sm_key;
	/* The election's keys and the polls, from the next SMInfo read on. */
	d->ha.sm.priority = c->sm.priority;
	d->ha.sm.sm_key = c->sm.sm_key;
	d->ha.sm.poll_misses = c->sm.poll_misses;
	d->ha.sm.sticky = c->sm.sticky;
	d->ha.poll_us = c->sm.poll_us;
	d->standby_compared = false; /* a standby compares its routing again */
	/* M_Key protect and lease from the next sweep; the section itself only at a start. */
	if (d->mkey_on && c->mkey.on) {
		d->mkey.protect = c->mkey.protect;
		d->mkey.lease_s = c->mkey.lease_s;
	} else if (d->mkey_on != c->mkey.on) {
		log_warn("%s: %s %s the mkey: section; M_Key protection stays %s until loomd "
			 "restarts", who, path, c->mkey.on ? "adds" : "removes",
			 d->mkey_on ? "on" : "off");
	}
	if (c->file)
		log_info("%s: %s reloaded; a heavy sweep applies what changed%s", who, path,
			 ctl_paused(d->ctl) ? " when sweeps resume" : "");
	else
		log_info("%s: %s does not exist: the built-in defaults apply", who, path);
	d->agent.resweep = d->sw.force_heavy = true;
	d->sw.route_afresh = true; /* new routing options: no table kept from the old ones */
	sd_event_now(d->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(d->sweep_timer, now);
	return 0;
}

/*
 * systemd's reload protocol (sd_notify(3)): RELOADING=1 with the time, then
 * READY=1 when done, whether the file was taken or refused, so that
 * `systemctl reload` returns once loomd has read the file.
 */
int loomd_reload(struct loomd *d, const char *who, FILE *out)
{
	struct timespec ts;
	int r;

	if (!d->announced) /* not READY yet: the first SUBNET UP says it */
		return reload_file(d, who, out);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
	r = reload_file(d, who, out);
	sd_notify(0, "READY=1");
	return r;
}

