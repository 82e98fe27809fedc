/* SPDX-License-Identifier: MIT */
/*
 * static_libs.c - linked into the bundle's fully static scbench only
 * (Makefile.am, harness/scbench-static): the answers it gives in place of
 * two libraries that a static executable cannot use.
 *
 * libudev: Debian ships no static archive of it, and Debian's libhwloc.a
 * refers to it. hwloc calls udev_new() when it discovers the machine and,
 * given NULL, never calls the other functions: it reads what it needs of
 * block devices from sysfs and /run/udev itself. Placement needs no block
 * device, so udev_new() answers "no udev" and the others are never reached;
 * they return "nothing" all the same.
 *
 * dlopen: libhwloc.a loads its plugins (PCI, GPUs) and libpapi.a some of its
 * components (GPUs, software-defined events) with dlopen. In a static
 * executable that loads the shared C library of whatever machine it runs on
 * next to the static one linked in: it works only with the glibc it was
 * built with, and crashes or misbehaves otherwise. Here dlopen loads
 * nothing and says why; hwloc and PAPI carry on without the plugin, as they
 * do when one is not installed.
 *
 * Both are said in scbench --version and meta.json (build_linkage).
 */
#include <stddef.h>

struct udev;
struct udev_device;

/* Declared here: the libraries' headers may be absent (none is needed). */
struct udev *udev_new(void);
struct udev *udev_unref(struct udev *u);
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u, const char *subsystem,
                                                          const char *sysname);
struct udev_device *udev_device_unref(struct udev_device *d);
const char *udev_device_get_property_value(struct udev_device *d, const char *key);
void *dlopen(const char *file, int mode);
void *dlsym(void *handle, const char *name);
int dlclose(void *handle);
char *dlerror(void);

struct udev *udev_new(void)
{
	return NULL;
}

struct udev *udev_unref(struct udev *u)
{
	(void)u;
	return NULL;
}

struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *u, const char *subsystem,
                                                          const char *sysname)
{
	(void)u;
	(void)subsystem;
	(void)sysname;
	return NULL;
}

struct udev_device *udev_device_unref(struct udev_device *d)
{
	(void)d;
	return NULL;
}

const char *udev_device_get_property_value(struct udev_device *d, const char *key)
{
	(void)d;
	(void)key;
	return NULL;
}

static char dl_reason[] = "a static scbench loads no shared object (harness/static_libs.c)";
/* Per thread, as dlerror()'s state is. */
static _Thread_local int dl_failed;

void *dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	dl_failed = 1;
	return NULL;
}

void *dlsym(void *handle, const char *name)
{
	(void)handle;
	(void)name;
	dl_failed = 1;
	return NULL;
}

int dlclose(void *handle)
{
	(void)handle;
	return 0;
}

/* The reason once after a failure, then NULL, as dlerror() does. */
char *dlerror(void)
{
	if (!dl_failed)
		return NULL;
	dl_failed = 0;
	return dl_reason;
}
