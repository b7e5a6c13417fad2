/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BTF reader and the BTF feature probe.  Real data: tests/fixtures/btf/
 * holds the DAMON part of the BTF of Debian's 6.1, 6.12, 6.17 and 7.3
 * kernels (trim-btf.py); each must give what the write probe finds on the
 * fake kernel of the same profile.  Synthetic blobs from the small writer
 * below cover every record kind and the malformed cases.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_damon.h"
#include "kernel_btf.h"
#include "kernel_features.h"
#include "sysfs_io.h"
#include "testutil.h"

#define BTF_FILE "sys/kernel/btf/vmlinux"
#define NR_KDAMONDS "sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"

enum {
	K_INT = 1, K_PTR, K_ARRAY, K_STRUCT, K_UNION, K_ENUM, K_FWD, K_TYPEDEF, K_VOLATILE,
	K_CONST, K_RESTRICT, K_FUNC, K_FUNC_PROTO, K_VAR, K_DATASEC, K_FLOAT, K_DECL_TAG,
	K_TYPE_TAG, K_ENUM64,
};

/* A BTF writer: records and strings are appended; bw_blob() adds the header. */
struct bw {
	uint8_t types[16384];
	size_t tlen;
	char strs[8192];
	size_t slen;
	uint32_t nr;
};

static void bw_init(struct bw *w)
{
	memset(w, 0, sizeof(*w));
	w->slen = 1; /* "" at offset 0 */
}

static uint32_t bw_str(struct bw *w, const char *s)
{
	size_t n = strlen(s) + 1, off = w->slen;

	if (!*s)
		return 0;
	assert_true(w->slen + n <= sizeof(w->strs));
	memcpy(w->strs + w->slen, s, n);
	w->slen += n;
	return (uint32_t)off;
}

static void bw_u32(struct bw *w, uint32_t v)
{
	assert_true(w->tlen + 4 <= sizeof(w->types));
	memcpy(w->types + w->tlen, &v, 4);
	w->tlen += 4;
}

/* A record header; the caller appends its trailer.  Returns its id. */
static uint32_t bw_rec(struct bw *w, const char *name, uint32_t kind, uint32_t vlen, uint32_t size_type)
{
	bw_u32(w, bw_str(w, name));
	bw_u32(w, kind << 24 | vlen);
	bw_u32(w, size_type);
	return ++w->nr;
}

/* A struct (or union) with `n` members, all of type `type`. */
static uint32_t bw_struct(struct bw *w, uint32_t kind, const char *name, uint32_t type,
			  const char *const *members, uint32_t n)
{
	uint32_t id = bw_rec(w, name, kind, n, 4 * n);

	for (uint32_t i = 0; i < n; i++) {
		bw_u32(w, bw_str(w, members[i]));
		bw_u32(w, type);
		bw_u32(w, 32 * i);
	}
	return id;
}

static uint32_t bw_enum(struct bw *w, const char *name, const char *const *names, uint32_t n)
{
	uint32_t id = bw_rec(w, name, K_ENUM, n, 4);

	for (uint32_t i = 0; i < n; i++) {
		bw_u32(w, bw_str(w, names[i]));
		bw_u32(w, i);
	}
	return id;
}

static size_t bw_blob(const struct bw *w, uint8_t *out, size_t cap)
{
	uint32_t hdr[6] = { 0, 24, 0, (uint32_t)w->tlen, (uint32_t)w->tlen, (uint32_t)w->slen };
	size_t n = 24 + w->tlen + w->slen;

	assert_true(n <= cap);
	memcpy(hdr, &(uint16_t){ 0xeB9F }, 2);
	((uint8_t *)hdr)[2] = 1;
	memcpy(out, hdr, 24);
	memcpy(out + 24, w->types, w->tlen);
	memcpy(out + 24 + w->tlen, w->strs, w->slen);
	return n;
}

/* One record of every kind, each with its trailer, then the facts: if a
 * trailer length were wrong, the records after it would be misread. */
static void bw_every_kind(struct bw *w)
{
	static const char *const inner[] = { "inner", "deep" };
	static const char *const outer[] = { "first", "", "last" };
	uint32_t id_int, anon, id;

	bw_init(w);
	id_int = bw_rec(w, "int", K_INT, 0, 4);
	bw_u32(w, 0x01000020); /* signed, 32 bits */
	bw_rec(w, "", K_PTR, 0, id_int);
	bw_rec(w, "", K_ARRAY, 0, 0);
	bw_u32(w, id_int);
	bw_u32(w, id_int);
	bw_u32(w, 8);
	/* struct outer { int first; union { int inner; int deep; }; int last; } */
	anon = bw_struct(w, K_UNION, "", id_int, inner, 2);
	id = bw_rec(w, "outer", K_STRUCT, 3, 12);
	for (uint32_t i = 0; i < 3; i++) {
		bw_u32(w, bw_str(w, outer[i]));
		bw_u32(w, i == 1 ? anon : id_int);
		bw_u32(w, 32 * i);
	}
	(void)id;
	bw_enum(w, "colour", (const char *const[]){ "RED", "GREEN" }, 2);
	bw_rec(w, "damon_sysfs_kdamond", K_FWD, 0, 0);
	bw_rec(w, "myint", K_TYPEDEF, 0, id_int);
	bw_rec(w, "", K_VOLATILE, 0, id_int);
	bw_rec(w, "", K_CONST, 0, id_int);
	bw_rec(w, "", K_RESTRICT, 0, id_int);
	id = bw_rec(w, "", K_FUNC_PROTO, 2, id_int);
	bw_u32(w, bw_str(w, "a"));
	bw_u32(w, id_int);
	bw_u32(w, bw_str(w, "b"));
	bw_u32(w, id_int);
	bw_rec(w, "some_func", K_FUNC, 1, id);
	id = bw_rec(w, "some_var", K_VAR, 0, id_int);
	bw_u32(w, 1);
	bw_rec(w, ".data..percpu", K_DATASEC, 2, 8);
	for (int i = 0; i < 2; i++) {
		bw_u32(w, id);
		bw_u32(w, 4 * i);
		bw_u32(w, 4);
	}
	bw_rec(w, "double", K_FLOAT, 0, 8);
	bw_rec(w, "tag", K_DECL_TAG, 0, id_int);
	bw_u32(w, 0xffffffff);
	bw_rec(w, "user", K_TYPE_TAG, 0, id_int);
	bw_rec(w, "big", K_ENUM64, 2, 8);
	bw_u32(w, bw_str(w, "BIG_A"));
	bw_u32(w, 1);
	bw_u32(w, 2);
	bw_u32(w, bw_str(w, "BIG_B"));
	bw_u32(w, 3);
	bw_u32(w, 4);
	/* A union named like a struct is not that struct. */
	bw_struct(w, K_UNION, "damon_sysfs_scheme", id_int, (const char *const[]){ "target_nid" }, 1);
	bw_struct(w, K_STRUCT, "damon_sysfs_kdamond", id_int,
		  (const char *const[]){ "kobj", "contexts", "refresh_ms" }, 3);
	bw_rec(w, "damon_pa_apply_scheme", K_FUNC, 0, id);
}

static void test_every_kind(void **state)
{
	static uint8_t blob[32768];
	struct kernel_btf *btf;
	struct damon_features f;
	char why[256] = "";
	struct bw w;
	size_t n;

	bw_every_kind(&w);
	n = bw_blob(&w, blob, sizeof(blob));
	assert_int_equal(kernel_btf_new(blob, n, &btf, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(kernel_btf_nr_types(btf), w.nr);

	assert_true(kernel_btf_has_member(btf, "outer", "first"));
	assert_true(kernel_btf_has_member(btf, "outer", "last"));
	/* Members of an anonymous union are the struct's, as in C. */
	assert_true(kernel_btf_has_member(btf, "outer", "inner"));
	assert_true(kernel_btf_has_member(btf, "outer", "deep"));
	assert_false(kernel_btf_has_member(btf, "outer", ""));
	assert_false(kernel_btf_has_member(btf, "", "inner"));
	assert_false(kernel_btf_has_member(btf, "outer", "firs"));
	assert_false(kernel_btf_has_member(btf, "oute", "first"));
	assert_false(kernel_btf_has_member(btf, "damon_sysfs_scheme", "target_nid"));
	assert_true(kernel_btf_has_member(btf, "damon_sysfs_kdamond", "refresh_ms"));
	assert_false(kernel_btf_has_member(btf, "damon_sysfs_kdamond", "RED"));

	assert_true(kernel_btf_has_enumerator(btf, "colour", "GREEN"));
	assert_false(kernel_btf_has_enumerator(btf, "colour", "BLUE"));
	assert_true(kernel_btf_has_enumerator(btf, "big", "BIG_B"));
	assert_false(kernel_btf_has_enumerator(btf, "big", "RED"));
	assert_false(kernel_btf_has_enumerator(btf, "outer", "first"));

	assert_true(kernel_btf_has_func(btf, "some_func"));
	assert_true(kernel_btf_has_func(btf, "damon_pa_apply_scheme"));
	assert_false(kernel_btf_has_func(btf, "some_var"));
	assert_false(kernel_btf_has_func(btf, "int"));
	assert_false(kernel_btf_has_func(btf, ""));

	features_from_btf(btf, &f);
	assert_true(f.paddr && f.refresh_ms);
	assert_false(f.sysfs || f.migrate || f.young_filter || f.filters);
	kernel_btf_free(btf);
	kernel_btf_free(NULL);
}

/* Anonymous members that contain themselves, or name no type. */
static void test_anonymous_cycle(void **state)
{
	static uint8_t blob[4096];
	struct kernel_btf *btf;
	struct bw w;
	size_t n;

	bw_init(&w);
	/* id 1: struct loop { <anon: 1>; <anon: 999>; <anon: 0>; int x; } */
	bw_rec(&w, "loop", K_STRUCT, 4, 16);
	bw_u32(&w, 0), bw_u32(&w, 1), bw_u32(&w, 0);
	bw_u32(&w, 0), bw_u32(&w, 999), bw_u32(&w, 0);
	bw_u32(&w, 0), bw_u32(&w, 0), bw_u32(&w, 0);
	bw_u32(&w, bw_str(&w, "x")), bw_u32(&w, 1), bw_u32(&w, 0);
	n = bw_blob(&w, blob, sizeof(blob));
	assert_int_equal(kernel_btf_new(blob, n, &btf, NULL, 0), 0);
	assert_true(kernel_btf_has_member(btf, "loop", "x"));
	assert_false(kernel_btf_has_member(btf, "loop", "y"));
	kernel_btf_free(btf);
}

static void set32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The blob must be refused with -EINVAL, a reason, and *ret untouched. */
static void refused(const uint8_t *blob, size_t n, const char *what)
{
	struct kernel_btf *sentinel = (struct kernel_btf *)&sentinel, *btf = sentinel;
	char why[256] = "";
	int r = kernel_btf_new(blob, n, &btf, why, sizeof(why));

	if (r != -EINVAL)
		fail_msg("%s: %d, expected -EINVAL", what, r);
	assert_ptr_equal(btf, sentinel);
	assert_true(why[0] != '\0');
}

static void test_malformed(void **state)
{
	static uint8_t good[32768], b[32768];
	struct kernel_btf *btf;
	uint32_t tlen, slen;
	struct bw w;
	size_t n;

	bw_every_kind(&w);
	n = bw_blob(&w, good, sizeof(good));
	tlen = (uint32_t)w.tlen;
	slen = (uint32_t)w.slen;

	/* Every truncation: the sections then overrun the blob. */
	for (size_t len = 0; len < n; len++)
		refused(good, len, "truncated");
	refused(NULL, 0, "NULL");

#define MUTATE(what, stmt) do { memcpy(b, good, n); stmt; refused(b, n, what); } while (0)
	MUTATE("magic", b[0] = 0);
	MUTATE("other byte order", (b[0] = 0xeB, b[1] = 0x9F));
	MUTATE("version", b[2] = 2);
	MUTATE("flags", b[3] = 1);
	MUTATE("short header", set32(b + 4, 20));
	MUTATE("header beyond the blob", set32(b + 4, (uint32_t)n + 1));
	MUTATE("unaligned types", set32(b + 8, 2));
	MUTATE("type section overflow", set32(b + 12, UINT32_MAX));
	MUTATE("type offset overflow", set32(b + 8, UINT32_MAX - 3));
	MUTATE("string offset overflow", set32(b + 16, UINT32_MAX));
	MUTATE("string section overflow", set32(b + 20, UINT32_MAX));
	MUTATE("no strings", set32(b + 20, 0));
	MUTATE("strings not terminated", set32(b + 20, slen - 1));
	MUTATE("strings not starting empty", b[24 + tlen] = 'x');
	MUTATE("record name beyond the strings", set32(b + 24, slen));
	MUTATE("kind 0", set32(b + 24 + 4, 0));
	MUTATE("kind 20", set32(b + 24 + 4, 20u << 24));
	MUTATE("kind 31", set32(b + 24 + 4, 31u << 24));
	/* The int's trailer grows into a struct past the section's end. */
	MUTATE("vlen beyond the section", set32(b + 24 + 4, (uint32_t)K_STRUCT << 24 | 0xffff));
	/* The last record (a FUNC) becomes a struct with a member it lacks. */
	MUTATE("member beyond the section", set32(b + 24 + tlen - 12 + 4, (uint32_t)K_STRUCT << 24 | 1));
	/* A partial record at the end of the type section. */
	MUTATE("partial record", set32(b + 12, tlen - 4));
#undef MUTATE

	/* Member names are checked too: the union's first member. */
	memcpy(b, good, n);
	{
		/* Records: int (16 bytes), ptr (12), array (24), then the union. */
		size_t member0 = 24 + 16 + 12 + 24 + 12;

		set32(b + member0, slen + 5);
		refused(b, n, "member name beyond the strings");
	}

	/* A longer header is fine while its unknown fields are unset. */
	{
		size_t m = n + 8;

		memcpy(b, good, 24);
		memset(b + 24, 0, 8);
		memcpy(b + 32, good + 24, n - 24);
		set32(b + 4, 32);
		assert_int_equal(kernel_btf_new(b, m, &btf, NULL, 0), 0);
		assert_true(kernel_btf_has_func(btf, "some_func"));
		kernel_btf_free(btf);
		b[30] = 1;
		refused(b, m, "unknown header field");
	}

	/* An empty type section is a valid, empty BTF. */
	memcpy(b, good, 24);
	set32(b + 12, 0);
	set32(b + 16, 0);
	set32(b + 20, 1);
	b[24] = '\0';
	assert_int_equal(kernel_btf_new(b, 25, &btf, NULL, 0), 0);
	assert_int_equal(kernel_btf_nr_types(btf), 0);
	assert_false(kernel_btf_has_func(btf, "x"));
	kernel_btf_free(btf);
}

/* Random bytes and random corruptions of a good blob: never a crash, and
 * what parses can be queried (ASan/UBSan check the reads). */
static void test_garbage(void **state)
{
	static uint8_t good[32768], b[32768];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct bw w;
	size_t n;
	unsigned parsed = 0;

	bw_every_kind(&w);
	n = bw_blob(&w, good, sizeof(good));
	for (int round = 0; round < 20000; round++) {
		struct kernel_btf *btf;
		size_t len = n;

		memcpy(b, good, n);
		for (int k = 0; k < 1 + round % 8; k++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			if (round % 3 == 0)
				b[24 + seed % (n - 24)] = (uint8_t)(seed >> 32);
			else
				b[seed % n] = (uint8_t)(seed >> 40);
		}
		if (round % 5 == 0)
			len = seed % n;
		if (kernel_btf_new(b, len, &btf, NULL, 0) == 0) {
			struct damon_features f;

			parsed++;
			(void)kernel_btf_has_member(btf, "outer", "inner");
			(void)kernel_btf_has_enumerator(btf, "big", "BIG_B");
			(void)kernel_btf_has_func(btf, "some_func");
			features_from_btf(btf, &f);
			kernel_btf_free(btf);
		}
	}
	/* Corruptions of names and values mostly keep the blob valid. */
	assert_true(parsed > 0);
}

static uint8_t *read_fixture(const char *name, size_t *len)
{
	char *path = tu_fixture_path(name);
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(path);
	*len = (size_t)n;
	return buf;
}

static void write_file(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	tu_write(dir, rel, ""); /* the parent directories */
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void install_fixture(const char *dir, const char *name)
{
	size_t len;
	uint8_t *blob = read_fixture(name, &len);

	write_file(dir, BTF_FILE, blob, len);
	free(blob);
}

/* The BTF of a real kernel against the write probe on the fake kernel of
 * the same profile, in one tree. */
static void compare_profile(const char *fixture, enum fake_profile prof, struct damon_features *ret)
{
	char *dir = tu_mkdtemp();
	struct fake_damon *fd = fake_damon_new(dir, prof);
	struct damon_features b, w;
	char why[256] = "";
	int root = io_root_open(dir);

	install_fixture(dir, fixture);
	assert_int_equal(features_probe_btf(root, &b, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(io_write(root, NR_KDAMONDS, "1"), 0);
	assert_int_equal(features_probe(root, "sys/kernel/mm/damon/admin/kdamonds/0", &w), 0);
#define EQ(x) if (b.x != w.x) fail_msg("%s: %s: btf %d, write probe %d", fixture, #x, b.x, w.x)
	EQ(sysfs); EQ(paddr); EQ(migrate); EQ(apply_interval); EQ(quota_goals); EQ(goal_metric);
	EQ(effective_bytes); EQ(node_metrics); EQ(intervals_goal); EQ(ops_filters); EQ(filters);
	EQ(filter_allow); EQ(young_filter); EQ(refresh_ms); EQ(addr_unit); EQ(goal_tuner); EQ(fail_charge);
#undef EQ
	/* No file tells whether refresh_ms refreshes each kdamond. */
	w.refresh_each = b.refresh_each;
	assert_memory_equal(&b, &w, sizeof(b));
	*ret = b;
	close(root);
	fake_damon_free(fd);
	tu_rmtree(dir);
	free(dir);
}

static void test_profile_612(void **state)
{
	struct damon_features f;

	compare_profile("btf/6.12.btf", FAKE_KERNEL_6_12, &f);
	assert_true(f.sysfs && f.paddr && f.migrate && f.quota_goals && f.goal_metric && f.young_filter);
	assert_false(f.node_metrics || f.ops_filters || f.filter_allow || f.refresh_ms);
	assert_null(features_missing(&f));
}

static void test_profile_617(void **state)
{
	struct damon_features f;

	compare_profile("btf/6.17.btf", FAKE_KERNEL_6_17, &f);
	assert_true(f.node_metrics && f.intervals_goal && f.ops_filters && f.filter_allow && f.refresh_ms);
	assert_false(f.addr_unit || f.goal_tuner || f.refresh_each);
}

static void test_profile_73(void **state)
{
	struct damon_features f, all;

	compare_profile("btf/7.3.btf", FAKE_KERNEL_7_3, &f);
	/* 7.3 has every feature the daemon knows: a field without a row in the
	 * table would read false here. */
	memset(&all, 1, sizeof(all));
	assert_memory_equal(&f, &all, sizeof(f));
}

/* 6.1: no DAMON at all (Debian builds it without), so nothing but BTF. */
static void test_profile_61(void **state)
{
	char *dir = tu_mkdtemp();
	struct damon_features f, none = { 0 };
	int root = io_root_open(dir);

	install_fixture(dir, "btf/6.1.btf");
	memset(&f, 0xff, sizeof(f));
	assert_int_equal(features_probe_btf(root, &f, NULL, 0), 0);
	assert_memory_equal(&f, &none, sizeof(f));
	assert_non_null(features_missing(&f));
	close(root);
	tu_rmtree(dir);
	free(dir);
}

/* The probe's failures: *ret untouched and a reason. */
static void probe_fails(const char *dir, int want, const char *needle)
{
	struct damon_features f, before;
	char why[512] = "";
	int root = io_root_open(dir);

	/* All true: a failed probe's result would have some false. */
	memset(&f, 1, sizeof(f));
	memcpy(&before, &f, sizeof(f));
	assert_int_equal(features_probe_btf(root, &f, why, sizeof(why)), want);
	assert_memory_equal(&f, &before, sizeof(f));
	if (!strstr(why, needle))
		fail_msg("why \"%s\" lacks \"%s\"", why, needle);
	/* No room for a reason is fine. */
	assert_int_equal(features_probe_btf(root, &f, NULL, 0), want);
	close(root);
}

static void test_probe_errors(void **state)
{
	char *dir = tu_mkdtemp();
	struct damon_features f;
	int root;

	/* No BTF: the caller falls back. */
	probe_fails(dir, -ENOENT, "CONFIG_DEBUG_INFO_BTF");
	tu_write(dir, NR_KDAMONDS, "0");
	probe_fails(dir, -ENOENT, "/sys/kernel/btf/vmlinux");

	write_file(dir, BTF_FILE, "garbage, not BTF: long enough for a header\n", 43);
	probe_fails(dir, -EINVAL, "/sys/kernel/btf/vmlinux: no BTF magic");

	/* DAMON's sysfs is there, but this BTF does not know its structs. */
	install_fixture(dir, "btf/6.1.btf");
	probe_fails(dir, -ENODATA, "damon_sysfs_kdamond");

	/* The BTF tells the features even where the sysfs is not visible. */
	install_fixture(dir, "btf/6.17.btf");
	root = io_root_open(dir);
	assert_int_equal(unlinkat(root, NR_KDAMONDS, 0), 0);
	assert_int_equal(features_probe_btf(root, &f, NULL, 0), 0);
	assert_false(f.sysfs);
	assert_true(f.paddr && f.migrate && f.refresh_ms);
	close(root);

	/* Beyond the size limit. */
	{
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, BTF_FILE);
		fd = open(path, O_WRONLY | O_TRUNC);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (64 << 20) + 1), 0);
		close(fd);
		probe_fails(dir, -E2BIG, "larger than 64 MiB");
	}
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_anonymous_cycle),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_profile_612),
		cmocka_unit_test(test_profile_617),
		cmocka_unit_test(test_profile_73),
		cmocka_unit_test(test_profile_61),
		cmocka_unit_test(test_probe_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
