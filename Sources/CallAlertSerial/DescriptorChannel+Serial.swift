import CSerialPort
import CallAlertTransport
import SystemPackage

extension DescriptorChannel {
  /// A channel on a terminal this module opened and locked (flock + TIOCEXCL): a 0-byte read is made to mean
  /// a hang-up (VMIN = 1), and the TIOCEXCL mark is cleared just before the channel closes the descriptor.
  ///
  /// The mark must go: the flock lock goes with the close, but TIOCEXCL marks the tty, and a pseudo-terminal
  /// slave's tty lives as long as its master, so left set it would make every later open by a non-root host
  /// fail with EBUSY. Failure to clear it (EIO on a hung-up line) is harmless: that tty is going away.
  ///
  /// Ownership of `descriptor` passes to the channel whatever happens: on failure it is closed.
  convenience init(exclusivelyHolding descriptor: CInt, name: String) throws(SerialPortError) {
    do throws(SerialPortError) {
      try Terminal.makeZeroByteReadMeanHangUp(descriptor, port: name)
    } catch {
      systemClose(descriptor)
      throw error
    }
    do throws(TransportError) {
      try self.init(taking: FileDescriptor(rawValue: descriptor), name: name) { descriptor in
        _ = callalert_clear_exclusive(descriptor.rawValue)
      }
    } catch {
      throw SerialPortError(error)
    }
  }
}

extension SerialPortError {
  /// The same failure as a serial-port error, for an opener whose channel could not start.
  init(_ error: TransportError) {
    let code: Code =
      switch error.code {
      case .disconnected: .disconnected
      case .closed: .closed
      case .systemFailure: .systemFailure
      }
    self.init(
      code: code, port: error.port, function: error.function, systemErrorNumber: error.errno?.rawValue,
      systemMessage: error.errno.map { SystemError(number: $0.rawValue).message })
  }
}
