import CallAlertClient
import CallAlertPatterns
import CallAlertProtocol
import Logging

/// A connected board's pattern table, as the daemon needs it: read on connect, so that pattern names and
/// the steps of its slots are known (``PatternResolver``), and, when the config names a pattern file,
/// brought in line with that file.
///
/// When the board's table (version, size, CRC in INFO) differs from the file's, the file's table is
/// flashed with ``TableFlasher``: transferred, committed atomically (the board keeps its old table if
/// anything fails) and read back to verify. A board that is ringing is not flashed; the flash waits until
/// nothing plays (the driver runs the sync again then). Every step is logged.
struct BoardTableSync<C: Clock>: Sendable where C.Duration == Duration {
  /// What the sync found or did.
  struct Outcome: Sendable {
    /// The board's table now; nil when it has none (or it could not be read).
    var table: PatternTable?
    /// Whether ``table`` is known (read, or just installed); false after a link failure.
    var known: Bool
    /// Whether a flash is due but waits until the board stops ringing.
    var flashDeferred = false
    /// How installing the wanted table went; nil when none is wanted.
    var install: TableInstallOutcome? = nil
  }

  /// The board's name, for the log.
  let board: String
  /// The table the config's pattern file compiles to; nil: none, only read the board's.
  let wanted: PatternBuild?
  let clock: C
  let logger: Logger
  /// Told the bytes the board acknowledged, of the table's, as a flash goes.
  var progress: @Sendable (TableInstallProgress) -> Void = { _ in }

  /// Flashes the wanted table if the board's differs and `mayFlash` says nothing plays, then returns the
  /// board's table.
  func run(client: BoardClient<C>, mayFlash: @Sendable () async -> Bool) async -> Outcome {
    let flasher = TableFlasher(client: client, clock: clock)
    var failure: String?
    if let wanted {
      switch await install(wanted, with: flasher, client: client, mayFlash: mayFlash) {
      case .success(let outcome): return outcome
      case .failure(let why): failure = why.description
      }
    }
    var outcome = await read(with: flasher)
    if let failure { outcome.install = .failed(failure) }
    return outcome
  }

  /// Why installing failed, for the caller to say after reading what the board has.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Installs `wanted` when the board's table differs, or says why it did not (the caller then reads what
  /// the board has); a flash deferred until the ring ends reads the board's table itself.
  private func install(
    _ wanted: PatternBuild, with flasher: TableFlasher<C>, client: BoardClient<C>, mayFlash: () async -> Bool
  ) async -> Result<Outcome, Failure> {
    let file = wanted.file.path
    let info: BoardInfo
    do { info = try await client.currentInfo() } catch {
      logger.warning("board \(board): cannot check its pattern table: \(error)")
      return .failure(Failure(description: "cannot check its pattern table: \(error)"))
    }
    let wantedSummary = TableSummary(version: wanted.table.version, crc: wanted.crc, size: UInt32(wanted.bytes.count))
    if info.table == wantedSummary {
      logger.info("board \(board): pattern table matches \(file) (v\(wanted.table.version))")
      return .success(
        Outcome(table: wanted.table, known: true, install: .alreadyInstalled(version: wanted.table.version)))
    }
    // A sync the board's return (or a newer flash) took over does not flash: the one that took over does, and
    // two flashes at once would each restart the other's transfer.
    if Task.isCancelled { return .success(Outcome(table: nil, known: false)) }
    guard await mayFlash() else {
      logger.notice("board \(board): pattern table differs from \(file); flashing it once the board stops ringing")
      var outcome = await read(with: flasher)
      outcome.flashDeferred = true
      outcome.install = .waitsForRingToEnd
      return .success(outcome)
    }
    let differs =
      "board \(board): pattern table v\(info.table.version) (CRC \(hex(info.table.crc))) differs from \(file) "
      + "v\(wanted.table.version) (CRC \(hex(wanted.crc))); flashing"
    logger.notice("\(differs)")
    let progress = self.progress
    do {
      let report = try await flasher.flash(wanted.bytes) { done, total in
        progress(TableInstallProgress(bytes: done, of: total))
      }
      logger.notice(
        "board \(board): flashed \(file): \(report.bytes) bytes, verified, v\(report.installed.version) now active")
      // The INFO the client keeps (what `status` reports) still names the old table: asked again.
      _ = try? await client.currentInfo()
      return .success(Outcome(table: wanted.table, known: true, install: .installed(version: report.installed.version)))
    } catch {
      logger.error("board \(board): flashing \(file) failed: \(error)")
      return .failure(Failure(description: "flashing failed: \(error)"))
    }
  }

  /// Reads the board's active table.
  private func read(with flasher: TableFlasher<C>) async -> Outcome {
    do {
      guard let bytes = try await flasher.readInstalledTable() else { return Outcome(table: nil, known: true) }
      return Outcome(table: try PatternTable.decode(bytes), known: true)
    } catch {
      logger.warning("board \(board): cannot read its pattern table: \(error)")
      return Outcome(table: nil, known: false)
    }
  }

  private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
  }
}
