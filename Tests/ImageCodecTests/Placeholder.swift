import Testing
@Test func placeholderImageCodec() { #expect(1 + 1 == 2) }
