#ifndef FIC_WRITES_H
#define FIC_WRITES_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes in flight together (Linux's io_uring: io_uring_setup, io_uring_enter), with synchronous
 * writes where the system refuses io_uring. Each write carries a tag below the tag count
 * given at creation, so that a caller can wait for the writes of one buffer before filling it
 * again. The first failure is kept and returned by every later call. Not thread-safe: one thread
 * at a time. Here, beside the package's other system calls, rather than with its one user (the
 * tile pyramids' band writes).
 */
typedef struct fic_writes fic_writes;

/** Room for capacity writes in flight and tags 0 ..< tag_count; NULL when out of memory. */
fic_writes *fic_writes_create(uint32_t capacity, uint32_t tag_count);

/**
 * Queues count writes of length bytes: write i takes buffer + i * buffer_stride to fd at offset +
 * i * file_stride. The buffer must stay untouched until fic_writes_wait for the tag returns.
 * Waits for earlier writes when every slot is taken. Returns 0 or an errno.
 */
int fic_writes_submit(fic_writes *writes, int fd, const uint8_t *buffer, size_t length, size_t buffer_stride,
                      uint32_t count, int64_t offset, int64_t file_stride, uint32_t tag);

/** Waits until no write with tag is in flight. Returns 0 or the errno of the first failed write. */
int fic_writes_wait(fic_writes *writes, uint32_t tag);

/** Waits until no write is in flight. Returns 0 or the errno of the first failed write. */
int fic_writes_wait_all(fic_writes *writes);

/** 1 when writes go through AIO, 0 when they are synchronous. */
int fic_writes_is_asynchronous(const fic_writes *writes);

/** Waits for every write in flight, then frees the writes. */
void fic_writes_destroy(fic_writes *writes);

#endif
