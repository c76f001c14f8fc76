// SPDX-License-Identifier: MIT
/*
 * Why there is no neuronprof device, from libkmod: is the neuronprof module
 * installed for the running kernel, is it loaded, is the simulator loaded.
 * Also loads a module when nprof_device_open() was allowed to.
 *
 * The message composition (nprof_device_missing_error) is separate from the
 * probing so the host tests can feed it every state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <libkmod.h>

#include "device/device_internal.h"
#include "util/internal.h"

#define CORE_MODULE	"neuronprof"
#define SIM_MODULE	"neuronprof_sim"
#define NEW_DEVICE_PATH	"/sys/bus/platform/drivers/neuronprof_sim/new_device"

static const char *sim_clause(enum nprof_mod_state sim)
{
	switch (sim) {
	case NPROF_MOD_LOADED:
		return "; " SIM_MODULE " is loaded without devices: create one by writing an id to "
		       NEW_DEVICE_PATH;
	case NPROF_MOD_NOT_LOADED:
		return "; no Neuron hardware was found and " SIM_MODULE
		       " is not loaded ('modprobe " SIM_MODULE "' adds simulated devices)";
	case NPROF_MOD_NOT_INSTALLED:
		return "; no Neuron hardware was found and " SIM_MODULE " is not installed";
	case NPROF_MOD_UNKNOWN:
		break;
	}
	return "";
}

int nprof_device_missing_error(const struct nprof_mod_report *r)
{
	const char *rel = r->release[0] ? r->release : "the running kernel";

	if (r->denied_node[0])
		return nprof_err(r->denied_errno ? r->denied_errno : EACCES,
				 "no neuronprof device could be opened: %s: %s (check the permissions of the render node)",
				 r->denied_node, strerror(r->denied_errno ? r->denied_errno : EACCES));
	switch (r->core) {
	case NPROF_MOD_NOT_INSTALLED:
		/*
		 * A plain 'make install' builds for the distribution kernel
		 * whose headers the build finds, which need not be the running
		 * one: name the running kernel, and without its headers offer
		 * the VM demo.
		 */
		if (r->no_headers)
			return nprof_err(ENODEV,
					 "no neuronprof device: the kernel module " CORE_MODULE
					 " is not installed for kernel %s, and that kernel has no headers to build it with (install linux-headers-%s, then 'make install KVER=$(uname -r)'; or try neuronprof on simulated devices in a VM with 'make demo')",
					 rel, rel);
		return nprof_err(ENODEV,
				 "no neuronprof device: the kernel module " CORE_MODULE
				 " is not installed for kernel %s (build and install it for the running kernel with 'make install KVER=$(uname -r)')",
				 rel);
	case NPROF_MOD_NOT_LOADED:
		return nprof_err(ENODEV,
				 "no neuronprof device: the kernel module " CORE_MODULE
				 " is installed but not loaded (load it with 'modprobe " SIM_MODULE
				 "' for simulated devices, or let the library load it with NPROF_DEVICE_LOAD_SIM or NPROF_DEVICE_LOAD_MODULE)");
	case NPROF_MOD_LOADED:
		return nprof_err(ENODEV,
				 "no neuronprof device: the kernel module " CORE_MODULE
				 " is loaded but no device is registered%s",
				 sim_clause(r->sim));
	case NPROF_MOD_UNKNOWN:
		break;
	}
	return nprof_err(ENODEV,
			 "no neuronprof device, and the state of the kernel module " CORE_MODULE
			 " is unknown: %s",
			 r->why_unknown[0] ? r->why_unknown : "libkmod gave no answer");
}

/* State of one module: loaded (sysfs), else installed (module index). */
static enum nprof_mod_state module_state(struct kmod_ctx *ctx, const char *name, char *why,
					 size_t whylen)
{
	struct kmod_module *mod = NULL;
	struct kmod_list *list = NULL, *l;
	enum nprof_mod_state st = NPROF_MOD_NOT_INSTALLED;
	int err;

	/* A module loaded from anywhere (insmod of a path) is in sysfs. */
	err = kmod_module_new_from_name(ctx, name, &mod);
	if (err < 0) {
		snprintf(why, whylen, "libkmod cannot look up %s: %s", name, strerror(-err));
		return NPROF_MOD_UNKNOWN;
	}
	err = kmod_module_get_initstate(mod);
	kmod_module_unref(mod);
	if (err == KMOD_MODULE_LIVE || err == KMOD_MODULE_BUILTIN || err == KMOD_MODULE_COMING)
		return NPROF_MOD_LOADED;

	err = kmod_module_new_from_lookup(ctx, name, &list);
	if (err < 0) {
		snprintf(why, whylen, "libkmod cannot search the module index for %s: %s", name,
			 strerror(-err));
		return NPROF_MOD_UNKNOWN;
	}
	kmod_list_foreach(l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		if (!strcmp(kmod_module_get_name(m), name) && kmod_module_get_path(m))
			st = NPROF_MOD_NOT_LOADED;
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	return st;
}

int nprof_kmod_query(struct nprof_mod_report *r)
{
	struct kmod_ctx *ctx;
	struct utsname u;

	if (!uname(&u)) {
		char mk[sizeof(r->release) + 32];
		struct stat st;

		snprintf(r->release, sizeof(r->release), "%s", u.release);
		snprintf(mk, sizeof(mk), "/lib/modules/%s/build/Makefile", r->release);
		r->no_headers = stat(mk, &st) || !S_ISREG(st.st_mode);
	}
	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		r->core = r->sim = NPROF_MOD_UNKNOWN;
		snprintf(r->why_unknown, sizeof(r->why_unknown),
			 "libkmod cannot open the module directory of kernel %s", r->release);
		return -ENOENT;
	}
	r->core = module_state(ctx, CORE_MODULE, r->why_unknown, sizeof(r->why_unknown));
	r->sim = module_state(ctx, SIM_MODULE, r->why_unknown, sizeof(r->why_unknown));
	kmod_unref(ctx);
	return 0;
}

int nprof_kmod_load(const char *name)
{
	struct kmod_list *list = NULL, *l;
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int err;

	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return nprof_err(ENOENT, "cannot load kernel module %s: libkmod cannot open the module directory",
				 name);
	err = kmod_module_new_from_lookup(ctx, name, &list);
	if (err < 0) {
		err = nprof_err(-err, "cannot load kernel module %s: module index lookup failed: %s", name,
				strerror(-err));
		goto out;
	}
	kmod_list_foreach(l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		if (!mod && !strcmp(kmod_module_get_name(m), name))
			mod = m;
		else
			kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	if (!mod) {
		err = nprof_err(ENOENT, "cannot load kernel module %s: it is not installed", name);
		goto out;
	}
	/* Resolves dependencies (neuronprof_sim needs neuronprof), like modprobe. */
	err = kmod_module_probe_insert_module(mod, 0, NULL, NULL, NULL, NULL);
	if (err < 0)
		err = nprof_err(-err, "cannot load kernel module %s: %s%s", name, strerror(-err),
				err == -EPERM ? " (loading modules needs CAP_SYS_MODULE)" : "");
	else if (err > 0)
		err = nprof_err(EPERM, "cannot load kernel module %s: refused by the modprobe configuration",
				name);
	kmod_module_unref(mod);
out:
	kmod_unref(ctx);
	return err;
}
