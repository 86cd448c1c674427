import CallAlertTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process, bounded: its output as lines, its end awaited (a thread of its own blocks in waitpid, so
/// nothing spins), killed when the test is done with it. Started with posix_spawn rather than Foundation's
/// Process, whose children inherit this process's blocked signals: the test runner blocks SIGTERM, and a
/// mosquitto that never sees SIGTERM never saves its persistent store.
final class Child: Sendable {
  let pid: pid_t
  let lines: AsyncStream<String>
  private let ended = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

  init(_ executable: String, _ arguments: [String]) throws {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw BrokerError("pipe: \(String(cString: strerror(errno)))") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    TestProcess.closeInheritedDescriptors(&actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    close(fds[1])
    guard code == 0 else {
      close(fds[0])
      throw BrokerError("\(executable): \(String(cString: strerror(code)))")
    }
    self.pid = pid
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    self.lines = lines
    let output = fds[0]
    Thread.detachNewThread {
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while true {
        let count = read(output, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
          continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
      }
      close(output)
      continuation.finish()
    }
    Thread.detachNewThread { [self] in
      var status: Int32 = 0
      while waitpid(self.pid, &status, 0) < 0 && errno == EINTR {}
      finished(status)
    }
  }

  private func finished(_ status: Int32) {
    let waiters = ended.withLock { state in
      state.status = status
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: status) }
  }

  /// The exit status, or nil when it has not ended within `seconds`.
  func exit(within seconds: Double) async -> Int32? {
    await withTaskGroup(of: Int32?.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          let status = self.ended.withLock { state in
            if state.status == nil { state.waiters.append(continuation) }
            return state.status
          }
          if let status { continuation.resume(returning: status) }
        }
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      if first == nil { self.kill(SIGKILL) }  // lets the waiter above finish
      return first
    }
  }

  func kill(_ signal: Int32) {
    if ended.withLock({ $0.status == nil }) { Glibc.kill(pid, signal) }
  }

  /// The first line satisfying `predicate` within `seconds`; nil if none (the stream is left as it is).
  static func first(
    in lines: AsyncStream<String>, within seconds: Double, where predicate: @escaping @Sendable (String) -> Bool
  ) async -> String? {
    await withTaskGroup(of: String?.self) { group in
      group.addTask {
        for await line in lines where predicate(line) { return line }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}

/// Debian's mosquitto on a free loopback port, with persistence in a directory of its own, started and
/// stopped by the test.
final class Broker: Sendable {
  let port: Int
  let directory: String
  private let child = Mutex<Child?>(nil)

  /// A broker open to anyone, or with `users` (name: password) and an `acl` file's text, anonymous refused;
  /// `settings` are more lines of its config (`max_queued_messages 0`).
  init(users: [String: String] = [:], acl: String? = nil, settings: [String] = []) async throws {
    directory =
      FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-mqtt-\(UUID().uuidString.prefix(8))"
      ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    port = try Self.freePort()
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
        let tool = try Child("/usr/bin/mosquitto_passwd", ["-b", directory + "/passwd", user, password])
        Task { for await _ in tool.lines {} }
        guard await tool.exit(within: 10) == 0 else { throw BrokerError("mosquitto_passwd \(user) failed") }
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
    let process = try Child("/usr/sbin/mosquitto", ["-c", directory + "/mosquitto.conf"])
    child.withLock { $0 = process }
    let running = await Child.first(in: process.lines, within: 10) { $0.contains(" running") }
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
    let process = try Child("/usr/bin/mosquitto_pub", arguments)
    Task { for await _ in process.lines {} }
    guard let status = await process.exit(within: 10), status == 0 else {  // the raw wait status: 0 is exit 0
      throw BrokerError("mosquitto_pub \(topic) failed")
    }
  }

  /// Subscribes with mosquitto_sub (`topic payload` lines, `-v`), bounded by `seconds`; kill it when done.
  func subscribe(_ topic: String, seconds: Int = 60, as login: Login? = nil) throws -> Child {
    try Child(
      "/usr/bin/mosquitto_sub",
      ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-v", "-W", String(seconds), "-t", topic]
        + loginArguments(login))
  }

  /// A port for the broker (``LoopbackPorts``).
  static func freePort() throws -> Int { LoopbackPorts.take() }

  deinit {
    child.withLock { $0?.kill(SIGKILL) }
  }
}

struct BrokerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
