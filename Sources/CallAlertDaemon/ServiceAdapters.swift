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
