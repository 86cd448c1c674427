/// What a board really plays, when it is not the pattern the call asked for.
extension AlertEngine {
  /// A board reports that the play under `token` uses a fallback pattern. Only the board's current token
  /// counts: a report about a play already replaced or stopped changes nothing.
  mutating func patternFallback(
    on board: String, token: UInt32, played: String, reason: String, into effects: inout [EngineEffect]
  ) {
    guard let state = boards[board], state.token == token, let id = state.callID,
      let call = calls.first(where: { $0.id == id })
    else { return }
    effects.append(
      .event(.patternFallback(callID: id, board: board, requested: call.pattern, played: played, reason: reason)))
  }
}
