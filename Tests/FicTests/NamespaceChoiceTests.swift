import Foundation
import Testing

/// `--cache DIR` without `--namespace` or `--photos` means the namespace 'default'; a folder
/// filled with other namespaces (the viewer's, named after their photo folders, or `--namespace`)
/// is shown or listed by `fic inspect`, and named by the errors of `fic get` and `fic verify`.
@Suite("--cache DIR without a namespace")
struct NamespaceChoiceTests {
    /// Ingests the test photo `chelsea.jpg` into `cache`'s namespace `namespace`.
    private func ingest(_ folder: TemporaryFolder, cache: String, namespace: String) throws {
        try folder.copyTestdata("photos/chelsea.jpg", into: "photos-\(namespace)", as: "a.jpg")
        let run = try Fic.run([
            "ingest", folder.path("photos-\(namespace)"), "--cache", cache, "--namespace", namespace, "--format", "tiny:8x8"
        ])
        try #require(run.status == 0, "\(run.stderr)")
    }

    @Test("inspect shows the only namespace, lists several, and fails on none")
    func inspectFindsWhatTheFolderHolds() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path("c")
        try ingest(folder, cache: cache, namespace: "alpha")

        let one = try Fic.run(["inspect", "--cache", cache])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("cache \(cache)/alpha,"), "the only namespace is shown: \(one.stdout)")

        try ingest(folder, cache: cache, namespace: "beta")
        let two = try Fic.run(["inspect", "--cache", cache])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stdout.contains("alpha") && two.stdout.contains("beta"), "both are listed: \(two.stdout)")
        #expect(two.stderr.contains("no namespace 'default'") && two.stderr.contains("--namespace"), "\(two.stderr)")
        let json = try Fic.run(["inspect", "--cache", cache, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let names = (listing["namespaces"] as? [[String: Any]] ?? []).compactMap { $0["namespace"] as? String }
        #expect(Set(names) == ["alpha", "beta"], "\(json.stdout)")

        let chosen = try Fic.run(["inspect", "--cache", cache, "--namespace", "beta"])
        #expect(chosen.status == 0 && chosen.stdout.contains("cache \(cache)/beta,"), "\(chosen.stdout)\(chosen.stderr)")

        let empty = try Fic.run(["inspect", "--cache", folder.path("nothing")])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no cache 'default'") && empty.stderr.contains("holds no namespace"), "\(empty.stderr)")
    }

    @Test("get and verify name the namespaces the folder holds")
    func getAndVerifyNameTheNamespaces() throws {
        let folder = try TemporaryFolder()
        let cache = folder.path("c")
        try ingest(folder, cache: cache, namespace: "alpha")
        try ingest(folder, cache: cache, namespace: "beta")
        let get = try Fic.run(["get", "--cache", cache, "--format", "tiny", "--entity", "a.jpg", "--out", folder.path("a.png")])
        #expect(get.status == 1)
        #expect(
            get.stderr.contains("no cache 'default'")
                && (get.stderr.contains("namespaces alpha, beta") || get.stderr.contains("namespaces beta, alpha")), "\(get.stderr)")
        let verify = try Fic.run(["verify", "--cache", cache])
        #expect(verify.status == 1)
        #expect(
            verify.stderr.contains("alpha") && verify.stderr.contains("beta") && verify.stderr.contains("--namespace"), "\(verify.stderr)")
    }
}
