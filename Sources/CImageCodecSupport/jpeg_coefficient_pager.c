/*
 * The pager of a coefficient file. A progressive JPEG's scans walk the coefficient arrays from the
 * top row to the bottom, one component's array (or all of them, for DC scans) at a time, ten or so
 * times. Left to the decoding thread, preparing the file's pages costs about a third of its time:
 * writing 1 GB of zeros through the page cache, mapping each scan's rows writable in advance, and
 * unmapping them behind to keep the resident set bounded (about 1.5 s of system time for an
 * 18000 x 18000 image, measured). This thread does all of that on the other core while the decoder
 * decodes. The decoder only waits where the zeros have not been written yet; everything else the
 * pager does is an optimization, and the mapping is valid throughout.
 *
 * Per region the pager keeps a window [lo, top) of bytes that may be mapped: rows up to `ahead`
 * beyond the decoder's last request are mapped, rows more than `behind` before it are unmapped, and
 * a request before the window (the next scan starting at the top again) unmaps the whole window.
 * During the final output pass, the blocks of the file behind the rows the output has read are
 * freed (punched out), with their page cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fic_core.h"
#include "jpeg_coefficient_pager.h"

#define FIC_PAGE ((uint64_t)4096)
#define FIC_PUBLISH_EVERY ((uint64_t)256 << 10) /* zeros written between two wake-ups of the decoder */
#define FIC_MAP_CHUNK_MAX ((uint64_t)2 << 20)
#define FIC_AHEAD_MIN ((uint64_t)64 << 10)
#define FIC_PUNCH_MAX ((uint64_t)4 << 20) /* the most bytes a punch waits for */

typedef struct {
    fic_pager_region geometry;
    uint64_t bytes;
    /* Shared, under the lock. */
    uint64_t zeroed;        /* bytes from the start written with zeros (grows only) */
    uint64_t published_lo;  /* the window as the decoder sees it */
    uint64_t published_hi;
    uint64_t request_start; /* the decoder's last request, in bytes */
    uint64_t request_end;
    int request_writable;
    uint64_t request_serial;
    /* The pager's own. */
    uint64_t seen_serial;
    uint64_t lo, hi, top; /* [lo, top) may be mapped; [lo, hi) needs no mapping from the pager */
    uint64_t target;      /* map up to here */
    uint64_t needed;      /* the end of the decoder's last request */
    int writable;         /* whether the current pass writes (any of its requests did) */
    uint64_t read_start;  /* the final output pass's last request, or 0 */
    uint64_t punched;     /* file offset up to which the region's blocks are freed (page-aligned) */
} pager_region;

struct fic_pager {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work;     /* the decoder has asked for something */
    pthread_cond_t progress; /* more zeros are written */
    int stop;
    int sleeping;
    int failure;
    int populate_unsupported;
    int punch_unsupported;
    int decoder_populate_unsupported; /* the decoding thread's own */
    int zeroing; /* shared, under the lock: zeros remain to be written */
    int final_pass; /* shared, under the lock: set by fic_pager_final_pass */
    int fd;
    uint8_t *base;
    uint64_t ahead;
    uint64_t behind;
    uint64_t chunk; /* mapped per step */
    uint64_t punch_piece; /* freed per punch, at least */
    uint64_t peak_window;
    uint64_t freed;           /* bytes punched out (the pager's own) */
    uint64_t published_freed; /* the same, under the lock */
    int count;
    pager_region regions[];
};

static uint64_t round_down(uint64_t value) { return value & ~(FIC_PAGE - 1); }
static uint64_t round_up(uint64_t value) { return (value + FIC_PAGE - 1) & ~(FIC_PAGE - 1); }

/* Unmaps the whole pages inside [from, to) of a region (the page padding after its end included). */
static void drop(fic_pager *pager, const pager_region *region, uint64_t from, uint64_t to) {
    uint64_t first = round_up(region->geometry.offset + from);
    uint64_t last = to >= region->bytes ? round_up(region->geometry.offset + region->bytes) : round_down(region->geometry.offset + to);
    if (last > first) {
        madvise(pager->base + first, (size_t)(last - first), MADV_DONTNEED);
    }
}

/* Maps [from, to) of a region, every page that holds any of it. */
static void map_ahead(fic_pager *pager, const pager_region *region, uint64_t from, uint64_t to, int writable) {
    if (pager->populate_unsupported || to <= from) {
        return;
    }
    uint64_t first = round_down(region->geometry.offset + from);
    uint64_t last = round_up(region->geometry.offset + to);
    if (madvise(pager->base + first, (size_t)(last - first), writable ? FIC_MADV_POPULATE_WRITE : FIC_MADV_POPULATE_READ) != 0 &&
        errno == EINVAL) {
        pager->populate_unsupported = 1; /* a kernel before 5.14: the decoder's faults map the pages */
    }
}

/* Read-only zeros, the source of every write of zeros. */
static const uint8_t zero_piece[FIC_COEFFICIENT_ZERO_PIECE];

int fic_coefficient_write_zeros(int fd, uint64_t offset, uint64_t length) {
    uint64_t end = offset + length;
    while (offset < end) {
        /* Up to the next multiple of the piece size, so that the page cache's folios are aligned. */
        uint64_t boundary = (offset / FIC_COEFFICIENT_ZERO_PIECE + 1) * FIC_COEFFICIENT_ZERO_PIECE;
        size_t piece = (size_t)((end < boundary ? end : boundary) - offset);
        int error = fic_write_fully(fd, zero_piece, piece, (int64_t)offset, NULL); /* FICCore's short-write loop */
        if (error != 0) {
            return error;
        }
        offset += piece;
    }
    return 0;
}

/* Writes the region's next FIC_PUBLISH_EVERY bytes of zeros (or what is left), then tells the
 * decoder. Returns 0 or an errno. */
static int zero_next_piece(fic_pager *pager, pager_region *region) {
    uint64_t at = region->zeroed; /* only this thread changes it */
    uint64_t next = region->bytes - at > FIC_PUBLISH_EVERY ? at + FIC_PUBLISH_EVERY : region->bytes;
    int error = fic_coefficient_write_zeros(pager->fd, region->geometry.offset + at, next - at);
    if (error != 0) {
        return error;
    }
    pthread_mutex_lock(&pager->lock);
    region->zeroed = next;
    pthread_cond_broadcast(&pager->progress);
    pthread_mutex_unlock(&pager->lock);
    return 0;
}

/*
 * Frees the region's blocks behind the final output pass: rows more than four above its last
 * request (block smoothing reads two above the current one), in pieces of `punch_piece` or more.
 * The output never goes back, and the final scan it may run alongside is always ahead of it.
 */
static void punch_behind(fic_pager *pager, pager_region *region) {
    uint64_t margin = 4 * (uint64_t)region->geometry.row_bytes;
    if (pager->punch_unsupported || region->read_start <= margin) {
        return;
    }
    uint64_t last = round_down(region->geometry.offset + region->read_start - margin);
    if (last < region->punched + pager->punch_piece) {
        return;
    }
    if (fallocate(pager->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)region->punched, (off_t)(last - region->punched)) != 0) {
        pager->punch_unsupported = 1; /* the file system cannot: the blocks are freed when the file is closed */
        return;
    }
    pager->freed += last - region->punched;
    region->punched = last;
}

/* Moves a region's window to the decoder's new request. */
static void follow(fic_pager *pager, pager_region *region, uint64_t start, uint64_t end, int writable, int final_pass) {
    if (start < region->lo) {
        /* A new pass from the top: nothing of the old window is needed soon. */
        drop(pager, region, region->lo, region->top);
        region->lo = region->hi = region->top = start;
        region->writable = writable;
    } else {
        uint64_t lo = start > pager->behind ? start - pager->behind : 0;
        if (lo > region->lo) {
            drop(pager, region, region->lo, lo);
            region->lo = lo;
        }
    }
    if (region->hi < start) {
        region->hi = start; /* the decoder got there first */
    }
    if (region->top < end) {
        region->top = end;
    }
    region->target = end + pager->ahead < region->bytes ? end + pager->ahead : region->bytes;
    region->needed = end;
    /* In the final scan's company, the output's read requests come between the scan's writes. */
    region->writable = region->writable || writable;
    if (final_pass && !writable) {
        region->read_start = start;
        punch_behind(pager, region);
    }
}

/* Bytes of the mapping the pager may hold now. */
static uint64_t window_bytes(const fic_pager *pager) {
    uint64_t window = 0;
    for (int i = 0; i < pager->count; i++) {
        window += pager->regions[i].top - pager->regions[i].lo;
    }
    return window;
}

/*
 * One step of work. While zeros remain to be written, they are all the decoder can wait for (the
 * first scan touches every page): write the next piece where the decoder's lead is smallest, as a
 * fraction of the region, and leave the mapping of its rows to the decoder meanwhile (see
 * fic_pager_will_access), so that the two halves of the work run on two cores. Once every zero is
 * written, map the next chunk of the region furthest from its target. Returns whether there was work.
 */
static int step(fic_pager *pager, int *error) {
    pager_region *least = NULL;
    double least_lead = 0;
    for (int i = 0; i < pager->count; i++) {
        pager_region *region = &pager->regions[i];
        double lead = ((double)region->zeroed - (double)region->needed) / (double)region->bytes;
        if (region->zeroed < region->bytes && (least == NULL || lead < least_lead)) {
            least = region;
            least_lead = lead;
        }
    }
    if (least != NULL) {
        *error = zero_next_piece(pager, least);
        return 1;
    }
    if (pager->zeroing) {
        pthread_mutex_lock(&pager->lock);
        pager->zeroing = 0; /* from now on the pager maps the decoder's rows ahead of it */
        pthread_mutex_unlock(&pager->lock);
    }
    pager_region *chosen = NULL;
    uint64_t most = 0;
    for (int i = 0; i < pager->count; i++) {
        pager_region *region = &pager->regions[i];
        if (region->target > region->hi && region->target - region->hi > most) {
            most = region->target - region->hi;
            chosen = region;
        }
    }
    if (chosen != NULL) {
        /* Every zero is written by now. */
        uint64_t to = chosen->hi + pager->chunk < chosen->target ? chosen->hi + pager->chunk : chosen->target;
        map_ahead(pager, chosen, chosen->hi, to, chosen->writable);
        chosen->hi = to;
        if (chosen->top < to) {
            chosen->top = to;
        }
        return 1;
    }
    return 0;
}

static void *run(void *argument) {
    fic_pager *pager = (fic_pager *)argument;
    pthread_mutex_lock(&pager->lock);
    for (;;) {
        /* Take the decoder's latest requests. */
        int stopping = pager->stop;
        int final_pass = pager->final_pass;
        int moved[64] = {0};
        uint64_t start[64], end[64];
        int writable[64];
        for (int i = 0; i < pager->count; i++) {
            pager_region *region = &pager->regions[i];
            if (region->request_serial != region->seen_serial) {
                region->seen_serial = region->request_serial;
                moved[i] = 1;
                start[i] = region->request_start;
                end[i] = region->request_end;
                writable[i] = region->request_writable;
            }
        }
        pthread_mutex_unlock(&pager->lock);
        for (int i = 0; i < pager->count; i++) {
            if (moved[i]) {
                follow(pager, &pager->regions[i], start[i], end[i], writable[i], final_pass);
            }
        }
        if (stopping) {
            /* The decoder's last requests are followed (what the final pass left behind is freed);
             * nothing more is mapped or zeroed. */
            pthread_mutex_lock(&pager->lock);
            pager->published_freed = pager->freed;
            break;
        }
        int error = 0;
        int worked = pager->failure == 0 && step(pager, &error);
        uint64_t window = window_bytes(pager);
        pthread_mutex_lock(&pager->lock);
        if (window > pager->peak_window) {
            pager->peak_window = window;
        }
        pager->published_freed = pager->freed;
        for (int i = 0; i < pager->count; i++) {
            pager->regions[i].published_lo = pager->regions[i].lo;
            pager->regions[i].published_hi = pager->regions[i].hi;
        }
        if (error != 0) {
            pager->failure = error;
            pthread_cond_broadcast(&pager->progress);
        }
        if (!worked && !pager->stop) {
            int asked = 0;
            for (int i = 0; i < pager->count; i++) {
                asked |= pager->regions[i].request_serial != pager->regions[i].seen_serial;
            }
            if (!asked) {
                pager->sleeping = 1;
                pthread_cond_wait(&pager->work, &pager->lock);
                pager->sleeping = 0;
            }
        }
    }
    pthread_mutex_unlock(&pager->lock);
    return NULL;
}

fic_pager *fic_pager_start(int fd, uint8_t *base, const fic_pager_region *regions, int count, uint64_t resident_limit) {
    if (count <= 0 || count > 64) {
        errno = EINVAL;
        return NULL;
    }
    fic_pager *pager = (fic_pager *)calloc(1, sizeof(fic_pager) + (size_t)count * sizeof(pager_region));
    if (pager == NULL) {
        return NULL;
    }
    pager->fd = fd;
    pager->base = base;
    pager->count = count;
    pager->zeroing = 1;
    /* Each region's window gets an equal share of the limit: three quarters ahead, one behind. */
    uint64_t share = resident_limit / (uint64_t)count;
    pager->ahead = share / 4 * 3 < FIC_AHEAD_MIN ? FIC_AHEAD_MIN : share / 4 * 3;
    pager->behind = share / 4;
    pager->chunk = pager->ahead / 4 > FIC_MAP_CHUNK_MAX ? FIC_MAP_CHUNK_MAX : pager->ahead / 4;
    for (int i = 0; i < count; i++) {
        pager->regions[i].geometry = regions[i];
        pager->regions[i].bytes = (uint64_t)regions[i].rows * regions[i].row_bytes;
        pager->regions[i].punched = regions[i].offset;
        /* Block smoothing reads a row or two above the current one: keep them. */
        if (pager->behind < 4 * (uint64_t)regions[i].row_bytes) {
            pager->behind = 4 * (uint64_t)regions[i].row_bytes;
        }
    }
    /* Free in pieces of the window behind the decoder (up to 4 MiB): few calls, little left over. */
    pager->punch_piece = round_up(pager->behind < FIC_PUNCH_MAX ? pager->behind : FIC_PUNCH_MAX);
    pthread_mutex_init(&pager->lock, NULL);
    pthread_cond_init(&pager->work, NULL);
    pthread_cond_init(&pager->progress, NULL);
    /* The thread takes no signals: they belong to the threads of the program. */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    int rc = pthread_create(&pager->thread, NULL, run, pager);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&pager->progress);
        pthread_cond_destroy(&pager->work);
        pthread_mutex_destroy(&pager->lock);
        free(pager);
        errno = rc;
        return NULL;
    }
    return pager;
}

int fic_pager_will_access(fic_pager *pager, int index, uint32_t start, uint32_t end, int writable) {
    pager_region *region = &pager->regions[index];
    uint64_t from = (uint64_t)start * region->geometry.row_bytes;
    uint64_t to = (uint64_t)end * region->geometry.row_bytes;
    pthread_mutex_lock(&pager->lock);
    region->request_start = from;
    region->request_end = to;
    region->request_writable = writable;
    region->request_serial++;
    /* Wake the pager when the rows mapped ahead run short, or a new pass starts before the window;
     * it takes the latest request whenever it wakes. */
    int short_ahead = region->published_hi < region->bytes && region->published_hi < to + pager->ahead / 2;
    int wake = region->zeroed < to || from < region->published_lo || short_ahead;
    if (wake && pager->sleeping) {
        pthread_cond_signal(&pager->work);
    }
    while (region->zeroed < to && pager->failure == 0) {
        if (pager->sleeping) {
            pthread_cond_signal(&pager->work);
        }
        pthread_cond_wait(&pager->progress, &pager->lock);
    }
    int failure = region->zeroed < to ? pager->failure : 0;
    /* Rows the pager has not mapped yet (it writes zeros first): map them here, in one call. */
    uint64_t map_from = from > region->published_hi ? from : region->published_hi;
    int map_here = failure == 0 && writable && pager->zeroing && map_from < to && !pager->decoder_populate_unsupported;
    pthread_mutex_unlock(&pager->lock);
    if (map_here) {
        uint64_t first = round_down(region->geometry.offset + map_from);
        uint64_t last = round_up(region->geometry.offset + to);
        if (madvise(pager->base + first, (size_t)(last - first), FIC_MADV_POPULATE_WRITE) != 0 && errno == EINVAL) {
            pager->decoder_populate_unsupported = 1;
        }
    }
    return failure;
}

void fic_pager_final_pass(fic_pager *pager) {
    pthread_mutex_lock(&pager->lock);
    pager->final_pass = 1;
    pthread_mutex_unlock(&pager->lock);
}

uint64_t fic_pager_freed_bytes(fic_pager *pager) {
    pthread_mutex_lock(&pager->lock);
    uint64_t freed = pager->published_freed;
    pthread_mutex_unlock(&pager->lock);
    return freed;
}

uint64_t fic_pager_peak_window_bytes(fic_pager *pager) {
    pthread_mutex_lock(&pager->lock);
    uint64_t peak = pager->peak_window;
    pthread_mutex_unlock(&pager->lock);
    return peak;
}

uint64_t fic_pager_stop(fic_pager *pager) {
    pthread_mutex_lock(&pager->lock);
    pager->stop = 1;
    pthread_cond_signal(&pager->work);
    pthread_mutex_unlock(&pager->lock);
    pthread_join(pager->thread, NULL);
    uint64_t freed = pager->freed;
    pthread_cond_destroy(&pager->progress);
    pthread_cond_destroy(&pager->work);
    pthread_mutex_destroy(&pager->lock);
    free(pager);
    return freed;
}
