/* SPDX-License-Identifier: MIT */
/* EFI variables (the global GUID's): one tsctui creates, and one it
 * changes (BootOrder), backed up first.  Through libefivar on the live
 * system, as efivarfs files under another root. */
#include <efivar/efivar.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

#define NV_BS_RT                                                               \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS |         \
	 EFI_VARIABLE_RUNTIME_ACCESS)

static const char *var_sys(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, EFIVARS_DIR "/%s-" GUID_EFI_GLOBAL, name);
	return buf;
}

/* NVRAM's one writer: libefivar on the live system, the efivarfs file
 * (attributes, then data) under another root. */
int act_var_set(struct act *a, const char *name, uint32_t attrs,
		const uint8_t *data, size_t len)
{
	char sys[256];
	uint8_t *buf;
	int rc;

	if (a->dry_run)
		return 0;
	fsx_fault_point();
	if (strcmp(a->root, "/") == 0) {
		efi_guid_t g;

		efi_str_to_guid(GUID_EFI_GLOBAL, &g);
		return efi_set_variable(g, name, (uint8_t *)data, len, attrs,
					0644) < 0
			       ? -1
			       : 0;
	}
	buf = malloc(len + 4);
	if (!buf)
		return -1;
	memcpy(buf, &attrs, 4);
	memcpy(buf + 4, data, len);
	rc = fsx_write_atomic(
		act_path_nofollow(a, var_sys(name, sys, sizeof(sys))), buf,
		len + 4, 0644);
	free(buf);
	return rc;
}

int act_var_del(struct act *a, const char *name)
{
	char sys[256];

	if (a->dry_run || !name)
		return name ? 0 : -1;
	if (strcmp(a->root, "/") == 0) {
		efi_guid_t g;

		efi_str_to_guid(GUID_EFI_GLOBAL, &g);
		fsx_fault_point();
		return efi_del_variable(g, name) < 0 && errno != ENOENT ? -1
									: 0;
	}
	return fsx_remove(
		act_path_nofollow(a, var_sys(name, sys, sizeof(sys))));
}

int act_var_create(struct act *a, const char *name, const void *data,
		   size_t len)
{
	char sys[256];

	var_sys(name, sys, sizeof(sys));
	if (act_ledger_add(a, L_VAR, sys) != 0)
		return -1;
	if (act_var_set(a, name, NV_BS_RT, data, len) != 0)
		return act_fail(a, "cannot write the EFI variable %s: %s", name,
				strerror(errno));
	act_change(a, sys, CHANGE_CREATED);
	return 0;
}

int act_var_modify(struct act *a, const char *name, const void *data,
		   size_t len)
{
	char sys[256], bsys[PATH_UNDER_MAX];
	uint32_t attrs = NV_BS_RT;
	size_t have;
	uint8_t *old =
		efivar_read(a->root, name, GUID_EFI_GLOBAL, &have, &attrs);

	var_sys(name, sys, sizeof(sys));
	if (!old && !act_ledger_has(a, L_VARBACKUP, sys))
		return act_var_create(a, name, data, len);
	if (old && have == len && !memcmp(old, data, len)) {
		free(old);
		return 0;
	}
	if (!act_ledger_has(a, L_VARBACKUP, sys) &&
	    !act_ledger_has(a, L_VAR, sys)) {
		uint8_t *copy = malloc(have + 4);
		int rc;

		act_backup_of(sys, bsys, sizeof(bsys));
		if (!copy || act_parent_dirs(a, bsys) != 0 ||
		    act_ledger_add(a, L_VARBACKUP, sys) != 0) {
			free(copy);
			free(old);
			return act_fail(a, "cannot back up %s", name);
		}
		memcpy(copy, &attrs, 4);
		memcpy(copy + 4, old, have);
		rc = a->dry_run ? 0
				: fsx_write_atomic(act_path_nofollow(a, bsys),
						   copy, have + 4, 0600);
		free(copy);
		if (rc != 0) {
			free(old);
			return act_fail(a, "cannot back up %s: %s", name,
					strerror(errno));
		}
	}
	free(old);
	if (act_var_set(a, name, attrs, data, len) != 0)
		return act_fail(a, "cannot write the EFI variable %s: %s", name,
				strerror(errno));
	act_change(a, sys, CHANGE_MODIFIED);
	return 0;
}

int act_var_remove(struct act *a, const char *name, const char *guid)
{
	char sys[256];
	size_t len;
	uint8_t *v = efivar_read(a->root, name, guid, &len, NULL);

	snprintf(sys, sizeof(sys), EFIVARS_DIR "/%s-%s", name, guid);
	if (!v)
		return 0; /* not there: nothing to remove */
	free(v);
	if (!a->dry_run) {
		int rc;

		fsx_fault_point();
		if (strcmp(a->root, "/") == 0) {
			efi_guid_t g;

			efi_str_to_guid(guid, &g);
			/* libefivar makes the efivarfs file mutable first */
			rc = efi_del_variable(g, name) < 0 && errno != ENOENT
				     ? -1
				     : 0;
		} else {
			rc = fsx_remove(act_path_nofollow(a, sys));
		}
		if (rc != 0)
			return act_fail(a,
					"cannot delete the EFI variable %s: %s",
					name, strerror(errno));
	}
	act_change(a, sys, CHANGE_REMOVED);
	return 0;
}
