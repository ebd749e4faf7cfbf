/*
 * Writes in flight together through Linux native AIO (io_submit). The tile pyramids hand over a
 * band of k rows of a level as one segment of k * 1024 bytes in each tile of its tile row: one
 * write per tile column, all of them to the kernel in one call, in flight while the next band
 * fills; with O_DIRECT they go from the band's memory to the disk without the page cache. Without
 * AIO (io_setup refused, or a file system that refuses it) the same calls write synchronously.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fic_core.h"
#include "fic_retry.h"
#include "fic_writes.h"

typedef struct {
    int fd;
    const uint8_t *buffer;
    size_t length;
    int64_t offset;
    uint32_t tag;
    int32_t next_free;
} fic_write_slot;

struct fic_writes {
    aio_context_t context;
    int asynchronous;
    uint32_t capacity;
    uint32_t in_flight;
    fic_write_slot *slots;
    int32_t free_head;
    uint32_t tag_count;
    uint32_t *pending; /* writes in flight per tag */
    int failure;       /* the first errno, sticky */
    struct iocb *iocbs;
    struct iocb **pointers;
    struct io_event *events;
};

static long aio_setup(unsigned nr, aio_context_t *context) { return syscall(SYS_io_setup, nr, context); }
static long aio_destroy(aio_context_t context) { return syscall(SYS_io_destroy, context); }
static long aio_submit(aio_context_t context, long count, struct iocb **iocbs) {
    return syscall(SYS_io_submit, context, count, iocbs);
}
static long aio_getevents(aio_context_t context, long minimum, long maximum, struct io_event *events) {
    return syscall(SYS_io_getevents, context, minimum, maximum, events, NULL);
}

/* Writes everything or returns the errno (0 on success): the package's one short-write loop. */
static int write_fully(int fd, const uint8_t *buffer, size_t length, int64_t offset) {
    return fic_write_fully(fd, buffer, length, offset, NULL);
}

static void record_failure(fic_writes *writer, int error) {
    if (error != 0 && writer->failure == 0) {
        writer->failure = error;
    }
}

fic_writes *fic_writes_create(uint32_t capacity, uint32_t tag_count) {
    if (capacity == 0 || tag_count == 0) {
        return NULL;
    }
    fic_writes *writer = (fic_writes *)calloc(1, sizeof(fic_writes));
    if (writer == NULL) {
        return NULL;
    }
    writer->capacity = capacity;
    writer->tag_count = tag_count;
    writer->slots = (fic_write_slot *)calloc(capacity, sizeof(fic_write_slot));
    writer->pending = (uint32_t *)calloc(tag_count, sizeof(uint32_t));
    writer->iocbs = (struct iocb *)calloc(capacity, sizeof(struct iocb));
    writer->pointers = (struct iocb **)calloc(capacity, sizeof(struct iocb *));
    writer->events = (struct io_event *)calloc(capacity, sizeof(struct io_event));
    if (writer->slots == NULL || writer->pending == NULL || writer->iocbs == NULL || writer->pointers == NULL ||
        writer->events == NULL) {
        fic_writes_destroy(writer);
        return NULL;
    }
    for (uint32_t i = 0; i < capacity; i++) {
        writer->slots[i].next_free = i + 1 < capacity ? (int32_t)(i + 1) : -1;
    }
    writer->free_head = 0;
    writer->asynchronous = aio_setup(capacity, &writer->context) == 0;
    return writer;
}

/* Handles completed writes: a short one is finished synchronously, a failed one recorded. */
static void complete(fic_writes *writer, const struct io_event *events, long count) {
    for (long i = 0; i < count; i++) {
        int32_t index = (int32_t)events[i].data;
        fic_write_slot *slot = &writer->slots[index];
        int64_t result = events[i].res;
        if (result < 0) {
            record_failure(writer, (int)-result);
        } else if ((uint64_t)result < slot->length) {
            record_failure(writer, write_fully(slot->fd, slot->buffer + result, slot->length - (size_t)result,
                                               slot->offset + result));
        }
        writer->pending[slot->tag] -= 1;
        writer->in_flight -= 1;
        slot->next_free = writer->free_head;
        writer->free_head = index;
    }
}

/* Waits for at least one write to complete. Returns 0 or an errno. */
static int reap(fic_writes *writer) {
    if (writer->in_flight == 0) {
        return 0;
    }
    long n = FIC_RETRYING_EINTR(aio_getevents(writer->context, 1, writer->capacity, writer->events));
    if (n < 0) {
        return errno;
    }
    complete(writer, writer->events, n);
    return 0;
}

int fic_writes_submit(fic_writes *writer, int fd, const uint8_t *buffer, size_t length, size_t buffer_stride,
                           uint32_t count, int64_t offset, int64_t file_stride, uint32_t tag) {
    if (writer->failure != 0) {
        return writer->failure;
    }
    if (tag >= writer->tag_count) {
        return EINVAL;
    }
    uint32_t done = 0;
    while (done < count) {
        if (!writer->asynchronous) {
            for (; done < count; done++) {
                int error = write_fully(fd, buffer + (size_t)done * buffer_stride, length, offset + (int64_t)done * file_stride);
                if (error != 0) {
                    record_failure(writer, error);
                    return error;
                }
            }
            return 0;
        }
        while (writer->free_head < 0) {
            int error = reap(writer);
            if (error != 0) {
                record_failure(writer, error);
                return error;
            }
        }
        /* As many writes as there are free slots. */
        uint32_t batch = 0;
        while (done + batch < count && writer->free_head >= 0) {
            int32_t index = writer->free_head;
            fic_write_slot *slot = &writer->slots[index];
            writer->free_head = slot->next_free;
            uint32_t i = done + batch;
            slot->fd = fd;
            slot->buffer = buffer + (size_t)i * buffer_stride;
            slot->length = length;
            slot->offset = offset + (int64_t)i * file_stride;
            slot->tag = tag;
            struct iocb *cb = &writer->iocbs[index];
            memset(cb, 0, sizeof(*cb));
            cb->aio_data = (uint64_t)index;
            cb->aio_lio_opcode = IOCB_CMD_PWRITE;
            cb->aio_fildes = (uint32_t)fd;
            cb->aio_buf = (uint64_t)(uintptr_t)slot->buffer;
            cb->aio_nbytes = length;
            cb->aio_offset = slot->offset;
            writer->pointers[batch] = cb;
            batch++;
        }
        uint32_t submitted = 0;
        while (submitted < batch) {
            long n = FIC_RETRYING_EINTR(aio_submit(writer->context, (long)(batch - submitted), writer->pointers + submitted));
            if (n > 0) {
                writer->in_flight += (uint32_t)n;
                writer->pending[tag] += (uint32_t)n;
                submitted += (uint32_t)n;
                continue;
            }
            int error = n == 0 ? EAGAIN : errno;
            if (error == EAGAIN && writer->in_flight > 0) {
                error = reap(writer);
                if (error == 0) {
                    continue;
                }
            }
            /* The rest is written synchronously when the kernel refuses AIO for this file. */
            if ((error == EINVAL || error == EOPNOTSUPP || error == ENOSYS || error == EAGAIN) && writer->failure == 0) {
                for (uint32_t j = submitted; j < batch; j++) {
                    int32_t index = (int32_t)writer->pointers[j]->aio_data;
                    fic_write_slot *slot = &writer->slots[index];
                    int failed = write_fully(slot->fd, slot->buffer, slot->length, slot->offset);
                    slot->next_free = writer->free_head;
                    writer->free_head = index;
                    if (failed != 0) {
                        record_failure(writer, failed);
                    }
                }
                submitted = batch;
                if (writer->failure != 0) {
                    return writer->failure;
                }
                continue;
            }
            for (uint32_t j = submitted; j < batch; j++) {
                int32_t index = (int32_t)writer->pointers[j]->aio_data;
                writer->slots[index].next_free = writer->free_head;
                writer->free_head = index;
            }
            record_failure(writer, error);
            return error;
        }
        done += batch;
    }
    return 0;
}

int fic_writes_wait(fic_writes *writer, uint32_t tag) {
    if (tag >= writer->tag_count) {
        return EINVAL;
    }
    while (writer->pending[tag] > 0) {
        int error = reap(writer);
        if (error != 0) {
            record_failure(writer, error);
            return error;
        }
    }
    return writer->failure;
}

int fic_writes_wait_all(fic_writes *writer) {
    while (writer->in_flight > 0) {
        int error = reap(writer);
        if (error != 0) {
            record_failure(writer, error);
            return error;
        }
    }
    return writer->failure;
}

int fic_writes_is_asynchronous(const fic_writes *writer) { return writer->asynchronous; }

void fic_writes_destroy(fic_writes *writer) {
    if (writer == NULL) {
        return;
    }
    if (writer->asynchronous) {
        /* No write may still read a buffer or a descriptor once this returns. */
        while (writer->in_flight > 0 && reap(writer) == 0) {
        }
        aio_destroy(writer->context); /* waits for anything left */
    }
    free(writer->slots);
    free(writer->pending);
    free(writer->iocbs);
    free(writer->pointers);
    free(writer->events);
    free(writer);
}
