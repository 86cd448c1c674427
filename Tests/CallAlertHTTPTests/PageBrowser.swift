import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The page as a browser without scripts uses it, over real HTTP: it keeps the session cookie the daemon
/// sets, reads the form token from the page, and does not follow redirects (so a test sees each 303).
final class PageBrowser: Sendable {
  let base: String
  private let client: HTTPClient
  private let cookieJar = Mutex<String?>(nil)

  /// What an answer was.
  struct Reply {
    var status: Int
    var headers: HTTPHeaders
    var body: String
    var location: String? { headers.first(name: "location") }
    /// The form token in the page, if any.
    var formToken: String? {
      guard let range = body.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression) else {
        return nil
      }
      return String(body[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }
  }

  init(port: Int) {
    base = "http://127.0.0.1:\(port)"
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }

  /// The session cookie, as `name=value`, once the daemon set one.
  var cookie: String? { cookieJar.withLock { $0 } }

  /// A request as the page's browser sends it: the cookie, and `extra` headers (an `Origin`, a `Host`).
  func send(
    _ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, headers extra: [(String, String)] = [],
    keepCookie: Bool = true
  ) async throws -> Reply {
    var request = HTTPClientRequest(url: base + path)
    request.method = method
    if keepCookie, let cookie { request.headers.add(name: "Cookie", value: cookie) }
    for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
    if let form {
      let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
      request.body = .bytes(ByteBuffer(string: body))
      if !extra.contains(where: { $0.0.lowercased() == "content-type" }) {
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
      }
    }
    let response = try await client.execute(request, timeout: .seconds(10))
    let buffer = try await response.body.collect(upTo: 1 << 20)
    if keepCookie, let set = response.headers.first(name: "set-cookie") {
      cookieJar.withLock { $0 = String(set.prefix { $0 != ";" }) }
    }
    return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: buffer))
  }

  /// Presses a button: posts its form with the page's form token, as the browser would.
  func press(_ path: String, _ fields: [(String, String)], token: String) async throws -> Reply {
    try await send(.POST, path, form: [("csrf", token)] + fields, headers: [("Origin", base)])
  }

  func shutdown() async throws { try await client.shutdown() }

  static func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
  }
}
