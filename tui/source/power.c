/* SPDX-License-Identifier: MIT */
/* The live power source (power.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "power.h"
#include "system.h"

#define POWER_SUPPLY_DIR "/sys/class/power_supply"

void power_read(const char *root, struct sys_power *p)
{
	char dir[PATH_UNDER_MAX], sys[400], v[32];
	struct dirent *e;
	DIR *d;

	memset(p, 0, sizeof(*p));
	p->capacity = -1;
	path_under(root, POWER_SUPPLY_DIR, dir, sizeof(dir));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sys, sizeof(sys), POWER_SUPPLY_DIR "/%.200s/type",
			 e->d_name);
		if (!system_read_line(root, sys, v, sizeof(v)))
			continue;
		if (!strcmp(v, "Mains")) {
			snprintf(sys, sizeof(sys),
				 POWER_SUPPLY_DIR "/%.200s/online", e->d_name);
			p->have_mains = true;
			p->on_mains =
				p->on_mains ||
				(system_read_line(root, sys, v, sizeof(v)) &&
				 !strcmp(v, "1"));
		} else if (!strcmp(v, "Battery") && !p->have_battery) {
			snprintf(sys, sizeof(sys),
				 POWER_SUPPLY_DIR "/%.200s/scope", e->d_name);
			if (system_read_line(root, sys, v, sizeof(v)) &&
			    !strcmp(v, "Device"))
				continue;
			p->have_battery = true;
			snprintf(sys, sizeof(sys),
				 POWER_SUPPLY_DIR "/%.200s/model_name",
				 e->d_name);
			if (!system_read_line(root, sys, p->battery_model,
					      sizeof(p->battery_model)))
				p->battery_model[0] = '\0';
			snprintf(sys, sizeof(sys),
				 POWER_SUPPLY_DIR "/%.200s/status", e->d_name);
			if (!system_read_line(root, sys, p->battery_status,
					      sizeof(p->battery_status)))
				p->battery_status[0] = '\0';
			snprintf(sys, sizeof(sys),
				 POWER_SUPPLY_DIR "/%.200s/capacity",
				 e->d_name);
			if (system_read_line(root, sys, v, sizeof(v)))
				p->capacity = atoi(v);
		}
	}
	if (d)
		closedir(d);
}
