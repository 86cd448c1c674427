import CallAlertProtocol
import CallAlertRuntime
import CallAlertVirtualBoard
import Testing

@testable import CallAlertClient

/// The session as a pure machine, with time as data: no actor, no clock, no transport. A virtual board is
/// the far end, stepped in the same virtual milliseconds; every action the session asks for is recorded.
@Suite struct BoardSessionTests {
  /// The session and a board on an instant line, both at `now`.
  struct Bench {
    var session: BoardSession
    let board = VirtualBoard()
    var now: UInt64 = 0
    /// Every action so far, in order.
    var actions: [BoardSession.Action] = []
    /// Frames the session wrote, in order (whether or not the board heard them).
    var written: [Frame] = []
    /// The line carries nothing from the host while set (the board stays plugged in but hears nothing).
    var deaf = false
    private var decoder = FrameDecoder()

    init(options: BoardClientOptions = BoardClientOptions()) {
      session = BoardSession(options: options, firstSequence: 100)
    }

    /// Steps the session with `input` and carries its bytes both ways until the line is quiet.
    mutating func handle(_ input: BoardSession.Input) {
      actions += session.handle(input, now: now)
      exchange()
    }

    /// Moves time on to `end`, waking the session and the board at each of their deadlines.
    mutating func run(until end: UInt64) {
      while true {
        let next = [session.nextDeadline, board.nextWakeMs].compactMap { $0 }.map { max($0, now) }.min()
        guard let next, next <= end else { break }
        now = next
        board.tick(nowMs: now)
        if let due = session.nextDeadline, due <= now { actions += session.handle(.deadline, now: now) }
        exchange()
      }
      now = end
    }

    mutating func run(for milliseconds: UInt64) { run(until: now + milliseconds) }

    private mutating func exchange() {
      for _ in 0..<100 {
        let out = session.takeOutput()
        let back = board.takeOutput()
        if out.isEmpty, back.isEmpty { return }
        for case .frame(let frame) in decoder.feed(out) { written.append(frame) }
        if !deaf, !out.isEmpty { board.receive(out, nowMs: now) }
        if !back.isEmpty { actions += session.handle(.received(back), now: now) }
      }
    }

    /// How many frames of `type` the session wrote.
    func wrote(_ type: MessageType) -> Int { written.filter { $0.type == type.rawValue }.count }

    /// The events reported, in order.
    var reports: [BoardClientEvent] { actions.compactMap { if case .report(let event) = $0 { event } else { nil } } }

    /// The result handed to request `id`, if any.
    func answer(_ id: BoardSession.RequestID) -> BoardSession.CommandResult? {
      for case .answer(id, let result) in actions { return result }
      return nil
    }

    func opened(_ id: BoardSession.RequestID) -> Result<BoardInfo, BoardClientError>? {
      for case .opened(id, let result) in actions { return result }
      return nil
    }

    /// A session opened by request 1.
    static func connected(options: BoardClientOptions = BoardClientOptions()) -> Bench {
      var bench = Bench(options: options)
      bench.handle(.connect(1))
      return bench
    }
  }

  static let ring = Pattern(
    steps: [PatternStep(durationMs: 400, buzzerHz: 2_000, buzzerVolume: 90, motor: 0)],
    repeatCount: Pattern.repeatForever)

  @Test func theHandshakeNegotiatesSetsTheLeaseAndOpens() throws {
    var bench = Bench(options: BoardClientOptions(leaseMs: 2_000))
    bench.handle(.connect(1))
    let info = try #require(try bench.opened(1)?.get())
    #expect(info.serial == Array("VB-0001".utf8))
    #expect(info.capabilities.leaseMs == 2_000, "the board's lease is set to the one asked for")
    #expect(bench.wrote(.hello) == 1)
    #expect(bench.wrote(.lease) == 1)
    #expect(bench.session.phase == .open)
    #expect(bench.session.terms != nil)
    #expect(bench.actions.first == .discardQueuedOutput, "output queued before HELLO is dropped")
    // A second connect is answered at once, without a handshake.
    bench.handle(.connect(2))
    #expect(try bench.opened(2)?.get() == info)
    #expect(bench.wrote(.hello) == 1)
  }

  @Test func aCommandBeforeTheSessionWaitsForTheHandshake() {
    var bench = Bench()
    bench.handle(.command(1, .ping([7])))
    #expect(bench.answer(1) == .success(.pong([7])))
    #expect(bench.wrote(.hello) == 1)
    #expect(bench.session.phase == .open)
  }

  @Test func aBatchGoesOutAtOnceAndEachCommandIsAnsweredOnItsOwn() {
    var bench = Bench.connected()
    bench.handle(.batch([(2, .ping([1])), (3, .tableData(offset: 0, bytes: [1])), (4, .ping([2]))]))
    #expect(bench.answer(2) == .success(.pong([1])))
    #expect(bench.answer(3) == .failure(.nak(command: .tableData, Nak(.noTransfer))), "a NAK in its place")
    #expect(bench.answer(4) == .success(.pong([2])))
  }

  @Test func aBatchRefusedByABoardThatRestartedIsNotResent() {
    var bench = Bench.connected()
    bench.board.reboot(nowMs: bench.now)
    bench.handle(.batch([(2, .ping([1]))]))
    #expect(bench.answer(2) == .failure(.boardRestarted))
    #expect(bench.wrote(.ping) == 1)
    #expect(bench.session.resentAfterRestart == 0)
  }

  @Test func anUnansweredHandshakeIsRetriedThenGivenUp() {
    var bench = Bench(options: BoardClientOptions(timing: LinkTiming(baseTimeoutMs: 20, maxTries: 2)))
    bench.deaf = true
    bench.handle(.connect(1))
    bench.handle(.command(2, .ping([])))
    #expect(bench.opened(1) == nil)
    bench.run(for: 10_000)
    #expect(bench.opened(1) == .failure(.timeout(command: .hello)))
    #expect(bench.answer(2) == .failure(.timeout(command: .hello)), "a command waiting for it fails with it")
    // Three attempts (the default), each with every try of the link's timing.
    #expect(bench.wrote(.hello) == 3 * 2)
    #expect(bench.session.phase == .idle, "the next use starts a new handshake")
    #expect(bench.session.nextDeadline == nil, "nothing is left to wake for")

    bench.deaf = false
    bench.handle(.command(3, .ping([1])))
    #expect(bench.answer(3) == .success(.pong([1])))
  }

  @Test func aCommandRefusedByABoardThatRestartedIsResentOnce() {
    var bench = Bench.connected()
    bench.board.reboot(nowMs: bench.now)
    bench.handle(.command(2, .getStatus))
    guard case .success(.status)? = bench.answer(2) else {
      Issue.record("GET_STATUS failed: \(String(describing: bench.answer(2)))")
      return
    }
    #expect(bench.session.resentAfterRestart == 1)
    #expect(bench.wrote(.getStatus) == 2)
    #expect(bench.wrote(.hello) == 2)
    #expect(bench.session.phase == .open)
  }

  @Test func aResetRefusedByABoardThatRestartedIsNeverResent() {
    var bench = Bench.connected()
    bench.board.reboot(nowMs: bench.now)
    bench.handle(.command(2, .reset))
    #expect(bench.answer(2) == .failure(.boardRestarted))
    #expect(bench.wrote(.reset) == 1)
    #expect(bench.session.resentAfterRestart == 0)
  }

  @Test func aBoardThatRestartsOnItsOwnIsReopenedAndReported() throws {
    var bench = Bench.connected()
    let before = try #require(try bench.opened(1)?.get())
    bench.handle(.command(2, .play(PlayRequest(token: 4, capMs: 0, source: .inline(Self.ring)))))
    #expect(bench.session.lease.tokens == [4])
    bench.board.reboot(nowMs: bench.now)
    bench.run(for: 1_000)
    let restarted = bench.reports.compactMap { if case .restarted(let info) = $0 { info } else { nil } }
    #expect(restarted.count == 1)
    #expect(restarted.first?.bootNonce != before.bootNonce)
    #expect(bench.session.lease.tokens.isEmpty, "what played stopped with the restart")
  }

  @Test func theLeaseIsRenewedEveryThirdOfItWhilePlayingAndNoLonger() {
    var bench = Bench.connected()
    bench.handle(.command(2, .play(PlayRequest(token: 5, capMs: 0, source: .inline(Self.ring)))))
    #expect(bench.answer(2) == .success(.playing(capMs: 30_000)))
    let leasesBefore = bench.wrote(.lease)
    bench.run(for: 10_000)
    #expect(bench.wrote(.lease) - leasesBefore == 10, "a 3 s lease renewed every second for 10 s")
    #expect(bench.board.playingToken == 5, "the board plays on past three leases")

    bench.handle(.command(3, .stop(token: 5)))
    #expect(bench.answer(3) == .success(.stopped(count: 1)))
    let leasesAtStop = bench.wrote(.lease)
    bench.run(for: 10_000)
    #expect(bench.wrote(.lease) == leasesAtStop, "nothing plays: no renewal")
    #expect(bench.session.leaseRenewalAtMs == nil)
  }

  @Test func anIdleBoardIsProbedMarkedUnresponsiveWhenSilentAndReportedBack() throws {
    let liveness = BoardClientOptions.Liveness(idleProbe: .seconds(3))
    var bench = Bench.connected(options: BoardClientOptions(liveness: liveness))
    bench.run(for: 3_000)
    #expect(bench.wrote(.ping) == 1, "one PING per idle period")
    #expect(!bench.session.isUnresponsive)

    bench.deaf = true
    bench.run(for: 3_000 + 1_000)
    #expect(bench.session.isUnresponsive)
    #expect(bench.reports.contains(.unresponsive(reason: "PING got no answer after every retry")))
    let hellos = bench.wrote(.hello)
    #expect(hellos > 1, "HELLO is sent until the board answers")

    bench.deaf = false
    bench.run(for: 10_000)
    #expect(!bench.session.isUnresponsive)
    let back = bench.reports.compactMap {
      if case .responsive(let info, let status) = $0 { (info, status) } else { nil }
    }
    #expect(back.count == 1)
    #expect(back.first?.1.token == 0)
    #expect(bench.session.phase == .open)
  }

  @Test func aSilentBoardIsCalledWithGrowingPauses() {
    let liveness = BoardClientOptions.Liveness(
      idleProbe: .seconds(1), retryDelay: .milliseconds(500), maxRetryDelay: .seconds(2))
    var bench = Bench.connected(options: BoardClientOptions(handshakeAttempts: 1, liveness: liveness))
    bench.deaf = true
    bench.run(for: 2_000)
    #expect(bench.session.isUnresponsive)
    // At each deadline: a probe that failed just now sets the next one's time.
    var pauses: [UInt64] = []
    var seen: UInt64?
    while pauses.count < 5, bench.now < 60_000 {
      bench.run(until: bench.session.nextDeadline ?? 60_000)
      guard case .unresponsive(let retryAtMs, _) = bench.session.phase, retryAtMs != seen else { continue }
      pauses.append(retryAtMs - bench.now)
      seen = retryAtMs
    }
    #expect(pauses == [500, 1_000, 2_000, 2_000, 2_000], "from the first pause doubling up to the longest")
    #expect(pauses == pauses.sorted(), "the pauses grow: \(pauses)")
  }

  @Test func closingFailsEveryCallerAndEndsTheSession() {
    var bench = Bench.connected()
    bench.deaf = true
    bench.handle(.command(2, .ping([])))
    bench.handle(.close)
    #expect(bench.answer(2) == .failure(.closed))
    #expect(bench.actions.suffix(2) == [.report(.closed), .finish])
    bench.handle(.command(3, .ping([])))
    bench.handle(.connect(4))
    #expect(bench.answer(3) == .failure(.closed))
    #expect(bench.opened(4) == .failure(.closed))
    bench.handle(.close)
    #expect(bench.actions.filter { $0 == .finish }.count == 1, "closed once")
  }

  @Test func aLostTransportIsReopenedWithGrowingPausesUntilTheLimit() {
    let reconnect = BoardClientOptions.Reconnect(
      initialDelay: .milliseconds(100), maxDelay: .milliseconds(400), giveUpAfter: .seconds(2)
    ) { throw CancellationError() }
    var bench = Bench.connected(options: BoardClientOptions(reconnect: reconnect))
    bench.deaf = true
    bench.handle(.command(2, .ping([])))
    bench.handle(.transportLost(reason: "unplugged"))
    #expect(bench.answer(2) == .failure(.disconnected(reason: "unplugged")))
    #expect(bench.reports.last == .disconnected(reason: "unplugged"))
    #expect(bench.session.info == nil)
    bench.handle(.command(3, .ping([])))
    #expect(bench.answer(3) == .failure(.disconnected(reason: "no transport")))

    var tries: [UInt64] = []
    while bench.session.phase != .closed, bench.now < 10_000 {
      let count = bench.actions.count
      bench.run(until: bench.session.nextDeadline ?? 10_000)
      if bench.actions[count...].contains(.reopenTransport) {
        tries.append(bench.now)
        bench.handle(.reopenFailed)
      }
    }
    #expect(Array(tries.prefix(4)) == [100, 300, 700, 1_100], "pauses of 100, 200, 400, then 400 ms")
    #expect(bench.session.phase == .closed, "given up after 2 s")
    #expect(bench.reports.last == .closed)
  }

  @Test func aReopenedPortWithAnotherBoardIsAbandoned() {
    let reconnect = BoardClientOptions.Reconnect { throw CancellationError() }
    var bench = Bench.connected(options: BoardClientOptions(reconnect: reconnect))
    bench.handle(.transportLost(reason: "unplugged"))
    bench.session.boardSerial = Array("another".utf8)
    bench.run(until: bench.session.nextDeadline ?? 0)
    #expect(bench.actions.last == .reopenTransport)
    bench.handle(.transportReopened)
    #expect(bench.actions.last == .abandonTransport)
    guard case .detached(let reconnection?) = bench.session.phase else {
      Issue.record("not waiting to reopen: \(bench.session.phase)")
      return
    }
    #expect(reconnection.retryAtMs == nil, "the next try waits until the port is released")
    bench.handle(.reopenFailed)
    #expect(bench.session.nextDeadline != nil)
  }

  @Test func aReopenedPortWithTheSameBoardIsReportedWithItsStatus() {
    let reconnect = BoardClientOptions.Reconnect { throw CancellationError() }
    var bench = Bench.connected(options: BoardClientOptions(reconnect: reconnect))
    bench.handle(.transportLost(reason: "unplugged"))
    bench.run(until: bench.session.nextDeadline ?? 0)
    bench.handle(.transportReopened)
    guard case .reconnected(let info, let status)? = bench.reports.last else {
      Issue.record("not reported back: \(bench.reports)")
      return
    }
    #expect(info.serial == Array("VB-0001".utf8))
    #expect(status.token == 0)
    #expect(bench.session.phase == .open)
  }

  @Test func noiseIsReportedPerThresholdUntilAValidFrame() {
    var bench = Bench(options: BoardClientOptions(noiseThreshold: 100))
    for _ in 0..<5 { bench.actions += bench.session.handle(.received(Array(repeating: 0x55, count: 50)), now: 0) }
    #expect(bench.reports == [.unreadableLine(bytes: 100), .unreadableLine(bytes: 100)])
    #expect(bench.session.noise.sinceFrame == 250)
  }
}
