/* SPDX-License-Identifier: MIT */
/*
 * The stage's options: space-separated tokens from the load options (GRUB,
 * the UEFI Shell, a firmware boot entry) or the ESP `options` file, and the
 * same SPEC tokens for the host simulator and `tsctui --simulate`.
 *
 *   mode=off|measure|sync  allow=any-cpu  config=esp  next=BootXXXX
 *   guard=grub  (the GRUB block's channel: \EFI\tsctui\run\ on the ESP)
 *   sim.offset.N=C  sim.jitter=J  sim.dead=N  sim.late=N[@K]  sim.hang=1
 *   sim.overrun=N  sim.runtimeout=MS  sim.cachewait=0      (sim builds only)
 *
 * Unknown or malformed tokens are collected, never fatal: a typo must not
 * stop a machine from booting.  A release build collects sim.* tokens too.
 */
#ifndef TSCTUI_COMMON_OPTIONS_H
#define TSCTUI_COMMON_OPTIONS_H

#include "tsc.h"

#define TSC_OPT_IGNORED_MAX 256

struct tsc_options {
	enum tsc_mode mode;
	bool mode_given;
	bool allow_any_cpu;
	bool config_esp;
	bool guard_grub;
	bool has_next;
	uint16_t next; /* BootXXXX number */

	/* Simulation (ARCHITECTURE 4.4). */
	bool sim_any; /* some sim.* token was accepted */
	bool sim_hang;
	uint32_t sim_jitter;
	uint32_t sim_varmax; /* UEFI sim build: variable size limit, bytes */
	int64_t sim_offset[TSC_MAX_CPUS];
	uint8_t sim_dead[TSC_MAX_CPUS / 8];
	/* sim.late: 0, or the start of that AP (1 = its first) from which its
	 * responder begins only after the answer timeout, once the next
	 * session has begun: an AP that MP services started too late. */
	uint8_t sim_late[TSC_MAX_CPUS];
	/* sim.overrun (UEFI sim build): after its first run's work, that AP
	 * never returns to MP services, which must stop it at its timeout. */
	uint8_t sim_overrun[TSC_MAX_CPUS / 8];
	/* sim.runtimeout (UEFI sim build): MP services' limit on one AP run,
	 * milliseconds; 0: the release build's (efi/mp.c). */
	uint32_t sim_run_timeout_ms;
	/* sim.cachewait=0 (UEFI sim build): the stage returns without
	 * waiting out GRUB's disk cache after its markers changed, as if
	 * GRUB's clock had not seen that wait (grub.d/05_tsctui must not
	 * need it for the outcomes that trip the guard; DESIGN.md 7.1). */
	bool sim_no_cache_wait;

	/* Tokens left unused, space separated (what fits). */
	uint32_t nignored;
	char ignored[TSC_OPT_IGNORED_MAX];
	bool release_sim_seen; /* a release build was handed sim.* tokens */
};

void tsc_options_init(struct tsc_options *o);
/*
 * Parses text (ASCII; spaces, tabs, commas and line ends separate tokens,
 * a NUL ends it).  Tokens accumulate into *o, so the ESP file and the load
 * options can be parsed one after the other.  sim_build decides whether
 * sim.* tokens are honoured.
 */
void tsc_options_parse(struct tsc_options *o, const char *text, size_t len,
		       bool sim_build);
bool tsc_options_dead(const struct tsc_options *o, uint32_t cpu);
bool tsc_options_overrun(const struct tsc_options *o, uint32_t cpu);

/*
 * UTF-16LE load options to ASCII, in place-safe form: copies at most cap-1
 * characters, replacing non-ASCII by '?'; accepts plain ASCII input too (a
 * firmware entry written by another tool).  Returns the length.
 */
size_t tsc_options_from_load_options(const void *data, size_t size, char *out,
				     size_t cap);

#endif
