import CallAlertTransport
import Foundation
import Synchronization
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The built `callalert` binary run as a child process, as an operator runs it: its standard error collected
/// (and awaitable), its standard output a pipe the test may stop reading, signals sent by PID, its exit
/// observed through `terminationHandler`. Every wait is bounded.
final class DaemonProcess: Sendable {
  /// Where the tests' `callalert` is: beside the test bundle (`.build/debug`).
  static func binary() throws -> URL {
    // CALLALERT_TEST_BINARY: run these tests against another build (e.g. main's, to see them fail there).
    if let path = ProcessInfo.processInfo.environment["CALLALERT_TEST_BINARY"] { return URL(fileURLWithPath: path) }
    let candidates = [
      URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"),
    ]
    for folder in candidates {
      let url = folder.appendingPathComponent("callalert")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw ProcessError("callalert is not built beside the tests (swift build --build-tests builds it)")
  }

  struct ProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  private let process = Process()
  private let errorText = SharedText()
  private let errorChanges: AsyncStream<Void>
  private let exitStatus: AsyncStream<(Process.TerminationReason, Int32)>
  /// The read end of the child's standard output.
  let output: FileHandle

  /// The child's PID.
  var pid: Int32 { process.processIdentifier }

  /// Starts `callalert` with `arguments` and `environment` added to this process's; `input`, when given, is
  /// its standard input (from a file, so it ends after the text), else it reads nothing.
  init(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws {
    process.executableURL = try Self.binary()
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardInput = FileHandle.nullDevice
    if let input {
      let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-stdin-\(UUID())").path
      FileManager.default.createFile(atPath: path, contents: Data(input.utf8))
      defer { unlink(path) }  // the child keeps its descriptor
      guard let handle = FileHandle(forReadingAtPath: path) else { throw ProcessError("cannot open \(path)") }
      process.standardInput = handle
    }
    // Our own pipe, close-on-exec: no copy of its read end leaks into the child, so when the test closes it
    // the child's writes fail with EPIPE, as they do behind `| head -1`.
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw ProcessError("pipe failed") }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    output = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
    let childOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    process.standardOutput = childOutput
    // Standard error through a descriptor channel, not FileHandle.readabilityHandler: Foundation closes the
    // pipe when the handle goes while libdispatch may still have its source registered, which crashed the
    // test process now and then inside _dispatch_event_loop_drain.
    var errorEnds: [Int32] = [0, 0]
    guard pipe(&errorEnds) == 0 else { throw ProcessError("pipe failed") }
    for end in errorEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let errors = try DescriptorChannel(taking: FileDescriptor(rawValue: errorEnds[0]), name: "callalert's stderr")
    let childErrors = FileHandle(fileDescriptor: errorEnds[1], closeOnDealloc: true)
    process.standardError = childErrors
    let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    errorChanges = changes
    let errorText = self.errorText
    Task {
      defer { changed.finish() }
      do {
        for try await chunk in errors.incoming {
          errorText.append(String(decoding: chunk, as: UTF8.self))
          changed.yield()
        }
      } catch {}  // the child closed its standard error: the end
    }
    let (exits, exited) = AsyncStream.makeStream(of: (Process.TerminationReason, Int32).self)
    exitStatus = exits
    process.terminationHandler = { process in
      exited.yield((process.terminationReason, process.terminationStatus))
      exited.finish()
    }
    try process.run()
    try childOutput.close()
    try childErrors.close()
  }

  /// Everything the child wrote on standard error so far.
  var standardError: String { errorText.value }

  /// Standard error once the child closed it (at most `timeout`; what came so far after that). After the
  /// child's exit, its last bytes may still be on their way from the event loop to `standardError`.
  func allErrors(timeout: Duration = .seconds(20)) async -> String {
    _ = await Self.within(timeout) { [self] in
      for await _ in errorChanges {}
    }
    return standardError
  }

  /// Waits until standard error contains `text` (true), or `timeout` passes or the child's stderr ends (false).
  func waitForError(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
    await Self.within(timeout) { [self] in
      if standardError.contains(text) { return true }
      for await _ in errorChanges where standardError.contains(text) { return true }
      return standardError.contains(text)
    } ?? false
  }

  /// Reads standard output up to its first newline (at most `timeout`).
  func firstOutputLine(timeout: Duration = .seconds(20)) async -> String? {
    let output = self.output
    return await Self.within(timeout) {
      await withCheckedContinuation { continuation in
        // One blocking read at a time on a thread of its own; the line is short.
        Thread.detachNewThread {
          var line: [UInt8] = []
          var byte: UInt8 = 0
          while read(output.fileDescriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { break }
            line.append(byte)
          }
          continuation.resume(returning: String(decoding: line, as: UTF8.self))
        }
      }
    } ?? nil
  }

  /// Reads standard output to its end (at most `timeout`).
  func allOutput(timeout: Duration = .seconds(20)) async -> String? {
    let output = self.output
    return await Self.within(timeout) {
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          var bytes: [UInt8] = []
          var buffer = [UInt8](repeating: 0, count: 4_096)
          while true {
            let count = buffer.withUnsafeMutableBytes { read(output.fileDescriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
          }
          continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
        }
      }
    } ?? nil
  }

  /// Sends a signal.
  func signal(_ number: Int32) { kill(process.processIdentifier, number) }

  /// Waits for the exit: how it ended and its status; nil if it did not end within `timeout` (it is killed then).
  func exit(timeout: Duration = .seconds(20)) async -> (Process.TerminationReason, Int32)? {
    let exitStatus = self.exitStatus
    let status: (Process.TerminationReason, Int32)?? = await Self.within(timeout) {
      for await status in exitStatus { return status }
      return nil
    }
    if let status, let status { return status }
    signal(SIGKILL)
    return nil
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

/// Text appended from one thread and read from others.
final class SharedText: Sendable {
  private let text = Mutex("")
  var value: String { text.withLock { $0 } }
  func append(_ more: String) { text.withLock { $0 += more } }
}
