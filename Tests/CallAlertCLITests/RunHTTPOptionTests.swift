import ArgumentParser
import CallAlertValues
import Testing

@testable import callalert

/// `callalert run --http ADDR:PORT`: a typed address, refused with what is wrong.
@Suite("run --http")
struct RunHTTPOptionTests {
  @Test func theAddressIsTypedAndABadOneIsNamed() throws {
    #expect(
      try CallAlertCommand.Run.parse(["--http", "127.0.0.1:8080"]).http
        == HTTPListenAddress(host: "127.0.0.1", port: 8080))
    #expect(try CallAlertCommand.Run.parse(["--http", "8080"]).http?.isLoopback == true)
    #expect(try CallAlertCommand.Run.parse([]).http == nil)
    do {
      _ = try CallAlertCommand.Run.parse(["--http", "host:80"])
      Issue.record("host:80 was taken")
    } catch {
      #expect(CallAlertCommand.Run.message(for: error).contains("'host' is not an IPv4 address or localhost"))
    }
  }
}
