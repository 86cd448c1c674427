import CallAlertProtocol
import CallAlertVirtualBoard

/// How a simulated serial line mistreats what is written to it. Probabilities apply per frame written.
struct LineImpairments: Sendable, CustomStringConvertible {
  /// The frame vanishes.
  var frameLoss = 0.0
  /// The frame arrives twice, back to back.
  var frameDuplication = 0.0
  /// One to three bits of the frame (delimiter included) flip.
  var frameCorruption = 0.0
  /// One byte of the frame (delimiter included) vanishes.
  var byteLoss = 0.0
  /// Each byte (delimiter included), independently, has one bit flipped: a damaged delimiter merges two frames.
  var byteDamage = 0.0
  /// The line stalls: the frame, and so everything behind it, arrives no earlier than 120 to 300 ms from now
  /// (longer than the 100 ms base timeout, so the sender retransmits spuriously). Stalls overlap, they do not add up.
  var delaySpike = 0.0
  /// The latency before a frame starts to arrive.
  var latencyMs: ClosedRange<UInt64> = 1...1
  /// The line's speed; 11 bytes/ms is 115 200 baud.
  var bytesPerMs: UInt64 = 11
  /// Bytes arrive in chunks of 1 to this many.
  var maxChunk = 64

  /// A line that delivers everything, in order, after 1 ms plus line time.
  static let perfect = LineImpairments()

  /// A line that loses, duplicates, corrupts, cuts and delays frames at rates a bad USB-serial adapter would envy.
  static let harsh = LineImpairments(
    frameLoss: 0.06, frameDuplication: 0.04, frameCorruption: 0.04, byteLoss: 0.02, delaySpike: 0.03, latencyMs: 1...15,
    bytesPerMs: 11, maxChunk: 48)

  var description: String {
    "loss \(frameLoss) dup \(frameDuplication) corrupt \(frameCorruption) byte-loss \(byteLoss) spike \(delaySpike)"
  }
}

/// What a simulated line did to the frames written to it.
struct LineStatistics: Sendable, Equatable {
  var framesWritten = 0
  var framesLost = 0
  var framesDuplicated = 0
  var framesCorrupted = 0
  var bytesLost = 0
  var delaySpikes = 0
  var bytesDamaged = 0
}

/// One direction of a simulated serial line: first in, first out (a UART never reorders), with per-frame
/// impairments, line time, and arrival in chunks spread over time.
struct SimulatedLine: Sendable {
  /// The impairments.
  let impairments: LineImpairments
  /// What was done so far.
  private(set) var statistics = LineStatistics()
  private var rng: SplitMix64
  private var queue: [(time: UInt64, bytes: [UInt8])] = []
  private var lineFreeAt: UInt64 = 0
  private var partial: [UInt8] = []
  /// Frames (counted from 0) to lose whatever the dice say, for scripted scenarios.
  var scriptedLosses: Set<Int> = []
  /// When true, ``timeline`` records every frame written: when, what, and what the line did to it.
  var isTracing = false
  /// One line per frame written, for diagnosing a failing seed (see ``isTracing``).
  private(set) var timeline: [String] = []

  /// Creates a line with its own random stream.
  init(_ impairments: LineImpairments, seed: UInt64) {
    self.impairments = impairments
    rng = SplitMix64(seed: seed)
  }

  /// When the next chunk arrives, if any is under way.
  var nextArrival: UInt64? { queue.first?.time }

  /// Whether nothing is under way.
  var isIdle: Bool { queue.isEmpty }

  /// Takes bytes written at `now`; whole frames (up to each 0x00) are impaired and scheduled.
  mutating func write(_ bytes: [UInt8], now: UInt64) {
    for byte in bytes {
      partial.append(byte)
      if byte == 0 {
        schedule(partial, now: now)
        partial.removeAll()
      }
    }
  }

  /// Removes and returns the chunks that have arrived by `now`, oldest first.
  mutating func arrivals(upTo now: UInt64) -> [[UInt8]] {
    var out: [[UInt8]] = []
    while let first = queue.first, first.time <= now {
      out.append(first.bytes)
      queue.removeFirst()
    }
    return out
  }

  /// Drops everything under way (the cable was pulled).
  mutating func flush() { queue.removeAll() }

  /// A short account of a frame's bytes: sequence, type and flags, or why they do not decode.
  static func summary(_ frame: [UInt8]) -> String {
    var decoder = FrameDecoder()
    guard let output = decoder.feed(frame).first else { return "partial" }
    guard case .frame(let decoded) = output else { return "\(output)" }
    return "seq \(decoded.sequence) type 0x\(hexString([decoded.type])) flags \(decoded.flags.rawValue)"
  }

  private mutating func schedule(_ frame: [UInt8], now: UInt64) {
    let index = statistics.framesWritten
    statistics.framesWritten += 1
    let queuedBefore = queue.count
    let before = statistics
    defer {
      if isTracing {
        var fate = queue.count > queuedBefore ? "arrives \(queue.last!.time)" : "lost"
        if statistics.framesCorrupted > before.framesCorrupted { fate += " corrupted" }
        if statistics.bytesLost > before.bytesLost { fate += " byte-lost" }
        if statistics.framesDuplicated > before.framesDuplicated { fate += " twice" }
        if statistics.delaySpikes > before.delaySpikes { fate += " delayed" }
        if statistics.bytesDamaged > before.bytesDamaged { fate += " damaged" }
        timeline.append("\(now) frame \(index) \(SimulatedLine.summary(frame)) \(fate)")
      }
    }
    if scriptedLosses.contains(index) || rng.chance(impairments.frameLoss) {
      statistics.framesLost += 1
      return
    }
    var bytes = frame
    if rng.chance(impairments.frameCorruption) {
      statistics.framesCorrupted += 1
      for _ in 0..<rng.draw(1...3) { bytes[rng.draw(0...bytes.count - 1)] ^= 1 << UInt8(rng.draw(0...7)) }
    }
    if impairments.byteDamage > 0 {  // drawn only when asked for, so that the other runs keep their streams
      for index in bytes.indices where rng.chance(impairments.byteDamage) {
        bytes[index] ^= 1 << UInt8(rng.draw(0...7))
        statistics.bytesDamaged += 1
      }
    }
    if rng.chance(impairments.byteLoss) {
      statistics.bytesLost += 1
      bytes.remove(at: rng.draw(0...bytes.count - 1))
    }
    let copies = rng.chance(impairments.frameDuplication) ? 2 : 1
    if copies == 2 { statistics.framesDuplicated += 1 }
    for _ in 0..<copies {
      var start = max(lineFreeAt, now + rng.draw(impairments.latencyMs))
      if rng.chance(impairments.delaySpike) {
        statistics.delaySpikes += 1
        start = max(start, now + rng.draw(UInt64(120)...300))
      }
      var sent = 0
      while sent < bytes.count {
        let count = min(bytes.count - sent, rng.draw(1...impairments.maxChunk))
        sent += count
        let time = start + UInt64(sent) / impairments.bytesPerMs
        queue.append((time, Array(bytes[sent - count..<sent])))
        lineFreeAt = time
      }
    }
  }
}

/// The board application of the simulations: answers every delivered command with a fixed reply (opening the
/// session on HELLO) and records what it acted on.
struct BoardResponder: Sendable {
  /// The window the board supports.
  let boardWindow: Int
  /// Every command the board acted on, in order, with its sequence.
  private(set) var acted: [(sequence: UInt16, command: Command)] = []
  /// Events acknowledged by the host.
  private(set) var acknowledged: [UInt16] = []
  /// How often the event sender gave up.
  private(set) var stalls = 0
  /// Frames the board could not read.
  private(set) var unreadable: [MessageError] = []

  /// Creates a responder for a board that supports `boardWindow` commands in flight.
  init(boardWindow: Int) { self.boardWindow = boardWindow }

  /// The board's INFO.
  static func info(nonce: UInt32, window: Int, sessionVersion: UInt8) -> BoardInfo {
    var capabilities = VectorCatalog.sampleCapabilities
    capabilities.window = UInt8(window)
    return BoardInfo(
      minVersion: 1, maxVersion: 1, sessionVersion: sessionVersion, firmware: (major: 1, minor: 0, patch: 0),
      bootNonce: nonce, serial: ascii("SIM-0001"), capabilities: capabilities, table: .none)
  }

  /// The fixed STATUS the simulated board reports.
  static let status = VectorCatalog.statusPlayingSlot

  /// The reply the simulated board gives `command` (a pure function, so the host side can predict it).
  static func reply(to command: Command, nonce: UInt32, window: Int) -> Reply {
    switch command {
    case .hello, .getInfo: .info(info(nonce: nonce, window: window, sessionVersion: 1))
    case .ping(let data): .pong(data)
    case .getStatus: .status(status)
    case .play(let request): .playing(capMs: request.effectiveCapMs)
    case .stop(let token): .stopped(count: token & 1 == 0 ? 1 : 0)
    case .lease, .setIndicator, .tableAbort, .reset: .ok
    case .tableBegin: .tableReady(maxChunk: 256)
    case .tableData(let offset, let bytes): .tableProgress(received: offset &+ UInt32(bytes.count))
    case .tableCommit(let crc): .tableCommitted(TableSummary(version: 1, crc: crc, size: 139))
    case .tableRead(let read):
      .tableBytes([UInt8](repeating: UInt8(truncatingIfNeeded: read.offset), count: min(Int(read.length), 16)))
    }
  }

  /// Feeds a whole chunk of bytes to the board, then acts on and answers every command it delivered: answers
  /// come after the whole read, as a firmware reading its UART buffer would give them (the case fixed by 54864da,
  /// see LinkEndpointBehaviourTests.boardFedAChunkActsOnADuplicateInItOnce). Returns the deliveries.
  @discardableResult
  mutating func receive(
    _ bytes: some Sequence<UInt8>, board: inout LinkEndpoint, now: UInt64
  ) -> [LinkEndpoint.Delivery] {
    let deliveries = board.receive(bytes, now: now)
    handle(deliveries, board: &board, now: now)
    return deliveries
  }

  /// Handles what the board's endpoint delivered: acts on and answers commands.
  mutating func handle(_ deliveries: [LinkEndpoint.Delivery], board: inout LinkEndpoint, now: UInt64) {
    for delivery in deliveries {
      switch delivery {
      case .command(let sequence, let command):
        acted.append((sequence, command))
        if case .hello(let hello) = command {
          let terms = SessionTerms.negotiate(
            hostMin: hello.minVersion, hostMax: hello.maxVersion, hostMaxPayload: Int(hello.maxPayload),
            hostWindow: Int(hello.window), boardMin: 1, boardMax: 1, boardMaxPayload: Frame.maxPayload,
            boardWindow: boardWindow)
          guard let terms else {
            board.answer(
              sequence: sequence, type: command.type.rawValue,
              with: .nak(to: command.type.rawValue, Nak(.unsupportedVersion, detail: 0x0101)), now: now)
            continue
          }
          board.openSession(terms, now: now)
        }
        let reply = BoardResponder.reply(to: command, nonce: board.nonce, window: boardWindow)
        board.answer(sequence: sequence, type: command.type.rawValue, with: .reply(to: command.type, reply), now: now)
      case .eventAcknowledged(let sequence): acknowledged.append(sequence)
      case .eventsStalled: stalls += 1
      case .unreadable(let error): unreadable.append(error)
      default: break
      }
    }
  }

  /// The non-idempotent commands acted on, by sequence, with how often each was acted on.
  var actionCounts: [UInt16: Int] {
    var counts: [UInt16: Int] = [:]
    for entry in acted where !entry.command.type.isIdempotent { counts[entry.sequence, default: 0] += 1 }
    return counts
  }
}

/// What the host application saw, in delivery order.
struct HostRecord: Sendable {
  var answers: [(sequence: UInt16, message: Message)] = []
  var failures: [(sequence: UInt16, type: UInt8)] = []
  var events: [(sequence: UInt16, event: Event)] = []
  var restarts: [UInt32] = []
  var dropped = 0
  var unreadable: [MessageError] = []

  /// Records one delivery.
  mutating func record(_ delivery: LinkEndpoint.Delivery) {
    switch delivery {
    case .answer(let sequence, let message): answers.append((sequence, message))
    case .failed(let sequence, let type): failures.append((sequence, type))
    case .event(let sequence, let event): events.append((sequence, event))
    case .peerRestarted(let nonce): restarts.append(nonce)
    case .dropped: dropped += 1
    case .unreadable(let error): unreadable.append(error)
    case .command, .actuators, .eventAcknowledged, .eventsStalled: break
    }
  }

  /// The answer messages to `sequence`, in the order they were delivered.
  func answers(to sequence: UInt16) -> [Message] { answers.filter { $0.sequence == sequence }.map(\.message) }
}

/// A host and a board endpoint joined by two simulated lines, driven by a virtual millisecond clock: time jumps to
/// the next retransmission deadline, arrival or scripted action; nothing sleeps.
struct LinkSimulation: Sendable {
  /// The window the host asks for in HELLO.
  let hostWindow: Int
  /// The virtual clock.
  private(set) var now: UInt64 = 0
  /// The host end.
  private(set) var host: LinkEndpoint
  /// The board end.
  private(set) var board: LinkEndpoint
  /// The board application.
  private(set) var responder: BoardResponder
  /// Host to board.
  var toBoard: SimulatedLine
  /// Board to host.
  var toHost: SimulatedLine
  /// What the host application saw.
  private(set) var hostRecord = HostRecord()
  /// Commands the host sent after HELLO, with their sequences, in order.
  private(set) var sentCommands: [(sequence: UInt16, command: Command)] = []
  /// Events the board raised, with their sequences, in order.
  private(set) var raisedEvents: [(sequence: UInt16, event: Event)] = []
  /// HELLO's sequence, and whether its answer arrived.
  private(set) var helloSequence: UInt16?
  private(set) var sessionReady = false
  /// The window negotiated with the board.
  private(set) var negotiatedWindow = 1
  /// When the host application last received an answer.
  private(set) var lastAnswerAt: UInt64 = 0
  /// When true, the host application only hands the endpoint a new command while its sequence stays within
  /// `window` of the oldest unanswered one (classic go-back-N), working around ReliableSender's count-based
  /// window (see LinkEndpointBehaviourTests.lostAnswerOutsideTheWindowIsNeverReplayed).
  var hostKeepsSequenceSpanWithinWindow = false

  private var pendingCommands: [(gapMs: UInt64, command: Command)] = []
  private var nextCommandAt: UInt64?
  private var pendingEvents: [(at: UInt64, event: Event)] = []

  /// Creates a simulation; the host starts with window 1 and asks for `hostWindow`, the board supports `boardWindow`.
  init(
    hostWindow: Int, boardWindow: Int, boardNonce: UInt32, toBoard: SimulatedLine, toHost: SimulatedLine,
    timing: LinkTiming = .standard
  ) {
    self.hostWindow = hostWindow
    host = LinkEndpoint(role: .host, window: 1, timing: timing)
    board = LinkEndpoint(role: .board, nonce: boardNonce, window: 1, timing: timing)
    responder = BoardResponder(boardWindow: boardWindow)
    self.toBoard = toBoard
    self.toHost = toHost
  }

  /// Scripts the host: HELLO at time 0, then `commands`, each `gapMs` after the previous one, once HELLO is answered.
  mutating func scriptHost(commands: [(gapMs: UInt64, command: Command)]) {
    helloSequence = host.send(command: .hello(Hello(window: UInt8(hostWindow))), now: now)
    pendingCommands = commands
  }

  /// Scripts the board: a BOOT event at time 0, then `events` at their times.
  mutating func scriptBoard(events: [(at: UInt64, event: Event)]) {
    let boot = Event.boot(BootEvent(reason: .powerOn, table: .none))
    raisedEvents.append((board.send(event: boot, now: now), boot))
    pendingEvents = events.sorted { $0.at < $1.at }
  }

  /// Whether every scripted action happened, nothing waits for an answer and nothing is on the lines.
  var isQuiescent: Bool {
    pendingCommands.isEmpty && pendingEvents.isEmpty && host.sender.isIdle && board.sender.isIdle && toBoard.isIdle
      && toHost.isIdle && !host.hasOutput && !board.hasOutput
  }

  /// Runs until quiescent or until `limitMs` of virtual time; returns whether it became quiescent.
  @discardableResult
  mutating func run(limitMs: UInt64 = 600_000) -> Bool {
    var steps = 0
    while true {
      flush()
      if isQuiescent { return true }
      let candidates: [UInt64?] = [
        host.nextDeadline, board.nextDeadline, toBoard.nextArrival, toHost.nextArrival,
        mayHandOverCommand ? nextCommandAt : nil, pendingEvents.first?.at,
      ]
      guard let next = candidates.compactMap({ $0 }).min(), next <= limitMs, steps < 2_000_000 else { return false }
      steps += 1
      now = max(now, next)
      step()
    }
  }

  /// Whether the host application may hand the endpoint its next command now (time aside).
  private var mayHandOverCommand: Bool {
    guard sessionReady, !pendingCommands.isEmpty else { return false }
    guard hostKeepsSequenceSpanWithinWindow, let oldest = host.sender.pendingFrames.first?.sequence else { return true }
    return Int(host.sender.nextSequence &- oldest) < negotiatedWindow
  }

  /// Moves what both ends wrote onto the lines.
  private mutating func flush() {
    if host.hasOutput { toBoard.write(host.takeOutput(), now: now) }
    if board.hasOutput { toHost.write(board.takeOutput(), now: now) }
  }

  /// Everything due at `now`: arrivals, scripted actions, retransmissions.
  private mutating func step() {
    for chunk in toHost.arrivals(upTo: now) {
      for delivery in host.receive(chunk, now: now) { hostHandle(delivery) }
    }
    for chunk in toBoard.arrivals(upTo: now) { responder.receive(chunk, board: &board, now: now) }
    while mayHandOverCommand, let at = nextCommandAt, at <= now {
      let command = pendingCommands.removeFirst().command
      sentCommands.append((host.send(command: command, now: now), command))
      nextCommandAt = pendingCommands.first.map { now + $0.gapMs }
    }
    while let first = pendingEvents.first, first.at <= now {
      pendingEvents.removeFirst()
      raisedEvents.append((board.send(event: first.event, now: now), first.event))
    }
    if let deadline = host.nextDeadline, deadline <= now {
      for delivery in host.poll(now: now) { hostHandle(delivery) }
    }
    if let deadline = board.nextDeadline, deadline <= now {
      responder.handle(board.poll(now: now), board: &board, now: now)
    }
  }

  /// The host application: records deliveries; on HELLO's answer applies the negotiated window and starts sending.
  private mutating func hostHandle(_ delivery: LinkEndpoint.Delivery) {
    hostRecord.record(delivery)
    if case .answer = delivery { lastAnswerAt = now }
    guard case .answer(let sequence, .reply(to: .hello, .info(let info))) = delivery, sequence == helloSequence,
      !sessionReady
    else { return }
    negotiatedWindow = min(hostWindow, Int(info.capabilities.window))
    host.apply(SessionTerms(version: 1, maxPayload: Frame.maxPayload, window: negotiatedWindow))
    sessionReady = true
    nextCommandAt = pendingCommands.first.map { now + $0.gapMs }
  }
}

/// Two endpoints joined by hand, for scripted scenarios: each call moves bytes one way, and the board side answers
/// through a ``BoardResponder``.
struct LinkPair {
  var host: LinkEndpoint
  var board: LinkEndpoint
  var responder: BoardResponder
  var hostRecord = HostRecord()
  var now: UInt64 = 0

  /// A host and a board with `nonce`; the board supports `window` commands in flight.
  init(nonce: UInt32, window: Int, timing: LinkTiming = .standard) {
    host = LinkEndpoint(role: .host, window: 1, timing: timing)
    board = LinkEndpoint(role: .board, nonce: nonce, window: 1, timing: timing)
    responder = BoardResponder(boardWindow: window)
  }

  /// Delivers what the host wrote to the board (the board answers at once); returns the board's deliveries.
  @discardableResult
  mutating func hostToBoard() -> [LinkEndpoint.Delivery] { deliverToBoard(host.takeOutput()) }

  /// Delivers what the board wrote to the host; returns (and records) the host's deliveries.
  @discardableResult
  mutating func boardToHost() -> [LinkEndpoint.Delivery] { deliverToHost(board.takeOutput()) }

  /// Loses whatever the board wrote.
  mutating func loseBoardOutput() { _ = board.takeOutput() }

  /// Loses whatever the host wrote.
  mutating func loseHostOutput() { _ = host.takeOutput() }

  /// `bytes` cut into frames, each with its delimiter.
  static func frames(in bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0, omittingEmptySubsequences: true).map { Array($0) + [0] }
  }

  /// Delivers what the host wrote to the board except the frames at `lost` (counted from 0).
  @discardableResult
  mutating func hostToBoard(losing lost: Set<Int>) -> [LinkEndpoint.Delivery] {
    let kept = LinkPair.frames(in: host.takeOutput()).enumerated().filter { !lost.contains($0.offset) }
    return deliverToBoard(kept.flatMap(\.element))
  }

  /// Delivers what the board wrote to the host except the frames at `lost` (counted from 0).
  @discardableResult
  mutating func boardToHost(losing lost: Set<Int>) -> [LinkEndpoint.Delivery] {
    let kept = LinkPair.frames(in: board.takeOutput()).enumerated().filter { !lost.contains($0.offset) }
    return deliverToHost(kept.flatMap(\.element))
  }

  /// Delivers `bytes` to the board as if the host had written them; the board answers each command at once.
  @discardableResult
  mutating func deliverToBoard(_ bytes: [UInt8]) -> [LinkEndpoint.Delivery] {
    responder.receive(bytes, board: &board, now: now)
  }

  /// Delivers `bytes` to the host as if the board had written them; returns (and records) the deliveries.
  @discardableResult
  mutating func deliverToHost(_ bytes: [UInt8]) -> [LinkEndpoint.Delivery] {
    let deliveries = host.receive(bytes, now: now)
    for delivery in deliveries { hostRecord.record(delivery) }
    return deliveries
  }

  /// The frames the board has written and not yet delivered, decoded (without taking them).
  var boardOutputFrames: [Frame] {
    var copy = board
    var decoder = FrameDecoder()
    return decoder.feed(copy.takeOutput()).compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
  }

  /// Replaces the board by a freshly booted one with `nonce` (no session, event sequence from 0), which sends
  /// BOOT with `reason` unless `reason` is nil.
  mutating func rebootBoard(nonce: UInt32, reason: BootReason? = .watchdog) {
    board = LinkEndpoint(role: .board, nonce: nonce, window: 1, timing: board.sender.timing)
    responder = BoardResponder(boardWindow: responder.boardWindow)
    if let reason { board.send(event: .boot(BootEvent(reason: reason, table: .ok)), now: now) }
  }

  /// HELLO asking for `window`, its answer, and the negotiated window applied on the host.
  mutating func openSession(window: Int) {
    host.send(command: .hello(Hello(window: UInt8(window))), now: now)
    hostToBoard()
    for case .answer(_, .reply(to: .hello, .info(let info))) in boardToHost() {
      host.apply(
        SessionTerms(version: 1, maxPayload: Frame.maxPayload, window: min(window, Int(info.capabilities.window))))
    }
  }

  /// Advances the clock to the host's next deadline and polls it; returns the deliveries.
  @discardableResult
  mutating func hostTimesOut() -> [LinkEndpoint.Delivery] {
    guard let deadline = host.nextDeadline else { return [] }
    now = max(now, deadline)
    let deliveries = host.poll(now: now)
    for delivery in deliveries { hostRecord.record(delivery) }
    return deliveries
  }

  /// Exchanges bytes both ways, with timeouts, until nothing is pending or `rounds` exchanges happened.
  mutating func settle(rounds: Int = 50) {
    for _ in 0..<rounds {
      if host.hasOutput { hostToBoard() }
      if board.hasOutput { boardToHost() }
      if host.hasOutput || board.hasOutput { continue }
      if host.sender.isIdle && board.sender.isIdle { return }
      if host.nextDeadline == nil && board.nextDeadline == nil { return }
      if let hostDeadline = host.nextDeadline, hostDeadline <= (board.nextDeadline ?? .max) {
        hostTimesOut()
      } else if let boardDeadline = board.nextDeadline {
        now = max(now, boardDeadline)
        responder.handle(board.poll(now: now), board: &board, now: now)
      }
    }
  }
}
