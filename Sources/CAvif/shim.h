// libavif (Debian: libavif-dev) for AVIF image sequences, which libheif 1.15 does not decode.
//
// The module links nothing: ImageCodec loads the library the first time an AVIF sequence is
// opened (Sources/ImageCodec/CodecLibraries.swift), so that no process pays at start for loading
// it and the AV1 codecs it needs (dav1d, libaom, rav1e, SVT-AV1, libgav1). The header gives the
// types; the functions come through `struct fic_avif_functions`, whose fields have the header's
// own types. The structures are libavif 0.11's (soname libavif.so.15): another version's layout
// differs, so only that one is loaded.
#include "../CFICCore/fic_library_table.h"
#include <avif/avif.h>

#define FIC_AVIF_FUNCTIONS(X) \
    X(avifCropRectConvertCleanApertureBox) \
    X(avifDecoderCreate) \
    X(avifDecoderDestroy) \
    X(avifDecoderNextImage) \
    X(avifDecoderNthImageTiming) \
    X(avifDecoderParse) \
    X(avifDecoderSetIOMemory) \
    X(avifDecoderSetSource) \
    X(avifImageCreateEmpty) \
    X(avifImageDestroy) \
    X(avifImageSetViewRect) \
    X(avifImageYUVToRGB) \
    X(avifResultToString) \
    X(avifRGBImageSetDefaults) \
    X(avifVersion)

/* Every function ImageCodec calls, with the header's type, and their loader. */
FIC_TABLE_STRUCT(fic_avif_functions, FIC_AVIF_FUNCTIONS)
FIC_TABLE_LOADER(fic_avif_load, fic_avif_functions, FIC_AVIF_FUNCTIONS)

/* libavif's ceiling for avifDecoder.imageSizeLimit (a product of two numbers, which Swift does
   not import as a macro): larger values, and 0, make avifDecoderParse fail. */
static const uint32_t fic_avif_maximum_image_size_limit = AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
/* libavif's default (and largest) avifDecoder.imageDimensionLimit. */
static const uint32_t fic_avif_maximum_image_dimension = AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT;
