import CallAlertBoardCore
import CallAlertDaemon
import CallAlertEngine
import CallAlertLights
import CallAlertTransport
import CallAlertVirtualBoard
import ServiceLifecycle
import Synchronization

extension BoardSource {
  /// Every configured board as an in-process virtual board on an in-memory line, in real time: what
  /// `callalert run --simulate` hands the daemon. Each board's serial number is the configured one, else
  /// `VB-<name>`. A board that is a light becomes a ``VirtualLight`` of its kind, recording its reports in its
  /// `timeline:` file when it has one.
  public static func virtualBoards() -> BoardSource {
    virtualBoards(clock: ContinuousClock())
  }

  /// The in-process boards of ``virtualBoards()`` on `clock`: the daemon's own clock, so that a test driving
  /// a test clock drives the daemon and its boards together. `created` and `createdLight` are told each board
  /// and light made, by name.
  public static func virtualBoards<C: Clock<Duration>>(
    clock: C, created: (@Sendable (String, VirtualBoardRunner<C>) -> Void)? = nil,
    createdLight: (@Sendable (String, VirtualLight<C>) -> Void)? = nil
  ) -> BoardSource {
    BoardSource { boards in
      var connectors: [String: BoardConnector] = [:]
      var lights: [String: LightConnection] = [:]
      var services: [any Service] = []
      for board in boards {
        if let kind = board.kind.lightKind {
          lights[board.name] = virtualLight(board, kind: kind, clock: clock, created: createdLight)
          continue
        }
        let (hostEnd, boardEnd) = MemoryTransport.pair(names: ("host", "virtual \(board.name)"))
        var configuration = BoardConfiguration.virtualDefault
        configuration.serial = Array((board.serialNumber ?? "VB-\(board.name)").utf8.prefix(32))
        let runner = VirtualBoardRunner(
          board: VirtualBoard(configuration: configuration), transport: boardEnd, clock: clock)
        created?(board.name, runner)
        services.append(VirtualBoardService(runner: runner))
        let handed = HandOnce(hostEnd)
        connectors[board.name] = { try handed.take() }
      }
      return Boards(connectors: connectors, lights: lights, services: services)
    }
  }

  /// A configured light as a virtual one; a timeline that cannot be written is reported when the daemon
  /// opens the light (its `not available` line names the file).
  private static func virtualLight<C: Clock<Duration>>(
    _ board: AlertBoard, kind: LightKind, clock: C, created: (@Sendable (String, VirtualLight<C>) -> Void)?
  ) -> LightConnection {
    let made = Result { () throws(LightDeviceError) -> VirtualLight<C> in
      try VirtualLight(
        kind: kind, name: "virtual \(kind.displayName) '\(board.name)'", timeline: board.timeline, clock: clock)
    }
    if case .success(let light) = made { created?(board.name, light) }
    return LightConnection(kind: kind, appearance: board.light, open: { try made.get() })
  }
}

/// An in-process board's runner as a service: it runs until graceful shutdown reaches it (SIGINT, SIGTERM),
/// and a board whose link the daemon closed first waits for its turn, since a group in graceful shutdown takes
/// a service that ends out of turn for a failure.
struct VirtualBoardService<C: Clock<Duration>>: Service {
  let runner: VirtualBoardRunner<C>

  func run() async throws {
    await cancelWhenGracefulShutdown {
      // On the runner's loop, its children too: the board's reads of its line, its writer and its wake-ups run
      // there, beside the daemon, instead of hopping through the concurrency pool for every chunk (and a test
      // that steps a test clock and lets the loop catch up sees the board act on every step).
      await withTaskExecutorPreference(runner.loop) { _ = try? await runner.run() }
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
