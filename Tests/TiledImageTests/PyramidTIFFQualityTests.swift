import FICTestSupport
import Foundation
import Testing
@testable import TiledImage

/// The default JPEG qualities keep the luma of every level of real photographs at 40 dB or more
/// from its source tiles (see ``PyramidTIFFCompression/jpeg``); the colour samples, whose chroma
/// 4:2:0 halves, at 30 dB or more.
@Suite struct PyramidTIFFQualityTests {
    typealias F = PyramidTIFFFixtures

    /// The compressions measured, from `FIC_PYRAMID_TIFF_QUALITIES` (for example "85,90,94/85,95":
    /// a quality, or a luma and a colour quality) to compare several, else the default's.
    static let compressions: [PyramidTIFFCompression] = {
        let items = ProcessInfo.processInfo.environment["FIC_PYRAMID_TIFF_QUALITIES"]?.split(separator: ",") ?? []
        let listed = items.compactMap { item -> PyramidTIFFCompression? in
            let parts = item.split(separator: "/").compactMap { Int($0) }
            return parts.first.map { PyramidTIFFCompression.jpeg(quality: $0, chromaQuality: parts.count > 1 ? parts[1] : nil) }
        }
        return listed.isEmpty ? [.jpeg] : listed
    }()

    /// The default's qualities as cjpeg's `-quality` takes them ("94,85": luma, then colour).
    static let defaultCjpegQuality: String = {
        guard case .jpeg(let quality, let chroma) = PyramidTIFFCompression.jpeg else { return "" }
        return chroma.map { "\(quality),\($0)" } ?? "\(quality)"
    }()

    @Test(arguments: ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "hubble.jpg", "retina.jpg", "rocket.jpg"])
    func defaultQualityKeepsPhotosLumaAt40dB(photo: String) throws {
        let folder = try Fixtures.makeFolder()
        defer { Fixtures.remove(folder) }
        let pyramid = try TilePyramidBuilder.build(contentsOf: Fixtures.path("photos/" + photo), destination: rawTIFF(folder + "/p.tif"))
        let tiles = try F.tiles(of: pyramid)
        for compression in Self.compressions {
            guard case .jpeg(let quality, let chroma) = compression else { continue }
            let name = "\(quality)" + (chroma.map { "/\($0)" } ?? "")
            let path = folder + "/q\(quality)-\(chroma ?? quality).tif"
            try F.write(tiles, geometry: pyramid.geometry, hasAlpha: false, compression: compression, to: path)
            let reader = try PyramidTIFFReader(path: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            var figures: [String] = []
            for level in pyramid.geometry.levels {
                let decoded = try F.decodedLevel(reader, level: level.index), source = F.bitmap(tiles, level: level)
                let (luma, colour) = (F.lumaPSNR(decoded, source), F.psnr(decoded, source))
                figures.append(String(format: "%.1f/%.1f", luma, colour))
                if compression == .jpeg {
                    #expect(luma >= 40 && colour >= 30, "\(photo) level \(level.index) at quality \(name): Y \(luma) dB, RGB \(colour) dB")
                }
            }
            print("\(photo) quality \(name): \(size) bytes, PSNR (Y/RGB) by level \(figures.joined(separator: " ")) dB")
        }
    }
}
