/* The 2 x 2 box filter of the tile pyramids (one output row from two source rows), and O_DIRECT. */
#define _GNU_SOURCE
#include <fcntl.h>

#include "fic_tile_support.h"

const int fic_tile_o_direct = O_DIRECT;

void fic_tile_box_filter(const uint8_t *restrict row0, const uint8_t *restrict row1, uint8_t *restrict dst,
                         uint32_t src_width) {
    uint32_t pairs = src_width / 2;
    for (uint32_t x = 0; x < pairs; x++) {
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
