import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues

/// What a provider's webhook request means and what to answer it: the typed requests for the daemon (none
/// for an event that is not about an incoming call), and the body the provider expects back.
public struct WebhookAnswer: Equatable, Sendable {
  /// The requests, in order.
  public var requests: [ControlRequest]
  /// The answer's content type.
  public var contentType: String
  /// The answer's body.
  public var body: String

  /// Creates an answer.
  public init(_ requests: [ControlRequest], contentType: String, body: String) {
    self.requests = requests
    self.contentType = contentType
    self.body = body
  }
}

/// What webhook parsers share.
enum Webhook {
  /// A caller's number as the engine takes it: `+` and digits for a number in international form without its
  /// `+` (sipgate.io, Vonage), unchanged when it has one; nil for withheld numbers.
  static func callerNumber(_ text: String?) -> String? {
    guard let text, !text.isEmpty else { return nil }
    let lowered = text.lowercased()
    if ["anonymous", "unknown", "restricted", "private", "blocked", "withheld"].contains(lowered) { return nil }
    if text.first != "0" && text.allSatisfy({ $0.isASCII && $0.isNumber }) { return "+" + text }
    return text
  }

  /// A required form field, or an error naming it.
  static func required(_ form: FormBody, _ name: String, provider: String) throws(InputError) -> String {
    guard let value = form[name], !value.isEmpty else {
      throw InputError(location: "body", field: name, message: "missing; a \(provider) webhook always sends it")
    }
    return value
  }

  /// A call id checked as every id is (``CallID``).
  static func callID(_ id: String, field: String) throws(InputError) -> String {
    if let problem = CallID.problem(id) { throw InputError(location: "body", field: field, message: problem) }
    return id
  }

  /// An error for a value outside the documented ones.
  static func unknown(_ value: String, field: String, known: [String]) -> InputError {
    InputError(
      location: "body", field: field,
      message: "'\(DisplayText.excerpt(value))' is not one of \(known.joined(separator: ", "))")
  }
}
