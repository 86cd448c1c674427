import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues
import Foundation
import Testing

/// Ids are valid UTF-8 without control characters, read from the bytes that arrived, and
/// a payload's text keeps its own lines and columns.
@Suite struct ControlBytesTests {
  static func parse(_ bytes: [UInt8]) throws(InputError) -> ControlRequest {
    try ControlRequest.parse(bytes: bytes, source: "socket", lineNumber: 3)
  }

  @Test func invalidUTF8InAnIDIsRefusedNotReplaced() {
    let line = Array(#"{"type":"call","id":"c"#.utf8) + [0xFF] + Array(#""}"#.utf8)
    #expect(throws: InputError.self) { try Self.parse(line) }
    do {
      _ = try Self.parse(line)
    } catch {
      #expect(error.location == "socket:3:21")
      #expect(error.message.contains("not valid UTF-8"))
    }
  }

  @Test(arguments: [
    #"{"type":"call","id":"a\u0000b"}"#, #"{"type":"hangup","id":"a\u0000"}"#, #"{"type":"answered","id":"\u001b"}"#,
    #"{"type":"call","id":"x\u0085y"}"#, #"{"type":"ack","board":"d\u0007"}"#,
  ])
  func controlCharactersInIDsAreRefused(line: String) {
    #expect(throws: InputError.self) { try Self.parse(Array(line.utf8)) }
  }

  @Test func aNullInAnIDSaysWhere() {
    #expect(
      throws: InputError(
        location: "socket:3:21", field: "id",
        message: "\"a\\u0000b\" holds the control character U+0000 at character 2; an id must be printable text")
    ) { try Self.parse(Array(#"{"type":"call","id":"a\u0000b"}"#.utf8)) }
  }

  @Test func tooLongAnIDIsRefused() {
    let id = String(repeating: "i", count: CallID.maximumBytes + 1)
    #expect(throws: InputError.self) { try Self.parse(Array(#"{"type":"call","id":"\#(id)"}"#.utf8)) }
    let fits = String(repeating: "i", count: CallID.maximumBytes)
    #expect(
      (try? Self.parse(Array(#"{"type":"hangup","id":"\#(fits)"}"#.utf8))) == .input(.hangup(callID: fits)))
  }

  @Test func aPayloadInTheLineIsLocatedInTheLine() throws {
    let line = #"{"type":"push","payload":{"pushType":1,"id":"c","aps":{"interruption-level":"loud"}}}"#
    guard case .push(let document) = try Self.parse(Array(line.utf8)) else {
      Issue.record("not a push")
      return
    }
    #expect(document.origin == PushPayload.Origin(source: "socket", line: 3, column: 26))
    #expect(document.form == .object)
    #expect(throws: InputError.self) { try PushPayload.read(document, receivedAt: Date()) }
    do {
      _ = try PushPayload.read(document, receivedAt: Date())
    } catch {
      // The column of "loud" in the line.
      #expect(
        error.location
          == "socket:3:\(line.distance(from: line.startIndex, to: line.range(of: "\"loud")!.lowerBound) + 1)")
    }
  }

  /// `notify push` sends the file's text unchanged; errors point into the file.
  @Test func aPayloadAsTextKeepsItsLinesAndColumns() throws {
    let file = "{\n  \"pushType\": 1,\n  \"aps\": {\"interruption-level\": \"loud\"}\n}\n"
    let request = JSONText.object([
      ("type", JSONText.quoted("push")), ("payload", JSONText.quoted(file)), ("file", JSONText.quoted("call.json")),
    ])
    guard case .push(let document) = try Self.parse(Array(request.utf8)) else {
      Issue.record("not a push")
      return
    }
    #expect(document.payload == Array(file.utf8.dropLast()))
    #expect(document.form == .text(file: "call.json"))
    #expect(
      throws: InputError(
        location: "call.json:3:33", field: "aps.interruption-level",
        message: "\"loud\" is not one of passive, active, time-sensitive, critical")
    ) { try PushPayload.read(document, receivedAt: Date()) }
  }

  @Test func aPayloadFileThatIsNotUTF8IsLocated() {
    let bytes = Array("{\n \"a\": \"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
    #expect(
      throws: InputError(location: "call.json:2:8", message: "byte 0xC3 is not UTF-8; a push payload is UTF-8 JSON")
    ) { try PushPayload.text(of: bytes, source: "call.json") }
  }
}

/// Errors are printed and logged: what a client named in them is shown safely.
@Suite struct SafeErrorTests {
  @Test func anUnknownFieldWithAnEscapeIsShownEscaped() {
    do {
      _ = try ControlRequest.parse(line: #"{"type":"status","\u001b[2J":1}"#, source: "socket", lineNumber: 1)
      Issue.record("parsed")
    } catch {
      #expect(!error.description.contains("\u{1B}"))
      #expect(error.description.contains("\\u001B[2J"))
    }
  }
}
