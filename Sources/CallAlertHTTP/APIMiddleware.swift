import CallAlertText
internal import HTTPTypes
internal import Hummingbird
import Logging

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// In front of every route, judged from the request's head before any byte of its body is read: who may call
/// from a browser, the bearer token (when one is configured; never for `/healthz`) or for Vonage's webhook its
/// signed JWT, and a declared `Content-Length` over the limit; then errors turned into problem documents, so
/// nothing a caller sends gets a 500 or an empty error. A refusal leaves the body unread (``UnreadBodyGuard``
/// ends the connection).
///
/// Webhook routes (`/v1/webhooks/...`) also take the token as HTTP Basic's password or as `?token=`: the
/// providers cannot send an `Authorization: Bearer` header, but can call a URL with credentials in it. With a
/// Vonage signature secret, Vonage's route takes a valid signed JWT instead (``VonageSignature``).
struct APIMiddleware<Context: RequestContext>: RouterMiddleware {
  let token: String?
  /// The Vonage signature secret; nil: Vonage's JWT is not checked, and authenticates nothing.
  let vonageSecret: [UInt8]?
  /// The largest body; a larger declared `Content-Length` is refused with 413 before the body is read.
  let bodyLimit: Int
  /// Who may call from a browser (`Host`, `Origin`, `Content-Type`), checked before the token.
  let origins: RequestOriginPolicy
  let metrics: CallMetrics
  let logger: Logger
  /// The time a Vonage JWT's `iat` is judged by.
  var now: @Sendable () -> Date = { Date() }

  /// Vonage's webhook route, where a signed JWT stands in for the token.
  static var vonagePath: String { "/v1/webhooks/vonage" }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let path = request.uri.path
    let route = HTTPRoutes.route(of: path)
    let response: Response
    if let refusal = origins.refusal(
      method: request.method.rawValue, path: path, host: request.head.authority,
      origin: request.headers[.origin], contentType: request.headers[.contentType],
      hasBody: request.headers[.transferEncoding] != nil
        || (request.headers[.contentLength].flatMap { Int($0) } ?? 0) > 0)
    {
      response = refusal.response
    } else if let refusal = authenticationRefusal(request, path: path) {
      response = refusal.response
    } else if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > bodyLimit {
      response = ProblemDocument.tooLarge(bodyLimit).response
    } else {
      do {
        response = try await next(request, context)
      } catch let problem as ProblemDocument {
        response = problem.response
      } catch let error as HTTPError where error.status == .notFound {
        if let route, !route.methods.contains(request.method.rawValue) {
          response = ProblemDocument.methodNotAllowed(request.method.rawValue, allowed: route.methods).response
        } else {
          response = ProblemDocument.notFound(path).response
        }
      } catch let error as HTTPError where error.status == .contentTooLarge {
        response = ProblemDocument.tooLarge(bodyLimit).response
      } catch let error as HTTPError {
        let status = error.status.code >= 500 ? 400 : error.status.code
        response =
          ProblemDocument(
            "http", title: error.status.reasonPhrase, status: status, detail: error.body ?? error.status.reasonPhrase
          ).response
      } catch {
        // Not foreseen: still a document, and logged; never a 500 for what a caller sent.
        logger.warning("http: \(request.method) \(path): \(error)")
        response = ProblemDocument("bad-request", title: "Bad request", status: 400, detail: "\(error)").response
      }
    }
    metrics.recordRequest(route: route?.path ?? "unknown", status: response.status.code)
    return response
  }

  /// Why the request is not authenticated, or nil when it is (or nothing is asked): on Vonage's route with a
  /// signature secret, its signed JWT (the body's hash is checked by the route, once the body is read);
  /// elsewhere the token, when one is configured.
  func authenticationRefusal(_ request: Request, path: String) -> ProblemDocument? {
    if path == Self.vonagePath, let vonageSecret {
      do {
        _ = try VonageSignature.verify(
          authorization: request.headers[.authorization], secret: vonageSecret, now: now())
        return nil
      } catch {
        logger.notice("http: vonage webhook refused: \(error.check): \(error)")
        return .badSignature(error)
      }
    }
    guard let token, path != "/healthz" else { return nil }
    let webhook = path.hasPrefix("/v1/webhooks/")
    if Self.isAuthorized(request, token: token, webhook: webhook) { return nil }
    guard let header = request.headers[.authorization] else {
      return .unauthorized(
        webhook
          ? "this server asks for the token: add '?token=<token>' to the webhook's URL, or give it as HTTP "
            + "Basic's password"
          : "this server asks for a bearer token: send 'Authorization: Bearer <token>' (the http.token_file's line)")
    }
    if path == Self.vonagePath, header.lowercased().hasPrefix("bearer ") {
      return .unauthorized(
        "Vonage's signed JWT is not checked without http.vonage_signature_secret_file, so it stands for nothing "
          + "here: set that file, or add '?token=<token>' to the webhook's URL")
    }
    return .unauthorized("the token does not match")
  }

  /// Whether the request carries the token: `Authorization: Bearer`, or for webhooks Basic's password or
  /// `?token=` (a provider's own `Authorization`, such as Vonage's JWT, does not hide the URL's token).
  /// Compared in constant time.
  static func isAuthorized(_ request: Request, token: String, webhook: Bool) -> Bool {
    let expected = Array(token.utf8)
    if let header = request.headers[.authorization] {
      let lowered = header.lowercased()
      if lowered.hasPrefix("bearer "),
        ConstantTime.equal(Array(header.dropFirst(7).trimmingWhitespace().utf8), expected)
      {
        return true
      }
      if webhook, lowered.hasPrefix("basic "),
        let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingWhitespace()),
        let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
        ConstantTime.equal(Array(text[text.index(after: colon)...].utf8), expected)
      {
        return true
      }
    }
    if webhook, let query = request.uri.queryParameters["token"] {
      return ConstantTime.equal(Array(String(query).utf8), expected)
    }
    return false
  }
}
