/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness for the BTF reader: any blob either parses or is refused
 * with -EINVAL and a reason, and what parses can be queried.  The data is
 * used in place: both libFuzzer and the replay runner hand over a buffer of
 * exactly `size` bytes, so ASan sees any read past the blob.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernel_btf.h"
#include "kernel_features.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_btf *sentinel = (struct kernel_btf *)&sentinel, *btf = sentinel;
	struct damon_features f;
	char why[256] = "";
	int r;

	r = kernel_btf_new(data, size, &btf, why, sizeof(why));
	if (r < 0) {
		/* Every rejection explains itself and leaves *ret alone. */
		if (r != -EINVAL || why[0] == '\0' || btf != sentinel)
			abort();
		return 0;
	}
	/* Each record takes at least 12 bytes of the blob. */
	if ((size_t)kernel_btf_nr_types(btf) * 12 > size)
		abort();
	features_from_btf(btf, &f);
	if (f.sysfs)
		abort();
	(void)kernel_btf_has_member(btf, "outer", "inner");
	(void)kernel_btf_has_enumerator(btf, "big", "BIG_B");
	(void)kernel_btf_has_func(btf, "some_func");
	kernel_btf_free(btf);
	return 0;
}
