import CallAlertControl
internal import NIOCore

/// Holds a place of the ``ConnectionBudget`` for as long as its connection is open, and closes a connection
/// that finds none before a byte of it is read. One per connection, first of the HTTP/1 pipeline's additional
/// handlers.
final class ConnectionBudgetHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let budget: ConnectionBudget
  private let refused: @Sendable () -> Void
  private var holds = false

  /// `refused` is told each connection closed for want of a place.
  init(budget: ConnectionBudget, refused: @escaping @Sendable () -> Void) {
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
    if budget.take(.http) {
      holds = true
    } else {
      refused()
      context.close(promise: nil)
    }
  }

  private func release() {
    guard holds else { return }
    holds = false
    budget.give(.http)
  }
}
