/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's own state, shared by its three files: dashboard.c (the
 * loop, and reading the system), keys.c (what each key does, screen by
 * screen) and confirm.c (what an action will change, said before it runs,
 * and running it).  Drawing is tui/view/'s; decisions are tui/model/'s.
 */
#ifndef TSCTUI_UI_DASHBOARD_H
#define TSCTUI_UI_DASHBOARD_H

#include <stdbool.h>
#include <time.h>

#include "../model/assess.h"
#include "../source/system.h"
#include "../view/view.h"
#include "klog_loader.h"

/* The action a confirmation asks about (and a menu leads to). */
enum pending {
	P_NONE,
	P_MODE,
	P_GUARD,
	P_KARG,
	P_INSTALL,
	P_UNINSTALL,
	P_ESP, /* a menu only: which vfat mount is the ESP, then P_INSTALL */
};

/* The ESP choices a menu offers (the menu's own limit). */
#define DASH_ESP_CHOICES UI_MENU_MAX

/* What a pending action is asked to do: the mode (mode, guard reset),
 * the loader (install), on or off (kernel-arg nowatchdog).  Values, never
 * the command line's words for them. */
struct pending_arg {
	enum tsc_mode mode;
	enum loader loader;
	bool on;
};

struct dash {
	const char *root;
	const char *kernel_log;
	const char *simulate;
	unsigned engine_extra_ms;
	struct klog_loader *klog; /* reads the kernel log on its thread */
	unsigned klog_gen;	  /* the read in sys.klog */
	bool engine_started;
	struct sysinfo sys;	/* the system as last read (system_read) */
	struct assessment as;	/* what follows from it (assess_make) */
	struct trust_out trust; /* as.trust, with the live cores' word */
	struct engine_snapshot snap;
	struct engine *engine;
	struct ui_state ui;
	enum pending pending, menu_for;
	struct pending_arg arg; /* what the pending action is to do */
	char esp[256]; /* install: the ESP chosen in the dashboard, or "" */
	enum loader esp_loader; /* the loader the ESP menu installs for */
	char esp_choices[DASH_ESP_CHOICES][256];
	unsigned status_gen; /* counts dashboard_status() calls */
	int scroll_max;	     /* how far the screen drawn last can scroll */
	time_t refreshed;
	struct setup_check check;
};

/* What a key handler asks of the loop (htop's Htop_Reaction). */
enum ui_reaction {
	UI_NOTHING = 0,
	UI_REDRAW = 1 << 0, /* the screen changed: draw it now */
	UI_QUIT = 1 << 1,
};

/* dashboard.c */
/* The status line: every line of the message, joined. */
void dashboard_status(struct dash *d, bool error, const char *msg);
/* Re-reads the system and re-derives the model (diagnosis, setup step). */
void dashboard_refresh(struct dash *d);
/* Re-derives the model (the guided setup's step follows the check). */
void dashboard_setup_step(struct dash *d);

/* keys.c: the handler bound to ch on the screen shown; UI_* flags. */
unsigned keys_react(struct dash *d, int ch);

/* confirm.c */
/* Fills the confirmation for action p with arg and shows it. */
void confirm_describe(struct dash *d, enum pending p, struct pending_arg arg);
/* Runs the confirmed action, as the CLI does, then re-reads the system. */
void confirm_run(struct dash *d);
/* Says so and returns true when the action needs root and we are not. */
bool confirm_needs_root(struct dash *d);
/* Install for loader: straight to the confirmation when the ESP is found;
 * else a menu of the vfat mounts there are, or, with none, a
 * confirmation that says in words what to do first. */
void confirm_install(struct dash *d, enum loader loader);
#endif
