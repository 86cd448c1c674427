import CallAlertTestSupport
import Foundation
import Synchronization

/// One host's daemon in this process (a ``DaemonRig``): its own directory, socket, history and virtual boards,
/// on the broker under its node id; its events collected.
struct Host {
  let node: String
  let daemon: DaemonRig

  var directory: String { daemon.directory.path }
  var socket: String { daemon.socket }
  var events: LineLog { daemon.events }

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
    try DaemonRig.makeDirectory(node).path
  }

  static func start(
    _ node: String, broker: Broker, boards: [String] = ["desk"], cap: String = "20s", keepalive: String = "5s",
    login: Broker.Login? = nil
  ) async throws -> Host {
    let directory = try DaemonRig.makeDirectory(node)
    if let login {
      let secret = directory.appendingPathComponent("mqtt-password").path
      try (login.password + "\n").write(toFile: secret, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
    }
    let daemon = try await DaemonRig.start(
      node, in: directory,
      config: { directory in
        config(
          node: node, directory: directory.path, port: broker.port, boards: boards, cap: cap, keepalive: keepalive,
          user: login?.user)
      })
    return Host(node: node, daemon: daemon)
  }

  func request(_ line: String) async throws -> String {
    try await daemon.request(line)
  }

  /// Stops the daemon, keeping its folder.
  func stop() async throws {
    try await daemon.stop(keepingDirectory: true)
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
