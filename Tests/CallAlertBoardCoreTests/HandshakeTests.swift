import CallAlertBoardCore
import CallAlertProtocol
import Testing

@Suite("Handshake and simple commands")
struct HandshakeTests {
  @Test("boot sends BOOT with the reason, the table state and a fresh nonce")
  func bootEvent() {
    let bench = Bench(bootReason: .watchdog)
    #expect(bench.restarts == [bench.core.nonce])
    #expect(bench.core.nonce != 0)
    #expect(bench.events.map(\.event) == [.boot(BootEvent(reason: .watchdog, table: .none))])
    #expect(bench.timeline == [Change(ms: 0, state: off)], "the hardware starts silent")
  }

  @Test("HELLO is answered with INFO describing the board")
  func helloInfo() throws {
    var bench = Bench()
    let answer = bench.hello(Hello(maxPayload: 512, window: 4))
    guard case .reply(.hello, .info(let info))? = answer else {
      Issue.record("no INFO: \(String(describing: answer))")
      return
    }
    #expect(info.minVersion == 1 && info.maxVersion == 2 && info.sessionVersion == 2)
    #expect(info.firmware == (1, 2, 3))
    #expect(info.bootNonce == bench.core.nonce)
    #expect(info.serial == Array("CA-0001".utf8))
    let expected = Capabilities(
      buzzerChannels: 1, buzzerMinHz: 200, buzzerMaxHz: 8_000, motorChannels: 1, leds: 2, buttons: 1,
      patternSlots: 16, maxSteps: 512, maxPayload: 1_024, window: 8,
      tableCapacity: UInt32((16 / 2 - 1) * 256), motorMaxOnMs: 15_000, motorDutyWindowMs: 60_000,
      motorMaxDutyPercent: 70, leaseMs: 3_000, eventQueue: 16)
    #expect(info.capabilities == expected)
    #expect(info.table == .none)
    #expect(bench.core.session == SessionTerms(version: 2, maxPayload: 512, window: 4))
  }

  @Test("GET_INFO before HELLO gets no_session; after HELLO INFO carries the negotiated version")
  func sessionVersionInInfo() {
    var bench = Bench()
    #expect(bench.send(.getInfo) == nak(.getInfo, .noSession))
    bench.hello()
    guard case .reply(.getInfo, .info(let info))? = bench.send(.getInfo) else {
      Issue.record("no INFO")
      return
    }
    #expect(info.sessionVersion == 2 && info.capabilities.eventQueue == 16)
  }

  @Test("a v1.0 host (max_version 1) negotiates version 1 and gets the 25-byte Capabilities")
  func olderHost() {
    var bench = Bench()
    let answer = bench.hello(Hello(minVersion: 1, maxVersion: 1))
    guard case .reply(.hello, .info(let info))? = answer else {
      Issue.record("no INFO: \(String(describing: answer))")
      return
    }
    #expect(info.sessionVersion == 1 && info.minVersion == 1 && info.maxVersion == 2)
    #expect(info.capabilities.eventQueue == 0, "version 1's layout has no event_queue")
    let payload = Message.reply(to: .hello, .info(info)).frame(sequence: 0, nonce: 0).payload
    #expect(payload.count == 48 + 7, "48 + s bytes, s = 7")
  }

  @Test(
    "Capabilities stay within their bounds: max_payload 128-1 024, event_queue 2-255 (§10.2)",
    arguments: [(64, 1, 128, 2), (2_000, 1_000, 1_024, 255), (200, 16, 200, 16)])
  func capabilityBounds(maxPayload: Int, queue: Int, reportedMaxPayload: Int, reportedQueue: Int) {
    var configuration = Bench.configuration
    configuration.maxPayload = UInt16(maxPayload)
    configuration.maxPendingEvents = queue
    var bench = Bench(configuration: configuration)
    guard case .reply(_, .info(let info))? = bench.hello() else {
      Issue.record("no INFO")
      return
    }
    #expect(Int(info.capabilities.maxPayload) == reportedMaxPayload)
    #expect(Int(info.capabilities.eventQueue) == reportedQueue)
  }

  @Test("a HELLO whose versions do not meet the board's is refused and opens no session")
  func versionMismatch() {
    var bench = Bench()
    #expect(bench.send(.hello(Hello(minVersion: 3, maxVersion: 5))) == nak(.hello, .unsupportedVersion, 0x0201))
    #expect(bench.core.session == nil)
    #expect(bench.send(play(1)) == nak(.play, .noSession))
    #expect(bench.core.playback == nil)
  }

  @Test("commands before HELLO are refused with no_session")
  func noSession() {
    var bench = Bench()
    #expect(bench.send(.getStatus) == nak(.getStatus, .noSession))
    bench.hello()
    #expect(bench.send(.ping([1, 2, 3])) == reply(.ping, .pong([1, 2, 3])))
  }

  @Test("a second HELLO re-negotiates and keeps the play going")
  func secondHello() {
    var bench = Bench()
    bench.hello()
    bench.send(play(5))
    bench.hello(Hello(maxPayload: 300, window: 2))
    #expect(bench.core.session?.maxPayload == 300)
    #expect(bench.core.playingToken == 5)
    #expect(bench.send(.tableBegin(TableBegin(size: 100, crc: 0))) == reply(.tableBegin, .tableReady(maxChunk: 296)))
  }

  @Test("HELLO's options turn ACTUATORS notifications on, with the board clock")
  func traces() {
    var bench = Bench(now: 5_000)
    bench.hello(Hello(traceActuators: true))
    bench.send(play(1, Pattern(steps: [step(100, motor: 9), step(50, leds: 1)])))
    bench.advance(by: 1_000)
    #expect(
      bench.traces == [
        ActuatorTrace(boardMs: 0, state: state(motor: 9)),
        ActuatorTrace(boardMs: 100, state: state(leds: 1)),
        ActuatorTrace(boardMs: 150, state: off),
      ])
  }

  @Test("without the option, nothing is traced")
  func noTraces() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.advance(by: 1_000)
    #expect(bench.traces.isEmpty)
    #expect(bench.timeline.count > 3)
  }
}
