import CallAlertProtocol

/// Installs a pattern table on a board: compares it with the installed one, transfers it with as many
/// chunks in flight as the session's window allows, commits it (the board writes it to its other slot
/// and switches atomically) and reads it back to verify. Interrupted anywhere, the board keeps its old
/// table; running again starts the transfer afresh.
///
/// On a lossy line a large frame rarely arrives whole (with one byte in a thousand damaged, four 1 KiB
/// frames in five are), so when the link gives up on a chunk the transfer is not abandoned: it resumes
/// where the board's status says the staged bytes end (PROTOCOL.md §13.7), with chunks half as large, down to
/// ``minimumChunk``. It fails only after ``maximumStalls`` resumptions in a row that gained nothing. Reads
/// back shrink their requests the same way.
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
    /// TABLE_DATA chunks the board acknowledged (resumed transfers count each chunk that was answered).
    public var chunks: Int
    /// The data bytes per chunk at the start.
    public var chunkSize: Int
    /// How many times the transfer was resumed from the board's status after the link gave up on a chunk.
    public var resumptions = 0
    /// The smallest chunk size used (smaller than ``chunkSize`` after resumptions on a lossy line).
    public var smallestChunkSize = 0
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

  /// The smallest chunk a lossy line shrinks transfers and reads to.
  public static var minimumChunk: Int { 64 }
  /// Resumptions in a row without progress before a transfer or a read fails.
  public static var maximumStalls: Int { 4 }
  /// TABLE_READs in flight at once. Each answer carries up to 1 KiB and go-back-N resends every request in
  /// flight after one lost answer, each answered in full again: with the whole window of 8 a lossy line
  /// backs up with repeated answers until even HELLO cannot get through. Two cost about 4 % on a clean line.
  public static var readsInFlight: Int { 2 }

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
        throw BoardClientError.unexpectedReply(command: .tableBegin)
      }
      maxChunk = max(1, min(Int(chunk), await payloadLimit(board: capabilities) - 4))
    } catch { throw .step("TABLE_BEGIN", error) }

    do throws(BoardClientError) {
      try await transfer(table, chunk: maxChunk, report: &report, progress: progress)
    } catch {
      _ = try? await client.send(.tableAbort)
      throw .step("TABLE_DATA", error)
    }
    do throws(BoardClientError) {
      guard case .tableCommitted(let summary) = try await client.send(.tableCommit(crc: wanted.crc)) else {
        throw BoardClientError.unexpectedReply(command: .tableCommit)
      }
      report.installed = summary
    } catch { throw .step("TABLE_COMMIT", error) }
    report.transferDuration = started.duration(to: clock.now)

    let verifyStarted = clock.now
    let readBack: [UInt8]
    do {
      readBack = try await read(area: .active, size: table.count, chunk: await payloadLimit(board: capabilities))
    } catch {
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

  /// Sends the table's bytes as TABLE_DATA, every chunk handed to the link at once in offset order (the link
  /// keeps `window` in flight and resends in order after a loss, so the line never idles waiting for an
  /// answer); resumes from the board's status with smaller chunks when the link gives up on one.
  private func transfer(
    _ table: [UInt8], chunk: Int, report: inout Report, progress: @Sendable (Int, Int) -> Void
  ) async throws(BoardClientError) {
    report.chunkSize = chunk
    report.smallestChunkSize = chunk
    var size = chunk
    var offset = 0
    var acknowledged = 0
    var best = 0  // the furthest the board has been seen to hold
    var stalls = 0
    while offset < table.count {
      let offsets = Array(stride(from: offset, to: table.count, by: size))
      let commands = offsets.map { start in
        Command.tableData(offset: UInt32(start), bytes: Array(table[start..<min(start + size, table.count)]))
      }
      let chunkSize = size
      let results = try await client.send(inOrder: commands) { index, result in
        guard case .success = result else { return }
        let end = min(offsets[index] + chunkSize, table.count)
        if end > acknowledged {
          acknowledged = end
          progress(acknowledged, table.count)
        }
      }
      report.chunks += results.count { if case .success = $0 { true } else { false } }
      guard let failure = results.lazy.compactMap({ if case .failure(let error) = $0 { error } else { nil } }).first
      else { return }
      // The link gave up (a lossy line) or a chunk came after one the board missed: carry on from what the
      // board holds. Anything else (the board's flash failed, it restarted, the port went) ends the flash.
      switch failure {
      case .timeout: break
      case .nak(_, let nak) where nak.code == .badOffset: break
      default: throw failure
      }
      let status = try await client.status()
      guard status.transferActive, status.transferSize == UInt32(table.count),
        Int(status.transferReceived) <= table.count
      else { throw failure }
      let resumed = Int(status.transferReceived)
      stalls = resumed > best ? 0 : stalls + 1
      best = max(best, resumed)
      if stalls >= Self.maximumStalls { throw failure }
      offset = resumed
      if resumed > acknowledged {
        acknowledged = resumed
        progress(acknowledged, table.count)
      }
      size = Self.halved(size)
      report.smallestChunkSize = min(report.smallestChunkSize, size)
      report.resumptions += 1
    }
  }

  /// Reads `size` bytes of a table area, `chunk` bytes per TABLE_READ, ``readsInFlight`` requests at a time.
  /// When the link gives up on a request, the reading goes on from there with requests half as large (see
  /// the type's discussion).
  public func read(area: TableArea, size: Int, chunk: Int) async throws(BoardClientError) -> [UInt8] {
    var step = max(1, min(chunk, Int(UInt16.max)))
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    var stalls = 0
    while bytes.count < size {
      let requests = stride(from: bytes.count, to: size, by: step).prefix(Self.readsInFlight).map {
        Command.tableRead(TableRead(area: area, offset: UInt32($0), length: UInt16(min(step, size - $0))))
      }
      let before = bytes.count
      var failure: BoardClientError?
      answers: for (request, result) in zip(requests, try await client.send(inOrder: requests)) {
        switch result {
        case .success(.tableBytes(let read)):
          bytes += read
          // An empty answer means the area ends here; a short one that the rest of the batch starts too far
          // on: read on from where it ended.
          if read.isEmpty { return bytes }
          guard case .tableRead(let asked) = request, read.count == Int(asked.length) else { break answers }
        case .success:
          throw .unexpectedReply(command: .tableRead)
        case .failure(let error):
          failure = error
          break answers
        }
      }
      guard let failure else { continue }
      guard case .timeout = failure else { throw failure }
      stalls = bytes.count > before ? 0 : stalls + 1
      if stalls >= Self.maximumStalls { throw failure }
      step = Self.halved(step)
    }
    return bytes
  }

  /// Reads the board's active table whole (for `patterns pull` and `patterns list`); nil when none.
  public func readInstalledTable() async throws(BoardClientError) -> [UInt8]? {
    let info = try await client.currentInfo()
    guard info.table.size > 0 else { return nil }
    return try await read(
      area: .active, size: Int(info.table.size), chunk: await payloadLimit(board: info.capabilities))
  }

  /// Half of `size`, but not below ``minimumChunk`` (nor above `size`, when it is already smaller).
  private static func halved(_ size: Int) -> Int { max(min(size, minimumChunk), size / 2) }

  /// The largest payload this session carries: the negotiated one, or the board's own before a session.
  private func payloadLimit(board capabilities: Capabilities) async -> Int {
    await client.terms?.maxPayload ?? Int(capabilities.maxPayload)
  }
}
