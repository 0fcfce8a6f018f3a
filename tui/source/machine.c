/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "system.h"

/* DMI (vendor, product, BIOS) and the ACPI FPDT boot timings. */
#define DMI "/sys/class/dmi/id/"
#define FPDT_BOOT "/sys/firmware/acpi/fpdt/boot/"

void machine_read(const char *root, struct sys_machine *m)
{
	char ns[32];

	memset(m, 0, sizeof(*m));
	system_read_line(root, DMI "sys_vendor", m->vendor, sizeof(m->vendor));
	system_read_line(root, DMI "product_name", m->product,
			 sizeof(m->product));
	system_read_line(root, DMI "product_version", m->product_version,
			 sizeof(m->product_version));
	system_read_line(root, DMI "bios_version", m->bios_version,
			 sizeof(m->bios_version));
	system_read_line(root, DMI "bios_date", m->bios_date,
			 sizeof(m->bios_date));
	m->bootloader_launch_ns = -1;
	if (system_read_line(root, FPDT_BOOT "bootloader_launch_ns", ns,
			     sizeof(ns)))
		m->bootloader_launch_ns = atoll(ns);
}
