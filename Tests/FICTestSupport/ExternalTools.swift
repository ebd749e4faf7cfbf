import FICHarness
import Foundation
import Glibc

/// The command-line tools tests make their files with and decode references with (libtiff's
/// tools, vips, ImageMagick, the HEIF, JPEG XL and GIF encoders and decoders, Pillow), run as child
/// processes; scripts/install-deps installs them. Format-specific helpers extend it in the test
/// targets that use them.
public enum ExternalTools {
    /// A tool that failed or is missing.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The full path of `name`: an absolute path as given, else the first on PATH.
    public static func path(of name: String) -> String? {
        if name.hasPrefix("/") { return access(name, X_OK) == 0 ? name : nil }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The checkout's own Python environment's `python3` (scripts/install-deps makes .build/python),
    /// whether or not it exists. Its path is not resolved: `python3` there is a symbolic link to the
    /// Python it was made from, and only through the link does it see the environment's packages
    /// and scripts (such as the IIIF validator's).
    public static let projectPython: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/python/bin/python3").path
    }()

    /// The Python that has Pillow: the project's (``projectPython``), else Debian's.
    public static let pythonWithPillow: String =
        FileManager.default.isExecutableFile(atPath: projectPython) ? projectPython : "/usr/bin/python3"

    /// The path of `name` (as ``path(of:)`` finds it), or a failure naming the Debian package to
    /// install.
    public static func tool(_ name: String, package: String) throws -> String {
        guard let found = path(of: name) else {
            throw Failure(description: "\(name) is missing: install \(package) (scripts/install-deps)")
        }
        return found
    }

    /// Runs `tool` with `arguments` and waits, up to `timeout` (then it is killed); throws, with
    /// what the tool wrote to its standard error, unless it exits with status 0. Its standard
    /// output goes to the file `stdout` when given, else to /dev/null; its standard input comes
    /// from the file `stdin` when given, else /dev/null. ImageMagick is `/usr/bin/convert`
    /// (another `convert` may come first on PATH).
    public static func run(
        _ tool: String, _ arguments: [String], stdin: String? = nil, stdout: String? = nil, timeout: Duration = .seconds(600)
    ) throws {
        guard let executable = path(of: tool) else {
            throw Failure(description: "\(tool) is not installed; scripts/install-deps installs it")
        }
        let errors = temporaryErrorFile()
        defer { unlink(errors) }
        let child: ChildProcess
        do {
            child = try ChildProcess.start(
                executable, arguments, standardInput: stdin ?? "/dev/null", standardOutput: stdout ?? "/dev/null", standardError: errors)
        } catch let error as HarnessError {
            throw Failure(description: error.description)
        }
        let ending = child.wait(timeout: timeout)
        guard ending == .exited(0) else {
            let said = String(decoding: (try? bytes(atPath: errors)) ?? [], as: UTF8.self)
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) \(ending): \(said)")
        }
    }

    /// Starts `executable` with `arguments` and this process's environment, `extraEnvironment`
    /// added and the variables `removedEnvironment` left out, standard input from the file
    /// `standardInput`, standard output into the file `standardOutput` and standard error into
    /// the file `standardError`; returns its pid for the caller to wait for (the harness's
    /// ``ChildProcess/spawn(_:_:environment:extraEnvironment:removedEnvironment:standardInput:standardOutput:standardError:)``).
    public static func spawn(
        _ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
        removedEnvironment: [String] = [],
        standardInput: String = "/dev/null", standardOutput: String, standardError: String
    ) throws -> pid_t {
        do {
            return try ChildProcess.spawn(
                executable, arguments, extraEnvironment: extraEnvironment, removedEnvironment: removedEnvironment,
                standardInput: standardInput, standardOutput: standardOutput, standardError: standardError)
        } catch let error as HarnessError {
            throw Failure(description: error.description)
        }
    }

    /// A path under the system's temporary folder for a child's standard error.
    static func temporaryErrorFile() -> String {
        NSTemporaryDirectory() + "/fic-tool-\(UInt64.random(in: 0...UInt64.max)).txt"
    }

    /// A fresh empty folder under the system's temporary folder.
    public static func makeFolder(_ name: String) throws -> String {
        let clean = name.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "/fic-tool-tests/\(clean)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The bytes of a file (POSIX reads: no Foundation buffers for LeakSanitizer to report).
    public static func bytes(atPath path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Page `page` of the TIFF at `path` (a level of a pyramid) as vips reads it, written by vips
    /// as a PNG in `folder` and returned as that PNG's bytes: the same pixels give the same bytes.
    public static func vipsPagePNG(_ path: String, page: Int, folder: String) throws -> [UInt8] {
        let png = folder + "/page-\(page)-\(UInt32.random(in: 0...UInt32.max)).png"
        defer { unlink(png) }
        try run("/usr/bin/vips", ["copy", "\(path)[page=\(page)]", png])
        return try bytes(atPath: png)
    }

    /// Writes `bytes` to `path` (POSIX writes).
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            guard n > 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
    }
}
