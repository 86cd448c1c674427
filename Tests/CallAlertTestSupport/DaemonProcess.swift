import Foundation
import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The built `callalert` binary run as a child process (a ``SpawnedProcess``), as an operator runs it: its
/// standard error collected (and awaitable), its standard output a pipe the test may stop reading, signals sent
/// by PID, its end observed by swift-subprocess. Every wait is bounded.
public final class DaemonProcess: Sendable {
  /// Where the tests' `callalert` is: beside the test bundle (`.build/debug`).
  public static func binary() throws -> String {
    // CALLALERT_TEST_BINARY: run these tests against another build (e.g. main's, to see them fail there).
    if let path = ProcessInfo.processInfo.environment["CALLALERT_TEST_BINARY"] { return path }
    let candidates = [
      URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"),
    ]
    for folder in candidates {
      let url = folder.appendingPathComponent("callalert")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
    }
    throw SpawnError(description: "callalert is not built beside the tests (swift build --build-tests builds it)")
  }

  private let child: SpawnedProcess
  private let errorText = SharedText()
  private let errorChanges: AsyncStream<Void>

  /// The child's PID.
  public var pid: Int32 { child.pid }

  /// Starts `callalert` with `arguments` and `environment` added to this process's; `input`, when given, is
  /// its standard input (from a file, so it ends after the text), else it reads nothing.
  public init(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws {
    child = try await SpawnedProcess(
      try Self.binary(), arguments, environment: environment, input: input.map { .text($0) } ?? .none,
      output: .pipe, errors: .separate)
    let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    errorChanges = changes
    let (errorLines, errorText) = (child.errorLines, errorText)
    Task {
      for await line in errorLines {
        errorText.append(line + "\n")
        changed.yield()
      }
      changed.finish()
    }
  }

  /// Everything the child wrote on standard error so far.
  public var standardError: String { errorText.value }

  /// Closes the read end of standard output: the child's next write fails with EPIPE, as behind `| head -1`.
  public func closeOutput() throws {
    try child.outputDescriptor?.close()
  }

  /// Standard error once the child closed it (at most `timeout`; what came so far after that).
  public func allErrors(timeout: Duration = .seconds(20)) async -> String {
    _ = await Self.within(timeout) { [self] in
      for await _ in errorChanges {}
    }
    return standardError
  }

  /// Waits until standard error contains `text` (true), or `timeout` passes or the child's stderr ends (false).
  public func waitForError(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
    await Self.within(timeout) { [self] in
      if standardError.contains(text) { return true }
      for await _ in errorChanges where standardError.contains(text) { return true }
      return standardError.contains(text)
    } ?? false
  }

  /// Reads standard output up to its first newline (at most `timeout`).
  public func firstOutputLine(timeout: Duration = .seconds(20)) async -> String? {
    guard let output = child.outputDescriptor?.rawValue else { return nil }
    return await Self.within(timeout) {
      await withCheckedContinuation { continuation in
        // One blocking read at a time on a thread of its own; the line is short.
        Thread.detachNewThread {
          var line: [UInt8] = []
          var byte: UInt8 = 0
          while read(output, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
          }
          continuation.resume(returning: String(decoding: line, as: UTF8.self))
        }
      }
    } ?? nil
  }

  /// Reads standard output to its end (at most `timeout`).
  public func allOutput(timeout: Duration = .seconds(20)) async -> String? {
    guard let output = child.outputDescriptor?.rawValue else { return nil }
    return await Self.within(timeout) {
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          var bytes: [UInt8] = []
          var buffer = [UInt8](repeating: 0, count: 4_096)
          while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
          }
          continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
        }
      }
    } ?? nil
  }

  /// Sends a signal.
  public func signal(_ number: Int32) { child.kill(number) }

  /// Waits for the end: how the child ended; nil if it did not end within `timeout` (it is killed then).
  public func exit(timeout: Duration = .seconds(20)) async -> TerminationStatus? {
    await child.exit(within: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
  }

  /// Runs `body`, giving up after `timeout` (nil). The body is cancelled then, but not awaited: a thread
  /// blocked in read(2) must not hold the test up.
  static func within<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    let waiting = Mutex<CheckedContinuation<T?, Never>?>(nil)
    let resume: @Sendable (T?) -> Void = { value in
      waiting.withLock { current in
        current?.resume(returning: value)
        current = nil
      }
    }
    return await withCheckedContinuation { continuation in
      waiting.withLock { $0 = continuation }
      let work = Task { resume(await body()) }
      Task {
        try? await Task.sleep(for: timeout)
        resume(nil)
        work.cancel()
      }
    }
  }
}

/// Text appended by one task and read from others.
private final class SharedText: Sendable {
  private let text = Mutex("")
  var value: String { text.withLock { $0 } }
  func append(_ more: String) { text.withLock { $0 += more } }
}
