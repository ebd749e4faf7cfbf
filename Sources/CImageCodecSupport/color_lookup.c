/*
 * The colour engine's simple loops: grey through a table of colours made by LittleCMS (a grey
 * profile's conversion is a function of one value, so a 256- or 65536-entry table gives its
 * results exactly), CMYK without a profile, and opaque alpha after conversions that leave it.
 */
#include <string.h>

#include "fic_color_support.h"

static inline void store_pixel(uint8_t *d, uint32_t pixel) {
    memcpy(d, &pixel, 4);
}

/* 16-bit alpha to 8 bits, rounded as LittleCMS does (FROM_16_TO_8). */
static inline uint32_t alpha16to8(uint32_t a) {
    return (a * 65281u + 8388608u) >> 24;
}

int fic_color_gray_lookup(const uint32_t *table, fic_color_layout layout,
                          const void *source, void *destination, size_t count) {
    const uint8_t *s8 = (const uint8_t *)source;
    const uint16_t *s16 = (const uint16_t *)source;
    uint8_t *d = (uint8_t *)destination;
    switch (layout) {
    case FIC_COLOR_GRAY8:
        for (size_t i = 0; i < count; i++, d += 4) store_pixel(d, table[s8[i]] | 0xFF000000u);
        return 1;
    case FIC_COLOR_GRAYA8:
        for (size_t i = 0; i < count; i++, d += 4) store_pixel(d, table[s8[2 * i]] | (uint32_t)s8[2 * i + 1] << 24);
        return 1;
    case FIC_COLOR_GRAY16:
        for (size_t i = 0; i < count; i++, d += 4) store_pixel(d, table[s16[i]] | 0xFF000000u);
        return 1;
    case FIC_COLOR_GRAYA16:
        for (size_t i = 0; i < count; i++, d += 4) store_pixel(d, table[s16[2 * i]] | alpha16to8(s16[2 * i + 1]) << 24);
        return 1;
    default:
        return 0;
    }
}

/* x / 255, rounded, for x in 0...255*255 (as the JPEG decoder's own CMYK conversion). */
static inline uint32_t divide_by_255(uint32_t x) {
    x += 128;
    return (x + (x >> 8)) >> 8;
}

void fic_color_naive_cmyk(int inverted, const void *source, void *destination, size_t count) {
    const uint8_t *s = (const uint8_t *)source;
    uint8_t *d = (uint8_t *)destination;
    uint32_t flip = inverted ? 0 : 255;
    for (size_t i = 0; i < count; i++, s += 4, d += 4) {
        uint32_t c = s[0] ^ flip, m = s[1] ^ flip, y = s[2] ^ flip, k = s[3] ^ flip; /* 255 - v, as 255 is all ones */
        store_pixel(d, divide_by_255(y * k) | divide_by_255(m * k) << 8 | divide_by_255(c * k) << 16 | 0xFF000000u);
    }
}

void fic_color_set_opaque(void *destination, size_t count) {
    uint8_t *d = (uint8_t *)destination;
    for (size_t i = 0; i < count; i++) {
        d[4 * i + 3] = 255;
    }
}
