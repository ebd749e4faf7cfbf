import FastImageCache
import Foundation
import Testing

extension ViewTests {
    @Suite("photo from a URL")
    struct PhotoURL {
        @Test(
            "`fic view photo URL` tiles the download while it arrives and then shows exactly the photo's pixels at 1:1",
            .enabled(
                if: TestWebServer.shared != nil || TestWebServer.isRequired,
                "nginx is not running: start it with scripts/test-server start (scripts/test does)"))
        func photoFromURL() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            if TestWebServer.shared == nil && TestWebServer.isRequired {
                Issue.record("scripts/test started nginx, but the tests cannot reach it")
            }
            let server = try #require(TestWebServer.shared)
            let published = try server.publish(["photos/hubble.jpg"]); defer { server.unpublish(published) }
            let folder = try TemporaryFolder()
            let script = folder.path("one.script")
            try """
            wait-idle 3000
            zoom-to 1 at 0 0
            pan 300 200
            wait-idle
            """.write(toFile: script, atomically: true, encoding: .utf8)
            let url = "\(server.base)/slow/\(published)/hubble.jpg"
            let run = try ViewRunner.run(
                [
                    "view", "photo", url, "--size", "640x400", "--no-overlay", "--script", script,
                    "--screenshot", folder.path("one.png"), "--stats", folder.path("stats.json")
                ], width: 640, height: 400)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            #expect(stats["status"] as? String == "hubble.jpg", "the pyramid is ready: \(stats["status"] ?? "none")")
            #expect(stats["level"] as? Int == 0)
            #expect(stats["tiles_unreadable"] as? Int == 0)
            let full = try Picture(Fic.testdata + "/photos/hubble.jpg")
            let one = try Picture(folder.path("one.png"))
            #expect(one.differences(x: 0, y: 0, w: 640, h: 400, from: full, ox: 300, oy: 200) == 0)
        }

        @Test(
            "a URL that fails (404) is shown as its error, with no pyramid",
            .enabled(
                if: TestWebServer.shared != nil || TestWebServer.isRequired,
                "nginx is not running: start it with scripts/test-server start (scripts/test does)"))
        func failedURL() throws {
            try #require(ViewRunner.hasXvfb, "xvfb-run is missing: run scripts/install-deps")
            let server = try #require(TestWebServer.shared)
            let folder = try TemporaryFolder()
            let script = folder.path("wait.script")
            // Until the failure has come back (a failed photo is idle), at most 60 s.
            try "wait-idle 3600\n".write(toFile: script, atomically: true, encoding: .utf8)
            let run = try ViewRunner.run(
                [
                    "view", "photo", "\(server.base)/missing-\(UUID().uuidString).jpg", "--size", "320x200", "--no-overlay",
                    "--script", script, "--stats", folder.path("stats.json")
                ], width: 320, height: 200)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = try ViewRunner.stats(folder.path("stats.json"))
            let status = stats["status"] as? String ?? ""
            #expect(status.contains("cannot tile") && status.contains("404 Not Found"), "\(status)")
            #expect(stats["levels"] == nil, "no pyramid")
            #expect(stats["script_waits_timed_out"] as? Int == 0, "wait-idle ended when the failure came")
        }
    }
}
