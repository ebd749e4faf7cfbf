#include "fic_tile_support.h"

#include <zlib.h>

size_t fic_tile_deflate_bound(size_t length) {
    return (size_t)compressBound((uLong)length);
}

int fic_tile_deflate(const uint8_t *source, size_t length, uint8_t *destination, size_t *destination_length, int level) {
    uLongf produced = (uLongf)*destination_length;
    int rc = compress2(destination, &produced, source, (uLong)length, level);
    *destination_length = (size_t)produced;
    return rc == Z_OK ? 0 : -1;
}

int fic_tile_inflate(const uint8_t *source, size_t length, uint8_t *destination, size_t capacity, size_t *produced) {
    z_stream stream = {0};
    *produced = 0;
    if (inflateInit(&stream) != Z_OK) return -1;
    stream.next_in = (Bytef *)source;
    stream.avail_in = (uInt)length;
    stream.next_out = destination;
    stream.avail_out = (uInt)capacity;
    int rc = inflate(&stream, Z_FINISH);
    *produced = capacity - stream.avail_out;
    inflateEnd(&stream);
    /* A stream that fills the tile exactly may still report Z_BUF_ERROR when its end marker
     * would need more output space; a complete tile is all a reader needs. */
    if (rc == Z_STREAM_END) return 0;
    if (rc == Z_BUF_ERROR && stream.avail_out == 0) return 0;
    return -1;
}
