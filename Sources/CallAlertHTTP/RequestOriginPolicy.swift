import CallAlertText
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Who may use the API from a browser, decided from a request's `Host`, `Origin` and `Content-Type` before
/// anything else runs. Pure: the headers in, a refusal or nothing out.
///
/// - Without a token, a request is served only when its `Host` names a loopback address, `localhost` or a
///   name the config lists (`http.allowed_hosts`): a web page the user visits could otherwise rebind its own
///   name to 127.0.0.1 and read the history (DNS rebinding).
/// - A request carrying an `Origin` other than the server's own (the scheme and `Host` it was asked by) is
///   refused, token or not: a page on another site may not ring, silence or read.
/// - Routes that change something take a body as `application/json` only (webhooks their providers' form
///   types too): a cross-site `text/plain` form POST needs no CORS preflight, and it rang the boards.
public struct RequestOriginPolicy: Sendable {
  /// Names besides loopback that `Host` may carry without a token, lower-cased.
  public var allowedHosts: Set<String>
  /// Whether a bearer token is configured.
  public var tokenConfigured: Bool

  /// Creates a policy.
  public init(allowedHosts: [String] = [], tokenConfigured: Bool) {
    self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
    self.tokenConfigured = tokenConfigured
  }

  /// Why a request is refused (403 or 415), or nil when it may go on.
  public func refusal(
    method: String, path: String, host: String?, origin: String?, contentType: String?, hasBody: Bool = true
  ) -> ProblemDocument? {
    let hostName = host.map(Self.name(ofHost:))
    if !tokenConfigured, path != "/healthz" {
      guard let hostName, HTTPListenAddress.isLoopback(hostName) || allowedHosts.contains(hostName) else {
        return ProblemDocument(
          "forbidden-host", title: "Forbidden", status: 403,
          detail: "Host '\(host.map { DisplayText.excerpt($0) } ?? "")' is not a name of this server: without "
            + "http.token_file only 127.0.0.1, ::1, localhost and http.allowed_hosts are served", field: "Host",
          location: "header")
      }
    }
    if let origin {  // "null" (a sandboxed frame, a file) is no server's own either
      let allowed = host.map { ["http://\($0.lowercased())", "https://\($0.lowercased())"] } ?? []
      if !allowed.contains(origin.lowercased()) {
        return ProblemDocument(
          "forbidden-origin", title: "Forbidden", status: 403,
          detail: "a page of '\(DisplayText.excerpt(origin))' may not use this API; only the server's own pages may",
          field: "Origin", location: "header")
      }
    }
    // A request with no body and no type (`curl -X POST .../ack`) has nothing to misread; a browser sends it
    // only with its Origin, refused above unless it is the server's own.
    if ["POST", "PUT", "PATCH", "DELETE"].contains(method), hasBody || contentType != nil {
      let type = contentType.map { String($0.prefix { $0 != ";" }).trimmingWhitespace().lowercased() }
      let webhook = path.hasPrefix("/v1/webhooks/")
      let accepted = webhook ? Self.webhookTypes : ["application/json"]
      guard let type, accepted.contains(type) else {
        return ProblemDocument(
          "unsupported-media-type", title: "Unsupported Media Type", status: 415,
          detail: "send the body as \(accepted.joined(separator: " or ")), not "
            + "\(contentType.map { "'\(DisplayText.excerpt($0))'" } ?? "without a Content-Type")",
          field: "Content-Type", location: "header")
      }
    }
    return nil
  }

  /// What providers post webhooks as: JSON (Vonage), forms (Twilio, sipgate.io).
  static let webhookTypes = ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]

  /// The name in a `Host` header, without its port or IPv6 brackets, lower-cased.
  static func name(ofHost host: String) -> String {
    let text = host.trimmingWhitespace().lowercased()
    if text.hasPrefix("[") { return String(text.dropFirst().prefix { $0 != "]" }) }
    if text.filter({ $0 == ":" }).count == 1 { return String(text.prefix { $0 != ":" }) }
    return text
  }

}
