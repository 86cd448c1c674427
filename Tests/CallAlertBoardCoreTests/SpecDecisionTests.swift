import CallAlertBoardCore
import CallAlertProtocol
import Testing

/// The places where PROTOCOL.md v1.0 left a board maker guessing, as v1.1 settles them (PROTOCOL.md §20).
@Suite("v1.1 decisions")
struct SpecDecisionTests {
  @Test("a command longer than the negotiated max_payload is refused with bad_payload, detail the limit (§5.6)")
  func overNegotiatedPayload() {
    var bench = Bench()
    bench.hello(Hello(maxPayload: 200))
    let limit = [UInt8](repeating: 0x5A, count: 200)
    #expect(bench.send(.ping(limit)) == reply(.ping, .pong(limit)))
    #expect(bench.send(.ping(limit + [1])) == nak(.ping, .badPayload, 200))
    // Not executed: a PLAY whose inline pattern makes the payload too long does not play.
    let long = Pattern(steps: Array(repeating: step(10, hz: 1_000, volume: 9), count: 28))  // 8 + 6 + 196 bytes
    #expect(bench.send(play(4, long)) == nak(.play, .badPayload, 200))
    #expect(bench.core.playback == nil)
    // The channel goes on: the refusal took its sequence.
    #expect(bench.send(.ping([7])) == reply(.ping, .pong([7])))
  }

  @Test("events raised while the channel is stalled wait, and flow after the next command (§5.5)")
  func stalledChannelHoldsNewEvents() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone, cap: 1_000))
    bench.hostMuted = true
    bench.advance(to: 3_000)
    #expect(bench.core.endpoint.sender.isPaused, "PLAY_ENDED went unacknowledged through its tries")
    bench.setButtons(1)
    bench.advance(to: 3_100)
    bench.setButtons(0)
    bench.advance(to: 6_000)
    let buttons = { (bench: Bench) in bench.boardFrames.filter { $0.type == MessageType.button.rawValue }.count }
    #expect(buttons(bench) == 0, "the press waits behind the stalled PLAY_ENDED")
    #expect(bench.core.nextWakeMs == nil, "nothing is retried while stalled")
    bench.hostMuted = false
    #expect(bench.send(.ping([1])) == reply(.ping, .pong([1])))
    #expect(buttons(bench) == 1)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .cap, playedMs: 1_000)])
    #expect(bench.buttonEvents.map(\.event.kind) == [.press])
    #expect(bench.core.endpoint.sender.isIdle)
  }

  @Test("an event acknowledgement with a payload is not an acknowledgement (§5.5)")
  func acknowledgementWithPayload() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone, cap: 100))
    bench.hostMuted = true  // the host endpoint's own acknowledgements are lost from here
    bench.advance(to: 100)
    guard let ended = bench.boardFrames.last(where: { $0.type == MessageType.playEnded.rawValue }) else {
      Issue.record("no PLAY_ENDED")
      return
    }
    let withPayload = Frame(
      flags: .response, sequence: ended.sequence, type: ended.type, nonce: bench.core.nonce, payload: [0])
    bench.core.receive(withPayload.encoded(), nowMs: bench.now)
    #expect(bench.core.endpoint.sender.inFlightCount == 1, "still unacknowledged")
    let sent = bench.boardFrames.count
    bench.advance(by: 200)
    #expect(bench.boardFrames.count > sent, "resent at its deadline")
    let empty = Frame(flags: .response, sequence: ended.sequence, type: ended.type, nonce: bench.core.nonce)
    bench.core.receive(empty.encoded(), nowMs: bench.now)
    #expect(bench.core.endpoint.sender.isIdle, "an empty acknowledgement is one")
  }

  @Test("a refused HELLO keeps the open session; the command channel restarts after it (§7)")
  func refusedHelloKeepsTheSession() {
    var bench = Bench()
    bench.hello()
    bench.send(play(5))
    #expect(bench.send(.hello(Hello(window: 0))) == nak(.hello, .badPayload, 4))
    #expect(bench.send(.hello(Hello(minVersion: 3, maxVersion: 4))) == nak(.hello, .unsupportedVersion, 0x0201))
    #expect(bench.core.session != nil)
    #expect(bench.send(.ping([1])) == reply(.ping, .pong([1])), "no no_session: the session is open")
    #expect(bench.core.playingToken == 5)
  }

  @Test("the notification counter advances only for notifications sent (§5.1)")
  func notificationCounter() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .off)))
    #expect(bench.boardFrames.filter { $0.type == MessageType.actuators.rawValue }.isEmpty)
    bench.hello(Hello(traceActuators: true))
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .off)))
    let sequences = bench.boardFrames.filter { $0.type == MessageType.actuators.rawValue }.map(\.sequence)
    #expect(sequences == [1, 2], "the two changes made while tracing was off spent no number")
  }

  @Test("ACTUATORS and STATUS report a silent buzzer as 0 Hz at volume 0, whatever silenced it (§10.1)")
  func normalisedBuzzer() {
    var bench = Bench()
    bench.hello(Hello(traceActuators: true))
    let steps = [step(50, hz: 2_000, volume: 0, leds: 1), step(50, hz: 0, volume: 200, leds: 2), step(50, leds: 1)]
    bench.send(play(3, Pattern(steps: steps)))
    bench.advance(by: 200)
    #expect(
      bench.traces.map(\.state) == [state(leds: 1), state(leds: 2), state(leds: 1), off],
      "no tone at volume 0, no volume without a tone")
  }

  @Test("STATUS's indicator_mode is LED 0's; another LED's indicator shows only in the lit LEDs (§10.5)")
  func statusIndicatorIsLedZero() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 1, mode: .on)))
    guard case .reply(_, .status(let status))? = bench.send(.getStatus) else {
      Issue.record("no STATUS")
      return
    }
    #expect(status.indicatorMode == IndicatorMode.off.rawValue)
    #expect(status.actuators.leds == 0b10)
  }

  @Test("the event queue's bound is reported in Capabilities.event_queue (version 2) and holds (§5.5)")
  func eventQueueInCapabilities() {
    var configuration = Bench.configuration
    configuration.maxPendingEvents = 5
    var bench = Bench(configuration: configuration)
    guard case .reply(_, .info(let info))? = bench.hello() else {
      Issue.record("no INFO")
      return
    }
    #expect(info.capabilities.eventQueue == 5)
  }
}
