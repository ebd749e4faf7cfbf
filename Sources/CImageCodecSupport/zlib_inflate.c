/*
 * One whole zlib stream inflated into memory, with a ceiling: a PNG iCCP chunk's profile is a few
 * kilobytes compressed, but a hostile one can inflate a thousandfold, so output stops at a limit
 * instead of growing with whatever the stream says.
 */
#include <stdlib.h>
#include <zlib.h>

#include "fic_color_support.h"

fic_inflate_status fic_zlib_inflate(const void *source, size_t length, size_t limit,
                                    uint8_t **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    z_stream stream = { 0 };
    if (inflateInit(&stream) != Z_OK) {
        return FIC_INFLATE_MEMORY;
    }
    size_t capacity = length * 4 + 1024;
    if (capacity > limit || capacity < length) {
        capacity = limit;
    }
    uint8_t *buffer = (uint8_t *)malloc(capacity > 0 ? capacity : 1);
    fic_inflate_status status = FIC_INFLATE_OK;
    size_t filled = 0;
    const uint8_t *next = (const uint8_t *)source;
    size_t remaining = length;
    while (buffer != NULL) {
        if (stream.avail_in == 0 && remaining > 0) {
            uInt chunk = remaining > 0x40000000u ? 0x40000000u : (uInt)remaining;
            stream.next_in = (Bytef *)next;
            stream.avail_in = chunk;
            next += chunk;
            remaining -= chunk;
        }
        if (filled == capacity) {
            if (capacity >= limit) {
                status = FIC_INFLATE_TOO_LARGE;
                break;
            }
            size_t larger = capacity * 2 < limit ? capacity * 2 : limit;
            uint8_t *grown = (uint8_t *)realloc(buffer, larger);
            if (grown == NULL) {
                status = FIC_INFLATE_MEMORY;
                break;
            }
            buffer = grown;
            capacity = larger;
        }
        size_t room = capacity - filled;
        stream.next_out = buffer + filled;
        stream.avail_out = room > 0x40000000u ? 0x40000000u : (uInt)room;
        uInt before = stream.avail_out;
        int result = inflate(&stream, Z_NO_FLUSH);
        filled += before - stream.avail_out;
        if (result == Z_STREAM_END) {
            break;
        }
        if (result == Z_NEED_DICT || result == Z_DATA_ERROR || result == Z_STREAM_ERROR) {
            status = FIC_INFLATE_CORRUPT;
            break;
        }
        if (result == Z_MEM_ERROR) {
            status = FIC_INFLATE_MEMORY;
            break;
        }
        if (result == Z_BUF_ERROR && stream.avail_in == 0 && remaining == 0 && stream.avail_out > 0) {
            status = FIC_INFLATE_TRUNCATED; /* no progress possible: the input ended early */
            break;
        }
    }
    inflateEnd(&stream);
    if (buffer == NULL) {
        return FIC_INFLATE_MEMORY;
    }
    if (status != FIC_INFLATE_OK) {
        free(buffer);
        return status;
    }
    *output = buffer;
    *output_length = filled;
    return FIC_INFLATE_OK;
}
