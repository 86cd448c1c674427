import CallAlertHTTP
import CallAlertTestSupport
import Crypto
import Foundation
import Testing

/// Twilio's signature, on the example of its security documentation, and the MAC under it (swift-crypto's) on
/// RFC 2202's HMAC-SHA1 vectors.
@Suite("Twilio signature")
struct TwilioSignatureTests {
  static let form = FormBody([
    ("CallSid", "CA1234567890ABCDE"), ("Caller", "+12349013030"), ("Digits", "1234"), ("From", "+12349013030"),
    ("To", "+18005551212"),
  ])

  @Test func theDocumentedExampleSignsAsTwilioDoes() {
    let url = "https://mycompany.com/myapp.php?foo=1&bar=2"
    #expect(TwilioSignature.signature(url: url, form: Self.form, authToken: "12345") == "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
    #expect(
      TwilioSignature.isValid(header: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url, form: Self.form, authToken: "12345"))
    #expect(
      !TwilioSignature.isValid(header: "0/KCTR6DLpKmkAf8muzZqo1nDgQ", url: url, form: Self.form, authToken: "12345"))
    #expect(!TwilioSignature.isValid(header: nil, url: url, form: Self.form, authToken: "12345"))
    #expect(
      !TwilioSignature.isValid(
        header: "0/KCTR6DLpKmkAf8muzZqo1nDgQ=", url: url + "&x=1", form: Self.form, authToken: "12345"))
  }

  /// RFC 2202 test cases 1 and 2, and a key longer than a block, as signatures over an empty form.
  @Test func hmacSHA1MatchesRFC2202() {
    func mac(_ key: [UInt8], _ data: String) -> String {
      let key = String(decoding: key, as: UTF8.self)
      // Through the public API: the URL is the message, the token the key (ASCII keys only here).
      return TwilioSignature.signature(url: data, form: FormBody([]), authToken: key)
    }
    func base64(_ hex: String) -> String {
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
      }
      return Data(bytes).base64EncodedString()
    }
    #expect(mac([UInt8](repeating: 0x0b, count: 20), "Hi There") == base64("b617318655057264e28bc0b6fb378c8ef146be00"))
    #expect(
      mac(Array("Jefe".utf8), "what do ya want for nothing?") == base64("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"))
    #expect(
      mac([UInt8](repeating: 0x2a, count: 80), "Test Using Larger Than Block-Size Key - Hash Key First")
        == base64(hmacOfLongKey))
  }

  /// The MAC is swift-crypto's, not one written here: no source holds SHA-1's initial state (0x67452301), and
  /// the signature is `HMAC<Insecure.SHA1>`'s.
  @Test func theMACIsSwiftCryptos() throws {
    let sources = repositoryRoot.appendingPathComponent("Sources")
    let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
    var handWritten: [String] = []
    for case let file as URL in files where file.pathExtension == "swift" {
      let text = try String(contentsOf: file, encoding: .utf8).lowercased()
      if text.contains("0x6745_2301") || text.contains("0x67452301") { handWritten.append(file.lastPathComponent) }
    }
    #expect(handWritten.isEmpty, "SHA-1 written by hand in \(handWritten)")
    let url = "https://example.org/callalert/v1/webhooks/twilio"
    let mac = HMAC<Insecure.SHA1>.authenticationCode(
      for: Array((url + "CallSidCA1CallStatusringing").utf8), using: SymmetricKey(data: Array("token".utf8)))
    let form = FormBody([("CallStatus", "ringing"), ("CallSid", "CA1")])
    #expect(TwilioSignature.signature(url: url, form: form, authToken: "token") == Data(mac).base64EncodedString())
  }

  /// HMAC-SHA1 with an 80-byte key of 0x2a ('*'), computed with Python's hmac module (RFC 2202's case 6 uses
  /// 0xaa, which is not ASCII and so cannot be a Twilio token): the key is hashed first.
  let hmacOfLongKey = "93d0fa91137a9ec79fda5b489d0095f159dac114"
}
