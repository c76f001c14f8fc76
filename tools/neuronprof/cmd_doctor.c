// SPDX-License-Identifier: MIT
/*
 * neuronprof doctor: why neuronprof does or does not work on this machine,
 * and what to do about it. It asks libkmod whether the modules are in the
 * module tree of the running kernel and whether they are loaded, reads their
 * parameters from /sys/module, and looks at every DRM render node: which
 * driver it belongs to, its owner, group and mode, and whether this user may
 * open it. On a Neuron instance (Neuron PCI devices or neuron.ko loaded) it
 * also reports the vendor driver and its version, whether it carries the
 * neuronprof hook and whether the provider neuronprof_neuron is loaded.
 * Each problem comes with the command that fixes it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libkmod.h>
#include <xf86drm.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>

#include "util/json.h"
#include "util/options.h"
#include "tool.h"


#define MAX_PARAMS	16
#define MAX_NODES	64
#define MAX_PROBLEMS	16

struct param {
	char name[64];
	char value[128];
};

struct module_report {
	const char *name;
	bool installed;		/* in the module tree (or built in) */
	bool builtin;
	char path[PATH_MAX];
	char version[64];	/* modinfo version, if any */
	char vermagic[128];	/* modinfo vermagic: the kernel it was built for */
	const char *state;	/* "live", "coming", "going", "builtin", "not loaded" */
	bool loaded;
	int refcnt;
	struct param params[MAX_PARAMS];
	int nparams;
};

struct node_report {
	char path[PATH_MAX];
	char driver[64];	/* DRM driver name, or the kernel module behind it */
	bool neuronprof;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	char owner[64];
	char group[64];
	bool can_open;
	char open_error[256];
	bool have_info;
	uint32_t device_index, arch, num_cores;
};

struct problem {
	char what[512];
	char fix[800];
};

/* A Neuron instance: the vendor driver, its neuronprof hook, the provider. */
struct neuron_report {
	int pci_devices;	/* Neuron PCI functions (vendor 0x1d0f, trn1/inf2/trn2) */
	bool vendor_loaded;	/* neuron.ko */
	char vendor_version[64];
	bool hook;		/* neuron.ko exports neuron_nq_hook_register */
	bool provider_loaded;	/* neuronprof_neuron.ko */
};

struct report {
	char release[256];
	char moddir[PATH_MAX];
	bool moddir_exists;
	bool have_headers;	/* <moddir>/build holds a kernel build tree */
	char user[64];
	uid_t uid;
	struct module_report mods[2];
	struct node_report nodes[MAX_NODES];
	int nnodes;
	int neuronprof_nodes;	/* nodes of the neuronprof driver */
	int usable;		/* of those, opened and described by this user */
	struct problem problems[MAX_PROBLEMS];
	int nproblems;
	struct neuron_report neuron;
};

static void problem(struct report *r, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct report *r, const char *fix, const char *fmt, ...)
{
	struct problem *p;
	va_list ap;

	if (r->nproblems == MAX_PROBLEMS)
		return;
	p = &r->problems[r->nproblems++];
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	snprintf(p->fix, sizeof(p->fix), "%s", fix);
}

static void read_params(struct module_report *m)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", m->name);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && m->nparams < MAX_PARAMS) {
		struct param *p = &m->params[m->nparams];
		char path[PATH_MAX + 256];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p->name, sizeof(p->name), "%.*s", (int)sizeof(p->name) - 1, de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(p->value, sizeof(p->value), "(unreadable: %s)", strerror(errno));
		} else {
			n = read(fd, p->value, sizeof(p->value) - 1);
			p->value[n > 0 ? n : 0] = '\0';
			p->value[strcspn(p->value, "\n")] = '\0';
			close(fd);
		}
		m->nparams++;
	}
	closedir(d);
}

static void module_info(struct module_report *m, struct kmod_module *mod)
{
	struct kmod_list *info = NULL, *l;

	if (kmod_module_get_info(mod, &info) < 0)
		return;
	kmod_list_foreach(l, info) {
		const char *key = kmod_module_info_get_key(l);
		const char *val = kmod_module_info_get_value(l);

		if (!key || !val)
			continue;
		if (!strcmp(key, "version"))
			snprintf(m->version, sizeof(m->version), "%s", val);
		else if (!strcmp(key, "vermagic")) {
			size_t n;

			snprintf(m->vermagic, sizeof(m->vermagic), "%s", val);
			n = strlen(m->vermagic);
			while (n && m->vermagic[n - 1] == ' ')
				m->vermagic[--n] = '\0';
		}
	}
	kmod_module_info_free_list(info);
}

static void check_module(struct kmod_ctx *ctx, struct module_report *m)
{
	struct kmod_list *list = NULL, *l;
	struct kmod_module *mod = NULL;
	int st;

	m->state = "not loaded";
	if (ctx && kmod_module_new_from_lookup(ctx, m->name, &list) >= 0) {
		kmod_list_foreach(l, list) {
			struct kmod_module *cand = kmod_module_get_module(l);

			if (!mod && !strcmp(kmod_module_get_name(cand), m->name))
				mod = cand;
			else
				kmod_module_unref(cand);
		}
		kmod_module_unref_list(list);
	}
	if (mod) {
		const char *path = kmod_module_get_path(mod), *state;

		if (path) {
			m->installed = true;
			snprintf(m->path, sizeof(m->path), "%s", path);
			module_info(m, mod);
		}
		/* "builtin", "live", "coming" or "going": loaded; NULL: not. */
		st = kmod_module_get_initstate(mod);
		state = st >= 0 ? kmod_module_initstate_str(st) : NULL;
		if (state) {
			m->state = state;
			m->loaded = true;
			m->builtin = st == KMOD_MODULE_BUILTIN;
			m->installed |= m->builtin;
		}
		if (m->loaded && !m->builtin)
			m->refcnt = kmod_module_get_refcnt(mod);
		kmod_module_unref(mod);
	} else {
		/* Not in the module index: /sys/module still tells whether it is loaded. */
		char path[PATH_MAX];
		struct stat sb;

		snprintf(path, sizeof(path), "/sys/module/%s/initstate", m->name);
		if (!stat(path, &sb)) {
			m->loaded = true;
			m->state = "live";
		}
	}
	if (m->loaded)
		read_params(m);
}

/* Read the first line of a sysfs file into @buf; false if it cannot be read. */
static bool read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/*
 * Neuron devices and the vendor driver: PCI functions with the ids
 * neuron.ko claims, whether it is loaded and which version, whether it
 * carries the neuronprof hook (its symbol in /proc/kallsyms, whose names
 * are readable without privileges), and whether the provider is loaded.
 */
static void check_neuron(struct neuron_report *nr)
{
	static const char *const ids[] = { "0x7164", "0x7264", "0x7364" };
	/* Tests point this at a fake /sys and /proc; empty on a real system. */
	const char *root = getenv("NEURONPROF_DOCTOR_ROOT") ? getenv("NEURONPROF_DOCTOR_ROOT") : "";
	char path[PATH_MAX], vendor[16], device[16], line[512];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/vendor", root, de->d_name);
		if (!read_first_line(path, vendor, sizeof(vendor)) || strcmp(vendor, "0x1d0f"))
			continue;
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/device", root, de->d_name);
		if (!read_first_line(path, device, sizeof(device)))
			continue;
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			if (!strcmp(device, ids[i]))
				nr->pci_devices++;
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "%s/sys/module/neuron", root);
	nr->vendor_loaded = !stat(path, &sb);
	snprintf(path, sizeof(path), "%s/sys/module/neuron/version", root);
	if (nr->vendor_loaded)
		read_first_line(path, nr->vendor_version, sizeof(nr->vendor_version));
	snprintf(path, sizeof(path), "%s/sys/module/neuronprof_neuron", root);
	nr->provider_loaded = !stat(path, &sb);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", root);
	f = nr->vendor_loaded ? fopen(path, "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, " neuron_nq_hook_register\t[neuron]") ||
		    strstr(line, " neuron_nq_hook_register [neuron]")) {
			nr->hook = true;
			break;
		}
	}
	if (f)
		fclose(f);
}

static void diagnose_neuron(struct report *r)
{
	const struct neuron_report *nr = &r->neuron;

	if (!nr->pci_devices && !nr->vendor_loaded)
		return;		/* not a Neuron instance */
	if (!nr->vendor_loaded) {
		problem(r, "install the vendor driver (the aws-neuronx-dkms package), then: sudo "
			"modprobe neuron",
			"%d Neuron device%s but the vendor driver neuron.ko is not loaded",
			nr->pci_devices, nr->pci_devices == 1 ? "" : "s");
		return;
	}
	if (!nr->hook) {
		if (strcmp(nr->vendor_version, "2.24.7.0"))
			problem(r, "install aws-neuronx-dkms 2.24.7.0, or port driver/neuron/vendor/ "
				"to this version (Documentation/hardware.rst)",
				"neuron.ko %s lacks the neuronprof hook, and the hook series is for "
				"2.24.7.0 only", nr->vendor_version[0] ? nr->vendor_version : "(no version)");
		else
			problem(r, "sudo neuronprof-neuron-hook install (package neuronprof-dkms, or "
				"make install; in the neuronprof sources: sudo "
				"scripts/neuron-vendor-hook.sh install), stop the Neuron runtime, "
				"then: sudo rmmod neuron && sudo modprobe neuron",
				"neuron.ko %s does not carry the neuronprof hook", nr->vendor_version);
		return;
	}
	if (!nr->provider_loaded)
		problem(r, "sudo modprobe neuronprof_neuron",
			"neuron.ko carries the hook but the provider neuronprof_neuron is not loaded");
}

/* The kernel module behind a render node, from sysfs (no open needed). */
static void node_module(const struct stat *st, char *buf, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device/driver/module",
		 major(st->st_rdev), minor(st->st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/device/driver",
			 major(st->st_rdev), minor(st->st_rdev));
		n = readlink(link, target, sizeof(target) - 1);
	}
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	target[n] = '\0';
	snprintf(buf, len, "%s", basename(target));
}

static void check_node(struct node_report *n)
{
	struct passwd *pw;
	struct group *gr;
	struct stat st;
	int fd;

	if (stat(n->path, &st)) {
		snprintf(n->open_error, sizeof(n->open_error), "cannot stat: %s", strerror(errno));
		return;
	}
	n->mode = st.st_mode;
	n->uid = st.st_uid;
	n->gid = st.st_gid;
	pw = getpwuid(st.st_uid);
	gr = getgrgid(st.st_gid);
	snprintf(n->owner, sizeof(n->owner), "%s", pw ? pw->pw_name : "?");
	if (!pw)
		snprintf(n->owner, sizeof(n->owner), "%u", (unsigned int)st.st_uid);
	if (gr)
		snprintf(n->group, sizeof(n->group), "%s", gr->gr_name);
	else
		snprintf(n->group, sizeof(n->group), "%u", (unsigned int)st.st_gid);
	node_module(&st, n->driver, sizeof(n->driver));

	fd = open(n->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(n->open_error, sizeof(n->open_error), "%s", strerror(errno));
	} else {
		drmVersionPtr v = drmGetVersion(fd);

		n->can_open = true;
		if (v) {
			snprintf(n->driver, sizeof(n->driver), "%.*s", v->name_len,
				 v->name ? v->name : "");
			drmFreeVersion(v);
		}
		close(fd);
	}
	n->neuronprof = !strcmp(n->driver, NEURONPROF_DRIVER_NAME) ||
			!strcmp(n->driver, "neuronprof_sim");
	if (n->neuronprof && n->can_open) {
		struct nprof_device *dev = nprof_device_open_path(n->path);
		struct nprof_device_info info = { .size = sizeof(info) };

		if (dev && !nprof_device_get_info(dev, &info)) {
			n->have_info = true;
			n->device_index = info.device_index;
			n->arch = info.arch;
			n->num_cores = info.num_cores;
		} else {
			snprintf(n->open_error, sizeof(n->open_error), "%s", nprof_strerror_last());
		}
		nprof_device_close(dev);
	}
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct node_report *)a)->path, ((const struct node_report *)b)->path);
}

static void scan_nodes(struct report *r)
{
	struct dirent *de;
	DIR *d = opendir("/dev/dri");

	if (!d)
		return;
	while ((de = readdir(d)) && r->nnodes < MAX_NODES) {
		struct node_report *n;

		if (strncmp(de->d_name, "renderD", 7))
			continue;
		n = &r->nodes[r->nnodes++];
		snprintf(n->path, sizeof(n->path), "/dev/dri/%s", de->d_name);
		check_node(n);
		if (n->neuronprof)
			r->neuronprof_nodes++;
		if (n->neuronprof && n->have_info)
			r->usable++;
	}
	closedir(d);
	qsort(r->nodes, (size_t)r->nnodes, sizeof(r->nodes[0]), cmp_node);
}

static bool user_in_group(gid_t gid)
{
	gid_t groups[256];
	int n;

	if (getegid() == gid)
		return true;
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * How to get the modules for the running kernel. A plain "make install"
 * builds for the distribution kernel whose headers the build finds, which
 * need not be the running one: name the running kernel, and when its
 * headers are missing, say so and offer the VM demo instead.
 */
static void install_fix(const struct report *r, char *buf, size_t len)
{
	if (r->have_headers)
		snprintf(buf, len, "build and install the modules for the running kernel: sudo make "
			 "install KVER=$(uname -r) in the neuronprof source tree");
	else
		snprintf(buf, len, "there are no headers of kernel %.64s (%.200s/build) to build the "
			 "modules for it: install linux-headers-%.64s, then sudo make install KVER=$(uname -r) in "
			 "the neuronprof source tree; or try neuronprof on simulated devices in a VM "
			 "with make demo", r->release, r->moddir, r->release);
}

static void diagnose(struct report *r)
{
	const struct module_report *core = &r->mods[0], *sim = &r->mods[1];
	char fix[800], install[640];

	diagnose_neuron(r);
	install_fix(r, install, sizeof(install));
	if (!r->moddir_exists) {
		snprintf(fix, sizeof(fix), "boot a kernel that has its modules installed, or install "
			 "neuronprof for this one: %s", install);
		problem(r, fix, "the module directory %s of the running kernel %s does not exist",
			r->moddir, r->release);
	}
	if (!core->installed && !core->loaded)
		problem(r, install, "the kernel module neuronprof is not installed for kernel %s",
			r->release);
	if (!sim->installed && !sim->loaded && !core->loaded)
		problem(r, install,
			"the kernel module neuronprof_sim (simulated devices) is not installed for "
			"kernel %s", r->release);
	if (core->installed && !core->loaded && !sim->loaded) {
		if (sim->installed)
			problem(r, "run: sudo modprobe neuronprof_sim (simulated devices; it loads "
				"neuronprof too), or sudo modprobe neuronprof for hardware",
				"neuronprof is installed but not loaded");
		else
			problem(r, "run: sudo modprobe neuronprof",
				"neuronprof is installed but not loaded");
	}
	if (core->loaded && !r->neuronprof_nodes && !r->neuron.provider_loaded &&
	    (r->neuron.pci_devices || r->neuron.vendor_loaded)) {
		/* diagnose_neuron() says what the instance lacks. */
	} else if (core->loaded && !r->neuronprof_nodes) {
		if (sim->loaded)
			problem(r, "create a simulated device: echo 0 | sudo tee "
				"/sys/bus/platform/drivers/neuronprof_sim/new_device (or reload with "
				"sudo modprobe -r neuronprof_sim; sudo modprobe neuronprof_sim devices=1)",
				"neuronprof_sim is loaded but no neuronprof device exists (parameter "
				"devices=0, or every device was deleted)");
		else
			problem(r, sim->installed ? "run: sudo modprobe neuronprof_sim" :
				"load a provider: install neuronprof_sim, or a hardware provider",
				"neuronprof is loaded but no provider registered a device");
	}
	for (int i = 0; i < r->nnodes; i++) {
		const struct node_report *n = &r->nodes[i];
		bool in_group;

		if (!n->neuronprof)
			continue;
		if (n->can_open) {
			if (!n->have_info)
				problem(r, "check the kernel log (dmesg) for neuronprof errors",
					"%s opens but does not answer GET_INFO: %s", n->path,
					n->open_error);
			continue;
		}
		in_group = user_in_group(n->gid);
		if (in_group && (n->mode & 060) != 060)
			snprintf(fix, sizeof(fix), "give the group read/write access: sudo chmod "
				 "g+rw %s (a udev rule makes it permanent)", n->path);
		else if (!in_group && (n->mode & 060) == 060)
			snprintf(fix, sizeof(fix), "add your user to group %s: sudo usermod -aG %s "
				 "%s, then log in again", n->group, n->group, r->user);
		else
			snprintf(fix, sizeof(fix), "ask for read/write access to %s (mode %04o, "
				 "owner %s, group %s), e.g. a udev rule with GROUP=\"render\", "
				 "MODE=\"0660\"", n->path, (unsigned int)(n->mode & 07777), n->owner,
				 n->group);
		problem(r, fix, "%s (neuronprof) cannot be opened by %s: %s", n->path, r->user,
			n->open_error);
	}
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static void print_text(const struct report *r)
{
	printf("kernel %s, module directory %s%s\n", r->release, r->moddir,
	       r->moddir_exists ? "" : " (missing)");
	printf("user %s (uid %u)\n", r->user, (unsigned int)r->uid);
	for (int i = 0; i < 2; i++) {
		const struct module_report *m = &r->mods[i];

		printf("module %s: installed %s%s%s, %s", m->name, yes(m->installed),
		       m->path[0] ? " at " : "", m->path, m->state);
		if (m->loaded && !m->builtin)
			printf(" (refcount %d)", m->refcnt);
		putchar('\n');
		if (m->version[0] || m->vermagic[0])
			printf("  version %s, built for %s\n", m->version[0] ? m->version : "-",
			       m->vermagic[0] ? m->vermagic : "-");
		for (int k = 0; k < m->nparams; k++)
			printf("  parameter %s = %s\n", m->params[k].name, m->params[k].value);
	}
	if (!r->nnodes)
		printf("no DRM render nodes in /dev/dri\n");
	for (int i = 0; i < r->nnodes; i++) {
		const struct node_report *n = &r->nodes[i];

		printf("%s: driver %s, mode %04o, owner %s, group %s, %s", n->path,
		       n->driver[0] ? n->driver : "unknown", (unsigned int)(n->mode & 07777),
		       n->owner, n->group, n->can_open ? "read/write ok" : "cannot open");
		if (n->have_info)
			printf(", device %u (%s, %u NeuronCores)", n->device_index,
			       arch_name(n->arch), n->num_cores);
		if (!n->can_open && n->open_error[0])
			printf(": %s", n->open_error);
		putchar('\n');
	}
	if (r->neuron.pci_devices || r->neuron.vendor_loaded)
		printf("Neuron instance: %d device%s, neuron.ko %s%s%s, neuronprof hook %s, "
		       "provider neuronprof_neuron %s\n", r->neuron.pci_devices,
		       r->neuron.pci_devices == 1 ? "" : "s",
		       r->neuron.vendor_loaded ? "loaded" : "not loaded",
		       r->neuron.vendor_version[0] ? " version " : "", r->neuron.vendor_version,
		       yes(r->neuron.hook), r->neuron.provider_loaded ? "loaded" : "not loaded");
	printf("%d neuronprof device node%s, %d usable by %s\n", r->neuronprof_nodes,
	       r->neuronprof_nodes == 1 ? "" : "s", r->usable, r->user);
	if (!r->nproblems) {
		printf("no problems found\n");
		return;
	}
	printf("%d problem%s:\n", r->nproblems, r->nproblems == 1 ? "" : "s");
	/* Each fix once: a fix an earlier one already says refers to it. */
	for (int i = 0; i < r->nproblems; i++) {
		int same = -1;

		for (int k = 0; k < i && same < 0; k++)
			if (strstr(r->problems[k].fix, r->problems[i].fix))
				same = k;
		if (same >= 0)
			printf("  %d. %s\n     fix: the one of %d\n", i + 1, r->problems[i].what,
			       same + 1);
		else
			printf("  %d. %s\n     fix: %s\n", i + 1, r->problems[i].what,
			       r->problems[i].fix);
	}
}

static void print_json(const struct report *r)
{
	struct json j;

	jw_init(&j, stdout, true);
	jw_obj_begin(&j, NULL);
	jw_str(&j, "kernel_release", r->release);
	jw_str(&j, "module_dir", r->moddir);
	jw_bool(&j, "module_dir_exists", r->moddir_exists);
	jw_str(&j, "user", r->user);
	jw_u64(&j, "uid", r->uid);
	jw_arr_begin(&j, "modules");
	for (int i = 0; i < 2; i++) {
		const struct module_report *m = &r->mods[i];

		jw_obj_begin(&j, NULL);
		jw_str(&j, "name", m->name);
		jw_bool(&j, "installed", m->installed);
		jw_str(&j, "path", m->path[0] ? m->path : NULL);
		jw_str(&j, "version", m->version[0] ? m->version : NULL);
		jw_str(&j, "vermagic", m->vermagic[0] ? m->vermagic : NULL);
		jw_bool(&j, "loaded", m->loaded);
		jw_str(&j, "state", m->state);
		jw_obj_begin(&j, "parameters");
		for (int k = 0; k < m->nparams; k++)
			jw_str(&j, m->params[k].name, m->params[k].value);
		jw_obj_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_arr_begin(&j, "nodes");
	for (int i = 0; i < r->nnodes; i++) {
		const struct node_report *n = &r->nodes[i];

		jw_obj_begin(&j, NULL);
		jw_str(&j, "path", n->path);
		jw_str(&j, "driver", n->driver[0] ? n->driver : NULL);
		jw_bool(&j, "neuronprof", n->neuronprof);
		jw_u64(&j, "mode", n->mode & 07777);
		jw_str(&j, "owner", n->owner);
		jw_str(&j, "group", n->group);
		jw_bool(&j, "can_open", n->can_open);
		jw_str(&j, "error", n->open_error[0] ? n->open_error : NULL);
		if (n->have_info) {
			jw_u64(&j, "device_index", n->device_index);
			jw_str(&j, "arch", arch_name(n->arch));
			jw_u64(&j, "num_cores", n->num_cores);
		}
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_begin(&j, "neuron");
	jw_u64(&j, "pci_devices", (uint64_t)r->neuron.pci_devices);
	jw_bool(&j, "vendor_loaded", r->neuron.vendor_loaded);
	jw_str(&j, "vendor_version", r->neuron.vendor_version[0] ? r->neuron.vendor_version : NULL);
	jw_bool(&j, "hook", r->neuron.hook);
	jw_bool(&j, "provider_loaded", r->neuron.provider_loaded);
	jw_obj_end(&j);
	jw_u64(&j, "neuronprof_nodes", (uint64_t)r->neuronprof_nodes);
	jw_u64(&j, "usable_devices", (uint64_t)r->usable);
	jw_arr_begin(&j, "problems");
	for (int i = 0; i < r->nproblems; i++) {
		jw_obj_begin(&j, NULL);
		jw_str(&j, "problem", r->problems[i].what);
		jw_str(&j, "fix", r->problems[i].fix);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_bool(&j, "ok", r->nproblems == 0);
	jw_obj_end(&j);
	jw_finish(&j);
}

int cmd_doctor(int argc, char **argv)
{
	const char *moddir = NULL;
	struct kmod_ctx *ctx;
	struct report *r;
	struct utsname u;
	struct passwd *pw;
	struct stat st;
	bool json = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "machine-readable output"),
		OPT_STRING(0, "module-dir", &moddir, "DIR",
			   "module tree to search (default /lib/modules/$(uname -r))"),
		OPT_END(),
	};
	int ret;

	if (opts_parse(argc, argv, opts, NULL, &ret))
		return ret;
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;

	r = calloc(1, sizeof(*r));
	if (!r)
		return fail("out of memory");
	uname(&u);
	snprintf(r->release, sizeof(r->release), "%s", u.release);
	r->uid = getuid();
	pw = getpwuid(r->uid);
	snprintf(r->user, sizeof(r->user), "%s", pw ? pw->pw_name : "$USER");

	/* libkmod logs to stderr by default; its findings are reported below instead. */
	ctx = kmod_new(moddir, NULL);
	if (ctx)
		kmod_set_log_priority(ctx, 0);
	if (moddir)
		snprintf(r->moddir, sizeof(r->moddir), "%s", moddir);
	else if (ctx && kmod_get_dirname(ctx))
		snprintf(r->moddir, sizeof(r->moddir), "%s", kmod_get_dirname(ctx));
	else
		snprintf(r->moddir, sizeof(r->moddir), "/lib/modules/%s", r->release);
	r->moddir_exists = !stat(r->moddir, &st) && S_ISDIR(st.st_mode);
	{
		char mk[PATH_MAX + 16];

		snprintf(mk, sizeof(mk), "%s/build/Makefile", r->moddir);
		r->have_headers = !stat(mk, &st) && S_ISREG(st.st_mode);
	}
	r->mods[0].name = "neuronprof";
	r->mods[1].name = "neuronprof_sim";
	check_module(r->moddir_exists ? ctx : NULL, &r->mods[0]);
	check_module(r->moddir_exists ? ctx : NULL, &r->mods[1]);
	kmod_unref(ctx);

	scan_nodes(r);
	check_neuron(&r->neuron);
	diagnose(r);
	if (json)
		print_json(r);
	else
		print_text(r);
	ret = r->nproblems ? EXIT_FAIL : 0;
	free(r);
	return flush_stdout() ? EXIT_FAIL : ret;
}
