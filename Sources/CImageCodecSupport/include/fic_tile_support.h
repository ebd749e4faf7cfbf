#ifndef FIC_TILE_SUPPORT_H
#define FIC_TILE_SUPPORT_H

/*
 * Support for building tile pyramids: the 2 x 2 box filter that makes each zoom level from the
 * one above, and file-backed coefficient arrays that let libjpeg decode huge progressive JPEGs
 * with a bounded resident set.
 */

#include <stddef.h>
#include <stdint.h>

#include "fic_codec_support.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Averages 2 x 2 blocks of 4-byte pixels: source rows row0 and row1 (src_width pixels each; pass
 * row1 == row0 for the last row of an odd height) become (src_width + 1) / 2 pixels at dst. Each
 * output channel is (a + b + c + d + 2) >> 2; a missing last column repeats the one before it.
 */
void fic_tile_box_filter(const uint8_t *row0, const uint8_t *row1, uint8_t *dst, uint32_t src_width);

/** O_DIRECT, which Swift does not import. */
extern const int fic_tile_o_direct;

/**
 * Makes libjpeg keep the whole-image coefficient arrays of a progressive (multi-scan) JPEG in a
 * shared mapping of the file fd (which should be an unlinked temporary file; it is grown as needed
 * and never closed here) instead of in memory. At most about resident_limit bytes of the mapping
 * stay in the resident set: when more have been touched, the process's pages are dropped (the data
 * stays in the file and the page cache). Call after fic_jpeg_read_header, before fic_jpeg_start.
 * Returns 0, or -1 when out of memory.
 */
int fic_jpeg_use_coefficient_file(fic_jpeg_decoder *decoder, int fd, uint64_t resident_limit);

/** Bytes of coefficients placed in the file (0 until the arrays are realized or when unused). */
uint64_t fic_jpeg_coefficient_file_bytes(const fic_jpeg_decoder *decoder);

/** The errno of a failed grow or map of the coefficient file, or 0. */
int fic_jpeg_coefficient_file_errno(const fic_jpeg_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
