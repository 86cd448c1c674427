import CallAlertValues

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The directory the control socket lives in, checked before the daemon binds there: whoever can write to it
/// can replace the socket, or listen first under its name.
enum SocketDirectory {
  /// Makes sure the directory of `socketPath` is safe for the socket, creating it (mode 0700) when missing.
  ///
  /// The per-user fallback directory (``DaemonConfiguration/privateSocketDirectory(userID:)``) must be a real
  /// directory (not a symbolic link), owned by `userID`, with no permission for anyone else. Any other
  /// directory must belong to `userID` or root, and must not be writable by others unless it has the sticky
  /// bit (like /tmp, where nobody can replace another user's socket, and where the client's check of the
  /// daemon's credentials catches a squatter).
  static func prepare(
    forSocketAt socketPath: String, userID: uid_t,
    privateDirectory: String? = nil
  ) throws(ControlSocketError) {
    let directory = parent(of: socketPath)
    let strict = directory == (privateDirectory ?? DaemonConfiguration.privateSocketDirectory(userID: userID))
    var status = stat()
    if lstat(directory, &status) != 0 {
      guard errno == ENOENT else { throw .system("lstat", path: directory, errno: errno) }
      guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
        // One missing folder is made; a path whose parent is missing too is more likely a typo.
        if errno == ENOENT {
          throw .unsafeDirectory(
            path: directory,
            reason: "it does not exist, nor does \(parent(of: directory)); create it or choose another socket path")
        }
        throw .system("mkdir", path: directory, errno: errno)
      }
      // 0700 whatever the umask: it is the process's, and another thread may have narrowed it for a moment
      // (the control socket is bound under umask 0177, which made a folder created meanwhile 0600: unusable).
      _ = chmod(directory, 0o700)
      guard lstat(directory, &status) == 0 else { throw .system("lstat", path: directory, errno: errno) }
    }
    if !strict, status.st_mode & S_IFMT == S_IFLNK {
      // A link to a directory is fine where the directory is; judge that one.
      guard stat(directory, &status) == 0 else { throw .system("stat", path: directory, errno: errno) }
    }
    if let problem = problem(with: status, userID: userID, strict: strict) {
      throw .unsafeDirectory(path: directory, reason: problem)
    }
  }

  /// What is wrong with a directory whose `lstat` is `status`, or nil when it is safe.
  static func problem(with status: stat, userID: uid_t, strict: Bool) -> String? {
    let type = status.st_mode & S_IFMT
    if type == S_IFLNK { return "it is a symbolic link; remove it" }
    guard type == S_IFDIR else { return "it is not a directory" }
    let mode = status.st_mode & 0o7777
    let octal = "0" + String(mode & 0o777, radix: 8)
    if strict {
      guard status.st_uid == userID else { return "it belongs to uid \(status.st_uid), not to you (uid \(userID))" }
      guard mode & 0o077 == 0 else { return "its mode is \(octal); it must be 0700 (chmod 700 it)" }
      return nil
    }
    guard status.st_uid == userID || status.st_uid == 0 else {
      return "it belongs to uid \(status.st_uid), not to you (uid \(userID)) or root"
    }
    if mode & 0o022 != 0, mode & S_ISVTX == 0 {
      return "its mode is \(octal): other users could replace the socket; use a directory only you can write"
    }
    return nil
  }

  /// The directory part of `path` (`.` for a bare name).
  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
