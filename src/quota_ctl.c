/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's quota controller; the reasoning is in quota_ctl.h. */
#include "quota_ctl.h"

void qctl_levels(uint64_t mem_total, unsigned used_bp, unsigned free_bp, uint64_t cap,
		 uint64_t window_us, struct qctl_levels *ret)
{
	struct qctl_levels l = { .cap = cap, .window_us = window_us };
	uint64_t used = mem_total / 10000 * used_bp + mem_total % 10000 * used_bp / 10000;

	l.target = mem_total / 10000 * free_bp + mem_total % 10000 * free_bp / 10000;
	l.floor = used < mem_total ? mem_total - used : 0;
	/* Goals without overlap (used + free < 100%): promotion stops where
	 * demotion starts, so nothing is exchanged on a full node. */
	if (l.floor > l.target)
		l.floor = l.target;
	*ret = l;
}

uint64_t qctl_align(uint64_t bytes)
{
	return bytes < QCTL_ALIGN_BYTES ? QCTL_ALIGN_BYTES : bytes - bytes % QCTL_ALIGN_BYTES;
}

uint64_t qctl_per_window(uint64_t total, uint64_t windows, uint64_t cap)
{
	uint64_t q = (total + windows - 1) / windows;

	if (q < QCTL_MIN_BYTES)
		return QCTL_STOP_BYTES;
	return qctl_align(q > cap ? cap : q);
}

void qctl_compute(const struct qctl_levels *l, uint64_t mem_free, uint64_t tick_us,
		  struct qctl_quota *ret)
{
	uint64_t windows = l->window_us ? tick_us / l->window_us : 1;
	uint64_t deficit = mem_free < l->target ? l->target - mem_free : 0;
	uint64_t room = 0;

	if (windows == 0)
		windows = 1;
	/* Below the floor promotion waits for demotion to show it can make
	 * room: counting on it would push the node into its watermarks when
	 * there is nothing cold left to demote. */
	if (mem_free >= l->floor)
		room = mem_free - l->floor + deficit;
	ret->demote = qctl_per_window(deficit, windows, l->cap);
	ret->promote = qctl_per_window(room, windows, l->cap);
}

bool qctl_should_commit(uint64_t cur, uint64_t next, unsigned ticks)
{
	if (cur == next)
		return false;
	if (cur <= QCTL_STOP_BYTES || next <= QCTL_STOP_BYTES)
		return true;
	if (next >= cur * 2 || next <= cur / 2)
		return true;
	if (next <= cur + cur / 4 && next >= cur - cur / 4)
		return false;
	return ticks >= QCTL_SETTLE_TICKS;
}

unsigned qctl_gain_update(unsigned gain, uint64_t tried, uint64_t applied, unsigned max)
{
	const uint64_t top = (uint64_t)(max ? max : 1) * QCTL_GAIN_ONE;
	uint64_t g = gain < QCTL_GAIN_ONE ? QCTL_GAIN_ONE : gain, measured;

	if (tried >= QCTL_MIN_BYTES) {
		measured = applied == 0 || tried / applied >= top / QCTL_GAIN_ONE
				   ? top : tried * QCTL_GAIN_ONE / applied;
		if (measured < QCTL_GAIN_ONE)
			measured = QCTL_GAIN_ONE;
		/* Halfway, rounded toward the measurement: one odd tick (a
		 * refresh landing late, a burst of free pages) does not swing
		 * the quota by 32 times. */
		g = (g + measured + (measured > g)) / 2;
	}
	return (unsigned)(g > top ? top : g);
}

uint64_t qctl_charged(uint64_t tried, uint64_t applied, unsigned num, unsigned denom)
{
	uint64_t failed;

	if (denom == 0 || applied >= tried)
		return tried;
	failed = tried - applied;
	/* failed * num / denom without overflow: num <= denom here. */
	if (num >= denom)
		return tried;
	return applied + failed / denom * num + failed % denom * num / denom;
}

uint64_t qctl_gain_apply(uint64_t bytes, unsigned gain, uint64_t cap)
{
	uint64_t q;

	if (bytes <= QCTL_STOP_BYTES)
		return bytes;
	q = bytes / QCTL_GAIN_ONE * gain + bytes % QCTL_GAIN_ONE * gain / QCTL_GAIN_ONE;
	if (q > cap)
		q = cap;
	return qctl_align(q < bytes ? bytes : q);
}
