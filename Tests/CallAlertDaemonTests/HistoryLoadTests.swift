import CallAlertControl
import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Clocks
import Dispatch
import Foundation
import Logging
import Synchronization
import Testing

@testable import CallAlertDaemon

/// The history under load: calls and hangups handed in as fast as a loop can, on a healthy disk, on an idle
/// machine and beside two CPU-bound threads. Nothing is lost: the sources wait for room instead. Timers are
/// on a test clock that never moves, so no stall lets intake through: what these tests see is back-pressure
/// alone. (On main, which dropped instead, 20 000 pairs lost 20 649 writes, left 9 675 calls and made 15 of
/// them false missed calls.)
@Suite("History under load", .serialized, .timeLimit(.minutes(1)))
struct HistoryLoadTests {
  static let start = Date(timeIntervalSince1970: 1_800_000_000)

  /// A history file in a fresh folder, removed by `cleanup`.
  static func temporaryPath() -> (path: String, cleanup: @Sendable () -> Void) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-load-\(UUID().uuidString)")
    return (folder.appendingPathComponent("history.sqlite").path, { try? FileManager.default.removeItem(at: folder) })
  }

  /// What `pairs` calls and their ends left: the rows by outcome, and the longest queue seen.
  struct Result {
    var rows: [CallRecord]
    var health: HistoryHealth
    var longestQueue: Int
    var waits: Int
    var seconds: Double
  }

  /// Hands in `pairs` calls, each followed by its end (hung up, answered or acknowledged in turn), as fast
  /// as it can, asking for room after each pair as the daemon's sources do; then stops as the daemon does
  /// (calls still ringing closed as interrupted) and reads the file.
  static func run(pairs: Int) async throws -> Result {
    let (path, cleanup) = temporaryPath()
    defer { cleanup() }
    let writer = HistoryWriter(path: path, keepDays: 90, clock: TestClock(), logger: Logger(label: "test"))
    _ = await writer.start()
    let began = ContinuousClock.now
    var longestQueue = 0
    var waits = 0
    let reasons: [StopReason] = [.hangup, .answered, .acknowledged]
    for index in 0..<pairs {
      let at = start + Double(index) * 0.001
      writer.record(
        .ringing(IncomingCall(id: "c\(index)"), boards: ["desk"], pattern: .slot(0), capMs: 30_000, silent: false),
        at: at)
      writer.record(.stopped(callID: "c\(index)", reason: reasons[index % 3]), at: at + 0.0005)
      longestQueue = max(longestQueue, writer.health.pending)
      if writer.isBehind {
        waits += 1
        await writer.waitForRoom()
      }
    }
    await writer.closeInterrupted(at: start + Double(pairs))
    await writer.stop()
    let elapsed = began.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rows = try CallHistory.reading(path: path).calls(limit: pairs * 2)
    return Result(rows: rows, health: writer.health, longestQueue: longestQueue, waits: waits, seconds: seconds)
  }

  static func check(_ result: Result, pairs: Int) {
    #expect(result.health.lost == 0 && result.health.pending == 0 && result.health.state == .ok)
    #expect(result.rows.count == pairs, "every call is in the history")
    let outcomes: [CallOutcome] = [.hungUp, .answered, .acknowledged]
    let wrong = result.rows.filter { row in
      guard let index = Int(row.id.dropFirst()) else { return true }
      return row.outcome != outcomes[index % 3] || row.missed || row.endedAt == nil
    }
    #expect(wrong.isEmpty, "each with its true outcome, none missed: \(wrong.prefix(3).map(\.id))")
    #expect(result.longestQueue <= HistoryWriter.intakeLimit + 2, "the queue is bounded by the intake's wait")
  }

  /// Fails on main (no `waitForRoom`; the queue overflowed and dropped). Under 20 s in a debug build.
  @Test func tensOfThousandsOfCallsAndHangupsAreAllWrittenWithTheirOutcomes() async throws {
    let pairs = 30_000
    let result = try await Self.run(pairs: pairs)
    Self.check(result, pairs: pairs)
    #expect(result.seconds < 20)
    print(
      "history under load: \(pairs) pairs in \(result.seconds) s, \(result.waits) waits, longest queue \(result.longestQueue)"
    )
  }

  /// Two threads spin beside the writer, as two CPU-bound processes on a small machine: its idle thread gets
  /// next to nothing, the busy one writes the backlog. (With both threads in the idle class, 10 000 pairs took
  /// 18.5 s here; 0.4 s as it is.)
  @Test func aMachineBusyWithOtherWorkSlowsTheHistoryButLosesNothing() async throws {
    let spinning = Atomic<Bool>(true)
    let spinners = (0..<2).map { _ in
      let thread = Thread {
        var counter = 0
        while spinning.load(ordering: .relaxed) { counter &+= 1 }
      }
      thread.name = "test spinner"
      return thread
    }
    for spinner in spinners { spinner.start() }
    defer { spinning.store(false, ordering: .relaxed) }
    let pairs = 10_000
    let result = try await Self.run(pairs: pairs)
    spinning.store(false, ordering: .relaxed)
    Self.check(result, pairs: pairs)
    #expect(result.seconds < 10)
    print("history under load, two spinners: \(pairs) pairs in \(result.seconds) s, \(result.waits) waits")
  }
}
