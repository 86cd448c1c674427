internal import HTTPTypes
internal import NIOCore
internal import NIOHTTPTypes

/// Ends a connection whose response was written while its request's body was still to come: a refusal
/// (401, 413, a signature that does not match) is judged from the headers alone, and the body it refused
/// must not be read after it either.
///
/// Without this, the server read the rest of the body after answering (to find the next request on the
/// connection): a stranger who declared 1 GB was answered 401 at once, and then had the daemon read and drop
/// its gigabyte. Here the response's head gets `Connection: close`; once its end is flushed, reading stops,
/// the connection's sending side is shut (the client sees the answer and the end of it), and the connection
/// is closed ``lingering`` later, so a client still sending reads the answer before the reset its next bytes
/// cause. A request whose body came whole before the answer keeps its connection.
///
/// One per connection, in the HTTP/1 pipeline after the codec (`HTTP1Channel`'s additional handlers).
final class UnreadBodyGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// How long the connection stays half-closed after the answer before it is closed.
  static let lingering: TimeAmount = .milliseconds(500)

  /// A request's head came and its end has not.
  private var requestOpen = false
  /// The answer to a request whose body is still to come is being written: nothing more is read.
  private var closing = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }  // what was already read with the refused request's head: dropped
    switch unwrapInboundIn(data) {
    case .head: requestOpen = true
    case .body: break
    case .end: requestOpen = false
    }
    context.fireChannelRead(data)
  }

  func read(context: ChannelHandlerContext) {
    if !closing { context.read() }
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(var head) where requestOpen && !closing && head.status.kind != .informational:
      closing = true
      head.headerFields[.connection] = "close"
      context.write(wrapOutboundOut(.head(head)), promise: promise)
    case .end where closing:
      let flushed = context.eventLoop.makePromise(of: Void.self)
      flushed.futureResult.cascade(to: promise)
      context.writeAndFlush(data, promise: flushed)
      flushed.futureResult.assumeIsolated().whenComplete { _ in
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingering) {
          context.close(promise: nil)
        }
      }
    default:
      context.write(data, promise: promise)
    }
  }
}
