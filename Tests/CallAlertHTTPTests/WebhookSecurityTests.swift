import AsyncHTTPClient
import CallAlertTestSupport
import Foundation
import NIOHTTP1
import Testing

/// The providers' webhooks against strangers, over real HTTP in the daemon with a virtual board: Vonage's
/// signed JWT checked (and standing in for the token), forged ones refused naming the check, and a replayed
/// Twilio `ringing` that never rings twice, even after a restart.
@Suite("Webhook security", .serialized, .timeLimit(.minutes(1)))
struct WebhookSecurityTests {
  static let vonageSecret = "vonage-signature-secret-for-tests"

  /// A Vonage call event for `uuid`.
  static func event(_ uuid: String, status: String = "ringing") -> String {
    #"{"status":"\#(status)","direction":"inbound","uuid":"\#(uuid)","from":"447700900001"}"#
  }

  /// `Authorization: Bearer <JWT>` as Vonage signs it: HS256 under `secret`, issued `age` seconds ago, with
  /// the hash of `body`.
  static func signed(
    _ body: String, secret: String = vonageSecret, age: Int = 0, header: String = #"{"alg":"HS256","typ":"JWT"}"#
  ) -> [(String, String)] {
    let iat = Int(Date().timeIntervalSince1970) - age
    let claims = VonageSignatureTests.claims(iat: iat, body: Array(body.utf8))
    let token = VonageSignatureTests.token(header: header, claims: claims, secret: Array(secret.utf8))
    return [("Authorization", "Bearer " + token)]
  }

  static func start(token: Bool, vonage: Bool) async throws -> HTTPDaemonRig {
    var lines: [String] = []
    if token { lines.append("token_file: token") }
    if vonage { lines.append("vonage_signature_secret_file: vonage") }
    return try await HTTPDaemonRig.start(extraHTTP: lines.joined(separator: "\n")) { directory in
      try HTTPDaemonRig.writeSecret("s3cret\n", at: directory.appendingPathComponent("token").path, mode: 0o600)
      try HTTPDaemonRig.writeSecret(
        vonageSecret + "\n", at: directory.appendingPathComponent("vonage").path, mode: 0o600)
    }
  }

  /// With the signature secret, token or not: forgeries get 401 naming the check that failed and ring
  /// nothing; a request signed with the secret rings without the token.
  @Test(arguments: [true, false])
  func aSignedVonageRequestRingsAndForgeriesAreRefused(withToken: Bool) async throws {
    let rig = try await Self.start(token: withToken, vonage: true)
    let forged: [(name: String, body: String, headers: [(String, String)], field: String)] = [
      ("alg none", Self.event("vf1"), Self.signed(Self.event("vf1"), header: #"{"alg":"none"}"#), "alg"),
      ("the wrong secret", Self.event("vf2"), Self.signed(Self.event("vf2"), secret: "guessed"), "signature"),
      ("issued an hour ago", Self.event("vf3"), Self.signed(Self.event("vf3"), age: 3_600), "iat"),
      ("another body", Self.event("vf4"), Self.signed(Self.event("vf0")), "payload_hash"),
      ("no JWT, the URL's token", Self.event("vf5"), [], "Authorization"),
    ]
    for forgery in forged {
      let reply = try await rig.send(
        .POST, "/v1/webhooks/vonage?token=s3cret", body: forgery.body, headers: forgery.headers)
      #expect(reply.status == 401 && reply.contentType == "application/problem+json", "\(forgery.name): \(reply.body)")
      #expect(reply.body.contains(#""field":"\#(forgery.field)""#), "\(forgery.name): \(reply.body)")
    }
    let history = try await rig.send(.GET, "/v1/history", headers: [("Authorization", "Bearer s3cret")])
    #expect(history.status == 200 && !history.body.contains("vf"), "nothing rang: \(history.body)")

    let signed = try await rig.send(
      .POST, "/v1/webhooks/vonage", body: Self.event("vs1"), headers: Self.signed(Self.event("vs1")))
    #expect(signed.status == 200 && signed.body == "{}", "\(signed.body)")
    #expect(await rig.boardPlays(true))
    let hangup = Self.event("vs1", status: "completed")
    #expect(try await rig.send(.POST, "/v1/webhooks/vonage", body: hangup, headers: Self.signed(hangup)).status == 200)
    #expect(await rig.boardPlays(false))
    // The signature opens Vonage's route only.
    let elsewhere = try await rig.send(.GET, "/v1/history", headers: Self.signed(""))
    #expect(elsewhere.status == (withToken ? 401 : 200))
    try await rig.stop()
  }

  /// Without the signature secret, Vonage's JWT is not checked and stands for nothing: with a token, the
  /// token in the URL is what lets the request in (it was refused because of the JWT in its header).
  @Test func withoutTheSecretVonagesJWTAuthenticatesNothing() async throws {
    let rig = try await Self.start(token: true, vonage: false)
    let body = Self.event("vn1")
    let none = try await rig.send(
      .POST, "/v1/webhooks/vonage", body: body, headers: Self.signed(body, header: #"{"alg":"none"}"#))
    #expect(none.status == 401 && none.body.contains("vonage_signature_secret_file"), "\(none.body)")
    let unchecked = try await rig.send(.POST, "/v1/webhooks/vonage", body: body, headers: Self.signed(body))
    #expect(unchecked.status == 401, "\(unchecked.body)")
    let withToken = try await rig.send(
      .POST, "/v1/webhooks/vonage?token=s3cret", body: body, headers: Self.signed(body, header: #"{"alg":"none"}"#))
    #expect(withToken.status == 200, "\(withToken.body)")
    #expect(await rig.boardPlays(true))
    try await rig.stop()
  }

  /// A Twilio `ringing` sent again (same CallSid and CallStatus) is answered as usual and rings nothing: within
  /// the engine's tombstone window, and after it, here after a restart on the same history.
  @Test func aReplayedTwilioRingingNeverRingsTwice() async throws {
    let form = [("Content-Type", "application/x-www-form-urlencoded")]
    let ringing = "CallSid=CAreplay1&CallStatus=ringing&Direction=inbound&From=%2B14155550101"
    let first = try await HTTPDaemonRig.start()
    #expect(try await first.send(.POST, "/v1/webhooks/twilio", body: ringing, headers: form).status == 200)
    #expect(await first.boardPlays(true))
    let completed = "CallSid=CAreplay1&CallStatus=completed&Direction=inbound"
    #expect(try await first.send(.POST, "/v1/webhooks/twilio", body: completed, headers: form).status == 200)
    #expect(await first.boardPlays(false))
    #expect(try await first.send(.POST, "/v1/webhooks/twilio", body: ringing, headers: form).status == 200)
    #expect(try await !first.send(.GET, "/v1/status").body.contains("CAreplay1"))
    try await first.stop(keepingDirectory: true)

    // A new daemon, which never saw the call: the history did.
    let second = try await HTTPDaemonRig.start(in: first.directory)
    let replay = try await second.send(.POST, "/v1/webhooks/twilio", body: ringing, headers: form)
    #expect(replay.status == 200 && replay.contentType == "text/xml" && replay.body.contains("<Response/>"))
    let status = try await second.send(.GET, "/v1/status")
    #expect(status.status == 200 && !status.body.contains("CAreplay1"), "it rang again: \(status.body)")
    let history = try await second.send(.GET, "/v1/history")
    #expect(history.body.components(separatedBy: #""id":"CAreplay1""#).count == 2, "one row: \(history.body)")
    // Another call still rings.
    let other = "CallSid=CAother1&CallStatus=ringing&Direction=inbound"
    #expect(try await second.send(.POST, "/v1/webhooks/twilio", body: other, headers: form).status == 200)
    #expect(await second.boardPlays(true))
    try await second.stop()
  }
}
