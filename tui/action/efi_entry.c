/* SPDX-License-Identifier: MIT */
/*
 * The firmware boot entry path: Boot#### "tsctui", first in BootOrder,
 * starting ESP\EFI\tsctui\tsctui.efi with "config=esp next=BootXXXX".
 * The device path is made by libefivar's node makers from the partition
 * facts the kernel exposes (/sys/class/block/<part>/{partition,start,size}
 * and /dev/disk/by-partuuid), the load option by efi_loadopt_create: no
 * hand-built bytes.  NVRAM is written by act_var.c (libefivar on the live
 * system; under another root, the efivarfs files of that root), each
 * variable in the ledger before it is written: the entry as created, the
 * BootOrder as changed, its bytes from before kept for uninstall.
 */
#include <efivar/efiboot.h>
#include <efivar/efivar.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "../source/detect.h"
#include "../source/stage_state.h"
#include "efi_entry.h"
#include "loader_writing.h"
#include "stagecfg.h"

#define LOAD_OPTION_ACTIVE 0x1
#define STAGE_PATH "\\EFI\\tsctui\\tsctui.efi"

static bool var_exists(struct act *a, const char *name)
{
	size_t n;
	uint8_t *d = efivar_read(a->root, name, GUID_EFI_GLOBAL, &n, NULL);

	free(d);
	return d != NULL;
}

/* Does the entry's device path name a file on a disk (HD, then File), and
 * not a network or a removable medium? */
static bool starts_a_loader(struct act *a, uint16_t num)
{
	char name[16];
	size_t n;
	uint8_t *d;
	const_efidp dp;
	bool hd = false, file = false, net = false;
	ssize_t limit;

	snprintf(name, sizeof(name), "Boot%04X", num);
	d = efivar_read(a->root, name, GUID_EFI_GLOBAL, &n, NULL);
	if (!d || !efi_loadopt_is_valid((efi_load_option *)d, n)) {
		free(d);
		return false;
	}
	dp = efi_loadopt_path((efi_load_option *)d, (ssize_t)n);
	limit = efi_loadopt_pathlen((efi_load_option *)d, (ssize_t)n);
	while (dp && limit > 0) {
		uint8_t t = efidp_type(dp), st = efidp_subtype(dp);
		const_efidp next;

		if (t == EFIDP_MEDIA_TYPE && st == EFIDP_MEDIA_HD)
			hd = true;
		if (t == EFIDP_MEDIA_TYPE && st == EFIDP_MEDIA_FILE)
			file = true;
		if (t == EFIDP_MESSAGE_TYPE &&
		    (st == EFIDP_MSG_MAC_ADDR || st == EFIDP_MSG_IPv4 ||
		     st == EFIDP_MSG_IPv6 || st == EFIDP_MSG_URI ||
		     st == EFIDP_MSG_USB))
			net = true;
		if (efidp_next_node(dp, &next) <= 0)
			break;
		limit -= efidp_node_size(dp);
		dp = next;
	}
	free(d);
	return hd && file && !net;
}

/* The ESP's partition, from what the kernel exposes. */
static int esp_partition(struct act *a, const char *esp, uint32_t *num,
			 uint64_t *start, uint64_t *size, efi_guid_t *guid)
{
	/* path_shown writes up to 4 bytes for each one (\xNN): shown holds
	 * the longest device either name can be, never cut. */
	char sys[512], v[300], real[300], shown[4 * sizeof(real)];
	_Static_assert(sizeof(((struct mount_info *)0)->dev) <= sizeof(real),
		       "shown is sized from real");
	const char *dev, *base;
	struct mount_info m;
	bool found;
	size_t n;
	char *d;

	if (!detect_mount_of(a->root, esp, &m))
		return act_fail(a, "%s is not a mounted file system", esp);
	dev = m.dev;
	/* The device as the target's mount table or fstab names it (any
	 * byte a hostile disk put there) is shown escaped, as every path
	 * from a disk is (util/path.h). */
	path_shown(dev, shown, sizeof(shown));
	/* A root mounted from a live system has no mount table: its fstab
	 * names the ESP by UUID, and the root's own /dev/disk says which
	 * partition that is (the running system's is not read). */
	if (!strncmp(dev, "UUID=", 5) || !strncmp(dev, "PARTUUID=", 9)) {
		if (!detect_dev_by_uuid(a->root, dev, real, sizeof(real)))
			return act_fail(
				a,
				"the ESP is %s in the target's /etc/fstab, "
				"and %s/dev/disk has no link that says which "
				"partition that is: give the root the running "
				"system's /dev and /sys (mount --rbind /dev "
				"%s/dev; mount --rbind /sys %s/sys), then run "
				"install again",
				shown, a->root, a->root, a->root);
		dev = real;
		path_shown(dev, shown, sizeof(shown));
	}
	base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	snprintf(sys, sizeof(sys), "/sys/class/block/%s/", base);
	{
		static const char *const f[] = { "partition", "start", "size" };
		uint64_t vals[3];
		int i;

		for (i = 0; i < 3; i++) {
			char p[600], p_shown[4 * sizeof(p)];

			snprintf(p, sizeof(p), "%s%s", sys, f[i]);
			d = fsx_read(act_path(a, p), &n);
			if (!d)
				return act_fail(
					a,
					"cannot read %s: is the ESP "
					"(%s) a partition?",
					path_shown(p, p_shown, sizeof(p_shown)),
					shown);
			vals[i] = strtoull(d, NULL, 10);
			free(d);
		}
		*num = (uint32_t)vals[0];
		*start = vals[1];
		*size = vals[2];
	}
	found = detect_link_to(a->root, "/dev/disk/by-partuuid", dev, v,
			       sizeof(v));
	if (!found || efi_str_to_guid(v, guid) < 0)
		return act_fail(a,
				"cannot find the GPT partition GUID of %s in "
				"/dev/disk/by-partuuid",
				shown);
	return 0;
}

/* HD(...)/File(\EFI\tsctui\tsctui.efi)/End, by libefivar's makers. */
static ssize_t make_path(uint32_t num, uint64_t start, uint64_t size,
			 efi_guid_t *guid, uint8_t *buf, ssize_t cap)
{
	ssize_t hd, file, end;

	hd = efidp_make_hd(buf, cap, num, start, size, (uint8_t *)guid,
			   EFIDP_HD_FORMAT_GPT, EFIDP_HD_SIGNATURE_GUID);
	if (hd < 0)
		return -1;
	file = efidp_make_file(buf ? buf + hd : NULL, buf ? cap - hd : 0,
			       (char *)STAGE_PATH);
	if (file < 0)
		return -1;
	end = efidp_make_end_entire(buf ? buf + hd + file : NULL,
				    buf ? cap - hd - file : 0);
	if (end < 0)
		return -1;
	return hd + file + end;
}

int efi_entry_install(struct act *a, struct tsctui_conf *c, const char *next)
{
	uint16_t order[64], neworder[65], chosen = 0, num;
	char text[512], name[16], why[160] = "";
	uint8_t path[512], *opt;
	uint16_t optdata[64];
	efi_guid_t guid;
	uint64_t start = 0, size = 0;
	uint32_t part = 0;
	ssize_t plen, olen;
	size_t n, i, k;
	const char *args;
	bool have = false;

	if (strcmp(a->root, "/") == 0 && !efi_variables_supported())
		return act_fail(a, "this system has no EFI variables: the "
				   "firmware entry path needs UEFI");
	if (esp_partition(a, c->esp, &part, &start, &size, &guid) != 0)
		return -1;
	n = efivar_boot_order(a->root, order, 64);
	if (next) {
		unsigned v;

		if (sscanf(next, "Boot%4x", &v) != 1 || strlen(next) != 8)
			return act_fail(a, "--next takes BootXXXX, not '%s'",
					next);
		snprintf(name, sizeof(name), "Boot%04X", v);
		if (!var_exists(a, name))
			return act_fail(a, "%s does not exist", name);
		chosen = (uint16_t)v;
		have = true;
		snprintf(why, sizeof(why), "as --next says");
	}
	for (i = 0; !have && i < n; i++) {
		if (starts_a_loader(a, order[i])) {
			chosen = order[i];
			have = true;
			snprintf(why, sizeof(why),
				 i == 0 ? "the first entry before"
					: "the first entry that "
					  "starts a loader from "
					  "a disk (Boot%04X does "
					  "not)",
				 order[0]);
		}
	}
	if (!have)
		return act_fail_hint(a, ACT_HINT_NEXT,
				     "no boot entry starts a loader from a "
				     "disk");
	for (num = 0; num < 0xffff; num++) {
		snprintf(name, sizeof(name), "Boot%04X", num);
		if (!var_exists(a, name))
			break;
	}
	/* The load option: the path, and "config=esp next=BootXXXX" as
	 * UTF-16 with a terminating NUL (what the stage reads). */
	plen = make_path(part, start, size, &guid, path, sizeof(path));
	if (plen < 0)
		return act_fail(a, "libefivar could not make the device path");
	snprintf(text, sizeof(text), "config=esp next=Boot%04X", chosen);
	for (k = 0; text[k] && k + 1 < 64; k++)
		optdata[k] = (uint16_t)text[k];
	optdata[k++] = 0;
	olen = efi_loadopt_create(NULL, 0, LOAD_OPTION_ACTIVE, (efidp)path,
				  plen, (unsigned char *)"tsctui",
				  (uint8_t *)optdata, k * 2);
	if (olen <= 0 || !(opt = malloc((size_t)olen)))
		return act_fail(a, "libefiboot could not make the load option");
	efi_loadopt_create(opt, olen, LOAD_OPTION_ACTIVE, (efidp)path, plen,
			   (unsigned char *)"tsctui", (uint8_t *)optdata,
			   k * 2);

	/* The entry, then the order that starts it; the ledger keeps the
	 * BootOrder from before, to put back byte for byte. */
	if (act_var_create(a, name, opt, (size_t)olen) != 0) {
		free(opt);
		return -1;
	}
	free(opt);
	neworder[0] = num;
	for (i = 0; i < n; i++)
		neworder[i + 1] = order[i];
	if (act_var_modify(a, "BootOrder", neworder, (n + 1) * 2) != 0)
		return -1;
	snprintf(c->efi_entry, sizeof(c->efi_entry), "%s", name);
	snprintf(c->efi_next, sizeof(c->efi_next), "Boot%04X", chosen);
	args = c->efi_next;
	act_done(a, SAY_ENTRY_CREATED, name, args, why, SAY_END);
	return 0;
}

/* The stage's options and image, then the entry that starts it, then the
 * configuration again with the entry's number. */
static int place(struct act *a, struct tsctui_conf *c,
		 const struct install_opts *o, const char *image, size_t len,
		 bool fresh)
{
	char sys[PATH_UNDER_MAX];
	char *conf;
	int rc;

	if (fresh && stagecfg_esp_write(a, c, TSC_MODE_MEASURE, "", true) != 0)
		return -1;
	path_join(c->esp, loader_efi_entry.image, sys, sizeof(sys));
	if (act_put(a, sys, image, len, 0644) != 0)
		return -1;
	if (fresh && efi_entry_install(a, c, o->next) != 0)
		return -1;
	conf = config_format(c);
	rc = !conf || act_put(a, TSCTUI_CONF, conf, strlen(conf), 0644) != 0
		     ? -1
		     : 0;
	free(conf);
	return rc;
}

const struct loader_writing efi_entry_writing = {
	.prepare = NULL,
	.place = place,
	.regenerate = NULL,
	.settle = NULL,
	.state_write = stagecfg_esp_write,
	.boot_ok = stagecfg_esp_boot_ok,
	.firmware_checks = true,
	.mok_refused = true,
};
