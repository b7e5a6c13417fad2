/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer harness for the config parser (inih + the key table + validators). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	struct config_error err;
	char buf[8192];
	char *s;

	if (size > 65536)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (config_load_string(s, "fuzz.conf", &c, &err) == 0) {
		/* A valid config always formats (round trip: test-config). */
		if (config_format(&c, buf, sizeof(buf)) != 0)
			abort();
	} else if (err.message[0] == '\0') {
		abort(); /* every rejection explains itself */
	}
	free(s);
	return 0;
}
