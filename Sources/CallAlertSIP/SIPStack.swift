internal import CCallAlertSIP
// Full Foundation, not FoundationEssentials: Thread.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the C stack reported, copied out of its callback.
enum SIPStackEvent: Equatable, Sendable {
  /// An account's user agent listens at this address.
  case started(account: Int, address: String)
  /// An account's user agent could not be created.
  case startFailed(account: Int, reason: String)
  /// A REGISTER's final answer (or a local failure: 408, 503); `expires` on success; `source` the address
  /// the answer came from (the registrar, or the outbound proxy in front of it).
  case registered(account: Int, status: Int, phrase: String, expires: Int, source: String?)
  /// A call's event.
  case call(account: Int, SIPCallEvent)
  /// An error the stack reports.
  case error(account: Int, status: Int, phrase: String)
  /// A line sofia-sip logged.
  case log(String)
}

/// One account as the C stack takes it.
struct SIPStackAccount: Sendable {
  var bindURI: String
  var registrarURI: String?
  var addressOfRecord: String
  var user: String
  var authUser: String?
  var password: String?
  var outboundProxyURI: String?
  var expirySeconds: Int
  var keepaliveSeconds: Int
  var certificateDirectory: String?
  var verifyTLS: Bool
}

/// sofia-sip's user agent for a set of accounts, in a thread of its own that blocks in sofia's event loop
/// (no polling: idle costs no CPU). Events come back through `handler`, on that thread; for an INVITE the
/// handler's result is the status to answer with.
final class SIPStack: Sendable {
  typealias Handler = @Sendable (SIPStackEvent) -> Int

  /// The C stack; touched by other threads only through its thread-safe register and stop calls.
  private nonisolated(unsafe) let stack: OpaquePointer
  private let box: Unmanaged<HandlerBox>
  private let state = Mutex(State.idle)

  private enum State { case idle, running, finished }

  private final class HandlerBox: Sendable {
    let handler: Handler
    init(_ handler: @escaping Handler) { self.handler = handler }
  }

  /// Creates the stack; nil when the C side could not (out of memory, no pipe).
  init?(accounts: [SIPStackAccount], handler: @escaping Handler) {
    let box = Unmanaged.passRetained(HandlerBox(handler))
    var copies: [UnsafeMutablePointer<CChar>?] = []
    func c(_ text: String?) -> UnsafePointer<CChar>? {
      guard let text else { return nil }
      let copy = strdup(text)
      copies.append(copy)
      return UnsafePointer(copy)
    }
    var cAccounts = accounts.map { account in
      callalert_sip_account(
        bind_url: c(account.bindURI), registrar: c(account.registrarURI), aor: c(account.addressOfRecord),
        contact_user: c(account.user), auth_user: c(account.authUser), password: c(account.password),
        outbound_proxy: c(account.outboundProxyURI), expires: UInt32(clamping: account.expirySeconds),
        keepalive_ms: UInt32(clamping: account.keepaliveSeconds * 1_000),
        certificate_dir: c(account.certificateDirectory), verify: account.verifyTLS ? 1 : 0)
    }
    let created = cAccounts.withUnsafeMutableBufferPointer { buffer in
      callalert_sip_stack_create(buffer.baseAddress, Int32(buffer.count), SIPStack.callback, box.toOpaque())
    }
    for copy in copies {
      if let copy {
        memset(copy, 0, strlen(copy))  // the password among them
        free(copy)
      }
    }
    guard let created else {
      box.release()
      return nil
    }
    self.stack = created
    self.box = box
  }

  deinit {
    // The loop's thread holds `self` until the loop returned, so the C stack is idle here.
    callalert_sip_stack_destroy(stack)
    box.release()
  }

  /// Runs the loop in its own thread until ``stop()`` (or this task's cancellation); false when sofia-sip
  /// could not start at all.
  func run() async -> Bool {
    let first = state.withLock { state in
      defer { if state == .idle { state = .running } }
      return state == .idle
    }
    guard first else { return false }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let thread = Thread { [self] in
          let result = callalert_sip_stack_run(stack)
          state.withLock { $0 = .finished }
          continuation.resume(returning: result == 0)
        }
        thread.name = "callalert-sip"
        thread.start()
      }
    } onCancel: {
      stop()
    }
  }

  /// Asks the loop to register one account again (after a failure's backoff). Safe from any thread.
  func register(account: Int) { callalert_sip_stack_register(stack, Int32(account)) }

  /// Asks the loop to give every pending copy of a call a final answer. Safe from any thread.
  func answer(account: Int, callID: String, status: Int) {
    callalert_sip_stack_answer(stack, Int32(account), callID, Int32(status))
  }

  /// Asks the loop to unregister, shut down and return. Safe from any thread.
  func stop() { callalert_sip_stack_stop(stack) }

  private static let callback: callalert_sip_callback = { context, event in
    guard let context, let event else { return 500 }
    let box = Unmanaged<HandlerBox>.fromOpaque(context).takeUnretainedValue()
    guard let converted = SIPStackEvent(event.pointee) else { return 500 }
    return Int32(clamping: box.handler(converted))
  }
}

extension SIPStackEvent {
  /// The event in Swift values; nil for one the stack should never send.
  fileprivate init?(_ event: callalert_sip_event) {
    func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    let account = Int(event.account)
    let phrase = text(event.phrase) ?? ""
    switch event.kind {
    case CALLALERT_SIP_STARTED: self = .started(account: account, address: phrase)
    case CALLALERT_SIP_START_FAILED: self = .startFailed(account: account, reason: phrase)
    case CALLALERT_SIP_REGISTERED:
      self = .registered(
        account: account, status: Int(event.status), phrase: phrase, expires: Int(event.expires),
        source: text(event.source))
    case CALLALERT_SIP_INVITE:
      guard let callID = text(event.call_id) else { return nil }
      self = .call(
        account: account,
        .invite(
          SIPInvite(
            callID: callID, fromTag: text(event.from_tag), fromUser: text(event.from_user),
            fromDisplay: text(event.from_display), assertedUser: text(event.asserted_user),
            assertedDisplay: text(event.asserted_display), remotePartyUser: text(event.remote_party_user),
            remotePartyDisplay: text(event.remote_party_display), toUser: text(event.to_user),
            requestUser: text(event.request_user), source: text(event.source))))
    case CALLALERT_SIP_CANCEL:
      guard let callID = text(event.call_id) else { return nil }
      self = .call(
        account: account,
        .cancel(
          callID: callID, reasonCause: event.reason_cause == 0 ? nil : Int(event.reason_cause),
          source: text(event.source)))
    case CALLALERT_SIP_TERMINATED:
      guard let callID = text(event.call_id) else { return nil }
      self = .call(
        account: account,
        .terminated(callID: callID, status: Int(event.status), byeSource: text(event.source)))
    case CALLALERT_SIP_ERROR: self = .error(account: account, status: Int(event.status), phrase: phrase)
    case CALLALERT_SIP_LOG: self = .log(phrase)
    default: return nil
    }
  }
}
