import Testing
@testable import ImageTable

@Suite struct TableKeyTests {
    @Test func keysDifferForDifferentStrings() {
        #expect(TableKey("photo-1") != TableKey("photo-2"))
        #expect(TableKey("photo-1") == TableKey("photo-1"))
        #expect(TableKey("photo-1").description.count == 32)
    }
}
