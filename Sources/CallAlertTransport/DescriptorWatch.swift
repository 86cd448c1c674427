import Synchronization
import SystemPackage

/// A descriptor watched by the process's event loop on behalf of an owner that does its own reading and
/// writing, such as a control-socket connection that reads only when asked (backpressure).
///
/// The watch is one-shot: ``arm(readable:writable:)`` asks for one report, when the descriptor is readable,
/// writable or hung up, and the owner arms it again when it wants the next. An owner that stopped asking gets
/// nothing, even from a client that hung up (a level-triggered hang-up would otherwise be reported for ever).
///
/// Closing, the rule that keeps the event loop and close(2) apart: the owner calls ``cancel()`` and only then
/// closes the descriptor. A report the loop's thread was already handing over may still reach the handler
/// after `cancel()` returned, so the handler must check, under the owner's own lock or queue, that the
/// descriptor is still open before touching it (``DescriptorChannel`` does the same under its lock).
public final class DescriptorWatch: Sendable {
  private let descriptor: FileDescriptor
  private let registration: UInt64
  private let loop: DescriptorEventLoop
  private let state = Mutex(Phase.idle)

  private enum Phase {
    case idle  // not registered yet: nothing asked for so far
    case registered
    case cancelled
  }

  /// Watches `descriptor` (which the owner keeps and closes) and calls `handler` on the event loop's thread
  /// with each report. The handler must not block: it hands the work to the owner's queue or task.
  public init(_ descriptor: FileDescriptor, handler: @escaping @Sendable (DescriptorEvents) -> Void) {
    self.descriptor = descriptor
    loop = DescriptorEventLoop.shared
    registration = loop.makeID()
    self.handler = handler
  }

  private let handler: @Sendable (DescriptorEvents) -> Void

  /// Asks for one report when the descriptor is readable (`readable`), has room to write (`writable`), or hung
  /// up. Does nothing after ``cancel()``, or when asking for neither.
  ///
  /// - Throws: The `Errno` of epoll_ctl(2), such as EPERM for a regular file.
  public func arm(readable: Bool, writable: Bool) throws(Errno) {
    guard readable || writable else { return }
    let interest = DescriptorEventLoop.Interest(readable: readable, writable: writable, once: true)
    try state.withLock { (phase: inout Phase) throws(Errno) in
      switch phase {
      case .cancelled: return
      case .idle:
        try loop.add(id: registration, descriptor: descriptor, interest: interest, handler: handler)
        phase = .registered
      case .registered:
        try loop.modify(id: registration, descriptor: descriptor, interest: interest)
      }
    }
  }

  /// Stops watching for good; call it before closing the descriptor. Calling it again does nothing.
  public func cancel() {
    state.withLock { phase in
      if phase == .registered { loop.remove(registration, descriptor: descriptor) }
      phase = .cancelled
    }
  }
}
