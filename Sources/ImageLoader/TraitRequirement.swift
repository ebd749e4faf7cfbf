#if !Loader
// The ImageLoader product is compiled only with FastImageCache's package trait "Loader": an application
// that leaves the trait off gets this one error, naming it, rather than a missing module.
#error(
    "The ImageLoader product needs FastImageCache's package trait \"Loader\": depend on the package with traits: [.defaults] (every trait) or traits: [\"Loader\"]."
)
#endif
