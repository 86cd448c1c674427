import CallAlertPatterns
import Testing

@Test func sourceLocationPrintsAsFileLineColumn() {
  #expect(SourceLocation(file: "rings.yaml", line: 12, column: 7).description == "rings.yaml:12:7")
}
