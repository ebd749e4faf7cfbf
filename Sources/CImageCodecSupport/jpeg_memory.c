/*
 * A libjpeg memory manager whose large allocations are pages mapped for them.
 *
 * libjpeg's own manager takes every buffer from malloc. A progressive 5120x2880 JPEG needs ~44 MB
 * of coefficients; once glibc has handed out and freed a few such blocks it raises its mmap
 * threshold, later multi-megabyte blocks come from the heap, fragment it and are never returned.
 * This manager sits in front of the one jpeg_create_decompress made: small objects still go to it,
 * but large objects, sample and coefficient arrays of 64 KiB or more, and the whole-image virtual
 * arrays (always kept in memory: there is no backing store) are mmap'ed and munmap'ed here.
 * Delegated calls point cinfo->mem at the original manager for their duration, because its
 * methods cast cinfo->mem to their own type. Other code may hook this manager's methods in turn
 * (saving and calling the ones it replaces); destruction goes through cinfo->mem->self_destruct,
 * so every hook runs, then this manager's, then libjpeg's own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jpeg_internal.h"

#define FIC_MEMORY_THRESHOLD ((size_t)64 * 1024)
#define FIC_MEMORY_ALIGN ((size_t)64)
#define FIC_HUGE_PAGE_THRESHOLD ((size_t)4 << 20)

typedef struct fic_mapping {
    struct fic_mapping *next;
    size_t length;
} fic_mapping;

/* The control blocks behind libjpeg's opaque jvirt_*_ptr types, as this manager defines them. */
struct jvirt_sarray_control {
    JSAMPARRAY mem_buffer;
    JDIMENSION rows_in_array;
    JDIMENSION samplesperrow;
    JDIMENSION maxaccess;
    boolean pre_zero;
    struct jvirt_sarray_control *next;
};

struct jvirt_barray_control {
    JBLOCKARRAY mem_buffer;
    JDIMENSION rows_in_array;
    JDIMENSION blocksperrow;
    JDIMENSION maxaccess;
    boolean pre_zero;
    struct jvirt_barray_control *next;
};

struct fic_memory_mgr {
    struct jpeg_memory_mgr pub; /* first, so cinfo->mem can point at it */
    struct jpeg_memory_mgr *original;
    fic_mapping *mappings[JPOOL_NUMPOOLS];
    struct jvirt_sarray_control *sarrays;
    struct jvirt_barray_control *barrays;
    size_t mapped;
    size_t peak;
};

static struct fic_memory_mgr *manager(j_common_ptr cinfo) {
    return (struct fic_memory_mgr *)cinfo->mem;
}

static void *original_alloc_small(j_common_ptr cinfo, int pool_id, size_t size) {
    struct fic_memory_mgr *m = manager(cinfo);
    cinfo->mem = m->original;
    void *result = (*m->original->alloc_small)(cinfo, pool_id, size);
    cinfo->mem = &m->pub;
    return result;
}

static void *original_alloc_large(j_common_ptr cinfo, int pool_id, size_t size) {
    struct fic_memory_mgr *m = manager(cinfo);
    cinfo->mem = m->original;
    void *result = (*m->original->alloc_large)(cinfo, pool_id, size);
    cinfo->mem = &m->pub;
    return result;
}

static void unmap_list(struct fic_memory_mgr *m, int pool_id) {
    fic_mapping *mapping = m->mappings[pool_id];
    m->mappings[pool_id] = NULL;
    while (mapping != NULL) {
        fic_mapping *next = mapping->next;
        size_t length = mapping->length;
        m->mapped -= length;
        munmap(mapping, length);
        mapping = next;
    }
}

/* size bytes (64-byte aligned) of zeroed pages belonging to pool_id. */
static void *map_block(j_common_ptr cinfo, int pool_id, size_t size) {
    struct fic_memory_mgr *m = manager(cinfo);
    if (pool_id < 0 || pool_id >= JPOOL_NUMPOOLS) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    if (size > SIZE_MAX / 2) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 20);
    }
    size_t length = FIC_MEMORY_ALIGN + ((size + FIC_MEMORY_ALIGN - 1) & ~(FIC_MEMORY_ALIGN - 1));
    if (m->pub.max_memory_to_use > 0 && m->mapped + length > (size_t)m->pub.max_memory_to_use) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 21);
    }
    void *pages = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 22);
    }
    if (length >= FIC_HUGE_PAGE_THRESHOLD) {
        /* A progressive image's coefficients are touched once each, soon: 2 MiB pages take 512
         * times fewer faults (where the system allows them; nothing changes where it does not). */
        (void)madvise(pages, length, MADV_HUGEPAGE);
    }
    fic_mapping *mapping = (fic_mapping *)pages;
    mapping->length = length;
    mapping->next = m->mappings[pool_id];
    m->mappings[pool_id] = mapping;
    m->mapped += length;
    if (m->mapped > m->peak) {
        m->peak = m->mapped;
    }
    return (char *)pages + FIC_MEMORY_ALIGN;
}

static void *alloc_small(j_common_ptr cinfo, int pool_id, size_t size) {
    return original_alloc_small(cinfo, pool_id, size);
}

static void *alloc_large(j_common_ptr cinfo, int pool_id, size_t size) {
    if (size < FIC_MEMORY_THRESHOLD) {
        return original_alloc_large(cinfo, pool_id, size);
    }
    return map_block(cinfo, pool_id, size);
}

/* Rows rounded up to 2 * 32 bytes, as libjpeg-turbo's SIMD routines may read and write up to there. */
static size_t row_bytes(j_common_ptr cinfo, size_t count, size_t unit) {
    size_t bytes = count * unit;
    if (count > SIZE_MAX / 4 / unit) {
        ERREXIT(cinfo, JERR_WIDTH_OVERFLOW);
    }
    return (bytes + FIC_MEMORY_ALIGN - 1) & ~(FIC_MEMORY_ALIGN - 1);
}

/* rows * row pointers into one block; *mapped says whether the block is fresh (zeroed) pages. */
static void **alloc_rows(j_common_ptr cinfo, int pool_id, size_t row, JDIMENSION rows, int *mapped) {
    if (rows > 0 && row > SIZE_MAX / 2 / rows) {
        ERREXIT(cinfo, JERR_WIDTH_OVERFLOW);
    }
    size_t total = row * rows;
    void **result = (void **)original_alloc_small(cinfo, pool_id, (size_t)(rows > 0 ? rows : 1) * sizeof(void *));
    char *work;
    if (total < FIC_MEMORY_THRESHOLD) {
        work = (char *)original_alloc_large(cinfo, pool_id, total > 0 ? total : 1);
        *mapped = 0;
    } else {
        work = (char *)map_block(cinfo, pool_id, total);
        *mapped = 1;
    }
    for (JDIMENSION i = 0; i < rows; i++) {
        result[i] = work + (size_t)i * row;
    }
    return result;
}

static JSAMPARRAY alloc_sarray(j_common_ptr cinfo, int pool_id, JDIMENSION samplesperrow, JDIMENSION numrows) {
    int mapped;
    return (JSAMPARRAY)alloc_rows(cinfo, pool_id, row_bytes(cinfo, samplesperrow, sizeof(JSAMPLE)), numrows, &mapped);
}

static JBLOCKARRAY alloc_barray(j_common_ptr cinfo, int pool_id, JDIMENSION blocksperrow, JDIMENSION numrows) {
    int mapped;
    return (JBLOCKARRAY)alloc_rows(cinfo, pool_id, row_bytes(cinfo, blocksperrow, sizeof(JBLOCK)), numrows, &mapped);
}

static jvirt_sarray_ptr request_virt_sarray(j_common_ptr cinfo, int pool_id, boolean pre_zero,
                                            JDIMENSION samplesperrow, JDIMENSION numrows, JDIMENSION maxaccess) {
    if (pool_id != JPOOL_IMAGE) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    struct fic_memory_mgr *m = manager(cinfo);
    jvirt_sarray_ptr array = (jvirt_sarray_ptr)original_alloc_small(cinfo, pool_id, sizeof(struct jvirt_sarray_control));
    array->mem_buffer = NULL;
    array->rows_in_array = numrows;
    array->samplesperrow = samplesperrow;
    array->maxaccess = maxaccess;
    array->pre_zero = pre_zero;
    array->next = m->sarrays;
    m->sarrays = array;
    return array;
}

static jvirt_barray_ptr request_virt_barray(j_common_ptr cinfo, int pool_id, boolean pre_zero,
                                            JDIMENSION blocksperrow, JDIMENSION numrows, JDIMENSION maxaccess) {
    if (pool_id != JPOOL_IMAGE) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    struct fic_memory_mgr *m = manager(cinfo);
    jvirt_barray_ptr array = (jvirt_barray_ptr)original_alloc_small(cinfo, pool_id, sizeof(struct jvirt_barray_control));
    array->mem_buffer = NULL;
    array->rows_in_array = numrows;
    array->blocksperrow = blocksperrow;
    array->maxaccess = maxaccess;
    array->pre_zero = pre_zero;
    array->next = m->barrays;
    m->barrays = array;
    return array;
}

/* Every virtual array lives wholly in memory; those that must start zeroed are, once. */
static void realize_virt_arrays(j_common_ptr cinfo) {
    struct fic_memory_mgr *m = manager(cinfo);
    for (jvirt_sarray_ptr s = m->sarrays; s != NULL; s = s->next) {
        if (s->mem_buffer != NULL) {
            continue;
        }
        size_t row = row_bytes(cinfo, s->samplesperrow, sizeof(JSAMPLE));
        int mapped;
        s->mem_buffer = (JSAMPARRAY)alloc_rows(cinfo, JPOOL_IMAGE, row, s->rows_in_array, &mapped);
        if (s->pre_zero && !mapped) {
            for (JDIMENSION i = 0; i < s->rows_in_array; i++) {
                memset(s->mem_buffer[i], 0, row);
            }
        }
    }
    for (jvirt_barray_ptr b = m->barrays; b != NULL; b = b->next) {
        if (b->mem_buffer != NULL) {
            continue;
        }
        size_t row = row_bytes(cinfo, b->blocksperrow, sizeof(JBLOCK));
        int mapped;
        b->mem_buffer = (JBLOCKARRAY)alloc_rows(cinfo, JPOOL_IMAGE, row, b->rows_in_array, &mapped);
        if (b->pre_zero && !mapped) {
            for (JDIMENSION i = 0; i < b->rows_in_array; i++) {
                memset(b->mem_buffer[i], 0, row);
            }
        }
    }
}

static JSAMPARRAY access_virt_sarray(j_common_ptr cinfo, jvirt_sarray_ptr ptr, JDIMENSION start_row,
                                     JDIMENSION num_rows, boolean writable) {
    (void)writable;
    if (ptr->mem_buffer == NULL || start_row > ptr->rows_in_array || num_rows > ptr->rows_in_array - start_row ||
        num_rows > ptr->maxaccess) {
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    }
    return ptr->mem_buffer + start_row;
}

static JBLOCKARRAY access_virt_barray(j_common_ptr cinfo, jvirt_barray_ptr ptr, JDIMENSION start_row,
                                      JDIMENSION num_rows, boolean writable) {
    (void)writable;
    if (ptr->mem_buffer == NULL || start_row > ptr->rows_in_array || num_rows > ptr->rows_in_array - start_row ||
        num_rows > ptr->maxaccess) {
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    }
    return ptr->mem_buffer + start_row;
}

static void free_pool(j_common_ptr cinfo, int pool_id) {
    struct fic_memory_mgr *m = manager(cinfo);
    if (pool_id < 0 || pool_id >= JPOOL_NUMPOOLS) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    if (pool_id == JPOOL_IMAGE) {
        m->sarrays = NULL; /* their control blocks and row pointers go with the original's pool */
        m->barrays = NULL;
    }
    unmap_list(m, pool_id);
    cinfo->mem = m->original;
    (*m->original->free_pool)(cinfo, pool_id);
    cinfo->mem = &m->pub;
}

static void release_all(struct fic_memory_mgr *m) {
    for (int pool = JPOOL_NUMPOOLS - 1; pool >= JPOOL_PERMANENT; pool--) {
        unmap_list(m, pool);
    }
    m->sarrays = NULL;
    m->barrays = NULL;
}

static void self_destruct(j_common_ptr cinfo) {
    struct fic_memory_mgr *m = manager(cinfo);
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    release_all(m);
    cinfo->mem = m->original;
    if (decoder != NULL && decoder->memory == m) {
        decoder->memory = NULL;
    }
    free(m);
    (*cinfo->mem->self_destruct)(cinfo);
}

void fic_jpeg_install_memory_manager(fic_jpeg_decoder *decoder) {
    struct jpeg_memory_mgr *original = decoder->cinfo.mem;
    if (original == NULL || decoder->memory != NULL) {
        return;
    }
    struct fic_memory_mgr *m = (struct fic_memory_mgr *)calloc(1, sizeof(struct fic_memory_mgr));
    if (m == NULL) {
        return; /* libjpeg's own manager keeps working */
    }
    m->original = original;
    m->pub.alloc_small = alloc_small;
    m->pub.alloc_large = alloc_large;
    m->pub.alloc_sarray = alloc_sarray;
    m->pub.alloc_barray = alloc_barray;
    m->pub.request_virt_sarray = request_virt_sarray;
    m->pub.request_virt_barray = request_virt_barray;
    m->pub.realize_virt_arrays = realize_virt_arrays;
    m->pub.access_virt_sarray = access_virt_sarray;
    m->pub.access_virt_barray = access_virt_barray;
    m->pub.free_pool = free_pool;
    m->pub.self_destruct = self_destruct;
    m->pub.max_memory_to_use = original->max_memory_to_use;
    m->pub.max_alloc_chunk = original->max_alloc_chunk;
    decoder->memory = m;
    decoder->cinfo.mem = &m->pub;
}

void fic_jpeg_reinstate_memory_manager(fic_jpeg_decoder *decoder) {
    if (decoder->memory != NULL) {
        decoder->cinfo.mem = &decoder->memory->pub;
    }
}

size_t fic_jpeg_peak_mapped_bytes(const fic_jpeg_decoder *decoder) {
    return decoder->memory != NULL ? decoder->memory->peak : 0;
}
