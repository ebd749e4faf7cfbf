/*
 * The pager of a coefficient file (jpeg_coefficient_pager.c): a thread that prepares the file's
 * pages ahead of the decoder and drops them behind it, so that the decoding thread spends its time
 * decoding. Private to this target.
 */
#ifndef FIC_JPEG_COEFFICIENT_PAGER_H
#define FIC_JPEG_COEFFICIENT_PAGER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#ifdef MADV_POPULATE_WRITE
#define FIC_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#define FIC_MADV_POPULATE_READ MADV_POPULATE_READ
#else
#define FIC_MADV_POPULATE_READ 22 /* Linux 5.14 */
#define FIC_MADV_POPULATE_WRITE 23
#endif

/*
 * The zeros are written in aligned pieces of this size, so that the page cache holds the file in
 * folios of 64 KiB. Every later scan maps the file again, and each folio, not each page, is what
 * costs there. Measured on a 2-core virtual machine, for 928 MiB:
 * - writing the zeros: 0.50-0.54 s in pages, 0.11-0.13 s in 64 KiB folios, 0.10 s in 256 KiB ones,
 *   but 1.2-1.3 s in 1 MiB and 2.3-2.4 s in 2 MiB folios: blocks that large come from memory the
 *   virtual machine has handed back to its host, which is slow to touch again;
 * - mapping all of it writable again (one scan): 0.33 s in pages, 0.08 s in 64 KiB folios;
 * - a whole progressive 18000 x 18000 pyramid: 3.8-4.2 s (3.4-4.0 s of system time) in pages,
 *   2.7-3.2 s (1.3-1.9 s) in 64 KiB folios, the smallest large ones.
 * The decoder waits for these zeros during the first scan.
 */
#define FIC_COEFFICIENT_ZERO_PIECE ((size_t)65536)

/* Writes `length` bytes of zeros at `offset` of fd, in pieces that end on multiples of
 * FIC_COEFFICIENT_ZERO_PIECE.
 * Returns 0 or an errno (ENOSPC when a write makes no progress). */
int fic_coefficient_write_zeros(int fd, uint64_t offset, uint64_t length);

/* One coefficient array: a page-aligned run of rows of the mapped file. */
typedef struct {
    size_t offset;    /* from the start of the file, a multiple of the page size */
    size_t row_bytes; /* bytes of one row */
    uint32_t rows;
} fic_pager_region;

typedef struct fic_pager fic_pager;

/*
 * Starts the pager of `count` regions of the file `fd`, mapped shared and writable at `base`.
 * The file must read as zeros (freshly allocated): the pager writes zeros through the page cache
 * ahead of the decoder, which creates the pages cheaply, then maps each region's next rows
 * writable before the decoder gets there and unmaps the rows it has left, keeping about
 * `resident_limit` bytes of the mapping resident. Returns NULL (errno set) when the thread cannot
 * be started; the caller then does the work itself.
 */
fic_pager *fic_pager_start(int fd, uint8_t *base, const fic_pager_region *regions, int count, uint64_t resident_limit);

/*
 * Says that the decoder is about to use rows [start, end) of region `index` (for writing when
 * `writable`), and waits until those rows have been zeroed. Returns 0, or the errno of a failed
 * write of the file.
 */
int fic_pager_will_access(fic_pager *pager, int index, uint32_t start, uint32_t end, int writable);

/*
 * Says that the output pass now starting is the last use of the coefficients: from here on the
 * pager frees the file's blocks (and their page cache) behind the rows the output has read, so
 * that little is left to free when the file is closed, and that little off the decoder's path.
 */
void fic_pager_final_pass(fic_pager *pager);

/* Bytes of the file freed so far during the final output pass (see fic_pager_final_pass). */
uint64_t fic_pager_freed_bytes(fic_pager *pager);

/* The largest number of bytes the pager has held mapped at once (a test's measure of its bound). */
uint64_t fic_pager_peak_window_bytes(fic_pager *pager);

/* Stops the thread once it has followed the decoder's last requests (freeing what the final pass
 * left behind), waits for it and frees the pager. The mapping stays to the caller. Returns the
 * bytes of the file freed in all. */
uint64_t fic_pager_stop(fic_pager *pager);

#endif
