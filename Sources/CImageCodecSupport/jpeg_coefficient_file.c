/*
 * File-backed coefficient arrays for libjpeg. A progressive (multi-scan) JPEG keeps every DCT
 * coefficient of the image until its last scan: about 3 bytes a pixel, 1 GB for 18000 x 18000.
 * These hooks on libjpeg's memory manager place those "virtual arrays" in one shared mapping of a
 * file instead of in memory, and keep only about a budget of its pages mapped, so the resident set
 * stays bounded: the coefficients live in the file (and the page cache, which the kernel can write
 * back and reclaim). A pager thread (jpeg_coefficient_pager.c) prepares the pages ahead of the
 * decoder and drops them behind it; when that thread cannot be started, or is not wanted, the
 * decoding thread does the same work itself, less well (all the zeros first, then drops everything
 * whenever the budget has been touched).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fic_jpeg_coefficients.h"
#include "jpeg_coefficient_pager.h"
#include "jpeg_internal.h"

typedef struct fic_coefficient_array {
    struct fic_coefficient_array *next;
    JDIMENSION blocks_per_row;
    JDIMENSION rows;
    size_t offset;          /* in the file */
    int index;              /* among the pager's regions */
    JBLOCKROW *row_pointers; /* one per row, set when realized */
    /* Rows mapped writable since the last drop: [populated_start, populated_end). */
    JDIMENSION populated_start;
    JDIMENSION populated_end;
} fic_coefficient_array;

typedef struct {
    int fd;
    uint64_t resident_limit;
    uint64_t touched;
    uint8_t *base;
    size_t length;
    uint64_t placed_bytes;
    int failure_errno;
    int wants_pager;
    fic_pager *pager; /* or NULL: this thread pages */
    uint64_t peak_pager_window;
    uint64_t freed_early;
    fic_coefficient_array *arrays;

    jvirt_barray_ptr (*request_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize)(j_common_ptr);
    JBLOCKARRAY (*access_barray)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    void (*free_pool)(j_common_ptr, int);
    void (*self_destruct)(j_common_ptr);
} fic_coefficient_file;

static fic_coefficient_file *state_of(j_common_ptr cinfo) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    return (fic_coefficient_file *)decoder->coefficient_file;
}

/* Unmaps the file and forgets the arrays (their rows are no longer reachable). */
static void release_arrays(fic_coefficient_file *state) {
    if (state->pager != NULL) {
        state->peak_pager_window = fic_pager_peak_window_bytes(state->pager);
        state->freed_early = fic_pager_stop(state->pager);
        state->pager = NULL;
    }
    if (state->base != NULL) {
        munmap(state->base, state->length);
        state->base = NULL;
        state->length = 0;
    }
    fic_coefficient_array *array = state->arrays;
    while (array != NULL) {
        fic_coefficient_array *next = array->next;
        free(array->row_pointers);
        free(array);
        array = next;
    }
    state->arrays = NULL;
    state->touched = 0;
}

static jvirt_barray_ptr request_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                       JDIMENSION rows, JDIMENSION max_access) {
    (void)pre_zero; /* a new file reads as zeros */
    (void)max_access;
    fic_coefficient_file *state = state_of(cinfo);
    if (pool_id != JPOOL_IMAGE) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    fic_coefficient_array *array = (fic_coefficient_array *)calloc(1, sizeof(fic_coefficient_array));
    if (array == NULL) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    }
    array->blocks_per_row = blocks_per_row;
    array->rows = rows;
    array->next = state->arrays;
    state->arrays = array;
    return (jvirt_barray_ptr)array;
}

static void realize(j_common_ptr cinfo) {
    fic_coefficient_file *state = state_of(cinfo);
    state->realize(cinfo); /* anything requested from libjpeg's own manager */
    if (state->arrays == NULL || state->base != NULL) {
        return;
    }
    uint64_t total = 0;
    for (fic_coefficient_array *array = state->arrays; array != NULL; array = array->next) {
        uint64_t bytes = (uint64_t)array->blocks_per_row * (uint64_t)array->rows * sizeof(JBLOCK);
        array->offset = (size_t)total;
        total += (bytes + 4095u) & ~(uint64_t)4095u;
        if (total > (uint64_t)SIZE_MAX / 2) {
            ERREXIT(cinfo, JERR_WIDTH_OVERFLOW);
        }
    }
    if (total == 0) {
        return;
    }
    /* Reserve the blocks now, so that a full disk is an error here rather than SIGBUS later. */
    int rc = posix_fallocate(state->fd, 0, (off_t)total);
    if (rc == EOPNOTSUPP || rc == EINVAL) {
        rc = ftruncate(state->fd, (off_t)total) == 0 ? 0 : errno;
    }
    if (rc != 0) {
        state->failure_errno = rc;
        ERREXIT(cinfo, JERR_NO_BACKING_STORE);
    }
    void *base = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, state->fd, 0);
    if (base == MAP_FAILED) {
        state->failure_errno = errno;
        ERREXIT(cinfo, JERR_NO_BACKING_STORE);
    }
    state->base = (uint8_t *)base;
    state->length = (size_t)total;
    state->placed_bytes = total;
    int count = 0;
    for (fic_coefficient_array *array = state->arrays; array != NULL; array = array->next) {
        array->index = count++;
        array->row_pointers = (JBLOCKROW *)malloc(((size_t)array->rows + 1) * sizeof(JBLOCKROW));
        if (array->row_pointers == NULL) {
            ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
        }
        size_t row_bytes = (size_t)array->blocks_per_row * sizeof(JBLOCK);
        for (JDIMENSION row = 0; row < array->rows; row++) {
            array->row_pointers[row] = (JBLOCKROW)(state->base + array->offset + (size_t)row * row_bytes);
        }
    }
    if (state->wants_pager && count <= 64) {
        fic_pager_region regions[64];
        for (fic_coefficient_array *array = state->arrays; array != NULL; array = array->next) {
            regions[array->index] = (fic_pager_region){array->offset, (size_t)array->blocks_per_row * sizeof(JBLOCK), array->rows};
        }
        state->pager = fic_pager_start(state->fd, state->base, regions, count, state->resident_limit);
    }
    if (state->pager == NULL) {
        /*
         * Put the file in the page cache now, with buffered writes of zeros (see
         * FIC_COEFFICIENT_ZERO_PIECE), already dirty. Without this, the first touch of each page
         * through the mapping creates the folios (readahead picks 2 MiB ones for mapped faults,
         * which on virtual machines that return free memory to the host cost 1.5-2.5 s of system
         * time for 1 GB, measured), and every later scan's faults pay for each page's
         * page_mkwrite. (The pager writes the same zeros, ahead of the decoder.)
         */
        int zeroed = fic_coefficient_write_zeros(state->fd, 0, total);
        if (zeroed != 0) {
            state->failure_errno = zeroed;
            ERREXIT(cinfo, JERR_NO_BACKING_STORE);
        }
    }
}

static JBLOCKARRAY access_barray(j_common_ptr cinfo, jvirt_barray_ptr pointer, JDIMENSION start_row,
                                 JDIMENSION num_rows, boolean writable) {
    fic_coefficient_file *state = state_of(cinfo);
    fic_coefficient_array *array = (fic_coefficient_array *)pointer;
    uint64_t end = (uint64_t)start_row + num_rows;
    if (array->row_pointers == NULL || end > array->rows) {
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    }
    if (state->pager != NULL) {
        int failure = fic_pager_will_access(state->pager, array->index, start_row, (JDIMENSION)end, writable);
        if (failure != 0) {
            state->failure_errno = failure;
            ERREXIT(cinfo, JERR_NO_BACKING_STORE);
        }
        return array->row_pointers + start_row;
    }
    uint64_t bytes = (uint64_t)num_rows * array->blocks_per_row * sizeof(JBLOCK);
    state->touched += bytes;
    if (state->touched > state->resident_limit) {
        /* Shared file pages keep their data; the next touch maps them again from the page cache. */
        madvise(state->base, state->length, MADV_DONTNEED);
        state->touched = bytes;
        for (fic_coefficient_array *other = state->arrays; other != NULL; other = other->next) {
            other->populated_start = other->populated_end = 0;
        }
    }
    int populated = start_row >= array->populated_start && end <= array->populated_end;
    if (writable && bytes > 0 && !populated) {
        /*
         * Map the rows writable in one call. A scan reads coefficients before it changes them:
         * left to faults, each page would be mapped read-only first and then take a second fault,
         * with ext4's page_mkwrite, for its first write (~1.5 s of system time per progressive
         * gigabyte, measured). Ignored where the kernel lacks MADV_POPULATE_WRITE.
         */
        uintptr_t first = (uintptr_t)array->row_pointers[start_row] & ~(uintptr_t)4095u;
        uintptr_t last = ((uintptr_t)array->row_pointers[start_row] + (uintptr_t)bytes + 4095u) & ~(uintptr_t)4095u;
        madvise((void *)first, (size_t)(last - first), FIC_MADV_POPULATE_WRITE);
        if (start_row <= array->populated_end && end >= array->populated_start && array->populated_end > 0) {
            array->populated_start = start_row < array->populated_start ? start_row : array->populated_start;
            array->populated_end = end > array->populated_end ? (JDIMENSION)end : array->populated_end;
        } else {
            array->populated_start = start_row;
            array->populated_end = (JDIMENSION)end;
        }
    }
    return array->row_pointers + start_row;
}

static void free_pool(j_common_ptr cinfo, int pool_id) {
    fic_coefficient_file *state = state_of(cinfo);
    if (pool_id == JPOOL_IMAGE) {
        release_arrays(state);
    }
    state->free_pool(cinfo, pool_id);
}

static void self_destruct(j_common_ptr cinfo) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    fic_coefficient_file *state = (fic_coefficient_file *)decoder->coefficient_file;
    void (*original)(j_common_ptr) = state->self_destruct;
    release_arrays(state);
    free(state);
    decoder->coefficient_file = NULL;
    original(cinfo);
}

int fic_jpeg_use_coefficient_file(fic_jpeg_decoder *decoder, int fd, uint64_t resident_limit, int use_pager) {
    if (decoder->coefficient_file != NULL) {
        return 0;
    }
    fic_coefficient_file *state = (fic_coefficient_file *)calloc(1, sizeof(fic_coefficient_file));
    if (state == NULL) {
        return -1;
    }
    struct jpeg_memory_mgr *mem = decoder->cinfo.mem;
    state->fd = fd;
    state->wants_pager = use_pager;
    state->resident_limit = resident_limit < (1u << 20) ? (1u << 20) : resident_limit;
    state->request_barray = mem->request_virt_barray;
    state->realize = mem->realize_virt_arrays;
    state->access_barray = mem->access_virt_barray;
    state->free_pool = mem->free_pool;
    state->self_destruct = mem->self_destruct;
    decoder->coefficient_file = state;
    mem->request_virt_barray = request_barray;
    mem->realize_virt_arrays = realize;
    mem->access_virt_barray = access_barray;
    mem->free_pool = free_pool;
    mem->self_destruct = self_destruct;
    return 0;
}

void fic_jpeg_coefficient_file_final_pass(fic_jpeg_decoder *decoder) {
    fic_coefficient_file *state = (fic_coefficient_file *)decoder->coefficient_file;
    if (state != NULL && state->pager != NULL) {
        fic_pager_final_pass(state->pager);
    }
}

uint64_t fic_jpeg_coefficient_file_freed_early(const fic_jpeg_decoder *decoder) {
    fic_coefficient_file *state = (fic_coefficient_file *)decoder->coefficient_file;
    if (state == NULL) {
        return 0;
    }
    return state->pager != NULL ? fic_pager_freed_bytes(state->pager) : state->freed_early;
}

uint64_t fic_jpeg_coefficient_file_bytes(const fic_jpeg_decoder *decoder) {
    const fic_coefficient_file *state = (const fic_coefficient_file *)decoder->coefficient_file;
    return state == NULL ? 0 : state->placed_bytes;
}

int fic_jpeg_coefficient_file_errno(const fic_jpeg_decoder *decoder) {
    const fic_coefficient_file *state = (const fic_coefficient_file *)decoder->coefficient_file;
    return state == NULL ? 0 : state->failure_errno;
}

uint64_t fic_jpeg_coefficient_file_peak_window(const fic_jpeg_decoder *decoder) {
    fic_coefficient_file *state = (fic_coefficient_file *)decoder->coefficient_file;
    if (state == NULL) {
        return 0;
    }
    return state->pager != NULL ? fic_pager_peak_window_bytes(state->pager) : state->peak_pager_window;
}
