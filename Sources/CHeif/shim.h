// libheif (Debian: libheif-dev) for HEIC and AVIF.
//
// The module links nothing: ImageCodec loads the library the first time a file of this format
// is opened (Sources/ImageCodec/CodecLibraries.swift), so that no process pays at start for
// loading it and the libraries it needs. The header gives the types; the functions come
// through `struct fic_heif_functions`, whose fields have the header's own types.
#include "../CFICCore/fic_library_table.h"
#include <libheif/heif.h>

#define FIC_HEIF_FUNCTIONS(X) \
    X(heif_context_alloc) \
    X(heif_context_free) \
    X(heif_context_get_number_of_top_level_images) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_get_version) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_chroma_format) \
    X(heif_image_get_colorspace) \
    X(heif_image_get_decoding_warnings) \
    X(heif_image_get_height) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_color_profile_type) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_ispe_height) \
    X(heif_image_handle_get_ispe_width) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_is_premultiplied_alpha) \
    X(heif_image_handle_release) \
    X(heif_image_has_channel) \
    X(heif_image_release) \
    X(heif_init) \
    X(heif_nclx_color_profile_free)

/* Every function ImageCodec calls, with the header's type, and their loader. */
FIC_TABLE_STRUCT(fic_heif_functions, FIC_HEIF_FUNCTIONS)
FIC_TABLE_LOADER(fic_heif_load, fic_heif_functions, FIC_HEIF_FUNCTIONS)
