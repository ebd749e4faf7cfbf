/*
 * The image data of a non-interlaced PNG: IDAT bytes inflated with zlib and unfiltered row by row,
 * each row handed to a callback. libspng as Debian builds it unfilters with a generic byte loop
 * (its SIMD paths are compiled out), which took half of a large PNG's decoding time; here each
 * filter has a loop of its own for the common pixel sizes, which compilers keep tight, and the
 * filters whose bytes depend on the pixel to their left (sub, average, Paeth) work a whole 3- or
 * 4-byte pixel at a time in SSE2 registers where the processor has them.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fic_codec_support.h"

struct fic_png_inflater {
    z_stream stream;
    int stream_ready;
    int stream_ended;
    size_t row_bytes; /* stored samples per row, without the filter byte */
    size_t pixel_bytes;
    uint32_t height;
    uint32_t rows_done;
    int beyond_last_row; /* a whole scanline came after the last row */
    size_t filled; /* bytes of the current scanline (filter byte included) inflated so far */
    unsigned char *scanline_memory;
    unsigned char *scanline; /* filter byte + row; the row starts 64-byte aligned */
    unsigned char *previous; /* the previous row, unfiltered (zeros before the first) */
};

fic_png_inflater *fic_png_inflater_create(uint32_t width, uint32_t height, int bit_depth, int channels) {
    if (width == 0 || height == 0 || bit_depth <= 0 || channels <= 0) {
        return NULL;
    }
    uint64_t bits = (uint64_t)width * (uint64_t)channels * (uint64_t)bit_depth;
    if (bits / 8 > ((uint64_t)1 << 40)) {
        return NULL;
    }
    fic_png_inflater *inflater = (fic_png_inflater *)calloc(1, sizeof(fic_png_inflater));
    if (inflater == NULL) {
        return NULL;
    }
    inflater->row_bytes = (size_t)((bits + 7) / 8);
    inflater->pixel_bytes = (size_t)(channels * bit_depth + 7) / 8;
    inflater->height = height;
    inflater->scanline_memory = (unsigned char *)fic_mapped_calloc(1, inflater->row_bytes + 64);
    inflater->scanline = inflater->scanline_memory + 63;
    inflater->previous = (unsigned char *)fic_mapped_calloc(1, inflater->row_bytes + 16);
    if (inflater->scanline_memory == NULL || inflater->previous == NULL || inflateInit(&inflater->stream) != Z_OK) {
        fic_png_inflater_destroy(inflater);
        return NULL;
    }
    inflater->stream_ready = 1;
    (void)inflateValidate(&inflater->stream, 0); /* every IDAT chunk's CRC is checked instead */
    return inflater;
}

void fic_png_inflater_destroy(fic_png_inflater *inflater) {
    if (inflater == NULL) {
        return;
    }
    if (inflater->stream_ready) {
        inflateEnd(&inflater->stream);
    }
    fic_mapped_free(inflater->scanline_memory);
    fic_mapped_free(inflater->previous);
    free(inflater);
}

static unsigned char paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (unsigned char)(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c));
}

/* One filter for one pixel size: `n` is the row length, `bpp` a constant the compiler folds. */
static inline void unfilter_with(int filter, unsigned char *row, const unsigned char *prev, size_t n, size_t bpp) {
    size_t i;
    switch (filter) {
    case 1:
        for (i = bpp; i < n; i++) row[i] = (unsigned char)(row[i] + row[i - bpp]);
        break;
    case 2:
        for (i = 0; i < n; i++) row[i] = (unsigned char)(row[i] + prev[i]);
        break;
    case 3:
        for (i = 0; i < bpp && i < n; i++) row[i] = (unsigned char)(row[i] + (prev[i] >> 1));
        for (; i < n; i++) row[i] = (unsigned char)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
        break;
    case 4:
        for (i = 0; i < bpp && i < n; i++) row[i] = (unsigned char)(row[i] + prev[i]);
        for (; i < n; i++) row[i] = (unsigned char)(row[i] + paeth(row[i - bpp], prev[i], prev[i - bpp]));
        break;
    default:
        break;
    }
}

#if defined(__SSE2__)
/* Callers pass a constant bpp (3 or 4), so these memcpy calls become single moves. */
static inline __m128i load_pixel(const unsigned char *p, size_t bpp) {
    uint32_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_cvtsi32_si128((int)v);
}

static inline void store_pixel(unsigned char *p, __m128i v, size_t bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    memcpy(p, &x, bpp);
}

static inline void sub_pixels(unsigned char *row, size_t n, size_t bpp) {
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < n; i += bpp) {
        a = _mm_add_epi8(load_pixel(row + i, bpp), a);
        store_pixel(row + i, a, bpp);
    }
}

static inline void average_pixels(unsigned char *row, const unsigned char *prev, size_t n, size_t bpp) {
    const __m128i one = _mm_set1_epi8(1);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < n; i += bpp) {
        __m128i b = load_pixel(prev + i, bpp);
        /* floor((a + b) / 2): the rounded-up average less the odd bit */
        __m128i average = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
        a = _mm_add_epi8(load_pixel(row + i, bpp), average);
        store_pixel(row + i, a, bpp);
    }
}

static inline void paeth_pixels(unsigned char *row, const unsigned char *prev, size_t n, size_t bpp) {
    const __m128i zero = _mm_setzero_si128();
    __m128i a16 = zero, c16 = zero; /* the pixel to the left and the one above it, in 16-bit lanes */
    for (size_t i = 0; i < n; i += bpp) {
        __m128i b16 = _mm_unpacklo_epi8(load_pixel(prev + i, bpp), zero);
        __m128i pa = _mm_sub_epi16(b16, c16); /* p - a */
        __m128i pb = _mm_sub_epi16(a16, c16); /* p - b */
        __m128i pc = _mm_add_epi16(pa, pb);   /* p - c */
        pa = _mm_max_epi16(pa, _mm_sub_epi16(zero, pa));
        pb = _mm_max_epi16(pb, _mm_sub_epi16(zero, pb));
        pc = _mm_max_epi16(pc, _mm_sub_epi16(zero, pc));
        __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
        __m128i use_a = _mm_cmpeq_epi16(pa, smallest);
        __m128i use_b = _mm_andnot_si128(use_a, _mm_cmpeq_epi16(pb, smallest));
        __m128i nearest = _mm_or_si128(_mm_and_si128(use_a, a16), _mm_and_si128(use_b, b16));
        nearest = _mm_or_si128(nearest, _mm_andnot_si128(_mm_or_si128(use_a, use_b), c16));
        __m128i x = _mm_add_epi8(load_pixel(row + i, bpp), _mm_packus_epi16(nearest, zero));
        store_pixel(row + i, x, bpp);
        a16 = _mm_unpacklo_epi8(x, zero);
        c16 = b16;
    }
}

/* Sub, average and Paeth for 3- and 4-byte pixels, one pixel per step; false when not handled. */
static int unfilter_pixels(int filter, unsigned char *row, const unsigned char *prev, size_t n, size_t bpp) {
    if (n % bpp != 0) {
        return 0;
    }
    switch (filter * 8 + (int)bpp) {
    case 1 * 8 + 3: sub_pixels(row, n, 3); return 1;
    case 1 * 8 + 4: sub_pixels(row, n, 4); return 1;
    case 3 * 8 + 3: average_pixels(row, prev, n, 3); return 1;
    case 3 * 8 + 4: average_pixels(row, prev, n, 4); return 1;
    case 4 * 8 + 3: paeth_pixels(row, prev, n, 3); return 1;
    case 4 * 8 + 4: paeth_pixels(row, prev, n, 4); return 1;
    default: return 0;
    }
}
#endif

static void unfilter(int filter, unsigned char *row, const unsigned char *prev, size_t n, size_t bpp) {
#if defined(__SSE2__)
    if (unfilter_pixels(filter, row, prev, n, bpp)) {
        return;
    }
#endif
    switch (bpp) {
    case 1: unfilter_with(filter, row, prev, n, 1); break;
    case 2: unfilter_with(filter, row, prev, n, 2); break;
    case 3: unfilter_with(filter, row, prev, n, 3); break;
    case 4: unfilter_with(filter, row, prev, n, 4); break;
    case 6: unfilter_with(filter, row, prev, n, 6); break;
    case 8: unfilter_with(filter, row, prev, n, 8); break;
    default: unfilter_with(filter, row, prev, n, bpp); break;
    }
}

int fic_png_inflater_feed(fic_png_inflater *inflater, const void *data, size_t length,
                          fic_png_row_callback callback, void *context) {
    z_stream *stream = &inflater->stream;
    stream->next_in = (Bytef *)data;
    stream->avail_in = 0;
    size_t remaining = length;
    size_t scanline_bytes = inflater->row_bytes + 1;
    /* Data past the last row is never inflated further: it is ignored (as libpng ignores it),
       and a stream of it (a bomb after a small image) costs nothing. */
    while (!inflater->stream_ended && !inflater->beyond_last_row) {
        if (stream->avail_in == 0 && remaining > 0) {
            uInt chunk = remaining > 0x40000000u ? 0x40000000u : (uInt)remaining;
            stream->avail_in = chunk;
            remaining -= chunk;
        }
        size_t before = inflater->filled;
        stream->next_out = inflater->scanline + inflater->filled;
        stream->avail_out = (uInt)(scanline_bytes - inflater->filled);
        int status = inflate(stream, Z_NO_FLUSH);
        inflater->filled = scanline_bytes - stream->avail_out;
        if (status == Z_STREAM_END) {
            inflater->stream_ended = 1; /* bytes after the zlib stream are ignored, as libpng does */
        } else if (status == Z_NEED_DICT || status == Z_DATA_ERROR || status == Z_STREAM_ERROR) {
            return FIC_PNG_CORRUPT;
        } else if (status == Z_MEM_ERROR) {
            return FIC_PNG_MEMORY;
        }
        if (inflater->filled == scanline_bytes) {
            inflater->filled = 0;
            if (inflater->rows_done >= inflater->height) {
                inflater->beyond_last_row = 1;
                break;
            }
            int filter = inflater->scanline[0];
            if (filter > 4) {
                return FIC_PNG_CORRUPT;
            }
            unsigned char *row = inflater->scanline + 1;
            unfilter(filter, row, inflater->previous, inflater->row_bytes, inflater->pixel_bytes);
            if (callback(context, inflater->rows_done, row) != 0) {
                return FIC_PNG_STOPPED;
            }
            memcpy(inflater->previous, row, inflater->row_bytes);
            inflater->rows_done += 1;
            continue;
        }
        if (inflater->filled == before && stream->avail_in == 0 && remaining == 0) {
            break; /* zlib needs the next chunk */
        }
    }
    return FIC_PNG_OK;
}

int fic_png_chunk_crc_matches(const void *type_and_data, size_t length, uint32_t expected) {
    uLong crc = crc32(0L, Z_NULL, 0);
    const Bytef *bytes = (const Bytef *)type_and_data;
    while (length > 0) {
        uInt chunk = length > 0x40000000u ? 0x40000000u : (uInt)length;
        crc = crc32(crc, bytes, chunk);
        bytes += chunk;
        length -= chunk;
    }
    return (uint32_t)crc == expected;
}

uint32_t fic_png_inflater_rows(const fic_png_inflater *inflater) {
    return inflater->rows_done;
}

int fic_png_inflater_beyond_last_row(const fic_png_inflater *inflater) {
    return inflater->beyond_last_row;
}
