import CallAlertText
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

/// The daemon's config file (YAML; see docs/CONFIG.md): every section optional, every error reported with
/// `file:line:column` and its field path, all of them at once.
public enum ConfigurationFile {
  /// The largest config file, in bytes (1 MiB); a bigger one is refused before it is parsed. A real config
  /// is a few kilobytes.
  public static let maximumBytes = 1 << 20

  private static func tooLarge(_ file: String) -> InputError {
    InputError(
      location: file, message: "the config file is larger than \(maximumBytes >> 20) MiB, the most CallAlert reads")
  }

  /// Reads and parses the file at `path`.
  ///
  /// Relative paths inside the file (`patterns.file`, `socket.path`, `history.path`) are relative to the
  /// file's folder; `~` is the home directory. A file that cannot be read is one error located at `path`.
  public static func load(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment, userID: UInt32 = getuid()
  ) throws(InputErrors) -> DaemonConfiguration {
    // Read at most one byte past the limit: a huge file is refused without reading it all.
    guard let data = readPrefix(of: path, count: maximumBytes + 1) else {
      let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
      throw InputErrors([InputError(location: path, message: "the config file \(reason)")])
    }
    guard data.count <= maximumBytes else { throw InputErrors([tooLarge(path)]) }
    guard let text = String(data: data, encoding: .utf8) else {
      throw InputErrors([InputError(location: path, message: "the config file is not UTF-8 text")])
    }
    return try parse(text: text, file: path, environment: environment, userID: userID)
  }

  /// The first `count` bytes of the file at `path` (fewer when it is shorter), or nil when it cannot be
  /// opened or read.
  private static func readPrefix(of path: String, count: Int) -> Data? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var data = Data(count: count)
    var filled = 0
    while filled < count {
      let got = data.withUnsafeMutableBytes { buffer in
        read(descriptor, buffer.baseAddress! + filled, count - filled)
      }
      if got == 0 { break }
      if got < 0 {
        if errno == EINTR { continue }
        return nil
      }
      filled += got
    }
    return data.prefix(filled)
  }

  /// Parses config text; `file` names it in errors and anchors its relative paths.
  ///
  /// The text and the empty string are both valid: a missing section means its defaults.
  public static func parse(
    text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    userID: UInt32 = getuid()
  ) throws(InputErrors) -> DaemonConfiguration {
    guard text.utf8.count <= maximumBytes else { throw InputErrors([tooLarge(file)]) }
    var parser = ConfigParser(file: file, environment: environment, userID: userID)
    let configuration = parser.parse(text: text)
    let errors = parser.errors
    guard errors.isEmpty else { throw InputErrors(errors) }
    return configuration
  }
}
