/* Private layout of fic_jpeg_decoder, shared by the files of this target. */
#ifndef FIC_JPEG_INTERNAL_H
#define FIC_JPEG_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

#include "fic_codec_support.h"

struct fic_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr error_manager;
    struct jpeg_source_mgr source;
    jmp_buf jump;

    int strict;
    int failed;
    fic_jpeg_error_kind error_kind;
    char message[JMSG_LENGTH_MAX + 32];
    int warnings;

    /* Input: either borrowed (one-shot) or owned and growing (incremental). */
    const JOCTET *borrowed;
    JOCTET *buffer;
    size_t buffer_capacity;
    size_t skip_pending;
    int end_of_input;
    int hit_end_of_input;

    int convert_cmyk;
    int cmyk_inverted;

    /* File-backed coefficient arrays (jpeg_coefficient_file.c), or NULL. */
    void *coefficient_file;
};

/* Installs the source manager (jpeg_source.c). */
void fic_jpeg_install_source(fic_jpeg_decoder *decoder);

/* Records a libjpeg message as the decoder's error (jpeg_errors.c). */
void fic_jpeg_record_error(fic_jpeg_decoder *decoder, int message_code);
/* Installs the error manager that longjmps to decoder->jump (jpeg_errors.c). */
void fic_jpeg_install_error_manager(fic_jpeg_decoder *decoder);

#endif
