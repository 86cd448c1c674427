import CallAlertControl
import CallAlertEngine
import CallAlertValues
import Logging

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

/// Keeps do-not-disturb as it was switched over HTTP (the page's buttons, `PUT /v1/dnd`) over a restart: a
/// small JSON file beside the history (`history-dnd.json` for `history.sqlite`), written after each switch
/// that the daemon accepted and read once when the daemon starts, before the HTTP server listens, which then
/// switches again to what it holds.
/// The config file is left as it is (its comments too): the file holds what was switched, and `callalert notify dnd`
/// on the socket, which changes the running daemon only, removes nothing from it (docs/PAGE.md).
struct DoNotDisturbMemory: Sendable {
  /// What the file holds: what differs from the config file, the mode switched to and silent mode (nil:
  /// the config's).
  struct Choice: Codable, Equatable, Sendable {
    var mode: DoNotDisturbMode?
    var silent: Bool?
    /// When the switched mode ends, if it was made for a while; a restart after it restores nothing of it.
    var until: Date? = nil
  }

  /// The file.
  let path: String
  /// The config's silent mode, which needs no keeping.
  let configuredSilent: Bool
  let logger: Logger

  /// The file beside a history database.
  init(historyPath: String, configuredSilent: Bool, logger: Logger) {
    let base = historyPath.hasSuffix(".sqlite") ? String(historyPath.dropLast(".sqlite".count)) : historyPath
    path = base + "-dnd.json"
    self.configuredSilent = configuredSilent
    self.logger = logger
  }

  /// What the file holds; nil when there is none, or it cannot be read (logged).
  func read() -> Choice? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      return try decoder.decode(Choice.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      logger.warning("http: \(path) is not a do-not-disturb choice (\(error)); the config's settings apply")
      return nil
    }
  }

  /// Writes the choice in force now (atomically, private to the user).
  func write(_ dnd: StatusReport.DoNotDisturb) {
    // A switch back to what the config says is kept as nothing: a later edit of the config then applies.
    let mode = dnd.override.flatMap { $0 == dnd.configured ? nil : DoNotDisturbMode(rawValue: $0) }
    let until = mode == nil ? nil : dnd.until.flatMap(Timestamp.date(text:))
    let choice = Choice(mode: mode, silent: dnd.silent == configuredSilent ? nil : dnd.silent, until: until)
    do {
      let encoder = JSONEncoder()
      encoder.dateEncodingStrategy = .iso8601
      let data = try encoder.encode(choice)
      try data.write(to: URL(fileURLWithPath: path), options: [.atomic])
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    } catch {
      logger.warning("http: could not keep the do-not-disturb switch in \(path): \(error); it lasts until a restart")
    }
  }

  /// The requests that switch the daemon to a choice.
  /// A mode switched until a time that has passed by `now` is left out: it ended while the daemon was stopped.
  static func requests(_ choice: Choice, now: Date) -> [ControlRequest] {
    let mode = choice.until.map { $0 > now } == false ? nil : choice.mode
    return (mode.map { [ControlRequest.input(.setDoNotDisturb($0, until: choice.until))] } ?? [])
      + (choice.silent.map { [ControlRequest.input(.setSilent($0))] } ?? [])
  }

  /// Switches the daemon to what the file holds, if anything; `now` is the wall clock's time.
  func restore(now: Date, through handle: @Sendable (ControlRequest, String) async -> ControlResponse) async {
    guard let choice = read() else { return }
    let requests = Self.requests(choice, now: now)
    for request in requests { _ = await handle(request, "http") }
    let kept = requests.contains { if case .input(.setDoNotDisturb) = $0 { true } else { false } }
    if !kept, let until = choice.until, let mode = choice.mode {
      logger.notice("http: do-not-disturb \(mode.rawValue) until \(Timestamp.iso8601(until)) ended while stopped")
    }
    let until = kept ? choice.until.map { " until \(Timestamp.iso8601($0))" } ?? "" : ""
    let mode = kept ? (choice.mode?.rawValue ?? "as configured") + until : "as configured"
    let silent = choice.silent.map { "\($0)" } ?? "as configured"
    logger.notice("http: do-not-disturb as switched before the restart (\(path)): mode \(mode), silent \(silent)")
  }

  /// Whether a request switches do-not-disturb or silent mode.
  static func switches(_ request: ControlRequest) -> Bool {
    switch request {
    case .input(.setDoNotDisturb), .input(.setSilent): true
    default: false
    }
  }
}
