import CallAlertPatterns
import CallAlertProtocol
import Testing

@Suite struct BuiltInPatternsTests {
  @Test func namesCoverCadencesAndAndroidVibrations() {
    #expect(
      BuiltInPatterns.names == [
        "US", "UK", "DE", "FR", "JP", "AU", "ES", "IT", "IN", "android_default", "android_simple", "android_pulse",
      ])
  }

  @Test(arguments: BuiltInPatterns.names)
  func everyBuiltInFitsTheReferenceBoard(name: String) throws {
    let definition = try #require(BuiltInPatterns.named(name))
    #expect(definition.origins.count == definition.pattern.steps.count)
    #expect(definition.validate().isEmpty)
    #expect(BuiltInPatterns.named(name.lowercased())?.pattern == definition.pattern)
  }

  @Test func unknownNamesGiveNothing() {
    #expect(BuiltInPatterns.named("XX") == nil)
  }

  @Test func theBuiltInFileCompilesAndFits() {
    let file = BuiltInPatterns.file
    #expect(file.patterns.map(\.slot) == Array(0..<12))
    #expect(file.validate().isEmpty)
    #expect(file.compileBytes().count < Int(Capabilities.referenceBoard.tableCapacity))
  }
}
