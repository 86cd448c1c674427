import CallAlertInputs
import Foundation
internal import HTTPTypes
internal import Hummingbird
import Logging

/// In front of every route, judged from the request's head before any byte of its body is read: who may call
/// from a browser, the bearer token (when one is configured; never for `/healthz`), and a declared
/// `Content-Length` over the limit; then errors turned into problem documents, so nothing a caller sends gets a
/// 500 or an empty error. A refusal leaves the body unread (``UnreadBodyGuard`` ends the connection).
///
/// Webhook routes (`/v1/webhooks/...`) also take the token as HTTP Basic's password or as `?token=`: the
/// providers cannot send an `Authorization: Bearer` header, but can call a URL with credentials in it.
struct APIMiddleware<Context: RequestContext>: RouterMiddleware {
  let token: String?
  /// The largest body; a larger declared `Content-Length` is refused with 413 before the body is read.
  let bodyLimit: Int
  /// Who may call from a browser (`Host`, `Origin`, `Content-Type`), checked before the token.
  let origins: RequestOriginPolicy
  let metrics: CallMetrics
  let logger: Logger

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
    } else if let token, path != "/healthz",
      !Self.isAuthorized(request, token: token, webhook: path.hasPrefix("/v1/webhooks/"))
    {
      response =
        ProblemDocument.unauthorized(
          request.headers[.authorization] == nil
            ? "this server asks for a bearer token: send 'Authorization: Bearer <token>' (the http.token_file's line)"
            : "the token does not match"
        ).response
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

  /// Whether the request carries the token: `Authorization: Bearer`, or for webhooks Basic's password or
  /// `?token=`. Compared in constant time.
  static func isAuthorized(_ request: Request, token: String, webhook: Bool) -> Bool {
    let expected = Array(token.utf8)
    if let header = request.headers[.authorization] {
      if header.lowercased().hasPrefix("bearer ") {
        return ConstantTime.equal(Array(header.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8), expected)
      }
      if webhook, header.lowercased().hasPrefix("basic "),
        let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
        let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
      {
        return ConstantTime.equal(Array(text[text.index(after: colon)...].utf8), expected)
      }
      return false
    }
    if webhook, let query = request.uri.queryParameters["token"] {
      return ConstantTime.equal(Array(String(query).utf8), expected)
    }
    return false
  }
}
