import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process, bounded: its output as lines, its end awaited through `terminationHandler` (never
/// `waitUntilExit`, which spins off its thread on Linux), killed when the test is done with it.
final class Child: Sendable {
  let process: Process
  let lines: AsyncStream<String>
  private let ended = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

  init(_ executable: String, _ arguments: [String]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    self.lines = lines
    let pending = Mutex(Data())
    pipe.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      if data.isEmpty {
        handle.readabilityHandler = nil
        continuation.finish()
        return
      }
      pending.withLock { buffer in
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
          continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
          buffer.removeSubrange(buffer.startIndex...newline)
        }
      }
    }
    process.terminationHandler = { [weak self] process in self?.ended(process.terminationStatus) }
    try process.run()
  }

  private func ended(_ status: Int32) {
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
    if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
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

  init() throws {
    directory =
      FileManager.default.temporaryDirectory.appendingPathComponent(
        "callalert-mqtt-\(UUID().uuidString.prefix(8))"
      ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    port = try Self.freePort()
    let config = """
      listener \(port) 127.0.0.1
      allow_anonymous true
      persistence true
      persistence_location \(directory)/
      log_dest stderr
      log_type error
      log_type warning
      log_type notice
      log_type information
      """
    try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
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
  func publish(_ topic: String, _ payload: String, retain: Bool = false, qos: Int = 1) async throws {
    var arguments = ["-h", "127.0.0.1", "-p", String(port), "-q", String(qos), "-t", topic, "-m", payload]
    if retain { arguments.append("-r") }
    let process = try Child("/usr/bin/mosquitto_pub", arguments)
    Task { for await _ in process.lines {} }
    guard let status = await process.exit(within: 10), status == 0 else {
      throw BrokerError("mosquitto_pub \(topic) failed")
    }
  }

  /// Subscribes with mosquitto_sub (`topic payload` lines, `-v`), bounded by `seconds`; kill it when done.
  func subscribe(_ topic: String, seconds: Int = 60) throws -> Child {
    try Child(
      "/usr/bin/mosquitto_sub",
      ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-v", "-W", String(seconds), "-t", topic])
  }

  /// A port nothing listens on now (bound and released).
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
      }
    }
    guard bound else { throw BrokerError("no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  deinit {
    child.withLock { $0?.kill(SIGKILL) }
  }
}

struct BrokerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
