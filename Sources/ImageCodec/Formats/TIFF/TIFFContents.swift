#if TIFF
import CTIFF

/// The first page of a TIFF and what else the file holds: how many pages, and the
/// reduced-resolution copies of the first page that a pyramidal TIFF carries — in the main chain
/// of directories (NewSubfileType 1, as `vips tiffsave --pyramid` writes them) or in SubIFDs of
/// the first page (`--subifd`).
struct TIFFContents {
    /// A reduced-resolution copy of the first page.
    struct Level {
        /// Where its directory is.
        enum Location {
            case directory(Int)
            case subIFD(UInt64)
        }

        let location: Location
        let width: Int
        let height: Int
    }

    /// The first page.
    let main: TIFFPage
    /// Pages in the file (directories of the main chain that are not reduced-resolution copies).
    let pageCount: Int
    /// The reduced-resolution copies of the first page, smaller than it.
    let levels: [Level]

    /// Reads the first page of `file` (its current directory must be the first) and walks the
    /// rest of the file, leaving the first directory current.
    init(_ file: TIFFFile) throws {
        let main = TIFFPage(file)
        self.main = main
        let subIFDs = main.raw.subifd_count > 0 ? file.subIFDOffsets() : []
        guard TIFFLastDirectory(file.tiff) == 0 || !subIFDs.isEmpty else {
            pageCount = 1
            levels = []
            return
        }
        var pages = 1, levels: [Level] = []
        func consider(_ location: Level.Location) -> Bool {
            let d = file.readDirectory()
            let reduced = d.subfile_type & UInt32(FILETYPE_REDUCEDIMAGE) != 0
            if reduced, d.width > 0, d.height > 0, Int(d.width) <= main.width, Int(d.height) <= main.height,
                Int(d.width) < main.width || Int(d.height) < main.height
            {
                levels.append(Level(location: location, width: Int(d.width), height: Int(d.height)))
            }
            return reduced
        }
        var index = 1
        while index < TIFFFile.maximumDirectoriesWalked, TIFFLastDirectory(file.tiff) == 0, file.readNextDirectory() {
            if !consider(.directory(index)) { pages += 1 }
            index += 1
        }
        if index == TIFFFile.maximumDirectoriesWalked, TIFFLastDirectory(file.tiff) == 0 {
            // Many pages (a long scanned document): the rest are counted, not read.
            pages += max(0, file.directoryCount() - index)
        }
        for offset in subIFDs {
            guard (try? file.select(subIFD: offset)) != nil else { continue }  // a damaged level is not used
            _ = consider(.subIFD(offset))
        }
        try file.select(directory: 0)
        pageCount = pages
        self.levels = levels
    }

    /// The header facts of the file.
    var info: ImageInfo { main.info(frameCount: pageCount) }

    /// The smallest level that still covers `size` (stored orientation) in both dimensions, or nil
    /// when only the first page does.
    func smallestLevel(covering size: (width: Int, height: Int)) -> Level? {
        levels.filter { $0.width >= size.width && $0.height >= size.height }.min { $0.width * $0.height < $1.width * $1.height }
    }
}
#endif
