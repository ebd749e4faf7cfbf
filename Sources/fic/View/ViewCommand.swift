#if Tool
import ArgumentParser

/// `fic view`: the whole system in a real window.
struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Show a photo gallery or a huge photo in a window (SDL2; X11, Wayland or Xvfb).",
        discussion: """
            gallery: a grid of thumbnails drawn straight from the image tables. Scroll with the \
            wheel, the arrow and page keys, a drag, or fling with space (shift+space: up); c \
            switches to the conventional path (each new cell decodes a small JPEG) and back; o \
            shows the overlay (frames per second, the slowest recent frame, hits and misses). \
            Animated images (GIF, animated WebP, APNG) play in their cells from the frames stored \
            in the tables, at their own timing; r plays them again from the start.

            photo: pan and zoom a tile pyramid. Drag to pan, wheel to zoom around the pointer, \
            arrows pan, +/- zoom, 0 fits the window, 1 shows one image pixel per window pixel.

            Both close with q or Escape. For machines: --script FILE plays input with \
            deterministic timing (each frame advances the clock by 1/60 s), --screenshot saves \
            the window at the end, --stats writes frame times split into compose (the viewer's \
            own work) and present (the display's), hits, misses and peak memory as JSON.

            Script commands, one a line (# starts a comment): scroll PX, scroll-to PX, fling PX/S, \
            zoom FACTOR [at X Y], zoom-to SCALE [at X Y], fit, pan DX DY, \
            drag X Y to X Y in FRAMES, toggle-path, replay, overlay on|off, phase NAME, \
            screenshot FILE.png, wait FRAMES, wait-idle [FRAMES], wait-file PATH [FRAMES], \
            wait-shown IMAGES [FRAMES], quit.

            Without a desktop: xvfb-run -a -s "-screen 0 1280x800x24" fic view gallery
            """,
        subcommands: [ViewGalleryCommand.self, ViewPhotoCommand.self]
    )
}
#endif
