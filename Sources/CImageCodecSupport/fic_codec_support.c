#include "fic_codec_support.h"
int fic_codec_support_version(void) { return 1; }
