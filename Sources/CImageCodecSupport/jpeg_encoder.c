/* Baseline JPEG encoding of 32-bit BGRX rows (libjpeg-turbo's JCS_EXT_BGRX: no conversion pass),
 * into memory libjpeg allocates. libjpeg's errors longjmp back here, as the decoder's do. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

#include "fic_codec_support.h"

struct encoder_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
};

static void on_encoder_error(j_common_ptr cinfo) {
    struct encoder_error *error = (struct encoder_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    strncpy(error->message, text, FIC_JPEG_ENCODE_MESSAGE_LENGTH - 1);
    error->message[FIC_JPEG_ENCODE_MESSAGE_LENGTH - 1] = '\0';
    longjmp(error->jump, 1);
}

/* Installs `steps` (natural order) as quantisation table `slot`, exactly (scale 100%, clamped to
 * baseline's 1-255). */
static void set_table(struct jpeg_compress_struct *cinfo, int slot, const uint16_t *steps) {
    unsigned int table[DCTSIZE2];
    for (int i = 0; i < DCTSIZE2; i++) table[i] = steps[i];
    jpeg_add_quant_table(cinfo, slot, table, 100, TRUE);
}

/* Copies table `index` of `huffman` into libjpeg's table `table`. */
static void set_huffman(JHUFF_TBL *table, const fic_jpeg_huffman *huffman, int index) {
    memcpy(table->bits, huffman->bits[index], sizeof(table->bits));
    memset(table->huffval, 0, sizeof(table->huffval));
    memcpy(table->huffval, huffman->values[index], (size_t)huffman->counts[index]);
    table->sent_table = FALSE;
}

/* JPEG's example chrominance table (Annex K, table K.2), in natural order: the table libjpeg
 * scales by quality, scaled here for a chroma quality of its own. */
static const unsigned int k2_chrominance[DCTSIZE2] = {
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

int fic_jpeg_encode_bgrx(const uint8_t *pixels, int width, int height, size_t bytes_per_row, int quality,
                         int chroma_quality, const uint16_t *luma_table, const uint16_t *chroma_table, int optimize,
                         const fic_jpeg_huffman *huffman, unsigned char **out, unsigned long *out_size,
                         char *message) {
    struct jpeg_compress_struct cinfo;
    struct encoder_error error;
    /* volatile: read after a longjmp. */
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    message[0] = '\0';
    *out = NULL;
    *out_size = 0;
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = on_encoder_error;
    error.message = message;
    if (setjmp(error.jump) != 0) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return 1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_BGRX;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (chroma_quality >= 1 && chroma_quality <= 100 && chroma_quality != quality)
        jpeg_add_quant_table(&cinfo, 1, k2_chrominance, jpeg_quality_scaling(chroma_quality), TRUE);
    /* jpeg_set_defaults gives component 0 table 0 and the chroma components table 1. */
    if (luma_table != NULL) set_table(&cinfo, 0, luma_table);
    if (chroma_table != NULL) set_table(&cinfo, 1, chroma_table);
    cinfo.optimize_coding = optimize ? TRUE : FALSE;
    if (!optimize && huffman != NULL) {
        /* jpeg_set_defaults gives the luma component tables 0, the chroma ones tables 1. */
        set_huffman(cinfo.dc_huff_tbl_ptrs[0], huffman, 0);
        set_huffman(cinfo.dc_huff_tbl_ptrs[1], huffman, 1);
        set_huffman(cinfo.ac_huff_tbl_ptrs[0], huffman, 2);
        set_huffman(cinfo.ac_huff_tbl_ptrs[1], huffman, 3);
    }
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * bytes_per_row);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = size;
    return 0;
}
