import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The history's files on disk, kept private: the folder is made `0700`, the database and its `-wal` and
/// `-shm` companions are `0600` (SQLite gives its companions the database's own bits, so the database is
/// created `0600` before SQLite opens it), and an existing file that is looser is tightened. Caller
/// numbers and names are personal data; no other local user may read them.
public enum CallHistoryFiles {
  /// The permission bits of a folder the history makes.
  public static let folderMode: mode_t = 0o700
  /// The permission bits of the database and its companions.
  public static let fileMode: mode_t = 0o600
  /// The companions SQLite keeps beside the database in write-ahead-log mode.
  public static let companionSuffixes = ["-wal", "-shm"]

  /// Makes the folders up to `path` (each one `0700`), checks that `path` is a file or nothing, creates the
  /// database file `0600` when it is missing, and tightens the database and its companions when their bits
  /// let anyone but the owner in. Returns a line for the log per file it tightened.
  public static func prepare(path: String) throws(CallHistoryError) -> [String] {
    let folder = PathText.deletingLastComponent(path)
    if !folder.isEmpty { try makeFolders(folder, for: path) }
    var notes: [String] = []
    var status = stat()
    if stat(path, &status) == 0 {
      guard status.st_mode & S_IFMT == S_IFREG else {
        throw CallHistoryError(path: path, message: "is a folder or a device, not a database file", kind: .folder)
      }
    } else if errno == ENOENT {
      let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, fileMode)
      if descriptor >= 0 {
        close(descriptor)
      } else if errno != EEXIST {
        throw failure(path, "cannot create the database file", errno)
      }
    } else {
      throw failure(path, "cannot inspect the database file", errno)
    }
    for file in [path] + companionSuffixes.map({ path + $0 }) {
      guard stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
      let bits = status.st_mode & 0o7777
      guard bits & ~fileMode != 0 else { continue }
      guard chmod(file, fileMode) == 0 else { throw failure(file, "cannot make the file private (0600)", errno) }
      notes.append("tightened \(file) from \(octal(bits)) to \(octal(fileMode)): the history is private")
    }
    return notes
  }

  /// Moves a damaged database (and its companions) aside, keeping it for inspection, as
  /// `<path>.corrupt-<UTC time>` (`history.sqlite.corrupt-20261123T212200Z`, `-wal` and `-shm` beside it);
  /// returns the new path of the database.
  public static func moveAside(path: String, at date: Date) throws(CallHistoryError) -> String {
    let stamp = Self.stamp(date)
    var target = "\(path).corrupt-\(stamp)"
    var attempt = 1
    while FileManager.default.fileExists(atPath: target) {
      attempt += 1
      target = "\(path).corrupt-\(stamp)-\(attempt)"
    }
    guard rename(path, target) == 0 else { throw failure(path, "cannot move the damaged file aside", errno) }
    for suffix in companionSuffixes where FileManager.default.fileExists(atPath: path + suffix) {
      guard rename(path + suffix, target + suffix) == 0 else {
        throw failure(path + suffix, "cannot move the damaged file aside", errno)
      }
    }
    return target
  }

  /// A file as the system knows it, whatever its name: its device and inode. The history remembers the one it
  /// opened and compares it with what its path names now (see ``CallHistory/fileChange()``).
  public struct Identity: Equatable, Sendable {
    /// The device the file is on (`st_dev`).
    public var device: UInt64
    /// The file's inode on that device (`st_ino`).
    public var inode: UInt64
  }

  /// What `path` names now: nil when nothing is there (or its folder is gone).
  public static func identity(of path: String) -> Identity? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }

  /// Makes the folders up to `path` (each one `0700`), as ``prepare(path:)`` does, without touching the file.
  static func makeFolders(forFile path: String) throws(CallHistoryError) {
    let folder = PathText.deletingLastComponent(path)
    if !folder.isEmpty { try makeFolders(folder, for: path) }
  }

  /// Moves a file that took the history's place while the daemon ran aside, as
  /// `<path>.replaced-<UTC time>`; its companions are left alone (they are the daemon's own). Returns the new path.
  static func moveReplacementAside(path: String, at date: Date) throws(CallHistoryError) -> String {
    var target = "\(path).replaced-\(stamp(date))"
    var attempt = 1
    while FileManager.default.fileExists(atPath: target) {
      attempt += 1
      target = "\(path).replaced-\(stamp(date))-\(attempt)"
    }
    guard rename(path, target) == 0 else { throw failure(path, "cannot move the file that replaced it aside", errno) }
    return target
  }

  /// Creates an empty private (`0600`) file at `path`, which must not exist.
  static func createEmpty(_ path: String) throws(CallHistoryError) {
    let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, fileMode)
    guard descriptor >= 0 else { throw failure(path, "cannot create the file", errno) }
    close(descriptor)
  }

  /// Flushes `path`'s data to the disk (fsync), so that a rename of it is durable once made.
  static func sync(_ path: String) throws(CallHistoryError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure(path, "cannot open the file to sync it", errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw failure(path, "cannot sync the file", errno) }
  }

  /// Flushes the folder of `path` (fsync), so that a file renamed into it stays renamed after a power cut; a
  /// folder that cannot be opened or synced is left as it is (the rename is done, only not yet durable).
  static func syncFolder(of path: String) {
    let folder = PathText.deletingLastComponent(path)
    let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
  }

  /// `20261123T212200Z`: sorts by time, and has no character a shell or a file system minds. Taken from the
  /// UTC timestamp's digits rather than a `Calendar` in UTC: FoundationEssentials alone knows no zone by
  /// name, not even UTC.
  static func stamp(_ date: Date) -> String {
    String(Timestamp.iso8601(date).prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
  }

  private static func makeFolders(_ folder: String, for path: String) throws(CallHistoryError) {
    var status = stat()
    if stat(folder, &status) == 0 {
      guard status.st_mode & S_IFMT == S_IFDIR else {
        throw CallHistoryError(
          path: path, message: "cannot create the folder \(folder): a file is in the way", kind: .folder)
      }
      return
    }
    let parent = PathText.deletingLastComponent(folder)
    if !parent.isEmpty && parent != folder { try makeFolders(parent, for: path) }
    guard mkdir(folder, folderMode) == 0 || errno == EEXIST else {
      let code = errno
      throw CallHistoryError(
        path: path, message: "cannot create the folder \(folder): \(String(cString: strerror(code)))",
        kind: code == EROFS || code == EACCES || code == EPERM ? .readOnly : code == ENOSPC ? .full : .folder)
    }
    // mkdir applies the umask; the history's folder is private whatever it is.
    _ = chmod(folder, folderMode)
  }

  static func failure(_ path: String, _ what: String, _ code: Int32) -> CallHistoryError {
    let kind: CallHistoryError.Kind =
      switch code {
      case EROFS, EACCES, EPERM: .readOnly
      case ENOSPC, EDQUOT: .full
      case ENOTDIR, EISDIR: .folder
      default: .unavailable
      }
    return CallHistoryError(path: path, message: "\(what): \(String(cString: strerror(code)))", kind: kind)
  }

  private static func octal(_ bits: mode_t) -> String { "0" + String(bits, radix: 8) }
}
