import CallAlertBridges
import CallAlertEngine

/// An INVITE as the SIP stack read it: the fields the tracker decides on, nothing else.
public struct SIPInvite: Equatable, Sendable {
  /// The Call-ID; with ``fromTag``, one call however many forked copies arrive.
  public var callID: String
  /// The From tag.
  public var fromTag: String?
  /// The From header's user part.
  public var fromUser: String?
  /// The From header's display name.
  public var fromDisplay: String?
  /// P-Asserted-Identity's user part (RFC 3325): the identity a trusted PBX vouches for.
  public var assertedUser: String?
  /// P-Asserted-Identity's display name.
  public var assertedDisplay: String?
  /// Remote-Party-ID's user part (the older draft some PBXs still send).
  public var remotePartyUser: String?
  /// Remote-Party-ID's display name.
  public var remotePartyDisplay: String?
  /// The To header's user part: the number the caller dialled, on most PBXs.
  public var toUser: String?
  /// The Request-URI's user part: the registered contact's user, or the dialled number.
  public var requestUser: String?

  /// Creates an INVITE.
  public init(
    callID: String, fromTag: String? = nil, fromUser: String? = nil, fromDisplay: String? = nil,
    assertedUser: String? = nil, assertedDisplay: String? = nil, remotePartyUser: String? = nil,
    remotePartyDisplay: String? = nil, toUser: String? = nil, requestUser: String? = nil
  ) {
    self.callID = callID
    self.fromTag = fromTag
    self.fromUser = fromUser
    self.fromDisplay = fromDisplay
    self.assertedUser = assertedUser
    self.assertedDisplay = assertedDisplay
    self.remotePartyUser = remotePartyUser
    self.remotePartyDisplay = remotePartyDisplay
    self.toUser = toUser
    self.requestUser = requestUser
  }
}

/// What the SIP stack saw happen to a call.
public enum SIPCallEvent: Equatable, Sendable {
  /// An INVITE (a new call, or another copy of one).
  case invite(SIPInvite)
  /// The caller cancelled the INVITE; `reasonCause` is its `Reason: SIP;cause=N` (RFC 3326), nil without.
  case cancel(callID: String, reasonCause: Int?)
  /// The INVITE's transaction ended otherwise (a BYE, a timeout, a refusal), with the final status.
  case terminated(callID: String, status: Int)
}

/// Follows one SIP account's incoming calls and says what each means for the engine: a pure state machine,
/// tested without sockets.
///
/// An INVITE rings (`.call`) and is answered 180 Ringing, never 200: the extension only rings. A second copy
/// of an INVITE with the same Call-ID and From tag (a proxy forked it, or it came over two paths) is the same
/// call; a retransmission never gets here (the transaction layer absorbs it). A CANCEL with
/// `Reason: SIP;cause=200` ("call completed elsewhere") means someone else in the group answered; without it,
/// the caller gave up and the call is missed. An INVITE for a user the account does not serve is answered
/// 404; one its rules hold back still gets 180, so the group sees a ringing extension, and rings nothing.
public struct SIPCallTracker: Sendable {
  /// What the stack should answer an INVITE with, and what the engine should hear.
  public struct Decision: Equatable, Sendable {
    /// The status to answer an INVITE with (180 or a refusal); nil for other events.
    public var answer: Int?
    /// The engine's inputs, in order.
    public var inputs: [EngineInput]
    /// What happened, for the log; nil when nothing worth a line did.
    public var note: String?

    /// Creates a decision.
    public init(answer: Int? = nil, inputs: [EngineInput] = [], note: String? = nil) {
      self.answer = answer
      self.inputs = inputs
      self.note = note
    }
  }

  private struct Entry: Sendable {
    var callID: String
    var fromTag: String?
    /// Copies of the INVITE still pending (each is cancelled or ends on its own).
    var copies: Int
    /// Whether the engine was told of it (false: held back by a rule).
    var rings: Bool
    /// Whether it ended for the engine (the first CANCEL decides; later copies' change nothing).
    var ended: Bool
  }

  /// The account.
  public let account: SIPAccount
  /// The region numbers without a country code are read in (for the rules' caller numbers).
  public let region: String
  private var entries: [Entry] = []

  /// The most calls followed at once; beyond, the oldest is ended as missed.
  public static let maximumCalls = 64

  /// Creates a tracker for an account.
  public init(account: SIPAccount, region: String) {
    self.account = account
    self.region = region
  }

  /// The engine's id for a Call-ID: the account's name first, so two accounts never share one.
  public func engineID(_ callID: String) -> String { "\(account.name):\(callID)" }

  /// The calls followed, oldest first, with whether each still rings.
  public var calls: [(callID: String, ringing: Bool)] { entries.map { ($0.callID, $0.rings && !$0.ended) } }

  /// Takes one event; returns the answer and the engine's inputs.
  public mutating func handle(_ event: SIPCallEvent) -> Decision {
    switch event {
    case .invite(let invite): return invited(invite)
    case .cancel(let callID, let cause): return finished(callID, answeredElsewhere: cause == 200, why: "cancelled")
    case .terminated(let callID, let status):
      return finished(callID, answeredElsewhere: false, why: "ended with \(status)")
    }
  }

  private mutating func invited(_ invite: SIPInvite) -> Decision {
    if let index = entries.firstIndex(where: { $0.callID == invite.callID && $0.fromTag == invite.fromTag }) {
      entries[index].copies += 1
      return Decision(answer: 180, note: "another copy of call \(invite.callID)")
    }
    guard serves(invite) else {
      let user = invite.requestUser ?? invite.toUser ?? "?"
      return Decision(answer: 404, note: "refused call \(invite.callID) for unknown user \(user) with 404")
    }
    var decision = Decision(answer: 180)
    if entries.count >= Self.maximumCalls, let oldest = entries.first {
      decision.inputs += finished(oldest.callID, answeredElsewhere: false, why: "dropped").inputs
      entries.removeAll { $0.callID == oldest.callID }
    }
    let caller = Self.caller(of: invite)
    let called = calledNumber(of: invite)
    var chosen: BridgeFilter?
    if !account.rules.isEmpty {
      guard let index = account.rules.firstIndex(where: { matches($0, called: called, caller: caller.number) }) else {
        entries.append(Entry(callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: false, ended: false))
        decision.note = "call \(invite.callID) to \(called ?? "?") rings nothing: no rule matches"
        return decision
      }
      if account.rules[index].ignore {
        entries.append(Entry(callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: false, ended: false))
        decision.note = "call \(invite.callID) to \(called ?? "?") rings nothing: rule \(index) ignores it"
        return decision
      }
      chosen = account.rules[index]
    }
    entries.append(Entry(callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: true, ended: false))
    decision.inputs.append(
      .call(
        IncomingCall(
          id: engineID(invite.callID), callerNumber: caller.number, callerName: caller.name,
          patternHint: chosen?.pattern, boards: chosen.flatMap { $0.boards.isEmpty ? nil : $0.boards })))
    decision.note =
      "call \(invite.callID) from \(caller.number ?? "withheld")\(caller.name.map { " (\($0))" } ?? "") to \(called ?? "?") rings"
    return decision
  }

  private mutating func finished(_ callID: String, answeredElsewhere: Bool, why: String) -> Decision {
    guard let index = entries.firstIndex(where: { $0.callID == callID }) else { return Decision() }
    var decision = Decision()
    if !entries[index].ended {
      entries[index].ended = true
      if entries[index].rings {
        let id = engineID(callID)
        decision.inputs.append(answeredElsewhere ? .answered(callID: id) : .unanswered(callID: id))
        decision.note = "call \(callID) \(why): \(answeredElsewhere ? "answered elsewhere" : "missed")"
      }
    }
    entries[index].copies -= 1
    if entries[index].copies <= 0 { entries.remove(at: index) }
    return decision
  }

  /// Whether the INVITE is for this account: its user in the Request-URI or the To, a number a rule names,
  /// or no user at all (an INVITE to the bare contact address).
  private func serves(_ invite: SIPInvite) -> Bool {
    let users = [invite.requestUser, invite.toUser].compactMap { $0 }
    if users.isEmpty || users.contains(account.user) { return true }
    return account.rules.contains { rule in rule.called.contains { wanted in users.contains { sameNumber(wanted, $0) } }
    }
  }

  /// The called number a rule matches: the To user, unless it is the account's own (then the Request-URI's).
  private func calledNumber(of invite: SIPInvite) -> String? {
    if let to = invite.toUser, to != account.user { return to }
    return invite.requestUser ?? invite.toUser
  }

  private func matches(_ rule: BridgeFilter, called: String?, caller: String?) -> Bool {
    if !rule.called.isEmpty {
      guard let called, rule.called.contains(where: { sameNumber($0, called) }) else { return false }
    }
    if !rule.callers.isEmpty {
      guard let number = PhoneNumber.e164(caller, defaultRegion: region),
        rule.callers.contains(where: { PhoneNumber.e164($0, defaultRegion: region) == number })
      else { return false }
    }
    return true
  }

  /// Called numbers match as written, by their digits, or in E.164.
  private func sameNumber(_ lhs: String, _ rhs: String) -> Bool {
    if lhs == rhs { return true }
    let digits = { (text: String) in text.filter(\.isASCII).filter(\.isNumber) }
    if !digits(lhs).isEmpty, digits(lhs) == digits(rhs), digits(lhs).count == lhs.filter({ $0 != " " }).count {
      return true
    }
    guard let left = PhoneNumber.e164(lhs, defaultRegion: region) else { return false }
    return left == PhoneNumber.e164(rhs, defaultRegion: region)
  }

  /// The caller's number and name: P-Asserted-Identity first, then Remote-Party-ID, then From. `anonymous`
  /// (and an empty user) is a withheld number.
  static func caller(of invite: SIPInvite) -> (number: String?, name: String?) {
    let sources: [(String?, String?)] = [
      (invite.assertedUser, invite.assertedDisplay), (invite.remotePartyUser, invite.remotePartyDisplay),
      (invite.fromUser, invite.fromDisplay),
    ]
    let chosen = sources.first { $0.0 != nil } ?? (nil, nil)
    let names = [chosen.1, invite.assertedDisplay, invite.remotePartyDisplay, invite.fromDisplay]
    let name = names.lazy.compactMap { $0.map(unquoted) }.first { !$0.isEmpty && $0.lowercased() != "anonymous" }
    let withheld = ["anonymous", "unknown", "restricted", "unavailable"]
    let number = chosen.0.flatMap { $0.isEmpty || withheld.contains($0.lowercased()) ? nil : $0 }
    return (number, name)
  }

  /// A display name without its quotes and escapes.
  static func unquoted(_ display: String) -> String {
    var text = Substring(display)
    while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
    while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
    if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
    var result = ""
    var escaped = false
    for character in text {
      if !escaped && character == "\\" {
        escaped = true
        continue
      }
      escaped = false
      result.append(character)
    }
    return result
  }
}
