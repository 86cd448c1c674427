import CallAlertProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Calls arriving, ending and being missed.
extension AlertEngine {
  /// A call came in: it is a duplicate, was hung up already, came too late, is passive, is held back by
  /// do-not-disturb, or rings. The order matters: a duplicate changes nothing at all, and every call that
  /// does not ring is recorded as missed.
  mutating func receive(_ call: IncomingCall, at now: EngineTime, into effects: inout [EngineEffect]) {
    guard !isActive(call.id), memory.finished[call.id] == nil else {
      // Neither restart nor extend: the first delivery's cap stands.
      effects.append(.event(.ignored(callID: call.id, reason: .duplicateCall)))
      return
    }
    let number = PhoneNumber.e164(call.callerNumber, defaultRegion: configuration.defaultRegion)
    let isRepeatedCaller = isRepeated(number, at: now.monotonicMs)
    if let number { memory.arrivals[number] = now.monotonicMs }
    let nowMs = now.monotonicMs

    if memory.tombstones.removeValue(forKey: call.id) != nil {
      finish(call.id, atMs: nowMs)
      effects.append(.event(.suppressed(call, reason: .hungUpBeforeArrival)))
      addMissed(call, reason: .suppressed, into: &effects)
      return
    }
    let latenessMs = lateness(of: call, at: now.wall)
    guard latenessMs < configuration.capMs else {
      finish(call.id, atMs: nowMs)
      addMissed(call, reason: .tooLate, into: &effects)
      return
    }
    if call.level == .passive {
      finish(call.id, atMs: nowMs)
      effects.append(.event(.suppressed(call, reason: .passive)))
      addMissed(call, reason: .suppressed, into: &effects)
      return
    }
    let policy = policy
    if policy.isActive(at: now.wall)
      && !policy.breaksThrough(level: call.level, number: number, isRepeatedCaller: isRepeatedCaller)
    {
      finish(call.id, atMs: nowMs)
      effects.append(.event(.suppressed(call, reason: .doNotDisturb)))
      addMissed(call, reason: .suppressed, into: &effects)
      return
    }

    guard makeRoom(for: call, at: now, into: &effects) else {
      // Refused, not missed: the sender is told (a control error) and may retry once calls have ended.
      effects.append(.event(.ignored(callID: call.id, reason: .tooManyCalls)))
      countRefusal(of: call, at: now, into: &effects)
      return
    }
    let remainingMs = configuration.capMs - latenessMs
    let selection = PatternSelection(for: call, number: number, configuration: configuration)
    let active = ActiveCall(
      call: call, number: number, sequence: nextSequence, startMs: nowMs, deadlineMs: nowMs.saturatingAdd(remainingMs),
      boards: selection.boards, pattern: selection.pattern, silent: isSilent && call.level != .critical,
      buzzerOnly: selection.buzzerOnly)
    nextSequence += 1
    calls.append(active)
    // Announced even when none of its boards is connected: it is active and waits for one until its cap.
    effects.append(
      .event(
        .ringing(
          call, boards: connectedBoards(of: active), pattern: active.pattern, capMs: remainingMs,
          silent: active.silent)))
    reconcileBoards(at: now, into: &effects)
  }

  /// A hangup or answer for `id`: stops that call only. For an unknown id a tombstone is kept, because the
  /// hangup may have overtaken its own call; a call that already ended needs nothing.
  mutating func end(_ id: String, reason: StopReason, at now: EngineTime, into effects: inout [EngineEffect]) {
    if let index = calls.firstIndex(where: { $0.id == id }) {
      calls.remove(at: index)
      finish(id, atMs: now.monotonicMs)
      effects.append(.event(.stopped(callID: id, reason: reason)))
      reconcileBoards(at: now, into: &effects)
    } else if memory.finished[id] == nil {
      memory.tombstones[id] = now.monotonicMs.saturatingAdd(configuration.tombstoneMs)
      effects.append(.event(.ignored(callID: id, reason: .unknownCall)))
    }
  }

  /// The caller gave up before an answer: the call stops and is missed (the indicator blinks until
  /// acknowledged). For an unknown id, as for a hangup, a tombstone is kept.
  mutating func unanswered(_ id: String, at now: EngineTime, into effects: inout [EngineEffect]) {
    guard let call = calls.first(where: { $0.id == id })?.call else {
      end(id, reason: .unanswered, at: now, into: &effects)
      return
    }
    end(id, reason: .unanswered, at: now, into: &effects)
    addMissed(call, reason: .unanswered, into: &effects)
  }

  /// Stops every active call (answered everywhere, or acknowledged); none of them counts as missed.
  mutating func endAll(reason: StopReason, at now: EngineTime, into effects: inout [EngineEffect]) {
    guard !calls.isEmpty else { return }
    let ended = calls
    calls.removeAll()
    for call in ended {
      finish(call.id, atMs: now.monotonicMs)
      effects.append(.event(.stopped(callID: call.id, reason: reason)))
    }
    reconcileBoards(at: now, into: &effects)
  }

  /// Acknowledgement from a board's button (`board`) or the command line (nil): stops every ringing call;
  /// with nothing ringing, clears the missed calls and their indicator. One press does one thing, so a press
  /// that silences a call does not also wipe the missed calls the user has not looked at yet.
  mutating func acknowledge(from board: String?, at now: EngineTime, into effects: inout [EngineEffect]) {
    if let board, boards[board] == nil { return }
    if !calls.isEmpty {
      endAll(reason: .acknowledged, at: now, into: &effects)
    } else if !missed.isEmpty {
      let count = missed.count
      missed.removeAll()
      for board in connectedBoards { effects.append(.indicator(board: board, Self.indicatorOff)) }
      effects.append(.event(.missedAcknowledged(count: count)))
    }
  }

  /// Acknowledgement of one missed call: it leaves the missed calls; the indicator goes off with the last.
  mutating func acknowledgeMissed(_ id: String, into effects: inout [EngineEffect]) {
    guard missed.contains(where: { $0.id == id }) else {
      effects.append(.event(.ignored(callID: id, reason: .notMissed)))
      return
    }
    missed.removeAll { $0.id == id }
    if missed.isEmpty {
      for board in connectedBoards { effects.append(.indicator(board: board, Self.indicatorOff)) }
    }
    effects.append(.event(.missedCallAcknowledged(callID: id)))
  }

  /// A call reached its cap: stopped and missed.
  mutating func capped(_ call: ActiveCall, atMs endMs: UInt64, into effects: inout [EngineEffect]) {
    finish(call.id, atMs: endMs)
    effects.append(.event(.stopped(callID: call.id, reason: .cap)))
    addMissed(call.call, reason: .cap, into: &effects)
  }

  /// Records a missed call; the first one turns the indicator on.
  mutating func addMissed(_ call: IncomingCall, reason: MissedReason, into effects: inout [EngineEffect]) {
    effects.append(.event(.missed(call, reason: reason)))
    let wasEmpty = missed.isEmpty
    missed.append(call)
    if wasEmpty {
      for board in connectedBoards { effects.append(.indicator(board: board, configuration.missedIndicator)) }
    }
  }

  /// The indicator when nothing waits.
  static let indicatorOff = IndicatorSetting(led: 0, mode: .off)

  /// Remembers a finished call's id so a second delivery is recognised as a duplicate.
  mutating func finish(_ id: String, atMs endMs: UInt64) {
    memory.finished[id] = endMs.saturatingAdd(configuration.tombstoneMs)
  }

  /// Whether a call from `number` arrived within the repeated-caller window before `nowMs` (boundary
  /// included). Withheld callers are never repeated callers.
  private func isRepeated(_ number: String?, at nowMs: UInt64) -> Bool {
    guard let number, let windowMs = configuration.doNotDisturb.repeatedCallerWindowMs,
      let previousMs = memory.arrivals[number]
    else { return false }
    return nowMs - min(previousMs, nowMs) <= windowMs
  }

  /// How late the call arrived: the wall-clock time since it was sent, rounded to the millisecond; 0 when
  /// it does not say, or says a time in the future (the sender's clock is ahead).
  private func lateness(of call: IncomingCall, at wall: Date) -> UInt64 {
    guard let sentAt = call.sentAt else { return 0 }
    let seconds = wall.timeIntervalSince(sentAt)
    guard seconds > 0 else { return 0 }
    // Anything past the cap is simply too late; clamping keeps the conversion in range for absurd values.
    return UInt64((min(seconds, 86_400) * 1_000).rounded())
  }
}
