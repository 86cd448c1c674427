import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The chaos soak's control clients: plain blocking socket code, each on a thread of its own so that
/// a client the daemon keeps waiting never holds a thread of the concurrency pool that the virtual board and
/// its probe run on. Every wait is bounded.
enum ChaosClient {
  /// What the misbehaving clients did.
  struct Counters: Sendable {
    var closers = 0
    var slowReaders = 0
    var slowReadersDropped = 0
    var burst = 0
    var burstRefused = 0
  }

  /// What the misbehaving clients share: whether to stop, and their counters.
  final class Run: Sendable {
    private let stopped = Mutex(false)
    private let totals = Mutex(Counters())

    var isStopped: Bool { stopped.withLock { $0 } }
    func stop() { stopped.withLock { $0 = true } }
    var counters: Counters { totals.withLock { $0 } }
    func count(_ update: (inout Counters) -> Void) { totals.withLock { update(&$0) } }
  }

  /// A connected socket to `path`, or nil when nothing accepts within `timeout` (a full backlog answers
  /// EAGAIN at once on a non-blocking Unix socket, so this retries every 10 ms).
  static func connect(_ path: String, timeout: Duration) -> CInt? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
      let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      guard fd >= 0 else {
        usleep(10_000)
        continue
      }
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      if result == 0 {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
      }
      close(fd)
      usleep(10_000)
    }
    return nil
  }

  /// Sends `line` on a new connection and returns the first answer line; nil on any failure or timeout.
  static func request(_ line: String, socket path: String, timeout: Duration = .seconds(5)) async -> String? {
    await onThread {
      guard let fd = connect(path, timeout: timeout) else { return nil }
      defer { close(fd) }
      let bytes = Array((line + "\n").utf8)
      var sent = 0
      while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return nil }
        sent += n
      }
      var answer: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return nil }
        answer += buffer[..<n]
        if let newline = answer.firstIndex(of: UInt8(ascii: "\n")) {
          return String(decoding: answer[..<newline], as: UTF8.self)
        }
      }
    }
  }

  /// Sends a control line, retrying for up to `timeout` while the daemon is busy or refuses; whether it
  /// answered ok.
  static func send(_ line: String, socket: String, timeout: Duration = .seconds(10)) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
      if let answer = await request(line, socket: socket), answer.contains(#""ok":true"#) { return true }
      try? await Task.sleep(for: .milliseconds(20))  // refused (connection limit): a user would try again
    }
    return false
  }

  /// Whether `status` answers ok.
  static func status(socket: String) async -> Bool {
    await request(#"{"type":"status"}"#, socket: socket)?.contains(#""ok":true"#) ?? false
  }

  /// Waits until the daemon answers on its socket.
  static func waitForDaemon(socket: String, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
      if await status(socket: socket) { return true }
      try? await Task.sleep(for: .milliseconds(50))  // the daemon starting up
    }
    return false
  }

  /// The call ids in the history's answer when it answered ok (records pending or lost make it answer
  /// otherwise); else the answer (or nil when none came).
  static func historyIDs(socket: String, limit: Int) async -> Result<Set<String>, HistoryRefused> {
    guard let answer = await request(#"{"type":"history","limit":\#(limit)}"#, socket: socket) else {
      return .failure(HistoryRefused(answer: nil))
    }
    guard let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
      object["ok"] as? Bool == true, let calls = object["calls"] as? [[String: Any]]
    else { return .failure(HistoryRefused(answer: answer)) }
    return .success(Set(calls.compactMap { $0["id"] as? String }))
  }

  /// A history answer that was not ok.
  struct HistoryRefused: Error {
    let answer: String?
  }

  /// Clients that ask for large answers and close without reading them, until `stop`.
  static func closeMidAnswer(socket: String, run: Run) async {
    await onThread {
      let requests = Array(String(repeating: #"{"type":"history","limit":500}"# + "\n", count: 20).utf8)
      while !run.isStopped {
        guard let fd = connect(socket, timeout: .seconds(1)) else { continue }
        _ = requests.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        usleep(UInt32.random(in: 0...2_000))
        // A reset instead of an orderly close, so the daemon's next write fails at once.
        var linger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(fd)
        run.count { $0.closers += 1 }
        usleep(5_000)
      }
    }
  }

  /// Clients that send requests without end and never read, five at a time; counts those the daemon dropped.
  static func neverRead(socket: String, run: Run) async {
    await onThread {
      var open: [CInt] = []
      let request = Array((#"{"type":"status"}"# + "\n").utf8)
      while !run.isStopped {
        if open.count < 5, let fd = connect(socket, timeout: .seconds(1)) {
          open.append(fd)
          run.count { $0.slowReaders += 1 }
        }
        open.removeAll { fd in
          // Write until the socket is full; a daemon that dropped us makes the write fail.
          for _ in 0..<200 {
            let n = request.withUnsafeBytes {
              Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
            if n < 0 {
              close(fd)
              run.count { $0.slowReadersDropped += 1 }
              return true
            }
          }
          return false
        }
        usleep(200_000)
      }
      for fd in open { close(fd) }
    }
  }

  /// Now and then, `count` connections at once (more than the daemon's descriptor limit), held for a second.
  static func burst(socket: String, count: Int, run: Run) async {
    await onThread {
      while !run.isStopped {
        var open: [CInt] = []
        for _ in 0..<count {
          if let fd = connect(socket, timeout: .milliseconds(50)) {
            open.append(fd)
          } else {
            run.count { $0.burstRefused += 1 }
          }
        }
        run.count { $0.burst += open.count }
        usleep(1_000_000)
        for fd in open { close(fd) }
        for _ in 0..<30 where !run.isStopped { usleep(100_000) }
      }
    }
  }
}
