#ifndef FIC_TILE_SUPPORT_H
#define FIC_TILE_SUPPORT_H

/*
 * Support for building tile pyramids: the 2 x 2 box filter that makes each zoom level from the
 * one above, and zlib's deflate for the tiles of pyramidal TIFFs. Nothing here makes a system
 * call (those are FICCore's, band writes in flight included).
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

/** The most bytes fic_tile_deflate can produce from `length` bytes (zlib's compressBound). */
size_t fic_tile_deflate_bound(size_t length);

/**
 * Compresses `length` bytes as one zlib stream (TIFF's Adobe deflate) at zlib `level` into
 * `destination`, whose capacity is `*destination_length` (at least fic_tile_deflate_bound);
 * sets `*destination_length` to the bytes produced. Returns 0, or -1 when zlib fails.
 */
int fic_tile_deflate(const uint8_t *source, size_t length, uint8_t *destination, size_t *destination_length, int level);

/**
 * Inflates one zlib stream of `length` bytes into at most `capacity` bytes at `destination`;
 * `*produced` is the bytes written. Returns 0 when the stream ended or filled `capacity`, -1 for
 * damaged data.
 */
int fic_tile_inflate(const uint8_t *source, size_t length, uint8_t *destination, size_t capacity, size_t *produced);

#ifdef __cplusplus
}
#endif

#endif
