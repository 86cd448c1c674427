import CallAlertText
import CallAlertValues
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One daemon per socket and per history: a lock file beside each (`<path>.lock`) holding the owner's PID,
/// locked with `flock(2)`. The kernel releases the lock when its holder exits, however it exits, so a lock
/// file left by a daemon killed with SIGKILL is no obstacle: only a live holder is.
final class InstanceLock: Sendable {
  /// The lock file's path.
  let path: String
  private let descriptor: Mutex<CInt?>

  private init(path: String, descriptor: CInt) {
    self.path = path
    self.descriptor = Mutex(descriptor)
  }

  deinit { release() }

  /// Takes the lock for `resource` (the socket or the history), naming it in the error as `what`; its missing
  /// folders are made (private) when `makingFolders` (the history's are, as the history makes them).
  static func acquire(
    for resource: String, what: String, makingFolders: Bool = true
  ) throws(DaemonStartError) -> InstanceLock {
    let path = resource + ".lock"
    let folder = PathText.deletingLastComponent(path)
    if makingFolders && !folder.isEmpty {
      try? FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else {
      throw DaemonStartError(
        description: "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
    }
    var result: CInt
    repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
    guard result == 0 else {
      let error = errno
      let holder = Self.readPID(fd)
      close(fd)
      guard error == EWOULDBLOCK else {
        throw DaemonStartError(description: "cannot lock \(path): \(String(cString: strerror(error)))")
      }
      let who = holder.map { "another callalert daemon (PID \($0))" } ?? "another callalert daemon"
      throw DaemonStartError(
        description: "\(who) is already using the \(what) \(resource) (lock \(path)); stop it first, or give this one "
          + "its own --socket and --history",
        isInUse: true)
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(fd, 0)
    _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    return InstanceLock(path: path, descriptor: fd)
  }

  /// Releases the lock (at the daemon's end; also when the lock is released from memory). The file stays:
  /// removing it could let two daemons lock two different files of the same name.
  func release() {
    guard
      let fd = descriptor.withLock({ current in
        defer { current = nil }; return current
      })
    else { return }
    _ = flock(fd, LOCK_UN)
    close(fd)
  }

  /// The PID written in a lock file, when it holds one.
  private static func readPID(_ fd: CInt) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespaceAndNewlines())
  }
}
