import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Call/hangup pairs on one control-socket connection, `window` requests in flight: a sender thread writes
/// `{"type":"call","id":"PREFIX-N"}` and `{"type":"hangup","id":"PREFIX-N"}` for each pair in turn, a reader
/// thread counts the answers. Shared by the history-under-load and long-life runs.
struct PipelinedPairs {
  let socket: String
  let pairs: Int
  /// The calls' ids are this, a dash and the pair's number.
  var idPrefix = "load"
  /// Requests in flight on the connection.
  var window = 64
  /// Past this the reader stops and the run counts as not finished in time.
  var timeout: Duration = .seconds(600)
  /// Called on the sender's thread before the call of each pair is sent, with the pair's number.
  var beforePair: (@Sendable (Int) -> Void)? = nil
  /// Called on the reader's thread each time another `every` answers came, with the answers so far.
  var every = 0
  var onAnswers: (@Sendable (Int) -> Void)? = nil

  /// What the connection saw.
  struct Sent: Sendable {
    var answers = 0
    var ok = 0
    var inTime = true
    var notes: [String] = []
  }

  func send() async -> Sent {
    guard let fd = ChaosClient.connect(socket, timeout: .seconds(10)) else {
      return Sent(inTime: false, notes: ["cannot connect"])
    }
    defer { close(fd) }
    var limit = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let requests = 2 * pairs
    let window = self.window
    let answered = Atomic<Int>(0)
    let flow = NSCondition()
    let deadline = ContinuousClock.now.advanced(by: timeout)
    let (beforePair, every, onAnswers, prefix) = (self.beforePair, self.every, self.onAnswers, self.idPrefix)

    async let reader: Sent = onThread {
      var result = Sent()
      var buffer = [UInt8](repeating: 0, count: 65_536)
      var line: [UInt8] = []
      var nextReport = every > 0 ? every : Int.max
      while result.answers < requests {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
          result.inTime = false
          result.notes.append("the connection ended after \(result.answers) answers")
          break
        }
        for byte in buffer[..<count] {
          guard byte == UInt8(ascii: "\n") else {
            line.append(byte)
            continue
          }
          result.answers += 1
          if line.count >= 9, line.starts(with: Array(#"{"ok":true"#.utf8)) { result.ok += 1 }
          line.removeAll(keepingCapacity: true)
        }
        flow.lock()
        answered.store(result.answers, ordering: .relaxed)
        flow.broadcast()
        flow.unlock()
        if result.answers >= nextReport, let onAnswers {
          onAnswers(result.answers)
          while nextReport <= result.answers { nextReport += every }
        }
        if ContinuousClock.now > deadline {
          result.inTime = false
          result.notes.append("stopped after \(result.answers) answers: the run's time was up")
          break
        }
      }
      flow.lock()
      answered.store(Int.max, ordering: .relaxed)  // the sender stops waiting
      flow.broadcast()
      flow.unlock()
      return result
    }
    let sender: Bool = await onThread {
      var request = 0
      while request < requests {
        flow.lock()
        while request - answered.load(ordering: .relaxed) >= window { flow.wait() }
        let ended = answered.load(ordering: .relaxed) == Int.max
        flow.unlock()
        if ended { return false }
        let pair = request / 2
        if request % 2 == 0 { beforePair?(pair) }
        let text =
          request % 2 == 0
          ? #"{"type":"call","id":"\#(prefix)-\#(pair)"}"# : #"{"type":"hangup","id":"\#(prefix)-\#(pair)"}"#
        let bytes = Array((text + "\n").utf8)
        var done = 0
        while done < bytes.count {
          let count = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
          if count <= 0 { return false }
          done += count
        }
        request += 1
      }
      return true
    }
    var result = await reader
    if !sender { result.notes.append("the sender stopped early") }
    return result
  }
}
