import CallAlertHTTP
import Testing

/// Who may use the API from a browser: `Host`, `Origin` and `Content-Type`, before anything runs.
@Suite struct RequestOriginPolicyTests {
  let open = RequestOriginPolicy(allowedHosts: ["CallAlert.home.arpa"], tokenConfigured: false)
  let guarded = RequestOriginPolicy(tokenConfigured: true)

  private func status(
    _ policy: RequestOriginPolicy, _ method: String = "GET", _ path: String = "/v1/history", host: String?,
    origin: String? = nil, type: String? = nil, body: Bool = false
  ) -> Int {
    policy.refusal(method: method, path: path, host: host, origin: origin, contentType: type, hasBody: body)?.status
      ?? 200
  }

  /// DNS rebinding: a page whose name now points at 127.0.0.1 asks with its own name as `Host`.
  @Test(arguments: ["127.0.0.1:8080", "127.1.2.3", "localhost:8080", "[::1]:8080", "callalert.home.arpa:8080"])
  func loopbackAndListedNamesAreServedWithoutAToken(host: String) {
    #expect(status(open, host: host) == 200)
  }

  @Test(arguments: ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "192.168.1.20:8080", ""])
  func otherNamesAreRefusedWithoutAToken(host: String) {
    #expect(status(open, host: host) == 403)
    #expect(status(guarded, host: host) == 200, "with a token the token decides")
  }

  @Test func healthzAnswersAnyHost() {
    #expect(status(open, "GET", "/healthz", host: "evil.example") == 200)
  }

  /// A page on another site may not ring: its fetch carries its Origin.
  @Test func anOriginOtherThanTheServersOwnIsRefusedTokenOrNot() {
    let json = "application/json"
    for policy in [open, guarded] {
      #expect(
        status(
          policy, "POST", "/v1/calls", host: "127.0.0.1:8080", origin: "http://evil.example", type: json, body: true)
          == 403)
      #expect(status(policy, "GET", host: "127.0.0.1:8080", origin: "null") == 403)
      #expect(
        status(
          policy, "POST", "/v1/calls", host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", type: json, body: true)
          == 200)
    }
  }

  /// A cross-site form POST as text/plain needs no preflight; it rang the boards.
  @Test func aBodyThatIsNotJSONIsRefusedWith415ButWebhooksTakeForms() {
    #expect(status(open, "POST", "/v1/calls", host: "127.0.0.1", type: "text/plain", body: true) == 415)
    #expect(status(open, "POST", "/v1/calls", host: "127.0.0.1", body: true) == 415)
    #expect(
      status(open, "POST", "/v1/calls", host: "127.0.0.1", type: "application/json; charset=utf-8", body: true) == 200)
    #expect(
      status(open, "PUT", "/v1/dnd", host: "127.0.0.1", type: "application/x-www-form-urlencoded", body: true) == 415)
    #expect(
      status(
        open, "POST", "/v1/webhooks/sipgate", host: "127.0.0.1", type: "application/x-www-form-urlencoded", body: true)
        == 200)
    #expect(status(open, "POST", "/v1/webhooks/sipgate", host: "127.0.0.1", type: "text/plain", body: true) == 415)
    #expect(status(open, "POST", "/v1/ack", host: "127.0.0.1") == 200, "no body, no type: nothing to misread")
  }
}
