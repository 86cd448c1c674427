import CallAlertBoardCore
import CallAlertProtocol
import Testing

@Suite("Indicator")
struct IndicatorTests {
  @Test("blink keeps its phase from the moment it was set, to the millisecond")
  func blinkTiming() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 100)
    #expect(
      bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 300, offMs: 700)))
        == reply(.setIndicator, .ok))
    bench.advance(to: 3_500)
    #expect(
      bench.timeline.dropFirst().map(\.ms) == [100, 400, 1_100, 1_400, 2_100, 2_400, 3_100, 3_400])
    #expect(bench.timeline.dropFirst().map(\.state.leds) == [1, 0, 1, 0, 1, 0, 1, 0])
  }

  @Test("setting blink again restarts its phase; on and off are steady")
  func modes() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 1, mode: .blink, onMs: 100, offMs: 100)))
    bench.advance(to: 150)
    bench.send(.setIndicator(IndicatorSetting(led: 1, mode: .blink, onMs: 100, offMs: 100)))
    bench.advance(to: 260)
    #expect(bench.timeline.dropFirst().map(\.ms) == [0, 100, 150, 250])
    bench.send(.setIndicator(IndicatorSetting(led: 1, mode: .on)))
    bench.advance(to: 5_000)
    #expect(bench.core.actuators.leds == 0b10)
    #expect(bench.core.nextWakeMs == nil, "a steady light needs no wake-ups")
    bench.send(.setIndicator(IndicatorSetting(led: 1, mode: .off)))
    #expect(bench.core.actuators.leds == 0)
  }

  @Test("the LEDs show the indicator OR the playing step's LED bits")
  func orWithPattern() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 50, offMs: 50)))
    let pattern = Pattern(steps: [step(75, leds: 0b11), step(75, leds: 0b10), step(75)])
    bench.send(play(1, pattern))
    bench.advance(to: 400)
    let leds = { (ms: UInt64) in bench.core.hardware.state(at: ms)?.leds }
    #expect(leds(0) == 0b11)
    #expect(leds(60) == 0b11, "the step lights LED 0 while the blink is dark")
    #expect(leds(80) == 0b10, "second step, blink dark")
    #expect(leds(100) == 0b11, "second step, blink lit")
    #expect(leds(160) == 0b00, "third step, blink dark")
    #expect(leds(210) == 0b01, "third step, blink lit")
    #expect(leds(260) == 0b00, "pattern over, blink dark")
    #expect(leds(310) == 0b01)
  }

  @Test("an LED the board lacks is refused")
  func badLed() {
    var bench = Bench()
    bench.hello()
    #expect(bench.send(.setIndicator(IndicatorSetting(led: 2, mode: .on))) == nak(.setIndicator, .badArgument, 0))
    #expect(bench.core.actuators == off)
  }

  @Test("the indicator survives a lapsed lease")
  func survivesLease() {
    var bench = Bench()
    bench.hello()
    bench.send(.setIndicator(IndicatorSetting(led: 0, mode: .on)))
    bench.send(play(1, tone))
    bench.advance(to: 3_000)
    #expect(bench.playEnds.map(\.reason) == [.lease])
    #expect(bench.core.actuators == state(leds: 0b01))
  }
}

@Suite("Buttons")
struct ButtonTests {
  @Test("bounces shorter than 20 ms are ignored")
  func bounces() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    for (at, level) in [(100, 1), (105, 0), (110, 1), (129, 0), (140, 1), (159, 0), (300, 0)] as [(UInt64, UInt8)] {
      bench.advance(to: at)
      bench.setButtons(level)
    }
    bench.advance(to: 1_000)
    #expect(bench.buttonEvents.isEmpty)
    #expect(bench.core.playingToken == 1)
  }

  @Test("a press is reported at its debounced release, with the time between the edges that held")
  func press() {
    var bench = Bench()
    bench.hello()
    for (at, level) in [(1_000, 1), (1_003, 0), (1_005, 1), (1_400, 0), (1_410, 1), (1_415, 0)] as [(UInt64, UInt8)] {
      bench.advance(to: at)
      bench.setButtons(level)
    }
    bench.advance(to: 1_434)
    #expect(bench.buttonEvents.isEmpty)
    bench.advance(to: 1_435)
    #expect(bench.buttonEvents.map(\.ms) == [1_435])
    #expect(bench.buttonEvents.map(\.event) == [ButtonEvent(button: 0, kind: .press, heldMs: 410)])
  }

  @Test("held 1 000 ms is a long press, reported at that moment and not again at release")
  func longPress() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 1_000)
    bench.setButtons(1)
    bench.advance(to: 1_999)
    #expect(bench.buttonEvents.isEmpty)
    bench.advance(to: 2_000)
    #expect(bench.buttonEvents.map(\.ms) == [2_000])
    #expect(bench.buttonEvents.map(\.event) == [ButtonEvent(button: 0, kind: .longPress, heldMs: 1_000)])
    bench.advance(to: 3_000)
    bench.setButtons(0)
    bench.advance(to: 4_000)
    #expect(bench.buttonEvents.count == 1)
  }

  @Test("a release just before the long-press time is a press, even though it is confirmed after it")
  func releaseNearLongPress() {
    var bench = Bench()
    bench.hello()
    bench.advance(to: 1_000)
    bench.setButtons(1)
    bench.advance(to: 1_990)
    bench.setButtons(0)
    bench.advance(to: 3_000)
    #expect(bench.buttonEvents.map(\.event) == [ButtonEvent(button: 0, kind: .press, heldMs: 990)])
    #expect(bench.buttonEvents.map(\.ms) == [2_010])
  }

  @Test("button 0 going down stops the play at once; the press is still reported")
  func stopsPlayback() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1, tone))
    bench.advance(to: 500)
    bench.setButtons(1)
    bench.advance(to: 519)
    #expect(bench.core.playingToken == 1)
    bench.advance(to: 520)
    #expect(bench.core.playingToken == nil)
    #expect(bench.timeline.last == Change(ms: 520, state: off))
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .stopped, playedMs: 520)])
    bench.advance(to: 600)
    bench.setButtons(0)
    bench.advance(to: 700)
    #expect(bench.buttonEvents.map(\.event) == [ButtonEvent(button: 0, kind: .press, heldMs: 100)])
  }

  @Test("a long press of button 0 stops the play when it goes down, and is reported at 1 000 ms")
  func longPressStops() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.advance(to: 100)
    bench.setButtons(1)
    bench.advance(to: 2_000)
    #expect(bench.playEnds == [PlayEndedEvent(token: 1, reason: .stopped, playedMs: 120)])
    #expect(bench.buttonEvents.map(\.ms) == [1_100])
    #expect(bench.buttonEvents.map(\.event.kind) == [.longPress])
  }

  @Test("after a long press that stopped a play, the next short press is reported too")
  func pressAfterALongPressThatStoppedAPlay() {
    var bench = Bench()
    bench.hello()
    bench.send(play(1))
    bench.advance(to: 100)
    bench.setButtons(1)
    bench.advance(to: 1_500)
    bench.setButtons(0)
    bench.advance(to: 2_000)
    bench.setButtons(1)
    bench.advance(to: 2_100)
    bench.setButtons(0)
    bench.advance(to: 3_000)
    #expect(bench.buttonEvents.map(\.event.kind) == [.longPress, .press])
  }

  @Test("other buttons are reported but do not stop the play")
  func otherButton() {
    var configuration = Bench.configuration
    configuration.buttons = 2
    var bench = Bench(configuration: configuration)
    bench.hello()
    bench.send(play(1))
    bench.setButtons(0b10)
    bench.advance(to: 100)
    bench.setButtons(0)
    bench.advance(to: 200)
    #expect(bench.core.playingToken == 1)
    #expect(bench.buttonEvents.map(\.event) == [ButtonEvent(button: 1, kind: .press, heldMs: 100)])
  }

  @Test("the debouncer decides on sparse samples as it would on dense ones")
  func sparseSamples() {
    var button = ButtonDebouncer(debounceMs: 20, longPressMs: 1_000, nowMs: 0)
    #expect(button.sample(pressed: true, nowMs: 10) == .init())
    #expect(button.nextWakeMs == 30)
    let late = button.sample(pressed: true, nowMs: 1_500)
    #expect(late == .init(wentDown: true, report: .init(kind: .longPress, heldMs: 1_490)))
    #expect(button.nextWakeMs == nil)
    #expect(button.sample(pressed: false, nowMs: 1_600) == .init())
    #expect(button.sample(pressed: false, nowMs: 1_620) == .init(), "a long press reports nothing at release")
    #expect(!button.isPressed)
  }

  /// Sampled only at its edges, late (the debounce's wake-up never came before the release): the press held
  /// from 10 to 160 ms still went down and is a press of 150 ms, as it would be on dense samples. A release
  /// sampled after more than the long-press time is a long press.
  @Test("a press sampled only at its edges is still a press")
  func pressSampledOnlyAtItsEdges() {
    var button = ButtonDebouncer(debounceMs: 20, longPressMs: 1_000, nowMs: 0)
    #expect(button.sample(pressed: true, nowMs: 10) == .init())
    #expect(button.sample(pressed: false, nowMs: 160) == .init(wentDown: true))
    #expect(button.nextWakeMs == 180)
    #expect(button.sample(pressed: false, nowMs: 180) == .init(report: .init(kind: .press, heldMs: 150)))
    #expect(!button.isPressed)

    #expect(button.sample(pressed: true, nowMs: 2_000) == .init())
    let held = button.sample(pressed: false, nowMs: 3_500)
    #expect(held == .init(wentDown: true, report: .init(kind: .longPress, heldMs: 1_500)))
    #expect(button.sample(pressed: false, nowMs: 3_520) == .init(), "a long press reports nothing at release")

    // Bounce shorter than the debounce is still nothing, however it is sampled.
    #expect(button.sample(pressed: true, nowMs: 5_000) == .init())
    #expect(button.sample(pressed: false, nowMs: 5_005) == .init())
    #expect(button.sample(pressed: false, nowMs: 5_100) == .init())
    #expect(!button.isPressed)
  }
}
