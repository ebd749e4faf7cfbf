import FICHarness
import Foundation
import Testing

@Suite("Exit statuses and help")
struct UsageTests {
    @Test("--help exits 0 and lists the commands")
    func help() throws {
        let run = try Fic.run(["--help"])
        #expect(run.status == 0)
        for command in ["demo", "ingest", "get", "inspect", "verify", "decode"] {
            #expect(run.stdout.contains(command), "help lacks \(command)")
        }
        #expect(!run.stdout.contains("selftest-writer"))
        // The crash tests' writer is a harness program of its own, not a command of fic.
        #expect(try Fic.run(["selftest-writer", "--table", "unused.table"]).status == 2)
        // The benchmarks are fic-bench's, a program of its own: fic links none of their harness.
        #expect(!run.stdout.contains("bench"))
        #expect(try Fic.run(["bench", "retrieval"]).status == 2)
    }

    /// Linked, SDL2 and the forty-odd libraries it needs, libheif and libjxl with theirs, would be
    /// loaded at every start of every command; the viewer loads SDL2 when it opens a window, and
    /// the decoders their library when they first open a file of its format (the View, HEIF and
    /// JPEG XL tests use them).
    @Test("fic does not load SDL2, libheif or libjxl at start")
    func libraryOfOneCommandOrFormatIsNotLinked() throws {
        let binary = try #require(Fic.binary)
        let run = try ChildProcess.capture("/usr/bin/ldd", [binary])
        #expect(run.status == 0)
        #expect(run.stdout.contains("libc.so"), "ldd listed the libraries")
        for library in [
            "libSDL2", "libpulse", "libwayland-client", "libasound", "libheif", "libde265", "libx265", "libdav1d", "libaom", "libjxl",
            "libhwy"
        ] {
            #expect(!run.stdout.contains(library), "fic loads \(library) at start")
        }
    }

    @Test("every command has --help, exiting 0", arguments: ["demo", "ingest", "get", "inspect", "verify", "decode"])
    func subcommandHelp(_ command: String) throws {
        let run = try Fic.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: fic \(command)"))
    }

    @Test(
        "usage errors exit 2 with one line on stderr",
        arguments: [
            ["ingest", "/nonexistent", "--cache", "/tmp/x", "--format", "thumb"],
            ["ingest", "/nonexistent", "--cache", "/tmp/x", "--format", "thumb:0x10"],
            ["ingest", "/nonexistent", "--cache", "/tmp/x", "--format", "thumb:10x10:purple"],
            ["ingest", "/nonexistent", "--cache", "/tmp/x", "--format", "thumb:10x10@-2"],
            ["ingest", "/nonexistent", "--cache", "/tmp/x", "--format", "bad/name:10x10"],
            ["ingest", "--cache", "/tmp/x"],
            ["inspect", "--cache", "/tmp/x", "--namespace", "../up"],
            ["demo", "--cells", "0"],
            ["no-such-command"]
        ])
    func usageErrors(_ arguments: [String]) throws {
        let run = try Fic.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.hasPrefix("fic: "))
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test("a bad --format names the problem and the expected shape")
    func badFormatMessage() throws {
        let run = try Fic.run(["ingest", "/tmp", "--cache", "/tmp/x", "--format", "thumb:75x75:sepia"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("'sepia'"))
        #expect(run.stderr.contains("NAME:WxH"))
    }

    @Test("commands on a missing cache exit 1 and say how to make one", arguments: ["inspect", "verify"])
    func missingCache(_ command: String) throws {
        let folder = try TemporaryFolder()
        let run = try Fic.run([command, "--cache", folder.path("none")])
        #expect(run.status == 1)
        #expect(run.stderr.contains("fic ingest"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("none")), "inspecting must not create the cache")
    }
}
