/* The decoding steps, each guarded by setjmp so libjpeg errors come back as FIC_JPEG_ERROR. */
#include <stdlib.h>
#include <string.h>

#include "jpeg_internal.h"

fic_jpeg_decoder *fic_jpeg_create(int strict) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)calloc(1, sizeof(fic_jpeg_decoder));
    if (decoder == NULL) {
        return NULL;
    }
    decoder->strict = strict;
    fic_jpeg_install_error_manager(decoder);
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump) != 0) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    decoder->cinfo.client_data = decoder;
    fic_jpeg_install_memory_manager(decoder);
    fic_jpeg_install_source(decoder);
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 1, 0xFFFF);
    /* ICC_PROFILE pieces: the Swift side reassembles and checks them (EmbeddedColor). */
    jpeg_save_markers(&decoder->cinfo, JPEG_APP0 + 2, 0xFFFF);
    return decoder;
}

void fic_jpeg_destroy(fic_jpeg_decoder *decoder) {
    if (decoder == NULL) {
        return;
    }
    fic_jpeg_reinstate_memory_manager(decoder);
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->buffer);
    free(decoder);
}

static uint64_t coefficient_bytes(const struct jpeg_decompress_struct *cinfo) {
    uint64_t total = 0;
    for (int i = 0; i < cinfo->num_components; i++) {
        const jpeg_component_info *component = &cinfo->comp_info[i];
        total += (uint64_t)component->width_in_blocks * (uint64_t)component->height_in_blocks * 128u;
    }
    return total;
}

fic_jpeg_status fic_jpeg_read_header(fic_jpeg_decoder *decoder, fic_jpeg_header *header) {
    FIC_JPEG_GUARD(decoder);
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) {
        return FIC_JPEG_SUSPENDED;
    }
    memset(header, 0, sizeof(*header));
    header->width = cinfo->image_width;
    header->height = cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = (int)cinfo->jpeg_color_space;
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    header->arithmetic = cinfo->arith_code ? 1 : 0;
    header->multiple_scans = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
    header->saw_adobe_marker = cinfo->saw_Adobe_marker ? 1 : 0;
    header->adobe_transform = cinfo->Adobe_transform;
    header->coefficient_bytes = coefficient_bytes(cinfo);
    /* The tables the frame header names. Its table numbers are the file's bytes, which libjpeg
     * checks only when decoding starts: one past 0-3 names no table here. */
    for (int i = 0; i < cinfo->num_components && i < 2; i++) {
        int number = cinfo->comp_info[i].quant_tbl_no;
        if (number < 0 || number >= NUM_QUANT_TBLS) continue;
        const JQUANT_TBL *table = cinfo->quant_tbl_ptrs[number];
        if (table == NULL) continue;
        uint16_t *out = i == 0 ? header->luma_quantization : header->chroma_quantization;
        for (int k = 0; k < DCTSIZE2; k++) out[k] = table->quantval[k];
        if (i == 0) header->has_luma_quantization = 1; else header->has_chroma_quantization = 1;
    }
    return FIC_JPEG_OK;
}

const uint8_t *fic_jpeg_saved_marker(const fic_jpeg_decoder *decoder, int index, int *marker, size_t *length) {
    int i = 0;
    for (jpeg_saved_marker_ptr saved = decoder->cinfo.marker_list; saved != NULL; saved = saved->next, i++) {
        if (i == index) {
            *marker = saved->marker;
            *length = saved->data_length;
            return saved->data;
        }
    }
    *marker = 0;
    *length = 0;
    return NULL;
}

const uint8_t *fic_jpeg_exif(const fic_jpeg_decoder *decoder, size_t *length) {
    static const char identifier[6] = {'E', 'x', 'i', 'f', 0, 0};
    for (jpeg_saved_marker_ptr marker = decoder->cinfo.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= sizeof(identifier) &&
            memcmp(marker->data, identifier, sizeof(identifier)) == 0) {
            *length = marker->data_length - sizeof(identifier);
            return marker->data + sizeof(identifier);
        }
    }
    *length = 0;
    return NULL;
}

fic_jpeg_status fic_jpeg_configure(fic_jpeg_decoder *decoder, int scale_denominator,
                                   uint32_t *output_width, uint32_t *output_height) {
    FIC_JPEG_GUARD(decoder);
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denominator;
    cinfo->dct_method = JDCT_ISLOW;
    cinfo->do_fancy_upsampling = TRUE;
    cinfo->do_block_smoothing = TRUE;
    /* CMYK (YCCK turned into CMYK by libjpeg) comes out as it is stored, 4 bytes a pixel like
     * BGRX: the colour engine converts it, through the file's profile when it has one. */
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_EXT_BGRX;
    }
    jpeg_calc_output_dimensions(cinfo);
    *output_width = cinfo->output_width;
    *output_height = cinfo->output_height;
    return FIC_JPEG_OK;
}

fic_jpeg_status fic_jpeg_start(fic_jpeg_decoder *decoder) {
    FIC_JPEG_GUARD(decoder);
    if (decoder->overlap_final_scan) {
        return fic_jpeg_start_overlapped(decoder);
    }
    if (!jpeg_start_decompress(&decoder->cinfo)) {
        return FIC_JPEG_SUSPENDED;
    }
    /* A multi-scan file has been read whole: the one output pass is the last use of its coefficients. */
    fic_jpeg_coefficient_file_final_pass(decoder);
    return FIC_JPEG_OK;
}

fic_jpeg_status fic_jpeg_read_rows(fic_jpeg_decoder *decoder, uint8_t *dst, size_t stride,
                                   uint32_t max_rows, uint32_t *rows_read) {
    *rows_read = 0;
    FIC_JPEG_GUARD(decoder);
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    JSAMPROW rows[16];
    while (*rows_read < max_rows && cinfo->output_scanline < cinfo->output_height) {
        uint32_t wanted = max_rows - *rows_read;
        if (wanted > 16) {
            wanted = 16;
        }
        uint8_t *first = dst + (size_t)(*rows_read) * stride;
        for (uint32_t i = 0; i < wanted; i++) {
            rows[i] = first + (size_t)i * stride;
        }
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows, wanted);
        if (got == 0) {
            return FIC_JPEG_SUSPENDED;
        }
        *rows_read += got;
    }
    return FIC_JPEG_OK;
}

uint32_t fic_jpeg_output_scanline(const fic_jpeg_decoder *decoder) {
    return decoder->cinfo.output_scanline;
}

fic_jpeg_status fic_jpeg_finish(fic_jpeg_decoder *decoder) {
    FIC_JPEG_GUARD(decoder);
    if (decoder->overlap_final_scan) {
        return fic_jpeg_finish_overlapped(decoder);
    }
    if (!jpeg_finish_decompress(&decoder->cinfo)) {
        return FIC_JPEG_SUSPENDED;
    }
    return FIC_JPEG_OK;
}
