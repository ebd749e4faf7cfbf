/* The 2 x 2 box filter of the tile pyramids (one output row from two source rows). */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fic_tile_support.h"

void fic_tile_box_filter(const uint8_t *restrict row0, const uint8_t *restrict row1, uint8_t *restrict dst,
                         uint32_t src_width) {
    uint32_t pairs = src_width / 2;
    uint32_t x = 0;
#if defined(__SSE2__)
    /* Four output pixels (eight source pixels of each row) at a time, in 16-bit lanes. */
    const __m128i zero = _mm_setzero_si128();
    const __m128i two = _mm_set1_epi16(2);
    for (; x + 4 <= pairs; x += 4) {
        __m128i a0 = _mm_loadu_si128((const __m128i *)(row0 + (size_t)x * 8));
        __m128i a1 = _mm_loadu_si128((const __m128i *)(row0 + (size_t)x * 8 + 16));
        __m128i b0 = _mm_loadu_si128((const __m128i *)(row1 + (size_t)x * 8));
        __m128i b1 = _mm_loadu_si128((const __m128i *)(row1 + (size_t)x * 8 + 16));
        /* Column sums of source pixels 0-1, 2-3, 4-5, 6-7. */
        __m128i s0 = _mm_add_epi16(_mm_unpacklo_epi8(a0, zero), _mm_unpacklo_epi8(b0, zero));
        __m128i s1 = _mm_add_epi16(_mm_unpackhi_epi8(a0, zero), _mm_unpackhi_epi8(b0, zero));
        __m128i s2 = _mm_add_epi16(_mm_unpacklo_epi8(a1, zero), _mm_unpacklo_epi8(b1, zero));
        __m128i s3 = _mm_add_epi16(_mm_unpackhi_epi8(a1, zero), _mm_unpackhi_epi8(b1, zero));
        /* Pairs of columns: output pixels 0-1 and 2-3. */
        __m128i o01 = _mm_add_epi16(_mm_unpacklo_epi64(s0, s1), _mm_unpackhi_epi64(s0, s1));
        __m128i o23 = _mm_add_epi16(_mm_unpacklo_epi64(s2, s3), _mm_unpackhi_epi64(s2, s3));
        o01 = _mm_srli_epi16(_mm_add_epi16(o01, two), 2);
        o23 = _mm_srli_epi16(_mm_add_epi16(o23, two), 2);
        _mm_storeu_si128((__m128i *)(dst + (size_t)x * 4), _mm_packus_epi16(o01, o23));
    }
#endif
    for (; x < pairs; x++) {
        const uint8_t *a = row0 + (size_t)x * 8;
        const uint8_t *b = row1 + (size_t)x * 8;
        uint8_t *out = dst + (size_t)x * 4;
        for (int c = 0; c < 4; c++) {
            out[c] = (uint8_t)(((unsigned)a[c] + a[c + 4] + b[c] + b[c + 4] + 2u) >> 2);
        }
    }
    if (src_width & 1u) {
        const uint8_t *a = row0 + (size_t)pairs * 8;
        const uint8_t *b = row1 + (size_t)pairs * 8;
        uint8_t *out = dst + (size_t)pairs * 4;
        for (int c = 0; c < 4; c++) {
            out[c] = (uint8_t)((2u * a[c] + 2u * b[c] + 2u) >> 2);
        }
    }
}
