#if !Tool
// fic-bench's command line is compiled only with the package trait "Tool" (on by default), like
// fic's: a build that leaves it off gets this one error, naming it, rather than a missing module.
#error("fic-bench needs the package trait \"Tool\" (on by default): build without --disable-default-traits, or with --traits Tool.")
#endif
