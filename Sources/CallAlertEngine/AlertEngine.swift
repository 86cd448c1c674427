import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The alert engine: a pure state machine that turns calls, hangups, acknowledgements and board news into
/// board commands and events, the way a phone rings.
///
/// It never reads a clock and performs no I/O: every input carries its moment (``EngineTime``), and the
/// daemon calls ``advance(to:)`` at ``nextDeadlineMs`` so caps expire on time. It rings at once, at most
/// 30 s from when the call was sent, stops at once on hangup, answer or acknowledgement, keeps quiet under
/// do-not-disturb except for what should break through, and records every call it does not ring as missed.
///
/// Each board plays one call: of the active calls meant for it, the most urgent, then the newest. Boards
/// enforce the cap themselves too (PLAY carries the time left), so a board rings no longer than it should
/// even if the daemon dies.
public struct AlertEngine: Sendable {
  /// The configuration in force.
  public private(set) var configuration: EngineConfiguration

  /// Active calls in arrival order.
  var calls: [ActiveCall] = []
  /// Every configured board's state, by name.
  var boards: [String: BoardState] = [:]
  /// Tombstones, finished ids and recent arrivals.
  var memory = CallMemory()
  /// Missed calls waiting for acknowledgement, oldest first.
  var missed: [IncomingCall] = []
  /// Do-not-disturb switched at run time; wins over the configured mode.
  var doNotDisturbOverride: DoNotDisturbMode?
  /// When that switch ends, if it was made until a time.
  var doNotDisturbExpiry: DoNotDisturbExpiry?
  /// Silent mode switched at run time; wins over the configured value.
  var silentOverride: Bool?
  /// The play tokens.
  var tokens = TokenCounter()
  /// The next call's arrival number.
  var nextSequence: UInt64 = 0
  /// The latest monotonic ms seen, so a caller passing an earlier moment cannot move time backwards.
  var latestMs: UInt64

  /// Refusals being counted, per source: see ``refusalIntervalMs``.
  var refusals: [CallSource: RefusalWindow] = [:]

  /// The most calls active at once (ringing or waiting for a board), from all sources together. No phone
  /// rings 64 calls at once; the bound keeps a flood of call ids from growing the engine's state and the cost
  /// of every input without end. When it is full, a `critical` call or one from the local socket displaces
  /// the oldest, least urgent call of the busiest source (``StopReason/displaced``); any other call is
  /// refused with ``IgnoredReason/tooManyCalls``.
  public static let maximumActiveCalls = 64

  /// The most calls active at once from one source (``IncomingCall/source``): half the budget, so that a
  /// flood on one source (64 calls published over MQTT, a SIP flood) leaves the other half to every other
  /// source. A call beyond it is refused with ``IgnoredReason/tooManyCalls``, unless it is `critical` or from
  /// the local socket: then the source's own oldest, least urgent call makes room.
  public static let maximumActiveCallsPerSource = 32

  /// How long refusals from one source are summed into one ``EngineEvent/callsRefused(source:count:first:since:)``:
  /// a minute. The first refusal after a quiet minute is reported at once.
  public static let refusalIntervalMs: UInt64 = 60_000

  /// Creates an engine with every board disconnected (the daemon sends `.boardBack` as each one connects).
  public init(configuration: EngineConfiguration, now: EngineTime) {
    self.configuration = configuration
    latestMs = now.monotonicMs
    for board in configuration.boards { boards[board.name] = BoardState() }
  }

  /// Acts on an input at `now` (also processes anything due by `now` first).
  public mutating func handle(_ input: EngineInput, at now: EngineTime) -> [EngineEffect] {
    var effects = advance(to: now)
    let now = moment(now)
    switch input {
    case .call(let call):
      receive(call, at: now, into: &effects)
    case .hangup(let id):
      end(id, reason: .hangup, at: now, into: &effects)
    case .answered(let id?):
      end(id, reason: .answered, at: now, into: &effects)
    case .unanswered(let id):
      unanswered(id, at: now, into: &effects)
    case .answered(nil):
      endAll(reason: .answered, at: now, into: &effects)
    case .acknowledge(let board):
      acknowledge(from: board, at: now, into: &effects)
    case .acknowledgeMissed(let id):
      acknowledgeMissed(id, into: &effects)
    case .setDoNotDisturb(let mode, let until):
      // Calls already ringing keep ringing (or keep quiet): a phone applies the switch to the next call.
      doNotDisturbOverride = mode
      doNotDisturbExpiry = until.map { DoNotDisturbExpiry(until: $0, from: now) }
      endDoNotDisturbIfDue(at: now, into: &effects)
    case .setSilent(let silent):
      silentOverride = silent
    case .boardLost(let board):
      boardLost(board, into: &effects)
    case .boardBack(let board, let playing):
      boardBack(board, playing: playing, at: now, into: &effects)
    case .playEnded(let board, let token, let reason):
      playEnded(on: board, token: token, reason: reason, at: now, into: &effects)
    case .playFailed(let board, let token):
      playFailed(on: board, token: token)
    case .patternFallback(let board, let token, let played, let reason):
      patternFallback(on: board, token: token, played: played, reason: reason, into: &effects)
    }
    return effects
  }

  /// Lets time pass: caps expire, tombstones and repeated-caller memory age out.
  public mutating func advance(to now: EngineTime) -> [EngineEffect] {
    let now = moment(now)
    var effects: [EngineEffect] = []
    let due = calls.filter { $0.deadlineMs <= now.monotonicMs }
      .sorted { ($0.deadlineMs, $0.sequence) < ($1.deadlineMs, $1.sequence) }
    if !due.isEmpty {
      calls.removeAll { $0.deadlineMs <= now.monotonicMs }
      for call in due { capped(call, atMs: call.deadlineMs, into: &effects) }
      reconcileBoards(at: now, into: &effects)
    }
    summarizeRefusals(at: now, into: &effects)
    endDoNotDisturbIfDue(at: now, into: &effects)
    memory.prune(at: now.monotonicMs, repeatedCallerWindowMs: configuration.doNotDisturb.repeatedCallerWindowMs)
    return effects
  }

  /// The next monotonic ms at which ``advance(to:)`` has something to do (nil: nothing scheduled).
  public var nextDeadlineMs: UInt64? {
    let memoryExpiry = memory.nextExpiryMs(repeatedCallerWindowMs: configuration.doNotDisturb.repeatedCallerWindowMs)
    let deadlines = [memoryExpiry, nextRefusalSummaryMs, doNotDisturbExpiry?.monotonicMs].compactMap { $0 }
    return (calls.map(\.deadlineMs) + deadlines).min()
  }

  /// What is going on, for `callalert status`: active calls with remaining ms and boards, pending missed
  /// calls, do-not-disturb (configured mode, override, whether active now, silent), and the boards.
  public func snapshot(at now: EngineTime) -> EngineSnapshot {
    let nowMs = max(now.monotonicMs, latestMs)
    let active = calls.map { call in
      EngineSnapshot.Call(
        call: call.call, callerE164: call.number, remainingMs: call.remainingMs(at: nowMs), boards: call.boards,
        playingOn: configuration.boards.map(\.name).filter {
          boards[$0]?.callID == call.id && boards[$0]?.token != nil
        },
        pattern: call.pattern, silent: call.silent)
    }
    let doNotDisturb = EngineSnapshot.DoNotDisturb(
      configuredMode: configuration.doNotDisturb.mode, override: doNotDisturbOverride,
      isActive: policy.isActive(at: now.wall), silent: isSilent, silentOverride: silentOverride,
      until: doNotDisturbExpiry?.until)
    let boardEntries = configuration.boards.map { board in
      let state = boards[board.name] ?? BoardState()
      return EngineSnapshot.Board(
        name: board.name, connected: state.connected, callID: state.callID, token: state.token)
    }
    return EngineSnapshot(
      activeCalls: active, missedCalls: missed, doNotDisturb: doNotDisturb, boards: boardEntries,
      nextDeadlineMs: nextDeadlineMs)
  }

  /// Replaces the configuration (reload), keeping calls.
  ///
  /// Ringing calls keep their pattern, cap and silence, as they would across a settings change on a phone;
  /// they leave boards that are no longer configured (which are told to stop), and boards that are new start
  /// disconnected. Overrides switched at run time survive a reload. A changed missed-call indicator is shown
  /// at once while missed calls wait.
  public mutating func reconfigure(_ configuration: EngineConfiguration, at now: EngineTime) -> [EngineEffect] {
    var effects = advance(to: now)
    let now = moment(now)
    let names = Set(configuration.boards.map(\.name))
    for board in self.configuration.boards where !names.contains(board.name) {
      if let state = boards.removeValue(forKey: board.name), state.connected, let token = state.token {
        effects.append(.stop(board: board.name, token: token))
      }
    }
    for board in configuration.boards where boards[board.name] == nil { boards[board.name] = BoardState() }
    for index in calls.indices { calls[index].boards.removeAll { !names.contains($0) } }
    let indicatorChanged = configuration.missedIndicator != self.configuration.missedIndicator
    self.configuration = configuration
    reconcileBoards(at: now, into: &effects)
    if indicatorChanged && !missed.isEmpty {
      for board in connectedBoards { effects.append(.indicator(board: board, configuration.missedIndicator)) }
    }
    memory.prune(at: now.monotonicMs, repeatedCallerWindowMs: configuration.doNotDisturb.repeatedCallerWindowMs)
    return effects
  }

  /// Restores missed calls not yet acknowledged (from the history at daemon start) so the indicator blinks.
  ///
  /// No events are emitted: the history already holds these calls. Their ids are remembered like finished
  /// calls, so a notification redelivered after a restart does not ring again.
  public mutating func restoreMissed(_ calls: [IncomingCall], at now: EngineTime) -> [EngineEffect] {
    var effects = advance(to: now)
    let now = moment(now)
    let wasEmpty = missed.isEmpty
    for call in calls where !missed.contains(where: { $0.id == call.id }) && !isActive(call.id) {
      missed.append(call)
      if memory.finished[call.id] == nil {
        memory.finished[call.id] = now.monotonicMs.saturatingAdd(configuration.tombstoneMs)
      }
    }
    if wasEmpty && !missed.isEmpty {
      for board in connectedBoards { effects.append(.indicator(board: board, configuration.missedIndicator)) }
    }
    return effects
  }

  // MARK: - Shared helpers

  /// `now`, never earlier than a moment already seen: monotonic time cannot go back, and deadlines must not
  /// move if a caller passes a stale moment. The wall clock is taken as given (quiet hours follow it).
  mutating func moment(_ now: EngineTime) -> EngineTime {
    latestMs = max(latestMs, now.monotonicMs)
    return EngineTime(monotonicMs: latestMs, wall: now.wall)
  }

  /// The do-not-disturb rules in force.
  var policy: DoNotDisturbPolicy {
    DoNotDisturbPolicy(
      configuration: configuration.doNotDisturb, override: doNotDisturbOverride,
      defaultRegion: configuration.defaultRegion)
  }

  /// Whether new calls ring with the motor only.
  var isSilent: Bool { silentOverride ?? configuration.doNotDisturb.silent }

  /// The connected boards, in the configuration's order.
  var connectedBoards: [String] {
    configuration.boards.map(\.name).filter { boards[$0]?.connected == true }
  }

  /// Whether a call with `id` is active (ringing, or waiting for a board).
  public func isActive(_ id: String) -> Bool { calls.contains { $0.id == id } }
}
