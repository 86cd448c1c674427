import CallAlertEngine
import CallAlertText
// Full Foundation, not FoundationEssentials: the file errors' localizedDescription.
import Foundation
internal import Yams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The quiet hours as changed on the page: a YAML file holding only a `do_not_disturb:` section, read as the
/// config file reads that section, that stands in for the config file's when it exists. It lives beside the
/// history (`history-quiet-hours.yaml` for `history.sqlite`), private to the user, so the config file (and its
/// comments) is never rewritten. The daemon reads it at start and at every reload.
public struct QuietHoursFile: Sendable, Equatable {
  /// Its path.
  public let path: String

  /// The file beside a history database.
  public init(historyPath: String) {
    let base = historyPath.hasSuffix(".sqlite") ? String(historyPath.dropLast(".sqlite".count)) : historyPath
    path = base + "-quiet-hours.yaml"
  }

  /// Whether the file exists (the page's changes are in force).
  public var exists: Bool { FileManager.default.fileExists(atPath: path) }

  /// The section the file holds, its callers read in `region`; nil when there is no file. A file that cannot
  /// be read, or does not hold a good section, throws its errors, `path:line:column` and field.
  public func read(region: String) throws(InputErrors) -> DoNotDisturbConfiguration? {
    guard exists else { return nil }
    let text: String
    do {
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      guard data.count <= ConfigurationFile.maximumBytes, let decoded = String(data: data, encoding: .utf8) else {
        throw InputErrors([InputError(location: path, message: "not UTF-8 text of at most 1 MiB")])
      }
      text = decoded
    } catch let errors as InputErrors {
      throw errors
    } catch {
      throw InputErrors([InputError(location: path, message: "cannot be read: \(error.localizedDescription)")])
    }
    return try ConfigurationFile.parseDoNotDisturb(text: text, file: path, region: region)
  }

  /// Writes `text` (checked first: a section with errors is refused with them, and nothing is written),
  /// atomically and private to the user; returns the section it holds.
  @discardableResult
  public func write(
    _ text: String, region: String, errorsNamed file: String
  ) throws(InputErrors)
    -> DoNotDisturbConfiguration
  {
    let section = try ConfigurationFile.parseDoNotDisturb(text: text, file: file, region: region)
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: [.atomic])
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    } catch {
      throw InputErrors([InputError(location: path, message: "cannot be written: \(error.localizedDescription)")])
    }
    return section
  }

  /// Removes the file: the config file's section applies again.
  public func remove() throws(InputErrors) {
    guard exists else { return }
    do {
      try FileManager.default.removeItem(atPath: path)
    } catch {
      throw InputErrors([InputError(location: path, message: "cannot be removed: \(error.localizedDescription)")])
    }
  }
}

extension ConfigurationFile {
  /// Parses text holding only a `do_not_disturb:` section, as the config file's is read (the same keys, checks
  /// and errors), its callers' numbers read into E.164 in `region`; `file` names the text in errors.
  public static func parseDoNotDisturb(
    text: String, file: String, region: String
  ) throws(InputErrors)
    -> DoNotDisturbConfiguration
  {
    guard text.utf8.count <= maximumBytes else {
      throw InputErrors([InputError(location: file, message: "larger than 1 MiB")])
    }
    var parser = ConfigParser(file: file, environment: [:], userID: 0)
    let section = parser.parseDoNotDisturbOnly(text: text, region: region)
    let errors = parser.errors
    guard errors.isEmpty, let section else { throw InputErrors(errors) }
    return section
  }

  /// A `do_not_disturb:` section that reads back as `configuration` (``parseDoNotDisturb(text:file:region:)``):
  /// what the page's quiet-hours editor starts from.
  public static func doNotDisturbYAML(_ configuration: DoNotDisturbConfiguration) -> String {
    var lines = ["do_not_disturb:", "  mode: \(configuration.mode.rawValue)"]
    lines.append("  time_zone: \(configuration.timeZone.identifier)")
    if configuration.schedule.isEmpty {
      lines.append("  quiet_hours: []")
    } else {
      lines.append("  quiet_hours:")
      for window in configuration.schedule {
        let time = { (minute: Int) in PrintfText.format("\"%02ld:%02ld\"", minute / 60, minute % 60) }
        lines.append(
          "    - {days: \(days(window.weekdays)), from: \(time(window.startMinute)), to: \(time(window.endMinute))}")
      }
    }
    let callers = configuration.allowedCallers.map { JSONText.quoted($0) }.joined(separator: ", ")
    lines.append("  allowed_callers: [\(callers)]")
    let repeated = configuration.repeatedCallerWindowMs.map { ms in
      ms % 60_000 == 0 ? "\(ms / 60_000)m" : ms % 1_000 == 0 ? "\(ms / 1_000)s" : "\(ms)ms"
    }
    lines.append("  repeated_callers: \(repeated ?? "off")")
    lines.append("  time_sensitive: \(configuration.allowTimeSensitive ? "breaks_through" : "held")")
    lines.append("  silent: \(configuration.silent)")
    return lines.joined(separator: "\n") + "\n"
  }

  /// `daily`, `weekdays`, `weekends`, or a list of day names, Monday first.
  private static func days(_ weekdays: Set<Int>) -> String {
    switch weekdays {
    case Set(1...7): return "daily"
    case [2, 3, 4, 5, 6]: return "weekdays"
    case [1, 7]: return "weekends"
    default:
      let names = [(2, "mon"), (3, "tue"), (4, "wed"), (5, "thu"), (6, "fri"), (7, "sat"), (1, "sun")]
      return "[" + names.filter { weekdays.contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
  }
}

extension ConfigParser {
  /// Reads a document holding only `do_not_disturb:`; nil when it has errors (recorded).
  mutating func parseDoNotDisturbOnly(text: String, region: String) -> DoNotDisturbConfiguration? {
    guard case .some(let composed) = compose(text) else { return nil }
    guard let root = composed, !isNull(root) else {
      error(line: 1, column: 1, "do_not_disturb", "empty; write the do_not_disturb: section, e.g. 'do_not_disturb:'")
      return nil
    }
    guard let entries = mapping(root, "", example: "'do_not_disturb:' and its keys") else { return nil }
    checkKeys(entries, allowed: ["do_not_disturb"], "")
    guard let node = entries.first(where: { $0.key == "do_not_disturb" })?.value else {
      error(root, "do_not_disturb", "missing; this text holds the do_not_disturb: section and nothing else")
      return nil
    }
    var engine = EngineConfiguration()
    engine.defaultRegion = region
    engine.doNotDisturb = isNull(node) ? DoNotDisturbConfiguration() : doNotDisturb(node)
    normaliseCallers(into: &engine)
    return found.isEmpty ? engine.doNotDisturb : nil
  }
}
