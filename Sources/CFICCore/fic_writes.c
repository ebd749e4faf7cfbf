/*
 * Writes in flight together through Linux's io_uring. The tile pyramids hand over a band of k rows
 * of a level as one segment of k * 1024 bytes in each tile of its tile row: one write per tile
 * column, all of them to the kernel in one call, in flight while the next band fills; with
 * O_DIRECT they go from the band's memory to the disk without the page cache.
 *
 * io_uring rather than native AIO (io_submit): an AIO context costs a grace period of the
 * kernel's (30-35 ms here) to tear down, by io_destroy or at the process's exit, more than the
 * whole difference to djpeg on a 16001 x 9007 JPEG; a ring is closed like a file. Writer threads
 * doing pwrite were tried too: a system call per write, on the cores the decoder needs, made an
 * 18000 x 18000 pyramid 12% slower. Without io_uring (an old kernel, io_uring_disabled, a
 * seccomp filter) the same calls write synchronously, and so does a write the ring refuses for
 * its file (EINVAL, EOPNOTSUPP, EAGAIN), as the AIO version did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fic_core.h"
#include "fic_writes.h"

typedef struct {
    int fd;
    const uint8_t *buffer;
    size_t length;
    int64_t offset;
    uint32_t tag;
    int32_t next_free;
} fic_write_slot;

/* The rings shared with the kernel. This process is the submissions' only producer and the
   completions' only consumer, so it reads its own index plainly and the kernel's atomically. */
typedef struct {
    int fd;
    unsigned entries;
    _Atomic unsigned *sq_head, *sq_tail;
    unsigned sq_mask, *sq_array;
    struct io_uring_sqe *sqes;
    _Atomic unsigned *cq_head, *cq_tail;
    unsigned cq_mask;
    struct io_uring_cqe *cqes;
    void *sq_map, *cq_map;
    size_t sq_map_length, cq_map_length, sqes_length;
    unsigned unsubmitted; /* entries in the ring not yet handed to the kernel */
} fic_ring;

struct fic_writes {
    fic_ring ring;
    int asynchronous;
    uint32_t capacity;
    uint32_t in_flight;
    fic_write_slot *slots;
    int32_t free_head;
    uint32_t tag_count;
    uint32_t *pending; /* writes in flight per tag */
    int failure;       /* the first errno, sticky */
};

/* Writes everything or returns the errno (0 on success): the package's one short-write loop. */
static int write_fully(int fd, const uint8_t *buffer, size_t length, int64_t offset) {
    return fic_write_fully(fd, buffer, length, offset, NULL);
}

static void record_failure(fic_writes *writer, int error) {
    if (error != 0 && writer->failure == 0) {
        writer->failure = error;
    }
}

static void ring_close(fic_ring *ring) {
    if (ring->sqes != NULL) munmap(ring->sqes, ring->sqes_length);
    if (ring->cq_map != NULL && ring->cq_map != ring->sq_map) munmap(ring->cq_map, ring->cq_map_length);
    if (ring->sq_map != NULL) munmap(ring->sq_map, ring->sq_map_length);
    if (ring->fd >= 0) close(ring->fd);
    memset(ring, 0, sizeof(*ring));
    ring->fd = -1;
}

/* Maps one of the ring's regions; NULL when it cannot. */
static void *ring_map(int fd, size_t length, off_t what) {
    void *p = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, what);
    return p == MAP_FAILED ? NULL : p;
}

/* A ring of at least `entries` submissions (the kernel gives twice as many completions). 0 or -1. */
static int ring_open(fic_ring *ring, unsigned entries) {
    struct io_uring_params params;
    memset(&params, 0, sizeof(params));
    memset(ring, 0, sizeof(*ring));
    ring->fd = (int)syscall(SYS_io_uring_setup, entries, &params);
    if (ring->fd < 0) {
        ring->fd = -1;
        return -1;
    }
    ring->entries = params.sq_entries;
    ring->sq_map_length = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    ring->cq_map_length = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    int single = (params.features & IORING_FEAT_SINGLE_MMAP) != 0;
    if (single && ring->cq_map_length > ring->sq_map_length) {
        ring->sq_map_length = ring->cq_map_length;
    }
    ring->sq_map = ring_map(ring->fd, ring->sq_map_length, IORING_OFF_SQ_RING);
    ring->cq_map = single ? ring->sq_map : ring_map(ring->fd, ring->cq_map_length, IORING_OFF_CQ_RING);
    ring->sqes_length = params.sq_entries * sizeof(struct io_uring_sqe);
    ring->sqes = (struct io_uring_sqe *)ring_map(ring->fd, ring->sqes_length, IORING_OFF_SQES);
    if (ring->sq_map == NULL || ring->cq_map == NULL || ring->sqes == NULL) {
        ring_close(ring);
        return -1;
    }
    uint8_t *sq = (uint8_t *)ring->sq_map, *cq = (uint8_t *)ring->cq_map;
    ring->sq_head = (_Atomic unsigned *)(sq + params.sq_off.head);
    ring->sq_tail = (_Atomic unsigned *)(sq + params.sq_off.tail);
    ring->sq_mask = *(const unsigned *)(sq + params.sq_off.ring_mask);
    ring->sq_array = (unsigned *)(sq + params.sq_off.array);
    ring->cq_head = (_Atomic unsigned *)(cq + params.cq_off.head);
    ring->cq_tail = (_Atomic unsigned *)(cq + params.cq_off.tail);
    ring->cq_mask = *(const unsigned *)(cq + params.cq_off.ring_mask);
    ring->cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
    return 0;
}

/* Puts one write in the submission ring. Room is certain: at most `capacity` writes are in
   flight, and the ring has at least that many entries. */
static void ring_queue_write(fic_ring *ring, const fic_write_slot *slot, uint64_t data) {
    unsigned tail = atomic_load_explicit(ring->sq_tail, memory_order_relaxed);
    unsigned index = tail & ring->sq_mask;
    struct io_uring_sqe *sqe = &ring->sqes[index];
    memset(sqe, 0, sizeof(*sqe));
    sqe->opcode = IORING_OP_WRITE;
    sqe->fd = slot->fd;
    sqe->addr = (uint64_t)(uintptr_t)slot->buffer;
    sqe->len = (uint32_t)slot->length;
    sqe->off = (uint64_t)slot->offset;
    sqe->user_data = data;
    ring->sq_array[index] = index;
    atomic_store_explicit(ring->sq_tail, tail + 1, memory_order_release);
    ring->unsubmitted++;
}

/* Hands the queued entries to the kernel and, with wait, blocks until at least one completion
   is there. 0 or an errno. */
static int ring_enter(fic_ring *ring, int wait) {
    while (ring->unsubmitted > 0 || wait) {
        long n = syscall(SYS_io_uring_enter, ring->fd, ring->unsubmitted, wait ? 1 : 0, wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EBUSY) {
                /* The kernel is short of room: completions must be reaped first. */
                return wait ? 0 : errno;
            }
            return errno;
        }
        ring->unsubmitted -= (unsigned)n <= ring->unsubmitted ? (unsigned)n : ring->unsubmitted;
        wait = 0;
    }
    return 0;
}

fic_writes *fic_writes_create(uint32_t capacity, uint32_t tag_count) {
    if (capacity == 0 || tag_count == 0) {
        return NULL;
    }
    fic_writes *writer = (fic_writes *)calloc(1, sizeof(fic_writes));
    if (writer == NULL) {
        return NULL;
    }
    writer->ring.fd = -1;
    writer->capacity = capacity;
    writer->tag_count = tag_count;
    writer->slots = (fic_write_slot *)calloc(capacity, sizeof(fic_write_slot));
    writer->pending = (uint32_t *)calloc(tag_count, sizeof(uint32_t));
    if (writer->slots == NULL || writer->pending == NULL) {
        fic_writes_destroy(writer);
        return NULL;
    }
    for (uint32_t i = 0; i < capacity; i++) {
        writer->slots[i].next_free = i + 1 < capacity ? (int32_t)(i + 1) : -1;
    }
    writer->free_head = 0;
    writer->asynchronous = ring_open(&writer->ring, capacity) == 0 && writer->ring.entries >= capacity;
    if (!writer->asynchronous && writer->ring.fd >= 0) {
        ring_close(&writer->ring);
    }
    return writer;
}

/* Takes every completion there is: a short write is finished synchronously, a failed one
   recorded, and the slot freed. */
static void reap_completions(fic_writes *writer) {
    fic_ring *ring = &writer->ring;
    unsigned head = atomic_load_explicit(ring->cq_head, memory_order_relaxed);
    unsigned tail = atomic_load_explicit(ring->cq_tail, memory_order_acquire);
    for (; head != tail; head++) {
        const struct io_uring_cqe *cqe = &ring->cqes[head & ring->cq_mask];
        int32_t index = (int32_t)cqe->user_data;
        fic_write_slot *slot = &writer->slots[index];
        int64_t result = cqe->res;
        if (result == -EINVAL || result == -EOPNOTSUPP || result == -EAGAIN) {
            /* A file the kernel will not write this way (as AIO refused some): written here. */
            record_failure(writer, write_fully(slot->fd, slot->buffer, slot->length, slot->offset));
        } else if (result < 0) {
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
    atomic_store_explicit(ring->cq_head, head, memory_order_release);
}

/* Waits for at least one write to complete and takes what completed. Returns 0 or an errno. */
static int reap(fic_writes *writer) {
    if (writer->in_flight == 0) {
        return 0;
    }
    uint32_t before = writer->in_flight;
    reap_completions(writer);
    if (writer->in_flight < before) {
        return 0;
    }
    int error = ring_enter(&writer->ring, 1);
    reap_completions(writer);
    return error;
}

int fic_writes_submit(fic_writes *writer, int fd, const uint8_t *buffer, size_t length, size_t buffer_stride,
                      uint32_t count, int64_t offset, int64_t file_stride, uint32_t tag) {
    if (writer->failure != 0) {
        return writer->failure;
    }
    if (tag >= writer->tag_count) {
        return EINVAL;
    }
    if (!writer->asynchronous) {
        for (uint32_t i = 0; i < count; i++) {
            int error = write_fully(fd, buffer + (size_t)i * buffer_stride, length, offset + (int64_t)i * file_stride);
            if (error != 0) {
                record_failure(writer, error);
                return error;
            }
        }
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        while (writer->free_head < 0) {
            int error = ring_enter(&writer->ring, 1);
            reap_completions(writer);
            if (error != 0) {
                record_failure(writer, error);
                return error;
            }
        }
        int32_t index = writer->free_head;
        fic_write_slot *slot = &writer->slots[index];
        writer->free_head = slot->next_free;
        slot->fd = fd;
        slot->buffer = buffer + (size_t)i * buffer_stride;
        slot->length = length;
        slot->offset = offset + (int64_t)i * file_stride;
        slot->tag = tag;
        ring_queue_write(&writer->ring, slot, (uint64_t)index);
        writer->in_flight += 1;
        writer->pending[tag] += 1;
    }
    /* All of the band's writes to the kernel in one call. */
    int error = ring_enter(&writer->ring, 0);
    if (error == EAGAIN || error == EBUSY) {
        error = 0; /* they stay queued and go with the next call that enters the ring */
    }
    if (error != 0) {
        record_failure(writer, error);
    }
    return writer->failure;
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
    }
    if (writer->ring.fd >= 0) {
        ring_close(&writer->ring);
    }
    free(writer->slots);
    free(writer->pending);
    free(writer);
}
