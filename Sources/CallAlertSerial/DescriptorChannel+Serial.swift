import CSerialPort
import CallAlertTransport
import SystemPackage

extension DescriptorChannel {
  /// A channel on a terminal descriptor: a 0-byte read is first made to mean a hang-up (VMIN = 1 where a
  /// driver or libserialport left VMIN = 0; nothing changes on a pseudo-terminal master or a non-terminal).
  ///
  /// Ownership of `descriptor` passes to the channel whatever happens: on failure it is closed.
  ///
  /// - Parameters:
  ///   - descriptor: An open terminal descriptor, for example a pseudo-terminal slave opened by hand.
  ///   - name: The port name used in errors.
  public convenience init(takingTerminal descriptor: FileDescriptor, name: String) throws(SerialPortError) {
    try self.init(terminal: descriptor.rawValue, name: name, beforeClose: nil)
  }

  /// A channel on a terminal this module opened and locked (flock + TIOCEXCL), which also clears the TIOCEXCL
  /// mark just before the channel closes the descriptor.
  ///
  /// The mark must go: the flock lock goes with the close, but TIOCEXCL marks the tty, and a pseudo-terminal
  /// slave's tty lives as long as its master, so left set it would make every later open by a non-root host
  /// fail with EBUSY. Failure to clear it (EIO on a hung-up line) is harmless: that tty is going away.
  convenience init(exclusivelyHolding descriptor: CInt, name: String) throws(SerialPortError) {
    try self.init(terminal: descriptor, name: name) { descriptor in
      _ = callalert_clear_exclusive(descriptor.rawValue)
    }
  }

  private convenience init(
    terminal descriptor: CInt, name: String, beforeClose: (@Sendable (FileDescriptor) -> Void)?
  ) throws(SerialPortError) {
    do throws(SerialPortError) {
      try Terminal.makeZeroByteReadMeanHangUp(descriptor, port: name)
    } catch {
      systemClose(descriptor)
      throw error
    }
    do throws(TransportError) {
      try self.init(taking: FileDescriptor(rawValue: descriptor), name: name, beforeClose: beforeClose)
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
