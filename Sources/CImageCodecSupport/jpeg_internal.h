/* Private layout of fic_jpeg_decoder, shared by the files of this target. */
#ifndef FIC_JPEG_INTERNAL_H
#define FIC_JPEG_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

#include "fic_codec_support.h"

/* How many warning texts a decoder keeps. */
#define FIC_JPEG_KEPT_WARNINGS 4

struct fic_memory_mgr;

/* How many of the input's last bytes are searched for an end-of-image marker. */
#define FIC_JPEG_TAIL_BYTES 32

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
    /* The last bytes of all the input given, to tell a file cut short from one whose damage
     * (a segment length past the end) runs into its end: only the second ends with an EOI. */
    JOCTET tail[FIC_JPEG_TAIL_BYTES];
    size_t tail_length;


    /* Output alongside the final scan of a progressive JPEG (jpeg_overlap.c). */
    int overlap_final_scan;
    int overlap_decompressing; /* jpeg_start_decompress has returned, in buffered-image mode */
    int overlap_output;        /* the final scan (or the end of the file) has been reached */
    int overlap_output_done;   /* jpeg_finish_output has returned */

    /* File-backed coefficient arrays (jpeg_coefficient_file.c), or NULL. */
    void *coefficient_file;
    /* The texts of the first recoverable warnings, for logging (jpeg_errors.c). */
    int kept_warnings;
    char warning_text[FIC_JPEG_KEPT_WARNINGS][JMSG_LENGTH_MAX];
    /* The memory manager that maps large buffers (jpeg_memory.c), or NULL. */
    struct fic_memory_mgr *memory;
};

/* Whether the input given so far ends with an end-of-image marker (padding after it allowed). */
int fic_jpeg_input_ends_with_eoi(const fic_jpeg_decoder *decoder);

/* Installs the source manager (jpeg_source.c). */
void fic_jpeg_install_source(fic_jpeg_decoder *decoder);

/* Records a libjpeg message as the decoder's error (jpeg_errors.c). */
void fic_jpeg_record_error(fic_jpeg_decoder *decoder, int message_code);
/* Installs the error manager that longjmps to decoder->jump (jpeg_errors.c). */
void fic_jpeg_install_error_manager(fic_jpeg_decoder *decoder);

/* Puts the mapping memory manager in front of libjpeg's own, after jpeg_create_decompress (jpeg_memory.c). */
void fic_jpeg_install_memory_manager(fic_jpeg_decoder *decoder);
/* Points cinfo->mem at the mapping manager again before jpeg_destroy_decompress (an error inside a
 * call it delegated can leave libjpeg's own there), so that its self_destruct, and every hook on it,
 * runs: it unmaps what it mapped, then destroys libjpeg's manager. */
void fic_jpeg_reinstate_memory_manager(fic_jpeg_decoder *decoder);

/* Tells the coefficient file that the output pass now running is the last pass over the
 * coefficients: rows it has left behind are not needed again (jpeg_coefficient_file.c). */
void fic_jpeg_coefficient_file_final_pass(fic_jpeg_decoder *decoder);

/* fic_jpeg_start and fic_jpeg_finish when overlap_final_scan is set (jpeg_overlap.c); called
 * inside the caller's setjmp guard. */
fic_jpeg_status fic_jpeg_start_overlapped(fic_jpeg_decoder *decoder);
fic_jpeg_status fic_jpeg_finish_overlapped(fic_jpeg_decoder *decoder);

/* The first statement of every entry point that calls libjpeg: a decoder that failed stays
 * failed, and a libjpeg error (its error_exit longjmps here) returns FIC_JPEG_ERROR from the
 * entry point itself, so no longjmp crosses a frame of another function. A macro, not a
 * function: setjmp must run in the frame it protects. */
#define FIC_JPEG_GUARD(decoder)             \
    do {                                    \
        if ((decoder)->failed) {            \
            return FIC_JPEG_ERROR;          \
        }                                   \
        if (setjmp((decoder)->jump) != 0) { \
            return FIC_JPEG_ERROR;          \
        }                                   \
    } while (0)

#endif
