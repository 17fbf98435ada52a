/*
 * UTF-8 read as CPython's strict decoder reads it, in two passes over a text:
 * cs_utf8_measure sizes it (its code points and the kind, 1, 2 or 4 bytes per
 * code point, of a str of it: the narrowest that fits its widest), then
 * cs_utf8_decode writes its code points at that width and checks the bytes:
 * it accepts exactly what PyUnicode_DecodeUTF8(..., "strict") accepts (no
 * overlong forms, no surrogates, nothing above U+10FFFF, no truncated or stray
 * bytes). No Python calls: callers run them without the GIL.
 */
#ifndef COSCORE_SRC_UTF8_H
#define COSCORE_SRC_UTF8_H

#include <stdint.h>

/* The number of code points of p[0:n] and, in *kind, the kind of a str of it
 * -- if the bytes are valid UTF-8 (else both are only bounds that keep
 * cs_utf8_decode within its buffer). *ascii is set when every byte is ASCII:
 * then the bytes are valid, and are the kind 1 code points. */
int64_t cs_utf8_measure(const uint8_t *p, int64_t n, int *kind, int *ascii);

/* The maxchar PyUnicode_New takes for a str of `kind` that is not all ASCII. */
static inline uint32_t cs_utf8_maxchar(int kind)
{
    return kind == 1 ? 0xFF : (kind == 2 ? 0xFFFF : 0x10FFFF);
}

/* Decode p[0:n] into out, `kind` bytes per code point, as cs_utf8_measure
 * sized it (`count` code points: out holds that many). Returns 0, or -1 when
 * the bytes are not valid UTF-8 (out is then partly written, never past
 * `count`). */
int cs_utf8_decode(const uint8_t *p, int64_t n, int64_t count, int kind, void *out);

#endif /* COSCORE_SRC_UTF8_H */
