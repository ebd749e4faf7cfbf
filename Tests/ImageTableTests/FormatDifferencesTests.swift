import Testing
@testable import ImageTable

/// What a process joining a table that others use is told when its definition of the format
/// differs: each difference named, with the table's value and its own.
@Suite struct FormatDifferencesTests {
    static func header(
        width: Int = 100, height: Int = 80, bytesPerPixel: Int = 4, max: Int = 500,
        identity: String = "fic-format-v1;name=thumb;family=grid;w=50.0;h=40.0;scale=2.0;style=bgra;max=500"
    ) -> TableHeader {
        TableHeader(
            configuration: TableConfiguration(
                pixelWidth: width, pixelHeight: height, bytesPerPixel: bytesPerPixel, maximumCount: max, identity: identity))
    }

    @Test func theSameDefinitionHasNoDifference() {
        #expect(Self.header().differences(fromTable: Self.header()) == [])
    }

    @Test func eachDifferenceIsNamedWithBothValues() {
        let table = Self.header()
        #expect(
            Self.header(width: 120).differences(fromTable: table) == [
                "pixel size: 100×80 in the table, 120×80 here", "bytes per row: 448 in the table, 512 here"
            ])
        #expect(
            Self.header(bytesPerPixel: 2).differences(fromTable: table) == [
                "bytes per pixel: 4 in the table, 2 here", "bytes per row: 448 in the table, 256 here"
            ])
        let mine = Self.header(max: 800, identity: "fic-format-v1;name=thumb;family=list;w=50.0;h=40.0;scale=2.0;style=bgra;max=800")
        #expect(
            mine.differences(fromTable: table) == [
                "maximum count: 500 in the table, 800 here", "family: grid in the table, list here", "max: 500 in the table, 800 here"
            ])
        let added = Self.header(identity: "fic-format-v1;name=thumb;family=grid;w=50.0;h=40.0;scale=2.0;style=bgra;max=500;opaque=1")
        #expect(added.differences(fromTable: table) == ["opaque: (none) in the table, 1 here"])
        let versioned = Self.header(identity: "fic-format-v2;name=thumb;family=grid;w=50.0;h=40.0;scale=2.0;style=bgra;max=500")
        #expect(versioned.differences(fromTable: table) == ["identity field 1: fic-format-v1 in the table, fic-format-v2 here"])
    }

    @Test func aLayoutThatDiffersOnlyInItsChunksIsStillADifference() {
        let identity = "fic-format-v1;name=thumb"
        let table = TableHeader(
            configuration: TableConfiguration(pixelWidth: 100, pixelHeight: 80, bytesPerPixel: 4, maximumCount: 500, identity: identity))
        let mine = TableHeader(
            configuration: TableConfiguration(
                pixelWidth: 100, pixelHeight: 80, bytesPerPixel: 4, maximumCount: 500, identity: identity, chunkBytes: 8 << 20))
        #expect(mine.differences(fromTable: table) == ["the table's layout differs from this format's"])
    }
}
