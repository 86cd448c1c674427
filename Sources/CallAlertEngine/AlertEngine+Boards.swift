import CallAlertProtocol

/// Boards: which call each one plays, and what they report.
extension AlertEngine {
  /// Brings every connected board in line with its choice: a PLAY when the call it should play changed, a
  /// STOP when nothing is left for it. A disconnected board gets nothing; it catches up when it returns.
  mutating func reconcileBoards(at now: EngineTime, into effects: inout [EngineEffect]) {
    for board in configuration.boards {
      guard var state = boards[board.name], state.connected else { continue }
      let choice = chosenCall(for: board.name)
      guard choice?.id != state.callID else { continue }
      if let choice {
        // A PLAY with a new token replaces whatever plays there; no STOP is needed first.
        let token = tokens.take()
        effects.append(
          .play(
            board: board.name, token: token, pattern: choice.pattern,
            capMs: Self.playCap(choice.remainingMs(at: now.monotonicMs)),
            options: Self.playOptions(for: choice, on: board)))
        state.callID = choice.id
        state.token = token
        if choice.id != state.restartedCall {
          state.restarts = 0
          state.restartedCall = nil
        }
      } else {
        if let token = state.token { effects.append(.stop(board: board.name, token: token)) }
        state.callID = nil
        state.token = nil
      }
      boards[board.name] = state
    }
  }

  /// The channels a PLAY keeps still. Silent mode and a vibrate-only board play the motor alone (the daemon
  /// plays the pattern's rhythm on the motor); a rule's `buzzer_only` keeps the motor still elsewhere. A bed
  /// shaker shakes for every call that rings it, whatever the rule says.
  static func playOptions(for call: ActiveCall, on board: AlertBoard) -> PlayOptions {
    if call.silent || board.vibrateOnly { return [.muteBuzzer] }
    return call.buzzerOnly ? [.muteMotor] : []
  }

  /// The call a board plays: of the active calls meant for it, the most urgent, then the newest.
  func chosenCall(for board: String) -> ActiveCall? {
    calls.filter { $0.boards.contains(board) }.max { $1.outranks($0) }
  }

  /// The connected boards a call is meant for.
  func connectedBoards(of call: ActiveCall) -> [String] {
    call.boards.filter { boards[$0]?.connected == true }
  }

  /// A PLAY's cap: the call's time left, at least 1 ms (0 would mean the board's full 30 s) and at most the
  /// board's absolute cap.
  static func playCap(_ remainingMs: UInt64) -> UInt16 {
    UInt16(max(1, min(remainingMs, UInt64(absoluteCapMs))))
  }

  /// A board went away. The call it was playing, if no other connected board carries it, is reported
  /// stopped (for listeners: nothing rings for it now); it stays active and resumes if a board returns
  /// within its cap. Other boards are untouched.
  mutating func boardLost(_ name: String, into effects: inout [EngineEffect]) {
    guard let state = boards[name], state.connected else { return }
    boards[name] = BoardState()
    if let id = state.callID, let call = calls.first(where: { $0.id == id }), connectedBoards(of: call).isEmpty {
      effects.append(.event(.stopped(callID: id, reason: .boardLost)))
    }
  }

  /// A board connected (or came back): it plays its call for the time left, and shows the missed-call
  /// indicator, or turns it off, since it may have kept an old one across a lost link. What it still plays
  /// from before (`playing`) is replaced by that PLAY, or stopped when nothing is to ring there: the call it
  /// rang may have been hung up while the cable was out.
  mutating func boardBack(
    _ name: String, playing: UInt32? = nil, at now: EngineTime, into effects: inout [EngineEffect]
  ) {
    guard boards[name] != nil else { return }
    boards[name] = BoardState(connected: true)
    if let choice = chosenCall(for: name) {
      effects.append(
        .event(
          .ringing(
            choice.call, boards: connectedBoards(of: choice), pattern: choice.pattern,
            capMs: choice.remainingMs(at: now.monotonicMs), silent: choice.silent)))
    }
    reconcileBoards(at: now, into: &effects)
    if let playing, playing != 0, boards[name]?.token == nil { effects.append(.stop(board: name, token: playing)) }
    effects.append(.indicator(board: name, missed.isEmpty ? Self.indicatorOff : configuration.missedIndicator))
  }

  /// A PLAY failed: the board plays nothing, so it is no longer reported as playing the call. It keeps the
  /// call as its choice, so that the engine does not send the same failing PLAY again; a later change of
  /// choice, or the board coming back, sends a new one. Only the board's current token counts.
  mutating func playFailed(on name: String, token: UInt32) {
    guard var state = boards[name], state.connected, state.token == token else { return }
    state.token = nil
    boards[name] = state
  }

  /// How many times one call is restarted on one board after the board ended it by itself.
  static let maximumRestarts = 3

  /// A board reports that its play ended by itself. Only the board's current token counts; anything else is
  /// an echo of a play already replaced or stopped.
  mutating func playEnded(
    on name: String, token: UInt32, reason: PlayEndReason, at now: EngineTime, into effects: inout [EngineEffect]
  ) {
    guard var state = boards[name], state.connected, state.token == token, let id = state.callID else { return }
    switch reason {
    case .superseded:
      // Only a PLAY from us supersedes, and that PLAY took a new token; nothing to do.
      return
    case .stopped, .completed:
      // The button silenced it (an acknowledge follows), or a finite pattern ran out: the board is idle,
      // the call stays active until hangup, answer, acknowledgement or cap.
      state.token = nil
      boards[name] = state
    case .lease, .fault:
      // The board gave up for its own reasons while the call still rings: play again for the time left,
      // a few times; after that, leave the board idle (the call still ends by hangup, answer or cap).
      guard state.restarts < Self.maximumRestarts else {
        state.token = nil
        boards[name] = state
        return
      }
      boards[name] = BoardState(
        connected: true, callID: nil, token: nil, restarts: state.restarts + 1, restartedCall: id)
      reconcileBoards(at: now, into: &effects)
    case .cap:
      state.token = nil
      boards[name] = state
      // Normally the engine's own deadline has already ended the call (handle() advances first), which
      // makes this token stale. Here the board's clock ran ahead: trust it and end the call now.
      if let index = calls.firstIndex(where: { $0.id == id }) {
        let call = calls.remove(at: index)
        capped(call, atMs: now.monotonicMs, into: &effects)
        reconcileBoards(at: now, into: &effects)
      }
    }
  }
}
