// swift-tools-version:6.1
import PackageDescription

// Package traits (SE-0450) let an application take only what it uses. Without any trait
// (`.package(url: …, from: …, traits: [])`) the package decodes JPEG, PNG and WebP, builds only
// the libraries its products need, and SwiftPM leaves every package that only a disabled trait
// uses out of the application's resolution: a FastImageCache-only application resolves swift-log
// and swift-system, nothing else. `swift build` in this checkout enables every trait (the default).
let formatTraits: Set<String> = ["HEIF", "JPEGXL", "GIF", "TIFF", "ColorManagement"]

let package = Package(
    name: "FastImageCache",
    products: [
        .library(name: "FastImageCache", targets: ["FastImageCache"]),
        .library(name: "ImageTable", targets: ["ImageTable"]),
        .library(name: "ImageCodec", targets: ["ImageCodec"]),
        .library(name: "TiledImage", targets: ["TiledImage"]),
        .library(name: "ImageLoader", targets: ["ImageLoader"]),
        .library(name: "TileServer", targets: ["TileServer"]),
        .executable(name: "fic", targets: ["fic"]),
        .executable(name: "fic-demo", targets: ["fic-demo"]),
        .executable(name: "fic-bench", targets: ["fic-bench"]),
        .executable(name: "fic-fuzz", targets: ["fic-fuzz"])
    ],
    traits: [
        .trait(
            name: "HEIF",
            description:
                "HEIC and AVIF images and AVIF sequences (libheif and libavif, loaded when a file needs them; headers: Debian libheif-dev, libavif-dev)."
        ),
        .trait(name: "JPEGXL", description: "JPEG XL images (libjxl 0.7, loaded when a file needs it; headers: Debian libjxl-dev)."),
        .trait(name: "GIF", description: "GIF images and animations (giflib; Debian libgif-dev)."),
        .trait(name: "TIFF", description: "TIFF and BigTIFF images, pyramidal TIFFs read by level (libtiff; Debian libtiff-dev)."),
        .trait(
            name: "ColorManagement",
            description:
                "Embedded ICC profiles, CMYK profiles and PNG's colour chunks converted to sRGB (LittleCMS 2; Debian liblcms2-dev). Without it, pixels are taken as sRGB and a warning says a profile was ignored."
        ),
        .trait(
            name: "Loader",
            description:
                "The ImageLoader product: originals over http(s) (AsyncHTTPClient, SwiftNIO), a disk cache of originals, remote tiled images."
        ),
        .trait(name: "Server", description: "The TileServer product: pyramids served over IIIF Image API 3 and Deep Zoom (Hummingbird)."),
        .trait(
            name: "Tool",
            description:
                "The fic command-line tool and viewer (swift-argument-parser; SDL2's header, Debian libsdl2-dev). Turns on every other trait.",
            enabledTraits: formatTraits.union(["Loader", "Server"])
        ),
        .default(enabledTraits: formatTraits.union(["Loader", "Server", "Tool"]))
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // None of Hummingbird's traits: the tile server reads no swift-configuration settings and
        // decodes no URL-encoded forms, and without them swift-configuration's modules are not
        // compiled (48 files in each of the test command's three builds). An application that
        // wants them enables them on its own dependency on Hummingbird.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1")
    ],
    targets: [
        // C libraries, found with pkg-config. Each format beyond JPEG, PNG and WebP is behind the
        // trait of the same name, so that an application without it needs neither its library
        // nor its headers.
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CSpng", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // SHA-256 (keys, content versions, cache entry names) from the system's OpenSSL libcrypto,
        // which every Debian system has: no copy of a TLS library is compiled for a digest.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        // LittleCMS, the colour engine's ICC profiles and transforms.
        .systemLibrary(name: "CLcms", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // libjxl and its thread pool, HEIC (HEVC through libde265) and AVIF (AV1 through dav1d),
        // the codecs built into Debian's libheif, and libavif 0.11 for AVIF sequences, which
        // libheif 1.15 reads only as still images: headers only (in /usr/include). ImageCodec loads
        // these libraries when it first opens such a file (CodecLibraries.swift), so no pkg-config
        // here: its flags would link them, and the dozen libraries they need, into every process.
        .systemLibrary(name: "CJxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CAvif", providers: [.apt(["libavif-dev"])]),
        // A desktop window for `fic view` (Debian: libsdl2-dev): SDL2's header only. The viewer
        // loads libSDL2 when it opens a window, so no pkg-config here: its flags would link SDL2,
        // and with it some forty libraries, into every start of every command.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        // setjmp/longjmp error handling and source managers for libjpeg, which Swift cannot do itself;
        // mapped allocators; the PNG image-data inflater (zlib, Debian: zlib1g-dev).
        .target(name: "CImageCodecSupport", dependencies: ["CLibJPEG", "CFICCore"], linkerSettings: [.linkedLibrary("z")]),
        // libtiff's variadic tag calls, message handlers and client I/O (the TIFF trait).
        .target(name: "CTIFFSupport", dependencies: ["CTIFF", "CFICCore"]),
        // The tile pyramids' own C: the 2 × 2 box filter, and zlib's deflate for pyramidal TIFF tiles
        // (Debian: zlib1g-dev). No system call (band writes in flight are FICCore's).
        .target(name: "CTileSupport", linkerSettings: [.linkedLibrary("z")]),

        // The lowest layer: the package's one error type, locks, and every system call, wrapped once.
        .target(name: "CFICCore"),
        .target(
            name: "FICCore",
            dependencies: ["CFICCore", "CCrypto", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The storage engine: table files, slots, mapping, index, eviction, durability.
        .target(
            name: "ImageTable",
            dependencies: [
                "FICCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system")
            ]
        ),
        // Decoding JPEG / PNG / WebP, and with their traits HEIC / AVIF / JPEG XL / GIF / TIFF, into
        // cairo-compatible bitmaps, and converting colours to sRGB.
        .target(
            name: "ImageCodec",
            dependencies: [
                "FICCore", "CImageCodecSupport", "CLibJPEG", "CSpng", "CWebP",
                .target(name: "CHeif", condition: .when(traits: ["HEIF"])),
                .target(name: "CAvif", condition: .when(traits: ["HEIF"])),
                .target(name: "CJxl", condition: .when(traits: ["JPEGXL"])),
                .target(name: "CGif", condition: .when(traits: ["GIF"])),
                .target(name: "CTIFF", condition: .when(traits: ["TIFF"])),
                .target(name: "CTIFFSupport", condition: .when(traits: ["TIFF"])),
                .target(name: "CLcms", condition: .when(traits: ["ColorManagement"])),
                .product(name: "SystemPackage", package: "swift-system")
            ]
        ),
        // The public API: formats, entities, the cache, canvases, providers.
        .target(
            name: "FastImageCache",
            dependencies: [
                "FICCore", "ImageTable", "ImageCodec", "CCairo",
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // Huge photographs as zoomable tile pyramids, built while they download; their tiles, and a
        // remote tile service's, kept decoded in an image table (FastImageCache).
        .target(
            name: "TiledImage",
            dependencies: [
                "FICCore", "ImageCodec", "FastImageCache", "CTileSupport", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // Loading originals: http(s) with AsyncHTTPClient and file URLs, a disk cache of originals,
        // and the provider that feeds the cache's lanes. It implements FastImageCache's provider
        // protocol, so it depends on FastImageCache (which never depends on it); remote tiled
        // images (TiledImage's descriptors, tiles kept in a cache) live here too. The Loader trait.
        .target(
            name: "ImageLoader",
            dependencies: [
                "FICCore", "ImageCodec", "FastImageCache", "TiledImage",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Loader"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Loader"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Loader"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Loader"])),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // Serving pyramids over HTTP: the IIIF Image API 3.0 (level 2), Deep Zoom and a viewer page,
        // as routes an application adds to its own Hummingbird router (`fic serve` runs them alone).
        // The Server trait.
        .target(
            name: "TileServer",
            dependencies: [
                "FICCore", "ImageCodec", "TiledImage",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // What fic's commands share (no product ships it alone): exit statuses and errors, the
        // terminal, formatting, the cache options, descriptions and default folder, format specs,
        // the image files of a folder.
        .target(
            name: "FICCommandLine",
            dependencies: [
                "FastImageCache", "ImageCodec", "FICCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"])),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        // The original Fast Image Cache demo, measured: `fic demo`, and `fic-demo` alone, which builds
        // without the network and server packages (what scripts/demo builds).
        .target(
            name: "FICDemo",
            dependencies: [
                "FastImageCache", "ImageCodec", "FICCore", "FICCommandLine", "CCairo",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"]))
            ],
            resources: [.copy("SamplePhotos")]
        ),
        .executableTarget(
            name: "fic-demo",
            dependencies: [
                "FICDemo", "FICCommandLine", "FastImageCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"]))
            ]),
        .executableTarget(
            name: "fic",
            dependencies: [
                "FastImageCache", "TiledImage", "ImageLoader", "TileServer", "FICCore", "ImageCodec",
                "FICCommandLine", "FICDemo", "CCairo", "CSDL2",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"])),
                .product(name: "Logging", package: "swift-log")
            ]
        ),

        // Coverage-guided fuzzing of every parser of outside bytes (scripts/fuzz builds fic-fuzz with
        // libFuzzer and Address Sanitizer): the targets, and libFuzzer's entry points.
        .target(
            name: "FICFuzzing",
            dependencies: [
                "ImageCodec", "ImageTable", "ImageLoader", "TiledImage", "TileServer", "FICCore", "FICHarness",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            path: "Fuzz/FICFuzzing"
        ),
        .executableTarget(name: "fic-fuzz", dependencies: ["FICFuzzing"], path: "Fuzz/fic-fuzz"),

        // Harnesses shared by tests and benchmarks: test patterns, a seeded generator, nginx,
        // a throttled link; and the writer process the crash tests kill, which no product ships.
        .target(name: "FICHarness", dependencies: ["FICCore", "ImageTable"], path: "Harness/FICHarness"),
        // The benchmarks, a library of conformers of its Benchmark protocol, and `fic-bench`, which
        // runs them in release builds: a program of its own, so that `fic` links no harness. The
        // benchmarks that measure fic run the `fic` built beside it.
        .target(
            name: "FICBenchmarks",
            dependencies: [
                "FastImageCache", "ImageTable", "ImageCodec", "TiledImage", "ImageLoader", "FICHarness", "FICCore",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            path: "Benchmarks/FICBenchmarks"
        ),
        .executableTarget(
            name: "fic-bench",
            dependencies: [
                "FICBenchmarks", "FICCommandLine", "FICDemo", "FastImageCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"]))
            ],
            path: "Benchmarks/fic-bench"
        ),
        .executableTarget(
            name: "fic-selftest-sharer",
            dependencies: [
                "FICHarness", "ImageTable", "FICCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"])),
                .product(name: "SystemPackage", package: "swift-system")
            ],
            path: "Harness/SelfTestSharer"
        ),
        .executableTarget(
            name: "fic-selftest-writer",
            dependencies: [
                "FICHarness", "ImageTable",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tool"]))
            ],
            path: "Harness/SelfTestWriter"
        ),

        .testTarget(
            name: "FICCoreTests",
            dependencies: ["FICCore", "FICTestSupport", "FICHarness", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "ImageTableTests",
            dependencies: [
                "ImageTable", "FICCore", "FICTestSupport", "FICHarness", "fic-selftest-writer", "fic-selftest-sharer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system")
            ]),
        // What several test targets share: files the tests write by hand (PNGs byte by byte), waiting for a
        // condition, running tools and `fic` as child processes (with a time limit where a hang is possible).
        .target(
            name: "FICTestSupport", dependencies: ["FICHarness", "FICCore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/FICTestSupport"),
        // CHeif: libheif's encoder writes the files whose thumbnails differ from their images;
        // CJxl: libjxl's own signature check is the sniffer's reference.
        .testTarget(
            name: "ImageCodecTests",
            dependencies: [
                "ImageCodec", "FICCore", "FICTestSupport", "FICHarness", "CHeif", "CJxl",
                .product(name: "SystemPackage", package: "swift-system")
            ],
            // The encoder writes its test files with libheif directly, and libjxl checks the sniffer.
            linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("jxl")]
        ),
        .testTarget(
            name: "FastImageCacheTests", dependencies: ["FastImageCache", "FICCore", "ImageTable", "ImageCodec", "CCairo", "FICTestSupport"]
        ),
        .testTarget(
            name: "TiledImageTests", dependencies: ["TiledImage", "FastImageCache", "ImageCodec", "FICCore", "FICTestSupport", "FICHarness"]
        ),
        .testTarget(
            name: "FicTests",
            dependencies: [
                "fic", "FICCommandLine", "FICDemo", "FastImageCache", "ImageTable", "TiledImage", "ImageCodec", "FICTestSupport",
                "FICHarness"
            ]),
        // The benchmarks' list, their JSON report, and `fic-bench`'s command line (run as a child process).
        // fic-fuzz's targets run for a short smoke time in the test suite (scripts/fuzz searches by coverage).
        .testTarget(name: "FICFuzzingTests", dependencies: ["FICFuzzing", "FICTestSupport", "FICHarness"]),
        .testTarget(name: "FICBenchmarksTests", dependencies: ["FICBenchmarks", "FICTestSupport", "FICHarness", "fic-bench"]),
        .testTarget(
            name: "ImageLoaderTests",
            dependencies: [
                "FICCore", "ImageLoader", "FastImageCache", "TiledImage", "ImageCodec", "FICHarness", "FICTestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Loader"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Loader"]))
            ]
        ),
        .testTarget(
            name: "TileServerTests",
            dependencies: [
                "TileServer", "TiledImage", "FastImageCache", "ImageCodec", "FICCore", "FICTestSupport", "FICHarness",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"]))
            ]
        )
    ]
)

// A build with tests compiles every target of the package, and scripts/test's Thread Sanitizer run
// executes the suites of five test targets only: with FIC_TEST_TARGETS (test targets' names,
// separated by commas) the package keeps those test targets and the targets they need, so that
// build leaves out fic, the benchmarks, the fuzzers and the other suites. A name prefixed with "-"
// is left out (of every target when no name is kept): the Address Sanitizer build does not compile
// the two suites that run under Thread Sanitizer alone. Unset, nothing changes.
if let names = Context.environment["FIC_TEST_TARGETS"] {
    let listed = names.split(separator: ",").map(String.init)
    let left = Set(listed.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
    var kept = Set(listed.filter { !$0.hasPrefix("-") })
    if kept.isEmpty { kept = Set(package.targets.map(\.name)) }
    kept.subtract(left)
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var pending = Array(kept)
    while let name = pending.popLast() {
        for dependency in byName[name]?.dependencies ?? [] {
            switch dependency {
            case .targetItem(let needed, _), .byNameItem(let needed, _):
                if byName[needed] != nil, kept.insert(needed).inserted { pending.append(needed) }
            default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        switch product {
        case let library as Product.Library: return !library.targets.allSatisfy(kept.contains)
        case let executable as Product.Executable: return !executable.targets.allSatisfy(kept.contains)
        default: return false
        }
    }
}
