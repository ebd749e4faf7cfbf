/*
 * Output of a progressive JPEG alongside its final scan. Read the usual way, libjpeg absorbs every
 * scan before the output pass starts, and then turns the whole coefficient buffer into pixels at
 * once. The final scan of a progressive file (typically the luma's last refinement, a quarter of
 * the decoding time) completes the coefficients of each row as it goes, so the output of a row
 * can follow right behind it: libjpeg's buffered-image mode does that when the output pass is
 * started on the scan still being read (its coefficient controller reads input until the scan
 * is past the row it outputs). The scan that starts with every coefficient of every component
 * at full precision (successive approximation bit 0 everywhere) is the final one; a file whose
 * scans never get there is output after its end, as before.
 */
#include <stdio.h>
#include <string.h>

#include "jpeg_internal.h"

/* Whether, once the scan being read ends, every coefficient is complete. */
static int completes_coefficients(const struct jpeg_decompress_struct *cinfo) {
    if (!cinfo->progressive_mode || cinfo->coef_bits == NULL) {
        return 0;
    }
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        for (int k = 0; k < DCTSIZE2; k++) {
            if (cinfo->coef_bits[ci][k] != 0) {
                return 0;
            }
        }
    }
    return 1;
}

void fic_jpeg_overlap_final_scan(fic_jpeg_decoder *decoder) {
    decoder->overlap_final_scan = decoder->cinfo.progressive_mode ? 1 : 0;
}

fic_jpeg_status fic_jpeg_start_overlapped(fic_jpeg_decoder *decoder) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!decoder->overlap_decompressing) {
        cinfo->buffered_image = TRUE;
        if (!jpeg_start_decompress(cinfo)) {
            return FIC_JPEG_SUSPENDED;
        }
        decoder->overlap_decompressing = 1;
    }
    if (!decoder->overlap_output) {
        for (;;) {
            if (completes_coefficients(cinfo)) {
                /* Smoothing guesses missing coefficients; there are none (libjpeg would not smooth). */
                cinfo->do_block_smoothing = FALSE;
                break;
            }
            int result = jpeg_consume_input(cinfo);
            if (result == JPEG_SUSPENDED) {
                return FIC_JPEG_SUSPENDED;
            }
            if (result == JPEG_REACHED_EOI) {
                break;
            }
        }
        decoder->overlap_output = 1;
        fic_jpeg_coefficient_file_final_pass(decoder);
    }
    if (!jpeg_start_output(cinfo, cinfo->input_scan_number)) {
        return FIC_JPEG_SUSPENDED;
    }
    return FIC_JPEG_OK;
}

fic_jpeg_status fic_jpeg_finish_overlapped(fic_jpeg_decoder *decoder) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (!decoder->overlap_output_done) {
        if (!jpeg_finish_output(cinfo)) { /* reads up to the next scan or the end */
            return FIC_JPEG_SUSPENDED;
        }
        decoder->overlap_output_done = 1;
    }
    if (cinfo->input_scan_number > cinfo->output_scan_number) {
        /* A scan after the one that completed every coefficient changes pixels already output. */
        decoder->failed = 1;
        decoder->error_kind = FIC_JPEG_ERR_CORRUPT;
        snprintf(decoder->message, sizeof(decoder->message),
                 "scan %d follows scan %d, which had already completed every coefficient (bogus progression)",
                 cinfo->input_scan_number, cinfo->output_scan_number);
        return FIC_JPEG_ERROR;
    }
    if (!jpeg_finish_decompress(cinfo)) {
        return FIC_JPEG_SUSPENDED;
    }
    return FIC_JPEG_OK;
}
