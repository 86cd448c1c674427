import CallAlertHTTP
import Crypto
import Foundation
import Testing

/// Vonage's signed webhooks, verified as a pure function of the header, the secret, the body and `now`: a
/// token made with Python's hmac module, tokens built here with swift-crypto from a known secret, and forged
/// ones, each refused naming the check that failed.
@Suite("Vonage signature")
struct VonageSignatureTests {
  static let secret = Array("vonage-signature-secret-for-tests".utf8)
  static let body = Array(
    #"{"status":"ringing","direction":"inbound","uuid":"aaaaaaaa-bbbb-cccc-dddd-0123456789ab","from":"447700900001"}"#
      .utf8)
  /// 2023-11-14 22:13:20 UTC, the `iat` of ``python``.
  static let issued = Date(timeIntervalSince1970: 1_700_000_000)

  /// Made outside Swift (Python's `hmac` and `hashlib`), with the claims Vonage sends (`iat`, `jti`, `iss`,
  /// `payload_hash` of ``body``, `api_key`, `application_id`), signed HS256 with ``secret``.
  static let python =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3MDAwMDAwMDAsImp0aSI6ImM1YmE4ZjI0LTFhMTQtNGMxMC1iZmRmLTNmYm"
    + "U4Y2U1MTFiNSIsImlzcyI6IlZvbmFnZSIsInBheWxvYWRfaGFzaCI6IjJiZGIwOTdiNjMxMjQzYzFjYTYxMzY1OWM1YmZkZWViNGRkMGMyMj"
    + "hlMmU4YzBmMjQ5ZmE5MTc1MTQwNmQzZWEiLCJhcGlfa2V5IjoiYTFiMmMzZDQiLCJhcHBsaWNhdGlvbl9pZCI6ImFhYWFhYWFhLWJiYmItY2"
    + "NjYy1kZGRkLTAxMjM0NTY3ODlhYiJ9.k7sWosaDOP_HNRvBUNB1z1ie_45bXYGHgHLSfVjq9f0"

  /// base64url without padding.
  static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// A JWT with this header and these claims, signed HS256 under `secret` (or with `signature` as given).
  static func token(
    header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, secret: [UInt8] = secret,
    signature: String? = nil
  ) -> String {
    let signed = base64URL(Array(header.utf8)) + "." + base64URL(Array(claims.utf8))
    let mac = HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: SymmetricKey(data: secret))
    return signed + "." + (signature ?? base64URL(mac))
  }

  /// The claims Vonage sends, for `body` at `iat`.
  static func claims(iat: Int = 1_700_000_000, body: [UInt8] = body) -> String {
    let hash = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
    return #"{"iat":\#(iat),"jti":"j1","iss":"Vonage","payload_hash":"\#(hash)","api_key":"a1b2c3d4"}"#
  }

  @Test func aTokenMadeElsewhereVerifiesWithItsBody() throws {
    let claims = try VonageSignature.verify(
      authorization: "Bearer " + Self.python, secret: Self.secret, now: Self.issued)
    #expect(claims.issuedAt == 1_700_000_000)
    #expect(claims.payloadHash == "2bdb097b631243c1ca613659c5bfdeeb4dd0c228e2e8c0f249fa91751406d3ea")
    try claims.checkPayload(Self.body)
    #expect(throws: VonageSignatureError.payloadHashMismatch) {
      try claims.checkPayload(Self.body.dropLast() + Array(#" }"#.utf8))
    }
  }

  @Test func aTokenBuiltFromTheSecretVerifiesWithinFiveMinutesEitherWay() throws {
    let token = "Bearer " + Self.token(claims: Self.claims())
    for offset in [-300.0, -1, 0, 1, 299.9, 300] {
      let claims = try VonageSignature.verify(
        authorization: token, secret: Self.secret, now: Self.issued.addingTimeInterval(offset))
      try claims.checkPayload(Self.body)
    }
    // The scheme's word in any case, spaces around the token.
    _ = try VonageSignature.verify(
      authorization: "bearer  " + Self.token(claims: Self.claims()) + " ", secret: Self.secret, now: Self.issued)
  }

  /// Each forgery, and the check it fails.
  static let forgeries: [(name: String, authorization: String?, error: VonageSignatureError)] = [
    ("no header", nil, .missing),
    ("not bearer", "Basic eDpzM2NyZXQ=", .missing),
    ("the wrong secret", "Bearer " + token(claims: claims(), secret: Array("not-the-secret".utf8)), .signature),
    (
      "alg none, unsigned", "Bearer " + token(header: #"{"alg":"none"}"#, claims: claims(), signature: ""),
      .algorithm("none")
    ),
    (
      "alg none, signed", "Bearer " + token(header: #"{"alg":"none","typ":"JWT"}"#, claims: claims()),
      .algorithm("none")
    ),
    ("alg None", "Bearer " + token(header: #"{"alg":"None"}"#, claims: claims()), .algorithm("None")),
    ("alg RS256", "Bearer " + token(header: #"{"alg":"RS256"}"#, claims: claims()), .algorithm("RS256")),
    ("alg HS512", "Bearer " + token(header: #"{"alg":"HS512"}"#, claims: claims()), .algorithm("HS512")),
    ("no alg", "Bearer " + token(header: #"{"typ":"JWT"}"#, claims: claims()), .algorithm(nil)),
    (
      "stale by 301 s", "Bearer " + token(claims: claims(iat: 1_700_000_000 - 301)),
      .stale(issuedAt: 1_699_999_699, now: 1_700_000_000)
    ),
    (
      "301 s ahead", "Bearer " + token(claims: claims(iat: 1_700_000_000 + 301)),
      .stale(issuedAt: 1_700_000_301, now: 1_700_000_000)
    ),
    ("no iat", "Bearer " + token(claims: #"{"payload_hash":"00"}"#), .issuedAtMissing),
    ("iat as text", "Bearer " + token(claims: #"{"iat":"1700000000"}"#), .issuedAtMissing),
    ("one part", "Bearer abc", .malformed("a JWT has three parts separated by '.', this has 1")),
    ("two parts", "Bearer abc.def", .malformed("a JWT has three parts separated by '.', this has 2")),
    ("a header that is not base64url", "Bearer ab+c.def.ghi", .malformed("its header is not base64url")),
    (
      "a header that is not JSON", "Bearer " + base64URL(Array("alg=HS256".utf8)) + ".e30.abc",
      .malformed("its header is not a JSON object")
    ),
    ("no signature", "Bearer " + token(claims: claims(), signature: ""), .malformed("its signature is not base64url")),
    (
      "claims swapped under a signature",
      "Bearer "
        + {
          let real = token(claims: claims()).split(separator: ".")
          let forged = token(claims: claims(body: Array("{}".utf8))).split(separator: ".")
          return [real[0], forged[1], real[2]].joined(separator: ".")
        }(), .signature
    ),
  ]

  @Test(arguments: forgeries.indices)
  func aForgedTokenIsRefusedNamingTheCheck(_ index: Int) {
    let forgery = Self.forgeries[index]
    #expect(throws: forgery.error, "\(forgery.name)") {
      _ = try VonageSignature.verify(authorization: forgery.authorization, secret: Self.secret, now: Self.issued)
    }
  }

  @Test func theBodyMustBeTheOneSigned() throws {
    let other = try VonageSignature.verify(
      authorization: "Bearer " + Self.token(claims: Self.claims(body: Array(#"{"status":"completed"}"#.utf8))),
      secret: Self.secret, now: Self.issued)
    #expect(throws: VonageSignatureError.payloadHashMismatch) { try other.checkPayload(Self.body) }
    let none = try VonageSignature.verify(
      authorization: "Bearer " + Self.token(claims: #"{"iat":1700000000}"#), secret: Self.secret, now: Self.issued)
    #expect(throws: VonageSignatureError.payloadHashMissing) { try none.checkPayload(Self.body) }
    // Hex in capitals is the same hash.
    let upper = Self.claims().replacingOccurrences(of: "2bdb097b", with: "2BDB097B")
    try VonageSignature.verify(
      authorization: "Bearer " + Self.token(claims: upper), secret: Self.secret, now: Self.issued
    )
    .checkPayload(Self.body)
  }

  @Test func eachRefusalSaysWhichCheckFailed() {
    #expect(VonageSignatureError.algorithm("none").check == "alg")
    #expect(VonageSignatureError.algorithm("none").description.contains("'none'"))
    #expect(VonageSignatureError.signature.check == "signature")
    #expect(VonageSignatureError.stale(issuedAt: 0, now: 400).check == "iat")
    #expect(VonageSignatureError.stale(issuedAt: 0, now: 400).description.contains("400 s ago"))
    #expect(VonageSignatureError.payloadHashMismatch.check == "payload_hash")
    #expect(VonageSignatureError.missing.description.contains("http.vonage_signature_secret_file"))
  }
}
