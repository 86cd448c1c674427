import CallAlertDaemon
import CallAlertHistory
import Foundation

/// `callalert history` asks the running daemon first: it knows the records still waiting in memory for a
/// disk that refuses them, which the file cannot show.
enum HistoryFromDaemon {
  /// The daemon's answer: the calls it could read and, when the history is not whole, what is missing.
  struct Answer {
    var calls: [CallRecord]
    /// The daemon's `error` (records pending or lost, a degraded history); nil when whole.
    var warning: String?
  }

  /// Asks the daemon at `socketPath`; nil when no daemon listens there (then the file is the whole truth).
  static func ask(socketPath: String, missedOnly: Bool, limit: Int) async throws -> Answer? {
    let request = #"{"type":"history","missed":\#(missedOnly),"limit":\#(limit)}"#
    let answer: Result<String, ControlSocketError>
    do {
      answer = .success(try await ControlSocketClient.request(request, path: socketPath))
    } catch {
      answer = .failure(error)
    }
    // (A `catch ControlSocketError.noDaemon` clause here crashes Swift 6.3's ownership verifier.)
    if case .failure(.noDaemon) = answer { return nil }
    let line = try answer.get()
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
      throw CommandFailure("the daemon answered something that is not a JSON object: \(line)")
    }
    let warning = object["ok"] as? Bool == true ? nil : (object["error"] as? String ?? line)
    guard let calls = object["calls"] else { throw CommandFailure(warning ?? "no calls in the daemon's answer") }
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      let format = ISO8601DateFormatter()
      format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      guard let date = format.date(from: text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: decoder.codingPath, debugDescription: "not ISO 8601: \(text)"))
      }
      return date
    }
    let records = try decoder.decode([CallRecord].self, from: JSONSerialization.data(withJSONObject: calls))
    return Answer(calls: records, warning: warning)
  }
}
