/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "system.h"

/* DMI (vendor, product, BIOS) and the ACPI FPDT boot timings. */

void machine_read(const char *root, struct sys_machine *m)
{
	char ns[32];

	memset(m, 0, sizeof(*m));
	system_read_line(root, "/sys/class/dmi/id/sys_vendor", m->vendor,
		  sizeof(m->vendor));
	system_read_line(root, "/sys/class/dmi/id/product_name", m->product,
		  sizeof(m->product));
	system_read_line(root, "/sys/class/dmi/id/product_version",
		  m->product_version, sizeof(m->product_version));
	system_read_line(root, "/sys/class/dmi/id/bios_version", m->bios_version,
		  sizeof(m->bios_version));
	system_read_line(root, "/sys/class/dmi/id/bios_date", m->bios_date,
		  sizeof(m->bios_date));
	m->bootloader_launch_ns = -1;
	if (system_read_line(root, "/sys/firmware/acpi/fpdt/boot/bootloader_launch_ns",
		      ns, sizeof(ns)))
		m->bootloader_launch_ns = atoll(ns);
}

