import CallAlertControl
import CallAlertText
internal import HTTPTypes
internal import Hummingbird

/// An RFC 9457 problem document (`application/problem+json`): what every error of the API answers, naming the
/// field and the place (`body:1:12`, `query`, `path`, `header`) when the input was wrong. Never a 500: an
/// error the API did not foresee is still answered with a document.
public struct ProblemDocument: Error, Equatable, Sendable {
  /// The problem's kind, a URN under `urn:callalert:problem:` (`bad-input`, `unauthorized`, ...).
  public var type: String
  /// A short summary of the kind.
  public var title: String
  /// The HTTP status.
  public var status: Int
  /// What went wrong this time, for people.
  public var detail: String
  /// The field that is wrong, when one is (`id`, `limit`, `aps.interruption-level`).
  public var field: String?
  /// Where it is wrong: `body:1:12`, `query`, `path`, `header`.
  public var location: String?
  /// Extra headers (`WWW-Authenticate`, `Allow`).
  var headers: [(String, String)] = []

  /// Creates a problem.
  public init(
    _ kind: String, title: String, status: Int, detail: String, field: String? = nil, location: String? = nil
  ) {
    type = "urn:callalert:problem:" + kind
    self.title = title
    self.status = status
    self.detail = detail
    self.field = field
    self.location = location
  }

  /// Equal when every part shown to the caller is (extra headers aside).
  public static func == (lhs: ProblemDocument, rhs: ProblemDocument) -> Bool {
    (lhs.type, lhs.title, lhs.status, lhs.detail, lhs.field, lhs.location)
      == (rhs.type, rhs.title, rhs.status, rhs.detail, rhs.field, rhs.location)
  }

  /// Bad input, from a parser's error: 400 with the field and the place.
  static func badInput(_ error: InputError) -> ProblemDocument {
    ProblemDocument(
      "bad-input", title: "Bad input", status: 400, detail: DisplayText.safe(error.message),
      field: error.field.isEmpty ? nil : DisplayText.safe(error.field), location: DisplayText.safe(error.location))
  }

  /// A request that is well formed but cannot be done now (a do-not-disturb end already past): 422, with the
  /// field and place.
  static func unprocessable(_ failure: ControlFailure) -> ProblemDocument {
    ProblemDocument(
      "unprocessable", title: "Unprocessable content", status: 422,
      detail: DisplayText.safe(failure.message ?? failure.error),
      field: failure.field.map(DisplayText.safe), location: failure.location.map(DisplayText.safe))
  }

  /// Bad input at a place the API names itself (`query`, `path`, `header`).
  static func badInput(_ detail: String, field: String?, location: String) -> ProblemDocument {
    ProblemDocument("bad-input", title: "Bad input", status: 400, detail: detail, field: field, location: location)
  }

  /// What a failed control answer becomes: bad input (it names a place) is 400; anything else (too many
  /// calls ring) is a 409 conflict with the daemon's state.
  static func failure(_ failure: ControlFailure) -> ProblemDocument {
    if let location = failure.location {
      return ProblemDocument(
        "bad-input", title: "Bad input", status: 400, detail: DisplayText.safe(failure.message ?? failure.error),
        field: failure.field.map(DisplayText.safe), location: DisplayText.safe(location))
    }
    return ProblemDocument("refused", title: "Refused", status: 409, detail: DisplayText.safe(failure.error))
  }

  static func unauthorized(_ detail: String) -> ProblemDocument {
    var problem = ProblemDocument(
      "unauthorized", title: "Unauthorized", status: 401, detail: detail, field: "Authorization", location: "header")
    problem.headers = [("WWW-Authenticate", #"Bearer realm="callalert""#)]
    return problem
  }

  /// A Vonage webhook whose signature was refused: 401, naming the check that failed (`alg`, `signature`,
  /// `iat`, `payload_hash`).
  static func badSignature(_ error: VonageSignatureError) -> ProblemDocument {
    var problem = ProblemDocument(
      "bad-signature", title: "Unauthorized", status: 401, detail: error.description, field: error.check,
      location: error == .payloadHashMismatch ? "body" : "header")
    problem.headers = [("WWW-Authenticate", #"Bearer realm="callalert""#)]
    return problem
  }

  static func notFound(_ path: String) -> ProblemDocument {
    ProblemDocument(
      "not-found", title: "Not found", status: 404,
      detail: "no route \(DisplayText.excerpt(path))"
        + (HTTPRoutes.suggestion(for: path).map { "; did you mean \(DisplayText.excerpt($0))?" } ?? "")
        + "; the routes are in docs/openapi.yaml",
      location: "path")
  }

  static func methodNotAllowed(_ method: String, allowed: [String]) -> ProblemDocument {
    var problem = ProblemDocument(
      "method-not-allowed", title: "Method not allowed", status: 405,
      detail: "\(DisplayText.excerpt(method)) is not allowed here; use \(allowed.joined(separator: ", "))",
      location: "method")
    problem.headers = [("Allow", allowed.joined(separator: ", "))]
    return problem
  }

  static func tooLarge(_ limit: Int) -> ProblemDocument {
    ProblemDocument(
      "too-large", title: "Content too large", status: 413,
      detail: "the body is larger than \(limit / 1_024) KiB", location: "body")
  }

  static func tooSlow(_ timeout: Duration) -> ProblemDocument {
    ProblemDocument(
      "timeout", title: "Request timeout", status: 408,
      detail: "the body did not arrive within \(timeout.components.seconds) s", location: "body")
  }

  /// What this daemon does not offer on the page (`what`: "changing the quiet hours").
  static func notOffered(_ what: String) -> ProblemDocument {
    ProblemDocument("not-offered", title: "Not found", status: 404, detail: "this daemon does not offer \(what)")
  }

  static let shuttingDown = ProblemDocument(
    "unavailable", title: "Service unavailable", status: 503, detail: "the daemon is stopping")

  /// The document as JSON, keys in RFC 9457's order and then the extensions.
  public var json: String {
    var members = [
      ("type", JSONText.quoted(type)), ("title", JSONText.quoted(title)), ("status", String(status)),
      ("detail", JSONText.quoted(detail)),
    ]
    if let field { members.append(("field", JSONText.quoted(field))) }
    if let location { members.append(("location", JSONText.quoted(location))) }
    return JSONText.object(members)
  }

  /// The answer: this status, `application/problem+json`, the document.
  var response: Response {
    var fields = HTTPFields()
    fields[.contentType] = "application/problem+json"
    fields[.cacheControl] = "no-store"
    for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
    return Response(
      status: HTTPResponse.Status(code: status), headers: fields,
      body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
  }
}
