import CallAlertDaemon
import CallAlertSimulation
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Lines as they come (a daemon's events, a subscriber's messages), kept, and awaited with a deadline.
final class Lines: Sendable {
  private struct Waiter {
    let id: Int
    let predicate: @Sendable (String) -> Bool
    let continuation: CheckedContinuation<String?, Never>
  }
  private let state = Mutex<(lines: [String], waiters: [Waiter], next: Int)>(([], [], 0))

  init() {}

  /// Collects a stream's lines.
  convenience init(_ stream: AsyncStream<String>) {
    self.init()
    Task { [self] in for await line in stream { append(line) } }
  }

  func append(_ line: String) {
    let ready = state.withLock { state in
      state.lines.append(line)
      let ready = state.waiters.filter { $0.predicate(line) }
      state.waiters.removeAll { $0.predicate(line) }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: line) }
  }

  var all: [String] { state.withLock { $0.lines } }

  func count(where predicate: (String) -> Bool) -> Int { all.filter(predicate).count }

  /// The first line so far (from line `start` on) or from now on satisfying `predicate`; nil when none came
  /// within `seconds`. The predicate runs under the lock: it must not read these lines.
  func first(
    within seconds: Double, from start: Int = 0, where predicate: @escaping @Sendable (String) -> Bool
  ) async -> String? {
    let id = state.withLock { state in
      state.next += 1
      return state.next
    }
    let timeout = Task { [self] in
      try? await Task.sleep(for: .seconds(seconds))
      let waiter = state.withLock { state in
        let index = state.waiters.firstIndex { $0.id == id }
        return index.map { state.waiters.remove(at: $0) }
      }
      waiter?.continuation.resume(returning: nil)
    }
    defer { timeout.cancel() }
    return await withCheckedContinuation { continuation in
      let found: String? = state.withLock { state -> String? in
        if let line = state.lines.dropFirst(start).first(where: predicate) { return line }
        state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
        return nil
      }
      if let found { continuation.resume(returning: found) }
    }
  }
}

/// One host's daemon in this process: its own directory, socket, history and virtual boards, on the broker
/// under its node id; its events collected.
struct Host {
  let node: String
  let directory: String
  let socket: String
  let events: Lines
  let group: ServiceGroup
  let running: Task<Void, any Error>

  static func config(
    node: String, directory: String, port: Int, boards: [String], cap: String, keepalive: String = "5s",
    user: String? = nil
  ) -> String {
    """
    cap: \(cap)
    boards:
    \(boards.map { "  - name: \($0)" }.joined(separator: "\n"))
    socket:
      path: \(directory)/control.sock
    history:
      path: \(directory)/history.sqlite
    mqtt:
      broker: mqtt://127.0.0.1:\(port)
      node_id: \(node)
      keepalive: \(keepalive)
    \(user.map { "  user: \($0)\n  password_file: \(directory)/mqtt-password" } ?? "")

    """
  }

  static func directory(_ node: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-\(node)-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  static func start(
    _ node: String, broker: Broker, boards: [String] = ["desk"], cap: String = "20s", keepalive: String = "5s",
    login: Broker.Login? = nil
  ) async throws -> Host {
    let directory = try directory(node)
    let path = directory + "/config.yaml"
    if let login {
      let secret = directory + "/mqtt-password"
      try (login.password + "\n").write(toFile: secret, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
    }
    try config(
      node: node, directory: directory, port: broker.port, boards: boards, cap: cap, keepalive: keepalive,
      user: login?.user
    ).write(toFile: path, atomically: true, encoding: .utf8)
    let events = Lines()
    var options = DaemonOptions(configPath: path, simulate: true, readStandardInput: false)
    options.boardSource = .virtualBoards()
    var logger = Logger(label: "callalert-\(node)")
    logger.logLevel = ProcessInfo.processInfo.environment["CALLALERT_TEST_LOG"] == nil ? .warning : .debug
    let group = try await Daemon.makeServiceGroup(options: options, logger: logger, eventSink: { events.append($0) })
    let running = Task { try await group.run() }
    return Host(
      node: node, directory: directory, socket: directory + "/control.sock", events: events, group: group,
      running: running)
  }

  func request(_ line: String) async throws -> String {
    try await ControlSocketClient.request(line, path: socket)
  }

  func stop() async throws {
    await group.triggerGracefulShutdown()
    try await running.value
  }
}

extension String {
  /// Whether an event line is `event` for call `id`.
  func isEvent(_ event: String, call id: String) -> Bool {
    contains(#""event":"\#(event)""#) && contains(#""id":"\#(id)""#)
  }
}

/// A call message as a publisher sends it, sent `ago` seconds before now.
func callMessage(_ id: String, ago: Double = 0) -> String {
  let sentAt = Date().addingTimeInterval(-ago)
  let formatter = ISO8601DateFormatter()
  formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
  return
    #"{"type":"call","id":"\#(id)","caller":"+4930123456","name":"Alice","sent_at":"\#(formatter.string(from: sentAt))"}"#
}
