import Testing
@Test func placeholderFic() { #expect(1 + 1 == 2) }
