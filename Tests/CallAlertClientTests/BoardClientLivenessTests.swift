import CallAlertBoardCore
import CallAlertClient
import CallAlertProtocol
import CallAlertSerial
import CallAlertTestSupport
import CallAlertTransport
import CallAlertVirtualBoard
import Clocks
import Testing

/// A board that stays plugged in but stops answering, on a test clock: the client notices within one lease,
/// says so, calls it until it answers, and reports it back with what it is doing.
@Suite("Link liveness", .timeLimit(.minutes(1)))
struct BoardClientLivenessTests {
  struct Rig {
    let clock = TestClock()
    let line: SilenceableLine
    let runner: VirtualBoardRunner<TestClock<Duration>>
    let client: BoardClient<TestClock<Duration>>
    let events: EventLog<BoardClientEvent>
    let run: Task<Void, any Error>

    init(options: BoardClientOptions) {
      let (hostEnd, boardEnd) = MemoryTransport.pair()
      line = SilenceableLine(wrapping: boardEnd)
      runner = VirtualBoardRunner(board: VirtualBoard(), transport: line, clock: clock)
      client = BoardClient(transport: hostEnd, clock: clock, options: options)
      events = EventLog(client.events)
      let runner = self.runner
      run = Task { try await runner.run() }
    }

    func alerting() async -> Bool { await runner.withBoard { $0.actuators.isAlerting } }

    func shutDown() async {
      await client.close()
      await runner.stop()
      _ = await run.result
    }
  }

  static let ring = Pattern(
    steps: [PatternStep(durationMs: 400, buzzerHz: 2_000, buzzerVolume: 90, motor: 0)],
    repeatCount: Pattern.repeatForever)

  @Test func aBoardGoingSilentMidPlayIsUnresponsiveWithinOneLeaseAndReportedBackWhenItAnswers() async throws {
    let rig = Rig(options: BoardClientOptions(liveness: .init(idleProbe: nil)))
    try await rig.client.connect()
    try await rig.client.play(PlayRequest(token: 7, capMs: 0, source: .inline(Self.ring)))
    #expect(await advance(rig.clock, within: .seconds(1)) { await rig.alerting() } != nil)

    rig.line.silence(true)
    let noticed = await advance(rig.clock, within: .seconds(5)) { await rig.client.isUnresponsive }
    let after = try #require(noticed, "never marked unresponsive")
    #expect(after <= .milliseconds(3_000), "marked unresponsive \(after) after the wire went silent (lease 3 s)")
    #expect(rig.events.contains { if case .unresponsive = $0 { true } else { false } })
    #expect(await rig.client.playingTokens.isEmpty, "nothing is taken as playing on a silent board")
    // The board's lease runs out: it falls silent by itself.
    #expect(await advance(rig.clock, within: .seconds(5)) { await !rig.alerting() } != nil)

    rig.line.silence(false)
    let back = await advance(rig.clock, within: .seconds(10)) {
      rig.events.contains { if case .responsive = $0 { true } else { false } }
    }
    #expect(back != nil, "the board answering again is reported")
    #expect(await rig.client.isUnresponsive == false)
    guard
      case .responsive(let info, let status)? = rig.events.all.last(where: {
        if case .responsive = $0 { true } else { false }
      })
    else { return }
    #expect(info.serial == Array("VB-0001".utf8))
    #expect(status.token == 0, "its lease ran out: it plays nothing, and the caller plays again")
    await rig.shutDown()
  }

  @Test func aPlayLongerThanTheLeaseRingsOnBecauseTheClientRenewsIt() async throws {
    let rig = Rig(options: BoardClientOptions(liveness: .init(idleProbe: nil)))
    try await rig.client.connect()
    try await rig.client.play(PlayRequest(token: 5, capMs: 0, source: .inline(Self.ring)))
    #expect(await advance(rig.clock, within: .seconds(1)) { await rig.alerting() } != nil)
    // Three leases' worth: without renewals the board stops itself 3 s after the PLAY.
    let stopped = await advance(rig.clock, within: .seconds(10)) { await !rig.alerting() }
    #expect(stopped == nil, "fell silent after \(String(describing: stopped)) though the client renews the lease")
    #expect(await rig.client.playingTokens == [5])
    await rig.shutDown()
  }

  @Test func anIdleBoardIsProbedAndASilentOneNoticed() async throws {
    let rig = Rig(options: BoardClientOptions(liveness: .init(idleProbe: .seconds(3))))
    try await rig.client.connect()
    rig.line.silence(true)
    let noticed = await advance(rig.clock, within: .seconds(8)) { await rig.client.isUnresponsive }
    #expect(noticed != nil && noticed! <= .milliseconds(4_000), "noticed after \(String(describing: noticed))")
    rig.line.silence(false)
    #expect(
      await advance(rig.clock, within: .seconds(10)) {
        rig.events.contains { if case .responsive = $0 { true } else { false } }
      } != nil)
    await rig.shutDown()
  }

  @Test func withoutLivenessNothingChanges() async throws {
    let rig = Rig(options: BoardClientOptions())
    try await rig.client.connect()
    rig.line.silence(true)
    #expect(await advance(rig.clock, within: .seconds(5)) { await rig.client.isUnresponsive } == nil)
    await rig.shutDown()
  }

  /// A port that carries nothing but noise (a wrong baud rate, another device) is reported, once per
  /// threshold's worth of bytes, never per byte; a valid frame ends it.
  @Test func aLineCarryingOnlyGarbageIsReported() async throws {
    let (hostEnd, farEnd) = MemoryTransport.pair()
    let client = BoardClient(transport: hostEnd, clock: TestClock(), options: BoardClientOptions(noiseThreshold: 1_000))
    // The reader starts with the session: a command that will go unanswered opens it.
    let pending = Task { try? await client.send(.ping([])) }
    var noise: [UInt8] = []
    for index in 0..<2_500 { noise.append(UInt8(truncatingIfNeeded: index % 251 + 1)) }
    for start in stride(from: 0, to: noise.count, by: 100) {
      try await farEnd.write(Array(noise[start..<min(start + 100, noise.count)]))
    }
    let reported = await finishing(within: 10) {
      var sizes: [Int] = []
      for await event in client.events {
        guard case .unreadableLine(let bytes) = event else { continue }
        sizes.append(bytes)
        if sizes.count == 2 { break }
      }
      return sizes
    }
    #expect(reported == [1_000, 1_000], "reported per 1 000 bytes: \(String(describing: reported))")
    await client.close()
    pending.cancel()
  }
}
