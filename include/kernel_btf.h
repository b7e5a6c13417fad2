/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A reader of the kernel's raw BTF (/sys/kernel/btf/vmlinux): the type
 * information of the running kernel, readable without privileges and without
 * touching the subsystems it describes.  Only what a feature probe needs:
 * whether a struct has a member, an enum an enumerator, and whether a
 * function exists.
 *
 * The blob is untrusted input (any file can sit at that path below a
 * --sysfs-root): kernel_btf_new() checks the header, both sections and every
 * type record against the bounds before anything is looked up, so the
 * lookups never read outside the blob, and any byte string either parses or
 * is refused with -EINVAL (it is fuzzed).
 */
#include <stdbool.h>
#include <stddef.h>

struct kernel_btf;

/*
 * Index the BTF blob data[0..size).  The blob is borrowed, not copied: it
 * must stay unchanged until kernel_btf_free().  Only the byte order of this
 * machine is accepted (the kernel exposes its own).  Returns 0 and *ret, or
 * -EINVAL for a malformed blob (then `why`, if whylen > 0, says what is
 * wrong) or -ENOMEM; *ret is untouched on failure.
 */
int kernel_btf_new(const void *data, size_t size, struct kernel_btf **ret, char *why,
		   size_t whylen);
/* NULL is fine. */
void kernel_btf_free(struct kernel_btf *btf);

/* Number of type records (ids 1 .. n; id 0 is void). */
unsigned kernel_btf_nr_types(const struct kernel_btf *btf);

/*
 * True if some struct named `st` (there may be several: BTF keeps each
 * distinct definition) has a member `member`, counting members of its
 * anonymous structs and unions as C does.
 */
bool kernel_btf_has_member(const struct kernel_btf *btf, const char *st, const char *member);
/* True if some enum (32 or 64 bit) named `en` has the enumerator `name`. */
bool kernel_btf_has_enumerator(const struct kernel_btf *btf, const char *en, const char *name);
/* True if there is a function (a FUNC record, i.e. one that was compiled out
 * of line) named `func`. */
bool kernel_btf_has_func(const struct kernel_btf *btf, const char *func);
