/// The numbers of the TIFF tags, field types and values the package reads and writes without
/// libtiff: a pyramidal TIFF's, and those that say how samples become pixels (TIFF 6.0, its
/// technical notes for deflate and JPEG, and BigTIFF's 64-bit types).
package enum TIFFTag {
    package static let newSubfileType = 254
    package static let imageWidth = 256
    package static let imageLength = 257
    package static let bitsPerSample = 258
    package static let compression = 259
    package static let photometricInterpretation = 262
    package static let samplesPerPixel = 277
    package static let planarConfiguration = 284
    package static let software = 305
    package static let predictor = 317
    package static let tileWidth = 322
    package static let tileLength = 323
    package static let tileOffsets = 324
    package static let tileByteCounts = 325
    package static let extraSamples = 338
    package static let sampleFormat = 339
    package static let jpegTables = 347
    package static let yCbCrSubSampling = 530
    package static let referenceBlackWhite = 532

    /// NewSubfileType's bit for a reduced-resolution version of another image in the file.
    package static let reducedResolution = 1
    /// NewSubfileType's bit for a transparency mask.
    package static let transparencyMask = 4

    /// Compression values.
    package enum Compression {
        package static let none = 1
        package static let jpeg = 7
        package static let adobeDeflate = 8
        /// The deflate code of before TIFF's technical note 2, which libtiff still reads.
        package static let oldDeflate = 32946
    }

    /// PhotometricInterpretation values.
    package enum Photometric {
        package static let minIsWhite = 0
        package static let minIsBlack = 1
        package static let rgb = 2
        package static let palette = 3
        package static let separated = 5
        package static let yCbCr = 6
    }

    /// SampleFormat values.
    package enum SampleFormat {
        package static let unsignedInteger = 1
        package static let signedInteger = 2
        package static let floatingPoint = 3
        package static let void = 4
    }

    /// PlanarConfiguration values.
    package enum Planar {
        package static let contiguous = 1
        package static let separate = 2
    }

    /// InkSet values.
    package enum InkSet {
        package static let cmyk = 1
    }

    /// ExtraSamples values.
    package enum ExtraSample {
        package static let unspecified = 0
        package static let associatedAlpha = 1
        package static let unassociatedAlpha = 2
    }

    /// Field types: their numbers, and the bytes of one value of each (0: unknown type).
    package enum FieldType {
        package static let byte = 1
        package static let ascii = 2
        package static let short = 3
        package static let long = 4
        package static let rational = 5
        package static let undefined = 7
        package static let long8 = 16
        package static let ifd8 = 18

        /// Bytes of one value of field type `type`; 0 for a type TIFF does not define.
        package static func size(_ type: Int) -> Int {
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
