/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bounds-checked reader of raw BTF.  The format is a stable kernel UAPI: a
 * header naming a type section and a string section, both relative to the
 * end of the header.  The type section is a sequence of 12-byte records
 * (name offset, info, size or type), each followed by a kind-specific
 * trailer whose length the kind and vlen give; type ids are the record
 * positions, from 1.  A record of a kind we do not know cannot be skipped
 * (its trailer length is unknown), so it makes the whole blob malformed
 * rather than silently shifting every later record.
 */
#include "kernel_btf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BTF_MAGIC 0xeB9F
#define BTF_VERSION 1
#define BTF_HDR_LEN 24
#define BTF_REC_LEN 12
/* Anonymous members nest a few levels in practice; the limit only stops a
 * crafted cycle of anonymous structs. */
#define ANON_DEPTH_MAX 8

enum {
	KIND_INT = 1,
	KIND_PTR,
	KIND_ARRAY,
	KIND_STRUCT,
	KIND_UNION,
	KIND_ENUM,
	KIND_FWD,
	KIND_TYPEDEF,
	KIND_VOLATILE,
	KIND_CONST,
	KIND_RESTRICT,
	KIND_FUNC,
	KIND_FUNC_PROTO,
	KIND_VAR,
	KIND_DATASEC,
	KIND_FLOAT,
	KIND_DECL_TAG,
	KIND_TYPE_TAG,
	KIND_ENUM64,
};

struct kernel_btf {
	const unsigned char *types;
	uint32_t types_len;
	const char *strs;
	uint32_t strs_len;
	uint32_t nr;
	uint32_t *off; /* off[id - 1]: where record `id` starts in types */
};

/* One decoded record header. */
struct rec {
	uint32_t name_off;
	uint32_t kind;
	uint32_t vlen;
	const unsigned char *trailer;
};

/* memcpy: the blob need not be aligned (a test or a fuzzer hands any
 * buffer), and a cast would be undefined behaviour then. */
static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int fail(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Bytes after the 12-byte record, or -1 for a kind we do not know.  Each
 * element has a name at its first word where `named` is set. */
static int64_t trailer_len(uint32_t kind, uint32_t vlen, uint32_t *elem_len, bool *named)
{
	*elem_len = 0;
	*named = false;
	switch (kind) {
	case KIND_PTR:
	case KIND_FWD:
	case KIND_TYPEDEF:
	case KIND_VOLATILE:
	case KIND_CONST:
	case KIND_RESTRICT:
	case KIND_FUNC: /* vlen is the linkage here */
	case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	case KIND_INT:
	case KIND_VAR:
	case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT:
	case KIND_UNION:
	case KIND_ENUM64:
		*named = true;
		*elem_len = 12;
		return (int64_t)vlen * 12;
	case KIND_DATASEC: /* (type, offset, size): no names */
		*elem_len = 12;
		return (int64_t)vlen * 12;
	case KIND_ENUM:
	case KIND_FUNC_PROTO:
		*named = true;
		*elem_len = 8;
		return (int64_t)vlen * 8;
	default:
		return -1;
	}
}

/* Decode and check the record at `off`; *next is where the following one
 * starts.  Checks that the record and its trailer fit and that every name
 * lies in the string section, so lookups need no checks of their own. */
static int check_record(const struct kernel_btf *b, uint32_t off, uint32_t *next, char *why,
			size_t whylen)
{
	const unsigned char *p = b->types + off;
	uint32_t info, kind, vlen, elem_len;
	int64_t tl;
	bool named;

	if ((uint64_t)off + BTF_REC_LEN > b->types_len)
		return fail(why, whylen, "a type record at offset %u overruns the type section", off);
	info = rd32(p + 4);
	kind = (info >> 24) & 0x1f;
	vlen = info & 0xffff;
	if (rd32(p) >= b->strs_len)
		return fail(why, whylen, "the type record at offset %u names string %u, beyond the string section",
			    off, rd32(p));
	tl = trailer_len(kind, vlen, &elem_len, &named);
	if (tl < 0)
		return fail(why, whylen, "the type record at offset %u has the unknown kind %u", off, kind);
	if ((uint64_t)off + BTF_REC_LEN + (uint64_t)tl > b->types_len)
		return fail(why, whylen, "the type record at offset %u (kind %u, %u entries) overruns the type section",
			    off, kind, vlen);
	if (named) {
		for (uint32_t i = 0; i < vlen; i++) {
			uint32_t n = rd32(p + BTF_REC_LEN + (size_t)i * elem_len);

			if (n >= b->strs_len)
				return fail(why, whylen, "entry %u of the type record at offset %u names string %u, "
					    "beyond the string section", i, off, n);
		}
	}
	*next = off + BTF_REC_LEN + (uint32_t)tl;
	return 0;
}

static int check_header(const unsigned char *d, size_t size, struct kernel_btf *b, char *why,
			size_t whylen)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
	uint16_t magic;

	if (size < BTF_HDR_LEN)
		return fail(why, whylen, "%zu bytes are too short for a BTF header", size);
	if (size > UINT32_MAX)
		return fail(why, whylen, "%zu bytes are beyond BTF's 32-bit offsets", size);
	magic = rd16(d);
	if (magic == __builtin_bswap16(BTF_MAGIC))
		return fail(why, whylen, "BTF of the other byte order");
	if (magic != BTF_MAGIC)
		return fail(why, whylen, "no BTF magic (0x%04x)", magic);
	if (d[2] != BTF_VERSION)
		return fail(why, whylen, "BTF version %u (only %u is known)", d[2], BTF_VERSION);
	if (d[3] != 0)
		return fail(why, whylen, "unknown BTF header flags 0x%02x", d[3]);
	hdr_len = rd32(d + 4);
	type_off = rd32(d + 8);
	type_len = rd32(d + 12);
	str_off = rd32(d + 16);
	str_len = rd32(d + 20);
	if (hdr_len < BTF_HDR_LEN || hdr_len > size)
		return fail(why, whylen, "BTF header length %u", hdr_len);
	/* A longer header has fields this reader does not know; like the
	 * kernel's own BTF loader, accept it only if they are all unset. */
	for (uint32_t i = BTF_HDR_LEN; i < hdr_len; i++)
		if (d[i])
			return fail(why, whylen, "the BTF header has unknown fields set (byte %u)", i);
	if (type_off & 3)
		return fail(why, whylen, "unaligned type section offset %u", type_off);
	if ((uint64_t)hdr_len + type_off + type_len > size)
		return fail(why, whylen, "the type section (%u+%u) overruns the %zu-byte blob", type_off,
			    type_len, size);
	if ((uint64_t)hdr_len + str_off + str_len > size)
		return fail(why, whylen, "the string section (%u+%u) overruns the %zu-byte blob", str_off,
			    str_len, size);
	b->types = d + hdr_len + type_off;
	b->types_len = type_len;
	b->strs = (const char *)d + hdr_len + str_off;
	b->strs_len = str_len;
	/* Offset 0 is the empty name, and the last string must end inside
	 * the section, so every in-range offset is a terminated string. */
	if (str_len == 0 || b->strs[0] != '\0' || b->strs[str_len - 1] != '\0')
		return fail(why, whylen, "the string section does not start and end with NUL");
	return 0;
}

int kernel_btf_new(const void *data, size_t size, struct kernel_btf **ret, char *why,
		   size_t whylen)
{
	struct kernel_btf b = { 0 }, *nb;
	uint32_t off, next;
	int r;

	if (!ret)
		return -EINVAL;
	if (!data)
		return fail(why, whylen, "no BTF data");
	r = check_header(data, size, &b, why, whylen);
	if (r < 0)
		return r;
	/* Every record starts after the previous one, so the walk ends. */
	for (off = 0; off < b.types_len; off = next) {
		r = check_record(&b, off, &next, why, whylen);
		if (r < 0)
			return r;
		b.nr++;
	}

	nb = malloc(sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	*nb = b;
	nb->off = malloc((b.nr ? b.nr : 1) * sizeof(*nb->off));
	if (!nb->off) {
		free(nb);
		return -ENOMEM;
	}
	off = 0;
	for (uint32_t i = 0; i < b.nr; i++) {
		nb->off[i] = off;
		/* Checked above: cannot fail. */
		(void)check_record(nb, off, &off, NULL, 0);
	}
	*ret = nb;
	return 0;
}

void kernel_btf_free(struct kernel_btf *btf)
{
	if (!btf)
		return;
	free(btf->off);
	free(btf);
}

unsigned kernel_btf_nr_types(const struct kernel_btf *btf)
{
	return btf->nr;
}

static struct rec record(const struct kernel_btf *b, uint32_t id)
{
	const unsigned char *p = b->types + b->off[id - 1];
	uint32_t info = rd32(p + 4);

	return (struct rec){
		.name_off = rd32(p),
		.kind = (info >> 24) & 0x1f,
		.vlen = info & 0xffff,
		.trailer = p + BTF_REC_LEN,
	};
}

static bool name_is(const struct kernel_btf *b, uint32_t name_off, const char *name)
{
	return strcmp(b->strs + name_off, name) == 0;
}

static bool members_have(const struct kernel_btf *b, const struct rec *r, const char *member,
			 unsigned depth)
{
	for (uint32_t i = 0; i < r->vlen; i++) {
		const unsigned char *m = r->trailer + (size_t)i * 12;
		uint32_t name_off = rd32(m), type = rd32(m + 4);
		struct rec sub;

		if (name_off && name_is(b, name_off, member))
			return true;
		if (name_off || depth >= ANON_DEPTH_MAX || type == 0 || type > b->nr)
			continue;
		sub = record(b, type);
		if ((sub.kind == KIND_STRUCT || sub.kind == KIND_UNION) &&
		    members_have(b, &sub, member, depth + 1))
			return true;
	}
	return false;
}

bool kernel_btf_has_member(const struct kernel_btf *btf, const char *st, const char *member)
{
	/* The empty name is every anonymous member's. */
	if (!*st || !*member)
		return false;
	for (uint32_t id = 1; id <= btf->nr; id++) {
		struct rec r = record(btf, id);

		if (r.kind == KIND_STRUCT && name_is(btf, r.name_off, st) &&
		    members_have(btf, &r, member, 0))
			return true;
	}
	return false;
}

bool kernel_btf_has_enumerator(const struct kernel_btf *btf, const char *en, const char *name)
{
	if (!*en || !*name)
		return false;
	for (uint32_t id = 1; id <= btf->nr; id++) {
		struct rec r = record(btf, id);
		size_t step;

		if (r.kind == KIND_ENUM)
			step = 8;
		else if (r.kind == KIND_ENUM64)
			step = 12;
		else
			continue;
		if (!name_is(btf, r.name_off, en))
			continue;
		for (uint32_t i = 0; i < r.vlen; i++)
			if (name_is(btf, rd32(r.trailer + i * step), name))
				return true;
	}
	return false;
}

bool kernel_btf_has_func(const struct kernel_btf *btf, const char *func)
{
	if (!*func)
		return false;
	for (uint32_t id = 1; id <= btf->nr; id++) {
		struct rec r = record(btf, id);

		if (r.kind == KIND_FUNC && name_is(btf, r.name_off, func))
			return true;
	}
	return false;
}
