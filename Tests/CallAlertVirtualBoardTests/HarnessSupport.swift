import CallAlertProtocol
import CallAlertVirtualBoard

/// Helpers that speak to a harness's board the way a host would, in virtual time.
extension VirtualLinkHarness {
  /// Sends `command` and runs until its answer arrives (or `limitMs` pass); returns the answer.
  mutating func exchange(_ command: Command, limitMs: UInt64 = 5_000) -> Message? {
    let sequence = send(command)
    var answer: Message? = nil
    run(untilMs: limitMs) { harness in
      harness.deliveries.contains { delivery in
        if case .answer(sequence, _) = delivery { return true }
        if case .failed(sequence, _) = delivery { return true }
        return false
      }
    }
    for delivery in deliveries {
      if case .answer(sequence, let message) = delivery { answer = message }
    }
    return answer
  }

  /// HELLO, returning the INFO.
  mutating func hello(window: UInt8 = 8) -> BoardInfo? {
    guard case .reply(_, .info(let info))? = exchange(.hello(Hello(window: window))) else { return nil }
    host.apply(
      SessionTerms(
        version: 1, maxPayload: Int(info.capabilities.maxPayload), window: Int(min(window, info.capabilities.window))))
    return info
  }

  /// The board events the host received so far.
  var events: [Event] {
    deliveries.compactMap { if case .event(_, let event) = $0 { return event } else { return nil } }
  }

  /// Transfers `table` and commits it; returns the commit's answer.
  mutating func flash(_ table: [UInt8], chunk: Int = 512) -> Message? {
    let crc =
      UInt32(table[table.count - 4]) | UInt32(table[table.count - 3]) << 8 | UInt32(table[table.count - 2]) << 16
      | UInt32(table[table.count - 1]) << 24
    guard case .reply? = exchange(.tableBegin(TableBegin(size: UInt32(table.count), crc: crc))) else { return nil }
    var offset = 0
    while offset < table.count {
      let end = min(offset + chunk, table.count)
      guard case .reply? = exchange(.tableData(offset: UInt32(offset), bytes: Array(table[offset..<end]))) else {
        return nil
      }
      offset = end
    }
    return exchange(.tableCommit(crc: crc))
  }
}

/// A small table of three slots for transfer tests.
func sampleTable(version: UInt32) -> [UInt8] {
  let ring = Pattern(
    steps: [
      PatternStep(durationMs: 400, buzzerHz: 2_700, buzzerVolume: 200, motor: 180, leds: 1),
      PatternStep(durationMs: 200),
    ], repeatCount: Pattern.repeatForever)
  let buzz = Pattern(steps: [PatternStep(durationMs: 1_000, motor: 255)], repeatCount: 3)
  return PatternTable(
    version: version,
    slots: [
      PatternTable.Slot(name: Array("ring".utf8), pattern: ring), nil,
      PatternTable.Slot(name: Array("buzz-v\(version)".utf8), pattern: buzz),
    ]
  ).encoded()
}
