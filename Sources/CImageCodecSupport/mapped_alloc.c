/*
 * malloc-compatible functions whose large blocks are pages mapped for them, for C libraries that
 * accept an allocator (libspng and, through it, zlib). Small blocks still come from malloc; large
 * ones never do, so freeing them cannot raise glibc's dynamic mmap threshold.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fic_codec_support.h"

#define FIC_ALLOC_THRESHOLD ((size_t)64 * 1024)
#define FIC_ALLOC_HEADER ((size_t)64)

typedef struct {
    size_t size;   /* usable bytes */
    size_t length; /* mapped bytes, or 0 for a malloc'ed block */
} fic_block_header;

static fic_block_header *header_of(void *pointer) {
    return (fic_block_header *)((char *)pointer - FIC_ALLOC_HEADER);
}

void *fic_mapped_malloc(size_t size) {
    if (size > SIZE_MAX / 2) {
        return NULL;
    }
    fic_block_header *header;
    if (size + FIC_ALLOC_HEADER < FIC_ALLOC_THRESHOLD) {
        header = (fic_block_header *)malloc(size + FIC_ALLOC_HEADER);
        if (header == NULL) {
            return NULL;
        }
        header->length = 0;
    } else {
        size_t length = size + FIC_ALLOC_HEADER;
        void *pages = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pages == MAP_FAILED) {
            return NULL;
        }
        header = (fic_block_header *)pages;
        header->length = length;
    }
    header->size = size;
    return (char *)header + FIC_ALLOC_HEADER;
}

void fic_mapped_free(void *pointer) {
    if (pointer == NULL) {
        return;
    }
    fic_block_header *header = header_of(pointer);
    if (header->length > 0) {
        munmap(header, header->length);
    } else {
        free(header);
    }
}

void *fic_mapped_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / 2 / size) {
        return NULL;
    }
    void *pointer = fic_mapped_malloc(count * size);
    if (pointer != NULL && header_of(pointer)->length == 0) {
        memset(pointer, 0, count * size); /* mapped pages are zero already */
    }
    return pointer;
}

void *fic_mapped_realloc(void *pointer, size_t size) {
    if (pointer == NULL) {
        return fic_mapped_malloc(size);
    }
    fic_block_header *header = header_of(pointer);
    if (header->length == 0 && size + FIC_ALLOC_HEADER < FIC_ALLOC_THRESHOLD) {
        fic_block_header *grown = (fic_block_header *)realloc(header, size + FIC_ALLOC_HEADER);
        if (grown == NULL) {
            return NULL;
        }
        grown->size = size;
        return (char *)grown + FIC_ALLOC_HEADER;
    }
    void *moved = fic_mapped_malloc(size);
    if (moved == NULL) {
        return NULL;
    }
    memcpy(moved, pointer, header->size < size ? header->size : size);
    fic_mapped_free(pointer);
    return moved;
}

void fic_release_free_heap_memory(void) {
    malloc_trim(0);
}
