import CallAlertBoardCore
import CallAlertDaemon
import CallAlertEngine
import CallAlertTransport
import CallAlertVirtualBoard
import ServiceLifecycle
import Synchronization

extension BoardSource {
  /// Every configured board as an in-process virtual board on an in-memory line, in real time: what
  /// `callalert run --simulate` hands the daemon. Each board's serial number is the configured one, else
  /// `VB-<name>`.
  public static func virtualBoards() -> BoardSource {
    BoardSource { boards in
      var connectors: [String: AlertService<ContinuousClock>.Connector] = [:]
      var services: [any Service] = []
      for board in boards {
        let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "virtual \(board.name)"))
        var configuration = BoardConfiguration.virtualDefault
        configuration.serial = Array((board.serialNumber ?? "VB-\(board.name)").utf8.prefix(32))
        let runner = VirtualBoardRunner(
          board: VirtualBoard(configuration: configuration), transport: boardEnd, clock: ContinuousClock())
        VirtualBoards.created?(board.name, runner)
        services.append(VirtualBoardService(runner: runner))
        let handed = HandOnce(hostEnd)
        connectors[board.name] = { try handed.take() }
      }
      return Boards(connectors: connectors, services: services)
    }
  }
}

/// Hooks into the virtual boards `BoardSource.virtualBoards()` makes.
public enum VirtualBoards {
  /// Called with each in-process board made, by name: lets tests read its timeline.
  @TaskLocal public static var created: (@Sendable (String, VirtualBoardRunner<ContinuousClock>) -> Void)?
}

/// An in-process board's runner as a service: it runs until graceful shutdown reaches it (SIGINT, SIGTERM),
/// and a board whose link the daemon closed first waits for its turn, since a group in graceful shutdown takes
/// a service that ends out of turn for a failure.
struct VirtualBoardService: Service {
  let runner: VirtualBoardRunner<ContinuousClock>

  func run() async throws {
    await cancelWhenGracefulShutdown {
      _ = try? await runner.run()
      await untilCancelled()
    }
  }

  private func untilCancelled() async {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    await withTaskCancellationHandler {
      for await _ in stream {}
    } onCancel: {
      continuation.finish()
    }
  }
}

/// Hands a value out once (an in-process board's transport); later calls fail, as an unplugged port would.
final class HandOnce<Value: Sendable>: Sendable {
  private let value: Mutex<Value?>

  init(_ value: Value) {
    self.value = Mutex(value)
  }

  func take() throws(TransportError) -> Value {
    guard
      let value = value.withLock({ current in
        defer { current = nil }; return current
      })
    else {
      throw TransportError.disconnected("the in-process virtual board")
    }
    return value
  }
}
