@testable import FICCommandLine
@testable import FICDemo
import Foundation
import Testing
@testable import fic

/// `fic ingest`, `get`, `inspect` and `verify` without `--cache`: the default cache folder (a
/// temporary `XDG_CACHE_HOME` here), one namespace per photo folder.
@Suite("default cache folder")
struct DefaultCacheFolderTests {
    @Test(
        "ingest DIR goes to DIR's namespace in the default folder, in the viewer's formats; get, verify and inspect find it by --photos or --namespace"
    )
    func commandsShareTheDefaultFolder() throws {
        let folder = try TemporaryFolder()
        try folder.copyTestdata("photos/chelsea.jpg", into: "photos", as: "a.jpg")
        try folder.copyTestdata("photos/coffee.jpg", into: "photos", as: "b.jpg")
        let photos = folder.path("photos"), environment = ["XDG_CACHE_HOME": folder.path("xdg")]
        let cacheFolder = folder.path("xdg") + "/fic"
        let namespace = try DefaultCache.namespace(forPhotos: photos)

        let ingest = try Fic.run(["ingest", photos, "--jobs", "1"], environment: environment)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(ingest.stdout.contains("into thumb, medium"), "\(ingest.stdout)")
        for table in ["thumb", "medium"] {
            #expect(FileManager.default.fileExists(atPath: cacheFolder + "/\(namespace)/\(table).fictable"))
        }
        let description = try CacheDescription.load(directory: cacheFolder, namespace: namespace, followLinks: false)
        #expect(description.photos == (try DefaultCache.realPath(photos)))
        #expect(DemoFormats.isViewerDescription(description))

        let get = try Fic.run(
            ["get", "--photos", photos, "--format", "medium", "--entity", "b.jpg", "--out", folder.path("b.png")], environment: environment)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.contains("300×300"), "\(get.stdout)")
        let byName = try Fic.run(
            ["get", "--namespace", namespace, "--format", "thumb", "--entity", "a.jpg", "--out", folder.path("a.png")],
            environment: environment)
        #expect(byName.status == 0, "\(byName.stderr)")

        let verify = try Fic.run(["verify", "--photos", photos], environment: environment)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("verified 4 entries") && verify.stdout.contains("all intact"), "\(verify.stdout)")

        let inspect = try Fic.run(["inspect", "--photos", photos, "--json"], environment: environment)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        #expect(report["namespace"] as? String == namespace)
        #expect(report["directory"] as? String == cacheFolder)
        #expect(report["totalCount"] as? Int == 4)

        // Without a namespace: the list of the default folder's namespaces.
        let list = try Fic.run(["inspect"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let realPhotos = try DefaultCache.realPath(photos)
        #expect(list.stdout.contains(namespace) && list.stdout.contains(realPhotos), "\(list.stdout)")

        // Asking for no namespace in particular names the ways to choose one.
        let vague = try Fic.run(["get", "--format", "thumb", "--entity", "a.jpg", "--out", folder.path("x.png")], environment: environment)
        #expect(vague.status == 1)
        #expect(vague.stderr.contains("--namespace") && vague.stderr.contains("--photos"), "\(vague.stderr)")
        let both = try Fic.run(["verify", "--photos", photos, "--namespace", namespace], environment: environment)
        #expect(both.status == 2, "\(both.stderr)")

        // A second ingest finds everything stored.
        let again = try Fic.run(["ingest", photos], environment: environment)
        #expect(again.stdout.contains("0 added, 2 unchanged"), "\(again.stdout)")
    }

    @Test("with --cache the namespace stays 'default' and nothing goes to the default folder")
    func explicitCacheKeepsDefaultNamespace() throws {
        let folder = try TemporaryFolder()
        try folder.copyTestdata("photos/chelsea.jpg", into: "photos", as: "a.jpg")
        let environment = ["XDG_CACHE_HOME": folder.path("xdg")]
        let ingest = try Fic.run(
            ["ingest", folder.path("photos"), "--cache", folder.path("c"), "--format", "tiny:8x8"], environment: environment)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("c/default/tiny.fictable")))
        #expect(!FileManager.default.fileExists(atPath: folder.path("xdg")))
        let list = try Fic.run(["inspect", "--cache", folder.path("c"), "--list"], environment: environment)
        #expect(list.status == 0 && list.stdout.contains("default"), "\(list.stdout)\(list.stderr)")
    }
}
