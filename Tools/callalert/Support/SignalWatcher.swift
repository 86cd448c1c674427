@preconcurrency import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Calls a handler on SIGINT/SIGTERM instead of dying, so that commands can clean up (links, files).
final class SignalWatcher: Sendable {
  private let sources: Mutex<[any DispatchSourceSignal]>

  init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
    let made = signals.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.resume()
      return source
    }
    sources = Mutex(made)
  }

  func cancel() {
    sources.withLock { sources in
      for source in sources { source.cancel() }
    }
  }
}
