import CallAlertInputs
import CallAlertValues
import Foundation
import Testing

/// The config's `http:` section and the listen address of `--http`.
@Suite("HTTP config")
struct HTTPConfigTests {
  static func load(_ yaml: String) throws -> DaemonConfiguration {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-http-\(UUID()).yaml").path
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try ConfigurationFile.load(path: path)
  }

  @Test func listenAddresses() throws {
    #expect(try HTTPListenAddress.parse("8080").get() == HTTPListenAddress(host: "127.0.0.1", port: 8080))
    #expect(try HTTPListenAddress.parse("0.0.0.0:80").get() == HTTPListenAddress(host: "0.0.0.0", port: 80))
    #expect(try HTTPListenAddress.parse("[::1]:9").get() == HTTPListenAddress(host: "::1", port: 9))
    #expect(try HTTPListenAddress.parse("localhost:0").get().isLoopback)
    #expect(try !HTTPListenAddress.parse("192.168.1.2:8080").get().isLoopback)
    for bad in ["", "host:80", "1.2.3.4:", "1.2.3.4:65536", "::1:80", "[::1]", "1.2.3:80", "[zz]:1", "127.0.0.1:8a"] {
      #expect(throws: HTTPListenAddressError.self, "\(bad)") { try HTTPListenAddress.parse(bad).get() }
    }
  }

  @Test func theSectionIsReadWithItsPaths() throws {
    let configuration = try Self.load(
      """
      http:
        listen: 0.0.0.0:8080
        token_file: /etc/callalert/http-token
        twilio_auth_token_file: twilio-token
        vonage_signature_secret_file: vonage-secret
        public_url: https://example.org/callalert/
      """)
    let http = try #require(configuration.http)
    #expect(http.listen == HTTPListenAddress(host: "0.0.0.0", port: 8080))
    #expect(http.tokenFile == "/etc/callalert/http-token")
    #expect(http.twilioAuthTokenFile?.hasSuffix("/twilio-token") == true)
    #expect(http.vonageSignatureSecretFile?.hasSuffix("/vonage-secret") == true)
    #expect(http.places["vonage_signature_secret_file"]?.hasSuffix(":5:33") == true, "\(http.places)")
    #expect(http.publicURL == "https://example.org/callalert")
    #expect(try Self.load("cap: 20s").http == nil)
  }

  @Test func mistakesAreNamedWithTheirPlace() throws {
    let cases: [(String, String)] = [
      ("http:\n  listen: 0.0.0.0:8080\n", ":2:11: http.listen: 0.0.0.0:8080 is reachable beyond this machine"),
      (
        "http:\n  listen: 127.0.0.1:8080\n  tokenfile: x\n",
        ":3:3: http.tokenfile: unknown key 'tokenfile' in http; did you mean 'token_file'?"
      ),
      ("http:\n  listen: 127.0.0.1:99999\n", ":2:11: http.listen: '99999' is not a port"),
      ("http:\n  token_file: x\n", ":2:3: http.listen: missing"),
      (
        "http:\n  listen: 8080\n  vonage_signature_secret: x\n",
        ":3:3: http.vonage_signature_secret: unknown key 'vonage_signature_secret' in http; expected one of "
          + "listen, token_file, twilio_auth_token_file, vonage_signature_secret_file"
      ),
      (
        "http:\n  listen: 8080\n  vonage_signature_secret_file: [a]\n",
        ":3:33: http.vonage_signature_secret_file:"
      ),
      (
        "http:\n  listen: 8080\n  public_url: example.org\n",
        ":3:15: http.public_url: 'example.org' is not an http:// or https:// URL"
      ),
    ]
    for (yaml, expected) in cases {
      let error = #expect(throws: (any Error).self) { try Self.load(yaml) }
      #expect("\(error.map { "\($0)" } ?? "")".contains(expected), "\(yaml)")
    }
  }
}
