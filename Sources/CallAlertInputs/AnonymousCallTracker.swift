import CallAlertEngine
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Gives calls whose push names no id a stable id of their own, and finds the call that an id-less repeat
/// or hangup belongs to (docs/PUSH.md, "Pushes without an id").
///
/// Servers that ring a phone through a notification extension send one call at a time and often mark a
/// push only as "call" or "hangup". The rules, per source (the control socket, standard input):
///
/// - an id-less call push from a caller whose id-less call still rings is that call again: it gets the same
///   id, so the engine neither restarts nor extends it; from another caller it is a new call with a new id;
/// - an id-less hangup ends the ringing id-less call from its caller when the push names one, else the newest
///   ringing id-less call from that source; with none ringing it is ignored.
///
/// The caller is compared by number (E.164 when it can be read), else by name; two pushes that name no
/// caller at all are the same caller. A pure value: the daemon keeps one and passes, with each push, whether
/// a call is still active in the engine.
public struct AnonymousCallTracker: Sendable {
  /// What a push comes to.
  public enum Resolution: Equatable, Sendable {
    /// Give this to the engine.
    case input(EngineInput)
    /// Nothing to do, and why.
    case ignored(reason: String)
  }

  /// One id-less call given an id.
  struct Entry: Equatable, Sendable {
    var id: String
    var source: String
    var caller: String?
  }

  /// The calls given ids, oldest first; only those still active are kept.
  private(set) var entries: [Entry] = []
  private var issued: UInt64 = 0

  /// Creates an empty tracker.
  public init() {}

  /// Resolves a push from `source` into an engine input.
  ///
  /// - Parameters:
  ///   - notification: The push as ``PushPayload`` read it.
  ///   - source: Where it came from: `socket`, `<stdin>`.
  ///   - defaultRegion: The region of national caller numbers, to compare callers in E.164.
  ///   - now: The wall-clock time, part of a new id (`anon-<Unix ms>-<n>`), so that ids stay distinct in the
  ///     history across restarts.
  ///   - isActive: Whether the engine still has a call with this id (ringing or waiting for a board).
  public mutating func resolve(
    _ notification: PushNotification, source: String, defaultRegion: String, now: Date,
    isActive: (String) -> Bool
  ) -> Resolution {
    entries.removeAll { !isActive($0.id) }
    switch notification {
    case .call(let call): return .input(.call(call))
    case .hangup(let id): return .input(.hangup(callID: id))
    case .ignored(let reason): return .ignored(reason: reason)
    case .callWithoutID(var call):
      let caller = Self.callerKey(number: call.callerNumber, name: call.callerName, region: defaultRegion)
      if let ringing = entries.last(where: { $0.source == source && $0.caller == caller }) {
        call.id = ringing.id
        return .input(.call(call))
      }
      issued += 1
      call.id = "anon-\(Int64((now.timeIntervalSince1970 * 1_000).rounded(.down)))-\(issued)"
      entries.append(Entry(id: call.id, source: source, caller: caller))
      return .input(.call(call))
    case .hangupWithoutID(let number):
      let fromSource = entries.filter { $0.source == source }
      let caller = number.flatMap { Self.callerKey(number: $0, name: nil, region: defaultRegion) }
      let sameCaller = caller.flatMap { caller in fromSource.last { $0.caller == caller } }
      guard let ended = sameCaller ?? fromSource.last else {
        return .ignored(reason: "a hangup without a call id, and no call without an id rings from \(source)")
      }
      entries.removeAll { $0.id == ended.id }
      return .input(.hangup(callID: ended.id))
    }
  }

  /// `number:+4930123` (E.164 when it reads), else `name:Alice`; nil when the push names no caller.
  static func callerKey(number: String?, name: String?, region: String) -> String? {
    if let number, !number.isEmpty {
      return "number:" + (PhoneNumber.e164(number, defaultRegion: region) ?? number)
    }
    return name.map { "name:" + $0 }
  }
}
