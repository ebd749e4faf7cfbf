#ifndef FIC_COLOR_SUPPORT_H
#define FIC_COLOR_SUPPORT_H

/*
 * The pixel loops of the colour engine (ImageCodec's ColorConverter). Profiles are read with
 * LittleCMS on the Swift side; what comes here are the tables made from them, so these loops
 * know nothing about ICC. Every destination is 8-bit BGRA, not premultiplied; 16-bit sources
 * are native-endian. A source may be the destination when its pixels are 4 bytes.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The pixel layouts of sources, in the order of ColorConverter.Layout. */
typedef enum {
    FIC_COLOR_BGRX8 = 0,
    FIC_COLOR_BGRA8 = 1,
    FIC_COLOR_RGB8 = 2,
    FIC_COLOR_RGBA8 = 3,
    FIC_COLOR_RGB16 = 4,
    FIC_COLOR_RGBA16 = 5,
    FIC_COLOR_GRAY8 = 6,
    FIC_COLOR_GRAYA8 = 7,
    FIC_COLOR_GRAY16 = 8,
    FIC_COLOR_GRAYA16 = 9,
    FIC_COLOR_CMYK8 = 10,
    FIC_COLOR_CMYK_INVERTED8 = 11
} fic_color_layout;

/** Entries of the sRGB encoding table: linear light 0...1 in steps of 1/16384 (1.14 fixed point). */
#define FIC_COLOR_ENCODE_ENTRIES 16385

/** The tables of a matrix-shaper RGB profile's conversion to sRGB. */
typedef struct fic_matrix_shaper fic_matrix_shaper;

/**
 * Makes the tables of a matrix-shaper conversion, the same arithmetic as LittleCMS's own 8-bit
 * matrix-shaper optimisation (so 8-bit sources give its results):
 * - linear8: 3 × 256 floats, each channel's tone curve at v / 255 (linear light, R then G then B);
 * - linear16: 3 × 65536 values of each channel's curve at v / 65535 in 0...65535, or NULL when
 *   16-bit sources will not be converted;
 * - matrix: 3 × 3, row-major, linear source RGB to linear sRGB (both D50-adapted);
 * - encode: FIC_COLOR_ENCODE_ENTRIES bytes, sRGB's encoding of i / 16384.
 * Returns NULL when out of memory or when the matrix is too large for 32-bit fixed point (the
 * caller then uses LittleCMS).
 */
fic_matrix_shaper *fic_matrix_shaper_create(const float *linear8, const uint16_t *linear16,
                                            const double *matrix, const uint8_t *encode);
/** Frees the tables. Accepts NULL. */
void fic_matrix_shaper_destroy(fic_matrix_shaper *shaper);
/**
 * Converts count pixels of an RGB layout (BGRX8 ... RGBA16) to BGRA. Returns 0 when the layout
 * is not an RGB one, or is 16-bit and the tables were made without linear16.
 */
int fic_matrix_shaper_convert(const fic_matrix_shaper *shaper, fic_color_layout layout,
                              const void *source, void *destination, size_t count);

/**
 * Converts grey pixels (GRAY8 ... GRAYA16) through a table of BGR colours (alpha byte zero), one
 * per grey value: 256 entries for 8-bit layouts, 65536 for 16-bit ones. Returns 0 for other layouts.
 */
int fic_color_gray_lookup(const uint32_t *table, fic_color_layout layout,
                          const void *source, void *destination, size_t count);

/**
 * CMYK without a profile, as browsers convert it: R = (255 - C)(255 - K) / 255 and likewise for
 * G (M) and B (Y), rounded; an inverted source (Adobe) stores 255 - C ... 255 - K.
 */
void fic_color_naive_cmyk(int inverted, const void *source, void *destination, size_t count);

/** Sets the alpha byte of count BGRA pixels to 255. */
void fic_color_set_opaque(void *destination, size_t count);

/** Outcomes of fic_zlib_inflate. */
typedef enum {
    FIC_INFLATE_OK = 0,
    FIC_INFLATE_CORRUPT = 1,   /**< Not a valid zlib stream. */
    FIC_INFLATE_TRUNCATED = 2, /**< The stream ends before its end marker. */
    FIC_INFLATE_TOO_LARGE = 3, /**< It inflates to more than the limit. */
    FIC_INFLATE_MEMORY = 4
} fic_inflate_status;

/**
 * Inflates one whole zlib stream (a PNG iCCP chunk's profile) into memory allocated with malloc,
 * never more than limit bytes; on FIC_INFLATE_OK, *output (free it with free) holds
 * *output_length bytes. On any other outcome *output is NULL.
 */
fic_inflate_status fic_zlib_inflate(const void *source, size_t length, size_t limit,
                                    uint8_t **output, size_t *output_length);

#ifdef __cplusplus
}
#endif

#endif
