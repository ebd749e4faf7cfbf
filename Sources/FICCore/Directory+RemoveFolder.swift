import Glibc
import SystemPackage

extension Directory {
    /// Removes the folder `name` of this one if it is empty (`rmdir`, never recursive, never
    /// through a link). Returns false when it is not empty, is missing, or is not a folder.
    package func removeEmptyFolder(_ name: String) throws -> Bool {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw ImageCacheError(.invalidArgument, "'\(name)' is not a plain folder name")
        }
        do {
            _ = try retryingSystemCall("rmdir", path: child(name)) { unlinkat(descriptor.rawValue, name, AT_REMOVEDIR) }
            return true
        } catch let error as ImageCacheError {
            switch error.errno {
            case .directoryNotEmpty?, .fileExists?, .noSuchFileOrDirectory?, .notDirectory?: return false
            default: throw error
            }
        }
    }
}
