import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts `arguments` (the first an executable's path) with its standard output discarded and its standard error
/// written to `errorsTo`; its process id, or nil when it could not start. The caller reaps it.
///
/// The child starts with no signal blocked and SIGINT, SIGTERM and SIGPIPE at their defaults: the bench's threads
/// block signals (libdispatch's workers do), and a perf that inherited a blocked SIGINT would never end.
func runInBackground(_ arguments: [String], errorsTo: String = "/dev/null") -> pid_t? {
  var pid: pid_t = 0
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, errorsTo, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var none = sigset_t()
  sigemptyset(&none)
  posix_spawnattr_setsigmask(&attributes, &none)
  var defaults = sigset_t()
  sigemptyset(&defaults)
  for signal in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, signal) }
  posix_spawnattr_setsigdefault(&attributes, &defaults)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
  var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { for pointer in pointers { free(pointer) } }
  guard posix_spawn(&pid, arguments[0], &actions, &attributes, &pointers, environ) == 0 else { return nil }
  return pid
}

/// Runs `arguments` to its end, blocking the calling thread in waitpid(2) (Foundation's `waitUntilExit()` polls a
/// run loop, spinning a core beside the process measured); its exit status, or -1 when it could not start or was
/// killed by a signal.
func runToEnd(_ arguments: [String]) -> Int32 {
  guard let pid = runInBackground(arguments) else { return -1 }
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  // WIFEXITED and WEXITSTATUS, which Swift does not import.
  return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
}

/// The first executable named `name` on PATH.
func which(_ name: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for directory in path.split(separator: ":") {
    let candidate = "\(directory)/\(name)"
    if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
  }
  return nil
}
