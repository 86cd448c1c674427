import CallAlertControl
import CallAlertTestSupport
import Foundation
import Synchronization
import Testing

@testable import CallAlertDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The control socket keeps every client within bounds: nothing a client sends, or fails to read, grows the
/// daemon without limit or makes it spin, and a client that half-closes is still answered.
@Suite("Control socket limits", .timeLimit(.minutes(1)))
struct ControlSocketLimitTests {
  @Test func aClientThatHalfClosesAfterItsRequestsGetsEveryAnswer() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(at: folder.socket)
    let client = try RawClient(folder.socket)
    defer { client.close() }
    let (text, ended) = await onThread {
      client.send(Array("one\ntwo\n".utf8))
      client.shutdownWrite()
      return client.readToEnd()
    }
    #expect(text == "{\"echo\":\"one\"}\n{\"echo\":\"two\"}\n")
    #expect(ended)
    await server.stop()
  }

  @Test func aLastLineWithoutANewlineIsReadAndAnswered() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(at: folder.socket)
    let client = try RawClient(folder.socket)
    defer { client.close() }
    let (text, ended) = await onThread {
      client.send(Array(#"{"status":{}}"#.utf8))  // printf '{"status":{}}' | socat - UNIX:$sock
      client.shutdownWrite()
      return client.readToEnd()
    }
    #expect(text == "{\"echo\":\"{\"status\":{}}\"}\n")
    #expect(ended)
    await server.stop()
  }

  /// While the daemon works on a request it reads nothing more, so a client pushing a huge line is held up
  /// by its own kernel buffer instead of filling the daemon's memory; the huge line is then skipped while it
  /// is read, and the next line is answered.
  @Test func readingWaitsForAnswersAndAHugeLineIsSkippedWhileRead() async throws {
    let folder = SocketFolder()
    let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
    let (gate, opener) = AsyncStream.makeStream(of: Void.self)
    let server = try RunningServer(at: folder.socket) { line, _, _ in
      if line == Array("hold".utf8) {
        startedSignal.yield()
        for await _ in gate { break }
      }
      return #"{"echo":"\#(String(decoding: line, as: UTF8.self))"}"#
    }
    let client = try RawClient(folder.socket, timeout: .seconds(1))
    defer { client.close() }
    let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 32 * 1024 * 1024)
    _ = await onThread { client.send(Array("hold\n".utf8)) }
    for await _ in started { break }
    // Blocks once the kernel's buffers are full, and gives up after a second of no room.
    let pushed = await onThread { client.send(huge) }
    #expect(pushed.sent < 4 * 1024 * 1024, "the daemon read \(pushed.sent) bytes while it was busy")
    #expect(pushed.errno == EAGAIN)
    opener.yield()
    client.setTimeout(.seconds(30))
    let rest = Array(huge[pushed.sent...]) + Array("\nafter\n".utf8)
    let answers = await onThread { () -> [String?] in
      client.send(rest)
      return [client.readLine(), client.readLine(), client.readLine()]
    }
    #expect(answers[0] == #"{"echo":"hold"}"#)
    #expect(answers[1]?.contains("socket#1:2:1: line longer than 256 KiB") == true)
    #expect(answers[2] == #"{"echo":"after"}"#)
    await server.stop()
  }

  @Test func aClientThatSendsButNeverReadsIsDisconnectedWhenItsBufferIsFull() async throws {
    let folder = SocketFolder()
    let answer = String(repeating: "a", count: 1024)
    let server = try RunningServer(at: folder.socket, limits: ControlSocketLimits(maxUnsentBytes: 16 * 1024)) {
      _, _, _ in answer
    }
    let client = try RawClient(folder.socket, timeout: .seconds(10))
    defer { client.close() }
    // 2 MiB of requests, each asking for 1 KiB: the daemon must hang up long before they are all in.
    let requests = Array(String(repeating: "q\n", count: 1 << 20).utf8)
    let outcome = await onThread { client.send(requests) }
    #expect(outcome.sent < requests.count, "the daemon took every request from a client that never reads")
    #expect(outcome.errno == EPIPE || outcome.errno == ECONNRESET, "send stopped with errno \(outcome.errno)")
    await server.stop()
  }

  @Test func clientsBeyondTheConnectionLimitAreRefusedWithAnErrorLine() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(at: folder.socket, limits: ControlSocketLimits(maxConnections: 2))
    let first = try RawClient(folder.socket)
    let second = try RawClient(folder.socket)
    defer {
      first.close()
      second.close()
    }
    // Both are served (and so counted) before the third arrives.
    let served = await onThread { () -> [String?] in
      first.send(Array("a\n".utf8))
      second.send(Array("b\n".utf8))
      return [first.readLine(), second.readLine()]
    }
    #expect(served == [#"{"echo":"a"}"#, #"{"echo":"b"}"#])
    let third = try RawClient(folder.socket)
    defer { third.close() }
    let refusal = await onThread { third.readToEnd() }
    #expect(Answer.of(refusal.text)?.isSuccess == false)
    #expect(refusal.text.contains("too many connections (the limit is 2)"))
    #expect(refusal.reachedEnd)
    await server.stop()
  }

  /// Descriptors are kept for the boards: a client that would take one of them is refused, so a replugged
  /// board can always be reopened. Here every descriptor is reserved, so every client is.
  @Test func aClientThatWouldTakeADescriptorKeptForTheBoardsIsRefused() async throws {
    var limit = rlimit()
    #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
    try #require(limit.rlim_cur < rlim_t(Int.max))
    let folder = SocketFolder()
    let server = try RunningServer(
      at: folder.socket, limits: ControlSocketLimits(reservedDescriptors: Int(limit.rlim_cur)))
    let client = try RawClient(folder.socket)
    defer { client.close() }
    let refusal = await onThread { client.readToEnd() }
    #expect(refusal.text.contains("the daemon is short of file descriptors; try again later"))
    #expect(refusal.reachedEnd)
    await server.stop()
  }

  @Test func anIdleClientIsDisconnectedAfterTheIdleTimeout() async throws {
    let folder = SocketFolder()
    let server = try RunningServer(
      at: folder.socket, limits: ControlSocketLimits(idleTimeout: .milliseconds(200)))
    let client = try RawClient(folder.socket, timeout: .seconds(20))
    defer { client.close() }
    let start = ContinuousClock.now
    let (text, ended) = await onThread {
      client.send(Array("hello\n".utf8))
      return client.readToEnd()
    }
    // The echo comes first when the server read the line before its idle timer rang; on a loaded machine the
    // 200 ms may pass before it gets to it (it did once), and the idle close is then the only answer.
    #expect(text.hasPrefix(#"{"echo":"hello"}"# + "\n") || text.hasPrefix(#"{"ok":false,"error":"closing"#), "\(text)")
    #expect(text.contains("closing a connection idle for"))
    #expect(ended)
    #expect(ContinuousClock.now - start >= .milliseconds(200))
    await server.stop()
  }

  /// At the descriptor limit accept(2) fails while the listening socket stays readable: retrying at once
  /// spun a core. Accepting pauses instead, for longer each time, and serves the client once it can.
  @Test func runningOutOfDescriptorsAtAcceptBacksOffInsteadOfSpinning() async throws {
    let folder = SocketFolder()
    let calls = Atomic<Int>(0)
    let server = try RunningServer(
      at: folder.socket,
      limits: ControlSocketLimits(acceptBackoff: .milliseconds(20) ... .seconds(1)),
      accept: { listening in
        if calls.add(1, ordering: .relaxed).newValue <= 4 {
          errno = EMFILE
          return -1
        }
        return systemAccept(listening)
      })
    let start = ContinuousClock.now
    let client = try RawClient(folder.socket)
    defer { client.close() }
    let answer = await onThread { () -> String? in
      client.send(Array("x\n".utf8))
      return client.readLine()
    }
    let elapsed = ContinuousClock.now - start
    #expect(answer == #"{"echo":"x"}"#)
    // 20 + 40 + 80 + 160 ms of pauses, and a handful of calls, where spinning made millions.
    #expect(elapsed >= .milliseconds(300))
    #expect(calls.load(ordering: .relaxed) <= 8)
    await server.stop()
  }
}
