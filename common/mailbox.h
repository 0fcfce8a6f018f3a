/* SPDX-License-Identifier: MIT */
/*
 * The shared memory between the BSP and the one AP it talks to, and the two
 * sides of the conversation.  The BSP drives; the AP runs tsc_responder(),
 * which serves commands until told to exit or until it has heard nothing for
 * its idle timeout (so an AP abandoned by a BSP that gave up always returns).
 *
 * Protocol: the BSP fills cmd/arg, then publishes a new sequence number in
 * `req`; the AP acts, fills value/result, then echoes the number in `resp`.
 * Every wait on either side is bounded by a deadline in TSC cycles.
 *
 * Every AP has a mailbox of its own, warp area included (struct
 * tsc_workspace): a responder that stalls, or that firmware starts late,
 * can only ever read requests and operands meant for its own processor.
 * Sessions: each opening of an AP's mailbox has a number.  A responder is
 * started with a ticket naming its processor, and the ticket's session is
 * filled in only once the firmware accepted the run; the responder serves
 * only while its mailbox is in that session (one the BSP gave up on leaves
 * without answering).  A mailbox is never opened again while its
 * processor's last run has neither finished nor been stopped (driver.c).
 * Before serving, and before every write, the responder checks that it
 * runs on the processor its ticket names (platform.h, on_cpu).
 */
#ifndef TSCTUI_COMMON_MAILBOX_H
#define TSCTUI_COMMON_MAILBOX_H

#include <stdatomic.h>

#include "platform.h"

/* Spin iterations between two deadline checks in a busy wait: a clock read
 * in every iteration would delay noticing the other side by one read. */
#define TSC_SPIN_CHECK 1024

enum tsc_cmd {
	TSC_CMD_PING = 1, /* read the TSC into value */
	TSC_CMD_WRITE,	  /* TSC += arg at a tick edge */
	TSC_CMD_WARP,	  /* run the warp test for arg cycles */
	TSC_CMD_EXIT,
};

/*
 * Layout: one cache line per direction, each written by one side only, and
 * every message a single store, so that a line moves once per leg.  (With
 * both sides' fields on one line, the reader's polling steals the line
 * between the writer's stores and each leg pays extra transfers, unevenly:
 * measured here, that doubled the round trip and skewed the estimate.)
 */
/* Windows of the warp test (warp.h) the shared area has room for. */
#define TSC_WARP_WINDOWS_MAX 4

struct tsc_warp_area {
	/* The kernel's sync_lock (a ticket lock here) and last_tsc, and who
	 * stored last_tsc (warp.c); last and last_by only under the lock. */
	_Alignas(64) _Atomic uint32_t next;
	_Atomic uint32_t serving;
	uint64_t last;
	uint32_t last_by;
	/* Both sides count in here and start together. */
	_Alignas(64) _Atomic uint32_t arrived;
	/* The AP's half of the result, stored before it answers. */
	_Alignas(64) _Atomic uint32_t ap_handoffs;
	_Atomic uint32_t ap_warps;
	_Atomic uint64_t ap_max_back;
	_Atomic int64_t ap_min[TSC_WARP_WINDOWS_MAX];
	_Atomic int64_t ap_low[TSC_WARP_WINDOWS_MAX];
	_Atomic uint32_t ap_complete;
};

struct tsc_mailbox {
	/* BSP -> AP: (sequence << 8) | command, one store; arg is written
	 * before it for the commands that take one. */
	_Alignas(64) _Atomic uint64_t req;
	_Atomic int64_t arg;
	/* AP -> BSP: a ping is answered by the one store of a fresh reading
	 * into value (the BSP waits for it to change); other commands by the
	 * echoed request word in resp. */
	_Alignas(64) _Atomic uint64_t value;
	_Atomic uint64_t resp;
	struct tsc_warp_area warp;
	/* Set once per session, before the responder starts. */
	_Alignas(64) const struct tsc_platform *pf;
	_Atomic uint32_t session; /* changed first when a session opens */
	uint64_t timeout_cycles;  /* one wait, either side */
	uint64_t idle_cycles;	  /* responder gives up after this long */
	uint64_t tick;		  /* write at a tick edge of this size */
	/* AP -> BSP: the session number, once its responder serves it; or,
	 * in refused, once a responder found itself on the wrong processor. */
	_Atomic uint32_t started;
	_Atomic uint32_t refused;
	_Atomic uint32_t writes; /* TSC writes this AP carried out */
};

/* What one start of a responder is given (the platform's start() arg).
 * One per processor, written only while that processor runs none; the
 * session last, once the firmware accepted the run (tsc_mb_arm): until
 * then the responder waits, and a run that is never armed serves nothing. */
struct tsc_ticket {
	struct tsc_mailbox *mb;
	uint32_t cpu;
	_Atomic uint32_t session;
};

/* The AP side.  arg is the struct tsc_ticket. */
void tsc_responder(void *ticket);

/* BSP side.  Each returns false when the AP did not answer in time. */
/* Opens a new session of processor cpu's own mailbox and readies its
 * ticket, unarmed.  Only while that processor runs nothing. */
void tsc_mb_reset(struct tsc_mailbox *mb, const struct tsc_platform *pf,
		  struct tsc_ticket *t, uint32_t cpu, uint64_t timeout_cycles,
		  uint64_t tick);
/* Arms the ticket with the mailbox's session: after the firmware accepted
 * the run, never before. */
void tsc_mb_arm(struct tsc_mailbox *mb, struct tsc_ticket *t);
bool tsc_mb_ping(struct tsc_mailbox *mb, uint64_t *t0, uint64_t *a,
		 uint64_t *t2);
bool tsc_mb_write(struct tsc_mailbox *mb, int64_t delta);
bool tsc_mb_exit(struct tsc_mailbox *mb);
/* Posts a command; returns the request word the answer will echo. */
uint64_t tsc_mb_post(struct tsc_mailbox *mb, enum tsc_cmd cmd, int64_t arg);
/* Leaves EXIT for a responder that may never start; does not wait. */
void tsc_mb_post_exit(struct tsc_mailbox *mb);
enum tsc_mb_start { TSC_MB_STARTED, TSC_MB_SILENT, TSC_MB_WRONG_CPU };
/* Waits (bounded) for the session's responder's first sign of life. */
enum tsc_mb_start tsc_mb_wait_started(struct tsc_mailbox *mb,
				      uint64_t timeout_cycles);
/* Did this session's responder refuse to act on the wrong processor? */
bool tsc_mb_refused(struct tsc_mailbox *mb);

/* Write at a tick edge: spin until the counter moves, then write at once,
 * so the write lands at a known phase of a coarse tick. */
void tsc_write_at_edge(const struct tsc_platform *pf, uint32_t cpu,
		       int64_t delta, uint64_t tick);

#endif
