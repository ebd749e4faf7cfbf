import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// The default JPEG quality keeps the luma of every level of real photographs at 40 dB or more
/// from its source tiles (see ``PyramidTIFFCompression/jpeg``); the colour samples, whose chroma
/// 4:2:0 halves, at 30 dB or more.
@Suite struct PyramidTIFFQualityTests {
    typealias F = PyramidTIFFFixtures

    /// The quality measured, from `FIC_PYRAMID_TIFF_QUALITIES` (for example "80,85,90,95") to
    /// compare several, else the default's.
    static let qualities: [Int] = {
        let listed = ProcessInfo.processInfo.environment["FIC_PYRAMID_TIFF_QUALITIES"]?.split(separator: ",").compactMap { Int($0) } ?? []
        return listed.isEmpty ? [defaultQuality] : listed
    }()

    static let defaultQuality: Int = {
        guard case .jpeg(let quality) = PyramidTIFFCompression.jpeg else { return 0 }
        return quality
    }()

    @Test(arguments: ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "hubble.jpg", "retina.jpg", "rocket.jpg"])
    func defaultQualityKeepsPhotosLumaAt40dB(photo: String) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/" + photo), destination: rawTIFF(folder + "/p.tif"))
        let tiles = try F.tiles(of: pyramid)
        for quality in Self.qualities {
            let path = folder + "/q\(quality).tif"
            try F.write(tiles, geometry: pyramid.geometry, hasAlpha: false, compression: .jpeg(quality: quality), to: path)
            let reader = try PyramidTIFFReader(path: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            var figures: [String] = []
            for level in pyramid.geometry.levels {
                let decoded = try F.decodedLevel(reader, level: level.index), source = F.bitmap(tiles, level: level)
                let (luma, colour) = (F.lumaPSNR(decoded, source), F.psnr(decoded, source))
                figures.append(String(format: "%.1f/%.1f", luma, colour))
                if quality == Self.defaultQuality {
                    #expect(
                        luma >= 40 && colour >= 30, "\(photo) level \(level.index) at quality \(quality): Y \(luma) dB, RGB \(colour) dB")
                }
            }
            print("\(photo) quality \(quality): \(size) bytes, PSNR (Y/RGB) by level \(figures.joined(separator: " ")) dB")
        }
    }
}
