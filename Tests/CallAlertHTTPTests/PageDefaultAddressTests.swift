import CallAlertDaemon
import CallAlertHTTPDaemon
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import NIOHTTP1
import ServiceLifecycle
import Testing

/// `callalert run` without `http:`: the page and the API on the default address, and a daemon whose default
/// address another one holds ringing on without them (only an address asked for stops a start).
@Suite("Page default address", .serialized, .timeLimit(.minutes(1)))
struct PageDefaultAddressTests {
  /// A daemon with no `http:` section and `defaultListen`: the port it listens on, `.some(nil)` once it gave
  /// the address up, nil when neither happened within 10 s; and how to stop it.
  static func start(
    defaultListen: HTTPListenAddress, in directory: URL
  ) async throws -> (
    port: Int??, group: ServiceGroup, running: Task<Void, any Error>, socket: String
  ) {
    let socket = directory.appendingPathComponent("control.sock").path
    let config = directory.appendingPathComponent("config.yaml").path
    try """
    boards:
      - name: desk
        port: /dev/null-no-board
    socket:
      path: \(socket)
    history:
      path: \(directory.appendingPathComponent("history.sqlite").path)
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (outcomes, continuation) = AsyncStream.makeStream(of: Int?.self)
    var options = DaemonOptions(configPath: config, readStandardInput: false)
    options.addOns = [
      .http(
        onListening: { continuation.yield($0) }, defaultListen: defaultListen,
        onGivenUp: { _ in continuation.yield(nil) })
    ]
    let group = try await Daemon.makeServiceGroup(
      options: options, logger: Logger(label: "page-default-test"), eventSink: { _ in })
    let running = Task { try await group.run() }
    let port = await finishing(within: 10) {
      var iterator = outcomes.makeAsyncIterator()
      return await iterator.next()
    }
    return (port ?? nil, group, running, socket)
  }

  @Test func withoutHTTPInTheConfigThePageIsOnTheDefaultAddress() async throws {
    let directory = try HTTPDaemonRig.makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let daemon = try await Self.start(defaultListen: HTTPListenAddress(host: "127.0.0.1", port: 0), in: directory)
    let port = try #require(daemon.port ?? nil)
    let browser = PageBrowser(port: port)
    let page = try await browser.send(.GET, "/page")
    #expect(page.status == 200 && page.body.contains("<h1>Live</h1>"))
    #expect(page.body.contains("no such port") || page.body.contains("disconnected"), "the board says why not")
    try await browser.shutdown()
    await daemon.group.triggerGracefulShutdown()
    try await daemon.running.value
  }

  @Test func aTakenDefaultAddressLeavesTheDaemonRunningWithoutHTTP() async throws {
    let first = try await HTTPDaemonRig.start()
    let directory = try HTTPDaemonRig.makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let second = try await Self.start(
      defaultListen: HTTPListenAddress(host: "127.0.0.1", port: first.port), in: directory)
    #expect(second.port == .some(nil), "the second daemon gave the address up")
    let answer = try await ControlSocketClient.request(#"{"type":"status"}"#, path: second.socket)
    #expect(answer.hasPrefix(#"{"ok":true,"status":"#), "the second daemon runs on: \(answer)")
    await second.group.triggerGracefulShutdown()
    try await second.running.value
    try await first.stop()
  }
}
