import FICCore
import Glibc

#if HEIF
import CHeif

/// A HEIF or AVIF file opened with libheif: its context (within the package's limits) and the
/// primary image's handle, which carry everything the header says — sizes after the file's
/// rotation, mirroring and crop, alpha, bit depth, colour, thumbnails — without decoding.
///
/// The bytes must outlive the file: libheif reads them in place.
final class HEIFFile {
    /// libheif's context.
    let context: OpaquePointer
    /// The primary image.
    let primary: HEIFHandle
    /// What the `ftyp` box says (nil only for bytes that did not sniff as HEIF).
    let brands: HEIFBoxes.Brands?
    /// `"AVIF"` or `"HEIF"`, for messages.
    let formatName: String
    /// The largest width or height the context accepts.
    let maximumDimension: Int
    /// The bytes the context reads in place.
    private let bytes: UnsafeRawBufferPointer

    /// libheif's own ceiling for a side (its default limit): never raised, only lowered.
    static let libraryMaximumDimension = 32_768

    /// Registers libheif's codecs (libde265, dav1d, aom) once per process; never undone, as
    /// libheif's reference-counted `heif_init` allows.
    private static let initialised: Bool = {
        _ = heifLibrary.heif_init(nil)
        return true
    }()

    /// Grid tiles decoded at once: one per processor (libheif parallelises only grids, which is
    /// how phones store their photos: 512 × 512 tiles).
    static let decodingThreads = min(8, MachineResources.processorCount)

    /// Opens `bytes`, refusing any image side over what `maximumPixelCount` allows (an image
    /// wider than the pixel limit is over it whatever its height) as libheif parses each `ispe`.
    init(_ bytes: UnsafeRawBufferPointer, maximumPixelCount: Int) throws {
        _ = try CodecLibraries.requireHEIF()
        _ = Self.initialised
        self.bytes = bytes
        brands = HEIFBoxes.brands(bytes)
        formatName = brands?.isAVIF == true ? ImageFileFormat.avif.name : ImageFileFormat.heif.name
        maximumDimension = max(1, min(maximumPixelCount, Self.libraryMaximumDimension))
        guard let context = heifLibrary.heif_context_alloc() else {
            throw ImageCacheError(.overMemoryBudget, "libheif could not allocate a context to read the \(formatName) file.")
        }
        heifLibrary.heif_context_set_maximum_image_size_limit(context, Int32(maximumDimension))
        heifLibrary.heif_context_set_max_decoding_threads(context, Int32(Self.decodingThreads))
        var handle: OpaquePointer?
        do {
            try HEIFError.check(
                heifLibrary.heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil),
                format: formatName, maximumDimension: maximumDimension)
            try HEIFError.check(
                heifLibrary.heif_context_get_primary_image_handle(context, &handle), format: formatName, maximumDimension: maximumDimension)
        } catch let error as ImageCacheError {
            heifLibrary.heif_context_free(context)
            // A sequence without a still image (no `meta` box) is a video to libheif 1.15.
            if brands?.isSequence == true, error.code == .corruptData {
                throw ImageCacheError(
                    .unsupportedFormat,
                    "The \(formatName) file is an image sequence without a still image; only still images (and a sequence's primary image) are decoded. (\(error.message))"
                )
            }
            throw error
        }
        guard let handle else {
            heifLibrary.heif_context_free(context)
            throw ImageCacheError(.corruptData, "The \(formatName) file has no primary image. The file is damaged.")
        }
        self.context = context
        primary = HEIFHandle(handle)
    }

    deinit {
        heifLibrary.heif_context_free(context)
    }

    /// The file's format.
    var format: ImageFileFormat { brands?.isAVIF == true ? .avif : .heif }

    /// The header: the primary image's size once libheif has rotated, mirrored and cropped it
    /// (so always upright), alpha, bit depth, colour; frames are the picture track's samples of
    /// an image sequence, else the file's top-level images.
    func info() -> ImageInfo {
        let top = Int(heifLibrary.heif_context_get_number_of_top_level_images(context))
        let frames = brands?.isSequence == true ? HEIFBoxes.sequenceFrameCount(bytes) : nil
        return ImageInfo(
            format: format, width: primary.width, height: primary.height, orientation: .up,
            hasAlpha: primary.hasAlpha, color: primary.color, bitsPerSample: primary.bitsPerSample,
            frameCount: max(1, frames ?? top)
        )
    }

    /// Throws unless the primary image, as declared (`ispe`, and after the file's crop and
    /// rotation), is within `maximumPixelCount`.
    func checkPixelLimit(_ maximumPixelCount: Int) throws {
        try PixelLimits.check(width: primary.width, height: primary.height, maximumPixelCount: maximumPixelCount, format: formatName)
        let coded = primary.codedSize
        if coded.width > 0 || coded.height > 0 {
            try PixelLimits.check(width: coded.width, height: coded.height, maximumPixelCount: maximumPixelCount, format: formatName)
        }
    }

    /// The smallest embedded thumbnail that covers `size` (a size of the primary image) and is
    /// the primary image turned the same way (its aspect ratio agrees: an editor that rotated
    /// the image but not its thumbnail leaves one that does not), or `nil`.
    func thumbnail(covering size: (width: Int, height: Int)) -> HEIFHandle? {
        let count = min(Int(heifLibrary.heif_image_handle_get_number_of_thumbnails(primary.handle)), 16)
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = min(count, Int(heifLibrary.heif_image_handle_get_list_of_thumbnail_IDs(primary.handle, &ids, Int32(count))))
        var best: HEIFHandle?
        for id in ids.prefix(listed) {
            var pointer: OpaquePointer?
            guard heifLibrary.heif_image_handle_get_thumbnail(primary.handle, id, &pointer).code == heif_error_Ok, let pointer else {
                continue
            }
            let candidate = HEIFHandle(pointer)
            guard candidate.width >= size.width, candidate.height >= size.height,
                candidate.width <= primary.width, candidate.height <= primary.height,
                Self.sameShape(candidate, primary)
            else { continue }
            if best.map({ candidate.width * candidate.height < $0.width * $0.height }) ?? true { best = candidate }
        }
        return best
    }

    /// Whether `a` has `b`'s aspect ratio, within the rounding of a scaled-down copy.
    private static func sameShape(_ a: HEIFHandle, _ b: HEIFHandle) -> Bool {
        // a.height against a.width × b.height / b.width, to within a pixel and a percent.
        let expected = Double(a.width) * Double(b.height) / Double(b.width)
        return abs(Double(a.height) - expected) <= 1 + expected / 100
    }
}

/// One image of a HEIF file (the primary image or a thumbnail), as libheif describes it.
final class HEIFHandle {
    /// libheif's handle.
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        heifLibrary.heif_image_handle_release(handle)
    }

    /// Width after the file's transformations (libheif 1.15 swaps for a rotation only when the
    /// `ispe` property comes before `irot`: the decoded image is the authority).
    var width: Int { Int(heifLibrary.heif_image_handle_get_width(handle)) }
    /// Height after the file's transformations.
    var height: Int { Int(heifLibrary.heif_image_handle_get_height(handle)) }
    /// The size coded in the `ispe` property, before any transformation.
    var codedSize: (width: Int, height: Int) {
        (Int(heifLibrary.heif_image_handle_get_ispe_width(handle)), Int(heifLibrary.heif_image_handle_get_ispe_height(handle)))
    }
    /// Whether an alpha plane is attached.
    var hasAlpha: Bool { heifLibrary.heif_image_handle_has_alpha_channel(handle) != 0 }
    /// Whether the colour samples are premultiplied by alpha (an `prem` reference).
    var isPremultiplied: Bool { heifLibrary.heif_image_handle_is_premultiplied_alpha(handle) != 0 }
    /// Bits per luma sample (8, 10 or 12); 8 when the codec configuration does not say.
    var bitsPerSample: Int {
        let bits = Int(heifLibrary.heif_image_handle_get_luma_bits_per_pixel(handle))
        return (1...16).contains(bits) ? bits : 8
    }

    /// The colour the file declares for this image: its ICC profile when it has one (`prof` or
    /// `rICC`; an ICC profile wins over an nclx box beside it), else its nclx code points, else
    /// untagged. Read from the handle: libheif does not attach an nclx box to the decoded image.
    var color: ColorDescription {
        let type = heifLibrary.heif_image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            let size = heifLibrary.heif_image_handle_get_raw_color_profile_size(handle)
            if size > 0 {
                var profile = [UInt8](repeating: 0, count: size)
                if heifLibrary.heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok {
                    return .iccProfile(profile)
                }
            }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let status = heifLibrary.heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif 1.15 hands the profile over even when it refuses one of its code points (an
        // error for a value it does not know): it is freed whatever the outcome.
        defer { if let nclx { heifLibrary.heif_nclx_color_profile_free(nclx) } }
        guard status.code == heif_error_Ok, let nclx else { return .untagged }
        let codes = nclx.pointee
        return .codePoints(
            primaries: Int(codes.color_primaries.rawValue), transfer: Int(codes.transfer_characteristics.rawValue),
            matrix: Int(codes.matrix_coefficients.rawValue), fullRange: codes.full_range_flag != 0
        )
    }
}
#endif
