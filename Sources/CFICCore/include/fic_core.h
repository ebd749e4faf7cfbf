#ifndef FIC_CORE_H
#define FIC_CORE_H

#include <stddef.h>

/// O_TMPFILE, which Swift cannot import (a macro built from other macros).
extern const int fic_o_tmpfile;

/// mremap(old, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, target), which Swift cannot call because
/// the C function is variadic. Returns 0, or the errno.
int fic_mremap_fixed(void *old_address, size_t size, void *target);

#endif
