/// The numbers of the TIFF tags, field types and values a pyramidal TIFF uses (TIFF 6.0, its
/// technical notes for deflate and JPEG, and BigTIFF's 64-bit types).
enum TIFFTag {
    static let newSubfileType = 254
    static let imageWidth = 256
    static let imageLength = 257
    static let bitsPerSample = 258
    static let compression = 259
    static let photometricInterpretation = 262
    static let samplesPerPixel = 277
    static let planarConfiguration = 284
    static let software = 305
    static let predictor = 317
    static let tileWidth = 322
    static let tileLength = 323
    static let tileOffsets = 324
    static let tileByteCounts = 325
    static let extraSamples = 338
    static let sampleFormat = 339
    static let jpegTables = 347
    static let yCbCrSubSampling = 530
    static let referenceBlackWhite = 532

    /// NewSubfileType's bit for a reduced-resolution version of another image in the file.
    static let reducedResolution = 1
    /// NewSubfileType's bit for a transparency mask.
    static let transparencyMask = 4

    /// Compression values.
    enum Compression {
        static let none = 1
        static let jpeg = 7
        static let adobeDeflate = 8
        /// The deflate code of before TIFF's technical note 2, which libtiff still reads.
        static let oldDeflate = 32946
    }

    /// PhotometricInterpretation values.
    enum Photometric {
        static let minIsWhite = 0
        static let minIsBlack = 1
        static let rgb = 2
        static let yCbCr = 6
    }

    /// ExtraSamples values.
    enum ExtraSample {
        static let unspecified = 0
        static let associatedAlpha = 1
        static let unassociatedAlpha = 2
    }

    /// Field types: their numbers, and the bytes of one value of each (0: unknown type).
    enum FieldType {
        static let byte = 1
        static let ascii = 2
        static let short = 3
        static let long = 4
        static let rational = 5
        static let undefined = 7
        static let long8 = 16
        static let ifd8 = 18

        /// Bytes of one value of field type `type`; 0 for a type TIFF does not define.
        static func size(_ type: Int) -> Int {
            switch type {
            case 1, 2, 6, 7: 1
            case 3, 8: 2
            case 4, 9, 11, 13: 4
            case 5, 10, 12, 16, 17, 18: 8
            default: 0
            }
        }
    }
}
