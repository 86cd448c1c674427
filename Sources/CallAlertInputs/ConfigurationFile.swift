import Foundation

/// The daemon's config file (YAML; see docs/CONFIG.md): every section optional, every error reported with
/// `file:line:column` and its field path, all of them at once.
public enum ConfigurationFile {
  /// Reads and parses the file at `path`.
  ///
  /// Relative paths inside the file (`patterns.file`, `socket.path`, `history.path`) are relative to the
  /// file's folder; `~` is the home directory. A file that cannot be read is one error located at `path`.
  public static func load(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment, userID: UInt32 = getuid()
  ) throws(InputErrors) -> DaemonConfiguration {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
      throw InputErrors([InputError(location: path, message: "the config file \(reason)")])
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw InputErrors([InputError(location: path, message: "the config file is not UTF-8 text")])
    }
    return try parse(text: text, file: path, environment: environment, userID: userID)
  }

  /// Parses config text; `file` names it in errors and anchors its relative paths.
  ///
  /// The text and the empty string are both valid: a missing section means its defaults.
  public static func parse(
    text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    userID: UInt32 = getuid()
  ) throws(InputErrors) -> DaemonConfiguration {
    var parser = ConfigParser(file: file, environment: environment, userID: userID)
    let configuration = parser.parse(text: text)
    let errors = parser.errors
    guard errors.isEmpty else { throw InputErrors(errors) }
    return configuration
  }
}
