/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "model/disc_live.h"

void disc_live_free(struct disc_live *l)
{
	if (!l)
		return;
	free(l->node);
	free(l->port);
	l->node = NULL;
	l->port = NULL;
}
