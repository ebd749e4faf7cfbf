#ifndef FIC_TILE_SUPPORT_H
#define FIC_TILE_SUPPORT_H

/*
 * Support for building tile pyramids: the 2 x 2 box filter that makes each zoom level from the
 * one above, and band writes in flight together. Nothing here knows an image format.
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

/** O_DIRECT, which Swift does not import. */
extern const int fic_tile_o_direct;

/**
 * Writes of pyramid bands in flight together (Linux native AIO; synchronous writes where the
 * system refuses it). Each write carries a tag (a band) below the tag count given at creation, so
 * that a caller can wait for the writes of one band before filling it again. The first failure is
 * kept and returned by every later call. Not thread-safe: one thread at a time.
 */
typedef struct fic_tile_writer fic_tile_writer;

/** A writer with room for capacity writes in flight and tags 0 ..< tag_count; NULL when out of memory. */
fic_tile_writer *fic_tile_writer_create(uint32_t capacity, uint32_t tag_count);

/**
 * Queues count writes of length bytes: write i takes buffer + i * buffer_stride to fd at offset +
 * i * file_stride. The buffer must stay untouched until fic_tile_writer_wait for the tag returns.
 * Waits for earlier writes when every slot is taken. Returns 0 or an errno.
 */
int fic_tile_writer_submit(fic_tile_writer *writer, int fd, const uint8_t *buffer, size_t length, size_t buffer_stride,
                           uint32_t count, int64_t offset, int64_t file_stride, uint32_t tag);

/** Waits until no write with tag is in flight. Returns 0 or the errno of the first failed write. */
int fic_tile_writer_wait(fic_tile_writer *writer, uint32_t tag);

/** Waits until no write is in flight. Returns 0 or the errno of the first failed write. */
int fic_tile_writer_wait_all(fic_tile_writer *writer);

/** 1 when writes go through AIO, 0 when they are synchronous. */
int fic_tile_writer_is_asynchronous(const fic_tile_writer *writer);

/** Waits for every write in flight, then frees the writer. */
void fic_tile_writer_destroy(fic_tile_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
