import CallAlertEngine

/// The memory queue's bound: what goes when it is full (only while the disk refuses, or under a flood from a
/// source that does not wait for room).
extension HistoryWriter {
  /// Adds `operation` to `state`'s queue. When the queue holds more than `capacity`, the oldest call that is
  /// wholly in it (its ring or its suppression, and every later record of it) is dropped and each of its
  /// writes counted as lost, and the records of that call that come later are dropped too: a call is written
  /// whole or not at all. The end of a call whose ring is already on disk is never dropped (the row would stay
  /// `ringing`, to be closed as a false missed call at the next stop); when nothing else can go, the queue
  /// grows to twice its capacity before its oldest write is dropped.
  static func admit(_ operation: Operation, into state: inout State, capacity: Int) {
    if case .record(let event, _) = operation, let id = event.callID, state.droppedCalls.contains(id) {
      state.lost += 1
      if event.endsCall { state.droppedCalls.remove(id) }
      return
    }
    state.pending.append(operation)
    guard state.pending.count > capacity else { return }
    let candidates = state.pending.indices.dropFirst(state.writing)
    let oldest = candidates.first { index in
      guard case .record(let event, _) = state.pending[index], event.startsCall, let id = event.callID else {
        return false
      }
      return !state.ringingOnDisk.contains(id)
    }
    if let oldest, case .record(let event, _) = state.pending[oldest], let id = event.callID {
      var ended = false
      var index = oldest
      while index < state.pending.count {
        guard case .record(let later, _) = state.pending[index], later.callID == id else {
          index += 1
          continue
        }
        ended = ended || later.endsCall
        state.pending.remove(at: index)
        state.lost += 1
      }
      if !ended { state.droppedCalls.insert(id) }
      if state.droppedCalls.count > capacity { state.droppedCalls = [] }  // ids of calls that never ended
    } else if state.pending.count > 2 * capacity, state.writing < state.pending.count {
      state.pending.remove(at: state.writing)
      state.lost += 1
    }
  }

  /// Keeps ``State/ringingOnDisk`` up to date once `batch` is committed.
  static func noteWritten(_ batch: ArraySlice<Operation>, in state: inout State) {
    for operation in batch {
      switch operation {
      case .record(.ringing(let call, _, _, _, _), _):
        state.ringingOnDisk.insert(call.id)
      case .record(let event, _) where event.endsCall:
        if let id = event.callID { state.ringingOnDisk.remove(id) }
      case .closeInterrupted:
        state.ringingOnDisk = []
      default:
        break
      }
    }
  }
}

extension EngineEvent {
  /// The call the event is about; nil for the acknowledgement of every missed call.
  var callID: String? {
    switch self {
    case .ringing(let call, _, _, _, _), .suppressed(let call, _), .missed(let call, _): call.id
    case .stopped(let callID, _), .ignored(let callID, _), .patternFallback(let callID, _, _, _, _),
      .missedCallAcknowledged(let callID):
      callID
    case .missedAcknowledged, .callsRefused, .doNotDisturbEnded: nil
    }
  }

  /// Whether the event may make the call's row: a ring or a suppression.
  var startsCall: Bool {
    switch self {
    case .ringing, .suppressed: true
    default: false
    }
  }

  /// Whether the event ends the call's ringing row: a stop (but for a lost board, which keeps it ringing) or
  /// a missed call.
  var endsCall: Bool {
    switch self {
    case .stopped(_, let reason): reason != .boardLost
    case .missed: true
    default: false
    }
  }
}
