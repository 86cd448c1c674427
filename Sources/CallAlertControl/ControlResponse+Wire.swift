import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension ControlResponse {
  /// The answer as one JSON line, without its newline: the only place a response becomes text.
  ///
  /// Keys of ok answers come first in a fixed order; values (status, calls, history) are encoded with
  /// ``encoder(_:)``: sorted keys, dates as ISO 8601 with milliseconds in UTC.
  public var line: String {
    switch self {
    case .ok:
      return #"{"ok":true}"#
    case .outcome(let outcome):
      var members = [("ok", "true"), ("outcome", JSONText.quoted(outcome.result.rawValue))]
      if let id = outcome.callID { members.append(("id", JSONText.quoted(id))) }
      if !outcome.boards.isEmpty { members.append(("boards", JSONText.array(outcome.boards))) }
      if let reason = outcome.reason { members.append(("reason", JSONText.quoted(reason))) }
      members.append(("message", JSONText.quoted(outcome.text)))
      return JSONText.object(members)
    case .status(let report):
      return Self.members([("ok", "true")], encoding: "status", report)
    case .history(let calls, nil):
      return Self.members([("ok", "true")], encoding: "calls", calls)
    case .history(let calls, let problem?):
      guard let error = Self.json(problem.error), let health = Self.json(problem.health) else {
        return Self.failure(problem.error).line
      }
      return Self.members([("ok", "false"), ("error", error), ("history", health)], encoding: "calls", calls)
    case .failure(let failure):
      var members = [("ok", "false"), ("error", JSONText.quoted(failure.error))]
      if let location = failure.location { members.append(("location", JSONText.quoted(location))) }
      if let field = failure.field { members.append(("field", JSONText.quoted(field))) }
      if let message = failure.message { members.append(("message", JSONText.quoted(message))) }
      return JSONText.object(members)
    }
  }

  /// The encoder of the answers' values, for every JSON the runtime writes (`callalert history --json` too):
  /// sorted keys, dates as ISO 8601 with milliseconds in UTC (`2026-11-21T22:00:01.250Z`).
  public static func encoder(_ formatting: JSONEncoder.OutputFormatting = []) -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(Timestamp.iso8601(date))
    }
    return encoder
  }

  /// The decoder matching ``encoder(_:)``: dates in ISO 8601 (what the daemon writes, and what requests take).
  public static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = Timestamp.date(text: text) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "\(text) is not a time; expected \(Timestamp.expected)")
      }
      return date
    }
    return decoder
  }

  /// `members` then `"<key>":<value>`; a value that cannot be encoded gives a failure line instead.
  private static func members<Value: Encodable>(
    _ members: [(String, String)], encoding key: String, _ value: Value
  )
    -> String
  {
    guard let json = json(value) else { return failure("cannot encode the reply's \(key)").line }
    return JSONText.object(members + [(key, json)])
  }

  /// One value as JSON text, or nil when it cannot be encoded.
  static func json<Value: Encodable>(_ value: Value) -> String? {
    (try? encoder().encode(value)).map { String(decoding: $0, as: UTF8.self) }
  }
}

extension ControlResponse {
  /// Reads an answer line, as ``ControlClient`` receives it.
  ///
  /// - Throws: ``ControlFailure`` naming what is wrong when the line is not an answer this client knows.
  public init(line: String) throws(ControlFailure) {
    let wire: WireAnswer
    do {
      wire = try Self.decoder().decode(WireAnswer.self, from: Data(line.utf8))
    } catch {
      throw ControlFailure(
        "the daemon answered something that is not a control answer: \(DisplayText.excerpt(line)) (\(error))")
    }
    switch (wire.ok, wire.calls) {
    case (true, let calls?): self = .history(calls: calls, problem: nil)
    case (false, let calls?):
      guard let health = wire.history else { throw ControlFailure("a history answer without its health: \(line)") }
      self = .history(calls: calls, problem: HistoryProblem(error: wire.error ?? "", health: health))
    case (true, nil):
      if let status = wire.status {
        self = .status(status)
      } else if let word = wire.outcome {
        guard let result = RequestOutcome.Result(rawValue: word) else {
          throw ControlFailure("the daemon answered an outcome this client does not know: \(DisplayText.safe(word))")
        }
        self = .outcome(RequestOutcome(result, callID: wire.id, boards: wire.boards ?? [], reason: wire.reason))
      } else {
        self = .ok
      }
    case (false, nil):
      self = .failure(
        ControlFailure(error: wire.error ?? line, location: wire.location, field: wire.field, message: wire.message))
    }
  }
}

/// Every field an answer line may have; which are there says which answer it is.
private struct WireAnswer: Decodable {
  var ok: Bool
  var error: String?
  var location: String?
  var field: String?
  var message: String?
  var outcome: String?
  var id: String?
  var boards: [String]?
  var reason: String?
  var status: StatusReport?
  var calls: [CallRecord]?
  var history: HistoryHealth?
}
