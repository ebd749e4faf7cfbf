/*
 * Thumbnails of progressive JPEGs from their first scans. At scale 1/8 the inverse DCT of a luma
 * block uses only its DC coefficient (and a 2x2 chroma IDCT a handful of low ones), which the
 * first scans of a progressive file carry; the later scans, most of the file, only refine what a
 * 1/8 image cannot show. Buffered-image mode lets output start after any scan.
 */
#include "jpeg_internal.h"

/* Zigzag position of each natural-order coefficient (row * 8 + column). */
static const int zigzag_of_natural[DCTSIZE2] = {
    0,  1,  5,  6,  14, 15, 27, 28, 2,  4,  7,  13, 16, 26, 29, 42,
    3,  8,  12, 17, 25, 30, 41, 43, 9,  11, 18, 24, 31, 40, 44, 53,
    10, 19, 23, 32, 39, 45, 52, 54, 20, 22, 33, 38, 46, 51, 55, 60,
    21, 34, 37, 47, 50, 56, 59, 61, 35, 36, 48, 49, 57, 58, 62, 63,
};

/* Whether the reduced inverse DCT of size `size` (libjpeg's jidctred.c) reads row/column `index`. */
static int is_used(int size, int index) {
    switch (size) {
    case 1:
        return index == 0;
    case 2:
        return index == 0 || index == 1 || index == 3 || index == 5 || index == 7;
    case 4:
        return index != 4;
    default:
        return 1;
    }
}

/* Whether every coefficient the output needs has arrived to within max_al low bits. */
static int has_enough(const struct jpeg_decompress_struct *cinfo, int max_al) {
    if (cinfo->coef_bits == NULL) {
        return 0;
    }
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        int size = cinfo->comp_info[ci].DCT_scaled_size;
        for (int row = 0; row < DCTSIZE; row++) {
            for (int column = 0; column < DCTSIZE; column++) {
                if (!is_used(size, row) || !is_used(size, column)) {
                    continue;
                }
                int bits = cinfo->coef_bits[ci][zigzag_of_natural[row * DCTSIZE + column]];
                if (bits < 0 || bits > max_al) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

fic_jpeg_status fic_jpeg_start_partial(fic_jpeg_decoder *decoder, int max_point_transform,
                                       int *scans_read, int *all_scans) {
    *scans_read = 0;
    *all_scans = 0;
    FIC_JPEG_GUARD(decoder);
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    cinfo->buffered_image = TRUE;
    cinfo->do_block_smoothing = FALSE;
    if (!jpeg_start_decompress(cinfo)) {
        return FIC_JPEG_SUSPENDED;
    }
    for (;;) {
        int result = jpeg_consume_input(cinfo);
        if (result == JPEG_SUSPENDED) {
            return FIC_JPEG_SUSPENDED;
        }
        if (result == JPEG_REACHED_EOI) {
            *all_scans = 1;
            break;
        }
        if (result == JPEG_SCAN_COMPLETED && has_enough(cinfo, max_point_transform)) {
            break;
        }
    }
    *scans_read = cinfo->input_scan_number;
    fic_jpeg_coefficient_file_final_pass(decoder); /* the scans left are never read */
    if (!jpeg_start_output(cinfo, cinfo->input_scan_number)) {
        return FIC_JPEG_SUSPENDED;
    }
    return FIC_JPEG_OK;
}

fic_jpeg_status fic_jpeg_finish_partial(fic_jpeg_decoder *decoder) {
    FIC_JPEG_GUARD(decoder);
    jpeg_abort_decompress(&decoder->cinfo); /* unmaps the coefficients now */
    return FIC_JPEG_OK;
}
