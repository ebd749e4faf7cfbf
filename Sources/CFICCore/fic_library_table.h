#ifndef FIC_LIBRARY_TABLE_H
#define FIC_LIBRARY_TABLE_H
/* A table of a shared library's functions, loaded with dlopen when first needed instead of linked
   (FICCore's SharedLibrary.functions). A shim lists the functions in an X-macro and declares:

       FIC_TABLE_STRUCT(fic_x_functions, FIC_X_FUNCTIONS)
       FIC_TABLE_LOADER(fic_x_load, fic_x_functions, FIC_X_FUNCTIONS)

   Each field has the type of the header's own declaration (__typeof__), so a call through the
   table is checked as a direct call is; the loader returns the name of the first function the
   library lacks, or NULL.

   Outside CFICCore's public headers on purpose: the shims of the system-library modules
   (Sources/CHeif, CJxl, CSDL2) include it by its path, as text, so its macros reach them. */
#include <dlfcn.h>

#define FIC_TABLE_FIELD(name) __typeof__(&name) _Nonnull name;
#define FIC_TABLE_LOAD(name) if ((table->name = (__typeof__(&name))dlsym(handle, #name)) == NULL) return #name;

/* `struct name`, a field per function of LIST. */
#define FIC_TABLE_STRUCT(name, LIST) struct name { LIST(FIC_TABLE_FIELD) };

/* `loader(handle, table)`: fills the functions of LIST from the loaded library `handle`. */
#define FIC_TABLE_LOADER(loader, name, LIST) \
    static inline const char *_Nullable loader(void *_Nonnull handle, struct name *_Nonnull table) { \
        LIST(FIC_TABLE_LOAD) \
        return NULL; \
    }

#endif
