/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "virt.h"

/* DMI words only hypervisors give: whole words of sys_vendor or
 * product_name, as QEMU/KVM ("QEMU", "Standard PC ..."; Red Hat's
 * "KVM"), VMware ("VMware, Inc.", "VMware Virtual Platform"),
 * VirtualBox ("innotek GmbH", "VirtualBox"), Xen ("Xen", "HVM domU"),
 * Bochs, bhyve ("BHYVE"), Parallels, Google Compute Engine and OpenStack
 * give them.  Microsoft is also a laptop maker: only its product "Virtual
 * Machine" counts. */
static const char *const dmi_words[] = {
	"QEMU",	   "KVM",	"VMware",    "VirtualBox",
	"innotek", "Xen",	"Bochs",     "BHYVE",
	"bhyve",   "Parallels", "OpenStack", "Google Compute Engine",
};

/* word in s as a whole word (not "Xenon" for "Xen"). */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(s, word); p; p = strstr(p + 1, word)) {
		char before = p == s ? ' ' : p[-1], after = p[n];

		if (!((before >= 'A' && before <= 'Z') ||
		      (before >= 'a' && before <= 'z')) &&
		    !((after >= 'A' && after <= 'Z') ||
		      (after >= 'a' && after <= 'z')))
			return true;
	}
	return false;
}

bool virt_dmi_hypervisor(const char *vendor, const char *product,
			 const char **word)
{
	size_t i;

	for (i = 0; i < sizeof(dmi_words) / sizeof(dmi_words[0]); i++)
		if (has_word(vendor, dmi_words[i]) ||
		    has_word(product, dmi_words[i])) {
			*word = dmi_words[i];
			return true;
		}
	if (has_word(vendor, "Microsoft") &&
	    has_word(product, "Virtual Machine")) {
		*word = "Microsoft Virtual Machine";
		return true;
	}
	return false;
}

bool virt_fast_clock(const char *cs)
{
	return !strcmp(cs, "tsc") || !strcmp(cs, "kvm-clock") ||
	       !strcmp(cs, "hyperv_clocksource_tsc_page") || !strcmp(cs, "xen");
}

static void add(struct virt_evidence *v, const char *a, const char *b)
{
	if (v->n == VIRT_MAX_EVIDENCE)
		return;
	snprintf(v->what[v->n], sizeof(v->what[0]), "%.44s%.80s", a, b);
	v->n++;
	v->virtual_machine = true;
}

void virt_evidence_read(const struct sysinfo *s, struct virt_evidence *v)
{
	const struct klog *k = s->have_klog ? s->klog : NULL;
	const char *word;
	size_t i;
	int j;

	memset(v, 0, sizeof(*v));
	if (s->cpu.hypervisor)
		add(v, "cpuinfo: hypervisor flag", "");
	for (i = 0; k && i < k->n; i++) {
		const struct klog_event *e = &k->ev[i];

		if (e->kind == KLOG_HYPERVISOR)
			add(v, "log: Hypervisor detected: ", e->text);
		/* "on bare hardware" is a paravirt kernel on no hypervisor */
		else if (e->kind == KLOG_PARAVIRT &&
			 strcmp(e->text, "bare hardware"))
			add(v, "log: Booting paravirtualized kernel on ",
			    e->text);
	}
	if (kernlog_paravirt_clock(s->cs.current)) {
		add(v, "clocksource: ", s->cs.current);
	} else {
		for (j = 0; j < s->cs.navailable; j++)
			if (kernlog_paravirt_clock(s->cs.available[j])) {
				add(v, "clocksource: ", s->cs.available[j]);
				break;
			}
		if (j == s->cs.navailable && k && k->paravirt_cs[0])
			add(v, "log: clocksource ", k->paravirt_cs);
	}
	if (virt_dmi_hypervisor(s->machine.vendor, s->machine.product, &word))
		add(v, "dmi: ", word);
	else if (k && virt_dmi_hypervisor(k->dmi, k->dmi, &word))
		add(v, "log: DMI: ", word);
}
