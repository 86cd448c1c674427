import CallAlertText

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

/// What `stat(2)` says of a path.
public struct FileFacts: Equatable, Sendable {
  /// The kind of file.
  public enum Kind: Equatable, Sendable { case regular, directory, socket, characterDevice, other }
  /// Its kind.
  public var kind: Kind
  /// Its permission bits (`0o660`).
  public var mode: UInt16
  /// Its owner's user ID.
  public var owner: UInt32
  /// Its group ID.
  public var group: UInt32

  /// Facts.
  public init(kind: Kind, mode: UInt16, owner: UInt32 = 0, group: UInt32 = 0) {
    self.kind = kind
    self.mode = mode
    self.owner = owner
    self.group = group
  }
}

/// Who runs the doctor.
public struct DoctorUser: Equatable, Sendable {
  /// The login name.
  public var name: String
  /// The user ID.
  public var id: UInt32
  /// Every group the process is in (primary and supplementary).
  public var groups: [UInt32]

  /// A user.
  public init(name: String, id: UInt32, groups: [UInt32]) {
    self.name = name
    self.id = id
    self.groups = groups
  }
}

/// The machine as the doctor's checks see it: files, permissions, users and processes. ``LiveDoctorSystem``
/// asks the operating system; tests describe a broken machine instead (an unreadable port even as root).
public protocol DoctorSystem: Sendable {
  /// The user the checks are for.
  var user: DoctorUser { get }
  /// Whether this is Linux (udev, ModemManager and dialout apply).
  var isLinux: Bool { get }
  /// `stat(2)` following links; nil when nothing is there.
  func facts(_ path: String) -> FileFacts?
  /// Whether this user may read and write `path` (`access(2)`).
  func canReadWrite(_ path: String) -> Bool
  /// Whether this user may write `path` (a file, or a folder to create files in).
  func canWrite(_ path: String) -> Bool
  /// A text file's contents; nil when unreadable.
  func readText(_ path: String) -> String?
  /// A folder's entries' names; empty when unreadable.
  func entries(of folder: String) -> [String]
  /// A group's name.
  func groupName(_ id: UInt32) -> String?
  /// Whether a process of this name (`/proc/*/comm`) runs.
  func isRunning(_ processName: String) -> Bool
}

/// The real machine.
public struct LiveDoctorSystem: DoctorSystem {
  /// The process's user, from its real user ID and groups.
  public let user: DoctorUser

  /// The system as this process sees it.
  public init() {
    let id = getuid()
    let name = getpwuid(id).map { String(cString: $0.pointee.pw_name) } ?? "uid \(id)"
    var groups = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)) + 1)
    let count = getgroups(Int32(groups.count), &groups)
    var all = Array(groups.prefix(Int(max(count, 0)))).map { UInt32($0) }
    if !all.contains(UInt32(getgid())) { all.append(UInt32(getgid())) }
    user = DoctorUser(name: name, id: UInt32(id), groups: all)
  }

  /// True on Linux.
  public var isLinux: Bool {
    #if os(Linux)
      true
    #else
      false
    #endif
  }

  /// `stat(2)`.
  public func facts(_ path: String) -> FileFacts? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    let kind: FileFacts.Kind =
      switch status.st_mode & S_IFMT {
      case S_IFREG: .regular
      case S_IFDIR: .directory
      case S_IFSOCK: .socket
      case S_IFCHR: .characterDevice
      default: .other
      }
    return FileFacts(
      kind: kind, mode: UInt16(status.st_mode & 0o7777), owner: UInt32(status.st_uid), group: UInt32(status.st_gid))
  }

  /// `access(path, R_OK | W_OK)`.
  public func canReadWrite(_ path: String) -> Bool { access(path, R_OK | W_OK) == 0 }

  /// `access(path, W_OK)`.
  public func canWrite(_ path: String) -> Bool { access(path, W_OK) == 0 }

  /// The file as UTF-8.
  public func readText(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The folder's entries.
  public func entries(of folder: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
  }

  /// `getgrgid(3)`.
  public func groupName(_ id: UInt32) -> String? { getgrgid(gid_t(id)).map { String(cString: $0.pointee.gr_name) } }

  /// Scans `/proc/*/comm` (Linux); false elsewhere.
  public func isRunning(_ processName: String) -> Bool {
    entries(of: "/proc").contains { entry in
      entry.allSatisfy(\.isNumber)
        && readText("/proc/\(entry)/comm")?.trimmingWhitespaceAndNewlines() == processName
    }
  }
}
