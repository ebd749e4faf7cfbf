// SDL2's types and constants for `fic view` (Debian: libsdl2-dev). The module links nothing:
// the viewer loads libSDL2 when it opens its first window (Sources/fic/View/Window/SDL.swift).
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>
