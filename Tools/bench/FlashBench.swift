import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertTransport
import CallAlertVirtualBoard
import Foundation
import Synchronization

/// Flash goodput: a large pattern table sent to a virtual board over a line paced at 115 200 baud (8N1, so
/// 11 520 bytes/s at most) with 1 ms of latency each way, as a fraction of that ceiling.
///
/// The main figures come from ``VirtualLinkHarness`` in virtual time: the host's ``LinkEndpoint`` and the
/// board's firmware core exchange bytes over ``SimulatedWire``s that charge every byte its 86.8 µs, so the
/// figures are exact and the same on every machine (they measure the protocol, not the host).
enum FlashBench {
  /// The line's ceiling in bytes per second: 115 200 baud, 10 bits per byte.
  static let ceilingBytesPerSecond = 11_520.0

  /// One transfer's figures.
  struct Figures: Sendable {
    /// Frames in flight (1 is stop-and-wait).
    let window: Int
    /// Table bytes.
    let tableBytes: Int
    /// TABLE_DATA chunks.
    let chunks: Int
    /// Table bytes per chunk.
    let chunkBytes: Int
    /// From sending TABLE_BEGIN to receiving TABLE_COMMIT's answer.
    let seconds: Double
    /// Bytes the host put on the wire for the transfer: BEGIN, every DATA and COMMIT, first transmissions.
    let hostWireBytes: Int
    /// Retransmissions the host made.
    let retransmissions: Int

    /// Table bytes per second.
    var goodputBytesPerSecond: Double { Double(tableBytes) / seconds }
    /// Goodput as a fraction of 11 520 B/s.
    var fractionOfCeiling: Double { goodputBytesPerSecond / FlashBench.ceilingBytesPerSecond }
    /// Host wire bytes per table byte.
    var wireBytesPerDataByte: Double { Double(hostWireBytes) / Double(tableBytes) }
    /// The best fraction this framing allows with the line never idle: table bytes over wire bytes.
    var framingCeiling: Double { Double(tableBytes) / Double(hostWireBytes) }
    /// How busy the host-to-board line was: wire bytes over what the line could carry in the time.
    var lineUtilisation: Double { Double(hostWireBytes) / (seconds * FlashBench.ceilingBytesPerSecond) }

    var json: JSONValue {
      .object([
        ("window", .int(window)), ("table_bytes", .int(tableBytes)), ("chunks", .int(chunks)),
        ("chunk_bytes", .int(chunkBytes)), ("seconds", .number(seconds)),
        ("goodput_bytes_per_s", .number(goodputBytesPerSecond)), ("fraction_of_ceiling", .number(fractionOfCeiling)),
        ("host_wire_bytes", .int(hostWireBytes)),
        ("wire_bytes_per_data_byte", .number(wireBytesPerDataByte)), ("framing_ceiling", .number(framingCeiling)),
        ("line_utilisation", .number(lineUtilisation)), ("retransmissions", .int(retransmissions)),
      ])
    }
  }

  /// A valid table of about 28 KiB: 16 slots of 250 steps each (the reference board holds 31 744 bytes).
  static func largeTable() -> [UInt8] {
    var random = SplitMix64(seed: 2_024)
    let slots: [PatternTable.Slot?] = (0..<16).map { slot in
      let steps = (0..<250).map { _ in
        PatternStep(
          durationMs: UInt16(20 + random.next() % 500),
          buzzerHz: random.next() % 3 == 0 ? 0 : UInt16(400 + random.next() % 3_000),
          buzzerVolume: UInt8(truncatingIfNeeded: random.next()), motor: UInt8(truncatingIfNeeded: random.next()),
          leds: UInt8(random.next() % 4))
      }
      return PatternTable.Slot(
        name: Array("bench-\(slot)".utf8), pattern: Pattern(steps: steps, repeatCount: Pattern.repeatForever))
    }
    return PatternTable(version: 7, slots: slots).encoded()
  }

  /// Flashes `table` in virtual time with `window` frames in flight; nil if the board refused a step.
  static func virtualTime(table: [UInt8], window: Int, pacing: WirePacing = .usbSerial115200) -> Figures? {
    var link = CountingHarness(harness: VirtualLinkHarness(board: VirtualBoard(), pacing: pacing))
    guard case .reply(_, .info(let info))? = link.exchange(.hello(Hello(window: UInt8(window)))) else { return nil }
    let terms = SessionTerms(
      version: 1, maxPayload: Int(info.capabilities.maxPayload), window: min(window, Int(info.capabilities.window)))
    link.harness.host.apply(terms)
    link.resetCounts()
    let retransmissionsBefore = link.harness.host.sender.retransmissions
    let started = link.harness.nowMicros
    let crc = tableCRC(table)
    guard
      case .reply(_, .tableReady(let maxChunk))? = link.exchange(
        .tableBegin(TableBegin(size: UInt32(table.count), crc: crc)))
    else { return nil }
    let chunkBytes = min(Int(maxChunk), terms.maxPayload - 4)
    // Every chunk is handed to the link at once, as TableFlasher does: the link keeps `window` in flight.
    var pending = Set<UInt16>()
    for offset in stride(from: 0, to: table.count, by: chunkBytes) {
      let chunk = Array(table[offset..<min(offset + chunkBytes, table.count)])
      pending.insert(link.send(.tableData(offset: UInt32(offset), bytes: chunk)))
    }
    let chunks = pending.count
    var refused = false
    link.run(limitMs: 60_000) { deliveries in
      for delivery in deliveries {
        switch delivery {
        case .answer(let sequence, .reply): pending.remove(sequence)
        case .answer(let sequence, _), .failed(let sequence, _):
          if pending.remove(sequence) != nil { refused = true }
        default: break
        }
      }
      return pending.isEmpty
    }
    guard !refused, pending.isEmpty else { return nil }
    guard case .reply(_, .tableCommitted(let summary))? = link.exchange(.tableCommit(crc: crc)), summary.crc == crc
    else {
      return nil
    }
    let seconds = Double(link.harness.nowMicros - started) / 1e6
    return Figures(
      window: terms.window, tableBytes: table.count, chunks: chunks, chunkBytes: chunkBytes, seconds: seconds,
      hostWireBytes: link.hostBytes,
      retransmissions: Int(link.harness.host.sender.retransmissions - retransmissionsBefore))
  }

  /// The table's own CRC: its last 4 bytes.
  static func tableCRC(_ table: [UInt8]) -> UInt32 {
    let n = table.count
    return UInt32(table[n - 4]) | UInt32(table[n - 3]) << 8 | UInt32(table[n - 2]) << 16 | UInt32(table[n - 1]) << 24
  }

  /// Flashes `table` in real time with the host's real ``BoardClient`` to a ``VirtualBoardRunner`` through a
  /// ``ShapedTransport`` paced like the line above (115 200 baud, 1 ms each way). The TABLE_DATA commands go
  /// out as one ordered batch (``BoardClient/send(inOrder:onAnswer:)``, as ``TableFlasher`` sends them),
  /// `window` in flight. Returns the seconds from TABLE_BEGIN to TABLE_COMMIT's answer, or nil on failure or
  /// after 60 s.
  static func realTime(table: [UInt8], window: Int) async -> Double? {
    let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "board"))
    let clock = ContinuousClock()
    let shaped = ShapedTransport(wrapping: hostEnd, pacing: .usbSerial115200, faults: .none, seed: 1, clock: clock)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: boardEnd, clock: clock)
    let running = Task { try? await runner.run() }
    let client = BoardClient(
      transport: shaped, clock: clock, options: BoardClientOptions(hello: Hello(window: UInt8(window))))
    let transfer = Task { () -> Double? in
      do throws(BoardClientError) {
        try await client.connect()
        let crc = tableCRC(table)
        let started = clock.now
        guard
          case .tableReady(let maxChunk) = try await client.send(
            .tableBegin(TableBegin(size: UInt32(table.count), crc: crc)))
        else { return nil }
        let step = max(1, Int(maxChunk))
        let commands = stride(from: 0, to: table.count, by: step).map { offset in
          Command.tableData(offset: UInt32(offset), bytes: Array(table[offset..<min(offset + step, table.count)]))
        }
        for result in try await client.send(inOrder: commands) {
          guard case .success(.tableProgress) = result else { return nil }
        }
        guard case .tableCommitted(let summary) = try await client.send(.tableCommit(crc: crc)), summary.crc == crc
        else {
          return nil
        }
        return started.duration(to: clock.now).seconds
      } catch {
        progress("real-time flash failed: \(error)")
        return nil
      }
    }
    let watchdog = Task {
      try await Task.sleep(for: .seconds(60))
      transfer.cancel()
      await client.close()
    }
    let seconds = await transfer.value
    watchdog.cancel()
    await client.close()
    await runner.stop()
    _ = await running.value
    return seconds
  }

  /// Runs the product's own ``TableFlasher`` (transfer, commit, read-back verify) on the same real-time line,
  /// giving up after `limit`; returns what happened, in words, and whether it flashed and verified.
  static func tableFlasher(
    table: [UInt8], window: Int, faults: FaultProfile = .none, seed: UInt64 = 1, limit: Duration = .seconds(15)
  ) async -> (ok: Bool, outcome: String) {
    let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "board"))
    let clock = ContinuousClock()
    let shaped = ShapedTransport(wrapping: hostEnd, pacing: .usbSerial115200, faults: faults, seed: seed, clock: clock)
    let runner = VirtualBoardRunner(board: VirtualBoard(), transport: boardEnd, clock: clock)
    let running = Task { try? await runner.run() }
    let client = BoardClient(
      transport: shaped, clock: clock, options: BoardClientOptions(hello: Hello(window: UInt8(window))))
    let chunks = Counter()
    let flash = Task { () -> (Bool, String) in
      do {
        try await client.connect()
        let report = try await TableFlasher(client: client, clock: clock).flash(table, force: true) { _, _ in
          chunks.increment()
        }
        return (
          true,
          String(
            format: "flashed and verified: transfer %.3f s, read-back %.3f s, %d resumption(s), %d retransmissions",
            report.transferDuration.seconds, report.verifyDuration.seconds, report.resumptions,
            Int(await client.linkStatistics.retransmissions))
        )
      } catch {
        return (false, "failed after \(chunks.value) chunk(s) acknowledged: \(error)")
      }
    }
    let timedOut = Counter()
    let watchdog = Task {
      try await Task.sleep(for: limit)
      timedOut.increment()
      await client.close()
    }
    var (ok, outcome) = await flash.value
    watchdog.cancel()
    if timedOut.value > 0 {
      ok = false
      outcome = "no result within \(limit) (\(chunks.value) chunk(s) acknowledged); the client was closed"
    }
    await client.close()
    await runner.stop()
    _ = await running.value
    return (ok, outcome)
  }

  /// Reads the whole table back in virtual time as ``TableFlasher/read(area:size:chunk:)`` does: every
  /// TABLE_READ queued at once, `window` in flight, answers of up to 1 KiB each. Returns what happened.
  static func virtualReadBack(table: [UInt8], window: Int) -> ReadBack? {
    var link = CountingHarness(harness: VirtualLinkHarness(board: VirtualBoard(), pacing: .usbSerial115200))
    guard case .reply(_, .info(let info))? = link.exchange(.hello(Hello(window: UInt8(window)))) else { return nil }
    let maxPayload = Int(info.capabilities.maxPayload)
    link.harness.host.apply(
      SessionTerms(version: 1, maxPayload: maxPayload, window: min(window, Int(info.capabilities.window))))
    let crc = tableCRC(table)
    guard
      case .reply(_, .tableReady(let maxChunk))? = link.exchange(
        .tableBegin(TableBegin(size: UInt32(table.count), crc: crc)))
    else { return nil }
    for offset in stride(from: 0, to: table.count, by: Int(maxChunk)) {
      let chunk = Array(table[offset..<min(offset + Int(maxChunk), table.count)])
      guard case .reply? = link.exchange(.tableData(offset: UInt32(offset), bytes: chunk)) else { return nil }
    }
    guard case .reply(_, .tableCommitted)? = link.exchange(.tableCommit(crc: crc)) else { return nil }
    let retransmissionsBefore = link.harness.host.sender.retransmissions
    let started = link.harness.nowMicros
    var pending = Set<UInt16>()
    var answered = 0
    var failed = 0
    for offset in stride(from: 0, to: table.count, by: maxPayload) {
      let length = UInt16(min(maxPayload, table.count - offset))
      pending.insert(link.send(.tableRead(TableRead(area: .active, offset: UInt32(offset), length: length))))
    }
    let requests = pending.count
    link.run(limitMs: 60_000) { deliveries in
      for delivery in deliveries {
        switch delivery {
        case .answer(let sequence, _): if pending.remove(sequence) != nil { answered += 1 }
        case .failed(let sequence, _): if pending.remove(sequence) != nil { failed += 1 }
        default: break
        }
      }
      return pending.isEmpty
    }
    return ReadBack(
      window: window, requests: requests, answered: answered, failed: failed, stranded: pending.count,
      seconds: Double(link.harness.nowMicros - started) / 1e6,
      retransmissions: Int(link.harness.host.sender.retransmissions - retransmissionsBefore))
  }

  /// What reading a table back did.
  struct ReadBack: Sendable {
    let window: Int
    /// TABLE_READ commands queued.
    let requests: Int
    /// Answered.
    let answered: Int
    /// Failed after every try.
    let failed: Int
    /// Neither answered nor failed when the link went quiet (the sender paused after the failures).
    let stranded: Int
    /// Until the last answer or failure, or until the link went quiet.
    let seconds: Double
    /// Retransmissions by the host.
    let retransmissions: Int

    var json: JSONValue {
      .object([
        ("window", .int(window)), ("requests", .int(requests)), ("answered", .int(answered)), ("failed", .int(failed)),
        ("stranded", .int(stranded)), ("seconds", .number(seconds)), ("retransmissions", .int(retransmissions)),
      ])
    }
  }
}

/// A harness driven event by event, so that completion times are exact, counting the bytes the host sends.
struct CountingHarness {
  var harness: VirtualLinkHarness
  /// Wire bytes of the frames sent through ``send(_:)`` (first transmissions; retransmissions are counted by
  /// the host's sender).
  private(set) var hostBytes = 0

  init(harness: VirtualLinkHarness) { self.harness = harness }

  mutating func resetCounts() { hostBytes = 0 }

  /// Sends a command now; returns its sequence.
  mutating func send(_ command: Command) -> UInt16 {
    let sequence = harness.send(command)
    hostBytes += Message.command(command).frame(sequence: sequence, nonce: harness.host.nonce).encoded().count
    return sequence
  }

  /// Runs from event to event until `done` says so or `limitMs` pass; `done` sees each batch of deliveries.
  mutating func run(limitMs: UInt64, until done: ([LinkEndpoint.Delivery]) -> Bool) {
    let end = harness.nowMicros + limitMs * 1_000
    while let next = harness.nextEventMicros, next <= end {
      harness.run(untilMicros: max(next, harness.nowMicros))
      if done(harness.takeDeliveries()) { return }
    }
  }

  /// Sends `command` and runs until its answer; returns the answer.
  mutating func exchange(_ command: Command, limitMs: UInt64 = 10_000) -> Message? {
    let sequence = send(command)
    var answer: Message? = nil
    run(limitMs: limitMs) { deliveries in
      for delivery in deliveries {
        if case .answer(sequence, let message) = delivery { answer = message }
        if case .failed(sequence, _) = delivery { return true }
      }
      return answer != nil
    }
    return answer
  }
}

/// A counter shared with callbacks and watchdogs.
final class Counter: Sendable {
  private let count = Mutex(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
