import CallAlertText
import Crypto

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Vonage's signed webhooks: each request carries `Authorization: Bearer <JWT>`, a JSON Web Token signed with
/// HS256 (HMAC-SHA256) under the account's signature secret, whose claims include `iat` (when it was issued,
/// in seconds since 1970) and `payload_hash` (the hex SHA-256 of the request's body).
///
/// Pure: the header, the secret, the body and `now` in; the claims or a ``VonageSignatureError`` naming the
/// check that failed out. The header's `alg` must be `HS256` (`none`, `RS256` or anything else is refused
/// before the signature is looked at), the signature is compared in constant time (swift-crypto's
/// `isValidAuthenticationCode`), `iat` must lie within ``maximumSkew`` of `now` either way, and
/// `payload_hash` must be the body's.
///
/// Verifying takes two steps, so that a request is judged before its body is read:
/// ``verify(authorization:secret:now:)`` needs only the header; ``VonageSignature/Claims/checkPayload(_:)``
/// then checks the body once it has come.
public enum VonageSignature {
  /// How far `iat` may lie from now, either way: 5 minutes.
  public static let maximumSkew: Int64 = 300

  /// The claims of a verified token that this API reads.
  public struct Claims: Equatable, Sendable {
    /// `iat`: when the token was issued, in seconds since 1970.
    public var issuedAt: Int64
    /// `payload_hash`: the hex SHA-256 of the body, lower-cased; nil when the token has none.
    public var payloadHash: String?

    /// Creates claims.
    public init(issuedAt: Int64, payloadHash: String?) {
      self.issuedAt = issuedAt
      self.payloadHash = payloadHash
    }

    /// Checks that `body` is what was signed: its SHA-256 in hex is `payload_hash` (compared in constant time).
    ///
    /// - Throws: ``VonageSignatureError/payloadHashMissing`` or ``VonageSignatureError/payloadHashMismatch``.
    public func checkPayload(_ body: [UInt8]) throws(VonageSignatureError) {
      guard let payloadHash else { throw .payloadHashMissing }
      let digest = SHA256.hash(data: body).map { byte in
        let hex = String(byte, radix: 16)
        return byte < 16 ? "0" + hex : hex
      }.joined()
      guard ConstantTime.equal(Array(digest.utf8), Array(payloadHash.utf8)) else { throw .payloadHashMismatch }
    }
  }

  /// Verifies the token of an `Authorization` header: its form, its `alg`, its signature under `secret`, and
  /// its `iat` against `now`. The body is checked afterwards, with ``Claims/checkPayload(_:)``.
  ///
  /// - Parameters:
  ///   - authorization: The request's `Authorization` header, `Bearer <JWT>`; nil when it has none.
  ///   - secret: The account's signature secret.
  ///   - now: The time to judge `iat` by.
  /// - Returns: The token's claims.
  /// - Throws: ``VonageSignatureError``, naming the check that failed.
  public static func verify(
    authorization: String?, secret: [UInt8], now: Date
  ) throws(VonageSignatureError) -> Claims {
    guard let authorization else { throw .missing }
    let trimmed = authorization.trimmingWhitespace()
    guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { throw .missing }
    let token = trimmed.dropFirst(7).trimmingWhitespace()
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      throw .malformed("a JWT has three parts separated by '.', this has \(parts.count)")
    }
    guard let headerBytes = base64URL(parts[0]) else { throw .malformed("its header is not base64url") }
    guard let header = try? JSONParser.parse(headerBytes), header.members != nil else {
      throw .malformed("its header is not a JSON object")
    }
    guard let algorithm = header["alg"]?.string else { throw .algorithm(nil) }
    guard algorithm == "HS256" else { throw .algorithm(algorithm) }
    guard let signature = base64URL(parts[2]), !signature.isEmpty else {
      throw .malformed("its signature is not base64url")
    }
    let signed = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    guard
      HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: SymmetricKey(data: secret))
    else { throw .signature }
    guard let payloadBytes = base64URL(parts[1]) else { throw .malformed("its payload is not base64url") }
    guard let payload = try? JSONParser.parse(payloadBytes), payload.members != nil else {
      throw .malformed("its payload is not a JSON object")
    }
    guard let issuedAt = seconds(payload["iat"]) else { throw .issuedAtMissing }
    let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
    guard abs(nowSeconds - issuedAt) <= maximumSkew else { throw .stale(issuedAt: issuedAt, now: nowSeconds) }
    var payloadHash: String?
    if let claim = payload["payload_hash"] {
      guard let text = claim.string else { throw .malformed("its payload_hash is not a string") }
      payloadHash = text.lowercased()
    }
    return Claims(issuedAt: issuedAt, payloadHash: payloadHash)
  }

  /// A NumericDate (RFC 7519): seconds since 1970, a fraction dropped; nil for anything but a number in range.
  static func seconds(_ value: JSONValue?) -> Int64? {
    guard let value, case .number(let text) = value.kind else { return nil }
    if let whole = Int64(text) { return whole }
    guard let number = Double(text), number.isFinite, abs(number) < 1e15 else { return nil }
    return Int64(number.rounded(.down))
  }

  /// The bytes of base64url text without padding (RFC 7515's encoding), or nil for any other text.
  static func base64URL(_ text: Substring) -> [UInt8]? {
    guard
      text.utf8.allSatisfy({ byte in
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D
          || byte == 0x5F
      }), text.utf8.count % 4 != 1
    else { return nil }
    var standard = String(text.replacing("-", with: "+").replacing("_", with: "/"))
    standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
    return Data(base64Encoded: standard).map(Array.init)
  }
}

/// Why a Vonage webhook's signature was refused: each case is one check, and its description says which.
public enum VonageSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No `Authorization: Bearer <JWT>` header.
  case missing
  /// Not a JWT: not three base64url parts, or a part that is not a JSON object; says what is wrong.
  case malformed(String)
  /// The header's `alg` is not `HS256` (nil: it has none).
  case algorithm(String?)
  /// The signature is not HMAC-SHA256 of the token under the configured secret.
  case signature
  /// The claims have no `iat`, or one that is not a number.
  case issuedAtMissing
  /// `iat` lies more than ``VonageSignature/maximumSkew`` seconds from now.
  case stale(issuedAt: Int64, now: Int64)
  /// The claims have no `payload_hash`.
  case payloadHashMissing
  /// `payload_hash` is not the SHA-256 of the body.
  case payloadHashMismatch

  /// The part of the token that failed: `Authorization`, `alg`, `signature`, `iat`, `payload_hash`.
  public var check: String {
    switch self {
    case .missing, .malformed: "Authorization"
    case .algorithm: "alg"
    case .signature: "signature"
    case .issuedAtMissing, .stale: "iat"
    case .payloadHashMissing, .payloadHashMismatch: "payload_hash"
    }
  }

  /// What failed, for the problem document and the log.
  public var description: String {
    switch self {
    case .missing:
      "Vonage webhooks must be signed (http.vonage_signature_secret_file is set): send 'Authorization: Bearer <JWT>'"
    case .malformed(let why):
      "the Authorization header's JWT is malformed: \(why)"
    case .algorithm(let algorithm):
      "the JWT's alg is \(algorithm.map { "'\(DisplayText.excerpt($0))'" } ?? "missing"); only HS256 (signed with "
        + "the signature secret) is accepted"
    case .signature:
      "the JWT's signature does not match: it was not signed with the configured signature secret"
    case .issuedAtMissing:
      "the JWT has no iat claim (seconds since 1970); Vonage always sends one"
    case .stale(let issuedAt, let now):
      "the JWT was issued at \(issuedAt), \(abs(now - issuedAt)) s \(issuedAt < now ? "ago" : "ahead"); at most "
        + "\(VonageSignature.maximumSkew) s either way are accepted (a replay, or a clock that is wrong)"
    case .payloadHashMissing:
      "the JWT has no payload_hash claim, so the body is not signed"
    case .payloadHashMismatch:
      "the JWT's payload_hash is not the SHA-256 of the body: the body is not the one signed"
    }
  }
}
