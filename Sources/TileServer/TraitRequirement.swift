#if !Server
// The TileServer product is compiled only with FastImageCache's package trait "Server": an application
// that leaves the trait off gets this one error, naming it, rather than a missing module.
#error(
    "The TileServer product needs FastImageCache's package trait \"Server\": depend on the package with traits: [.defaults] (every trait) or traits: [\"Server\"]."
)
#endif
