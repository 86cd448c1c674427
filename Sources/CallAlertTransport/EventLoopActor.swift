/// The process's event loop (``DescriptorEventLoop/shared``) as a global actor: a type or function marked
/// `@EventLoopActor` runs on the loop's thread, beside the descriptors it reads and writes, and the compiler
/// checks that its state is touched nowhere else. What the daemon confines to the loop (the control socket's
/// connections, their acceptor and idle sweeper) is isolated here, so that a request is read, answered and
/// written on one thread, and the confinement is a type, not a comment.
@globalActor
public actor EventLoopActor {
  /// The one instance: its executor is the shared loop.
  public static let shared = EventLoopActor()

  /// The shared loop, so that isolated code runs between its epoll_wait calls.
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    DescriptorEventLoop.shared.asUnownedSerialExecutor()
  }

  /// Runs `operation` isolated to the loop, synchronously, from code the loop calls on its own thread (a
  /// descriptor's report, a loop timer's ring): those callbacks are plain closures, so the isolation they
  /// have is checked when they run, and a call from any other thread stops the process.
  public static func assumeIsolated<T>(
    _ operation: @EventLoopActor () throws -> T, file: StaticString = #fileID, line: UInt = #line
  ) rethrows -> T {
    typealias Nonisolated = () throws -> T
    precondition(DescriptorEventLoop.shared.isCurrent, "not on the event loop's thread", file: file, line: line)
    // The check above is what `@EventLoopActor` promises: run here, the body is isolated to the loop.
    return try withoutActuallyEscaping(operation) { operation in
      try unsafeBitCast(operation, to: Nonisolated.self)()
    }
  }
}
