import CallAlertControl
import CallAlertTransport
import CallAlertValues
import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The daemon's services, one named type each, run by one `ServiceGroup` (see `Daemon.makeServiceGroup`).
// Each stops when graceful shutdown (SIGINT/SIGTERM) reaches it; the group stops them last to first.

/// The alert engine and its boards; at the end, the last events reach the history and calls that rang
/// until the boards went quiet are closed.
struct AlertServiceRunner<C: Clock<Duration>>: Service {
  let service: AlertService<C>
  let history: HistoryWriter
  let locks: [InstanceLock]
  let logger: Logger

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withTaskExecutorPreference(DescriptorEventLoop.shared) { await service.run() }
      await Daemon.finish(history: history, locks: locks, logger: logger)
    }
  }
}

/// The control socket: each request line to the handler, its answer back.
struct ControlSocketService<C: Clock<Duration>>: Service {
  let server: ControlSocketServer
  /// Times idleness and accept back-off.
  let clock: C
  let handler: ControlSocketServer.Handler

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withTaskExecutorPreference(DescriptorEventLoop.shared) { await server.run(clock: clock, handler: handler) }
    }
  }
}

/// Prints every engine event on standard output (or hands it to the test's sink), in the format the
/// configuration in force asks for.
struct EventPrinterService<C: Clock<Duration>>: Service {
  let events: AsyncStream<AlertService<C>.Published>
  let reloader: ConfigurationReloader
  let printer: EventPrinter?
  let eventSink: (@Sendable (String) -> Void)?

  func run() async throws {
    // On the event loop, where the events are published: a line goes to the printer's thread (or the
    // test's sink) without waking a thread of the pool.
    await cancelWhenGracefulShutdown {
      await withTaskExecutorPreference(DescriptorEventLoop.shared) { await printEvents() }
      printer?.finish()  // waits for the printer's thread: off the loop
    }
  }

  private func printEvents() async {
    for await published in events {
      let line =
        reloader.current.eventsFormat == .json
        ? EventLine.json(published.event, at: published.at) : EventLine.text(published.event, at: published.at)
      if let eventSink { eventSink(line) } else { printer?.print(line) }
    }
  }
}

/// `systemctl reload` sends SIGHUP: the config file is read again; systemd hears RELOADING=1, then READY=1
/// once the file was handled (a refused file is logged by the reloader and the running config stays).
struct HangupReloadService: Service {
  let hangups: AsyncStream<Void>
  let reloader: ConfigurationReloader

  func run() async throws {
    await cancelWhenGracefulShutdown {
      let notifier = SystemdNotifier.fromEnvironment()
      for await _ in hangups {
        notifier.reloading()
        do { try await reloader.reload(trigger: "SIGHUP") } catch {}  // logged by the reloader
        notifier.ready(status: "serving")
      }
    }
  }
}

/// JSON lines on standard input, handled as control requests; failures are written to standard error. The
/// end of standard input ends only this reader; the daemon goes on serving its socket.
struct StandardInputService: Service {
  let endpoint: ControlLineEndpoint

  func run() async throws {
    await cancelWhenGracefulShutdown {
      for await line in StandardInputReader.lines() {
        let answer: ControlResponse
        switch line {
        case .line(let bytes, let number):
          // Bytes as they came: invalid UTF-8 in an id is refused by the parser, never replaced.
          if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
          answer = await endpoint.answer(bytes, lineNumber: number, source: "<stdin>")
        case .tooLong(let number):
          answer = .failure("<stdin>:\(number):1: line longer than 256 KiB")
        }
        // Every line is answered, on standard error: standard output carries the events, and a `status` or
        // `history` typed here got no answer at all when only failures were written.
        _ = DescriptorWriter.writeAll(STDERR_FILENO, ControlLineEndpoint.bytes(of: answer))
      }
    }
  }
}
