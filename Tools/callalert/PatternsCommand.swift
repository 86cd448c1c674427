import ArgumentParser
import CallAlertClient
import CallAlertPatterns
import CallAlertProtocol
// Full Foundation, not FoundationEssentials: FileHandle and the file errors' localizedDescription.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension CallAlertCommand {
  /// `callalert patterns …`: check, list, pull and draw ring patterns.
  struct Patterns: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "patterns",
      abstract: "Check, compile, list, pull and draw ring and vibration patterns (see docs/PATTERNS.md).",
      subcommands: [
        Check.self, Compile.self, Decompile.self, List.self, Builtins.self, Pull.self, Render.self,
      ])

    struct Check: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a pattern file against a board (the reference board without --port); exit 1 on errors.")
      @Argument(help: "The pattern file.") var file: String
      @OptionGroup(title: "Board (checks against its capabilities when --port is given)") var port: PortOptions

      func run() async throws {
        let text = try readText(file)
        var capabilities = Capabilities.referenceBoard
        if port.port != nil {
          let (client, info) = try await port.connect()
          await client.close()
          capabilities = info.capabilities
        }
        if !reportDiagnostics(text: text, file: file, against: capabilities) { throw ExitCode(1) }
        if let built = try? PatternFile.build(text: text, file: file, against: capabilities) {
          print(built.file.listing)
          print("ok: \(built.bytes.count) bytes, crc \(hex32(built.crc))")
        }
      }
    }

    struct Compile: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a pattern file to the table's bytes (what `flash` installs), without a board.")
      @Argument(help: "The pattern file.") var file: String
      @Option(name: .shortAndLong, help: ArgumentHelp("Write the table here.", valueName: "table")) var output: String

      func run() async throws {
        let text = try readText(file)
        let built: PatternBuild
        do {
          built = try PatternFile.build(text: text, file: file, against: .referenceBoard)
        } catch {
          throw CommandFailure("\(error)")
        }
        for warning in built.warnings { FileHandle.standardError.write(Data("\(warning)\n".utf8)) }
        do {
          try Data(built.bytes).write(to: URL(fileURLWithPath: output))
        } catch {
          throw CommandFailure("\(output): cannot write it: \(error.localizedDescription)")
        }
        print(
          "wrote \(output): \(built.file.patterns.count) patterns, \(built.bytes.count) bytes, crc \(hex32(built.crc))")
      }
    }

    struct Decompile: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "decompile",
        abstract: "Turn a compiled table back into a pattern file (compiling it again gives the same bytes).")
      @Argument(help: "The table (from `patterns compile`).") var table: String
      @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of standard output.", valueName: "file"))
      var output: String?

      func run() async throws {
        guard let data = FileManager.default.contents(atPath: table) else {
          throw CommandFailure("\(table): cannot read it")
        }
        let yaml: String
        do {
          yaml = try PatternFile.decompile(bytes: Array(data))
        } catch {
          throw CommandFailure("\(table): not a CallAlert pattern table: \(error)")
        }
        try writePatternFile(yaml, to: output, note: "")
      }
    }

    struct Builtins: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "builtins",
        abstract: "List the built-in patterns: the national ring cadences and the vibrations.")

      func run() async throws {
        // The summary's slot is only its place in the built-in file; a name is how a built-in is asked for.
        for definition in BuiltInPatterns.all {
          print(definition.summary.replacing(#/^slot \d+  /#, with: ""))
        }
      }
    }

    struct List: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the patterns of a file, or of the board's table.")
      @Argument(help: "A pattern file (without it, the board's table).") var file: String?
      @OptionGroup(title: "Board (read without a file)") var port: PortOptions

      func validate() throws {
        if file != nil && port.port != nil { throw ValidationError("give a file or --port, not both") }
      }

      func run() async throws {
        if let file {
          do {
            print(try PatternFile.parse(text: try readText(file), file: file).listing)
          } catch let diagnostics as PatternDiagnostics {
            throw CommandFailure("\(diagnostics)")
          }
          return
        }
        guard let table = try await readBoardTable(port) else {
          print("the board has no pattern table; flash one with `callalert flash FILE`")
          return
        }
        let decoded = try PatternTable.decode(table)
        print("version \(decoded.version), \(decoded.slots.count) slots, \(table.count) bytes")
        for (slot, entry) in decoded.slots.enumerated() {
          guard let entry else { continue }
          let length = entry.pattern.totalDurationMs.map { "\($0) ms" } ?? "until the cap"
          print(
            "  slot \(slot): \(String(decoding: entry.name, as: UTF8.self)), \(entry.pattern.steps.count) steps, \(length)"
          )
        }
      }
    }

    struct Pull: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "pull", abstract: "Read the board's table back as a pattern file.")
      @OptionGroup var port: PortOptions
      @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of standard output.", valueName: "file"))
      var output: String?

      func run() async throws {
        guard let table = try await readBoardTable(port) else {
          throw CommandFailure("the board has no pattern table")
        }
        try writePatternFile(try PatternFile.decompile(bytes: table), to: output, note: " (\(table.count) table bytes)")
      }
    }

    struct Render: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a pattern's buzzer and motor against time: a line in the terminal, and an SVG.",
        discussion: "NAME is a built-in (\(BuiltInPatterns.names.joined(separator: ", "))) or a pattern file.")
      @Argument(help: "A built-in pattern's name, or a pattern file.") var source: String
      @Option(help: "With a file: the pattern to draw (default: the first).") var pattern: String?
      @Option(help: ArgumentHelp("Write an SVG drawing here.", valueName: "file")) var svg: String?
      @Option(parsing: .unconditional, help: "Terminal columns (20-1000).", transform: wholeNumber(in: 20...1_000))
      var columns: Int = 72

      func run() async throws {
        let definition: PatternDefinition
        if FileManager.default.fileExists(atPath: source) {
          let file: PatternFile
          do { file = try PatternFile.parse(text: try readText(source), file: source) } catch let error
            as PatternDiagnostics
          {
            throw CommandFailure("\(error)")
          }
          guard let chosen = pattern.map({ file.pattern(named: $0) }) ?? file.patterns.first else {
            throw CommandFailure("\(source) has no pattern \(pattern.map { "named \($0)" } ?? "")")
          }
          definition = chosen
        } else if let builtIn = BuiltInPatterns.named(source) {
          definition = builtIn
        } else {
          throw CommandFailure(
            "\(source) is neither a file nor a built-in pattern (\(BuiltInPatterns.names.joined(separator: ", ")))")
        }
        print("\(definition.name):")
        for line in PatternRenderer.terminalLines(definition.pattern, columns: columns) { print("  " + line) }
        if let svg {
          try PatternRenderer.svg(definition).write(toFile: svg, atomically: true, encoding: .utf8)
          print("wrote \(svg)")
        }
      }
    }
  }

  /// `callalert flash`.
  struct Flash: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "flash",
      abstract: "Validate a pattern file and install it on the board: transfer, verify, commit atomically.",
      discussion: """
        Nothing is sent when the board already holds the same table. Interrupted anywhere (Ctrl-C, the cable, \
        power), the board keeps its old table; running the command again completes the flash.
        """)
    @Argument(help: "The pattern file.") var file: String
    @OptionGroup var port: PortOptions
    @Flag(help: "Only validate and compare with the board.") var dryRun = false
    @Flag(help: "Flash even when the board already holds this table.") var force = false

    func run() async throws {
      let text = try readText(file)
      let (client, info) = try await port.connect(options: BoardClientOptions(hello: Hello(window: 8)))
      // The same diagnostics as `patterns check --port`, each with its file:line:column; errors send nothing.
      guard reportDiagnostics(text: text, file: file, against: info.capabilities) else {
        await client.close()
        throw ExitCode(1)
      }
      let build: PatternBuild
      do {
        build = try PatternFile.build(text: text, file: file, against: info.capabilities)
      } catch {
        await client.close()
        throw CommandFailure("\(error)")
      }
      let flasher = TableFlasher(client: client, clock: ContinuousClock())
      let bar = ProgressBar(total: build.bytes.count)
      let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) {
        // The board keeps its old table; abandon the transfer so it is not left half-staged.
        Task {
          _ = try? await client.send(.tableAbort)
          await client.close()
          FileHandle.standardError.write(Data("\ninterrupted: the board keeps its previous table\n".utf8))
          Foundation.exit(130)
        }
      }
      defer { signals.cancel() }
      let report: TableFlasher<ContinuousClock>.Report
      do {
        report = try await flasher.flash(build.bytes, dryRun: dryRun, force: force) { done, total in bar.update(done) }
      } catch {
        await client.close()
        throw CommandFailure("\(error)")
      }
      await client.close()
      bar.finish()
      switch report.outcome {
      case .alreadyInstalled:
        print(
          "the board already has this table (version \(build.table.version), crc \(hex32(build.crc))); nothing to do")
      case .wouldFlash:
        print(
          "dry run: would flash \(build.bytes.count) bytes (version \(build.table.version), crc \(hex32(build.crc))), replacing version \(info.table.version)"
        )
      case .flashed:
        let ceiling = Double(port.baud) / 10
        print(
          String(
            format:
              "flashed %d bytes in %d chunks of %d: %.0f B/s (%.0f %% of the 8N1 ceiling at %d baud); verified; version %u active",
            report.bytes, report.chunks, report.chunkSize, report.throughput, 100 * report.throughput / ceiling,
            port.baud,
            report.installed.version))
        if report.resumptions > 0 {
          print(
            "the link gave up \(report.resumptions) time(s); the transfer resumed each time with smaller chunks (down to \(report.smallestChunkSize) bytes)"
          )
        }
      }
    }
  }
}

/// A progress bar on standard error (a terminal only).
final class ProgressBar: Sendable {
  private let total: Int
  /// Keeps one update's write whole against another's.
  private let writing = Mutex(())
  private let live = isatty(STDERR_FILENO) == 1

  init(total: Int) { self.total = max(total, 1) }

  func update(_ done: Int) {
    guard live else { return }
    let width = 40
    let filled = width * done / total
    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    writing.withLock { _ in FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) bytes".utf8)) }
  }

  func finish() {
    if live { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// Prints a pattern file's diagnostics (errors and warnings, each with its place) on standard error, as
/// `patterns check` and `flash` both do; returns false when there are errors.
func reportDiagnostics(text: String, file: String, against capabilities: Capabilities) -> Bool {
  let diagnostics = PatternFile.check(text: text, file: file, against: capabilities)
  for diagnostic in diagnostics { FileHandle.standardError.write(Data("\(diagnostic)\n".utf8)) }
  return !diagnostics.containsErrors
}

/// A decompiled pattern file: to `output` (saying so, with `note`), or to standard output.
func writePatternFile(_ yaml: String, to output: String?, note: String) throws {
  guard let output else { return print(yaml, terminator: "") }
  try yaml.write(toFile: output, atomically: true, encoding: .utf8)
  print("wrote \(output)\(note)")
}

/// Reads a pattern file, naming it when that fails; one over ``PatternFile/maximumBytes`` is refused unread.
func readText(_ path: String) throws -> String {
  if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > PatternFile.maximumBytes
  {
    throw CommandFailure(
      "\(path):1:1: error: the file is \(size) bytes, above the 1 MiB (\(PatternFile.maximumBytes) bytes) limit for a "
        + "pattern file; it was not read")
  }
  guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(path): cannot read it") }
  return String(decoding: data, as: UTF8.self)
}

/// The board's active table, or nil when it has none.
func readBoardTable(_ port: PortOptions) async throws -> [UInt8]? {
  let (client, _) = try await port.connect()
  defer { Task { await client.close() } }
  do {
    return try await TableFlasher(client: client, clock: ContinuousClock()).readInstalledTable()
  } catch {
    throw CommandFailure("reading the table: \(error)")
  }
}
