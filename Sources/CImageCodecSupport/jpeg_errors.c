/* Error manager: error_exit longjmps back into the wrapper; warnings are errors in strict mode. */
#include <string.h>

#include "jpeg_internal.h"

static fic_jpeg_error_kind classify(const fic_jpeg_decoder *decoder, int code) {
    if (decoder->hit_end_of_input) {
        return FIC_JPEG_ERR_TRUNCATED;
    }
    switch (code) {
    case JWRN_JPEG_EOF:
    case JERR_INPUT_EMPTY:
        return FIC_JPEG_ERR_TRUNCATED;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        return FIC_JPEG_ERR_TOO_LARGE;
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
        return FIC_JPEG_ERR_MEMORY;
    case JERR_ARITH_NOTIMPL:
    case JERR_BAD_PRECISION:
    case JERR_CCIR601_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_FRACT_SAMPLE_NOTIMPL:
    case JERR_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NO_SOI:
        return FIC_JPEG_ERR_UNSUPPORTED;
    default:
        return FIC_JPEG_ERR_CORRUPT;
    }
}

void fic_jpeg_record_error(fic_jpeg_decoder *decoder, int message_code) {
    decoder->failed = 1;
    decoder->error_kind = classify(decoder, message_code);
    decoder->error_manager.msg_code = message_code;
    char text[JMSG_LENGTH_MAX];
    text[0] = '\0';
    (*decoder->error_manager.format_message)((j_common_ptr)&decoder->cinfo, text);
    text[JMSG_LENGTH_MAX - 1] = '\0';
    strncpy(decoder->message, text, sizeof(decoder->message) - 1);
    decoder->message[sizeof(decoder->message) - 1] = '\0';
}

static void on_error_exit(j_common_ptr cinfo) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    fic_jpeg_record_error(decoder, cinfo->err->msg_code);
    longjmp(decoder->jump, 1);
}

/* Warnings that say nothing about the pixels, tolerated even in strict mode. */
static int is_harmless_warning(int code) {
    return code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC || code == JWRN_ADOBE_XFORM;
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) {
        return; /* trace messages */
    }
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    decoder->warnings += 1;
    cinfo->err->num_warnings += 1;
    if (decoder->strict && !is_harmless_warning(cinfo->err->msg_code)) {
        fic_jpeg_record_error(decoder, cinfo->err->msg_code);
        longjmp(decoder->jump, 1);
    }
}

static void on_output_message(j_common_ptr cinfo) {
    (void)cinfo; /* library code never prints */
}

void fic_jpeg_install_error_manager(fic_jpeg_decoder *decoder) {
    decoder->cinfo.err = jpeg_std_error(&decoder->error_manager);
    decoder->error_manager.error_exit = on_error_exit;
    decoder->error_manager.emit_message = on_emit_message;
    decoder->error_manager.output_message = on_output_message;
}

fic_jpeg_error_kind fic_jpeg_get_error_kind(const fic_jpeg_decoder *decoder) {
    return decoder->error_kind;
}

const char *fic_jpeg_error_message(const fic_jpeg_decoder *decoder) {
    return decoder->message;
}

int fic_jpeg_warning_count(const fic_jpeg_decoder *decoder) {
    return decoder->warnings;
}
