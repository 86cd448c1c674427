import CCallAlertEpoll
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One thread, blocked in epoll_wait(2), that tells descriptor channels when their descriptors are ready.
///
/// Why not dispatch sources: libdispatch on Linux keeps one epoll registration per descriptor number for all
/// its sources, re-arms it after each event on a worker thread, and unregisters a cancelled source some time
/// after `cancel()` returns. A channel that closed its descriptor in the cancel handler still crashed now and
/// then inside `_dispatch_event_loop_drain` under load (the stress test and the latency benchmark saw it),
/// and every read went epoll thread -> worker -> channel queue. Here the channel owns its registration: it
/// adds it when it opens, changes it when a write waits for room, and deletes it, under its own lock, before
/// close(2). Events name a channel by a number that is never reused, not by its descriptor, so an event that
/// was already on its way when the channel closed finds nobody and is dropped, even if the descriptor's number
/// now belongs to another channel.
///
/// The thread sleeps in epoll_wait with no timeout: an idle daemon's channels cost no wake-ups at all.
final class DescriptorEventLoop: Sendable {
  /// The loop every channel of the process shares; its thread starts with the first channel.
  static let shared = DescriptorEventLoop()

  private let epoll: CInt
  private let channels = Mutex<[UInt64: DescriptorChannel]>([:])
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

  /// A number for a new channel's registration, never given out twice.
  func makeID() -> UInt64 {
    lastID.wrappingAdd(1, ordering: .relaxed).newValue
  }

  /// Starts watching `descriptor` for input and hang-ups on behalf of `channel`; the loop holds the channel
  /// until ``remove(_:descriptor:)``.
  func add(_ channel: DescriptorChannel, id: UInt64, descriptor: FileDescriptor) throws(Errno) {
    channels.withLock { $0[id] = channel }
    do throws(Errno) {
      try control(CInt(CALLALERT_EPOLL_ADD), id: id, descriptor: descriptor, writable: false)
    } catch {
      _ = channels.withLock { $0.removeValue(forKey: id) }
      throw error
    }
  }

  /// Watches `descriptor` for room to write as well (`writable`), or for input only.
  func watch(id: UInt64, descriptor: FileDescriptor, writable: Bool) throws(Errno) {
    try control(CInt(CALLALERT_EPOLL_MOD), id: id, descriptor: descriptor, writable: writable)
  }

  /// Stops watching `descriptor` and lets the channel go. The caller closes the descriptor afterwards; no
  /// event reaches the channel once this returned.
  func remove(_ id: UInt64, descriptor: FileDescriptor) {
    // Errors are ignored: the registration is gone either way once the descriptor is closed.
    _ = callalert_epoll_control(epoll, CInt(CALLALERT_EPOLL_DEL), descriptor.rawValue, 0, id)
    _ = channels.withLock { $0.removeValue(forKey: id) }
  }

  private func control(_ operation: CInt, id: UInt64, descriptor: FileDescriptor, writable: Bool) throws(Errno) {
    var events = UInt32(CALLALERT_EPOLL_IN)
    if writable { events |= UInt32(CALLALERT_EPOLL_OUT) }
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
        // Looked up now, not remembered: a channel removed since epoll_wait returned is simply gone.
        guard let channel = channels.withLock({ $0[ids[index]] }) else { continue }
        channel.handle(DescriptorEvents(rawValue: events[index]))
      }
    }
  }
}

/// What epoll reported for a descriptor.
struct DescriptorEvents {
  let rawValue: UInt32

  /// Bytes to read, or the end of the input (a read then says which).
  var readable: Bool { rawValue & UInt32(CALLALERT_EPOLL_IN) != 0 }
  /// Room to write.
  var writable: Bool { rawValue & UInt32(CALLALERT_EPOLL_OUT) != 0 }
  /// The other side hung up, or the descriptor has an error pending.
  var hungUp: Bool { rawValue & UInt32(CALLALERT_EPOLL_HUP | CALLALERT_EPOLL_ERR) != 0 }
}
