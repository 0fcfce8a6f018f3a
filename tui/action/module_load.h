/* SPDX-License-Identifier: MIT */
/* Loads a kernel module (the rate check's rtc_cmos), with libkmod. */
#ifndef TSCTUI_ACTION_MODULE_LOAD_H
#define TSCTUI_ACTION_MODULE_LOAD_H

/* 0, or -1 with *err. */
int module_load(const char *name, const char **err);

#endif
