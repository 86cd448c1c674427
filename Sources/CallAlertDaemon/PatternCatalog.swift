import CallAlertPatterns
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

/// The patterns a configuration can name: its pattern file (`patterns.file`), compiled for the boards,
/// and the built-in patterns. Loading it checks every name the configuration uses, so that a typo is an
/// error at load, with its place and a suggestion, rather than a call that quietly rings the default.
enum PatternCatalog {
  /// Reads and compiles the configuration's pattern file (nil when it names none), then checks the
  /// pattern names the configuration uses against it and the built-ins.
  static func load(for configuration: DaemonConfiguration) throws(DaemonStartError) -> PatternBuild? {
    var build: PatternBuild? = nil
    var known = BuiltInPatterns.names
    var source = "the built-in patterns (\(BuiltInPatterns.names.joined(separator: ", ")))"
    if let path = configuration.patternsFile {
      let text = try read(path)
      do {
        build = try PatternFile.build(text: text, file: path)
      } catch {
        throw DaemonStartError(description: "patterns.file \(path) does not compile:\n\(error)")
      }
      let names = build?.file.patterns.map(\.name) ?? []
      known = names + known
      source = "\(path) (\(names.joined(separator: ", "))) and " + source
    }
    let errors = configuration.unknownPatternNames(known: known, from: source)
    guard errors.isEmpty else {
      throw DaemonStartError(description: InputErrors(errors).description)
    }
    return build
  }

  /// Compiles `text` as the pattern file at `path` (a new one, from the page's editor) and checks the names
  /// `configuration` uses against it and the built-ins, as a start would: the build, or every error.
  static func build(
    text: String, path: String, for configuration: DaemonConfiguration
  ) throws(DaemonStartError)
    -> PatternBuild
  {
    let build: PatternBuild
    do {
      build = try PatternFile.build(text: text, file: path)
    } catch {
      throw DaemonStartError(description: "\(error)")
    }
    let names = build.file.patterns.map(\.name)
    let source =
      "the new \(path) (\(names.joined(separator: ", "))) and the built-in patterns "
      + "(\(BuiltInPatterns.names.joined(separator: ", ")))"
    let errors = configuration.unknownPatternNames(known: names + BuiltInPatterns.names, from: source)
    guard errors.isEmpty else { throw DaemonStartError(description: InputErrors(errors).description) }
    return build
  }

  /// The file's text; a file over ``PatternFile/maximumBytes`` is refused before it is read.
  static func read(_ path: String) throws(DaemonStartError) -> String {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    guard let size else {
      let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
      throw DaemonStartError(description: "\(path): the pattern file (patterns.file) \(reason)")
    }
    guard size <= PatternFile.maximumBytes else {
      throw DaemonStartError(
        description: "\(path):1:1: error: the file is \(size) bytes, above the 1 MiB (\(PatternFile.maximumBytes) "
          + "bytes) limit for a pattern file; it was not read")
    }
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
      throw DaemonStartError(description: "\(path): the pattern file (patterns.file) cannot be read as UTF-8 text")
    }
    return text
  }
}
