import Foundation
import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A child process for the tests, on swift-subprocess, bounded and off the concurrency pool: its output as lines
/// read by a thread of its own, its end observed by swift-subprocess's process monitor (a pidfd on its event
/// thread), so no test holds one of the pool's few threads while a child runs, and none spins in
/// `Process.waitUntilExit()`. On two cores the pool has two threads: a check that waited for `python3 -c import …`
/// or `cc` on one of them, beside another blocking wait, stopped every other test in the process for as long.
///
/// swift-subprocess starts the child with an empty signal mask and every signal at its default (the test
/// runner blocks SIGTERM, and a mosquitto that never sees SIGTERM never saves its store), and the child keeps
/// none of this process's descriptors but its standard ones.
public final class SpawnedProcess: Sendable {
  /// Where the child's standard error goes.
  public enum ErrorOutput: Sendable {
    /// Into ``lines``, with standard output.
    case merged
    /// Into ``errorLines``.
    case separate
  }

  /// What the child reads on its standard input.
  public enum Input: Sendable {
    /// /dev/null.
    case none
    /// This text, from a file, so that it ends after the text.
    case text(String)
    /// A pipe the test writes into with ``write(_:)`` and closes with ``closeInput()``.
    case pipe
  }

  /// Where the child's standard output goes.
  public enum Output: Sendable {
    /// Into ``lines``.
    case lines
    /// Into a pipe whose read end the test holds (``outputDescriptor``): it reads when it likes, or closes it
    /// so that the child's next write fails with EPIPE, as it does behind `| head -1`.
    case pipe
  }

  /// The child's process id.
  public let pid: pid_t
  /// Standard output (and standard error when merged), line by line; finishes at the end of the output. Empty
  /// when the output is a ``Output/pipe``.
  public let lines: AsyncStream<String>
  /// Standard error when kept separate; otherwise finished from the start.
  public let errorLines: AsyncStream<String>
  /// The read end of standard output when it is a ``Output/pipe``; the test closes it.
  public let outputDescriptor: FileDescriptor?
  private let inputDescriptor: FileDescriptor?
  private let ended: Ending

  /// Starts `executable` (looked up in PATH when it has no slash) with `arguments` and `environment` added to
  /// this process's, in `workingDirectory` (nil: this process's).
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: Input = .none,
    output: Output = .lines, errors: ErrorOutput = .merged, workingDirectory: String? = nil
  ) async throws {
    let ended = Ending()
    self.ended = ended
    let outputPipe = try Self.pipe()
    let errorPipe = errors == .separate ? try Self.pipe() : nil
    let inputPipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)?
    let inputFile: FileDescriptor
    switch input {
    case .none:
      inputFile = try FileDescriptor.open("/dev/null", .readOnly, options: .closeOnExec)
      inputPipe = nil
    case .text(let text):
      let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-stdin-\(UUID())").path
      FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
      defer { unlink(path) }  // the child keeps its descriptor
      inputFile = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
      inputPipe = nil
    case .pipe:
      let pipe = try Self.pipe()
      inputFile = pipe.readEnd
      inputPipe = pipe
    }
    let configuration = Configuration(
      executable: executable.contains("/") ? .path(FilePath(executable)) : .name(executable),
      arguments: Arguments(arguments),
      environment: environment.isEmpty
        ? .inherit
        : .inherit.updating(
          Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(rawValue: $0.key)!, $0.value) })),
      workingDirectory: workingDirectory.map { FilePath($0) }
    )
    do {
      pid = try await Self.start(
        configuration, input: inputFile, output: outputPipe.writeEnd, errors: errorPipe?.writeEnd, ended: ended)
    } catch {
      for descriptor in [outputPipe.readEnd, errorPipe?.readEnd, inputPipe?.writeEnd].compactMap({ $0 }) {
        try? descriptor.close()
      }
      throw error
    }
    inputDescriptor = inputPipe?.writeEnd
    switch output {
    case .lines:
      lines = Self.readLines(outputPipe.readEnd)
      outputDescriptor = nil
    case .pipe:
      lines = AsyncStream { $0.finish() }
      outputDescriptor = outputPipe.readEnd
    }
    errorLines = errorPipe.map { Self.readLines($0.readEnd) } ?? AsyncStream { $0.finish() }
  }

  /// A pipe whose ends are close-on-exec, so that no child started another way inherits them.
  private static func pipe() throws -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
    let ends = try FileDescriptor.pipe()
    for end in [ends.readEnd, ends.writeEnd] { _ = fcntl(end.rawValue, F_SETFD, FD_CLOEXEC) }
    return ends
  }

  /// Runs the child in a task of its own and returns its pid once it is spawned; the task records its end.
  private static func start(
    _ configuration: Configuration, input: FileDescriptor, output: FileDescriptor, errors: FileDescriptor?,
    ended: Ending
  ) async throws -> pid_t {
    let spawned = Mutex<CheckedContinuation<pid_t, any Error>?>(nil)
    let report: @Sendable (Result<pid_t, any Error>) -> Void = { result in
      spawned.withLock { waiting in
        waiting?.resume(with: result)
        waiting = nil
      }
    }
    return try await withCheckedThrowingContinuation { continuation in
      spawned.withLock { $0 = continuation }
      Task {
        do {
          let status: TerminationStatus
          if let errors {
            status = try await Subprocess.run(
              configuration, input: .fileDescriptor(input, closeAfterSpawningProcess: true),
              output: .fileDescriptor(output, closeAfterSpawningProcess: true),
              error: .fileDescriptor(errors, closeAfterSpawningProcess: true)
            ) { execution in report(.success(execution.processIdentifier.value)) }.terminationStatus
          } else {
            status = try await Subprocess.run(
              configuration, input: .fileDescriptor(input, closeAfterSpawningProcess: true),
              output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .combinedWithOutput
            ) { execution in report(.success(execution.processIdentifier.value)) }.terminationStatus
          }
          let waiters = ended.state.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
          }
          for waiter in waiters { waiter.resume(returning: status) }
        } catch {
          report(.failure(SpawnError(description: "\(configuration.executable): \(error)")))
        }
      }
    }
  }

  private static func readLines(_ descriptor: FileDescriptor) -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    Thread.detachNewThread {
      var pending: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4_096)
      while true {
        let count = read(descriptor.rawValue, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        pending += buffer[..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
          continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
      }
      if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
      try? descriptor.close()
      continuation.finish()
    }
    return lines
  }

  /// How the child ended, or nil when it has not ended within `seconds` (it is then killed).
  public func exit(within seconds: Double) async -> TerminationStatus? {
    await withTaskGroup(of: TerminationStatus?.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          let status = self.ended.state.withLock { state in
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

  /// How the child ended; nil while it runs.
  public var status: TerminationStatus? { ended.state.withLock { $0.status } }

  /// Sends `signal` unless the child has ended (its pid may then be another process's).
  public func kill(_ signal: Int32) {
    if ended.state.withLock({ $0.status == nil }) { Glibc.kill(pid, signal) }
  }

  /// Writes `text` to the child's standard input (an ``Input/pipe``); a child that is gone is not written to.
  public func write(_ text: String) {
    guard let inputDescriptor else { return }
    _ = try? inputDescriptor.writeAll(Array(text.utf8))
  }

  /// Closes the child's standard input (an ``Input/pipe``): it reads its end.
  public func closeInput() {
    try? inputDescriptor?.close()
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
    let child = try await SpawnedProcess(executable, arguments, errors: .separate)
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
    return Outcome(exitCode: status?.exitCode, output: printed, errors: complained, timedOut: status == nil)
  }

  private static func collect(_ lines: AsyncStream<String>) async -> String {
    var text: [String] = []
    for await line in lines { text.append(line + "\n") }
    return text.joined()
  }
}

/// How a child ended, once it has, and who waits for it.
private final class Ending: Sendable {
  let state = Mutex<(status: TerminationStatus?, waiters: [CheckedContinuation<TerminationStatus, Never>])>((nil, []))
}

/// A child could not be started.
public struct SpawnError: Error, CustomStringConvertible {
  /// What failed, and why.
  public let description: String
  /// An error saying `description`.
  public init(description: String) { self.description = description }
}

extension TerminationStatus {
  /// The exit code of a child that exited; nil for one a signal ended.
  public var exitCode: Int32? {
    switch self {
    case .exited(let code): code
    default: nil
    }
  }
}
