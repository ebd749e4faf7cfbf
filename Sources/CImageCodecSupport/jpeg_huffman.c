/* Huffman tables for JPEG tiles like one whose tables libjpeg made for it: a tile encoded with
 * optimize_coding gives the tables its neighbours are then encoded with, which keeps nearly all
 * of the optimisation's saving (on 256 x 256 tiles of photos: 14.7 % where every tile optimised
 * saved 15.8 %) without its second pass over every tile's coefficients. */
#include <string.h>

#include "fic_codec_support.h"

/* The frequency given to a symbol the example never used: as if its code were 13 bits long. */
enum { UNSEEN_FREQUENCY = 8 };

/* Whether baseline JPEG can code `symbol` in a DC (category 0-11) or an AC table (end of block,
 * a run of 16 zeros, or a run of 0-15 zeros then a size of 1-10 bits). */
static int codable(int symbol, int ac) {
    if (!ac) return symbol <= 11;
    return symbol == 0x00 || symbol == 0xF0 || ((symbol & 15) >= 1 && (symbol & 15) <= 10);
}

/* The optimal table of `frequency` (every count > 0 is a symbol), codes at most 16 bits long and
 * none all ones: the procedure of JPEG's Annex K.2, as libjpeg's own optimisation runs it.
 * Returns -1 if a code would pass 32 bits before the lengths are limited (it cannot for
 * frequencies taken from a table's code lengths, whose sum Kraft's inequality bounds). */
static int optimal_table(const long frequency[256], uint8_t bits_out[17], uint8_t values[256], int *count) {
    long f[257];
    int size[257], next[257];
    memcpy(f, frequency, sizeof(long) * 256);
    f[256] = 1; /* a reserved symbol: no real code is all ones */
    for (int i = 0; i < 257; i++) {
        size[i] = 0;
        next[i] = -1;
    }
    for (;;) {
        int c1 = -1, c2 = -1;
        long v = -1;
        for (int i = 0; i < 257; i++)
            if (f[i] > 0 && (v < 0 || f[i] <= v)) {
                v = f[i];
                c1 = i;
            }
        v = -1;
        for (int i = 0; i < 257; i++)
            if (f[i] > 0 && i != c1 && (v < 0 || f[i] <= v)) {
                v = f[i];
                c2 = i;
            }
        if (c2 < 0) break;
        f[c1] += f[c2];
        f[c2] = 0;
        size[c1]++;
        while (next[c1] >= 0) {
            c1 = next[c1];
            size[c1]++;
        }
        next[c1] = c2;
        size[c2]++;
        while (next[c2] >= 0) {
            c2 = next[c2];
            size[c2]++;
        }
    }
    int bits[33] = {0};
    for (int i = 0; i < 257; i++) {
        if (size[i] > 32) return -1;
        if (size[i] > 0) bits[size[i]]++;
    }
    /* Codes longer than 16 bits: moved up the tree (Annex K.3). */
    for (int i = 32; i > 16; i--) {
        while (bits[i] > 0) {
            int j = i - 2;
            while (bits[j] == 0) j--;
            bits[i] -= 2;
            bits[i - 1]++;
            bits[j + 1] += 2;
            bits[j]--;
        }
    }
    int longest = 16;
    while (bits[longest] == 0) longest--;
    bits[longest]--; /* the reserved symbol's code */
    memset(bits_out, 0, 17);
    for (int i = 1; i <= 16; i++) bits_out[i] = (uint8_t)bits[i];
    int n = 0;
    for (int length = 1; length <= 32; length++)
        for (int symbol = 0; symbol < 256; symbol++)
            if (size[symbol] == length) values[n++] = (uint8_t)symbol;
    *count = n;
    return 0;
}

int fic_jpeg_huffman_from_jpeg(const uint8_t *jpeg, size_t length, fic_jpeg_huffman *out) {
    long frequency[4][256];
    int seen[4] = {0};
    memset(frequency, 0, sizeof(frequency));
    size_t i = 2;
    while (length >= 4 && i + 4 <= length && jpeg[i] == 0xFF) {
        int marker = jpeg[i + 1];
        size_t segment = (size_t)jpeg[i + 2] << 8 | jpeg[i + 3];
        if (marker == 0xDA || segment < 2 || i + 2 + segment > length) break;
        if (marker == 0xC4) {
            size_t j = i + 4, end = i + 2 + segment;
            while (j + 17 <= end) {
                int class_ = jpeg[j] >> 4, id = jpeg[j] & 15;
                size_t count = 0;
                for (int k = 1; k <= 16; k++) count += jpeg[j + k];
                if (class_ > 1 || id > 1 || count > 256 || j + 17 + count > end) return -1;
                int table = class_ * 2 + id;
                size_t symbol = 0;
                for (int bits = 1; bits <= 16; bits++)
                    for (int c = 0; c < jpeg[j + bits]; c++, symbol++)
                        frequency[table][jpeg[j + 17 + symbol]] = 1L << (16 - bits);
                seen[table] = 1;
                j += 17 + count;
            }
        }
        i += 2 + segment;
    }
    if (!seen[0] || !seen[1] || !seen[2] || !seen[3]) return -1;
    for (int table = 0; table < 4; table++) {
        for (int symbol = 0; symbol < 256; symbol++) {
            if (!codable(symbol, table >= 2))
                frequency[table][symbol] = 0;
            else if (frequency[table][symbol] < UNSEEN_FREQUENCY)
                frequency[table][symbol] = UNSEEN_FREQUENCY;
        }
        if (optimal_table(frequency[table], out->bits[table], out->values[table], &out->counts[table]) != 0) return -1;
    }
    return 0;
}
