import CallAlertDaemon
import CallAlertHTTP
import CallAlertPatterns
import Foundation
import Synchronization

extension DaemonAddOn {
  /// The page's *Save and flash* over the daemon, when the config names a pattern file: the text is built and
  /// checked as a start would (``DaemonAddOnContext/buildPatterns``), written as the file (atomically; a text
  /// that does not build writes nothing), and put on every board, each board's progress kept for the page.
  static func patternFlashing(_ context: DaemonAddOnContext) -> PatternFlashing? {
    guard let path = context.configuration.patternsFile else { return nil }
    let boards = context.configuration.engine.boards.map(\.name)
    let states = Mutex<[String: PatternFlashing.BoardState]>([:])
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
        do {
          try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: [.atomic])
        } catch {
          return "\(path): cannot be written: \(error.localizedDescription)"
        }
        let size = build.bytes.count
        states.withLock { states in
          states = Dictionary(
            uniqueKeysWithValues: boards.map {
              ($0, PatternFlashing.BoardState(board: $0, bytes: 0, of: size, state: "starting", ended: false))
            })
        }
        context.logger.notice("http: \(path) saved from the page (v\(build.table.version)); putting it on the boards")
        Task {
          let outcomes = await context.installPatterns(build) { board, progress in
            states.withLock { states in
              states[board] = PatternFlashing.BoardState(
                board: board, bytes: progress.bytes, of: progress.of, state: "flashing", ended: false)
            }
          }
          states.withLock { states in
            for (board, outcome) in outcomes {
              var state = states[board] ?? PatternFlashing.BoardState(board: board, bytes: 0, of: size, state: "", ended: true)
              state.state = outcome.description
              state.ended = true
              if case .failed = outcome { state.failed = true }
              if case .installed = outcome { state.bytes = state.of }
              states[board] = state
            }
          }
        }
        return nil
      },
      progress: {
        let now = states.withLock { $0 }
        return boards.compactMap { now[$0] }
      })
  }
}
