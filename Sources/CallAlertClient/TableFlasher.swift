import CallAlertProtocol

/// Installs a pattern table on a board: compares it with the installed one, transfers it with as many
/// chunks in flight as the session's window allows, commits it (the board writes it to its other slot
/// and switches atomically) and reads it back to verify. Interrupted anywhere, the board keeps its old
/// table; running again starts the transfer afresh.
public struct TableFlasher<C: Clock>: Sendable where C.Duration == Duration {
  /// What a flash did.
  public struct Report: Equatable, Sendable {
    /// What happened.
    public enum Outcome: Equatable, Sendable {
      /// The board already had this exact table (version, size and CRC).
      case alreadyInstalled
      /// Only checked (`--dry-run`): the table would be transferred.
      case wouldFlash
      /// Transferred, committed and verified.
      case flashed
    }

    /// What happened.
    public var outcome: Outcome
    /// The table's size.
    public var bytes: Int
    /// TABLE_DATA chunks sent (excluding retransmissions).
    public var chunks: Int
    /// The data bytes per chunk.
    public var chunkSize: Int
    /// Time from TABLE_BEGIN to the commit's answer.
    public var transferDuration: Duration
    /// Time to read the table back.
    public var verifyDuration: Duration
    /// The installed table after the flash.
    public var installed: TableSummary

    /// Table bytes per second during the transfer.
    public var throughput: Double {
      let seconds =
        Double(transferDuration.components.seconds) + Double(transferDuration.components.attoseconds) * 1e-18
      return seconds > 0 ? Double(bytes) / seconds : 0
    }
  }

  /// Why a flash failed; the board keeps its previous table in every case.
  public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The table does not fit the board.
    case doesNotFit(String)
    /// The table bytes are not a valid table.
    case invalidTable(PayloadError)
    /// The board refused or the link failed at a step.
    case step(String, BoardClientError)
    /// What the board holds after the commit is not what was sent.
    case verifyMismatch(offset: Int)

    /// A message naming the step and what to do.
    public var description: String {
      switch self {
      case .doesNotFit(let why): "the table does not fit this board: \(why)"
      case .invalidTable(let error): "not a valid pattern table: \(error)"
      case .step(let step, let error):
        "\(step) failed: \(error); the board keeps its previous table, run again to retry"
      case .verifyMismatch(let offset):
        "read-back differs from the table at byte \(offset); the board's flash may be failing"
      }
    }
  }

  private let client: BoardClient<C>
  private let clock: C

  /// Creates a flasher for a connected client.
  public init(client: BoardClient<C>, clock: C) {
    self.client = client
    self.clock = clock
  }

  /// Flashes `table` (encoded bytes). `progress` gets (bytes acknowledged, total) as chunks are answered.
  public func flash(
    _ table: [UInt8], dryRun: Bool = false, force: Bool = false,
    progress: @Sendable (Int, Int) -> Void = { _, _ in }
  ) async throws(Failure) -> Report {
    let header: PatternTableHeader
    do { header = try PatternTableHeader.read(table) } catch { throw .invalidTable(error) }
    let info: BoardInfo
    do { info = try await client.currentInfo() } catch { throw .step("GET_INFO", error) }
    let capabilities = info.capabilities
    if table.count > Int(capabilities.tableCapacity) {
      throw .doesNotFit("\(table.count) bytes, the board holds \(capabilities.tableCapacity)")
    }
    if header.slotCount > capabilities.patternSlots {
      throw .doesNotFit("\(header.slotCount) slots, the board has \(capabilities.patternSlots)")
    }
    let wanted = TableSummary(version: header.version, crc: header.crc, size: UInt32(table.count))
    var report = Report(
      outcome: .alreadyInstalled, bytes: table.count, chunks: 0, chunkSize: 0, transferDuration: .zero,
      verifyDuration: .zero, installed: info.table)
    if info.table == wanted && !force { return report }
    if dryRun {
      report.outcome = .wouldFlash
      return report
    }

    let started = clock.now
    let maxChunk: Int
    do throws(BoardClientError) {
      guard
        case .tableReady(let chunk) = try await client.send(.tableBegin(TableBegin(size: wanted.size, crc: wanted.crc)))
      else {
        throw BoardClientError.unexpectedReply(command: MessageType.tableBegin.rawValue)
      }
      maxChunk = max(1, min(Int(chunk), Int(capabilities.maxPayload) - 4))
    } catch { throw .step("TABLE_BEGIN", error) }

    // Every chunk is handed to the link at once, in offset order: the link keeps `window` in flight and
    // resends in order after a loss, so the line never idles waiting for an answer.
    let offsets = Array(stride(from: 0, to: table.count, by: maxChunk))
    let chunks = offsets.map {
      Command.tableData(offset: UInt32($0), bytes: Array(table[$0..<min($0 + maxChunk, table.count)]))
    }
    var done = 0
    let results: [Result<Reply, BoardClientError>]
    do {
      results = try await client.send(inOrder: chunks) { index, result in
        guard case .success = result else { return }
        done += min(maxChunk, table.count - offsets[index])
        progress(done, table.count)
      }
    } catch { throw .step("TABLE_DATA", error) }
    for case .failure(let error) in results {
      _ = try? await client.send(.tableAbort)
      throw .step("TABLE_DATA", error)
    }
    do throws(BoardClientError) {
      guard case .tableCommitted(let summary) = try await client.send(.tableCommit(crc: wanted.crc)) else {
        throw BoardClientError.unexpectedReply(command: MessageType.tableCommit.rawValue)
      }
      report.installed = summary
    } catch { throw .step("TABLE_COMMIT", error) }
    report.transferDuration = started.duration(to: clock.now)
    report.chunks = offsets.count
    report.chunkSize = maxChunk

    let verifyStarted = clock.now
    let readBack: [UInt8]
    do { readBack = try await read(area: .active, size: table.count, chunk: Int(capabilities.maxPayload)) } catch {
      throw .step("TABLE_READ", error)
    }
    if let offset = zip(readBack, table).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
      throw .verifyMismatch(offset: offset)
    }
    if readBack.count != table.count || report.installed != wanted {
      throw .verifyMismatch(offset: min(readBack.count, table.count))
    }
    report.verifyDuration = verifyStarted.duration(to: clock.now)
    report.outcome = .flashed
    return report
  }

  /// Reads `size` bytes of a table area, `chunk` bytes per TABLE_READ, as many requests in flight as the
  /// session's window allows.
  public func read(area: TableArea, size: Int, chunk: Int) async throws(BoardClientError) -> [UInt8] {
    let step = max(1, min(chunk, Int(UInt16.max)))
    let requests = stride(from: 0, to: size, by: step).map {
      Command.tableRead(TableRead(area: area, offset: UInt32($0), length: UInt16(min(step, size - $0))))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    for result in try await client.send(inOrder: requests) {
      guard case .tableBytes(let read) = try result.get() else {
        throw .unexpectedReply(command: MessageType.tableRead.rawValue)
      }
      bytes += read
    }
    return bytes
  }

  /// Reads the board's active table whole (for `patterns pull` and `patterns list`); nil when none.
  public func readInstalledTable() async throws(BoardClientError) -> [UInt8]? {
    let info = try await client.currentInfo()
    guard info.table.size > 0 else { return nil }
    return try await read(area: .active, size: Int(info.table.size), chunk: Int(info.capabilities.maxPayload))
  }
}
