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

/// A child process started with posix_spawn, reaped by a thread of its own, and stopped by its process id.
///
/// Started with posix_spawn rather than Foundation's Process: the child must start with no signal blocked (a
/// thread of this process may block SIGTERM, and QEMU, which does not unblock it, would then never see it),
/// with the default disposition of the signals that stop it, and, for a command, in its own process group
/// (Ctrl-C reaches the command, which stops QEMU itself); and waiting for it must not spin
/// (Process.waitUntilExit polls a run loop on Linux).
final class ChildProcess: Sendable {
  /// The process id.
  let pid: pid_t

  private struct State {
    var signalled = false
    var exitStatus: Int32?
    var waiters: [CheckedContinuation<Int32, Never>] = []
  }

  private let state = Mutex(State())

  private init(pid: pid_t) {
    self.pid = pid
    Thread.detachNewThread { [self] in reap() }
  }

  /// Starts `executable` (a path, or a name looked up on PATH) with `arguments`; its standard input and error
  /// are this process's. With `capturingOutput`, its standard output is a pipe whose read end is returned (the
  /// caller reads it to the end and closes it); without, its standard output is this process's standard error.
  static func spawn(
    _ executable: String, arguments: [String], capturingOutput: Bool, ownProcessGroup: Bool
  ) throws(QemuError) -> (process: ChildProcess, output: Int32?) {
    // Both ends close-on-exec, so no other child started later keeps the write end (and the pipe) open;
    // dup2 onto the child's standard output clears the flag on the copy.
    var fds: [Int32] = [-1, -1]
    if capturingOutput {
      guard makePipe(&fds) == 0 else { throw .spawnFailed(executable, function: "pipe", errno: errno) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, capturingOutput ? fds[1] : STDERR_FILENO, STDOUT_FILENO)
    Self.closeInheritedDescriptors(&actions)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // A clean signal mask: a thread of this process may block SIGTERM, and QEMU would inherit that and never
    // see the SIGTERM that stops it.
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    // Default dispositions for the signals that end QEMU: an ignored signal stays ignored across exec, and a
    // command that handles SIGINT and SIGTERM itself ignores them (SIG_IGN plus a dispatch source).
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if ownProcessGroup {
      posix_spawnattr_setpgroup(&attributes, 0)
      flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))

    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, environ)
    if capturingOutput { close(fds[1]) }
    guard result == 0 else {
      if capturingOutput { close(fds[0]) }
      throw .spawnFailed(executable, errno: result)
    }
    return (ChildProcess(pid: pid), capturingOutput ? fds[0] : nil)
  }

  /// Whether ``stop()`` signalled the process while it ran.
  var wasStopped: Bool { state.withLock { $0.signalled } }

  /// The exit status once the process has been reaped; nil while it runs.
  var exitStatus: Int32? { state.withLock { $0.exitStatus } }

  /// Sends SIGTERM to the process id, once, if the process has not been reaped; returns whether it sent it.
  ///
  /// The signal is sent under the lock the reaper takes to reap, so it can never reach another process that
  /// reused the id.
  @discardableResult
  func stop() -> Bool {
    state.withLock { state in
      guard !state.signalled, state.exitStatus == nil else { return false }
      state.signalled = true
      kill(pid, SIGTERM)
      return true
    }
  }

  /// Waits until the process has exited; returns its exit code, or 128 plus the signal that ended it.
  func waitForExit() async -> Int32 {
    await withCheckedContinuation { continuation in
      let status = state.withLock { state in
        if state.exitStatus == nil { state.waiters.append(continuation) }
        return state.exitStatus
      }
      if let status { continuation.resume(returning: status) }
    }
  }

  /// Blocks (on the reaper thread) until the process exits, then reaps it and resumes the waiters.
  private func reap() {
    // Wait without reaping first (WNOWAIT): the id stays this process's, a zombie, until it is reaped under
    // the lock, so stop() never signals a stranger.
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    let (code, waiters) = state.withLock { state in
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      // WIFEXITED ? WEXITSTATUS : 128 + WTERMSIG
      let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
      state.exitStatus = code
      defer { state.waiters = [] }
      return (code, state.waiters)
    }
    for waiter in waiters { waiter.resume(returning: code) }
  }

  private static func makePipe(_ fds: inout [Int32]) -> Int32 {
    // pipe2(O_CLOEXEC) would be atomic, but Glibc's module map does not export it.
    guard pipe(&fds) == 0 else { return -1 }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return 0
  }
}

/// The text of a system error number, such as `No such file or directory`.
func systemMessage(_ number: Int32) -> String {
  String(cString: strerror(number))
}

extension ChildProcess {
  /// QEMU gets the descriptors 0-2 it is given and nothing else: whatever this process holds without
  /// close-on-exec (a socket a library opened, a test's server connection) would otherwise stay open in QEMU
  /// for as long as it runs, and a connection its owner closed would not end. glibc's
  /// `posix_spawn_file_actions_addclosefrom_np` (2.34), looked up at run time: Glibc's module does not export it.
  static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    #if canImport(Glibc)
      typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, CInt) -> CInt
      guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
      _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    #endif
  }
}
