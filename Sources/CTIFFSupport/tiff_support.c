/* libtiff glue: client I/O over memory or a file descriptor, handlers that collect libtiff's
 * messages instead of printing them, and the variadic tag calls Swift cannot make. */
#include "fic_tiff.h"
#include "fic_core.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tiffio.h>

enum { MESSAGE_BYTES = 512 };

struct fic_tiff {
    TIFF *tiff;
    const uint8_t *data; /* the bytes, or NULL to read `fd` */
    int fd;
    uint64_t size;
    uint64_t position;
    int io_errno;
    int errors;
    int warnings;
    char error[MESSAGE_BYTES];
    char warning[MESSAGE_BYTES];
};

struct fic_tiff_rgba {
    TIFFRGBAImage image;
};

/* ---- messages ---- */

static void format_message(char *out, const char *module, const char *format, va_list arguments) {
    size_t used = 0;
    if (module && *module) {
        int n = snprintf(out, MESSAGE_BYTES, "%s: ", module);
        used = n < 0 ? 0 : (size_t)n < MESSAGE_BYTES ? (size_t)n : MESSAGE_BYTES - 1;
    }
    vsnprintf(out + used, MESSAGE_BYTES - used, format, arguments);
}

static int collect_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    fic_tiff *handle = user_data;
    if (handle->errors++ == 0) format_message(handle->error, module, format, arguments);
    return 1; /* handled: the process-wide handler is not called */
}

static int collect_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    fic_tiff *handle = user_data;
    if (handle->warnings++ == 0) format_message(handle->warning, module, format, arguments);
    return 1;
}

static pthread_once_t silence_once = PTHREAD_ONCE_INIT;

/* Paths that have no handle yet would use the process-wide handlers, which print to stderr. */
static void silence_global_handlers(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/* ---- client I/O ---- */

static tmsize_t source_read(thandle_t context, void *buffer, tmsize_t count) {
    fic_tiff *handle = context;
    if (count <= 0 || handle->position >= handle->size) return 0;
    uint64_t available = handle->size - handle->position;
    size_t wanted = (uint64_t)count < available ? (size_t)count : (size_t)available;
    if (handle->data) {
        memcpy(buffer, handle->data + handle->position, wanted);
        handle->position += wanted;
        return (tmsize_t)wanted;
    }
    /* FICCore's short-read loop; fewer bytes only when the file shrank. */
    size_t done = 0;
    int error = fic_read_fully(handle->fd, buffer, wanted, (int64_t)handle->position, &done);
    if (error != 0) {
        handle->io_errno = error;
        return -1;
    }
    handle->position += done;
    return (tmsize_t)done;
}

static tmsize_t source_write(thandle_t context, void *buffer, tmsize_t count) {
    (void)context;
    (void)buffer;
    (void)count;
    return -1; /* read only */
}

static toff_t source_seek(thandle_t context, toff_t offset, int whence) {
    fic_tiff *handle = context;
    uint64_t base = whence == SEEK_CUR ? handle->position : whence == SEEK_END ? handle->size : 0;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
    /* Offsets are unsigned: a "negative" one from SEEK_CUR/END wraps, as in libtiff's own procs. */
    handle->position = base + offset;
    return handle->position;
}

static int source_close(thandle_t context) {
    (void)context;
    return 0;
}

static toff_t source_size(thandle_t context) {
    return ((fic_tiff *)context)->size;
}

static int source_map(thandle_t context, void **base, toff_t *size) {
    fic_tiff *handle = context;
    if (!handle->data) return 0; /* files are read, not mapped */
    *base = (void *)handle->data;
    *size = handle->size;
    return 1;
}

static void source_unmap(thandle_t context, void *base, toff_t size) {
    (void)context;
    (void)base;
    (void)size;
}

/* ---- handles ---- */

static void select_rgb_output(TIFF *tiff) {
    uint16_t compression = COMPRESSION_NONE, photometric = 0;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
    if (compression == COMPRESSION_JPEG && TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &photometric) && photometric == PHOTOMETRIC_YCBCR) {
        TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
}

fic_tiff *fic_tiff_open(const void *data, int fd, uint64_t size, uint64_t max_single_alloc) {
    pthread_once(&silence_once, silence_global_handlers);
    fic_tiff *handle = calloc(1, sizeof *handle);
    if (!handle) return NULL;
    handle->data = data;
    handle->fd = fd;
    handle->size = size;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) {
        free(handle);
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, collect_error, handle);
    TIFFOpenOptionsSetWarningHandlerExtR(options, collect_warning, handle);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_single_alloc);
    /* "m" only matters for files, whose map procedure declines anyway. */
    handle->tiff = TIFFClientOpenExt("TIFF", data ? "r" : "rm", handle, source_read, source_write, source_seek,
                                     source_close, source_size, source_map, source_unmap, options);
    TIFFOpenOptionsFree(options);
    if (handle->tiff) select_rgb_output(handle->tiff);
    return handle;
}

void fic_tiff_close(fic_tiff *handle) {
    if (!handle) return;
    if (handle->tiff) TIFFClose(handle->tiff);
    free(handle);
}

int fic_tiff_is_open(const fic_tiff *handle) { return handle->tiff != NULL; }
struct tiff *fic_tiff_handle(const fic_tiff *handle) { return handle->tiff; }
int fic_tiff_error_count(const fic_tiff *handle) { return handle->errors; }
int fic_tiff_warning_count(const fic_tiff *handle) { return handle->warnings; }
const char *fic_tiff_error_message(const fic_tiff *handle) { return handle->error; }
const char *fic_tiff_warning_message(const fic_tiff *handle) { return handle->warning; }
int fic_tiff_io_errno(const fic_tiff *handle) { return handle->io_errno; }

void fic_tiff_clear_messages(fic_tiff *handle) {
    handle->errors = 0;
    handle->warnings = 0;
    handle->error[0] = 0;
    handle->warning[0] = 0;
    handle->io_errno = 0;
}

void fic_tiff_read_directory(fic_tiff *handle, fic_tiff_directory *d) {
    TIFF *t = handle->tiff;
    memset(d, 0, sizeof *d);
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &d->width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &d->height);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &d->bits_per_sample);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &d->samples_per_pixel);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &d->sample_format);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &d->planar_config);
    d->has_photometric = TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &d->photometric);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &d->compression);
    if (!TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &d->orientation)) d->orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(t, TIFFTAG_INKSET, &d->inkset);
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra) {
        d->extra_sample_count = extra_count;
        for (int i = 0; i < extra_count && i < 8; i++) d->extra_samples[i] = extra[i];
    }
    TIFFGetFieldDefaulted(t, TIFFTAG_SUBFILETYPE, &d->subfile_type);
    d->tiled = TIFFIsTiled(t);
    if (d->tiled) {
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &d->tile_width);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &d->tile_length);
        d->chunk_bytes = TIFFTileSize64(t);
        d->row_bytes = TIFFTileRowSize64(t);
        d->chunk_count = TIFFNumberOfTiles(t);
    } else {
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &d->rows_per_strip);
        d->chunk_bytes = TIFFStripSize64(t);
        d->row_bytes = TIFFScanlineSize64(t);
        d->chunk_count = TIFFNumberOfStrips(t);
    }
    uint32_t icc_length = 0;
    void *icc = NULL;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc && icc_length > 0) {
        d->icc = icc;
        d->icc_length = icc_length;
    }
    uint16_t subifd_count = 0;
    uint64_t *subifds = NULL;
    if (TIFFGetField(t, TIFFTAG_SUBIFD, &subifd_count, &subifds) && subifds) d->subifd_count = subifd_count;
    int colormode = 0;
    uint16_t photometric = d->photometric;
    d->jpeg_rgb = d->compression == COMPRESSION_JPEG && photometric == PHOTOMETRIC_YCBCR &&
                  TIFFGetField(t, TIFFTAG_JPEGCOLORMODE, &colormode) && colormode == JPEGCOLORMODE_RGB;
    if (d->has_photometric && photometric == PHOTOMETRIC_PALETTE) {
        uint16_t *red = NULL, *green = NULL, *blue = NULL;
        if (TIFFGetField(t, TIFFTAG_COLORMAP, &red, &green, &blue) && red && green && blue) {
            d->colormap_red = red;
            d->colormap_green = green;
            d->colormap_blue = blue;
        }
    }
}

int fic_tiff_set_directory(fic_tiff *handle, uint32_t index) {
    if (!TIFFSetDirectory(handle->tiff, (tdir_t)index)) return 0;
    select_rgb_output(handle->tiff);
    return 1;
}

int fic_tiff_set_subdirectory(fic_tiff *handle, uint64_t offset) {
    if (!TIFFSetSubDirectory(handle->tiff, offset)) return 0;
    select_rgb_output(handle->tiff);
    return 1;
}

int fic_tiff_subifd_offsets(fic_tiff *handle, uint64_t *offsets, int capacity) {
    uint16_t count = 0;
    uint64_t *found = NULL;
    if (!TIFFGetField(handle->tiff, TIFFTAG_SUBIFD, &count, &found) || !found) return 0;
    for (int i = 0; i < count && i < capacity; i++) offsets[i] = found[i];
    return count;
}

/* ---- the RGBA reader ---- */

fic_tiff_rgba *fic_tiff_rgba_begin(fic_tiff *handle, char *message) {
    fic_tiff_rgba *reader = calloc(1, sizeof *reader);
    if (!reader) {
        snprintf(message, 1024, "out of memory");
        return NULL;
    }
    if (!TIFFRGBAImageOK(handle->tiff, message) || !TIFFRGBAImageBegin(&reader->image, handle->tiff, 1, message)) {
        free(reader);
        return NULL;
    }
    /* Rows in the stored order: the caller applies the orientation (libtiff would only flip 5–8). */
    reader->image.req_orientation = reader->image.orientation;
    return reader;
}

int fic_tiff_rgba_read(fic_tiff_rgba *reader, uint32_t *raster, uint32_t row, uint32_t rows) {
    reader->image.row_offset = (int)row;
    reader->image.col_offset = 0;
    return TIFFRGBAImageGet(&reader->image, raster, reader->image.width, rows);
}

void fic_tiff_rgba_end(fic_tiff_rgba *reader) {
    if (!reader) return;
    TIFFRGBAImageEnd(&reader->image);
    free(reader);
}
