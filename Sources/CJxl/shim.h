// libjxl (Debian: libjxl-dev) for JPEG XL.
//
// The module links nothing: ImageCodec loads the library the first time a file of this format
// is opened (Sources/ImageCodec/CodecLibraries.swift), so that no process pays at start for
// loading it and the libraries it needs. The header gives the types; the functions come
// through `struct fic_jxl_functions`, whose fields have the header's own types.
#include "../CFICCore/fic_library_table.h"
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>

#define FIC_JXL_FUNCTIONS(X) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderFlushImage) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetFrameHeader) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderSetKeepOrientation) \
    X(JxlDecoderSetParallelRunner) \
    X(JxlDecoderSetPreferredColorProfile) \
    X(JxlDecoderSetUnpremultiplyAlpha) \
    X(JxlDecoderSubscribeEvents)

/* libjxl_threads's. */
#define FIC_JXL_RUNNER_FUNCTIONS(X) \
    X(JxlThreadParallelRunner) \
    X(JxlThreadParallelRunnerCreate) \
    X(JxlThreadParallelRunnerDefaultNumWorkerThreads) \
    X(JxlThreadParallelRunnerDestroy)

/* Every function ImageCodec calls, with the header's type. */
struct fic_jxl_functions {
    FIC_JXL_FUNCTIONS(FIC_TABLE_FIELD)
    FIC_JXL_RUNNER_FUNCTIONS(FIC_TABLE_FIELD)
};

/* Fills the decoder's functions of `table` from the loaded libjxl `handle`; NULL, or the
   name of the first missing function. */
static inline const char *_Nullable fic_jxl_load(void *_Nonnull handle, struct fic_jxl_functions *_Nonnull table) {
    FIC_JXL_FUNCTIONS(FIC_TABLE_LOAD)
    return NULL;
}

/* Fills the parallel runner's functions of `table` from the loaded libjxl_threads `handle`;
   NULL, or the name of the first missing function. */
static inline const char *_Nullable fic_jxl_load_runner(void *_Nonnull handle, struct fic_jxl_functions *_Nonnull table) {
    FIC_JXL_RUNNER_FUNCTIONS(FIC_TABLE_LOAD)
    return NULL;
}
