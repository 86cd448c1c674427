import CallAlertText
import Crypto

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The page's sessions, kept in a signed cookie rather than in memory: a random id, whether its holder gave
/// the token (only asked when one is configured), and an HMAC-SHA256 of both under a key drawn when the daemon
/// starts. A form carries a token derived from the session's id under the same key (the per-session CSRF
/// token), so a page of another site, which can neither read the cookie nor the page, cannot forge a form.
/// A restart draws a new key: every session then starts again (and logs in again, with a token).
public struct PageSessions: Sendable {
  /// One browser's session.
  public struct Session: Equatable, Sendable {
    /// 32 hex digits, random.
    public var id: String
    /// Whether its holder gave the bearer token on the login form.
    public var authenticated: Bool
  }

  /// The cookie's name.
  public static let cookieName = "callalert_session"

  private let key: SymmetricKey

  /// Sessions under a new random key.
  public init() { key = SymmetricKey(size: .bits256) }

  /// Sessions under a given key (tests).
  public init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

  /// A new session with a random id.
  public func newSession(authenticated: Bool) -> Session {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Session(id: Self.hex(bytes), authenticated: authenticated)
  }

  /// The cookie's value for a session: `id.flag.mac`.
  public func cookieValue(_ session: Session) -> String {
    let flag = session.authenticated ? "1" : "0"
    return "\(session.id).\(flag).\(mac("session", session.id, flag))"
  }

  /// The `Set-Cookie` header for a session: not readable by scripts, sent only to this server's own pages
  /// (`SameSite=Strict`, so another site's form never carries it), for the page's paths only.
  public func setCookie(_ session: Session) -> String {
    "\(Self.cookieName)=\(cookieValue(session)); Path=/page; HttpOnly; SameSite=Strict"
  }

  /// The session a `Cookie` header carries, when its signature holds; nil for none, a forged one, or one
  /// signed before the daemon restarted.
  public func session(cookieHeader: String?) -> Session? {
    guard let cookieHeader else { return nil }
    for part in cookieHeader.split(separator: ";") {
      let pair = part.trimmingWhitespace()
      guard pair.hasPrefix(Self.cookieName + "=") else { continue }
      let fields = pair.dropFirst(Self.cookieName.count + 1).split(separator: ".", omittingEmptySubsequences: false)
      guard fields.count == 3, fields[0].count == 32, fields[0].allSatisfy(\.isHexDigit),
        ["0", "1"].contains(fields[1])
      else { continue }
      let expected = mac("session", String(fields[0]), String(fields[1]))
      if ConstantTime.equal(Array(fields[2].utf8), Array(expected.utf8)) {
        return Session(id: String(fields[0]), authenticated: fields[1] == "1")
      }
    }
    return nil
  }

  /// The session's form token, the hidden `csrf` field of every form of the page.
  public func formToken(_ session: Session) -> String { mac("form", session.id, "") }

  /// Whether `token` is the session's form token (compared in constant time).
  public func isFormToken(_ token: String?, of session: Session) -> Bool {
    guard let token else { return false }
    return ConstantTime.equal(Array(token.utf8), Array(formToken(session).utf8))
  }

  private func mac(_ purpose: String, _ id: String, _ flag: String) -> String {
    let message = Array("callalert-page\u{0}\(purpose)\u{0}\(id)\u{0}\(flag)".utf8)
    return Self.hex(Array(HMAC<SHA256>.authenticationCode(for: message, using: key)))
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return text
  }
}
