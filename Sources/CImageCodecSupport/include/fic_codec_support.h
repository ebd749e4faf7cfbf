#ifndef FIC_CODEC_SUPPORT_H
#define FIC_CODEC_SUPPORT_H

/*
 * A thin, longjmp-safe wrapper around one libjpeg decompressor.
 *
 * libjpeg reports fatal errors by calling error_exit, which must not return; the functions here
 * catch that with setjmp, so no longjmp ever crosses a Swift frame. Input comes from a source
 * manager that either borrows one complete buffer (one-shot decoding) or owns a growing buffer
 * fed by fic_jpeg_append_input (suspending, incremental decoding).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque decoder state. */
typedef struct fic_jpeg_decoder fic_jpeg_decoder;

/** Result of one decoding step. */
typedef enum {
    FIC_JPEG_OK = 0,        /**< The step finished. */
    FIC_JPEG_SUSPENDED = 1, /**< More input is needed (incremental decoding only). */
    FIC_JPEG_ERROR = 2      /**< libjpeg failed; see fic_jpeg_error_kind / fic_jpeg_error_message. */
} fic_jpeg_status;

/** What went wrong, classified from libjpeg's message code. */
typedef enum {
    FIC_JPEG_ERR_NONE = 0,
    FIC_JPEG_ERR_CORRUPT = 1,
    FIC_JPEG_ERR_TRUNCATED = 2,
    FIC_JPEG_ERR_UNSUPPORTED = 3,
    FIC_JPEG_ERR_TOO_LARGE = 4,
    FIC_JPEG_ERR_MEMORY = 5,
    FIC_JPEG_ERR_INVALID = 6
} fic_jpeg_error_kind;

/** Facts from the JPEG header (valid after fic_jpeg_read_header returned FIC_JPEG_OK). */
typedef struct {
    uint32_t width;
    uint32_t height;
    int components;
    int color_space;        /**< libjpeg's J_COLOR_SPACE of the stored data. */
    int progressive;
    int arithmetic;         /**< Arithmetic-coded: libjpeg cannot suspend inside its scans. */
    int multiple_scans;     /**< Decoding buffers the whole coefficient array (progressive or multi-scan). */
    int saw_adobe_marker;
    int adobe_transform;
    uint64_t coefficient_bytes; /**< Sum over components of width_in_blocks * height_in_blocks * 128. */
    /**
     * The quantisation tables of the first component (luma, or grey) and of the second (chroma),
     * in natural order (row by row of the 8 x 8 block, not the zigzag of a DQT marker); the
     * matching has_ flag is 0 when the file defined no such table before its frame header.
     */
    uint16_t luma_quantization[64];
    uint16_t chroma_quantization[64];
    int has_luma_quantization;
    int has_chroma_quantization;
} fic_jpeg_header;

/**
 * Creates a decoder. With strict != 0 the libjpeg warnings that mean wrong or missing pixels
 * (corrupt entropy-coded data, premature end of data) are turned into errors; other warnings
 * (extraneous bytes before a marker, a bad ICC or Adobe segment, ...) are kept for the caller to
 * log (fic_jpeg_warning_message) and decoding goes on. Large buffers libjpeg needs (strips,
 * coefficient arrays) are pages mapped for the decoder and unmapped when it is done with them,
 * never taken from malloc. Returns NULL when out of memory.
 */
fic_jpeg_decoder *fic_jpeg_create(int strict);
/** Destroys a decoder and everything it owns. Accepts NULL. */
void fic_jpeg_destroy(fic_jpeg_decoder *decoder);

/** Borrows a complete JPEG stream (it must outlive the decoder's use); its end is the end of input. */
void fic_jpeg_set_input(fic_jpeg_decoder *decoder, const void *data, size_t length);
/** Copies the next chunk of a stream into the decoder's buffer. Returns 0, or -1 when out of memory. */
int fic_jpeg_append_input(fic_jpeg_decoder *decoder, const void *data, size_t length);
/** Declares that no more input will come: running dry is now premature end of data. */
void fic_jpeg_set_end_of_input(fic_jpeg_decoder *decoder);
/** Bytes buffered but not yet consumed by libjpeg. */
size_t fic_jpeg_buffered_bytes(const fic_jpeg_decoder *decoder);
/** The first of those bytes (NULL when there are none). */
const uint8_t *fic_jpeg_buffered_data(const fic_jpeg_decoder *decoder);

/** Reads the header (saving APP1 markers for EXIF). */
fic_jpeg_status fic_jpeg_read_header(fic_jpeg_decoder *decoder, fic_jpeg_header *header);
/**
 * The saved marker number `index` (APP1 and APP2 markers are saved, in file order): its code
 * (0xE1, 0xE2) in *marker, its payload (after the length) and its length; NULL past the last one.
 * Valid until the decoder is destroyed.
 */
const uint8_t *fic_jpeg_saved_marker(const fic_jpeg_decoder *decoder, int index, int *marker, size_t *length);
/**
 * The payload of the first APP1 "Exif\0\0" marker (starting at the TIFF header), or NULL.
 * Valid until the decoder is destroyed.
 */
const uint8_t *fic_jpeg_exif(const fic_jpeg_decoder *decoder, size_t *length);
/**
 * Chooses the output: scale 1/scale_denominator, JDCT_ISLOW, fancy upsampling, BGRX; CMYK and
 * YCCK come out as CMYK as stored (inverted when the file has an Adobe marker), 4 bytes a pixel,
 * for the caller to convert. Reports the output size.
 */
fic_jpeg_status fic_jpeg_configure(fic_jpeg_decoder *decoder, int scale_denominator,
                                   uint32_t *output_width, uint32_t *output_height);
/**
 * For a progressive JPEG, makes fic_jpeg_start return as soon as the final scan begins (the scan
 * after which every coefficient is complete), so that rows come out while that scan is read
 * instead of after the whole file; fic_jpeg_finish then fails if the file sends another scan
 * after it. Call after fic_jpeg_configure, before fic_jpeg_start. Does nothing for other JPEGs.
 */
void fic_jpeg_overlap_final_scan(fic_jpeg_decoder *decoder);
/** jpeg_start_decompress. May suspend (progressive input is consumed here). */
fic_jpeg_status fic_jpeg_start(fic_jpeg_decoder *decoder);
/**
 * Reads up to max_rows rows of BGRX pixels into dst (rows stride bytes apart). *rows_read receives
 * how many rows were written. Returns FIC_JPEG_SUSPENDED when input ran dry before max_rows rows
 * (or the end of the image) were read.
 */
fic_jpeg_status fic_jpeg_read_rows(fic_jpeg_decoder *decoder, uint8_t *dst, size_t stride,
                                   uint32_t max_rows, uint32_t *rows_read);
/** The next output row to be read. */
uint32_t fic_jpeg_output_scanline(const fic_jpeg_decoder *decoder);
/** jpeg_finish_decompress: reads up to the EOI marker. May suspend. */
fic_jpeg_status fic_jpeg_finish(fic_jpeg_decoder *decoder);

/** The kind of the error that stopped the decoder. */
fic_jpeg_error_kind fic_jpeg_get_error_kind(const fic_jpeg_decoder *decoder);
/** libjpeg's text for that error (empty when there was none). */
const char *fic_jpeg_error_message(const fic_jpeg_decoder *decoder);
/** How many libjpeg warnings were seen (non-strict mode keeps going past them). */
int fic_jpeg_warning_count(const fic_jpeg_decoder *decoder);
/** The text of the index-th warning kept (the first few are), or NULL. */
const char *fic_jpeg_warning_message(const fic_jpeg_decoder *decoder, int index);

/** The most bytes the decoder has had mapped at once for libjpeg's large buffers. */
size_t fic_jpeg_peak_mapped_bytes(const fic_jpeg_decoder *decoder);

/**
 * For a progressive JPEG configured at scale 1/8 (each luma block becomes one pixel): starts
 * decompression in buffered-image mode and reads scans only until every coefficient the scaled
 * inverse DCT uses is known to within max_point_transform low bits (the point transform Al of
 * successive approximation), then starts output from what has been read. Block smoothing is
 * turned off, so the output is exactly those coefficients' inverse DCT. *scans_read receives the
 * number of scans read, *all_scans whether that was every scan of the file. Call instead of
 * fic_jpeg_start, read rows with fic_jpeg_read_rows, then call fic_jpeg_finish_partial (not
 * fic_jpeg_finish). One-shot input only.
 */
fic_jpeg_status fic_jpeg_start_partial(fic_jpeg_decoder *decoder, int max_point_transform,
                                       int *scans_read, int *all_scans);
/** Ends the output pass started by fic_jpeg_start_partial; the unread scans are left unread. */
fic_jpeg_status fic_jpeg_finish_partial(fic_jpeg_decoder *decoder);

/*
 * malloc, calloc, realloc and free whose blocks of 64 KiB or more are pages mapped for them (and
 * unmapped when freed), for C libraries that take an allocator (libspng, and zlib through it).
 * Blocks must be freed with fic_mapped_free.
 */
void *fic_mapped_malloc(size_t size);
void *fic_mapped_calloc(size_t count, size_t size);
void *fic_mapped_realloc(void *pointer, size_t size);
void fic_mapped_free(void *pointer);

/*
 * Returns the free memory of malloc's heaps to the system (glibc's malloc_trim), for after a
 * decode by a library that takes no allocator (libheif): glibc would otherwise keep the planes it
 * freed, its mmap threshold raised to their size by the first one.
 */
void fic_release_free_heap_memory(void);

/*
 * The image data of a non-interlaced PNG, inflated and unfiltered row by row. Feed it the payloads
 * of the IDAT chunks in order (their CRCs checked by the caller); each completed row of stored
 * samples (row_bytes long, valid during the call) goes to the callback, which returns 0 to go on.
 */
typedef struct fic_png_inflater fic_png_inflater;
typedef int (*fic_png_row_callback)(void *context, uint32_t row, const unsigned char *samples);
enum { FIC_PNG_OK = 0, FIC_PNG_CORRUPT = 1, FIC_PNG_MEMORY = 2, FIC_PNG_STOPPED = 3 };

/** An inflater for width x height pixels of channels samples of bit_depth bits; NULL when out of memory. */
fic_png_inflater *fic_png_inflater_create(uint32_t width, uint32_t height, int bit_depth, int channels);
/** Inflates and unfilters the next IDAT payload. Returns FIC_PNG_OK or what went wrong. */
int fic_png_inflater_feed(fic_png_inflater *inflater, const void *data, size_t length,
                          fic_png_row_callback callback, void *context);
/** The number of rows completed so far. */
uint32_t fic_png_inflater_rows(const fic_png_inflater *inflater);
/** Whether a whole scanline of data came after the last row (it is not inflated further). */
int fic_png_inflater_beyond_last_row(const fic_png_inflater *inflater);
/** Frees an inflater. Accepts NULL. */
void fic_png_inflater_destroy(fic_png_inflater *inflater);
/** Whether the CRC-32 of a chunk's type and data (length bytes) is expected. */
int fic_png_chunk_crc_matches(const void *type_and_data, size_t length, uint32_t expected);

#ifdef __cplusplus
}
#endif

/** Room for an encoder's error message. */
#define FIC_JPEG_ENCODE_MESSAGE_LENGTH 200

/**
 * The four Huffman tables of a 4:2:0 YCbCr baseline JPEG (0 DC luma, 1 DC chroma, 2 AC luma,
 * 3 AC chroma), as a DHT marker lists them: code counts by length 1-16 (bits[0] unused) and the
 * symbols in code order.
 */
typedef struct {
    uint8_t bits[4][17];
    uint8_t values[4][256];
    int counts[4];
} fic_jpeg_huffman;

/**
 * Huffman tables for more images like the JPEG `jpeg` (`length` bytes), whose own tables were made
 * for it (libjpeg's optimize_coding): each symbol's frequency estimated from its code's length
 * (2^(16 - length)), every symbol baseline JPEG can code given a small one (so that any image can
 * be coded with them), and the optimal tables of those frequencies made as JPEG's Annex K.2 does.
 * Returns 0, or -1 when the file does not hold the four tables.
 */
int fic_jpeg_huffman_from_jpeg(const uint8_t *jpeg, size_t length, fic_jpeg_huffman *out);

/**
 * Encodes `height` rows of `width` 32-bit BGRX pixels (the fourth byte ignored), rows
 * `bytes_per_row` apart, as a baseline JPEG of `quality` (1-100, 4:2:0), its chroma at
 * `chroma_quality` instead when that is 1-100 (0: the same). A non-NULL `luma_table` or `chroma_table` (64 steps in natural order, 1-255) replaces the standard table
 * the quality scales. Huffman tables: with `optimize` != 0, made for this image (a second pass over
 * its coefficients: smaller, two to three times slower); else `huffman`'s when non-NULL; else the
 * standard ones. Returns 0 and sets `*out` (to free with free()) and `*out_size`; otherwise returns
 * 1 with libjpeg's message in `message` (FIC_JPEG_ENCODE_MESSAGE_LENGTH bytes).
 */
int fic_jpeg_encode_bgrx(const uint8_t *pixels, int width, int height, size_t bytes_per_row, int quality,
                         int chroma_quality, const uint16_t *luma_table, const uint16_t *chroma_table, int optimize,
                         const fic_jpeg_huffman *huffman, unsigned char **out, unsigned long *out_size,
                         char *message);

#endif
