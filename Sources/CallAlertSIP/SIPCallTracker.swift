import CallAlertEngine
import CallAlertValues

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
  /// The numeric address it came from; nil when the stack could not tell (then it is nobody's).
  public var source: String?

  /// Creates an INVITE.
  public init(
    callID: String, fromTag: String? = nil, fromUser: String? = nil, fromDisplay: String? = nil,
    assertedUser: String? = nil, assertedDisplay: String? = nil, remotePartyUser: String? = nil,
    remotePartyDisplay: String? = nil, toUser: String? = nil, requestUser: String? = nil, source: String? = nil
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
    self.source = source
  }
}

/// What the SIP stack saw happen to a call.
public enum SIPCallEvent: Equatable, Sendable {
  /// An INVITE (a new call, or another copy of one).
  case invite(SIPInvite)
  /// The caller cancelled the INVITE; `reasonCause` is its `Reason: SIP;cause=N` (RFC 3326), nil without;
  /// `source` the CANCEL's sender.
  case cancel(callID: String, reasonCause: Int?, source: String?)
  /// The INVITE's transaction ended otherwise (a BYE, a timeout, a refusal), with the final status;
  /// `byeSource` is the BYE's sender when a BYE ended it ("" when its address was unknown), nil otherwise.
  case terminated(callID: String, status: Int, byeSource: String?)
}

/// A final answer the stack should give every pending copy of a call.
public struct SIPFinalAnswer: Equatable, Sendable {
  /// The call's Call-ID.
  public var callID: String
  /// The status: 480 once the cap passed.
  public var status: Int

  /// Creates a final answer.
  public init(callID: String, status: Int) {
    self.callID = callID
    self.status = status
  }
}

/// Follows one SIP account's incoming calls and says what each means for the engine: a pure state machine,
/// tested without sockets, with time as data (`now`, monotonic milliseconds).
///
/// Only the account's registrar (the addresses its REGISTER answers came from, or a literal address in
/// `registrar:`) and its `trusted` sources may ring it: an INVITE from anyone else is refused 403 and rings
/// nothing, and a CANCEL or BYE from anyone else ends nothing. What a trusted source asserts is believed:
/// P-Asserted-Identity, then Remote-Party-ID, then From give the caller (RFC 3325's trust domain).
///
/// An INVITE rings (`.call`) and is answered 180 Ringing, never 200: the extension only rings. A second copy
/// of an INVITE with the same Call-ID and From tag (a proxy forked it, or it came over two paths) is the same
/// call; a retransmission never gets here (the transaction layer absorbs it). A CANCEL with
/// `Reason: SIP;cause=200` ("call completed elsewhere") means someone else in the group answered; without it,
/// the caller gave up and the call is missed. An INVITE for a user the account does not serve is answered
/// 404; one its rules hold back still gets 180, so the group sees a ringing extension, and rings nothing.
///
/// Every INVITE ends: one still pending when the ring limit (the engine's cap) has passed is given
/// `480 Temporarily Unavailable` (the engine already stopped it as missed), and a new INVITE when
/// ``maximumCalls`` are pending gets `486 Busy Here`; a call whose end never came back from the stack is
/// forgotten ``forgetAfterMs`` after its answer, so nothing is kept for ever.
public struct SIPCallTracker: Sendable {
  /// What the stack should answer an INVITE with, and what the engine should hear.
  public struct Decision: Equatable, Sendable {
    /// The status to answer an INVITE with (180 or a refusal); nil for other events.
    public var answer: Int?
    /// The engine's inputs, in order.
    public var inputs: [EngineInput]
    /// Final answers to give calls still pending (the cap passed).
    public var finalAnswers: [SIPFinalAnswer]
    /// What happened, for the log; nil when nothing worth a line did (or a refusal already logged lately).
    public var note: String?

    /// Creates a decision.
    public init(
      answer: Int? = nil, inputs: [EngineInput] = [], finalAnswers: [SIPFinalAnswer] = [], note: String? = nil
    ) {
      self.answer = answer
      self.inputs = inputs
      self.finalAnswers = finalAnswers
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
    /// When it gets its final answer (the first copy's arrival plus the ring limit).
    var answerAt: UInt64
    /// Whether the final answer was asked for.
    var answered = false
  }

  /// Refusals of one source, so a flood is one log line a minute, with its count.
  private struct RefusalLog: Sendable {
    var source: String
    var notedAt: UInt64
    var unnoted: Int
  }

  /// The account.
  public let account: SIPAccount
  /// The region numbers without a country code are read in (for the rules' caller numbers).
  public let region: String
  /// How long an INVITE may ring before its final answer, in milliseconds (the engine's cap).
  public let ringLimitMs: UInt64
  private var entries: [Entry] = []
  private var registrarAddresses: [AddressRange]
  private var refusals: [RefusalLog] = []

  /// The most calls followed at once; a new INVITE beyond gets 486 Busy Here. The engine's share for one
  /// source: an INVITE the engine would refuse is told so, instead of a 180 for a call that rings nothing.
  public static let maximumCalls = AlertEngine.maximumActiveCallsPerSource
  /// How long after its final answer a call whose end never came is forgotten (SIP's 64×T1 is 32 s).
  public static let forgetAfterMs: UInt64 = 40_000
  /// A source's refusals are logged at most once in this time, with the count of the others.
  public static let refusalLogIntervalMs: UInt64 = 60_000
  /// The most sources whose refusals are counted apart; the oldest is forgotten beyond.
  public static let maximumRefusalLogs = 64

  /// Creates a tracker for an account; `ringLimitMs` is the engine's cap (30 s by default).
  public init(account: SIPAccount, region: String, ringLimitMs: UInt64 = 30_000) {
    self.account = account
    self.region = region
    self.ringLimitMs = ringLimitMs
    // A registrar written as an address is trusted from the start; a name's addresses are learned from where
    // its answers come from.
    registrarAddresses = account.registrar.flatMap { AddressRange(parsing: Self.bareHost(of: $0)) }.map { [$0] } ?? []
  }

  /// The engine's id for a Call-ID: the account's name first, so two accounts never share one.
  public func engineID(_ callID: String) -> String { "\(account.name):\(callID)" }

  /// The calls followed, oldest first, with whether each still rings.
  public var calls: [(callID: String, ringing: Bool)] { entries.map { ($0.callID, $0.rings && !$0.ended) } }

  /// When ``expire(now:)`` next has something to do; nil when no call waits for a final answer or to be
  /// forgotten.
  public var nextDeadline: UInt64? {
    entries.map { $0.answered ? $0.answerAt + Self.forgetAfterMs : $0.answerAt }.min()
  }

  /// Notes where the registrar answered from: INVITEs from there are trusted.
  public mutating func trustRegistrar(at address: String) {
    guard account.registrar != nil, let range = AddressRange(parsing: address),
      !registrarAddresses.contains(range)
    else { return }
    if registrarAddresses.count >= 8 { registrarAddresses.removeFirst() }
    registrarAddresses.append(range)
  }

  /// Whether a message from this address may ring, end or name a call: the registrar's or a trusted one.
  public func isTrusted(_ source: String?) -> Bool {
    guard let source, !source.isEmpty else { return false }
    return registrarAddresses.contains { $0.contains(source) } || account.trusted.contains { $0.contains(source) }
  }

  /// Takes one event at `now`; returns the answer and the engine's inputs.
  public mutating func handle(_ event: SIPCallEvent, now: UInt64) -> Decision {
    switch event {
    case .invite(let invite):
      guard isTrusted(invite.source) else { return refused(invite, now: now) }
      return invited(invite, now: now)
    case .cancel(let callID, let cause, let source):
      guard isTrusted(source) else { return ignoredEnd(callID, what: "CANCEL", from: source, now: now) }
      return finished(callID, answeredElsewhere: cause == 200, why: "cancelled")
    case .terminated(let callID, let status, let byeSource):
      if let byeSource, !isTrusted(byeSource) {
        // The stack ended the INVITE, so the entry goes; the engine rings on to its cap instead.
        var decision = ignoredEnd(callID, what: "BYE", from: byeSource, now: now)
        decision.inputs = []
        dropCopy(callID)
        return decision
      }
      return finished(callID, answeredElsewhere: false, why: "ended with \(status)")
    }
  }

  /// The final answers due at `now` (480 for a call pending past the ring limit) and the calls forgotten.
  public mutating func expire(now: UInt64) -> Decision {
    var decision = Decision()
    for index in entries.indices where !entries[index].answered && entries[index].answerAt <= now {
      entries[index].answered = true
      // The engine stopped it at its cap and recorded it missed; the stack's end of it adds nothing.
      entries[index].ended = true
      decision.finalAnswers.append(SIPFinalAnswer(callID: entries[index].callID, status: 480))
    }
    entries.removeAll { $0.answered && $0.answerAt + Self.forgetAfterMs <= now }
    if !decision.finalAnswers.isEmpty {
      decision.note =
        "answered 480 to \(decision.finalAnswers.map(\.callID).joined(separator: ", ")): rang past the cap"
    }
    return decision
  }

  private mutating func refused(_ invite: SIPInvite, now: UInt64) -> Decision {
    let source = invite.source ?? "an unknown address"
    return Decision(
      answer: 403,
      note: noteRefusal(
        from: source, now: now,
        "refused an INVITE from \(source) with 403: not the registrar and not in 'trusted:'"))
  }

  private mutating func ignoredEnd(_ callID: String, what: String, from source: String?, now: UInt64) -> Decision {
    let source = source.flatMap { $0.isEmpty ? nil : $0 } ?? "an unknown address"
    return Decision(
      note: noteRefusal(
        from: source, now: now,
        "ignored a \(what) for call \(callID) from \(source): not the registrar and not in 'trusted:'"))
  }

  /// The line to log for a refusal, or nil when this source's refusals were logged less than a minute ago.
  private mutating func noteRefusal(from source: String, now: UInt64, _ line: String) -> String? {
    if let index = refusals.firstIndex(where: { $0.source == source }) {
      guard now >= refusals[index].notedAt + Self.refusalLogIntervalMs else {
        refusals[index].unnoted += 1
        return nil
      }
      let others = refusals[index].unnoted
      refusals[index].notedAt = now
      refusals[index].unnoted = 0
      return others == 0 ? line : "\(line) (and \(others) more from there in the last minute or more)"
    }
    if refusals.count >= Self.maximumRefusalLogs { refusals.removeFirst() }
    refusals.append(RefusalLog(source: source, notedAt: now, unnoted: 0))
    return line
  }

  private mutating func invited(_ invite: SIPInvite, now: UInt64) -> Decision {
    if let index = entries.firstIndex(where: { $0.callID == invite.callID && $0.fromTag == invite.fromTag }) {
      entries[index].copies += 1
      if entries[index].answered {
        return Decision(answer: 480, note: "another copy of call \(invite.callID), past the cap: 480")
      }
      return Decision(answer: 180, note: "another copy of call \(invite.callID)")
    }
    guard serves(invite) else {
      let user = invite.requestUser ?? invite.toUser ?? "?"
      return Decision(answer: 404, note: "refused call \(invite.callID) for unknown user \(user) with 404")
    }
    guard entries.count < Self.maximumCalls else {
      return Decision(
        answer: 486,
        note: noteRefusal(
          from: "(busy)", now: now,
          "refused call \(invite.callID) with 486 Busy Here: \(Self.maximumCalls) calls are already pending"))
    }
    var decision = Decision(answer: 180)
    let answerAt = now + ringLimitMs
    let caller = Self.caller(of: invite)
    let called = calledNumber(of: invite)
    var chosen: BridgeFilter?
    if !account.rules.isEmpty {
      guard let index = account.rules.firstIndex(where: { matches($0, called: called, caller: caller.number) }) else {
        entries.append(
          Entry(
            callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: false, ended: false, answerAt: answerAt))
        decision.note = "call \(invite.callID) to \(called ?? "?") rings nothing: no rule matches"
        return decision
      }
      if account.rules[index].ignore {
        entries.append(
          Entry(
            callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: false, ended: false, answerAt: answerAt))
        decision.note = "call \(invite.callID) to \(called ?? "?") rings nothing: rule \(index) ignores it"
        return decision
      }
      chosen = account.rules[index]
    }
    entries.append(
      Entry(callID: invite.callID, fromTag: invite.fromTag, copies: 1, rings: true, ended: false, answerAt: answerAt))
    decision.inputs.append(
      .call(
        IncomingCall(
          id: engineID(invite.callID), callerNumber: caller.number, callerName: caller.name,
          patternHint: chosen?.pattern, boards: chosen.flatMap { $0.boards.isEmpty ? nil : $0.boards },
          source: .sip(account.name))))
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
    dropCopy(callID)
    return decision
  }

  /// One copy of the call is gone; the call with its last.
  private mutating func dropCopy(_ callID: String) {
    guard let index = entries.firstIndex(where: { $0.callID == callID }) else { return }
    entries[index].copies -= 1
    if entries[index].copies <= 0 { entries.remove(at: index) }
  }

  /// `192.0.2.1` of `192.0.2.1:5060`, `2001:db8::1` of `[2001:db8::1]:5060`.
  static func bareHost(of hostAndPort: String) -> String {
    if hostAndPort.hasPrefix("["), let end = hostAndPort.firstIndex(of: "]") {
      return String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<end])
    }
    return String(hostAndPort.prefix { $0 != ":" })
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
