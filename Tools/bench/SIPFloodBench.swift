import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A stranger floods a SIP account: `invites` INVITEs from 127.0.0.2, never acknowledged, at about
/// 1 000 a second. Measured: the daemon's memory before, right after and 55 s after (the process is the bench
/// with the daemon in it), each second's count of datagrams that came back to the stranger (a 403 re-sent
/// until SIP's 32 s transaction timeout, then nothing), and the latency of calls over the control socket
/// placed while the flood runs, beside the same calls before it.
enum SIPFloodBench {
  struct Figures: Sendable {
    let invites: Int
    let residentBeforeKiB: Int
    let residentAfterFloodKiB: Int
    let residentSettledKiB: Int
    /// Datagrams back to the stranger per second since the flood began.
    let repliesPerSecond: [Int]
    /// Seconds after the flood began of the last datagram back; nil when none came.
    let lastReplyAfter: Double?
    let quiet: Summary
    let duringFlood: Summary

    var json: JSONValue {
      let replies: [JSONValue] = repliesPerSecond.map { JSONValue.int($0) }
      let last: JSONValue = lastReplyAfter.map { JSONValue.number($0) } ?? JSONValue.null
      var members: [(String, JSONValue)] = [("invites", .int(invites))]
      members.append(("resident_before_kib", .int(residentBeforeKiB)))
      members.append(("resident_after_flood_kib", .int(residentAfterFloodKiB)))
      members.append(("resident_settled_kib", .int(residentSettledKiB)))
      members.append(("replies_per_second", .array(replies)))
      members.append(("last_reply_after_s", last))
      members.append(("socket_call_quiet", quiet.json(unit: "ms")))
      members.append(("socket_call_during_flood", duringFlood.json(unit: "ms")))
      return .object(members)
    }
  }

  static func measure(invites: Int = 10_000, calls: Int = 20) async throws -> Figures {
    let accountPort = SIPBench.freeUDPPort()
    let board = try ProbedBoard()
    let sip = """
      sip:
        accounts:
          - name: bench
            user: "201"
            local_address: 127.0.0.1
            local_port: \(accountPort)
            trusted: [127.0.0.1]
      """
    let daemon = try await DaemonUnderTest.start(
      boardPaths: [board.slavePath], label: "sip-flood", extraConfig: sip, eventSink: { _ in })
    do {
      try await DaemonBench.warmUp(daemon, [board])
      func trips(_ prefix: String) async throws -> [Double] {
        var result: [Double] = []
        for index in 0..<calls {
          let id = "\(prefix)\(index)"
          let trip = try await HTTPBench.trip(board, id: id) {
            _ = try await daemon.request(#"{"type":"call","id":"\#(id)"}"#)
          } hangup: {
            _ = try await daemon.request(#"{"type":"hangup","id":"\#(id)"}"#)
          }
          if let trip { result.append(trip.0) }
        }
        return result
      }
      let quiet = try await trips("q")
      let before = ProcessStats.residentKiB
      let stranger = try Stranger(to: accountPort)
      let started = ContinuousClock.now
      let sending = Task.detached { stranger.flood(invites) }
      let during = try await trips("f")
      await sending.value
      let afterFlood = ProcessStats.residentKiB
      // SIP's transaction timeout is 32 s after the last INVITE; listen to 45 s after the last (55 s at least), past the heap trims that follow a flood.
      let listenUntil = started.advanced(by: .seconds(max(55, Double(invites) / 1_000 + 45)))
      try? await Task.sleep(until: listenUntil, clock: .continuous)
      let settled = ProcessStats.residentKiB
      let replies = stranger.stop()
      await daemon.stop()
      await board.stop()
      var perSecond: [Int] = []
      for reply in replies {
        let second = Int(started.duration(to: reply).seconds)
        while perSecond.count <= second { perSecond.append(0) }
        perSecond[second] += 1
      }
      return Figures(
        invites: invites, residentBeforeKiB: before, residentAfterFloodKiB: afterFlood, residentSettledKiB: settled,
        repliesPerSecond: perSecond, lastReplyAfter: replies.last.map { started.duration(to: $0).seconds },
        quiet: Summary(quiet), duringFlood: Summary(during))
    } catch {
      await daemon.stop()
      await board.stop()
      throw error
    }
  }

  /// A UDP socket on 127.0.0.2 that sends INVITEs and never acknowledges an answer, counting what comes back.
  final class Stranger: Sendable {
    private final class Shared: Sendable {
      let replies = Mutex<[ContinuousClock.Instant]>([])
      let stopping = Atomic(false)
      let ended = DispatchSemaphore(value: 0)
    }

    private let descriptor: Int32
    private let target: Int
    private let shared = Shared()

    init(to port: Int) throws {
      let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      self.descriptor = descriptor
      target = port
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr.s_addr = inet_addr("127.0.0.2")
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard descriptor >= 0, bound == 0 else { throw BenchError("cannot bind a UDP socket to 127.0.0.2") }
      var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      let shared = shared
      let reader = Thread {
        defer { shared.ended.signal() }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !shared.stopping.load(ordering: .relaxed) {
          if recv(descriptor, &buffer, buffer.count, 0) > 0 {
            let now = ContinuousClock.now
            shared.replies.withLock { $0.append(now) }
          }
        }
      }
      reader.start()
    }

    /// Sends `count` INVITEs, 100 every 100 ms.
    func flood(_ count: Int) {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = UInt16(target).bigEndian
      var local = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
      }
      let localPort = Int(UInt16(bigEndian: local.sin_port))
      for index in 0..<count {
        let message =
          "INVITE sip:201@127.0.0.1:\(target) SIP/2.0\r\n"
          + "Via: SIP/2.0/UDP 127.0.0.2:\(localPort);branch=z9hG4bK-flood-\(index)\r\n"
          + "From: \"Mum\" <sip:+49301234567@127.0.0.2>;tag=flood\(index)\r\n"
          + "To: <sip:201@127.0.0.1:\(target)>\r\nCall-ID: flood-\(index)@127.0.0.2\r\nCSeq: 1 INVITE\r\n"
          + "Contact: <sip:scanner@127.0.0.2:\(localPort)>\r\nMax-Forwards: 70\r\n"
          + "P-Asserted-Identity: <sip:+49301234567@127.0.0.2>\r\nUser-Agent: friendly-scanner\r\n"
          + "Content-Length: 0\r\n\r\n"
        let bytes = Array(message.utf8)
        _ = bytes.withUnsafeBytes { buffer in
          withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              sendto(descriptor, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
          }
        }
        if index % 100 == 99 { usleep(100_000) }
      }
    }

    /// Stops listening; when each datagram came back.
    func stop() -> [ContinuousClock.Instant] {
      shared.stopping.store(true, ordering: .relaxed)
      shared.ended.wait()
      close(descriptor)
      return shared.replies.withLock { $0 }
    }
  }
}
