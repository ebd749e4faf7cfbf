#ifndef FIC_CTIFF_SHIM_H
#define FIC_CTIFF_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>
#endif
