import FICTestSupport
import Foundation
@testable import ImageCodec
import Testing

/// The warnings libheif attaches to a decoded image, read without touching freed memory:
/// libheif 1.15 composes every warning's message in one buffer of the image, so that fetched
/// together all but the last pointed at freed memory (found by the `decode` fuzz target; under
/// Address Sanitizer a heap-use-after-free, without it a warning of garbage), and it writes every
/// warning after the first asked for, whatever room it is given.
@Suite struct HEIFWarningsTests {
    /// The fuzzer's input: an AVIF of 1,752 bytes whose decode carries several warnings (its
    /// `nclx` code points unknown to libheif), kept as found.
    static let severalWarnings: [UInt8] = Array(
        Data(
            base64Encoded:
                "AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUEAAADybWV0YQAAAAAAAAAoaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAA"
                + "AGxpYmF2aWYAAAAADnBpdG0AAAAAAAEAAAAeaWxvYwAAAABEAAABAAEAAAABAAABGgAABb4AAAAoaWluZgAAAAAAAQAAABppbmZl"
                + "AgAAAAABAABhdjAxQ29sb3IAAAAAamlwcnAAAABLaXBjbwAAABRpc3BlAAAAAAAAAGAAAABAAAAAEHBpeGkAAAAAAwgICAAAAAxh"
                + "djFDgSAAAAAAABNjb2xybmNseAABAA0ABoAAAAAXaXBtYQAAAAAAAAABAAEEAQKDBAAABcZtZGF0EgAKCTgZb/7C/OUNIDKuCxMg"
                + "AwwwwgDdK56zBC4bla5FChVE6iLcB/7jXxZLeWEOHsYzx1rOotBbf9qS26jAfbQxzmdeZlioxgjTYmYcIySlPs3h5IwlBDa430vx"
                + "SXMn1tgVRa9XJU4I0DerSI3QYRvawrY+QgdmOJZBm7n6jClh0Bfav7Qv4oyr6zf4YbTf+389EJNdrVcljXMoNJrvwxee/n8dnidm"
                + "KrfpQhdIkuhimcmQUaBTHft3GSOseR9pEemJSJ+yn0ZGRFNpZe8pe9v0FhktM3QRFkm550xpQ6qkGjarnmfNFayjuyc5XE7IqGt8"
                + "FuAAImTsBahlQy+G65XklHtF/iUWZ1J6a8bRGUkmJGSp9+7TmLKrMyrtg3IIt5PDRS36Q2sCxcrvBa1lk+1p/yJiqLff/oGncn0y"
                + "3aGs/8Dg4dCmW5j8MHgRHhuyVtH19Pw4/eiaky/Z+x5LWgdZjBAWxFETHN2RAY4U+Pet1gxoQDZ1M3v4WO0T1oz9w725QkSf82he"
                + "w+P0nvwzpO8laJ25TSiyFZYPZRJ7Tu2y2AS5nbAjxEDpLJ7ozdbywLkFhBiFGQoGDde/FHsIjGxI8CufB8mbBm2PTcaStuMYGDWk"
                + "4xW02hlfK2UOncjgzmfsNBRSbyrzmjiAMwOOOgDJHawPCMVam3Pm5dKnWB4NYakONiOLsLGFZlcRAgCNXZC3+VzC6eRPi25XLCj5"
                + "42jXUXHySGeFcVWCVLFpav+5HbW7kdXtR00hDnTT2+GrdcUXfbowcWqA4HHX6vTiFZolhvLUPB8MCbYbQ88+CRngyFzTVvC5eT+7"
                + "WZsnkD6ifdjkgeZ1Ugn1YuA0QEalIgvFe01HxiZNRHuJT8zkEqalJ2/0fLPBNhLmJiTkVreLekIVlsMGfVcUjKeERyMuVv803Kyi"
                + "jsptXy9DEcTo4YZ6QnNDKJP4U1T+0iBxLedOqYvAYqCvEbNyUc9FweuYLVTG+4FaqHX/6ePfxcRvqie4Mi6j7Y6jiXrNrJlh3LD7"
                + "znseIggX8IZZQLdsUpOuoZBT5M/RVemHQPI+3h6jKLO93xC3drOXKkZfGCUgCnT3Bqafd0cXa98ZTvfdy3FogQOfAZD5udcDZ/pt"
                + "0O/yD0zMO182TyHB+IPMTwGtOKaiszkoszXnNTX7uVMVHm1S+hm9m3FpV3oGkimhmFPuLecR8HEalqjVl78JJRy5fnz8E6EBrBjW"
                + "en30srtnnvOQNtPXoHxq0Tmmz27iS9GpmeGNjd09c7JWRzBqBcdOEH8b4EBmIie00ZhBPQzL/5UN6tHlLkH/lxPcnsGr+2RCCEKy"
                + "pNke4CHfvp8X2VMa2ws1bg5ChwX0V/75QeZpv3XYa/Hum/Yge0rGAKiti+vrwqpf92sPh5EJGLOyZEC0BKGaoke+RDBzwlMoz2rb"
                + "ElovTe8ahbramWslE3+URVNoi+/uQ1PhrivFsB0vkynTpHi3iYFeRCNjtt3eu2vwl19dVs5hHZXQOWIEIAjVwMOjv2C105UGRp8A"
                + "E6IM68vDKq0OfQkuhMm+C5aH2ogYRyCSg+LnVEl2bFe+Wq78t+rOjeMIJUoLWvaI0BCUTjCCcurXg7uTImfppY18inPgDoDMctCF"
                + "LzJxRGWC3ucreN51+EqufVsbkSIw41SaG+Fs9TXduBBTHk/azgv9VbwUhTnjnbQZSrRi4FotVlQ1bpexrQek9P1sAvNnK9DsDVTJ"
                + "+JaCNzAKFEcv2HN6kj1BcJwc5zl4JdnMuv/U2BT9LxNBud//a7urAcPewJABBFi/aA1uYKpafPFagU497QVjETVT1TVKalS1GEwS"
                + "iX2GQzrBI5WNLR5Laij3iP4TG/yFzzSgZnxRViK73gBzDQVggq1PgQdHY5wa1JpDhjEGt/zFPc/FZRwE0Tib2LKS4D4kmkCp4Bgs"
                + "DMd/Gh8jFRsHWw9M+Gz1J0H/aKAT6gCMVQDu"
        )!)

    @Test func everyWarningIsReadWhole() throws {
        // Through libheif itself: still AVIFs are decoded by libavif, HEICs by libheif.
        let warnings = try Self.severalWarnings.withUnsafeBytes { raw in
            let file = try HEIFFile(raw, maximumPixelCount: Int.max)
            return try HEIFPicture(file.primary, alpha: file.info().hasAlpha, strict: false, file: file).warnings
        }
        let heif = warnings.filter { $0.hasPrefix("libheif: ") }
        #expect(heif.count >= 2, "\(warnings)")
        for warning in heif {
            #expect(
                !warning.contains("\u{FFFD}") && !warning.unicodeScalars.contains { $0.properties.generalCategory == .control },
                "\(warning)")
            #expect(warning.count > "libheif: ".count + 8, "\(warning)")
        }
    }
}
