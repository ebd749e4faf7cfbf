#ifndef FIC_JPEG_COEFFICIENTS_H
#define FIC_JPEG_COEFFICIENTS_H

/*
 * File-backed coefficient arrays that let libjpeg decode huge progressive JPEGs with a bounded
 * resident set (jpeg_coefficient_file.c, jpeg_coefficient_pager.c).
 */

#include <stddef.h>
#include <stdint.h>

#include "fic_codec_support.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes libjpeg keep the whole-image coefficient arrays of a progressive (multi-scan) JPEG in a
 * shared mapping of the file fd (which should be an unlinked temporary file; it is grown as needed
 * and never closed here) instead of in memory. At most about resident_limit bytes of the mapping
 * stay in the resident set (the data stays in the file and the page cache). With use_pager, a
 * thread prepares the file's pages ahead of the decoder and drops them behind it; without it, or
 * when that thread cannot be started, the decoding thread writes the file's zeros first and drops
 * all its pages whenever more than the limit has been touched. Call after fic_jpeg_read_header,
 * before fic_jpeg_start. Returns 0, or -1 when out of memory.
 */
int fic_jpeg_use_coefficient_file(fic_jpeg_decoder *decoder, int fd, uint64_t resident_limit, int use_pager);

/** The most bytes of the coefficient file the pager held mapped at once, or 0 without a pager. */
uint64_t fic_jpeg_coefficient_file_peak_window(const fic_jpeg_decoder *decoder);

/**
 * Bytes of the coefficient file freed (punched out, with their page cache) behind the final
 * output pass, before the file is closed; 0 without a pager or where the file system cannot.
 */
uint64_t fic_jpeg_coefficient_file_freed_early(const fic_jpeg_decoder *decoder);

/** Bytes of coefficients placed in the file (0 until the arrays are realized or when unused). */
uint64_t fic_jpeg_coefficient_file_bytes(const fic_jpeg_decoder *decoder);

/** The errno of a failed grow or map of the coefficient file, or 0. */
int fic_jpeg_coefficient_file_errno(const fic_jpeg_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
