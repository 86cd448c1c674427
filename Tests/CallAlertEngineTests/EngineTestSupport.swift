import CallAlertProtocol
import Foundation

@testable import CallAlertEngine

/// The wall clock at monotonic 0: 2026-06-01 12:00:00 UTC, a Monday.
let base = Date(timeIntervalSince1970: 1_780_315_200)

/// The moment `ms` after the start, on both clocks.
func t(_ ms: UInt64) -> EngineTime { EngineTime(monotonicMs: ms, wall: wall(Int64(ms))) }

/// The wall clock `ms` after (or before) the start.
func wall(_ ms: Int64) -> Date { base.addingTimeInterval(Double(ms) / 1_000) }

/// The default missed-call indicator.
let blink = EngineConfiguration().missedIndicator
/// The indicator turned off.
let dark = IndicatorSetting(led: 0, mode: .off)

/// A call.
func call(
  _ id: String, from number: String? = nil, level: InterruptionLevel = .active, sentAtMs: Int64? = nil,
  hint: String? = nil
) -> IncomingCall {
  IncomingCall(id: id, callerNumber: number, sentAt: sentAtMs.map(wall), level: level, patternHint: hint)
}

/// An engine started at 0 with `connected` boards (default: all) connected.
func makeEngine(
  _ configuration: EngineConfiguration = EngineConfiguration(), connected: [String]? = nil
)
  -> AlertEngine
{
  var engine = AlertEngine(configuration: configuration, now: t(0))
  for board in connected ?? configuration.boards.map(\.name) { _ = engine.handle(.boardBack(board: board), at: t(0)) }
  return engine
}

/// A PLAY effect's fields.
struct Play: Equatable, CustomStringConvertible {
  var board: String
  var token: UInt32
  var pattern: PatternReference
  var capMs: UInt16
  var options: PlayOptions

  var description: String { "play(\(board), token \(token), \(pattern), cap \(capMs), options \(options.rawValue))" }
}

extension Array where Element == EngineEffect {
  /// The events, in order.
  var events: [EngineEvent] {
    compactMap { if case .event(let event) = $0 { event } else { nil } }
  }

  /// The PLAY effects, in order.
  var plays: [Play] {
    compactMap {
      if case .play(let board, let token, let pattern, let capMs, let options) = $0 {
        Play(board: board, token: token, pattern: pattern, capMs: capMs, options: options)
      } else {
        nil
      }
    }
  }

  /// Everything addressed to boards (PLAY, STOP, indicator), in order.
  var boardCommands: [EngineEffect] {
    filter { if case .event = $0 { false } else { true } }
  }
}

/// A configuration with the given boards (by name) and otherwise the defaults.
func configuration(
  boards: [String] = ["board"], capMs: UInt64 = EngineConfiguration.maximumCapMs, rules: [PatternRule] = [],
  doNotDisturb: DoNotDisturbConfiguration = DoNotDisturbConfiguration(timeZone: utc), region: String = "US",
  vibrateOnly: Set<String> = []
) -> EngineConfiguration {
  EngineConfiguration(
    capMs: capMs, boards: boards.map { AlertBoard(name: $0, vibrateOnly: vibrateOnly.contains($0)) },
    patternRules: rules, doNotDisturb: doNotDisturb, defaultRegion: region)
}

/// UTC, so that schedules in tests do not depend on the machine's zone.
let utc = TimeZone(identifier: "UTC")!
