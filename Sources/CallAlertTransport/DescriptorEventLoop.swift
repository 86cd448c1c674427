import CCallAlertEpoll
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One thread, blocked in epoll_wait(2), that tells descriptor channels (and other descriptor owners, through
/// ``DescriptorWatch``) when their descriptors are ready.
///
/// Why not dispatch sources: libdispatch on Linux keeps one epoll registration per descriptor number for all
/// its sources, re-arms it after each event on a worker thread, and unregisters a cancelled source some time
/// after `cancel()` returns. A channel that closed its descriptor in the cancel handler still crashed now and
/// then inside `_dispatch_event_loop_drain` under load (the stress test and the latency benchmark saw it),
/// and every read went epoll thread -> worker -> channel queue. Here the owner holds its registration: it adds
/// it, changes it, and deletes it before close(2). Events name a registration by a number that is never
/// reused, not by its descriptor, so an event that was already on its way when the owner closed finds nobody
/// and is dropped, even if the descriptor's number now belongs to someone else.
///
/// The thread sleeps in epoll_wait with no timeout: idle descriptors cost no wake-ups at all.
final class DescriptorEventLoop: Sendable {
  /// The loop the whole process shares; its thread starts with the first registration.
  static let shared = DescriptorEventLoop()

  /// What a registration does with the events reported for it, on the loop's thread. It must not block.
  typealias Handler = @Sendable (DescriptorEvents) -> Void

  private let epoll: CInt
  private let handlers = Mutex<[UInt64: Handler]>([:])
  private let lastID = Atomic<UInt64>(0)

  private init() {
    epoll = callalert_epoll_create()
    precondition(epoll >= 0, "epoll_create1 failed, errno \(errno)")  // only without memory or descriptors
    let box = Unmanaged.passRetained(self)
    var thread = pthread_t()
    let created = pthread_create(
      &thread, nil,
      { argument in
        let loop = Unmanaged<DescriptorEventLoop>.fromOpaque(argument!).takeRetainedValue()
        loop.run()
        return nil
      }, box.toOpaque())
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_detach(thread)
  }

  /// A number for a new registration, never given out twice.
  func makeID() -> UInt64 {
    lastID.wrappingAdd(1, ordering: .relaxed).newValue
  }

  /// Starts watching `descriptor` for `interest`; the loop holds `handler` (and what it captures) until
  /// ``remove(_:descriptor:)``.
  func add(id: UInt64, descriptor: FileDescriptor, interest: Interest, handler: @escaping Handler) throws(Errno) {
    handlers.withLock { $0[id] = handler }
    do throws(Errno) {
      try control(CInt(CALLALERT_EPOLL_ADD), id: id, descriptor: descriptor, interest: interest)
    } catch {
      _ = handlers.withLock { $0.removeValue(forKey: id) }
      throw error
    }
  }

  /// Changes what `descriptor` is watched for (and, for a one-shot registration, arms it again).
  func modify(id: UInt64, descriptor: FileDescriptor, interest: Interest) throws(Errno) {
    try control(CInt(CALLALERT_EPOLL_MOD), id: id, descriptor: descriptor, interest: interest)
  }

  /// Stops watching `descriptor` and lets the handler go. The caller closes the descriptor afterwards; no
  /// event reaches the handler once this returned, except one the loop's thread was already handing over.
  func remove(_ id: UInt64, descriptor: FileDescriptor) {
    // Errors are ignored: the registration is gone either way once the descriptor is closed.
    _ = callalert_epoll_control(epoll, CInt(CALLALERT_EPOLL_DEL), descriptor.rawValue, 0, id)
    _ = handlers.withLock { $0.removeValue(forKey: id) }
  }

  /// What a registration waits for.
  struct Interest {
    var readable: Bool
    var writable: Bool
    /// Reported once, then disabled until modified again (EPOLLONESHOT).
    var once = false
  }

  private func control(_ operation: CInt, id: UInt64, descriptor: FileDescriptor, interest: Interest) throws(Errno) {
    var events: UInt32 = 0
    if interest.readable { events |= UInt32(CALLALERT_EPOLL_IN) }
    if interest.writable { events |= UInt32(CALLALERT_EPOLL_OUT) }
    if interest.once { events |= UInt32(CALLALERT_EPOLL_ONESHOT) }
    guard callalert_epoll_control(epoll, operation, descriptor.rawValue, events, id) == 0 else {
      throw Errno(rawValue: errno)
    }
  }

  private func run() {
    let capacity = 64
    let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
    let ids = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    while true {
      let count = callalert_epoll_wait(epoll, events, ids, CInt(capacity), -1)
      if count < 0 {
        precondition(errno == EINTR, "epoll_wait failed, errno \(errno)")
        continue
      }
      for index in 0..<Int(count) {
        // Looked up now, not remembered: a registration removed since epoll_wait returned is simply gone.
        guard let handler = handlers.withLock({ $0[ids[index]] }) else { continue }
        handler(DescriptorEvents(rawValue: events[index]))
      }
    }
  }
}

/// What epoll reported for a descriptor.
public struct DescriptorEvents: Sendable {
  let rawValue: UInt32

  /// Bytes to read, or the end of the input (a read then says which).
  public var readable: Bool { rawValue & UInt32(CALLALERT_EPOLL_IN) != 0 }
  /// Room to write.
  public var writable: Bool { rawValue & UInt32(CALLALERT_EPOLL_OUT) != 0 }
  /// The other side hung up, or the descriptor has an error pending: a read or write will say which.
  public var hungUp: Bool { rawValue & UInt32(CALLALERT_EPOLL_HUP | CALLALERT_EPOLL_ERR) != 0 }
}
