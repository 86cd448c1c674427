#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A thread of its own for work that blocks (a read on standard input, a blocking write, an idle-priority
/// loop), started as Foundation's `Thread` started it but without full Foundation: detached, named, with the
/// default stack unless told otherwise.
public enum DetachedThread {
  /// Runs `body` on a new detached thread. `name` is given to the thread as `Thread.name` gave it: as is,
  /// so a name longer than the 15 bytes Linux keeps leaves the thread with its creator's name. `stackSize`
  /// (bytes) replaces the default stack when given. False when the system refuses a thread: nothing runs
  /// then, as with `Thread.start()`, which said nothing.
  @discardableResult
  public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
    let started = spawn(&attributes, Unmanaged.passRetained(Start(name: name, body: body)))
    pthread_attr_destroy(&attributes)
    return started
  }

  /// Creates the thread; on failure takes back the reference the thread would have taken.
  private static func spawn(_ attributes: inout pthread_attr_t, _ start: Unmanaged<Start>) -> Bool {
    #if canImport(Darwin)
      var thread: pthread_t?
    #else
      var thread = pthread_t()
    #endif
    guard pthread_create(&thread, &attributes, entry, start.toOpaque()) == 0 else {
      start.release()
      return false
    }
    return true
  }

  /// The new thread's first function (pthread's signature differs between Glibc and Darwin).
  #if canImport(Darwin)
    private static let entry: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { context in
      run(context)
    }
  #else
    private static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
      guard let context else { return nil }
      return run(context)
    }
  #endif

  /// Takes the thread's ``Start`` back, names the thread, runs the body.
  private static func run(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
    nameThisThread(start.name)
    start.body()
    return nil
  }

  /// Names the calling thread as `pthread_setname_np` does, which Swift's Glibc module does not show: a name
  /// longer than the 15 bytes the kernel keeps is refused and the thread keeps its name.
  private static func nameThisThread(_ name: String) {
    guard name.utf8.count <= 15 else { return }
    #if canImport(Darwin)
      _ = pthread_setname_np(name)
    #else
      let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
      guard descriptor >= 0 else { return }
      _ = name.withCString { write(descriptor, $0, strlen($0)) }
      close(descriptor)
    #endif
  }

  /// What the new thread runs, handed over through pthread's one pointer.
  private final class Start: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = name
      self.body = body
    }
  }
}
