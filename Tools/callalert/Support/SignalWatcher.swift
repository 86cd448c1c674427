@preconcurrency import Dispatch
import Foundation

/// Calls a handler on SIGINT/SIGTERM instead of dying, so that commands can clean up (links, files).
final class SignalWatcher: @unchecked Sendable {  // the sources are only cancelled after init
  private let sources: [any DispatchSourceSignal]

  init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
    sources = signals.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.resume()
      return source
    }
  }

  func cancel() {
    for source in sources { source.cancel() }
  }
}
