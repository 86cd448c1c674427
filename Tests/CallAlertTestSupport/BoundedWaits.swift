import CallAlertTransport
import Clocks
import Synchronization

/// Advances `clock` in `step`s until `condition` holds; returns the virtual time it took, or nil when it
/// did not hold within `limit` (a bounded wait: a regression fails, never hangs).
public func advance(
  _ clock: TestClock<Duration>, by step: Duration = .milliseconds(10), within limit: Duration,
  until condition: () async -> Bool
) async -> Duration? {
  var elapsed = Duration.zero
  while elapsed <= limit {
    if await condition() { return elapsed }
    await clock.advance(by: step)
    await DescriptorEventLoop.shared.caughtUp()
    elapsed += step
  }
  return nil
}

/// Runs `body` in its own task and returns its result, or nil when it has not finished within `seconds`:
/// a watchdog, so that a wait left without an answer fails the test instead of hanging the run. A body
/// that ignores cancellation is left behind rather than waited for.
public func finishing<T: Sendable>(
  within seconds: Double, _ body: @escaping @Sendable () async -> T
) async -> T? {
  let (stream, continuation) = AsyncStream.makeStream(of: T?.self)
  let work = Task { continuation.yield(await body()) }
  let watchdog = Task {
    try? await Task.sleep(for: .seconds(seconds))
    continuation.yield(nil)
  }
  var iterator = stream.makeAsyncIterator()
  let first = await iterator.next() ?? nil
  watchdog.cancel()
  work.cancel()
  continuation.finish()
  return first
}

/// Runs `body` while advancing `clock` in `step`s, until `body` finishes; its result, or nil when it has
/// not finished within `limit` of virtual time (then it is cancelled). For work whose every wait is on
/// `clock` (a client, a board runner and paced lines sharing one test clock): time moves only between
/// steps, so a timing assertion holds however loaded the machine is.
public func driving<T: Sendable>(
  _ clock: TestClock<Duration>, by step: Duration = .milliseconds(1), within limit: Duration,
  _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
  let done = Mutex(false)
  let work = Task {
    defer { done.withLock { $0 = true } }
    return try await body()
  }
  var elapsed = Duration.zero
  while elapsed <= limit {
    if done.withLock({ $0 }) { return try await work.value }
    await clock.advance(by: step)
    await DescriptorEventLoop.shared.caughtUp()
    elapsed += step
  }
  work.cancel()
  return nil
}

extension DescriptorEventLoop {
  /// Returns once the loop has run what was handed to it before this call, and what that handed in, `rounds`
  /// deep. The daemon's actors run on the loop's thread, not on the test's: a test that steps a test clock
  /// lets them act on each step before the next, or virtual time runs ahead of them (a deaf board's PLAY
  /// then never got to fail within its 5 s).
  public func caughtUp(rounds: Int = 3) async {
    for _ in 0..<rounds {
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in execute { done.resume() } }
    }
  }
}

/// Asks `answer` again every `interval` until `holds` accepts what it returned, at most `seconds`; the last
/// answer either way. For a state another process reaches in its own time (a daemon whose board is still
/// connecting under load): a bounded wait, where one look would race it.
public func answer<T: Sendable>(
  within seconds: Double, every interval: Duration = .milliseconds(50), _ answer: () async throws -> T,
  until holds: (T) -> Bool
) async rethrows -> T {
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
  var last = try await answer()
  while !holds(last), ContinuousClock.now < deadline {
    try? await Task.sleep(for: interval)
    last = try await answer()
  }
  return last
}

/// The first element of `stream` satisfying `predicate` within `seconds` of real time; nil if none (a bounded
/// wait for a child's output or a client's events, where no test clock drives the other side).
public func firstElement<T: Sendable>(
  of stream: AsyncStream<T>, within seconds: Double, where predicate: @escaping @Sendable (T) -> Bool
) async -> T? {
  await withTaskGroup(of: T?.self) { group in
    group.addTask {
      for await element in stream where predicate(element) { return element }
      return nil
    }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))
      return nil
    }
    let first = await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
