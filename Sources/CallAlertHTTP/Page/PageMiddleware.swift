import CallAlertText
internal import HTTPTypes
internal import Hummingbird
import Logging

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// In front of the page's routes (``PagePaths``), judged from the request's head: who may open the page, and
/// who may press its buttons.
///
/// - `Host` and `Origin` as for the API (``RequestOriginPolicy``): without a token only loopback names and
///   `http.allowed_hosts` are served (a page that rebinds its own name to 127.0.0.1 reads nothing), and a
///   request whose `Origin` is another site's is refused.
/// - A request that changes something (any method but GET and HEAD) must come from the page itself: a
///   browser's `Sec-Fetch-Site` must say `same-origin`, and the request must carry a session cookie that was
///   set before it (the route then checks the form's token against it, ``PageSessions``).
/// - With a token configured, a session must have given it on the login form; until then the page answers
///   with the form (the style sheet and the script, which hold nothing of the daemon's, are served anyway).
/// - Every answer says: no caching, no framing, no sniffing, a referrer only to itself (with `no-referrer` a
///   browser sends its forms with `Origin: null`), and a content security policy that
///   lets only the daemon's own style sheet and script run.
struct PageMiddleware<Context: RequestContext>: RouterMiddleware {
  let token: String?
  let sessions: PageSessions
  let origins: RequestOriginPolicy
  let bodyLimit: Int
  let logger: Logger

  static var securityHeaders: [(String, String)] {
    [
      (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
          + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
      ),
      ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "same-origin"),
      ("Cache-Control", "no-store"),
    ]
  }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var response = try await judge(request, context: context, next: next)
    for (name, value) in Self.securityHeaders {
      guard let field = HTTPField.Name(name) else { continue }
      if response.headers[field] == nil { response.headers[field] = value }
    }
    return response
  }

  private func judge(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let path = request.uri.path
    let changes = request.method != .get && request.method != .head
    if let refusal = origins.refusal(
      method: "GET", path: path, host: request.head.authority, origin: request.headers[.origin], contentType: nil,
      hasBody: false)
    {
      return PageAnswer.problem(refusal)
    }
    if changes, let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin" {
      return PageAnswer.problem(
        ProblemDocument(
          "forbidden-origin", title: "Forbidden", status: 403,
          detail: "this request was started by another site (Sec-Fetch-Site: \(DisplayText.excerpt(site))); "
            + "only the page's own buttons may change something", field: "Sec-Fetch-Site", location: "header"))
    }
    if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > bodyLimit {
      return PageAnswer.problem(.tooLarge(bodyLimit))
    }
    let carried = sessions.session(cookieHeader: request.headers[.cookie])
    if changes && carried == nil {
      return PageAnswer.problem(
        ProblemDocument(
          "no-session", title: "Forbidden", status: 403,
          detail: "this form has no session (the daemon may have restarted since the page was loaded): load the "
            + "page again and press the button there", location: "header"))
    }
    let session = carried ?? sessions.newSession(authenticated: token == nil)
    let open = [PagePaths.style, PagePaths.script, PagePaths.login].contains(path)
    if token != nil, !session.authenticated, !open {
      if changes {
        return PageAnswer.problem(
          ProblemDocument(
            "unauthorized", title: "Unauthorized", status: 401,
            detail: "log in with the token first (\(PagePaths.login))"))
      }
      return withCookie(PageAnswer.redirect(to: PagePaths.login), carried == nil ? session : nil)
    }
    var forwarded = request
    if carried == nil {
      // The route reads the session from the cookie; a new one is handed to it as if the browser had sent it.
      var head = request.head
      head.headerFields[.cookie] = "\(PageSessions.cookieName)=\(sessions.cookieValue(session))"
      forwarded = Request(head: head, body: request.body)
    }
    let response: Response
    do {
      response = try await next(forwarded, context)
    } catch let problem as ProblemDocument {
      response = PageAnswer.problem(problem)
    } catch let error as HTTPError where error.status == .notFound {
      response = PageAnswer.problem(.notFound(path))
    } catch {
      logger.notice("http: page \(request.method) \(path): \(error)")
      response = PageAnswer.problem(
        ProblemDocument("bad-request", title: "Bad request", status: 400, detail: "\(error)"))
    }
    return withCookie(response, carried == nil ? session : nil)
  }

  private func withCookie(_ response: Response, _ session: PageSessions.Session?) -> Response {
    guard let session, response.headers[.setCookie] == nil else { return response }
    var response = response
    response.headers[.setCookie] = sessions.setCookie(session)
    return response
  }
}
