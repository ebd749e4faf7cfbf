#define _GNU_SOURCE
#include "fic_core.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/vfs.h>

const int fic_o_tmpfile = O_TMPFILE;

int fic_mremap_fixed(void *old_address, size_t size, void *target) {
    void *moved = mremap(old_address, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    return moved == target ? 0 : errno;
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
