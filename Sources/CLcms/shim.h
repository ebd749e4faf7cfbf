#ifndef FIC_CLCMS_SHIM_H
#define FIC_CLCMS_SHIM_H
#include <lcms2.h>

/*
 * lcms2's TYPE_* pixel formats are macros built from shifted bit fields, which Swift cannot
 * import; the ones the colour engine uses are re-exported here as constants.
 * The *_PREMUL formats are left out on purpose: lcms2 2.14 gets their colours wrong in optimised
 * transforms (Little-CMS issue #605), so colour is converted before premultiplying.
 */
static const cmsUInt32Number FIC_TYPE_BGRA_8 = TYPE_BGRA_8;
static const cmsUInt32Number FIC_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number FIC_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number FIC_TYPE_RGBA_16 = TYPE_RGBA_16;
static const cmsUInt32Number FIC_TYPE_RGB_16 = TYPE_RGB_16;
static const cmsUInt32Number FIC_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number FIC_TYPE_GRAYA_8 = TYPE_GRAYA_8;
static const cmsUInt32Number FIC_TYPE_GRAY_16 = TYPE_GRAY_16;
static const cmsUInt32Number FIC_TYPE_GRAYA_16 = TYPE_GRAYA_16;
static const cmsUInt32Number FIC_TYPE_GRAY_FLT = TYPE_GRAY_FLT;
static const cmsUInt32Number FIC_TYPE_RGB_FLT = TYPE_RGB_FLT;
static const cmsUInt32Number FIC_TYPE_CMYK_8 = TYPE_CMYK_8;
static const cmsUInt32Number FIC_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;

#endif
