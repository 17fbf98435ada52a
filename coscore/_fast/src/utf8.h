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

/* Make the tables of the AVX2 block decoder (once, before any other call; a
 * module calls it when it is imported). Without it, or without AVX2, the
 * scalar paths run and cs_utf8_scan never says CS_UTF8_BMP. */
void cs_utf8_init(void);

/* What a text needs, from its bytes alone (one cheap pass):
 * CS_UTF8_ASCII  every byte is ASCII (they are its code points, kind 1);
 * CS_UTF8_BMP    a byte C4..EF and none F0..FF: if valid it is kind 2, and
 *                cs_utf8_decode_bmp decodes it without measuring it first;
 * CS_UTF8_OTHER  anything else: measure it. */
enum { CS_UTF8_ASCII = 0, CS_UTF8_OTHER = 1, CS_UTF8_BMP = 2 };
int cs_utf8_scan(const uint8_t *p, int64_t n);

/* Decode p[0:n], which cs_utf8_scan called CS_UTF8_BMP, into out as 16-bit
 * code points: out must have room for n + 16 (the code points and 16 lanes
 * the block decoder may write past them). Sets *count and returns 0, or
 * returns -1 when the bytes are not valid UTF-8. */
int cs_utf8_decode_bmp(const uint8_t *p, int64_t n, uint16_t *out, int64_t *count);

#endif /* COSCORE_SRC_UTF8_H */
