import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

/// The checks every board must pass, whatever runs the core (the virtual board, the QEMU firmware, and
/// one day a real board): each boots a fresh board, drives it with the host's ``BoardClient`` only, and
/// judges it by its answers, its events and its ACTUATORS trace (board milliseconds, so exact timing).
enum ConformanceChecks {
  /// How far a traced step boundary may sit from where the pattern puts it, in board milliseconds: the
  /// board applies a step at the first tick it runs at or after the boundary, and a host that deschedules
  /// QEMU (or the virtual board's runner) delays that tick. A loaded 2-core CI machine running other suites
  /// at the same time was seen to delay it by 6-7 ms, so the tolerance is 25 ms; exact-to-the-millisecond
  /// timing is asserted in virtual time by the board core's own tests.
  static let toleranceMs: UInt64 = 25

  static func state(hz: UInt16 = 0, volume: UInt8 = 0, leds: UInt8 = 0, motor: UInt8 = 0) -> ActuatorState {
    ActuatorState(buzzerHz: hz, buzzerVolume: volume, leds: leds, motors: [motor])
  }

  static let off = state()

  // MARK: - Handshake and simple commands

  static func handshake(_ kind: BoardKind) async throws {
    if kind != .virtual, let source = QemuFirmware.newerSource {
      Issue.record("\(source) changed after the firmware image was built: run make firmware", severity: .warning)
    }
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let info = board.info
      #expect(info.minVersion == 1 && info.maxVersion == 2)
      #expect(info.sessionVersion == 2, "a v1.1 host and board negotiate version 2")
      #expect(info.capabilities.eventQueue == 16, "version 2's Capabilities carry event_queue")
      #expect(info.bootNonce != 0)
      #expect(info.serial == Array(kind.serial.utf8))
      #expect(info.firmware.major == 0 && info.firmware.minor == 1 && info.firmware.patch == 0)
      #expect(info.capabilities == kind.capabilities)
      #expect(info.table == .none)
      // GET_INFO answers the same INFO within the session.
      guard case .info(let again) = try await board.client.send(.getInfo) else {
        Issue.record("GET_INFO answered something else")
        return
      }
      #expect(again == info)
    }
  }

  static func ping(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      #expect(try await board.client.send(.ping([])) == .pong([]))
      #expect(try await board.client.send(.ping(Array("hi".utf8))) == .pong(Array("hi".utf8)))
      // The largest payload the session allows, with every byte value (COBS zeros included).
      let big = (0..<kind.maxPayload).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      #expect(try await board.client.send(.ping(big)) == .pong(big))
    }
  }

  static func idleStatus(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let status = try await board.client.status()
      #expect(status.token == 0 && status.slot == nil && !status.inline)
      #expect(status.elapsedMs == 0 && status.capRemainingMs == 0 && status.leaseRemainingMs == 0)
      #expect(status.actuators == off)
      #expect(status.indicatorMode == 0)
      #expect(!status.transferActive && status.transferReceived == 0 && status.transferSize == 0)
      #expect(status.counters.framesOK >= 2)  // HELLO and GET_STATUS at least
      #expect(status.counters.crcErrors == 0 && status.counters.framingErrors == 0 && status.counters.overlong == 0)
      // The only FAULT an idle board may raise is tick_overrun, when a loaded host held it up (§13.8): each
      // one counted must be one reported.
      var reported = 0
      var from = 0
      while reported < status.counters.faults,
        let found = await board.log.first(
          from: from, within: 3,
          where: { if case .event(.fault(let fault)) = $0 { fault.code == .tickOverrun } else { false } })
      {
        reported += 1
        from = found.index + 1
      }
      #expect(reported == status.counters.faults, "\(kind): \(status.counters.faults) faults, \(reported) reported")
      #expect(status.uptimeMs < 60_000)
    }
  }

  // MARK: - Playing

  /// A two-step pattern repeated until the cap: buzzer and motor, then LED 1 alone.
  static let ring = Pattern(
    steps: [
      PatternStep(durationMs: 40, buzzerHz: 2_000, buzzerVolume: 200, motor: 180, leds: 0b01),
      PatternStep(durationMs: 60, leds: 0b10),
    ], repeatCount: Pattern.repeatForever)

  static func playStatusStop(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let client = board.client
      let mark = await board.log.count
      #expect(try await client.play(PlayRequest(token: 7, capMs: 0, source: .inline(ring))) == 30_000)
      let status = try await client.status()
      #expect(status.token == 7 && status.inline && status.slot == nil)
      #expect(status.capRemainingMs > 29_000 && status.capRemainingMs <= 30_000)
      #expect(status.leaseRemainingMs > 2_000 && status.leaseRemainingMs <= 3_000)
      // ACTUATORS are sent at most once per tick with the state at the end of that tick, and never resent
      // (PROTOCOL.md §9.5): a STOP that lands in the same tick as the PLAY leaves the first step unreported.
      // The pattern loops, so its playing state is reported within one period; wait for it (bounded) first.
      let playing = state(hz: 2_000, volume: 200, leds: 0b01, motor: 180)
      let reported = await board.log.first(from: mark) {
        if case .actuators(let trace) = $0 { trace.state == playing } else { false }
      }
      #expect(reported != nil, "the board reported the ring's first step")
      #expect(try await client.stop(token: 8) == 0)  // not playing: nothing stops
      #expect(try await client.stop(token: 7) == 1)
      let ended = await board.log.playEnded(7, from: mark)
      #expect(ended?.reason == .stopped)
      // The playing state was seen above, in the log itself; the timeline built from the log keeps one state per
      // board millisecond, so a trace of the previous step arriving after the mark may hide it there.
      let timeline = await board.log.timeline(from: mark)
      #expect(timeline.entries.last?.state == off)
      #expect(try await client.stop(token: Command.stopAll) == 0)

      // A PLAY with another token supersedes; mute_buzzer keeps the buzzer silent.
      let second = await board.log.count
      try await client.play(PlayRequest(token: 20, capMs: 5_000, source: .inline(ring)))
      #expect(
        try await client.play(PlayRequest(token: 21, capMs: 5_000, options: .muteBuzzer, source: .inline(ring)))
          == 5_000)
      #expect(await board.log.playEnded(20, from: second)?.reason == .superseded)
      let muted = await board.log.first(from: second) {
        if case .actuators(let trace) = $0 { trace.state == state(leds: 0b01, motor: 180) } else { false }
      }
      #expect(muted != nil, "a muted play drives the motor and LEDs without the buzzer")
      #expect(try await client.stop() == 1)
      #expect(await board.log.playEnded(21, from: second)?.reason == .stopped)
      #expect(try await client.status().token == 0)
    }
  }

  static func refusals(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let beep = Pattern(steps: [PatternStep(durationMs: 10, buzzerHz: 1_000, buzzerVolume: 100)])
      #expect(await board.nak(.play(PlayRequest(token: 0, capMs: 0, source: .inline(beep)))) == Nak(.badToken))
      #expect(await board.nak(.play(PlayRequest(token: 1, capMs: 0, source: .slot(0)))) == Nak(.badSlot, detail: 0))
      let low = Pattern(steps: [PatternStep(durationMs: 10, buzzerHz: 100, buzzerVolume: 100)])
      #expect(
        await board.nak(.play(PlayRequest(token: 1, capMs: 0, source: .inline(low)))) == Nak(.badPattern, detail: 16))
      #expect(await board.nak(.setIndicator(IndicatorSetting(led: 2, mode: .on))) == Nak(.badArgument, detail: 0))
      #expect(await board.nak(.tableData(offset: 0, bytes: [1])) == Nak(.noTransfer))
      #expect(await board.nak(.tableCommit(crc: 0)) == Nak(.noTransfer))
      #expect(await board.nak(.tableRead(TableRead(area: .staged, offset: 0, length: 16))) == Nak(.noTransfer))
      #expect(await board.nak(.tableBegin(TableBegin(size: 40_000, crc: 0))) == Nak(.tooLarge, detail: 31 * 1_024))
      #expect(await board.nak(.tableBegin(TableBegin(size: 20, crc: 0))) == Nak(.badArgument, detail: 0))
      // Nothing of a refused command took effect.
      let status = try await board.client.status()
      #expect(status.token == 0 && !status.transferActive && status.actuators == off)
    }
  }

  static func indicator(_ kind: BoardKind) async throws {
    try await withTimedBoard(kind) { (board: BoardUnderTest) async throws -> [String] in
      let client = board.client
      let mark = await board.log.count
      #expect(try await client.send(.setIndicator(IndicatorSetting(led: 0, mode: .on))) == .ok)
      #expect(try await client.status().indicatorMode == IndicatorMode.on.rawValue)
      let lit = await board.log.first(from: mark) {
        if case .actuators(let trace) = $0 { trace.state == state(leds: 0b01) } else { false }
      }
      #expect(lit != nil, "LED 0 lights")
      let dark = await board.log.count
      #expect(try await client.send(.setIndicator(IndicatorSetting(led: 0, mode: .off))) == .ok)
      let unlit = await board.log.first(from: dark) {
        if case .actuators(let trace) = $0 { trace.state == off } else { false }
      }
      #expect(unlit != nil, "LED 0 goes dark")
      // Blink 30 ms lit, 50 ms dark, starting lit at the tick the command is applied: five changes.
      let blink = await board.log.count
      _ = try await client.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 30, offMs: 50)))
      #expect(try await client.status().indicatorMode == IndicatorMode.blink.rawValue)
      var changes = 0
      var index = blink
      while changes < 5,
        let found = await board.log.first(from: index, where: { if case .actuators = $0 { true } else { false } })
      {
        changes += 1
        index = found.index + 1
      }
      _ = try await client.send(.setIndicator(IndicatorSetting(led: 0, mode: .off)))
      let timeline = await board.log.timeline(blink..<index)
      #expect(try await client.status().indicatorMode == 0)
      return mismatches(
        timeline, kind: kind, startMs: timeline.entries.first?.ms ?? 0,
        expected: [(0, state(leds: 0b01)), (30, off), (80, state(leds: 0b01)), (110, off), (160, state(leds: 0b01))])
    }
  }

  /// PLAY with cap 300 ms of a pattern that repeats forever: PLAY_ENDED cap after exactly 300 ms of board
  /// time, and every actuator off at that moment.
  static func cap(_ kind: BoardKind) async throws {
    try await withTimedBoard(kind) { (board: BoardUnderTest) async throws -> [String] in
      let mark = await board.log.count
      #expect(try await board.client.play(PlayRequest(token: 9, capMs: 300, source: .inline(ring))) == 300)
      let ended = await board.log.playEnded(9, from: mark)
      #expect(ended == PlayEndedEvent(token: 9, reason: .cap, playedMs: 300))
      let timeline = await board.log.timeline(from: mark)
      let on = state(hz: 2_000, volume: 200, leds: 0b01, motor: 180)
      let dark = state(leds: 0b10)
      #expect(try await board.client.status().actuators == off)
      return mismatches(
        timeline, kind: kind, startMs: timeline.entries.first?.ms ?? 0,
        expected: [(0, on), (40, dark), (100, on), (140, dark), (200, on), (240, dark), (300, off)])
    }
  }

  /// LEASE 200 ms, then PLAY and silence: PLAY_ENDED lease after 200 ms of board time, outputs off then.
  static func lease(_ kind: BoardKind) async throws {
    try await withTimedBoard(kind) { (board: BoardUnderTest) async throws -> [String] in
      #expect(try await board.client.send(.lease(ms: 200)) == .ok)  // nothing plays: sets the length only
      guard case .info(let info) = try await board.client.send(.getInfo) else { return ["\(kind): no INFO"] }
      #expect(info.capabilities.leaseMs == 200)
      let mark = await board.log.count
      #expect(try await board.client.play(PlayRequest(token: 11, capMs: 0, source: .inline(ring))) == 30_000)
      // The client renews the lease every 1 000 ms (a third of its own 3 000 ms): the board's 200 ms lapse first.
      let ended = await board.log.playEnded(11, from: mark)
      #expect(ended == PlayEndedEvent(token: 11, reason: .lease, playedMs: 200))
      let timeline = await board.log.timeline(from: mark)
      let on = state(hz: 2_000, volume: 200, leds: 0b01, motor: 180)
      let dark = state(leds: 0b10)
      return mismatches(
        timeline, kind: kind, startMs: timeline.entries.first?.ms ?? 0,
        expected: [(0, on), (40, dark), (100, on), (140, dark), (200, off)])
    }
  }

  /// A pattern with a loop (steps 0-3, then steps 1-3 twice more): every step boundary in the trace at its
  /// place within the tolerance, the exact states, PLAY_ENDED completed at the natural length.
  static func patternTiming(_ kind: BoardKind) async throws {
    let steps = [
      PatternStep(durationMs: 50, buzzerHz: 440, buzzerVolume: 60, motor: 0, leds: 0b01),
      PatternStep(durationMs: 30, buzzerHz: 880, buzzerVolume: 120, motor: 90, leds: 0b10),
      PatternStep(durationMs: 70, buzzerHz: 0, buzzerVolume: 0, motor: 255, leds: 0b11),
      PatternStep(durationMs: 40, buzzerHz: 1_760, buzzerVolume: 255, motor: 0, leds: 0),
    ]
    let pattern = Pattern(steps: steps, repeatCount: 2, loopStart: 1)
    try await withTimedBoard(kind) { (board: BoardUnderTest) async throws -> [String] in
      let mark = await board.log.count
      try await board.client.play(PlayRequest(token: 3, capMs: 0, source: .inline(pattern)))
      let ended = await board.log.playEnded(3, from: mark)
      #expect(ended == PlayEndedEvent(token: 3, reason: .completed, playedMs: 470))
      var expected: [(UInt64, ActuatorState)] = []
      var at: UInt64 = 0
      for index in [0, 1, 2, 3, 1, 2, 3, 1, 2, 3] {
        let step = steps[index]
        expected.append((at, state(hz: step.buzzerHz, volume: step.buzzerVolume, leds: step.leds, motor: step.motor)))
        at += UInt64(step.durationMs)
      }
      expected.append((at, off))
      let timeline = await board.log.timeline(from: mark)
      return mismatches(timeline, kind: kind, startMs: timeline.entries.first?.ms ?? 0, expected: expected)
    }
  }

  // MARK: - Pattern table

  /// A table of three slots: "ring", an empty slot, "beep".
  static let table = PatternTable(
    version: 42,
    slots: [
      PatternTable.Slot(name: Array("ring".utf8), pattern: ring),
      nil,
      PatternTable.Slot(
        name: Array("beep".utf8),
        pattern: Pattern(steps: [
          PatternStep(durationMs: 25, buzzerHz: 3_000, buzzerVolume: 150, motor: 0, leds: 0b11),
          PatternStep(durationMs: 35, buzzerHz: 0, buzzerVolume: 0, motor: 200, leds: 0b00),
        ])),
    ])

  static let beepTimeline: [(UInt64, ActuatorState)] = [
    (0, state(hz: 3_000, volume: 150, leds: 0b11)), (25, state(motor: 200)), (60, off),
  ]

  /// Uploads `bytes` in chunks of `chunk` and commits; returns the summary the board answers.
  static func upload(_ bytes: [UInt8], chunk: Int, to board: BoardUnderTest) async throws -> TableSummary {
    let crc = CRC32C.checksum(bytes[0..<bytes.count - 4])
    guard
      case .tableReady(let maxChunk) = try await board.client.send(
        .tableBegin(TableBegin(size: UInt32(bytes.count), crc: crc)))
    else {
      throw BoardClientError.unexpectedReply(command: .tableBegin)
    }
    #expect(Int(maxChunk) == board.kind.maxPayload - 4)
    var offset = 0
    while offset < bytes.count {
      let end = min(offset + chunk, bytes.count)
      let reply = try await board.client.send(.tableData(offset: UInt32(offset), bytes: Array(bytes[offset..<end])))
      #expect(reply == .tableProgress(received: UInt32(end)))
      offset = end
    }
    guard case .tableCommitted(let summary) = try await board.client.send(.tableCommit(crc: crc)) else {
      throw BoardClientError.unexpectedReply(command: .tableCommit)
    }
    return summary
  }

  static func tableTransfer(_ kind: BoardKind) async throws {
    let bytes = table.encoded()
    let crc = CRC32C.checksum(bytes[0..<bytes.count - 4])
    let size = UInt32(bytes.count)
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let client = board.client
      #expect(
        try await client.send(.tableBegin(TableBegin(size: size, crc: crc)))
          == .tableReady(maxChunk: UInt16(kind.maxPayload - 4)))
      var status = try await client.status()
      #expect(status.transferActive && status.transferSize == size && status.transferReceived == 0)
      #expect(try await client.send(.tableData(offset: 0, bytes: Array(bytes[0..<50]))) == .tableProgress(received: 50))
      // A chunk that skips ahead is refused with what the board has; a repeated one is acknowledged as is.
      #expect(await board.nak(.tableData(offset: 60, bytes: Array(bytes[60..<70]))) == Nak(.badOffset, detail: 50))
      #expect(try await client.send(.tableData(offset: 0, bytes: Array(bytes[0..<50]))) == .tableProgress(received: 50))
      #expect(await board.nak(.tableCommit(crc: crc)) == Nak(.incomplete, detail: 50))
      // The rest, overlapping what was received.
      #expect(
        try await client.send(.tableData(offset: 40, bytes: Array(bytes[40...]))) == .tableProgress(received: size))
      status = try await client.status()
      #expect(status.transferReceived == size)
      let staged = try await client.send(.tableRead(TableRead(area: .staged, offset: 0, length: 1_024)))
      #expect(staged == .tableBytes(bytes))
      #expect(await board.nak(.tableCommit(crc: crc ^ 1)) == Nak(.crcMismatch, detail: crc))
      let summary = TableSummary(version: 42, crc: crc, size: size)
      #expect(try await client.send(.tableCommit(crc: crc)) == .tableCommitted(summary))
      guard case .info(let info) = try await client.send(.getInfo) else { return }
      #expect(info.table == summary)
      #expect(try await client.status().transferActive == false)
      // The active table reads back in pieces.
      var read: [UInt8] = []
      while read.count < bytes.count {
        guard
          case .tableBytes(let piece) = try await client.send(
            .tableRead(TableRead(area: .active, offset: UInt32(read.count), length: 37)))
        else { break }
        if piece.isEmpty { break }
        read += piece
      }
      #expect(read == bytes)
      // Play by slot; an empty slot or one beyond the table is refused.
      try await playBeep(on: board, token: 5)
      #expect(await board.nak(.play(PlayRequest(token: 6, capMs: 0, source: .slot(1)))) == Nak(.badSlot, detail: 1))
      #expect(await board.nak(.play(PlayRequest(token: 6, capMs: 0, source: .slot(3)))) == Nak(.badSlot, detail: 3))
      // A transfer that is aborted leaves the active table alone.
      let other = PatternTable(version: 43, slots: [PatternTable.Slot(name: Array("x".utf8), pattern: ring)]).encoded()
      _ = try await client.send(
        .tableBegin(TableBegin(size: UInt32(other.count), crc: CRC32C.checksum(other[0..<other.count - 4]))))
      _ = try await client.send(.tableData(offset: 0, bytes: Array(other[0..<20])))
      #expect(try await client.send(.tableAbort) == .ok)
      #expect(try await client.send(.tableAbort) == .ok)  // also when nothing is under way
      #expect(try await client.status().transferActive == false)
      guard case .info(let after) = try await client.send(.getInfo) else { return }
      #expect(after.table == summary)
      try await playBeep(on: board, token: 8)
      // A second table, in chunks of the largest size, replaces the first (the other A/B half).
      let second = try await upload(other, chunk: kind.maxPayload - 4, to: board)
      #expect(second.version == 43)
    }
  }

  /// A table that nearly fills the capacity (8 slots of 512 steps, 28 KiB) in the largest chunks: the
  /// board stores, verifies and reads it back whole, and mounts it again after a reset (its RAM copes).
  static func fullTable(_ kind: BoardKind) async throws {
    var steps: [PatternStep] = []
    for index in 0..<512 {
      let hz: UInt16 = index % 2 == 0 ? 1_000 + UInt16(index) : 0
      steps.append(
        PatternStep(
          durationMs: 1 + UInt16(index % 7), buzzerHz: hz, buzzerVolume: 50, motor: UInt8(truncatingIfNeeded: index),
          leds: UInt8(index % 4)))
    }
    let slots = (0..<8).map { PatternTable.Slot(name: Array("slot \($0)".utf8), pattern: Pattern(steps: steps)) }
    let bytes = PatternTable(version: 8, slots: slots).encoded()
    #expect(bytes.count > 28_000 && bytes.count <= 31 * 1_024)
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let summary = try await upload(bytes, chunk: kind.maxPayload - 4, to: board)
      #expect(
        summary == TableSummary(version: 8, crc: CRC32C.checksum(bytes[0..<bytes.count - 4]), size: UInt32(bytes.count))
      )
      let tailCount = min(1_000, kind.maxPayload - 32)
      let tail = try await board.client.send(
        .tableRead(TableRead(area: .active, offset: UInt32(bytes.count - tailCount), length: UInt16(tailCount))))
      #expect(tail == .tableBytes(Array(bytes[(bytes.count - tailCount)...])))
      let mark = await board.log.count
      #expect(try await board.client.send(.reset) == .ok)
      let restarted = await board.log.first(from: mark) { if case .restarted = $0 { true } else { false } }
      guard case .restarted(let info)? = restarted?.event else {
        Issue.record("\(kind): the client saw no restart")
        return
      }
      #expect(info.table == summary)
      let played = await board.log.count
      try await board.client.play(PlayRequest(token: 4, capMs: 100, source: .slot(7)))
      #expect(await board.log.playEnded(4, from: played) == PlayEndedEvent(token: 4, reason: .cap, playedMs: 100))
    }
  }

  /// Plays slot 2 ("beep") and checks its trace and end.
  static func playBeep(on board: BoardUnderTest, token: UInt32) async throws {
    let mark = await board.log.count
    try await board.client.play(PlayRequest(token: token, capMs: 0, source: .slot(2)))
    #expect(
      await board.log.playEnded(token, from: mark) == PlayEndedEvent(token: token, reason: .completed, playedMs: 60))
    let timeline = await board.log.timeline(from: mark)
    expect(timeline, kind: board.kind, startMs: timeline.entries.first?.ms ?? 0, matches: beepTimeline)
  }

  // MARK: - Reboot

  /// RESET: answered, then a new boot (new nonce, BOOT with reason reset_command), the client re-handshakes
  /// by itself, and the committed table is still there and plays.
  static func reboot(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      let summary = try await upload(table.encoded(), chunk: 100, to: board)
      let mark = await board.log.count
      _ = try await board.client.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
      #expect(try await board.client.send(.reset) == .ok)
      let boot = await board.log.first(from: mark) { if case .event(.boot) = $0 { true } else { false } }
      #expect(boot?.event == .event(.boot(BootEvent(reason: .resetCommand, table: .ok))))
      let restarted = await board.log.first(from: mark) { if case .restarted = $0 { true } else { false } }
      guard case .restarted(let info)? = restarted?.event else {
        Issue.record("\(kind): the client saw no restart")
        return
      }
      #expect(info.bootNonce != board.info.bootNonce)
      #expect(info.bootNonce != 0)
      #expect(info.table == summary)
      #expect(info.capabilities.leaseMs == 3_000)
      let status = try await board.client.status()
      #expect(status.indicatorMode == 0, "a reset loses the indicator")
      #expect(status.uptimeMs < 10_000)
      #expect(status.counters.framesOK < 20, "a reset clears the counters")
      try await playBeep(on: board, token: 12)
    }
  }

  /// A host that goes away without closing the session, while the board traces an LED blinking every
  /// millisecond to a line nobody reads: the board keeps running (no watchdog reset, no stall) and the next
  /// host finds the same boot.
  static func hostStopsReading(_ kind: BoardKind) async throws {
    try await withBoard(kind) { (board: BoardUnderTest) async throws in
      _ = try await board.client.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 1, offMs: 1)))
      await board.client.close()
      // Not a synchronisation: the scenario is three seconds of about 30 kB/s of ACTUATORS into a line
      // nobody reads, enough to fill the pseudo-terminal's buffers.
      try await Task.sleep(for: .seconds(3))
      let (client, info) = try await board.connectAgain()
      #expect(info.bootNonce == board.info.bootNonce, "the board did not restart")
      let status = try await client.status()
      #expect(status.uptimeMs >= 3_000)
      #expect(status.indicatorMode == IndicatorMode.blink.rawValue)
      #expect(try await client.send(.ping([1, 2, 3])) == .pong([1, 2, 3]))
      await client.close()
    }
  }

  // MARK: - Timeline matching

  /// Checks that `timeline` has exactly the changes `expected` lists (times relative to `startMs`), each
  /// within ``toleranceMs`` of its place.
  /// How a traced timeline differs from `expected` (each change's state, and its time from `startMs` within
  /// ``toleranceMs``), in words; empty when it matches.
  static func mismatches(
    _ timeline: ActuatorTimeline, kind: BoardKind, startMs: UInt64, expected: [(UInt64, ActuatorState)]
  ) -> [String] {
    let entries = timeline.entries
    let described = entries.map { "\(Int64($0.ms) - Int64(startMs)) ms: \($0.state)" }.joined(separator: "; ")
    var found: [String] = []
    if entries.count != expected.count {
      found.append("\(kind): \(entries.count) changes, expected \(expected.count): \(described)")
    }
    for (entry, (at, state)) in zip(entries, expected) {
      let offset = Int64(entry.ms) - Int64(startMs)
      if entry.state != state { found.append("\(kind): at \(offset) ms: \(entry.state), expected \(state)") }
      if abs(offset - Int64(at)) > Int64(toleranceMs) {
        found.append("\(kind): change expected at \(at) ms came at \(offset) ms (tolerance \(toleranceMs) ms)")
      }
    }
    return found
  }

  /// Records how `timeline` differs from `expected` (``mismatches(_:kind:startMs:expected:)``).
  static func expect(
    _ timeline: ActuatorTimeline, kind: BoardKind, startMs: UInt64, matches expected: [(UInt64, ActuatorState)],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for problem in mismatches(timeline, kind: kind, startMs: startMs, expected: expected) {
      Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
  }

  /// Runs a timing check on a fresh board, once more (3 runs at most) while a run shows nothing about the
  /// board's timing: a run whose trace does not match and in which the board reported that its tick fell
  /// behind its clock (FAULT tick_overrun, PROTOCOL.md §13.8: the host held QEMU or the runner up for more
  /// than 50 ms, and the board skipped what fell due meanwhile, as it must). A mismatch in a run without that
  /// FAULT fails the check; a board late in all 3 runs gives a warning.
  static func withTimedBoard(
    _ kind: BoardKind, sourceLocation: SourceLocation = #_sourceLocation,
    _ check: (BoardUnderTest) async throws -> [String]
  ) async throws {
    for run in 1...3 {
      var found: [String] = []
      var fellBehind = false
      try await withBoard(kind) { (board: BoardUnderTest) async throws in
        found = try await check(board)
        guard !found.isEmpty else { return }
        fellBehind =
          await board.log.first(
            from: 0, within: 0.5,
            where: { if case .event(.fault(let fault)) = $0 { fault.code == .tickOverrun } else { false } }) != nil
      }
      if found.isEmpty { return }
      if !fellBehind {
        for problem in found { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        return
      }
      if run == 3 {
        let said =
          "\(kind): the board fell behind its clock (FAULT tick_overrun) in 3 runs of a timing check: "
          + found.joined(separator: "; ")
        Issue.record(Comment(rawValue: said), severity: .warning, sourceLocation: sourceLocation)
      }
    }
  }
}
