/* Error manager: error_exit longjmps back into the wrapper; damaging warnings are errors in strict
 * mode, and the premature end of the file is one in every mode. */
#include <string.h>

#include "jpeg_internal.h"

static fic_jpeg_error_kind classify(const fic_jpeg_decoder *decoder, int code) {
    if (decoder->hit_end_of_input) {
        /* Out of data: cut short, unless the file ends with an EOI (then damage ran into it). */
        return fic_jpeg_input_ends_with_eoi(decoder) ? FIC_JPEG_ERR_CORRUPT : FIC_JPEG_ERR_TRUNCATED;
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

/*
 * Warnings that mean the pixels are wrong or missing: entropy-coded data that is cut short or
 * undecodable (or followed by more than padding), and premature end of the file (an incomplete
 * download). Strict mode refuses them. Every other warning (extraneous bytes between header
 * segments or a little padding after image data, an unknown JFIF revision, a bad ICC or Adobe
 * segment, odd scan parameters) leaves the picture whole, as every viewer shows it; it is kept
 * for logging and decoding goes on.
 */
/* libjpeg's global_state while it reads the header (DSTATE_INHEADER in its private jpegint.h). */
#define FIC_STATE_IN_HEADER 201
/* Extraneous bytes after image data has started that are still taken for padding, not damage. */
#define FIC_EXTRANEOUS_PADDING 256

static int is_damaging_warning(const fic_jpeg_decoder *decoder, int code) {
    if (code == JWRN_EXTRANEOUS_DATA) {
        /* Junk between header segments (a wrong APP length, a truncated APP14, a broken EXIF
         * block) leaves the picture whole. Many bytes left over where entropy-coded data ends
         * mean the decoder lost its way in it: the picture is wrong. */
        return decoder->cinfo.global_state != FIC_STATE_IN_HEADER &&
               decoder->cinfo.err->msg_parm.i[0] > FIC_EXTRANEOUS_PADDING;
    }
    return code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_ARITH_BAD_CODE ||
           code == JWRN_MUST_RESYNC || code == JWRN_JPEG_EOF || code == JWRN_TOO_MUCH_DATA;
}

static void keep_warning(fic_jpeg_decoder *decoder) {
    if (decoder->kept_warnings >= FIC_JPEG_KEPT_WARNINGS) {
        return;
    }
    char *text = decoder->warning_text[decoder->kept_warnings];
    text[0] = '\0';
    (*decoder->error_manager.format_message)((j_common_ptr)&decoder->cinfo, text);
    text[JMSG_LENGTH_MAX - 1] = '\0';
    decoder->kept_warnings += 1;
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) {
        return; /* trace messages */
    }
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    decoder->warnings += 1;
    cinfo->err->num_warnings += 1;
    /* A file that ends before its image does is an incomplete download or copy, never a picture
     * to keep: refused in every mode. Running into the end of a file that does end with an EOI
     * (a bogus segment length) is damage like any other, refused only in strict mode. */
    int code = cinfo->err->msg_code;
    int cut_short = code == JWRN_JPEG_EOF && !fic_jpeg_input_ends_with_eoi(decoder);
    if (cut_short || (decoder->strict && is_damaging_warning(decoder, code))) {
        fic_jpeg_record_error(decoder, cinfo->err->msg_code);
        longjmp(decoder->jump, 1);
    }
    keep_warning(decoder);
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

const char *fic_jpeg_warning_message(const fic_jpeg_decoder *decoder, int index) {
    if (index < 0 || index >= decoder->kept_warnings) {
        return NULL;
    }
    return decoder->warning_text[index];
}
