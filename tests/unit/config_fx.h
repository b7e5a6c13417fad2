/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the configuration's tests (test-config*.c) share: loading a text,
 * comparing two configs field by field, and a text that sets every key to
 * a value other than its default, with the check of what it loads to.
 * The asserts are cmocka's: include <cmocka.h> first.
 */
#include "config.h"

#define MS 1000ULL
#define S  1000000ULL

/* Every setting of a and b is equal (cmocka fail otherwise). */
void cfx_assert_equal(const struct config *a, const struct config *b);
/* config_load_string() of text as file "t.conf", with err cleared first. */
int cfx_load(const char *text, struct config *c, struct config_error *err);

/* Every key once, none at its default. */
extern const char cfx_every_key[];
/* c holds what cfx_every_key sets (cmocka fail otherwise). */
void cfx_check_every_key(const struct config *c);
