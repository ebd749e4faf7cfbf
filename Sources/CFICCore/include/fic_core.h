#ifndef FIC_CORE_H
#define FIC_CORE_H

#include <stddef.h>
#include <stdint.h>

/// O_TMPFILE, which Swift cannot import (a macro built from other macros).
extern const int fic_o_tmpfile;

/// O_DIRECT, which Swift's Glibc module does not export (it needs _GNU_SOURCE).
extern const int fic_o_direct;

/// Reads `length` bytes from fd into buffer: at `offset` (pread), or at the current position when
/// `offset` is negative (read). Retries after EINTR and after short reads, until the buffer is
/// full or the file ends. `*done` (when not NULL) receives the bytes read, also on failure.
/// Returns 0, or the errno of the failed call. The package's one short-read loop.
int fic_read_fully(int fd, void *buffer, size_t length, int64_t offset, size_t *done);

/// Writes all `length` bytes of buffer to fd: at `offset` (pwrite), or at the current position
/// when `offset` is negative (write). Retries after EINTR and after short writes. `*done` (when
/// not NULL) receives the bytes written, also on failure. Returns 0, or the errno of the failed
/// call (ENOSPC when a call writes nothing). The package's one short-write loop.
int fic_write_fully(int fd, const void *buffer, size_t length, int64_t offset, size_t *done);

/// memfd_create(name, MFD_CLOEXEC): a file that lives in memory only, for state a process keeps
/// to itself with the same code that shares it through a file. Returns the descriptor, or -1
/// with errno set.
int fic_memfd_create(const char *name);

/// mremap(old, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, target), which Swift cannot call because
/// the C function is variadic. Returns 0, or the errno.
int fic_mremap_fixed(void *old_address, size_t size, void *target);

/// sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE): starts the write-out of the
/// range's dirty pages without waiting (Swift's Glibc module leaves it out, a GNU extension).
/// Returns 0, or -1 with errno set.
int fic_start_writeback(int fd, int64_t offset, int64_t length);

/// fstatfs(fd)'s f_type (the file system's magic number) in *type, which Swift cannot reach
/// (Glibc's module map leaves out sys/vfs.h). Returns 0, or -1 with errno set.
int fic_fstatfs_type(int fd, uint64_t *type);

/// pthread_setname_np(pthread_self(), name), which Swift's Glibc module leaves out (a GNU
/// extension). `name` is at most 15 bytes. Returns 0, or the error number.
int fic_set_current_thread_name(const char *name);
/* Sets the calling thread's nice value (19 the lowest priority); 0 or an errno. Raising it needs
   no privilege; lowering it below the process's does. */
int fic_set_current_thread_niceness(int niceness);

/* Fixes glibc malloc's mapping threshold at `bytes` (mallopt M_MMAP_THRESHOLD, which also stops
   glibc from raising it); 1 when accepted, 0 otherwise. */
int fic_fix_malloc_mapping_threshold(size_t bytes);

/* Bytes of the blocks malloc has given mappings of their own (mallinfo2's hblkhd). */
size_t fic_malloc_mapped_bytes(void);

/// Stores `value` at `address` (8-byte aligned) with release ordering: every load and store the
/// thread made before it is visible before it, to other threads and processes mapping the same
/// memory, and neither the compiler nor the processor moves those earlier stores after it.
static inline void fic_store_release_u64(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_RELEASE);
}

/// Loads the 8 bytes at `address` (8-byte aligned) with acquire ordering: later loads see at
/// least what was stored before the release store that wrote this value.
static inline uint64_t fic_load_acquire_u64(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_ACQUIRE);
}

/// A release fence: stores before it are made visible before any store after it.
static inline void fic_release_fence(void) {
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/// Loads the 8 bytes at `address` (8-byte aligned) atomically, with no ordering: a seqlock's
/// reader copies bytes a writer may be changing with these, never with memcpy.
static inline uint64_t fic_load_relaxed_u64(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_RELAXED);
}

/// Stores `value` at `address` (8-byte aligned) atomically, with no ordering.
static inline void fic_store_relaxed_u64(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_RELAXED);
}

/// Loads the 8 bytes at `address` (8-byte aligned) sequentially consistently: the load after a
/// sequentially consistent store or read-modify-write in a store-then-load handshake.
static inline uint64_t fic_load_seq_cst_u64(const void *address) {
    return __atomic_load_n((const uint64_t *)address, __ATOMIC_SEQ_CST);
}

/// Stores `value` at `address` (8-byte aligned) sequentially consistently.
static inline void fic_store_seq_cst_u64(void *address, uint64_t value) {
    __atomic_store_n((uint64_t *)address, value, __ATOMIC_SEQ_CST);
}

/// Sets the bits of `mask` in the 8 bytes at `address` (8-byte aligned), sequentially
/// consistently; returns the value before.
static inline uint64_t fic_fetch_or_u64(void *address, uint64_t mask) {
    return __atomic_fetch_or((uint64_t *)address, mask, __ATOMIC_SEQ_CST);
}

/// Keeps only the bits of `mask` in the 8 bytes at `address` (8-byte aligned), sequentially
/// consistently; returns the value before.
static inline uint64_t fic_fetch_and_u64(void *address, uint64_t mask) {
    return __atomic_fetch_and((uint64_t *)address, mask, __ATOMIC_SEQ_CST);
}

/// Adds `value` to the 8 bytes at `address` (8-byte aligned), sequentially consistently;
/// returns the value before.
static inline uint64_t fic_fetch_add_u64(void *address, uint64_t value) {
    return __atomic_fetch_add((uint64_t *)address, value, __ATOMIC_SEQ_CST);
}

/// Replaces the 8 bytes at `address` (8-byte aligned) by `value`, sequentially consistently;
/// returns the value before.
static inline uint64_t fic_exchange_u64(void *address, uint64_t value) {
    return __atomic_exchange_n((uint64_t *)address, value, __ATOMIC_SEQ_CST);
}

/// Replaces the 8 bytes at `address` (8-byte aligned) by `desired` if they are `*expected`,
/// sequentially consistently; otherwise puts them in `*expected`. Returns 1 when replaced.
static inline int fic_compare_exchange_u64(void *address, uint64_t *expected, uint64_t desired) {
    return __atomic_compare_exchange_n((uint64_t *)address, expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/// An acquire fence: loads after it see at least what the release stores whose values loads
/// before it saw made visible (a seqlock reader's fence between its copy and its second check).
static inline void fic_acquire_fence(void) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/// A sequentially consistent fence.
static inline void fic_seq_cst_fence(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/// An open-file-description lock (F_OFD_SETLK, or F_OFD_SETLKW when `wait`) on `length` bytes of
/// fd's file from `start` (which may lie beyond its end): `type` is F_RDLCK, F_WRLCK or F_UNLCK.
/// Held by the open file description, released when the last descriptor of it closes or its
/// process dies, independent of flock locks; fcntl is variadic, which Swift cannot call. Returns
/// 0, or the errno (EAGAIN or EACCES: another open file description holds a conflicting lock).
int fic_ofd_lock(int fd, int type, int64_t start, int64_t length, int wait);

/// Asks whether an open file description other than fd's holds a lock on `length` bytes from
/// `start` conflicting with a lock of `type` (F_OFD_GETLK). `*holder_type` receives F_UNLCK when
/// none does, else the conflicting lock's type. Returns 0, or the errno.
int fic_ofd_lock_test(int fd, int type, int64_t start, int64_t length, int *holder_type);

/// F_RDLCK, F_WRLCK and F_UNLCK, which Swift's Glibc module exports with a type of its own.
extern const int fic_lock_read, fic_lock_write, fic_lock_unlock;

#endif
