import CallAlertDaemon
import CallAlertEngine
import CallAlertHTTP
import CallAlertPatterns
import CallAlertValues
// Full Foundation, not FoundationEssentials: the file errors' localizedDescription.
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension DaemonAddOn {
  /// The page's *Save and flash* over the daemon, when the config names a pattern file: the text is built and
  /// checked as a start would (``DaemonAddOnContext/buildPatterns``), written as the file (atomically; a text
  /// that does not build writes nothing), and put on every board, each board's progress kept for the page.
  static func patternFlashing(_ context: DaemonAddOnContext) -> PatternFlashing? {
    guard let path = context.configuration.patternsFile else { return nil }
    let boards = context.configuration.engine.boards.map(\.name)
    let states = FlashStates()
    return PatternFlashing(
      file: path,
      text: {
        guard let data = FileManager.default.contents(atPath: path), data.count <= PatternFile.maximumBytes else {
          return nil
        }
        return String(data: data, encoding: .utf8)
      },
      flash: { text in
        let build: PatternBuild
        do throws(DaemonStartError) {
          build = try context.buildPatterns(text, path)
        } catch {
          return error.description
        }
        let size = build.bytes.count
        // One flash at a time: a second one (another tab, a double click) while boards still take the first, or
        // wait for a ring to end, would race it on the same boards. Checked and claimed at once.
        let claimed = states.value.withLock { states in
          guard states.values.allSatisfy(\.ended) else { return false }
          states = Dictionary(
            uniqueKeysWithValues: boards.map {
              ($0, PatternFlashing.BoardState(board: $0, bytes: 0, of: size, state: "starting", ended: false))
            })
          return true
        }
        guard claimed else { return "a flash is still going on (see above); save again once it has ended" }
        do {
          try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: [.atomic])
        } catch {
          let why = "\(path): cannot be written: \(error.localizedDescription)"
          states.value.withLock { $0 = [:] }
          return why
        }
        context.logger.notice("http: \(path) saved from the page; putting it on the boards")
        Task {
          // A board that waited for its ring to end reports its end later, through `progress`.
          let outcomes = await context.installPatterns(build) { board, progress in
            states.value.withLock { states in
              if let ended = progress.ended {
                states[board] = Self.ended(board, ended, size: size)
              } else {
                states[board] = PatternFlashing.BoardState(
                  board: board, bytes: progress.bytes, of: progress.of, state: "flashing", ended: false)
              }
            }
          }
          states.value.withLock { states in
            // A board whose deferred flash has ended already (reported through `progress`) keeps that end.
            for (board, outcome) in outcomes where states[board]?.ended != true {
              states[board] = Self.ended(board, outcome, size: size)
            }
          }
        }
        return nil
      },
      progress: {
        let now = states.value.withLock { $0 }
        return boards.compactMap { now[$0] }
      })
  }

  /// A board's flash that ended (or waits for the board), as the page shows it.
  private static func ended(_ board: String, _ outcome: TableInstallOutcome, size: Int) -> PatternFlashing.BoardState {
    var bytes = 0
    var failed = false
    switch outcome {
    case .installed, .alreadyInstalled, .inUse: bytes = size
    case .failed: failed = true
    case .waitsForRingToEnd, .waitsForTheBoard: break
    }
    // Waiting for a ring to end or for the board is not an end: the page keeps following it.
    let waits = outcome == .waitsForRingToEnd || outcome == .waitsForTheBoard
    return PatternFlashing.BoardState(
      board: board, bytes: bytes, of: size, state: outcome.description, ended: !waits, failed: failed)
  }
}

/// Each board's flash as the page shows it, shared by the flash's task and the page's requests.
final class FlashStates: Sendable {
  let value = Mutex<[String: PatternFlashing.BoardState]>([:])
}
