#ifndef FIC_TIFF_H
#define FIC_TIFF_H

/*
 * What Swift cannot do with libtiff itself: its variadic TIFFGetField/TIFFSetField, its error and
 * warning handlers (C callbacks with a va_list), and client I/O procedures over memory or a file
 * descriptor. Everything else (reading strips and tiles) is called from Swift directly.
 *
 * libtiff never prints: every message of a handle goes to the handle's own collector, and the
 * process-wide handlers are cleared the first time a handle is made.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tiff;

/** An open TIFF with its source and the messages libtiff sent about it. */
typedef struct fic_tiff fic_tiff;

/** Facts of the current directory, read with TIFFGetField(Defaulted). */
typedef struct {
    uint32_t width;
    uint32_t height;
    uint16_t bits_per_sample;
    uint16_t samples_per_pixel;
    uint16_t sample_format;
    uint16_t planar_config;
    uint16_t photometric;
    int has_photometric;
    uint16_t compression;
    uint16_t orientation;
    uint16_t inkset;
    uint16_t extra_sample_count;
    /** The kinds of the first extra samples (EXTRASAMPLE_*), up to 8. */
    uint16_t extra_samples[8];
    uint32_t subfile_type;
    int tiled;
    uint32_t tile_width;
    uint32_t tile_length;
    uint32_t rows_per_strip;
    /** Decoded bytes of one strip or tile (TIFFStripSize64 / TIFFTileSize64), after JPEGCOLORMODE. */
    uint64_t chunk_bytes;
    /** Decoded bytes of one row of a strip (TIFFScanlineSize64) or of a tile (TIFFTileRowSize64). */
    uint64_t row_bytes;
    /** Strips or tiles in the directory (every plane). */
    uint32_t chunk_count;
    /** The ICC profile (tag 34675), valid until the directory changes; NULL when absent. */
    const void *icc;
    uint32_t icc_length;
    uint16_t subifd_count;
    /** Whether libtiff's JPEG codec converts YCbCr to RGB for this directory (JPEGCOLORMODE_RGB). */
    int jpeg_rgb;
    /** The palette (1 << bits_per_sample entries per channel), valid until the directory changes. */
    const uint16_t *colormap_red;
    const uint16_t *colormap_green;
    const uint16_t *colormap_blue;
} fic_tiff_directory;

/**
 * Opens a TIFF held in memory (`data` must outlive the handle; strips are read from it without
 * copies) or, when `data` is NULL, the file `fd` of `size` bytes, read with pread (never mapped,
 * so that the bytes read do not stay resident). libtiff allocations of its own (directory arrays,
 * tag values) above `max_single_alloc` bytes are refused. Always returns a handle (NULL only when
 * out of memory); fic_tiff_is_open says whether libtiff opened it, fic_tiff_error_message why not.
 */
fic_tiff *fic_tiff_open(const void *data, int fd, uint64_t size, uint64_t max_single_alloc);
/** Closes the TIFF and frees the handle. Accepts NULL. */
void fic_tiff_close(fic_tiff *handle);
/** Whether libtiff opened the file (its first directory was read). */
int fic_tiff_is_open(const fic_tiff *handle);
/** libtiff's handle, for the calls Swift makes itself (NULL when not open). */
struct tiff *fic_tiff_handle(const fic_tiff *handle);

/** Errors and warnings libtiff reported since the last fic_tiff_clear_messages. */
int fic_tiff_error_count(const fic_tiff *handle);
int fic_tiff_warning_count(const fic_tiff *handle);
/** The first error and warning since then ("" when none), as "module: message". */
const char *fic_tiff_error_message(const fic_tiff *handle);
const char *fic_tiff_warning_message(const fic_tiff *handle);
/** Whether a read from the file descriptor failed (its errno), 0 if none. */
int fic_tiff_io_errno(const fic_tiff *handle);
void fic_tiff_clear_messages(fic_tiff *handle);

/** Reads the facts of the current directory. */
void fic_tiff_read_directory(fic_tiff *handle, fic_tiff_directory *directory);
/**
 * Makes directory `index` of the main chain (or the SubIFD at `offset`) current, and asks
 * libtiff's JPEG codec for RGB when it stores YCbCr (JPEGCOLORMODE must be set again after every
 * directory change). Returns 1 on success.
 */
int fic_tiff_set_directory(fic_tiff *handle, uint32_t index);
int fic_tiff_set_subdirectory(fic_tiff *handle, uint64_t offset);
/** The offsets of the current directory's SubIFDs, up to `capacity`; returns how many there are. */
int fic_tiff_subifd_offsets(fic_tiff *handle, uint64_t *offsets, int capacity);

/** libtiff's RGBA reader (TIFFRGBAImage), for layouts decoded no other way. */
typedef struct fic_tiff_rgba fic_tiff_rgba;
/**
 * Starts the RGBA reader on the current directory, in the stored orientation. Returns NULL
 * (with libtiff's reason in `message`, 1024 bytes) when it cannot read the directory.
 */
fic_tiff_rgba *fic_tiff_rgba_begin(fic_tiff *handle, char *message);
/**
 * Reads `rows` rows from `row` into `raster` (width × rows pixels, R, G, B, A bytes,
 * premultiplied alpha). Returns 1 on success.
 */
int fic_tiff_rgba_read(fic_tiff_rgba *reader, uint32_t *raster, uint32_t row, uint32_t rows);
/** Ends the RGBA reader. Accepts NULL. */
void fic_tiff_rgba_end(fic_tiff_rgba *reader);

#ifdef __cplusplus
}
#endif

#endif
