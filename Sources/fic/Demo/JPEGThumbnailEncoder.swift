#if Tool
import CLibJPEG
import Foundation

/// Encodes 32-bit BGRX pixels as a baseline JPEG with libjpeg, for the demo's conventional
/// store of pre-rendered thumbnails.
///
/// libjpeg reports errors by calling `error_exit`, which must not return; encoding an in-memory
/// bitmap only fails on programming errors or out of memory, so the handler prints libjpeg's
/// message and ends the process (no `setjmp` needed).
enum JPEGThumbnailEncoder {
    /// The JPEG bytes of `width × height` BGRX pixels, rows `bytesPerRow` apart.
    static func encode(bgrx pixels: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, quality: Int32) -> [UInt8] {
        let errors = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
        let output = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
        let outputSize = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        defer {
            errors.deallocate()
            cinfo.deallocate()
            output.deallocate()
            outputSize.deallocate()
        }
        errors.initialize(to: jpeg_error_mgr())
        cinfo.initialize(to: jpeg_compress_struct())
        output.initialize(to: nil)
        outputSize.initialize(to: 0)

        cinfo.pointee.err = jpeg_std_error(errors)
        errors.pointee.error_exit = { common in
            var text = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
            if let common, let format = common.pointee.err.pointee.format_message { format(common, &text) }
            let message = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            Terminal.error("libjpeg failed to encode a demo thumbnail: \(message)")
            exit(1)
        }
        jpeg_CreateCompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        defer { jpeg_destroy_compress(cinfo) }
        jpeg_mem_dest(cinfo, output, outputSize)
        cinfo.pointee.image_width = JDIMENSION(width)
        cinfo.pointee.image_height = JDIMENSION(height)
        cinfo.pointee.input_components = 4
        cinfo.pointee.in_color_space = JCS_EXT_BGRX
        jpeg_set_defaults(cinfo)
        jpeg_set_quality(cinfo, quality, 1)
        jpeg_start_compress(cinfo, 1)
        while cinfo.pointee.next_scanline < cinfo.pointee.image_height {
            var row: JSAMPROW? = UnsafeMutableRawPointer(mutating: pixels + Int(cinfo.pointee.next_scanline) * bytesPerRow)
                .assumingMemoryBound(to: JSAMPLE.self)
            _ = jpeg_write_scanlines(cinfo, &row, 1)
        }
        jpeg_finish_compress(cinfo)
        guard let bytes = output.pointee else { return [] }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(outputSize.pointee)))
    }
}
#endif
