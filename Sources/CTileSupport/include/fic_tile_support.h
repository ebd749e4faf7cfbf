#ifndef FIC_TILE_SUPPORT_H
#define FIC_TILE_SUPPORT_H

/*
 * Support for building tile pyramids: the 2 x 2 box filter that makes each zoom level from the
 * one above. Nothing here knows an image format, and nothing makes a system call (those are
 * FICCore's, band writes in flight included).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Averages 2 x 2 blocks of 4-byte pixels: source rows row0 and row1 (src_width pixels each; pass
 * row1 == row0 for the last row of an odd height) become (src_width + 1) / 2 pixels at dst. Each
 * output channel is (a + b + c + d + 2) >> 2; a missing last column repeats the one before it.
 */
void fic_tile_box_filter(const uint8_t *row0, const uint8_t *row1, uint8_t *dst, uint32_t src_width);

#ifdef __cplusplus
}
#endif

#endif
