/* SPDX-License-Identifier: MIT */
/*
 * What each key does, screen by screen: one table of key -> handler per
 * screen (htop's Action.c bindings).  A handler changes where the user is,
 * or hands an action to confirm.c, and returns what the loop must redraw.
 */
#include <curses.h>
#include <stdio.h>

#include "dashboard.h"

#define KEY_ESC 27
/* A binding for every key the table does not name; it ends a table. */
#define KEYS_ANY (-1)

typedef unsigned (*key_handler)(struct dash *d, int ch);

struct key_binding {
	int key;
	key_handler fn;
};

/* In the order of the mode menu's items and the keys 1, 2, 3. */
static const enum tsc_mode modes[] = { TSC_MODE_OFF, TSC_MODE_MEASURE,
				       TSC_MODE_SYNC };

/* ---- anywhere ---- */

static unsigned back(struct dash *d, int ch)
{
	(void)ch;
	d->ui.view = V_MAIN;
	return UI_REDRAW;
}

static unsigned ignore(struct dash *d, int ch)
{
	(void)d;
	(void)ch;
	return UI_NOTHING;
}

/* ---- menus: the choice leads to a confirmation ---- */

static void menu_open(struct dash *d, enum pending kind, const char *title,
		      const char *const *items, int n)
{
	int i;

	d->menu_for = kind;
	snprintf(d->ui.menu_title, sizeof(d->ui.menu_title), "%s", title);
	for (i = 0; i < n && i < UI_MENU_MAX; i++)
		snprintf(d->ui.menu[i], sizeof(d->ui.menu[i]), "%s", items[i]);
	d->ui.nmenu = i;
	d->ui.menu_sel = 0;
	d->ui.view = V_MENU;
}

/* The boot paths, in the order of menu_chosen()'s loaders; one this
 * system cannot have says why. */
static void install_menu(struct dash *d)
{
	const char *items[3] = {
		"GRUB (chain-loaded before the menu)", "systemd-boot (driver)",
		"its own firmware boot entry (starts the loader after it)"
	};

	if (!d->sys.boot.grub)
		items[0] = "GRUB (not on this system: no /boot/grub)";
	if (!d->sys.boot.efivars)
		items[2] = "its own firmware boot entry (not possible: no EFI "
			   "variables, so no UEFI boot)";
	/* A guest: the setup says there is nothing to install; the menu
	 * says so too, and still lets a tester measure in a VM. */
	menu_open(d, P_INSTALL,
		  d->as.diag.vm.virtual_machine
			  ? "A virtual machine: nothing to install (the host "
			    "makes its TSC; s: Setup). To measure anyway, "
			    "which boot path?"
			  : "Install the stage for which boot path?",
		  items, 3);
}

static unsigned menu_chosen(struct dash *d, int i)
{
	/* In the order of the install menu's items. */
	static const enum loader loaders[] = { LOADER_GRUB, LOADER_SDBOOT,
					       LOADER_EFI_ENTRY };

	d->ui.view = V_MAIN;
	if (d->menu_for == P_MODE || d->menu_for == P_GUARD) {
		confirm_describe(d, d->menu_for,
				 (struct pending_arg){ .mode = modes[i] });
	} else if (d->menu_for == P_INSTALL) {
		confirm_install(d, loaders[i]);
	} else if (d->menu_for == P_ESP) {
		snprintf(d->esp, sizeof(d->esp), "%s", d->esp_choices[i]);
		confirm_describe(
			d, P_INSTALL,
			(struct pending_arg){ .loader = d->esp_loader });
	}
	return UI_REDRAW;
}

static unsigned menu_up(struct dash *d, int ch)
{
	(void)ch;
	if (d->ui.menu_sel > 0)
		d->ui.menu_sel--;
	return UI_REDRAW;
}

static unsigned menu_down(struct dash *d, int ch)
{
	(void)ch;
	if (d->ui.menu_sel + 1 < d->ui.nmenu)
		d->ui.menu_sel++;
	return UI_REDRAW;
}

static unsigned menu_enter(struct dash *d, int ch)
{
	(void)ch;
	return menu_chosen(d, d->ui.menu_sel);
}

/* 1..n picks an item at once. */
static unsigned menu_number(struct dash *d, int ch)
{
	if (ch >= '1' && ch < '1' + d->ui.nmenu)
		return menu_chosen(d, ch - '1');
	return UI_NOTHING;
}

static const struct key_binding menu_keys[] = {
	{ KEY_UP, menu_up },	   { KEY_DOWN, menu_down },
	{ '\n', menu_enter },	   { KEY_ENTER, menu_enter },
	{ KEY_ESC, back },	   { 'q', back },
	{ KEYS_ANY, menu_number },
};

/* ---- the confirmation: y runs it, any other key declines ---- */

/* Up/Down/PgUp/PgDn: the text of a screen that does not fit, as far as
 * the screen drawn last said it can go. */
static unsigned info_scroll(struct dash *d, int ch)
{
	int step = ch == KEY_NPAGE || ch == KEY_PPAGE ? LINES / 2 : 1;

	if (ch == KEY_UP || ch == KEY_PPAGE)
		step = -step;
	d->ui.info_scroll += step;
	if (d->ui.info_scroll > d->scroll_max)
		d->ui.info_scroll = d->scroll_max;
	if (d->ui.info_scroll < 0)
		d->ui.info_scroll = 0;
	return UI_REDRAW;
}

static unsigned confirm_no(struct dash *d, int ch);

static unsigned confirm_yes(struct dash *d, int ch)
{
	/* A plan that already failed has nothing to say yes to. */
	if (d->ui.confirm_fails)
		return confirm_no(d, ch);
	confirm_run(d);
	d->pending = P_NONE;
	d->ui.view = V_MAIN;
	return UI_REDRAW;
}

static unsigned confirm_no(struct dash *d, int ch)
{
	(void)ch;
	dashboard_status(d, false, "nothing changed");
	d->pending = P_NONE;
	d->ui.view = V_MAIN;
	return UI_REDRAW;
}

static const struct key_binding confirm_keys[] = {
	{ 'y', confirm_yes },	    { 'Y', confirm_yes },
	{ KEY_UP, info_scroll },    { KEY_DOWN, info_scroll },
	{ KEY_PPAGE, info_scroll }, { KEY_NPAGE, info_scroll },
	{ KEYS_ANY, confirm_no },
};

/* ---- recovery: 1 stay off, 2 measure, 3 retry sync (a guard reset) ---- */

static unsigned recovery_choice(struct dash *d, int ch)
{
	if (!confirm_needs_root(d))
		confirm_describe(
			d, P_GUARD,
			(struct pending_arg){ .mode = modes[ch - '1'] });
	return UI_REDRAW;
}

static const struct key_binding recovery_keys[] = {
	{ '1', recovery_choice },
	{ '2', recovery_choice },
	{ '3', recovery_choice },
	{ KEY_ESC, back },
	{ 'q', back },
	{ KEY_UP, info_scroll },
	{ KEY_DOWN, info_scroll },
	{ KEY_PPAGE, info_scroll },
	{ KEY_NPAGE, info_scroll },
	{ KEYS_ANY, ignore },
};

/* ---- the guided setup: Enter does the step (model/setup.h) ---- */

static unsigned setup_enter(struct dash *d, int ch)
{
	enum loader loader;

	(void)ch;
	switch (d->ui.setup.enter) {
	case SETUP_ENTER_NOTHING:
		return UI_NOTHING;
	case SETUP_ENTER_CHECK:
		setup_check_start(&d->check, d->snap.surveys, d->ui.now);
		dashboard_setup_step(d);
		return UI_REDRAW;
	default:
		break;
	}
	if (confirm_needs_root(d))
		return UI_REDRAW;
	if (d->ui.setup.enter == SETUP_ENTER_INSTALL) {
		/* No loader recognised: the user says which, never a guess. */
		loader = d->sys.boot.found;
		if (loader == LOADER_NONE)
			install_menu(d);
		else
			confirm_install(d, loader);
	} else if (d->ui.setup.enter == SETUP_ENTER_SYNC) {
		confirm_describe(d, P_MODE,
				 (struct pending_arg){ .mode = TSC_MODE_SYNC });
	} else {
		confirm_describe(d, P_KARG, (struct pending_arg){ .on = true });
	}
	return UI_REDRAW;
}

static const struct key_binding setup_keys[] = {
	{ '\n', setup_enter },	    { KEY_ENTER, setup_enter },
	{ KEY_ESC, back },	    { 'q', back },
	{ KEY_BACKSPACE, back },    { KEY_UP, info_scroll },
	{ KEY_DOWN, info_scroll },  { KEY_PPAGE, info_scroll },
	{ KEY_NPAGE, info_scroll }, { KEYS_ANY, ignore },
};

/* ---- help, report, history, why, all text: back to the main screen ---- */

static const struct key_binding info_keys[] = {
	{ KEY_ESC, back },	    { 'q', back },
	{ KEY_BACKSPACE, back },    { KEY_UP, info_scroll },
	{ KEY_DOWN, info_scroll },  { KEY_PPAGE, info_scroll },
	{ KEY_NPAGE, info_scroll }, { KEYS_ANY, ignore },
};

/* ---- the main screen ---- */

static unsigned quit(struct dash *d, int ch)
{
	(void)d;
	(void)ch;
	return UI_QUIT;
}

static unsigned open_view(struct dash *d, int ch)
{
	d->ui.view = ch == 'r'	 ? V_REPORT
		     : ch == 'w' ? V_WHY
		     : ch == 'y' ? V_HISTORY
		     : ch == 'l' ? V_TEXT
				 : V_HELP;
	return UI_REDRAW;
}

static unsigned open_setup(struct dash *d, int ch)
{
	(void)ch;
	dashboard_setup_step(d);
	d->ui.view = V_SETUP;
	return UI_REDRAW;
}

/* The cores panel: Down/Up a row, PgDn/PgUp ten. */
static unsigned scroll_down(struct dash *d, int ch)
{
	int n = (int)d->snap.ncores;

	if (n && d->ui.scroll + 1 < n)
		d->ui.scroll += ch == KEY_NPAGE ? 10 : 1;
	if (d->ui.scroll >= n)
		d->ui.scroll = n - 1;
	return UI_REDRAW;
}

static unsigned scroll_up(struct dash *d, int ch)
{
	d->ui.scroll -= ch == KEY_PPAGE ? 10 : 1;
	if (d->ui.scroll < 0)
		d->ui.scroll = 0;
	return UI_REDRAW;
}

/* Mode, guard and uninstall act on an installed stage. */
static bool can_act(struct dash *d, bool needs_install)
{
	if (confirm_needs_root(d))
		return false;
	if (needs_install && !d->as.installed) {
		dashboard_status(d, true,
				 d->as.diag.vm.virtual_machine
					 ? "the stage is not installed, and a "
					   "virtual machine needs none (the "
					   "host makes its TSC; s: Setup)"
					 : "tsctui is not installed: press i "
					   "first");
		return false;
	}
	return true;
}

/* The mode menu: the modes' words, in the order of modes[]. */
static void mode_menu(struct dash *d, enum pending kind, const char *title)
{
	const char *items[sizeof(modes) / sizeof(modes[0])];
	size_t i;

	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		items[i] = tsc_mode_name(modes[i]);
	menu_open(d, kind, title, items, (int)i);
}

static unsigned ask_mode(struct dash *d, int ch)
{
	(void)ch;
	if (can_act(d, true))
		mode_menu(d, P_MODE, "Stage mode from the next boot");
	return UI_REDRAW;
}

static unsigned ask_guard(struct dash *d, int ch)
{
	(void)ch;
	if (can_act(d, true))
		mode_menu(d, P_GUARD, "Reset the hang guard, then mode:");
	return UI_REDRAW;
}

static unsigned ask_nowatchdog(struct dash *d, int ch)
{
	(void)ch;
	if (can_act(d, false))
		confirm_describe(
			d, P_KARG,
			(struct pending_arg){ .on = !d->ui.nowatchdog });
	return UI_REDRAW;
}

static unsigned ask_uninstall(struct dash *d, int ch)
{
	(void)ch;
	if (can_act(d, true))
		confirm_describe(d, P_UNINSTALL, (struct pending_arg){ 0 });
	return UI_REDRAW;
}

static unsigned ask_install(struct dash *d, int ch)
{
	(void)ch;
	if (!confirm_needs_root(d))
		install_menu(d);
	return UI_REDRAW;
}

static const struct key_binding main_keys[] = {
	{ 'q', quit },
	{ 'h', open_view },
	{ '?', open_view },
	{ 'r', open_view },
	{ 'w', open_view },
	{ 'l', open_view },
	{ 'y', open_view },
	{ 's', open_setup },
	{ KEY_DOWN, scroll_down },
	{ KEY_NPAGE, scroll_down },
	{ KEY_UP, scroll_up },
	{ KEY_PPAGE, scroll_up },
	{ 'm', ask_mode },
	{ 'g', ask_guard },
	{ 'k', ask_nowatchdog },
	{ 'u', ask_uninstall },
	{ 'i', ask_install },
	{ KEYS_ANY, ignore },
};

static const struct key_binding *const bindings[V_COUNT] = {
	[V_MAIN] = main_keys,	      [V_HELP] = info_keys,
	[V_REPORT] = info_keys,	      [V_HISTORY] = info_keys,
	[V_WHY] = info_keys,	      [V_TEXT] = info_keys,
	[V_MENU] = menu_keys,	      [V_CONFIRM] = confirm_keys,
	[V_RECOVERY] = recovery_keys, [V_SETUP] = setup_keys,
};

unsigned keys_react(struct dash *d, int ch)
{
	const struct key_binding *b = bindings[d->ui.view];
	enum ui_view was = d->ui.view;
	unsigned gen = d->status_gen, react;

	while (b->key != KEYS_ANY && b->key != ch)
		b++;
	react = b->fn(d, ch);
	if (d->ui.view != was) {
		/* A message belongs to the screen that said it: the next
		 * screen starts without it, unless this key said it. */
		if (d->status_gen == gen)
			d->ui.status[0] = '\0';
		if (d->ui.view != V_CONFIRM)
			d->ui.info_scroll = 0;
	}
	return react;
}
