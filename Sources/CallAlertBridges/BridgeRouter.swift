import CallAlertEngine
import CallAlertValues

/// The one place where a source's notifications become the engine's inputs: it applies the source's filters
/// (which calls ring, on which boards, with which pattern) and names calls `source:id`, so two sources never
/// share an id.
///
/// Pure. It remembers which calls it let through, so the answers and hangups of calls its filters held back
/// reach nobody.
public struct BridgeRouter: Sendable {
  /// What became of a notification.
  public enum Route: Equatable, Sendable {
    /// Give this to the engine.
    case input(EngineInput)
    /// The call does not ring: why, for the log.
    case held(String)
    /// Nothing to do (the answer or end of a call that was held back).
    case none
  }

  /// The source.
  public let source: BridgeSource
  /// The region numbers without a country code are read in.
  public let region: String
  private var admitted: [String] = []

  /// The most calls remembered as let through.
  static let memory = 256

  /// Creates a router for a source.
  public init(source: BridgeSource, region: String) {
    self.source = source
    self.region = region
  }

  /// The engine's id for a source's call id.
  public func engineID(_ callID: String) -> String { "\(source.name):\(callID)" }

  /// Routes one notification.
  public mutating func route(_ notification: BridgeNotification) -> Route {
    switch notification {
    case .ringing(let call):
      var chosen: BridgeFilter?
      if !source.filters.isEmpty {
        guard let index = source.filters.firstIndex(where: { matches($0, call) }) else {
          return .held("no filter of source \(source.name) matches call \(call.id)")
        }
        if source.filters[index].ignore { return .held("filter \(index) of source \(source.name) ignores it") }
        chosen = source.filters[index]
      }
      let id = engineID(call.id)
      admitted.append(id)
      if admitted.count > Self.memory { admitted.removeFirst() }
      return .input(
        .call(
          IncomingCall(
            id: id, callerNumber: call.callerNumber, callerName: call.callerName, patternHint: chosen?.pattern,
            boards: chosen.flatMap { $0.boards.isEmpty ? nil : $0.boards })))
    case .answered(let callID):
      let id = engineID(callID)
      return admitted.contains(id) ? .input(.answered(callID: id)) : .none
    case .ended(let callID, let outcome):
      // A call nobody answered is missed, as a phone counts it; after an answer the engine has nothing left
      // to stop, and a plain hangup says so.
      let id = engineID(callID)
      guard let index = admitted.firstIndex(of: id) else { return .none }
      admitted.remove(at: index)
      return .input(outcome == .missed ? .unanswered(callID: id) : .hangup(callID: id))
    }
  }

  /// Whether every criterion the filter gives holds for the call.
  public func matches(_ filter: BridgeFilter, _ call: RingingCall) -> Bool {
    if !filter.called.isEmpty {
      guard let called = call.calledNumber, filter.called.contains(where: { sameNumber($0, called) }) else {
        return false
      }
    }
    if !filter.lines.isEmpty {
      guard let line = call.line, filter.lines.contains(where: { $0.lowercased() == line.lowercased() }) else {
        return false
      }
    }
    if !filter.extensions.isEmpty {
      guard let ext = call.extension, filter.extensions.contains(where: { Self.sameExtension($0, ext) }) else {
        return false
      }
    }
    if !filter.callers.isEmpty {
      guard let caller = PhoneNumber.e164(call.callerNumber, defaultRegion: region),
        filter.callers.contains(where: { PhoneNumber.e164($0, defaultRegion: region) == caller })
      else { return false }
    }
    return true
  }

  /// Called numbers match by their digits (a box's MSN is often written without an area code), or in E.164.
  private func sameNumber(_ lhs: String, _ rhs: String) -> Bool {
    let digits = { (text: String) in text.filter(\.isASCII).filter(\.isNumber) }
    if !digits(lhs).isEmpty, digits(lhs) == digits(rhs) { return true }
    guard let left = PhoneNumber.e164(lhs, defaultRegion: region) else { return false }
    return left == PhoneNumber.e164(rhs, defaultRegion: region)
  }

  /// `201` matches `PJSIP/201` and `201@ext-local`; otherwise the names must be equal (ignoring case).
  static func sameExtension(_ wanted: String, _ actual: String) -> Bool {
    let wanted = wanted.lowercased()
    let actual = actual.lowercased()
    if wanted == actual { return true }
    let bare = actual.split(separator: "/").last.map(String.init) ?? actual
    return wanted == bare || wanted == (bare.split(separator: "@").first.map(String.init) ?? bare)
  }
}
