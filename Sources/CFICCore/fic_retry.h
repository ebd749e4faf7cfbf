#ifndef FIC_RETRY_H
#define FIC_RETRY_H

#include <errno.h>

/*
 * The C side's one EINTR loop (the Swift side's is retryingSystemCall): evaluates call, a system
 * call that returns a negative value with errno set on failure, again for as long as it fails with
 * EINTR, and yields its last result. A signal handled while a call waits must not turn into an
 * error the caller sees.
 */
#define FIC_RETRYING_EINTR(call)                                                                                       \
    __extension__({                                                                                                    \
        __typeof__(call) fic_result_;                                                                                  \
        do {                                                                                                           \
            fic_result_ = (call);                                                                                      \
        } while (fic_result_ < 0 && errno == EINTR);                                                                   \
        fic_result_;                                                                                                   \
    })

#endif
