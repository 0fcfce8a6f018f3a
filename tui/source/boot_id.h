/* SPDX-License-Identifier: MIT */
/* This boot's identity, /proc/sys/kernel/random/boot_id under the root:
 * what boot-ok records a boot by, so it counts a boot once. */
#ifndef TSCTUI_SOURCE_BOOT_ID_H
#define TSCTUI_SOURCE_BOOT_ID_H

#include <stdbool.h>

/* A boot_id is a 36-character UUID; room for it and more. */
#define BOOT_ID_MAX 64

/* false (and out "") when there is none to read. */
bool boot_id_read(const char *root, char out[BOOT_ID_MAX]);

#endif
