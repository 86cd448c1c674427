import CallAlertEngine
import CallAlertValues
import Foundation
import Testing

@Suite struct CallRecordCodingTests {
  static let record = CallRecord(
    id: "c1", callerNumber: "+4930123", callerName: "Alice", level: .timeSensitive, patternHint: "office",
    receivedAt: Date(timeIntervalSince1970: 0), sentAt: Date(timeIntervalSince1970: 1),
    rangAt: Date(timeIntervalSince1970: 2),
    endedAt: Date(timeIntervalSince1970: 3), outcome: .hungUp, reason: "hangup", boards: ["desk"], pattern: "slot 3",
    missed: false, acknowledged: false, acknowledgedAt: Date(timeIntervalSince1970: 4))

  static func encoded(_ record: CallRecord) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .secondsSince1970
    return String(decoding: try encoder.encode(record), as: UTF8.self)
  }

  @Test func jsonKeysAreSnakeCase() throws {
    #expect(
      try Self.encoded(Self.record)
        == #"{"acknowledged":false,"acknowledged_at":4,"boards":["desk"],"caller":"+4930123","ended_at":3,"id":"c1","#
        + #""level":"time-sensitive","missed":false,"name":"Alice","outcome":"hung-up","pattern":"slot 3","#
        + #""pattern_hint":"office","rang_at":2,"reason":"hangup","received_at":0,"sent_at":1}"#)
  }

  @Test func absentValuesAreLeftOut() throws {
    let sparse = CallRecord(id: "c", receivedAt: Date(timeIntervalSince1970: 0), outcome: .ringing)
    #expect(
      try Self.encoded(sparse)
        == #"{"acknowledged":false,"boards":[],"id":"c","level":"active","missed":false,"outcome":"ringing","#
        + #""received_at":0}"#
    )
  }

  @Test func recordsDecodeWhatTheyEncode() throws {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    #expect(try decoder.decode(CallRecord.self, from: Data(Self.encoded(Self.record).utf8)) == Self.record)
  }

  @Test func aRecordGivesBackItsCall() {
    #expect(
      Self.record.call
        == IncomingCall(
          id: "c1", callerNumber: "+4930123", callerName: "Alice", sentAt: Date(timeIntervalSince1970: 1),
          level: .timeSensitive, patternHint: "office"))
  }
}
