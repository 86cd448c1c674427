import CallAlertBridges
import CallAlertEngine
import CallAlertValues
import Synchronization

/// The config's SIP accounts as ring extensions: registered and kept registered (NUA refreshes before expiry;
/// after a failure, another attempt after ``ReconnectBackoff``'s wait), INVITEs from the registrar or a
/// trusted source answered 180 and turned into the engine's inputs in the order they came (anyone else's
/// refused 403, see ``SIPCallTracker``), every INVITE given a final answer at the latest once the cap passed,
/// each account's health kept for `callalert status`.
public final class SIPRingExtension<C: Clock>: Sendable where C.Duration == Duration {
  /// Something worth a log line, for the daemon to write under the account's name.
  public struct Report: Equatable, Sendable {
    /// How loud.
    public enum Level: Sendable { case debug, info, notice, warning }
    /// The account's name.
    public var account: String
    /// How loud.
    public var level: Level
    /// What happened.
    public var message: String
  }

  /// An account with its health.
  public struct AccountHealth: Equatable, Sendable {
    /// The account.
    public var account: SIPAccount
    /// Registered (`connected`), registering (`connecting`), or `failing` with the reason and next attempt.
    public var health: BridgeHealth
  }

  private struct Slot: Sendable {
    var tracker: SIPCallTracker
    var health: BridgeHealth
    var backoff = ReconnectBackoff()
    var nextAttempt: C.Instant?
    var registers: Bool
    /// The tracker's deadlines a wait is already set for.
    var waits: Set<UInt64> = []
  }

  /// The accounts, in the config's order.
  public let accounts: [SIPAccount]
  private let clock: C
  /// The tracker's `now` is milliseconds since this instant.
  private let start: C.Instant
  private let deliver: @Sendable (EngineInput, CallSource) async -> Void
  private let report: @Sendable (Report) -> Void
  private let slots: Mutex<[Slot]>

  /// Creates the extensions; nothing is sent until ``run()``.
  ///
  /// - Parameters:
  ///   - ringLimit: how long an INVITE may ring before its final answer (480): the engine's cap.
  ///   - deliver: takes the engine's inputs, one at a time, in the order the calls' events came, each with its
  ///     account's source (`sip:<account>`), which the call budget counts by.
  ///   - report: takes what is worth a log line; called on the SIP thread, so it must not block.
  public init(
    accounts: [SIPAccount], region: String, ringLimit: Duration = .seconds(30), clock: C,
    deliver: @escaping @Sendable (EngineInput, CallSource) async -> Void, report: @escaping @Sendable (Report) -> Void
  ) {
    self.accounts = accounts
    self.clock = clock
    start = clock.now
    let ringLimitMs = UInt64(Self.milliseconds(ringLimit))
    self.deliver = deliver
    self.report = report
    slots = Mutex(
      accounts.map {
        Slot(
          tracker: SIPCallTracker(account: $0, region: region, ringLimitMs: ringLimitMs),
          health: BridgeHealth(state: .connecting),
          registers: $0.registrar != nil)
      })
  }

  /// Each account's health, in the config's order.
  public func health() -> [AccountHealth] {
    let now = clock.now
    return slots.withLock { slots in
      zip(accounts, slots).map { account, slot in
        var health = slot.health
        if health.state == .failing, let next = slot.nextAttempt {
          health.nextAttemptIn = max(.zero, now.duration(to: next))
        }
        return AccountHealth(account: account, health: health)
      }
    }
  }

  /// Runs every account until cancelled; returns once sofia-sip's loop stopped.
  public func run() async {
    var stackAccounts: [SIPStackAccount] = []
    for (index, account) in accounts.enumerated() {
      var password: String?
      var registrar = account.registrarURI
      if let file = account.passwordFile {
        do {
          password = try SecretFile.read(file, holding: "the SIP password")
        } catch {
          // Without its password the account cannot register; it still answers INVITEs sent to it.
          registrar = nil
          fail(index, reason: error.description, retryIn: nil)
        }
      }
      stackAccounts.append(
        SIPStackAccount(
          bindURI: account.bindURI, registrarURI: registrar, addressOfRecord: account.addressOfRecord,
          user: account.user, authUser: account.authUser, password: password,
          outboundProxyURI: account.outboundProxyURI, expirySeconds: account.expirySeconds,
          keepaliveSeconds: account.keepaliveSeconds, certificateDirectory: account.certificateDirectory,
          verifyTLS: account.verifyTLS))
      if registrar == nil { slots.withLock { $0[index].registers = false } }
    }
    let (inputs, inputSink) = AsyncStream.makeStream(of: (input: EngineInput, source: CallSource).self)
    let (retries, retrySink) = AsyncStream.makeStream(of: (account: Int, delay: Duration).self)
    let (deadlines, deadlineSink) = AsyncStream.makeStream(of: (account: Int, at: UInt64).self)
    guard
      let stack = SIPStack(
        accounts: stackAccounts,
        handler: { [self] event in
          handle(event, inputs: inputSink, retries: retrySink, deadlines: deadlineSink)
        })
    else {
      for index in accounts.indices { fail(index, reason: "the SIP stack could not be created", retryIn: nil) }
      return
    }
    let deliver = deliver
    let clock = clock
    let start = start
    await withTaskGroup(of: Void.self) { group in
      group.addTask { [self] in
        await withTaskGroup(of: Void.self) { waits in
          for await deadline in deadlines {
            waits.addTask { [self] in
              let instant = start.advanced(by: .milliseconds(Int64(clamping: deadline.at)))
              guard (try? await clock.sleep(until: instant, tolerance: nil)) != nil else { return }
              expire(deadline.account, waitFor: deadline.at, stack: stack, inputs: inputSink, deadlines: deadlineSink)
            }
          }
          waits.cancelAll()
        }
      }
      group.addTask {
        for await (input, source) in inputs { await deliver(input, source) }
      }
      group.addTask {
        await withTaskGroup(of: Void.self) { waits in
          for await retry in retries {
            waits.addTask {
              guard (try? await clock.sleep(for: retry.delay)) != nil else { return }
              stack.register(account: retry.account)
            }
          }
          waits.cancelAll()
        }
      }
      if !(await stack.run()) {
        for index in accounts.indices { fail(index, reason: "sofia-sip could not start", retryIn: nil) }
      }
      inputSink.finish()
      retrySink.finish()
      deadlineSink.finish()
    }
  }

  /// A deadline of an account's tracker came: the final answers due, and the next wait.
  private func expire(
    _ index: Int, waitFor deadline: UInt64, stack: SIPStack,
    inputs: AsyncStream<(input: EngineInput, source: CallSource)>.Continuation,
    deadlines: AsyncStream<(account: Int, at: UInt64)>.Continuation
  ) {
    let now = milliseconds()
    let (decision, next) = slots.withLock { slots in
      slots[index].waits.remove(deadline)
      let decision = slots[index].tracker.expire(now: now)
      return (decision, scheduleNext(&slots[index]))
    }
    for answer in decision.finalAnswers { stack.answer(account: index, callID: answer.callID, status: answer.status) }
    for input in decision.inputs { inputs.yield((input, .sip(accounts[index].name))) }
    if let next { deadlines.yield((index, next)) }
    if let note = decision.note { say(index, .info, note) }
  }

  /// The tracker's next deadline when no wait is set for it yet (it then is).
  private func scheduleNext(_ slot: inout Slot) -> UInt64? {
    guard let next = slot.tracker.nextDeadline, !slot.waits.contains(next) else { return nil }
    slot.waits.insert(next)
    return next
  }

  /// Milliseconds since ``start``, the tracker's `now`.
  private func milliseconds() -> UInt64 { UInt64(Self.milliseconds(start.duration(to: clock.now))) }

  private static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return max(0, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
  }

  /// One event of the stack, on the SIP thread: the answer to an INVITE, the health, the log.
  private func handle(
    _ event: SIPStackEvent, inputs: AsyncStream<(input: EngineInput, source: CallSource)>.Continuation,
    retries: AsyncStream<(account: Int, delay: Duration)>.Continuation,
    deadlines: AsyncStream<(account: Int, at: UInt64)>.Continuation
  ) -> Int {
    switch event {
    case .started(let index, let address):
      let registers = slots.withLock { slots in
        if !slots[index].registers, slots[index].health.state == .connecting {
          slots[index].health = BridgeHealth(state: .connected)
        }
        return slots[index].registers
      }
      say(
        index, .info, "listening on \(address)\(registers ? ", registering at \(accounts[index].registrar ?? "")" : "")"
      )
    case .startFailed(let index, let reason):
      fail(index, reason: reason, retryIn: nil)
    case .registered(let index, let status, let phrase, let expires, let source):
      if (200..<300).contains(status) {
        let first = slots.withLock { slots in
          if let source { slots[index].tracker.trustRegistrar(at: source) }
          defer {
            slots[index].health = BridgeHealth(state: .connected)
            slots[index].backoff.reset()
            slots[index].nextAttempt = nil
          }
          return slots[index].health.state != .connected
        }
        say(
          index, first ? .notice : .debug,
          "registered as \(accounts[index].addressOfRecord) at \(accounts[index].registrar ?? "") for \(expires) s")
      } else {
        let delay = slots.withLock { $0[index].backoff.nextDelay() }
        fail(index, reason: "REGISTER failed: \(status) \(phrase)", retryIn: delay)
        retries.yield((index, delay))
      }
    case .call(let index, let callEvent):
      let now = milliseconds()
      let (decision, next) = slots.withLock { slots in
        let decision = slots[index].tracker.handle(callEvent, now: now)
        return (decision, scheduleNext(&slots[index]))
      }
      for input in decision.inputs { inputs.yield((input, .sip(accounts[index].name))) }
      if let next { deadlines.yield((index, next)) }
      if let note = decision.note {
        let refused = decision.answer.map { $0 >= 300 } == true || (decision.answer == nil && decision.inputs.isEmpty)
        say(index, refused ? .notice : .info, note)
      }
      return decision.answer ?? 180
    case .error(let index, let status, let phrase):
      say(index, .warning, "the SIP stack reports \(status) \(phrase)")
    case .log(let line):
      report(Report(account: "stack", level: Self.level(ofStackLine: line), message: "sofia-sip: \(line)"))
    }
    return 180
  }

  /// sofia-sip's diagnostics are debug detail (a missing `agent.pem` too: the extension needs no certificate of
  /// its own), except a registrar's certificate the TLS stack refused: that is why a TLS registration fails,
  /// and the user must see it.
  static func level(ofStackLine line: String) -> Report.Level {
    let lowered = line.lowercased()
    if lowered.contains("error with certificate") || lowered.contains("certificate verify failed")
      || (lowered.hasPrefix("  err ") && lowered.contains(":"))
    {
      return .warning
    }
    return .debug
  }

  private func fail(_ index: Int, reason: String, retryIn: Duration?) {
    let now = clock.now
    slots.withLock { slots in
      let failures = slots[index].health.failures + 1
      slots[index].health = BridgeHealth(state: .failing, reason: reason, nextAttemptIn: retryIn, failures: failures)
      slots[index].nextAttempt = retryIn.map { now.advanced(by: $0) }
    }
    let retry = retryIn.map { "; next attempt in \($0)" } ?? ""
    say(index, .warning, "\(reason)\(retry)")
  }

  private func say(_ index: Int, _ level: Report.Level, _ message: String) {
    report(Report(account: accounts[index].name, level: level, message: message))
  }
}
