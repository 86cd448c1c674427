import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process, bounded and off the concurrency pool: its output as lines read by a thread of its own, its
/// end awaited by another thread blocked in waitpid, so no test holds one of the pool's few threads while a
/// child runs. On two cores the pool has two threads: a check that waited for `python3 -c import …` or `cc` on
/// one of them, beside another blocking wait, stopped every other test in the process for as long.
///
/// Started with posix_spawnp rather than Foundation's Process, whose children inherit this process's blocked
/// signals: the test runner blocks SIGTERM, and a mosquitto that never sees SIGTERM never saves its store.
/// The child keeps none of this process's descriptors but its standard ones.
public final class SpawnedProcess: Sendable {
  /// Where the child's standard error goes.
  public enum ErrorOutput: Sendable {
    /// Into ``lines``, with standard output.
    case merged
    /// Into ``errorLines``.
    case separate
  }

  /// The child's process id.
  public let pid: pid_t
  /// Standard output (and standard error when merged), line by line; finishes at the end of the output.
  public let lines: AsyncStream<String>
  /// Standard error when kept separate; otherwise finished from the start.
  public let errorLines: AsyncStream<String>
  private let ended = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

  /// Starts `executable` (looked up in PATH when it has no slash) with `arguments`; standard input is
  /// /dev/null.
  public init(_ executable: String, _ arguments: [String], errors: ErrorOutput = .merged) throws {
    let output = try Self.pipe()
    let errorPipe = errors == .separate ? try Self.pipe() : nil
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output.write, STDOUT_FILENO)
    posix_spawn_file_actions_adddup2(&actions, errorPipe?.write ?? output.write, STDERR_FILENO)
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
    let code = posix_spawnp(&pid, executable, &actions, &attributes, argv, environ)
    close(output.write)
    if let errorPipe { close(errorPipe.write) }
    guard code == 0 else {
      close(output.read)
      if let errorPipe { close(errorPipe.read) }
      throw SpawnError(description: "\(executable): \(String(cString: strerror(code)))")
    }
    self.pid = pid
    lines = Self.readLines(output.read)
    errorLines = errorPipe.map { Self.readLines($0.read) } ?? AsyncStream { $0.finish() }
    Thread.detachNewThread { [self] in
      var status: Int32 = 0
      while waitpid(self.pid, &status, 0) < 0 && errno == EINTR {}
      finished(status)
    }
  }

  /// A pipe whose ends are close-on-exec, so that no other child inherits them (every child spawned here
  /// closes what it inherited besides; Glibc's module does not declare pipe2).
  private static func pipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard Glibc.pipe(&fds) == 0 else {
      throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
    }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
  }

  private static func readLines(_ descriptor: Int32) -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    Thread.detachNewThread {
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
          continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
      }
      if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
      close(descriptor)
      continuation.finish()
    }
    return lines
  }

  private func finished(_ status: Int32) {
    let waiters = ended.withLock { state in
      state.status = status
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: status) }
  }

  /// The raw wait status, or nil when the child has not ended within `seconds` (it is then killed).
  public func exit(within seconds: Double) async -> Int32? {
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

  /// Sends `signal` unless the child has ended (its pid may then be another process's).
  public func kill(_ signal: Int32) {
    if ended.withLock({ $0.status == nil }) { Glibc.kill(pid, signal) }
  }

  /// The first line satisfying `predicate` within `seconds`; nil if none (the stream is left as it is).
  public static func first(
    in lines: AsyncStream<String>, within seconds: Double, where predicate: @escaping @Sendable (String) -> Bool
  ) async -> String? {
    await firstElement(of: lines, within: seconds, where: predicate)
  }

  /// What a child run to its end printed, and how it ended.
  public struct Outcome: Sendable, CustomStringConvertible {
    /// The exit code; nil when a signal ended it or it outlasted its time and was killed.
    public var exitCode: Int32?
    /// Standard output, each line ended by a newline.
    public var output: String
    /// Standard error, likewise.
    public var errors: String
    /// Whether it outlasted its time and was killed.
    public var timedOut: Bool

    /// Whether it exited with 0.
    public var succeeded: Bool { exitCode == 0 }

    /// How it ended and what it printed, for a failed expectation.
    public var description: String {
      let end = timedOut ? "killed after its time" : exitCode.map { "exit \($0)" } ?? "ended by a signal"
      return "\(end); output: \(output)\(errors.isEmpty ? "" : "; errors: \(errors)")"
    }
  }

  /// Runs `executable` to its end, at most `seconds`, and collects what it printed (standard error apart).
  public static func run(
    _ executable: String, _ arguments: [String], within seconds: Double
  ) async throws
    -> Outcome
  {
    let child = try SpawnedProcess(executable, arguments, errors: .separate)
    let output = Task { await collect(child.lines) }
    let errors = Task { await collect(child.errorLines) }
    let status = await child.exit(within: seconds)
    // A grandchild may hold the pipes open after the child ended: what it prints later is waited for a second
    // at most (a cancelled collector returns what it has).
    let bound = Task {
      try? await Task.sleep(for: .seconds(1))
      output.cancel()
      errors.cancel()
    }
    let (printed, complained) = (await output.value, await errors.value)
    bound.cancel()
    let exitCode: Int32? = status.flatMap { $0 & 0x7f == 0 ? ($0 >> 8) & 0xff : nil }
    return Outcome(exitCode: exitCode, output: printed, errors: complained, timedOut: status == nil)
  }

  private static func collect(_ lines: AsyncStream<String>) async -> String {
    var text: [String] = []
    for await line in lines { text.append(line + "\n") }
    return text.joined()
  }
}

/// A child could not be started.
public struct SpawnError: Error, CustomStringConvertible {
  /// What failed, and why.
  public let description: String
  /// An error saying `description`.
  public init(description: String) { self.description = description }
}
