#if !Tool
// fic-selftest-sharer is compiled only with the package trait "Tool" (on by default): a build that leaves
// it off gets this one error, naming it, rather than a missing module.
#error(
    "fic-selftest-sharer needs the package trait \"Tool\" (on by default): build without --disable-default-traits, or with --traits Tool.")
#endif
