import Testing
@Test func placeholderFastImageCache() { #expect(1 + 1 == 2) }
