/* SPDX-License-Identifier: MIT */
/*
 * The live power source, from /sys/class/power_supply under the root
 * (power.c): mains online or not, and the system battery's status,
 * charge and model (the first Battery supply whose scope is not "Device":
 * a mouse's or a headset's battery is not the one the system runs on).  The
 * runtime watchdog drops of the Framework 13/16 AMD laptops follow changes of
 * power source and s2idle transitions (DESIGN 9.2), so the dashboard shows it
 * beside the watchdog's events.
 */
#ifndef TSCTUI_SOURCE_POWER_H
#define TSCTUI_SOURCE_POWER_H

#include <stdbool.h>

struct sys_power {
	bool have_mains;	 /* a Mains supply was found */
	bool on_mains;		 /* and it is online */
	bool have_battery;	 /* a Battery supply was found */
	char battery_status[24]; /* "Discharging", "Charging", "Full", ... */
	int capacity;		 /* percent, or -1 unknown */
	char battery_model[64];	 /* its model_name, "" unknown */
};

void power_read(const char *root, struct sys_power *p);

#endif
