#if TIFF
import CTIFFSupport
import CTIFF

/// One directory of a TIFF (the first page, or one of its reduced-resolution levels): its size,
/// how its samples are stored, and how they become the package's pixels.
struct TIFFPage {
    /// The directory's facts, as libtiff read them.
    let raw: fic_tiff_directory
    /// Stored width.
    var width: Int { Int(raw.width) }
    /// Stored height.
    var height: Int { Int(raw.height) }
    /// The Orientation tag (274), as EXIF numbers it; upright when absent or out of range.
    var orientation: ImageOrientation
    /// The ICC profile (tag 34675), or untagged.
    var color: ColorDescription
    /// How the samples are read and converted, or why they cannot be.
    let plan: Result<TIFFSamplePlan, ImageCacheError>

    /// The current directory of `file`.
    init(_ file: TIFFFile) {
        let raw = file.readDirectory()
        self.raw = raw
        orientation = ImageOrientation(rawValue: Int(raw.orientation)) ?? .up
        if let icc = raw.icc, raw.icc_length > 0 {
            color = .iccProfile(Array(UnsafeRawBufferPointer(start: icc, count: Int(raw.icc_length))))
        } else {
            color = .untagged
        }
        do {
            plan = .success(try TIFFSamplePlan(raw))
        } catch {
            plan = .failure(ImageCacheError.adopting(error))
        }
    }

    /// Whether the decoded pixels carry alpha.
    var hasAlpha: Bool { (try? plan.get().layout.hasAlpha) ?? false }

    /// Whether the directory is a reduced-resolution copy of another (NewSubfileType bit 0).
    var isReducedResolution: Bool { raw.subfile_type & UInt32(FILETYPE_REDUCEDIMAGE) != 0 }

    /// The header facts of the page.
    func info(frameCount: Int) -> ImageInfo {
        ImageInfo(
            format: .tiff, width: width, height: height, orientation: orientation, hasAlpha: hasAlpha,
            color: color, bitsPerSample: Int(raw.bits_per_sample), frameCount: frameCount)
    }
}

extension TIFFSamplePlan {
    /// The plan for a directory as libtiff read it, or the error naming what cannot be decoded.
    init(_ d: fic_tiff_directory) throws {
        var tags = Tags(
            photometric: d.has_photometric != 0 ? Int(d.photometric) : nil, samplesPerPixel: Int(d.samples_per_pixel),
            bitsPerSample: Int(d.bits_per_sample))
        tags.sampleFormat = Int(d.sample_format)
        tags.extraSamples = d.extra_sample_count > 0 ? [Int(d.extra_samples.0)] : []
        tags.separatePlanes = d.planar_config == UInt16(PLANARCONFIG_SEPARATE)
        tags.yCbCrDecodedAsRGB = d.jpeg_rgb != 0
        tags.inkSet = Int(d.inkset)
        if tags.photometric == TIFFTag.Photometric.palette, TIFFSamplePlan.decodedBitDepths.contains(tags.bitsPerSample),
            let red = d.colormap_red,
            let green = d.colormap_green, let blue = d.colormap_blue
        {
            let entries = 1 << tags.bitsPerSample
            tags.palette = (
                Array(UnsafeBufferPointer(start: red, count: entries)), Array(UnsafeBufferPointer(start: green, count: entries)),
                Array(UnsafeBufferPointer(start: blue, count: entries))
            )
        }
        try self.init(tags)
    }
}
#endif
