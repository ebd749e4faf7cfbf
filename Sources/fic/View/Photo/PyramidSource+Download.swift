#if Tool
import Foundation
import TiledImage

extension PyramidSource {
    /// Builds a throwaway pyramid (in `temporaryFolder`, or `$TMPDIR`) of the image at the
    /// http(s) `url` while it downloads (``PyramidDownload``), reporting the bytes received
    /// against the announced length. Closing the viewer cancels the download and the build.
    static func building(url: String, temporaryFolder: String?) -> PyramidSource {
        let name = URL(string: url).map { $0.lastPathComponent.isEmpty ? ($0.host ?? url) : $0.lastPathComponent } ?? url
        let source = PyramidSource(building: name)
        let task = Task.detached {
            do {
                let result = try await PyramidDownload.build(
                    url, destination: .temporary(folder: temporaryFolder), options: TilePyramidOptions(),
                    started: { length in source.progress(received: 0, total: length ?? 0) },
                    received: { count in source.progress(adding: count) },
                    building: { builder in source.building(builder) })
                source.finish(result.pyramid)
            } catch {
                source.fail("cannot tile \(url): \(error)")
            }
        }
        source.onCancel { task.cancel() }
        return source
    }
}
#endif
