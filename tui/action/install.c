/* SPDX-License-Identifier: MIT */
/*
 * tsctui install: puts the stage in the boot path, always in measure mode.
 * Every check that can refuse runs before the first write; if a write
 * fails, the entries this run added to the ledger are undone, so the system
 * is as it was.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../source/detect.h"
#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "actions.h"
#include "efi_entry.h"
#include "loader_writing.h"
#include "migrate.h"

#ifndef TSCTUI_LIBDIR
#define TSCTUI_LIBDIR "/usr/local/lib/tsctui"
#endif

static const char *const unit_dirs[] = {
	"/etc/systemd/system",
	"/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system",
	"/lib/systemd/system",
};
#define UNIT "tsctui-boot.service"
/* Offline-update boots never reach multi-user.target: without the second
 * link they would look like hung boots to the guard. */
static const char *const unit_wanted_by[] = { "multi-user.target",
					      "system-update.target" };

/* Where the EFI binaries come from: $TSCTUI_EFI_DIR, the build tree next
 * to this executable, or the installed library directory. */
static bool efi_source(char *dir, size_t cap, const char **which)
{
	char exe[2048], probe[2100];
	const char *env = getenv("TSCTUI_EFI_DIR");
	ssize_t n;

	if (env && env[0]) {
		snprintf(dir, cap, "%s", env);
		*which = "TSCTUI_EFI_DIR";
		return true;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *bin = dirname(exe);

		snprintf(probe, sizeof(probe), "%s/../efi/tsctui.efi", bin);
		if (access(probe, R_OK) == 0) {
			snprintf(dir, cap, "%.2040s/../efi", bin);
			*which = "the build tree";
			return true;
		}
	}
	snprintf(probe, sizeof(probe), "%s/tsctui.efi", TSCTUI_LIBDIR);
	if (access(probe, R_OK) == 0) {
		snprintf(dir, cap, "%s", TSCTUI_LIBDIR);
		*which = "the installed files";
		return true;
	}
	return false;
}

/* The sim build says TEST BUILD (in UTF-16) in its banner. */
static bool is_sim_build(const char *data, size_t len)
{
	static const char mark[] = "T\0E\0S\0T\0 \0B\0U\0I\0L\0D\0";
	size_t m = sizeof(mark) - 1, i;

	for (i = 0; i + m <= len; i++)
		if (memcmp(data + i, mark, m) == 0)
			return true;
	return false;
}

static bool unit_path(struct act *a, char *sys, size_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(unit_dirs) / sizeof(unit_dirs[0]); i++) {
		snprintf(sys, cap, "%s/" UNIT, unit_dirs[i]);
		if (fsx_exists(act_path(a, sys)))
			return true;
	}
	return false;
}

#define UNIT_DROPIN "/etc/systemd/system/" UNIT ".d/tsctui-mounts.conf"

/* The unit must run with the ESP (and the grubenv's file system) mounted:
 * RequiresMountsFor= names exactly what this install uses. */
static int unit_mounts(struct act *a, const struct tsctui_conf *c)
{
	char text[1024], dir[300];

	snprintf(dir, sizeof(dir), "%s", c->grubenv);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	snprintf(text, sizeof(text),
		 "# Written by tsctui install: boot-ok needs these mounted.\n"
		 "[Unit]\nRequiresMountsFor=%s%s%s\n",
		 c->esp, dir[0] ? " " : "", dir);
	return act_put(a, UNIT_DROPIN, text, strlen(text), 0644);
}

static int enable_unit(struct act *a, const char *unit)
{
	char link[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(link, sizeof(link),
			 "/etc/systemd/system/%s.wants/" UNIT,
			 unit_wanted_by[i]);
		if (act_link(a, link, unit) != 0)
			return -1;
	}
	return 0;
}

static char *slurp(struct act *a, const char *path, size_t *len)
{
	char *d = fsx_read(path, len);

	if (!d)
		act_fail(a, "cannot read %s: %s", path, strerror(errno));
	return d;
}

/* Keys people already have, in the places their tools keep them: sbctl's
 * db key (firmware db), then MOK keys from DKMS, shim-signed and akmods
 * (trusted by shim only).  DKMS keeps its certificate in DER (mok.pub, as
 * mokutil --import takes it); sbsign reads PEM only, so a DER certificate
 * is converted with openssl into a temporary file first. */
static const struct {
	const char *key, *cert;
	bool mok, der;
} known_keys[] = {
	{ "/var/lib/sbctl/keys/db/db.key", "/var/lib/sbctl/keys/db/db.pem",
	  false, false },
	{ "/usr/share/secureboot/keys/db/db.key",
	  "/usr/share/secureboot/keys/db/db.pem", false, false },
	{ "/var/lib/shim-signed/mok/MOK.priv",
	  "/var/lib/shim-signed/mok/MOK.pem", true, false },
	{ "/var/lib/dkms/mok.key", "/var/lib/dkms/mok.pem", true, false },
	{ "/var/lib/dkms/mok.key", "/var/lib/dkms/mok.pub", true, true },
	{ "/etc/pki/akmods/private/private_key.priv",
	  "/etc/pki/akmods/certs/public_key.pem", true, false },
};

static bool find_key(struct act *a, struct install_opts *o, bool *mok,
		     bool *der)
{
	static char key[PATH_UNDER_MAX], cert[PATH_UNDER_MAX];
	size_t i;

	for (i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++) {
		snprintf(key, sizeof(key), "%s",
			 act_path(a, known_keys[i].key));
		snprintf(cert, sizeof(cert), "%s",
			 act_path(a, known_keys[i].cert));
		if (fsx_exists(key) && fsx_exists(cert)) {
			o->key = key;
			o->cert = cert;
			*mok = known_keys[i].mok;
			*der = known_keys[i].der;
			return true;
		}
	}
	return false;
}

/* Is cert (a path as the user gave it) one of the MOK certificates of
 * known_keys, on the managed system?  The same file: device and inode,
 * the known ones looked up inside the root. */
static bool is_mok_cert(struct act *a, const char *cert)
{
	struct stat given, known;
	size_t i;

	if (!cert || stat(cert, &given) != 0)
		return false;
	for (i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
		if (known_keys[i].mok &&
		    fsx_stat(act_path(a, known_keys[i].cert), &known) == 0 &&
		    known.st_dev == given.st_dev &&
		    known.st_ino == given.st_ino)
			return true;
	return false;
}

/* A key or certificate found under the root, copied (through the
 * resolver: a regular file, inside the root) into a private temporary
 * file for the tools, which open what they are given as it is. */
static int stage_file(struct act *a, const char *path, char tmp[64])
{
	size_t len;
	char *d = fsx_read_max(path, 1u << 20, &len);
	int fd;

	if (!d)
		return act_fail(a, "cannot read %s: %s", path, strerror(errno));
	snprintf(tmp, 64, "/tmp/tsctui-key-XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, d, len) != (ssize_t)len) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(d);
		tmp[0] = '\0';
		return act_fail(a, "cannot make a temporary file: %s",
				strerror(errno));
	}
	free(d);
	close(fd);
	return 0;
}

/* A DER certificate as PEM, in a temporary file named into pem. */
static int der_to_pem(struct act *a, const char *der, char pem[64])
{
	char *argv[] = { "openssl",   "x509", "-inform", "DER", "-in",
			 (char *)der, "-out", pem,	 NULL };
	int fd;

	snprintf(pem, 64, "/tmp/tsctui-cert-XXXXXX");
	fd = mkstemp(pem);
	if (fd < 0)
		return act_fail(a, "cannot make a temporary file: %s",
				strerror(errno));
	close(fd);
	if (act_run(a, argv, "openssl x509 -inform DER") != 0) {
		unlink(pem);
		return act_fail(a,
				"cannot convert %s from DER to PEM for "
				"sbsign (is openssl installed?)",
				der);
	}
	return 0;
}

/* Signs with sbsign when Secure Boot is on; the signed copy replaces data. */
static int maybe_sign(struct act *a, const struct install_opts *given,
		      enum loader loader, char **data, size_t *len)
{
	const struct loader_writing *w = loader_writing(loader);
	char in[] = "/tmp/tsctui-sign-XXXXXX", out[64], pem[64] = "",
	     key[64] = "", crt[64] = "";
	struct install_opts found = *given;
	const struct install_opts *o = &found;
	size_t n;
	char *signed_data;
	bool mok = false, der = false;
	const char *shown_key;
	int fd, rc = 0, sb = efivar_secure_boot(a->root);

	if (sb != 1 && !o->key)
		return 0;
	if (!o->key && !find_key(a, &found, &mok, &der))
		return act_fail(a,
				"Secure Boot is on and no signing key was "
				"found: create one (for example `sbctl "
				"create-keys && sbctl enroll-keys`, or openssl "
				"plus enrolling its certificate in db), then "
				"run install with --key KEY --cert CERT");
	if (given->key)
		mok = is_mok_cert(a, given->cert);
	/* The firmware checks a boot entry's image against db itself; a MOK
	 * is trusted by shim only, so that entry would never start.  Images
	 * GRUB or systemd-boot load may pass through shim's verifier. */
	if (sb == 1 && mok && w->mok_refused)
		return act_fail_hint(
			a, ACT_HINT_DB_KEY,
			"Secure Boot is on and the signing key (%s) "
			"is a MOK key, which the firmware never trusts "
			"for its own boot entry (only shim does): enroll "
			"a key in db ",
			o->key);
	if (w->firmware_checks && sb == 1 && (mok || !given->key))
		act_say(a, SAY_MOK_UNTRUSTED, loader_name(loader), SAY_END);
	if (a->dry_run) {
		/* The tools' one caller: a dry run names them, and the image
		 * it compares is the unsigned one. */
		char *none[] = { NULL };

		if (der)
			act_run(a, none, "openssl x509 -inform DER");
		act_run(a, none, "sbsign, then sbverify");
		act_say(a, SAY_WOULD_SIGN, o->key, SAY_END);
		return 0;
	}
	shown_key = o->key;
	if (!given->key) {
		/* Found under the root: the tools get copies. */
		if (stage_file(a, o->key, key) != 0 ||
		    stage_file(a, o->cert, crt) != 0) {
			rc = -1;
			goto done;
		}
		found.key = key;
		found.cert = crt;
	}
	if (der) {
		if (der_to_pem(a, o->cert, pem) != 0) {
			rc = -1;
			goto done;
		}
		found.cert = pem;
	}
	fd = mkstemp(in);
	if (fd < 0 || write(fd, *data, *len) != (ssize_t)*len) {
		if (fd >= 0) {
			close(fd);
			unlink(in);
		}
		rc = act_fail(a, "cannot stage the image for signing");
		goto done;
	}
	close(fd);
	snprintf(out, sizeof(out), "%s.signed", in);
	{
		char *sign[] = { "sbsign",
				 "--key",
				 (char *)o->key,
				 "--cert",
				 (char *)o->cert,
				 "--output",
				 out,
				 in,
				 NULL };
		char *verify[] = { "sbverify", "--cert", (char *)o->cert, out,
				   NULL };

		rc = act_run(a, sign, "sbsign");
		if (rc == 0)
			rc = act_run(a, verify, "sbverify");
	}
	if (rc != 0) {
		unlink(in);
		unlink(out);
		rc = act_fail(a, "signing with %s failed (sbsign/sbverify)",
			      given->key ? given->key : shown_key);
		goto done;
	}
	signed_data = fsx_read(out, &n);
	unlink(in);
	unlink(out);
	if (!signed_data) {
		rc = act_fail(a, "cannot read the signed image");
		goto done;
	}
	free(*data);
	*data = signed_data;
	*len = n;
	act_say(a, SAY_SIGNED, given->key ? given->key : shown_key, SAY_END);
done:
	if (pem[0])
		unlink(pem);
	if (key[0])
		unlink(key);
	if (crt[0])
		unlink(crt);
	return rc;
}

/* Is the ESP a FAT file system?  The root's mount table must say so, and
 * so must the file system itself: a disk from elsewhere can write any
 * mount table, not its own file system type.  (Test trees stand in for
 * FAT on other file systems; only TSCTUI_TEST_ANY_ESP_FS lets them.) */
static int esp_is_fat(struct act *a, const char *esp, struct mount_info *m)
{
	const char *test = getenv("TSCTUI_TEST_ANY_ESP_FS");
	struct statfs sf;
	int fd, rc;

	if (!detect_mount_of(a->root, esp, m))
		return act_fail(a,
				"the ESP %s is not a mounted file system "
				"(no entry in %s/proc/self/mounts)",
				esp, strcmp(a->root, "/") ? a->root : "");
	if (strcmp(m->type, "vfat") && strcmp(m->type, "msdos")) {
		/* The mount table's words are the disk's: shown escaped. */
		char type[4 * sizeof(m->type)], dev[4 * sizeof(m->dev)],
			dir[4 * sizeof(m->dir)];

		return act_fail(a,
				"the ESP must be a FAT file system, and %s "
				"is on %s (%s, mounted at %s)",
				esp, path_shown(m->type, type, sizeof(type)),
				path_shown(m->dev, dev, sizeof(dev)),
				path_shown(m->dir, dir, sizeof(dir)));
	}
	if (test && !strcmp(test, "1"))
		return 0;
	fd = fsx_open_dir(act_path(a, esp));
	rc = fd < 0 ? -1 : fstatfs(fd, &sf);
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		return act_fail(a, "cannot read the file system of %s: %s", esp,
				strerror(errno));
	if (sf.f_type != MSDOS_SUPER_MAGIC)
		return act_fail(a,
				"the ESP %s is not on a FAT file system, "
				"whatever the mount table says",
				esp);
	return 0;
}

static int resolve_esp(struct act *a, const struct install_opts *o,
		       struct tsctui_conf *c)
{
	struct mount_info m;
	const char *why = NULL;

	if (o->esp && !path_is_clean(o->esp))
		return act_fail(a,
				"--esp takes an absolute path without . or "
				".. components, not '%s'",
				o->esp);
	if (o->esp)
		snprintf(c->esp, sizeof(c->esp), "%s", o->esp);
	else if (!detect_esp(a->root, c->esp, sizeof(c->esp), &why))
		return act_fail_hint(a, ACT_HINT_ESP, "%s", why);
	if (!fsx_is_dir(act_path(a, c->esp)))
		return act_fail(a, "the ESP %s is not a directory", c->esp);
	if (esp_is_fat(a, c->esp, &m) != 0)
		return -1;
	if (!fsx_dir_writable(act_path(a, c->esp)))
		return act_fail(a, "the ESP %s is not writable (%s)", c->esp,
				errno == EROFS ? "read-only file system"
					       : strerror(errno));
	detect_uuid_of(a->root, m.dev, c->esp_uuid, sizeof(c->esp_uuid));
	return 0;
}

/* Everything install does once the lock is held and the ledger is open
 * (install_run): -1 leaves act_abort to undo this run's entries. */
static int install_do(struct act *a, const struct install_opts *o,
		      struct tscsync *ts)
{
	struct tsctui_conf c, old;
	char efidir[PATH_UNDER_MAX], src[4300], unit[512], why_sync[256];
	const char *which, *why = NULL;
	const struct loader_writing *w;
	size_t len;
	char *image = NULL, *conf = NULL;
	enum tsc_mode mode = TSC_MODE_MEASURE;
	int have_old, found, rc = -1;

	memset(&c, 0, sizeof(c));
	have_old = config_read(a->root, &old, &why);
	if (have_old < 0)
		return act_fail(a, "%s", why);
	c.loader = o->loader;
	if (o->loader_word && !loader_from(o->loader_word, &c.loader))
		return act_fail(a,
				"unknown loader '%s' (grub, systemd-boot "
				"or efi-entry)",
				o->loader_word);
	if (c.loader == LOADER_NONE) {
		c.loader = detect_loader(a->root, &why);
		if (c.loader == LOADER_NONE)
			return act_fail_hint(a, ACT_HINT_LOADER, "%s", why);
	}
	if (o->next && c.loader != LOADER_EFI_ENTRY)
		return act_fail(a,
				"--next applies to the firmware entry only "
				"(--loader efi-entry), not to %s",
				loader_name(c.loader));
	if (have_old > 0 && old.loader != c.loader)
		return act_fail(a,
				"tsctui is installed for %s; run `tsctui "
				"uninstall` first",
				loader_name(old.loader));
	w = loader_writing(c.loader);
	if (!fsx_dir_writable(act_path(a, "/etc")))
		return act_fail(a,
				"/etc is not writable (%s); nothing "
				"changed",
				strerror(errno));
	if (resolve_esp(a, o, &c) != 0)
		return -1;
	if (w->prepare && w->prepare(a, &c) != 0)
		return -1;
	/* Zanasin/tscsync: two stages at once would fight (migrate.h). */
	found = migrate_find(a, c.esp, ts);
	if (found < 0)
		return -1;
	if (found && !o->migrate)
		return act_fail(a,
				"tscsync is installed (%s); `tsctui install "
				"--migrate` takes over its job, or remove it "
				"with its own uninstaller first",
				ts->sign);
	if (!unit_path(a, unit, sizeof(unit)))
		return act_fail(a,
				UNIT " is not installed under %s (run `make "
				     "install` first)",
				a->root);
	if (!efi_source(efidir, sizeof(efidir), &which))
		return act_fail(a, "cannot find the stage's EFI images (build "
				   "them with `make`, or `make install`)");
	snprintf(src, sizeof(src), "%s/%s", efidir,
		 loader_reading(c.loader)->image_build);
	if (!(image = slurp(a, src, &len)))
		return -1;
	if (is_sim_build(image, len)) {
		act_fail(a,
			 "%s is the sim (test) build; refusing to install it",
			 src);
		goto out;
	}
	if (maybe_sign(a, o, c.loader, &image, &len) != 0)
		goto out;
	act_say(a, SAY_STAGE_FROM, which, src, SAY_END);

	/* From here on, every change is in the ledger before it is made. */
	if (found && migrate_take(a, ts) != 0)
		goto out;
	if (have_old > 0) {
		snprintf(c.efi_entry, sizeof(c.efi_entry), "%s", old.efi_entry);
		snprintf(c.efi_next, sizeof(c.efi_next), "%s", old.efi_next);
	}
	conf = config_format(&c);
	if (!conf || act_put(a, TSCTUI_CONF, conf, strlen(conf), 0644) != 0)
		goto out;
	if (w->place(a, &c, o, image, len, have_old <= 0) != 0)
		goto out;
	/* tscsync's mode means what tsctui's does: sync carried over where
	 * it ran and the stage's own gate allows it. */
	if (found && have_old <= 0 && ts->mode_known &&
	    ts->mode == TSC_MODE_SYNC) {
		if (ts->off)
			act_say(a, SAY_TSCSYNC_SYNC_OFF, SAY_END);
		else if (!mode_sync_allowed(a->root, false, why_sync,
					    sizeof(why_sync)))
			act_say(a, SAY_TSCSYNC_SYNC_REFUSED, why_sync, SAY_END);
		else if (loader_writing(c.loader)->state_write(
				 a, &c, TSC_MODE_SYNC, "", false) != 0)
			goto out;
		else
			mode = TSC_MODE_SYNC;
		if (mode == TSC_MODE_SYNC)
			act_say(a, SAY_TSCSYNC_SYNC_KEPT, SAY_END);
	}
	if (unit_mounts(a, &c) != 0 || enable_unit(a, unit) != 0)
		goto out;
	if (w->regenerate && w->regenerate(a) != 0)
		goto out;
	act_done(a, SAY_INSTALLED, loader_name(c.loader), tsc_mode_name(mode),
		 c.esp, SAY_END);
	rc = 0;
out:
	free(image);
	free(conf);
	return rc;
}

int install_run(struct act *a, const struct install_opts *o)
{
	struct tscsync ts = { 0 };
	int rc;

	if (act_begin(a, "install", 0) != 0)
		return -1;
	rc = install_do(a, o, &ts);
	migrate_free(&ts);
	if (rc != 0) {
		act_abort(a);
		return -1;
	}
	return act_commit(a);
}
