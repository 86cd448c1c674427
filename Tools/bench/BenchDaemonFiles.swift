import Foundation

/// A `callalert run` of the bench's own, in a folder of the temporary directory: its config (the built-in "DE"
/// cadence, no missed-call indicator, the history in the folder), its control socket's path, and its command
/// line on a board's pseudo-terminal. The kill soak and the per-request figures start their daemons this way.
struct BenchDaemonFiles {
  let directory: URL
  var socket: String { directory.appendingPathComponent("control.sock").path }
  var config: String { directory.appendingPathComponent("config.yaml").path }

  /// Makes the folder (`prefix` and a random suffix) and writes the config into it.
  init(prefix: String) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let yaml = """
      patterns:
        default: DE
      missed_indicator: off
      history:
        path: \(directory.appendingPathComponent("history.sqlite").path)
      """
    try yaml.write(toFile: config, atomically: true, encoding: .utf8)
  }

  /// `run` with this config and socket on `port`, without standard input or the HTTP API.
  func runArguments(port: String) -> [String] {
    ["run", "--config", config, "--port", port, "--no-stdin", "--no-http", "--socket", socket]
  }

  /// Removes the folder and everything in it.
  func remove() { try? FileManager.default.removeItem(at: directory) }
}
