import CallAlertTestSupport
import CallAlertTransport
import Synchronization
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opens, uses and closes descriptor channels thousands of times at once, closing from both sides at random
/// moments, mid-write and mid-read, so that every order of hang-up, local close, cancel handlers and reused
/// descriptor numbers happens. A crash (the latency benchmark's SIGILL inside libdispatch) ends the process;
/// a channel that never ends (a lost wake-up) ends the test at the deadline with the stuck channels' states;
/// a hang-up reported as anything but `disconnected` (ECONNRESET, before) fails it at once.
@Suite("Descriptor channels under concurrent open, use and close")
struct DescriptorChannelStressTests {
  /// How many channel pairs, across how many concurrent tasks, within what time.
  static let pairs = 20_000
  static let tasks = 8
  static let deadline = Duration.seconds(90)

  @Test(
    "20 000 socket-pair channel pairs across 8 tasks, written and closed from both sides",
    .timeLimit(.minutes(3)))
  func openUseClose() async throws {
    let inFlight = Shared<[Int: (DescriptorChannel, DescriptorChannel)]>([:])
    let failures = Shared<[String]>([])
    let finished = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await withTaskGroup(of: Void.self) { workers in
          for worker in 0..<Self.tasks {
            workers.addTask {
              var random = SplitMix(seed: UInt64(worker) &+ 1)
              for index in stride(from: worker, to: Self.pairs, by: Self.tasks) {
                do {
                  let (a, b) = try Self.channelPair(index, random: &random)
                  inFlight.withLock { $0[index] = (a, b) }
                  if let problem = await Self.exercise(a, b, random: &random) {
                    failures.withLock { $0.append("pair \(index): \(problem)") }
                  }
                  inFlight.withLock { _ = $0.removeValue(forKey: index) }
                } catch {
                  failures.withLock { $0.append("pair \(index): \(error)") }
                }
              }
            }
          }
        }
        return true
      }
      group.addTask {
        try? await Task.sleep(for: Self.deadline)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    let stuck = inFlight.withLock { pairs in
      pairs.values.map { "\($0.0.stateDescription) | \($0.1.stateDescription)" }
    }
    #expect(finished, "not done within \(Self.deadline); stuck: \(stuck.joined(separator: "; "))")
    let failed = failures.withLock { $0 }
    #expect(failed.isEmpty, "\(failed.count) pairs failed, the first: \(failed.prefix(3).joined(separator: "; "))")
  }

  /// Two connected channels on a Unix socket pair. (Pseudo-terminal pairs get the same treatment in
  /// CallAlertSerialTests, which can open them.)
  /// The stress runs on a loop of its own: on the process's shared loop its 40 000 channels kept that thread
  /// busy for seconds, and every other suite's board client and daemon in this process (they run on the shared
  /// loop) missed its link deadlines meanwhile ("HELLO got no answer from the board after every retry").
  static let loop = DescriptorEventLoop(name: "stress loop")

  static func channelPair(_ index: Int, random: inout SplitMix) throws -> (DescriptorChannel, DescriptorChannel) {
    try socketPairChannels(names: ("a\(index)", "b\(index)"), loop: loop)
  }

  /// Each side writes a random number of random-sized chunks (up to 70 KB, beyond a socket's buffer) and closes
  /// after a random one, sometimes at once from another task; each reader stops after a random number of
  /// bytes and closes its end. Returns what went wrong, or nil.
  static func exercise(_ a: DescriptorChannel, _ b: DescriptorChannel, random: inout SplitMix) async -> String? {
    let ends = [a, b]
    let stops = ends.map { _ in random.below(400_000) }
    let plans = ends.map { _ in
      (
        writes: random.below(24), size: 1 + random.below(70_000), closeAfter: random.below(24),
        early: random.below(5) == 0
      )
    }
    let readers = zip(ends, stops).map { channel, stop in
      Task { () -> String? in
        var count = 0
        do {
          for try await chunk in channel.incoming {
            count += chunk.count
            if count > stop { break }
          }
        } catch let error as TransportError where error.code == .disconnected {
        } catch {
          return "\(channel.name) read failed: \(error)"
        }
        channel.close()
        return nil
      }
    }
    let writeProblems = await withTaskGroup(of: String?.self) { group in
      for (channel, plan) in zip(ends, plans) {
        group.addTask {
          if plan.early { Task { channel.close() } }
          let bytes = [UInt8](repeating: 0x5A, count: plan.size)
          for index in 0..<plan.writes {
            if index == plan.closeAfter { channel.close() }
            do throws(TransportError) {
              try await channel.write(bytes)
            } catch  where error.code == .closed || error.code == .disconnected {
              break
            } catch {
              return "\(channel.name) write failed: \(error)"
            }
          }
          channel.close()
          return nil
        }
      }
      return await group.reduce(into: [String]()) { problems, problem in problem.map { problems.append($0) } }
    }
    await a.waitUntilReleased()
    await b.waitUntilReleased()
    var problems = writeProblems
    for reader in readers {
      if let problem = await reader.value { problems.append(problem) }
    }
    return problems.isEmpty ? nil : problems.joined(separator: ", ")
  }
}

/// A value several tasks update, behind a lock.
final class Shared<Value>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: sending Value) {
    mutex = Mutex(value)
  }

  func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
    mutex.withLock(body)
  }
}

/// SplitMix64: a small seeded generator, so a failing run can be replayed.
struct SplitMix {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func below(_ bound: Int) -> Int {
    Int(next() % UInt64(bound))
  }
}

/// A reader whose task is cancelled while bytes keep arriving: cancellation runs the stream's termination
/// handler (which closes the transport) under the runtime's lock on that task, while the side that delivers
/// bytes resumes the same task. The channel once yielded under its own lock and the two deadlocked (the
/// conformance suite hung on it); the in-memory pair did the same under its lock.
@Suite("Readers cancelled while bytes arrive")
struct CancelWhileReceivingTests {
  static let rounds = 3_000
  static let deadline = Duration.seconds(60)

  @Test("descriptor channels", .timeLimit(.minutes(2)))
  func descriptorChannels() async throws {
    #expect(await Self.run { index in try socketPairChannels(names: ("r\(index)", "w\(index)")) })
  }

  @Test("in-memory pairs", .timeLimit(.minutes(2)))
  func memoryPairs() async throws {
    #expect(await Self.run { index in MemoryTransport.pair(names: ("r\(index)", "w\(index)")) })
  }

  /// True when every round ended before the deadline. The rounds run in an unstructured task raced against a
  /// timer, not in a task group: a group would wait for a deadlocked child for ever, and the test must fail
  /// instead (the deadlocked threads are left behind; the process still ends).
  static func run<T: ByteTransport>(_ makePair: @escaping @Sendable (Int) throws -> (T, T)) async -> Bool {
    let decided = Shared<CheckedContinuation<Bool, Never>?>(nil)
    let finish: @Sendable (Bool) -> Void = { value in
      decided.withLock { waiter in
        defer { waiter = nil }
        return waiter
      }?.resume(returning: value)
    }
    return await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
      decided.withLock { $0 = waiter }
      Task {
        try? await Task.sleep(for: deadline)
        finish(false)
      }
      Task {
        for index in 0..<rounds {
          guard let (reader, writer) = try? makePair(index) else { return finish(false) }
          // Both loops yield: an in-memory write never suspends, and two loops that never suspend would hold
          // both of the pool's threads and starve the task that cancels them.
          let reading = Task {
            for try await _ in reader.incoming { await Task.yield() }
          }
          let writing = Task {
            let chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 256)
            while !Task.isCancelled {
              do { try await writer.write(chunk) } catch { return }
              await Task.yield()
            }
          }
          for _ in 0..<(index % 7) { await Task.yield() }
          reading.cancel()  // closes the reader through the stream's termination handler
          _ = await reading.result
          writing.cancel()
          writer.close()
          _ = await writing.result
          await reader.waitUntilReleased()
        }
        finish(true)
      }
    }
  }
}

/// The process-wide setting every test that writes to a closed socket or pipe relies on, set before any suite
/// runs: with it left to the first such test, the suite died of SIGPIPE whenever another one ran first.
@Suite struct TestProcessSetupTests {
  @Test func brokenPipeSignalIsIgnoredFromTheStart() {
    #expect(TestProcess.ignoresBrokenPipeSignal)
  }
}
