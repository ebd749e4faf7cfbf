// swift-tools-version:6.1
import PackageDescription

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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
    ],
    targets: [
        // C libraries, found with pkg-config (Debian: libjpeg62-turbo-dev, libspng-dev, libwebp-dev with libwebpdemux,
        // libheif-dev, libavif-dev, libjxl-dev, libgif-dev, libtiff-dev, libcairo2-dev, liblcms2-dev).
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CSpng", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // libjxl and its thread pool, HEIC (HEVC through libde265) and AVIF (AV1 through dav1d),
        // the codecs built into Debian's libheif, and libavif 0.11 for AVIF sequences, which
        // libheif 1.15 reads only as still images: headers only (in /usr/include). ImageCodec loads
        // these libraries when it first opens such a file (CodecLibraries.swift), so no pkg-config
        // here: its flags would link them, and the dozen libraries they need, into every process.
        .systemLibrary(name: "CJxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CAvif", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CGif", pkgConfig: "libgif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // LittleCMS, the colour engine's ICC profiles and transforms.
        .systemLibrary(name: "CLcms", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        // A desktop window for `fic view` (Debian: libsdl2-dev): SDL2's header only. The viewer
        // loads libSDL2 when it opens a window, so no pkg-config here: its flags would link SDL2,
        // and with it some forty libraries, into every start of every command.
        .systemLibrary(name: "CSDL2", providers: [.apt(["libsdl2-dev"])]),
        // setjmp/longjmp error handling and source managers for libjpeg, which Swift cannot do itself;
        // mapped allocators; the PNG image-data inflater (zlib, Debian: zlib1g-dev).
        .target(name: "CImageCodecSupport", dependencies: ["CLibJPEG", "CFICCore"], linkerSettings: [.linkedLibrary("z")]),
        // libtiff's variadic tag calls, message handlers and client I/O.
        .target(name: "CTIFFSupport", dependencies: ["CTIFF", "CFICCore"]),
        // The tile pyramids' own C: the 2 × 2 box filter. No codec, and no system call (band writes in flight are FICCore's).
        .target(name: "CTileSupport"),

        // The lowest layer: the package's one error type, locks, and every system call, wrapped once.
        .target(name: "CFICCore"),
        .target(
            name: "FICCore",
            dependencies: [
                "CFICCore", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The storage engine: table files, slots, mapping, index, eviction, durability.
        .target(
            name: "ImageTable",
            dependencies: [
                "FICCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Decoding JPEG / PNG / WebP / HEIC / AVIF / JPEG XL / GIF / TIFF into cairo-compatible bitmaps, and converting colours to sRGB.
        .target(
            name: "ImageCodec",
            dependencies: [
                "FICCore", "CImageCodecSupport", "CTIFFSupport", "CLibJPEG", "CSpng", "CWebP", "CHeif", "CAvif", "CJxl", "CGif", "CTIFF", "CLcms",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // The public API: formats, entities, the cache, canvases, providers.
        .target(
            name: "FastImageCache",
            dependencies: [
                "FICCore", "ImageTable", "ImageCodec", "CCairo",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Huge photographs as zoomable tile pyramids, built while they download.
        .target(
            name: "TiledImage",
            dependencies: [
                "FICCore", "ImageCodec", "CTileSupport", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Loading originals: http(s) with AsyncHTTPClient and file URLs, a disk cache of originals,
        // and the provider that feeds the cache's lanes. It implements FastImageCache's provider
        // protocol, so it depends on FastImageCache (which never depends on it); remote tiled
        // images (TiledImage's descriptors, tiles kept in a cache) live here too.
        .target(
            name: "ImageLoader",
            dependencies: [
                "FICCore", "ImageCodec", "FastImageCache", "TiledImage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Serving pyramids over HTTP: the IIIF Image API 3.0 (level 2), Deep Zoom and a viewer page,
        // as routes an application adds to its own Hummingbird router (`fic serve` runs them alone).
        .target(
            name: "TileServer",
            dependencies: [
                "FICCore", "ImageCodec", "TiledImage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks, run by `fic bench` in release builds.
        .target(
            name: "FICBenchmarks",
            dependencies: ["FastImageCache", "ImageTable", "ImageCodec", "TiledImage", "ImageLoader", "FICHarness", "FICCore"],
            path: "Benchmarks/FICBenchmarks"
        ),
        .executableTarget(
            name: "fic",
            dependencies: [
                "FastImageCache", "TiledImage", "ImageLoader", "TileServer", "FICBenchmarks", "FICCore", "ImageCodec",
                "CLibJPEG", "CCairo", "CSDL2",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("SamplePhotos")]
        ),

        // Harnesses shared by tests and benchmarks: test patterns, a seeded generator, nginx,
        // a throttled link; and the writer process the crash tests kill, which no product ships.
        .target(name: "FICHarness", dependencies: ["FICCore", "ImageTable"], path: "Harness/FICHarness"),
        .executableTarget(
            name: "fic-selftest-sharer",
            dependencies: ["FICHarness", "ImageTable", "FICCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "SystemPackage", package: "swift-system")],
            path: "Harness/SelfTestSharer"
        ),
        .executableTarget(
            name: "fic-selftest-writer",
            dependencies: ["FICHarness", "ImageTable", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Harness/SelfTestWriter"
        ),

        .testTarget(name: "FICCoreTests", dependencies: ["FICCore", "FICTestSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ImageTableTests", dependencies: [
            "ImageTable", "FICCore", "FICTestSupport", "FICHarness", "fic-selftest-writer", "fic-selftest-sharer", .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // What several test targets share: files the tests write by hand (PNGs byte by byte), waiting for a
        // condition, running tools and `fic` as child processes (with a time limit where a hang is possible).
        .target(name: "FICTestSupport", dependencies: ["FICHarness"], path: "Tests/FICTestSupport"),
        // CHeif: libheif's encoder writes the files whose thumbnails differ from their images;
        // CJxl: libjxl's own signature check is the sniffer's reference.
        .testTarget(
            name: "ImageCodecTests",
            dependencies: ["ImageCodec", "FICCore", "FICTestSupport", "FICHarness", "CHeif", "CJxl", .product(name: "SystemPackage", package: "swift-system")],
            // The encoder writes its test files with libheif directly, and libjxl checks the sniffer.
            linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("jxl")]
        ),
        .testTarget(name: "FastImageCacheTests", dependencies: ["FastImageCache", "FICCore", "ImageTable", "ImageCodec", "CCairo", "FICTestSupport"]),
        .testTarget(name: "TiledImageTests", dependencies: ["TiledImage", "ImageCodec", "FICCore", "FICTestSupport", "FICHarness"]),
        .testTarget(name: "FicTests", dependencies: ["fic", "FastImageCache", "ImageTable", "ImageCodec", "FICTestSupport", "FICHarness"]),
        .testTarget(
            name: "ImageLoaderTests",
            dependencies: [
                "FICCore", "ImageLoader", "FastImageCache", "ImageCodec", "FICHarness", "FICTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TileServerTests",
            dependencies: [
                "TileServer", "TiledImage", "ImageCodec", "FICCore", "FICTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
