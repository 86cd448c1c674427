internal import NIOCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How many HTTP connections (server-sent event streams included) are open, against the most the API may
/// hold: a flood of idle connections takes at most these descriptors, so the boards, the history, the control
/// socket (which keeps its own 32 in reserve) and the SIP and MQTT sources always find theirs.
final class ConnectionBudget: Sendable {
  /// The most connections at once.
  let limit: Int
  private let open = Mutex(0)
  private let refusals = Mutex(0)

  /// A budget of `configured` connections, lowered to leave at least `reserve` of the process's descriptors
  /// (its soft `RLIMIT_NOFILE`) to everything else.
  init(configured: Int, reserve: Int = 256) {
    var limits = rlimit()
    #if canImport(Glibc)
      let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
      let resource = RLIMIT_NOFILE
    #endif
    let soft = getrlimit(resource, &limits) == 0 ? Int(clamping: limits.rlim_cur) : Int.max
    limit = max(1, min(configured, soft == Int.max ? configured : soft - reserve))
  }

  /// Takes a place; false when every place is taken (the connection is then closed at once).
  func take() -> Bool {
    let taken = open.withLock { open in
      guard open < limit else { return false }
      open += 1
      return true
    }
    if !taken { refusals.withLock { $0 += 1 } }
    return taken
  }

  /// Gives a place back.
  func give() { open.withLock { $0 -= 1 } }

  /// Connections open now.
  var inUse: Int { open.withLock { $0 } }

  /// Connections refused so far; the count of the first refusal is 1.
  var refused: Int { refusals.withLock { $0 } }
}

/// Holds a place of the ``ConnectionBudget`` for as long as its connection is open, and closes a connection
/// that finds none before a byte of it is read. One per connection, first of the HTTP/1 pipeline's additional
/// handlers.
final class ConnectionBudgetHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let budget: ConnectionBudget
  private let refused: @Sendable (Int) -> Void
  private var holds = false

  /// `refused` is told the count of refusals so far, each time one more is refused.
  init(budget: ConnectionBudget, refused: @escaping @Sendable (Int) -> Void) {
    self.budget = budget
    self.refused = refused
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { admit(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    if !holds { admit(context) }
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    release()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) { release() }

  private func admit(_ context: ChannelHandlerContext) {
    if budget.take() {
      holds = true
    } else {
      refused(budget.refused)
      context.close(promise: nil)
    }
  }

  private func release() {
    guard holds else { return }
    holds = false
    budget.give()
  }
}
