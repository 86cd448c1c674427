/// One subscriber to the service's events: its stream's continuation and the shape it wants each event in,
/// applied as the event is published.
struct EventSubscriber<Published: Sendable>: Sendable {
  let yield: @Sendable (Published) -> Void
  let finish: @Sendable () -> Void

  init<Element: Sendable>(
    _ continuation: AsyncStream<Element>.Continuation, _ transform: @escaping @Sendable (Published) -> Element
  ) {
    yield = { continuation.yield(transform($0)) }
    finish = { continuation.finish() }
  }
}
