// OpenSSL's libcrypto (Debian: libssl-dev for the headers, libssl3 for the library, which every
// Debian system has): SHA-256 only, through the EVP interface (FICCore's SHA256Hex.swift).
#ifndef FIC_CCRYPTO_SHIM_H
#define FIC_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
