import Glibc

extension Directory {
    /// Removes the folder `name` of this one if it is empty (`rmdir`, never recursive, never
    /// through a link). Returns false when it is not empty, is missing, or is not a folder.
    package func removeEmptyFolder(_ name: String) throws -> Bool {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw ImageCacheError(.invalidArgument, "'\(name)' is not a plain folder name")
        }
        while unlinkat(descriptor.rawValue, name, AT_REMOVEDIR) != 0 {
            switch Glibc.errno {
            case EINTR: continue
            case ENOTEMPTY, EEXIST, ENOENT, ENOTDIR: return false
            case let e: throw ImageCacheError.system("rmdir", path: child(name), errno: e)
            }
        }
        return true
    }
}
