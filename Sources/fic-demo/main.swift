#if Tool
import FICCommandLine
import FICDemo
import FastImageCache

// `fic demo` alone, for scripts/demo: it builds in a fraction of fic's time (no HTTP client,
// no server, no viewer), so that a newcomer sees the demo within minutes of cloning.
ImageCache.returnFreedMemoryPromptly()
await ExitStatus.main(DemoCommand.self)
#else
#error("fic-demo needs the package trait \"Tool\" (on by default): build without --disable-default-traits, or with --traits Tool.")
#endif
