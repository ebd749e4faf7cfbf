/*
 * Source manager. With end_of_input unset, fill_input_buffer returns FALSE (libjpeg suspends and
 * keeps next_input_byte where it must resume); appended bytes go after the unconsumed ones. Once
 * the end of input is declared, running dry is premature end of data: a warning that the error
 * manager turns into an error when the file was cut short (it does not end with an EOI), and
 * otherwise treats as damage (a segment length that runs past the end), then a fake EOI.
 */
#include <stdlib.h>
#include <string.h>

#include "jpeg_internal.h"

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void init_source(j_decompress_ptr cinfo) {
    (void)cinfo;
}

static void insert_fake_eoi(fic_jpeg_decoder *decoder) {
    decoder->hit_end_of_input = 1;
    WARNMS(&decoder->cinfo, JWRN_JPEG_EOF); /* longjmps: see on_emit_message */
    decoder->source.next_input_byte = fake_eoi;
    decoder->source.bytes_in_buffer = sizeof(fake_eoi);
}

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    if (!decoder->end_of_input) {
        return FALSE;
    }
    insert_fake_eoi(decoder);
    return TRUE;
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    fic_jpeg_decoder *decoder = (fic_jpeg_decoder *)cinfo->client_data;
    if (count <= 0) {
        return;
    }
    size_t wanted = (size_t)count;
    if (wanted <= decoder->source.bytes_in_buffer) {
        decoder->source.next_input_byte += wanted;
        decoder->source.bytes_in_buffer -= wanted;
        return;
    }
    wanted -= decoder->source.bytes_in_buffer;
    decoder->source.next_input_byte += decoder->source.bytes_in_buffer;
    decoder->source.bytes_in_buffer = 0;
    if (decoder->end_of_input) {
        insert_fake_eoi(decoder);
    } else {
        decoder->skip_pending += wanted; /* skipped from the next appended bytes */
    }
}

static void term_source(j_decompress_ptr cinfo) {
    (void)cinfo;
}

void fic_jpeg_install_source(fic_jpeg_decoder *decoder) {
    decoder->source.init_source = init_source;
    decoder->source.fill_input_buffer = fill_input_buffer;
    decoder->source.skip_input_data = skip_input_data;
    decoder->source.resync_to_restart = jpeg_resync_to_restart;
    decoder->source.term_source = term_source;
    decoder->source.next_input_byte = NULL;
    decoder->source.bytes_in_buffer = 0;
    decoder->cinfo.src = &decoder->source;
}

/* Keeps the last FIC_JPEG_TAIL_BYTES bytes of everything given. */
static void remember_tail(fic_jpeg_decoder *decoder, const JOCTET *bytes, size_t length) {
    if (length >= FIC_JPEG_TAIL_BYTES) {
        memcpy(decoder->tail, bytes + length - FIC_JPEG_TAIL_BYTES, FIC_JPEG_TAIL_BYTES);
        decoder->tail_length = FIC_JPEG_TAIL_BYTES;
        return;
    }
    size_t keep = decoder->tail_length + length > FIC_JPEG_TAIL_BYTES ? FIC_JPEG_TAIL_BYTES - length : decoder->tail_length;
    memmove(decoder->tail, decoder->tail + decoder->tail_length - keep, keep);
    memcpy(decoder->tail + keep, bytes, length);
    decoder->tail_length = keep + length;
}

int fic_jpeg_input_ends_with_eoi(const fic_jpeg_decoder *decoder) {
    for (size_t i = 0; i + 1 < decoder->tail_length; i++) {
        if (decoder->tail[i] == 0xFF && decoder->tail[i + 1] == JPEG_EOI) {
            return 1;
        }
    }
    return 0;
}

void fic_jpeg_set_input(fic_jpeg_decoder *decoder, const void *data, size_t length) {
    remember_tail(decoder, (const JOCTET *)data, length);
    decoder->borrowed = (const JOCTET *)data;
    decoder->source.next_input_byte = (const JOCTET *)data;
    decoder->source.bytes_in_buffer = length;
    decoder->end_of_input = 1;
}

int fic_jpeg_append_input(fic_jpeg_decoder *decoder, const void *data, size_t length) {
    if (decoder->borrowed != NULL || decoder->end_of_input) {
        return -1;
    }
    const JOCTET *bytes = (const JOCTET *)data;
    remember_tail(decoder, bytes, length);
    size_t skip = decoder->skip_pending < length ? decoder->skip_pending : length;
    decoder->skip_pending -= skip;
    bytes += skip;
    length -= skip;
    if (length == 0) {
        return 0;
    }
    size_t remaining = decoder->source.bytes_in_buffer;
    size_t offset = 0;
    if (decoder->source.next_input_byte != NULL && decoder->buffer != NULL) {
        offset = (size_t)(decoder->source.next_input_byte - decoder->buffer);
    }
    if (remaining > 0 && offset > 0) {
        memmove(decoder->buffer, decoder->buffer + offset, remaining);
    }
    if (length > SIZE_MAX - remaining) {
        return -1;
    }
    size_t needed = remaining + length;
    if (needed > decoder->buffer_capacity) {
        size_t capacity = decoder->buffer_capacity ? decoder->buffer_capacity : 4096;
        while (capacity < needed) {
            capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
        }
        JOCTET *grown = (JOCTET *)realloc(decoder->buffer, capacity);
        if (grown == NULL) {
            return -1;
        }
        decoder->buffer = grown;
        decoder->buffer_capacity = capacity;
    }
    memcpy(decoder->buffer + remaining, bytes, length);
    decoder->source.next_input_byte = decoder->buffer;
    decoder->source.bytes_in_buffer = needed;
    return 0;
}

void fic_jpeg_set_end_of_input(fic_jpeg_decoder *decoder) {
    decoder->end_of_input = 1;
}

size_t fic_jpeg_buffered_bytes(const fic_jpeg_decoder *decoder) {
    return decoder->source.bytes_in_buffer;
}

const uint8_t *fic_jpeg_buffered_data(const fic_jpeg_decoder *decoder) {
    return decoder->source.bytes_in_buffer > 0 ? decoder->source.next_input_byte : NULL;
}
