import CallAlertTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's mosquitto on a free loopback port, with persistence in a directory of its own, started and
/// stopped by the test.
final class Broker: Sendable {
  let port: Int
  let directory: String
  private let child = Mutex<SpawnedProcess?>(nil)

  /// A broker open to anyone, or with `users` (name: password) and an `acl` file's text, anonymous refused;
  /// `settings` are more lines of its config (`max_queued_messages 0`).
  init(users: [String: String] = [:], acl: String? = nil, settings: [String] = []) async throws {
    directory =
      FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-mqtt-\(UUID().uuidString.prefix(8))"
      ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    port = LoopbackPorts.take()
    // As root, mosquitto would drop to the user mosquitto, who may not write the test's directory.
    let config = """
      listener \(port) 127.0.0.1
      allow_anonymous true
      persistence true
      persistence_location \(directory)/
      \(getuid() == 0 ? "user root" : "")
      \(acl == nil ? "" : "password_file \(directory)/passwd\nacl_file \(directory)/callalert.acl")
      log_dest stderr
      log_type error
      log_type warning
      log_type notice
      log_type information
      \(settings.joined(separator: "\n"))
      """
    let secured =
      acl == nil ? config : config.replacingOccurrences(of: "allow_anonymous true", with: "allow_anonymous false")
    try secured.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
    if let acl {
      try acl.write(toFile: directory + "/callalert.acl", atomically: true, encoding: .utf8)
      // mosquitto_passwd -b writes one user's hashed password (-c makes the file): the broker's own tool.
      FileManager.default.createFile(atPath: directory + "/passwd", contents: Data())
      for (user, password) in users.sorted(by: { $0.key < $1.key }) {
        let tool = try await SpawnedProcess("/usr/bin/mosquitto_passwd", ["-b", directory + "/passwd", user, password])
        Task { for await _ in tool.lines {} }
        guard await tool.exit(within: 10)?.exitCode == 0 else { throw BrokerError("mosquitto_passwd \(user) failed") }
      }
    }
  }

  /// Who a publish or subscription logs in as: nil, anonymous.
  typealias Login = (user: String, password: String)

  private func loginArguments(_ login: Login?) -> [String] {
    login.map { ["-u", $0.user, "-P", $0.password] } ?? []
  }

  /// Starts the broker and waits (bounded) until it says it runs.
  func start() async throws {
    let process = try await SpawnedProcess("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"])
    child.withLock { $0 = process }
    let running = await SpawnedProcess.first(in: process.lines, within: 10) { $0.contains(" running") }
    guard running != nil else { throw BrokerError("mosquitto did not start on port \(port) within 10 s") }
    // Drain the rest of its log so that its pipe never fills.
    Task { for await _ in process.lines {} }
  }

  /// Stops the broker (SIGTERM: it saves its persistent store), bounded; killed if it does not end.
  func stop() async {
    guard let process = child.withLock({ $0 }) else { return }
    process.kill(SIGTERM)
    _ = await process.exit(within: 10)
    child.withLock { $0 = nil }
  }

  /// Publishes with mosquitto_pub as an independent client, bounded.
  func publish(
    _ topic: String, _ payload: String, retain: Bool = false, qos: Int = 1, as login: Login? = nil
  ) async throws {
    var arguments =
      ["-h", "127.0.0.1", "-p", String(port), "-q", String(qos), "-t", topic, "-m", payload] + loginArguments(login)
    if retain { arguments.append("-r") }
    let process = try await SpawnedProcess("/usr/bin/mosquitto_pub", arguments)
    Task { for await _ in process.lines {} }
    guard await process.exit(within: 10)?.exitCode == 0 else {
      throw BrokerError("mosquitto_pub \(topic) failed")
    }
  }

  /// Subscribes with mosquitto_sub (`topic payload` lines, `-v`), bounded by `seconds`; kill it when done.
  func subscribe(_ topic: String, seconds: Int = 60, as login: Login? = nil) async throws -> SpawnedProcess {
    try await SpawnedProcess(
      "/usr/bin/mosquitto_sub",
      ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-v", "-W", String(seconds), "-t", topic]
        + loginArguments(login))
  }

  deinit {
    child.withLock { $0?.kill(SIGKILL) }
  }
}

struct BrokerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
