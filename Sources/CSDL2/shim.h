// SDL2's types and constants for `fic view` (Debian: libsdl2-dev).
//
// The module links nothing: the viewer loads libSDL2 when it opens its first window
// (Sources/fic/View/Window/SDL.swift), so that no other command pays at start for loading it and
// the forty-odd libraries it needs. The header gives the types; the functions come through
// `struct fic_sdl_functions`, whose fields have the header's own types.
#define SDL_MAIN_HANDLED 1
#include "../CFICCore/fic_library_table.h"
#include <SDL2/SDL.h>

#define FIC_SDL_FUNCTIONS(X) \
    X(SDL_SetHint) \
    X(SDL_LogSetOutputFunction) \
    X(SDL_Init) \
    X(SDL_Quit) \
    X(SDL_GetError) \
    X(SDL_GetCurrentVideoDriver) \
    X(SDL_CreateWindow) \
    X(SDL_DestroyWindow) \
    X(SDL_GetWindowSurface) \
    X(SDL_UpdateWindowSurface) \
    X(SDL_CreateRGBSurfaceWithFormat) \
    X(SDL_FreeSurface) \
    X(SDL_UpperBlit) \
    X(SDL_PollEvent) \
    X(SDL_GetMouseState)

/* Every function the viewer calls, with the header's type, and their loader. */
FIC_TABLE_STRUCT(fic_sdl_functions, FIC_SDL_FUNCTIONS)
FIC_TABLE_LOADER(fic_sdl_load, fic_sdl_functions, FIC_SDL_FUNCTIONS)
