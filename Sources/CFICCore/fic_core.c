#define _GNU_SOURCE
#include "fic_core.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fic_retry.h"

const int fic_o_tmpfile = O_TMPFILE;
const int fic_o_direct = O_DIRECT;

int fic_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int fic_read_fully(int fd, void *buffer, size_t length, int64_t offset, size_t *done) {
    size_t total = 0;
    int error = 0;
    while (total < length) {
        uint8_t *at = (uint8_t *)buffer + total;
        ssize_t n = offset < 0 ? FIC_RETRYING_EINTR(read(fd, at, length - total))
                               : FIC_RETRYING_EINTR(pread(fd, at, length - total, (off_t)(offset + (int64_t)total)));
        if (n < 0) {
            error = errno;
            break;
        }
        if (n == 0) {
            break; /* the end of the file */
        }
        total += (size_t)n;
    }
    if (done != NULL) {
        *done = total;
    }
    return error;
}

int fic_write_fully(int fd, const void *buffer, size_t length, int64_t offset, size_t *done) {
    size_t total = 0;
    int error = 0;
    while (total < length) {
        const uint8_t *at = (const uint8_t *)buffer + total;
        ssize_t n = offset < 0 ? FIC_RETRYING_EINTR(write(fd, at, length - total))
                               : FIC_RETRYING_EINTR(pwrite(fd, at, length - total, (off_t)(offset + (int64_t)total)));
        if (n < 0) {
            error = errno;
            break;
        }
        if (n == 0) {
            error = ENOSPC; /* no progress: the disk took nothing */
            break;
        }
        total += (size_t)n;
    }
    if (done != NULL) {
        *done = total;
    }
    return error;
}

int fic_mremap_fixed(void *old_address, size_t size, void *target) {
    void *moved = mremap(old_address, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    return moved == target ? 0 : errno;
}

int fic_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}

int fic_fstatfs_type(int fd, uint64_t *type) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    *type = (uint64_t)(unsigned long)info.f_type;
    return 0;
}

int fic_set_current_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int fic_set_current_thread_niceness(int niceness) {
    /* On Linux a nice value belongs to a thread: PRIO_PROCESS with the thread's own id. */
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness) == 0 ? 0 : errno;
}

int fic_fix_malloc_mapping_threshold(size_t bytes) {
    if (bytes > (size_t)INT_MAX) return 0;
    return mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
}

size_t fic_malloc_mapped_bytes(void) {
    return mallinfo2().hblkhd;
}

const int fic_lock_read = F_RDLCK, fic_lock_write = F_WRLCK, fic_lock_unlock = F_UNLCK;

/* An OFD lock request on `length` bytes from `start` (l_pid must be 0 for OFD locks). */
static struct flock fic_ofd_request(int type, int64_t start, int64_t length) {
    struct flock lock = {0};
    lock.l_type = (short)type;
    lock.l_whence = SEEK_SET;
    lock.l_start = (off_t)start;
    lock.l_len = (off_t)length;
    lock.l_pid = 0;
    return lock;
}

int fic_ofd_lock(int fd, int type, int64_t start, int64_t length, int wait) {
    struct flock lock = fic_ofd_request(type, start, length);
    return FIC_RETRYING_EINTR(fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock)) == 0 ? 0 : errno;
}

int fic_ofd_lock_test(int fd, int type, int64_t start, int64_t length, int *holder_type) {
    struct flock lock = fic_ofd_request(type, start, length);
    if (FIC_RETRYING_EINTR(fcntl(fd, F_OFD_GETLK, &lock)) != 0) return errno;
    *holder_type = lock.l_type;
    return 0;
}
