// SDL2 for `fic view`: a window, its surface and input events (Debian: libsdl2-dev).
#define SDL_MAIN_HANDLED 1
#include <SDL.h>
