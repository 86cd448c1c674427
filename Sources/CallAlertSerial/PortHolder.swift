#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process that holds a port open, so that "busy" can say who: `held by callalert run (PID 4242)`.
///
/// Found without any file of our own to keep in step: first in `/proc/locks`, which lists every `flock`
/// with its owner's PID and the locked file's device and inode, and which every user may read (CallAlert,
/// minicom, pyserial and libserialport 0.1.2 all lock their ports this way); then, for a holder that
/// takes no lock (TIOCEXCL alone), by scanning `/proc/*/fd` for a descriptor open on the same device,
/// which finds only this user's processes. Linux only: elsewhere nothing is found and the error says
/// "another process".
public struct PortHolder: Hashable, Sendable, CustomStringConvertible {
  /// The holder's process ID.
  public var pid: Int32
  /// Its command line, shortened to the program's name and first word (`callalert run`), with control
  /// characters escaped; nil when it could not be read (another user's process, or it just exited).
  public var command: String?

  /// Creates a holder.
  public init(pid: Int32, command: String?) {
    self.pid = pid
    self.command = command
  }

  /// Whether the holder is this very process (a descriptor it forgot to close).
  public var isThisProcess: Bool { pid == getpid() }

  /// `callalert run (PID 4242)`, `PID 4242`, or `this process (PID 4242)`.
  public var description: String {
    if isThisProcess { return "this process (PID \(pid))" }
    return command.map { "\($0) (PID \(pid))" } ?? "PID \(pid)"
  }

  /// The process holding the port at `path` (a device, a pseudo-terminal slave, or a symbolic link to
  /// one), or nil when none is found.
  public static func find(_ path: String) -> PortHolder? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    let pid = lockOwner(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) ?? descriptorOwner(of: status)
    return pid.map { PortHolder(pid: $0, command: commandLine(of: $0)) }
  }

  // MARK: - /proc/locks

  /// The PID of the `flock` (or POSIX lock) on the file with this device and inode, from `/proc/locks`.
  static func lockOwner(device: UInt64, inode: UInt64) -> Int32? {
    guard let text = readSmallFile("/proc/locks") else { return nil }
    return lockOwner(inLocks: text, device: device, inode: inode)
  }

  /// Parses `/proc/locks`: `1: FLOCK  ADVISORY  WRITE 4242 00:19:7 0 EOF`, the device as hexadecimal
  /// `major:minor` and the inode in decimal. Lines for waiters (`1: -> FLOCK …`) are skipped; so are
  /// open-file-description locks, whose PID is -1.
  static func lockOwner(inLocks text: String, device: UInt64, inode: UInt64) -> Int32? {
    let wanted = "\(hex(major(device))):\(hex(minor(device))):\(inode)"
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 6, fields[1] != "->", let pid = Int32(fields[4]), pid > 0 else { continue }
      if fields[5] == wanted[...] { return pid }
    }
    return nil
  }

  /// The device's major number as Linux encodes `dev_t` (glibc's `gnu_dev_major`).
  static func major(_ device: UInt64) -> UInt64 { ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff) }

  /// The device's minor number as Linux encodes `dev_t` (glibc's `gnu_dev_minor`).
  static func minor(_ device: UInt64) -> UInt64 { (device & 0xff) | ((device >> 12) & ~0xff) }

  /// `/proc/locks` prints major and minor with `%02x`.
  private static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return digits.count < 2 ? "0" + digits : digits
  }

  // MARK: - /proc/*/fd

  /// The first process (other than this one, unless nothing else has it) with a descriptor open on the
  /// same file: a holder that relies on TIOCEXCL alone. Reads only what this user may read.
  static func descriptorOwner(of target: stat) -> Int32? {
    guard let processes = opendir("/proc") else { return nil }
    defer { closedir(processes) }
    var own: Int32?
    while let entry = readdir(processes) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard let pid = Int32(name), pid > 0, holdsOpen(pid: pid, target) else { continue }
      if pid != getpid() { return pid }
      own = pid
    }
    return own
  }

  private static func holdsOpen(pid: Int32, _ target: stat) -> Bool {
    let directory = "/proc/\(pid)/fd"
    guard let descriptors = opendir(directory) else { return false }
    defer { closedir(descriptors) }
    while let entry = readdir(descriptors) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard Int(name) != nil else { continue }
      var status = stat()
      if stat(directory + "/" + name, &status) == 0, status.st_dev == target.st_dev, status.st_ino == target.st_ino,
        status.st_rdev == target.st_rdev
      {
        return true
      }
    }
    return false
  }

  // MARK: - The holder's name

  /// `callalert run` from `/proc/PID/cmdline` (the program's base name and its first argument unless that
  /// is an option), else `/proc/PID/comm`; control characters escaped, at most 60 characters.
  static func commandLine(of pid: Int32) -> String? {
    if let raw = readSmallFile("/proc/\(pid)/cmdline"), !raw.isEmpty {
      let arguments = raw.split(separator: "\0", omittingEmptySubsequences: true).map(String.init)
      if let program = arguments.first {
        var words = [program.split(separator: "/").last.map(String.init) ?? program]
        if arguments.count > 1, !arguments[1].hasPrefix("-") { words.append(arguments[1]) }
        return printable(words.joined(separator: " "))
      }
    }
    guard let comm = readSmallFile("/proc/\(pid)/comm") else { return nil }
    let name = comm.hasSuffix("\n") ? String(comm.dropLast()) : comm
    return name.isEmpty ? nil : printable(name)
  }

  /// The text with control characters escaped (`\u{1B}`), cut to 60 characters: a process name is
  /// chosen by whoever started the process and must not drive the user's terminal.
  static func printable(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars.prefix(60) {
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return text.unicodeScalars.count > 60 ? result + "…" : result
  }

  /// Reads a /proc file (whose size stat reports as 0) up to 64 KiB.
  private static func readSmallFile(_ path: String) -> String? {
    let descriptor = systemOpen(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { systemClose(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while bytes.count < 65_536 {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
