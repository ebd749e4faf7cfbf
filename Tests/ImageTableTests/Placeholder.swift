import Testing
@Test func placeholderImageTable() { #expect(1 + 1 == 2) }
