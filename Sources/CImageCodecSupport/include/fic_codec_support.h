#ifndef FIC_CODEC_SUPPORT_H
#define FIC_CODEC_SUPPORT_H
/* Placeholder; the JPEG support functions are declared here. */
int fic_codec_support_version(void);
#endif
