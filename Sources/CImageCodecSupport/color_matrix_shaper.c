/*
 * The fast path of the colour engine: RGB pixels whose profile is a matrix and three tone curves
 * (Display P3, Adobe RGB, ProPhoto and most camera profiles) converted to sRGB with three table
 * lookups, a 3 × 3 matrix and an encoding table per pixel. The 8-bit arithmetic is LittleCMS's
 * own matrix-shaper optimisation (1.14 fixed point, a 16385-entry encoding table), so its results
 * are LittleCMS's; what is faster is the loop around it: LittleCMS unpacks and packs every pixel
 * through generic formatters and a function pointer (7-10 ms per megapixel here), this loop does
 * one pixel in a handful of SSE2 instructions, each input channel's lookup fetching its
 * contribution to all three outputs at once (the matrix column times the linear value).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fic_color_support.h"

struct fic_matrix_shaper {
    /* columns[c][v] = { M[0][c], M[1][c], M[2][c], 0 } * S_c(v), all in 1.14 fixed point, so
       an output is the sum of three entries shifted back by 14 bits (2.28 -> 1.14). */
    int32_t columns[3][256][4] __attribute__((aligned(16)));
    /* The matrix for 16-bit sources, as float columns scaled to take 0...65535 linear values to
       1.14 indices: { M[0][c], M[1][c], M[2][c], 0 } * 16384 / 65535. */
    float float_columns[3][4] __attribute__((aligned(16)));
    uint16_t *linear16; /* 3 × 65536 linear values in 0...65535, or NULL */
    uint8_t encode[FIC_COLOR_ENCODE_ENTRIES + 15];
};

/* LittleCMS's DOUBLE_TO_1FIXED14. */
static int32_t to_fixed14(double x) {
    return (int32_t)floor(x * 16384.0 + 0.5);
}

fic_matrix_shaper *fic_matrix_shaper_create(const float *linear8, const uint16_t *linear16,
                                            const double *matrix, const uint8_t *encode) {
    int32_t fixed[3][3];
    for (int o = 0; o < 3; o++) {
        double bound = 0x2000;
        for (int c = 0; c < 3; c++) {
            double m = matrix[o * 3 + c];
            if (!(fabs(m) < 1000.0)) {
                return NULL; /* NaN or absurd */
            }
            fixed[o][c] = to_fixed14(m);
            bound += fabs((double)fixed[o][c]) * 16384.0;
        }
        if (bound > 2147483647.0) {
            return NULL; /* the sum of three 2.28 products could overflow */
        }
    }
    fic_matrix_shaper *shaper = (fic_matrix_shaper *)aligned_alloc(16, (sizeof(fic_matrix_shaper) + 15) & ~(size_t)15);
    if (shaper == NULL) {
        return NULL;
    }
    memset(shaper, 0, sizeof(*shaper));
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            float y = linear8[c * 256 + v];
            /* Curves of display profiles stay in 0...1; anything else (NaN included) is clipped. */
            int32_t s = y > 0.0f ? (y < 1.0f ? to_fixed14(y) : 16384) : 0;
            for (int o = 0; o < 3; o++) {
                shaper->columns[c][v][o] = fixed[o][c] * s;
            }
        }
        for (int o = 0; o < 3; o++) {
            shaper->float_columns[c][o] = (float)(matrix[o * 3 + c] * 16384.0 / 65535.0);
        }
    }
    memcpy(shaper->encode, encode, FIC_COLOR_ENCODE_ENTRIES);
    if (linear16 != NULL) {
        shaper->linear16 = (uint16_t *)malloc(3 * 65536 * sizeof(uint16_t));
        if (shaper->linear16 == NULL) {
            free(shaper);
            return NULL;
        }
        memcpy(shaper->linear16, linear16, 3 * 65536 * sizeof(uint16_t));
    }
    return shaper;
}

void fic_matrix_shaper_destroy(fic_matrix_shaper *shaper) {
    if (shaper == NULL) {
        return;
    }
    free(shaper->linear16);
    free(shaper);
}

static inline void store_pixel(uint8_t *d, uint32_t pixel) {
    memcpy(d, &pixel, 4);
}

/* 16-bit alpha to 8 bits, rounded as LittleCMS does (FROM_16_TO_8). */
static inline uint32_t alpha16to8(uint32_t a) {
    return (a * 65281u + 8388608u) >> 24;
}

#if defined(__SSE2__) && defined(__x86_64__)
#define FIC_MATRIX_SHAPER_SSE2 1

/* The three outputs of one pixel in 1.14 fixed point (lanes 0-2), before clipping. */
static inline __m128i fixed_sum(const fic_matrix_shaper *p, uint8_t r, uint8_t g, uint8_t b) {
    __m128i sum = _mm_add_epi32(_mm_load_si128((const __m128i *)p->columns[0][r]),
                                _mm_load_si128((const __m128i *)p->columns[1][g]));
    sum = _mm_add_epi32(sum, _mm_load_si128((const __m128i *)p->columns[2][b]));
    return _mm_srai_epi32(_mm_add_epi32(sum, _mm_set1_epi32(0x2000)), 14);
}

/* A BGRA pixel from the clipped indices in the low four 16-bit lanes of `indices`. */
static inline uint32_t encode_pixel(const uint8_t *encode, uint64_t indices, uint32_t alpha) {
    return encode[indices >> 32 & 0xFFFF] | (uint32_t)encode[indices >> 16 & 0xFFFF] << 8
         | (uint32_t)encode[indices & 0xFFFF] << 16 | alpha << 24;
}

/* Two pixels' indices side by side, clipped to 0...16384 in one step. */
static inline __m128i clip_indices(__m128i first, __m128i second) {
    __m128i index = _mm_packs_epi32(first, second);
    return _mm_min_epi16(_mm_max_epi16(index, _mm_setzero_si128()), _mm_set1_epi16(16384));
}
#endif

/*
 * One 8-bit layout: pixel_bytes apart, red/green/blue/alpha at the given offsets (alpha < 0:
 * opaque). Inlined into each caller with constants, so every layout gets a loop of its own.
 * Each pixel is read whole before its destination is written, which makes in-place work.
 */
static inline __attribute__((always_inline)) void convert8(const fic_matrix_shaper *p, const uint8_t *s, uint8_t *d,
                                                           size_t count, int pixel_bytes, int r, int g, int b, int a) {
    const uint8_t *encode = p->encode;
    size_t i = 0;
#if defined(FIC_MATRIX_SHAPER_SSE2)
    /* Two pixels a step: their sums are packed and clipped together. */
    for (; i + 2 <= count; i += 2, s += 2 * pixel_bytes, d += 8) {
        const uint8_t *t = s + pixel_bytes;
        uint32_t alpha0 = a < 0 ? 255u : s[a], alpha1 = a < 0 ? 255u : t[a];
        __m128i index = clip_indices(fixed_sum(p, s[r], s[g], s[b]), fixed_sum(p, t[r], t[g], t[b]));
        uint32_t p0 = encode_pixel(encode, (uint64_t)_mm_cvtsi128_si64(index), alpha0);
        uint32_t p1 = encode_pixel(encode, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(index, index)), alpha1);
        store_pixel(d, p0);
        store_pixel(d + 4, p1);
    }
#endif
    for (; i < count; i++, s += pixel_bytes, d += 4) {
        uint32_t alpha = a < 0 ? 255u : s[a];
        const int32_t *cr = p->columns[0][s[r]], *cg = p->columns[1][s[g]], *cb = p->columns[2][s[b]];
        uint32_t out[3];
        for (int o = 0; o < 3; o++) {
            int32_t x = (cr[o] + cg[o] + cb[o] + 0x2000) >> 14;
            out[o] = encode[x < 0 ? 0 : (x > 16384 ? 16384 : x)];
        }
        store_pixel(d, out[2] | out[1] << 8 | out[0] << 16 | alpha << 24);
    }
}

/* One 16-bit layout (3 or 4 samples a pixel, alpha last when there are 4). */
static inline __attribute__((always_inline)) void convert16(const fic_matrix_shaper *p, const uint16_t *s, uint8_t *d,
                                                            size_t count, int samples) {
    const uint8_t *encode = p->encode;
    const uint16_t *lr = p->linear16, *lg = p->linear16 + 65536, *lb = p->linear16 + 2 * 65536;
#if defined(FIC_MATRIX_SHAPER_SSE2)
    const __m128 c0 = _mm_load_ps(p->float_columns[0]), c1 = _mm_load_ps(p->float_columns[1]), c2 = _mm_load_ps(p->float_columns[2]);
    const __m128i zero = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi16(16384);
    for (size_t i = 0; i < count; i++, s += samples, d += 4) {
        uint32_t alpha = samples == 4 ? alpha16to8(s[3]) : 255u;
        __m128 x = _mm_mul_ps(c0, _mm_set1_ps((float)lr[s[0]]));
        x = _mm_add_ps(x, _mm_mul_ps(c1, _mm_set1_ps((float)lg[s[1]])));
        x = _mm_add_ps(x, _mm_mul_ps(c2, _mm_set1_ps((float)lb[s[2]])));
        __m128i sum = _mm_cvtps_epi32(x); /* rounds to nearest */
        __m128i index = _mm_packs_epi32(sum, sum);
        index = _mm_min_epi16(_mm_max_epi16(index, zero), one);
        uint32_t ro = encode[_mm_extract_epi16(index, 0)];
        uint32_t go = encode[_mm_extract_epi16(index, 1)];
        uint32_t bo = encode[_mm_extract_epi16(index, 2)];
        store_pixel(d, bo | go << 8 | ro << 16 | alpha << 24);
    }
#else
    for (size_t i = 0; i < count; i++, s += samples, d += 4) {
        uint32_t alpha = samples == 4 ? alpha16to8(s[3]) : 255u;
        float lin[3] = { (float)lr[s[0]], (float)lg[s[1]], (float)lb[s[2]] };
        uint32_t out[3];
        for (int o = 0; o < 3; o++) {
            float x = p->float_columns[0][o] * lin[0] + p->float_columns[1][o] * lin[1] + p->float_columns[2][o] * lin[2];
            long n = lrintf(x);
            out[o] = encode[n < 0 ? 0 : (n > 16384 ? 16384 : n)];
        }
        store_pixel(d, out[2] | out[1] << 8 | out[0] << 16 | alpha << 24);
    }
#endif
}

int fic_matrix_shaper_convert(const fic_matrix_shaper *shaper, fic_color_layout layout,
                              const void *source, void *destination, size_t count) {
    const uint8_t *s = (const uint8_t *)source;
    uint8_t *d = (uint8_t *)destination;
    switch (layout) {
    case FIC_COLOR_BGRX8: convert8(shaper, s, d, count, 4, 2, 1, 0, -1); return 1;
    case FIC_COLOR_BGRA8: convert8(shaper, s, d, count, 4, 2, 1, 0, 3); return 1;
    case FIC_COLOR_RGB8: convert8(shaper, s, d, count, 3, 0, 1, 2, -1); return 1;
    case FIC_COLOR_RGBA8: convert8(shaper, s, d, count, 4, 0, 1, 2, 3); return 1;
    case FIC_COLOR_RGB16:
        if (shaper->linear16 == NULL) return 0;
        convert16(shaper, (const uint16_t *)source, d, count, 3);
        return 1;
    case FIC_COLOR_RGBA16:
        if (shaper->linear16 == NULL) return 0;
        convert16(shaper, (const uint16_t *)source, d, count, 4);
        return 1;
    default:
        return 0;
    }
}
