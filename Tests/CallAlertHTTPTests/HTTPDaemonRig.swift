import AsyncHTTPClient
import CallAlertDaemon
import CallAlertHTTPDaemon
import CallAlertTestSupport
import Clocks
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The daemon as a user runs it with `http:` in its config: a virtual board behind a pseudo-terminal, the
/// HTTP API on a free loopback port (bound to port 0, read back), and a real HTTP client (AsyncHTTPClient).
final class HTTPDaemonRig: Sendable {
  let board: PseudoTerminalBoard
  /// The daemon's folder: config, control socket, history.
  let directory: URL
  let port: Int
  private let stopDaemon: @Sendable () async throws -> Void

  /// What an answer was.
  struct Reply {
    var status: Int
    var headers: HTTPHeaders
    var body: String
    var contentType: String { headers.first(name: "content-type") ?? "" }
  }

  struct StartFailure: Error, CustomStringConvertible { var description: String }

  /// A temporary folder with a config (`http:` gets `extraHTTP`'s lines, the top level `extraConfig`'s), the
  /// daemon started in it; with `directory`, in that folder again (its history kept), as after a restart.
  static func start(
    extraHTTP: String = "", extraConfig: String = "", in directory: URL? = nil, linkOnAStillClock: Bool = false,
    prepare: (URL) throws -> Void = { _ in }
  ) async throws -> HTTPDaemonRig {
    let board = try PseudoTerminalBoard()
    let directory = try directory ?? makeDirectory()
    try prepare(directory)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let config = { (directory: URL) in
      Self.config(in: directory, board: board.slavePath, extraHTTP: extraHTTP, extraConfig: extraConfig)
    }
    let addOns: [DaemonAddOn] = [.http(onListening: { port in continuation.yield(port) })]
    let stopDaemon: @Sendable () async throws -> Void
    if linkOnAStillClock {
      // The daemon's deadlines (the board link's retries and keepalives among them) on a test clock nobody
      // moves: a pseudo-terminal loses nothing, so the link needs no retry, and a loaded machine that holds
      // the test process up for longer than every retry's deadline cannot mark the board unresponsive.
      let daemon = try await DaemonRig.start(
        "http", in: directory, clock: TestClock<Duration>(), config: config, inProcessBoards: false, addOns: addOns,
        logger: Logger(label: "http-test"))
      stopDaemon = { try await daemon.stop(keepingDirectory: true) }
    } else {
      let daemon = try await DaemonRig.start(
        "http", in: directory, config: config, inProcessBoards: false, addOns: addOns,
        logger: Logger(label: "http-test"))
      stopDaemon = { try await daemon.stop(keepingDirectory: true) }
    }
    let port = await finishing(within: 10) {
      var iterator = ports.makeAsyncIterator()
      return await iterator.next()
    }
    guard let port = port ?? nil else {
      try? await stopDaemon()
      await board.stop()
      throw StartFailure(description: "the HTTP API did not listen within 10 s")
    }
    return HTTPDaemonRig(board: board, directory: directory, port: port, stopDaemon: stopDaemon)
  }

  private init(
    board: PseudoTerminalBoard, directory: URL, port: Int, stopDaemon: @escaping @Sendable () async throws -> Void
  ) {
    self.board = board
    self.directory = directory
    self.port = port
    self.stopDaemon = stopDaemon
  }

  static func makeDirectory() throws -> URL {
    try DaemonRig.makeDirectory("http")
  }

  /// The config of a daemon in `directory` with one board on the pseudo-terminal `board` and the HTTP API on
  /// a port of the kernel's choice (`http:` gets `extraHTTP`'s lines, the top level `extraConfig`'s).
  static func config(in directory: URL, board: String, extraHTTP: String, extraConfig: String = "") -> String {
    """
    cap: 20s
    boards:
      - name: desk
        port: \(board)
    \(DaemonRig.files(in: directory))
    http:
      listen: 127.0.0.1:0
    \(extraHTTP.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    \(extraConfig)
    """
  }

  /// Writes ``config(in:board:extraHTTP:extraConfig:)`` to `config.yaml` in `directory`; its path.
  static func writeConfig(
    in directory: URL, board: String, extraHTTP: String, extraConfig: String = ""
  ) throws
    -> String
  {
    let config = directory.appendingPathComponent("config.yaml").path
    try Self.config(in: directory, board: board, extraHTTP: extraHTTP, extraConfig: extraConfig).write(
      toFile: config, atomically: true, encoding: .utf8)
    return config
  }

  /// Writes a secret file with `mode`.
  static func writeSecret(_ text: String, at path: String, mode: Int) throws {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  var base: String { "http://127.0.0.1:\(port)" }

  /// One request over real HTTP; its answer, whole.
  func send(
    _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = []
  ) async throws -> Reply {
    var request = HTTPClientRequest(url: base + path)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body {
      request.body = .bytes(ByteBuffer(string: body))
      // As a client does: JSON as JSON, a provider's fields as a form, unless the test says otherwise.
      if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
        let json = body.first == "{" || body.first == "[" || body.isEmpty
        request.headers.add(
          name: "Content-Type", value: json ? "application/json" : "application/x-www-form-urlencoded")
      }
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let buffer = try await response.body.collect(upTo: 1 << 20)
    return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: buffer))
  }

  /// Whether the board's first actuator plays (or stops) within 10 s.
  func boardPlays(_ playing: Bool) async -> Bool {
    let board = self.board
    return await finishing(within: 10) { await board.waitUntil(playing: playing) } ?? false
  }

  /// Stops the daemon and removes its folder, unless `keepingDirectory` (to start again in it).
  func stop(keepingDirectory: Bool = false) async throws {
    try await stopDaemon()
    await board.stop()
    if !keepingDirectory { try? FileManager.default.removeItem(at: directory) }
  }
}

/// A Server-Sent Events reader over a real connection: each event (or the opening `retry:` block) as it
/// arrives; cancelling its task closes the connection.
struct EventReader {
  /// One block of the stream.
  struct Block: Equatable, Sendable {
    var id: UInt64?
    var event: String?
    var data: String?
  }

  let blocks: AsyncStream<Block>
  let task: Task<Void, Never>

  init(_ url: String, lastEventID: UInt64? = nil, headers: [(String, String)] = []) {
    let (blocks, continuation) = AsyncStream.makeStream(of: Block.self)
    self.blocks = blocks
    task = Task {
      defer { continuation.finish() }
      var request = HTTPClientRequest(url: url)
      for (name, value) in headers { request.headers.add(name: name, value: value) }
      if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
      guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(30)) else { return }
      var pending = ""
      do {
        for try await buffer in response.body {
          pending += String(buffer: buffer)
          while let end = pending.range(of: "\n\n") {
            let text = pending[..<end.lowerBound]
            pending = String(pending[end.upperBound...])
            var block = Block()
            var comment = true
            for line in text.split(separator: "\n") {
              if line.hasPrefix("id: ") { block.id = UInt64(line.dropFirst(4)) }
              if line.hasPrefix("event: ") { block.event = String(line.dropFirst(7)) }
              if line.hasPrefix("data: ") { block.data = String(line.dropFirst(6)) }
              if !line.hasPrefix(":") { comment = false }
            }
            if !comment { continuation.yield(block) }
          }
        }
      } catch {}
    }
  }

  /// The next block within 10 s, or nil.
  func next() async -> Block? {
    let blocks = self.blocks
    return await finishing(within: 10) {
      var iterator = blocks.makeAsyncIterator()
      return await iterator.next()
    } ?? nil
  }

  func close() { task.cancel() }
}
