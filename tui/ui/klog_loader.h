/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's kernel log, read and parsed on a thread of its own: a
 * --kernel-log file can be 64 MiB, a quarter of a second to parse and
 * longer to read from a cold disk, and the first screen and the keys do
 * not wait for it.  The loop asks for a fresh read at each refresh (a file
 * is read again only when it changed; /dev/kmsg, 1 MiB at most, always)
 * and takes the newest result when its generation moves.
 */
#ifndef TSCTUI_UI_KLOG_LOADER_H
#define TSCTUI_UI_KLOG_LOADER_H

#include <stdbool.h>

#include "../source/system.h"

struct klog_loader;

/* Starts reading at once; root and file must outlive the loader.  NULL
 * when no thread could be made.  extra_ms: every read takes that much
 * longer (tests, to see the dashboard while it reads). */
struct klog_loader *klog_loader_start(const char *root, const char *file,
				      unsigned extra_ms);
/* Asks for another read; returns at once. */
void klog_loader_reload(struct klog_loader *l);
/* How many reads have finished: 0 while the first is still going. */
unsigned klog_loader_generation(struct klog_loader *l);
/* The newest finished read into *out, and this boot's changes of power
 * source into *pl (have: there was a log), and its generation; 0 and
 * nothing copied while the first is still going. */
unsigned klog_loader_result(struct klog_loader *l, struct klog *out,
			    struct power_log *pl, bool *have);
void klog_loader_stop(struct klog_loader *l);

#endif
