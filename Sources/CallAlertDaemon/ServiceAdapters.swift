import ServiceLifecycle

/// Runs an async body as a service that stops when graceful shutdown (SIGINT/SIGTERM) begins.
struct TaskService: Service {
  let body: @Sendable () async -> Void

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await body()
    }
  }
}

extension TaskService {
  /// Returns when the task is cancelled (graceful shutdown): a service whose work ended on its own waits here
  /// for its turn, since a group in graceful shutdown takes a service that ends out of turn for a failure.
  static func untilCancelled() async {
    while !Task.isCancelled {
      do { try await Task.sleep(for: .seconds(3_600)) } catch { return }
    }
  }
}
