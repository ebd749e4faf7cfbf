#ifndef FIC_CLIBJPEG_SHIM_H
#define FIC_CLIBJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#endif
