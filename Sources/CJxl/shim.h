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

/* Every function ImageCodec calls, with the header's type; the decoder's come from libjxl, the
   parallel runner's from libjxl_threads, each with a loader of its own. */
#define FIC_JXL_ALL_FUNCTIONS(X) FIC_JXL_FUNCTIONS(X) FIC_JXL_RUNNER_FUNCTIONS(X)
FIC_TABLE_STRUCT(fic_jxl_functions, FIC_JXL_ALL_FUNCTIONS)
FIC_TABLE_LOADER(fic_jxl_load, fic_jxl_functions, FIC_JXL_FUNCTIONS)
FIC_TABLE_LOADER(fic_jxl_load_runner, fic_jxl_functions, FIC_JXL_RUNNER_FUNCTIONS)
