import CSerialPort
import CallAlertTransport
import SystemPackage

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Pseudo-terminals: creating a pair for tests and the virtual board, and opening a slave as a transport.
///
/// Debian's libserialport 0.1.1 cannot open a pseudo-terminal (`sp_get_port_by_name` wants
/// `/sys/class/tty/<name>`, and `sp_open` fails on `TIOCMGET`), so slaves are opened here with open(2) and
/// termios, take the same exclusive lock as a real port, and use the same ``DescriptorChannel``.
///
/// A pair as the virtual board uses it (`callalert board simulate`):
///
/// ```swift
/// let (master, slavePath) = try PseudoTerminal.open()
/// let keepAlive = try PseudoTerminal.holdOpen(slavePath: slavePath)  // hosts may come and go
/// let line = try DescriptorChannel(taking: master, name: "virtual board")
/// print("board listening on \(slavePath)")           // the host runs: callalert --port /dev/pts/N
/// ```
public enum PseudoTerminal {
  /// Creates a pseudo-terminal pair and returns its master descriptor and the path of its slave.
  ///
  /// The master is non-blocking, close-on-exec and in raw mode at `baudRate`. On Linux, termios calls on a
  /// master act on the slave's settings, so the slave starts raw too: the line never echoes the board's own
  /// output back to it before a host has opened the slave. The baud rate has no effect on a pseudo-terminal's
  /// speed; it is set so that a host reading the settings sees what a real board would use.
  ///
  /// The caller owns the master: hand it to `DescriptorChannel.init(taking:name:beforeClose:)` or close it.
  /// Closing the master hangs up the slave: a host reading it sees `TransportError.Code.disconnected`.
  ///
  /// Until some process opens the slave, the master reads nothing (EAGAIN). After the last slave descriptor
  /// closes, the master reads EIO, which a channel on it reports as a disconnect; use ``holdOpen(slavePath:)``
  /// to keep the master alive across host sessions.
  ///
  /// The corresponding C functions are `posix_openpt`, `grantpt`, `unlockpt` and `ioctl(TIOCGPTN)` (a
  /// thread-safe `ptsname`).
  public static func open(
    baudRate: Int = SerialPort.defaultBaudRate
  ) throws(SerialPortError) -> (master: FileDescriptor, slavePath: String) {
    let port = "/dev/ptmx"
    // Close-on-exec from the start: a process that another thread spawns before the master reaches its channel
    // would keep the pseudo-terminal alive past the board (its host would never see the unplug).
    let master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard master >= 0 else { throw .system("posix_openpt", port: port) }
    do throws(SerialPortError) {
      guard grantpt(master) == 0 else { throw .system("grantpt", port: port) }
      guard unlockpt(master) == 0 else { throw .system("unlockpt", port: port) }
      var buffer = [CChar](repeating: 0, count: 128)
      guard callalert_slave_path(master, &buffer, buffer.count) == 0 else {
        throw .system("ioctl(TIOCGPTN)", port: port)
      }
      let slavePath = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      try Terminal.makeRaw(master, baudRate: baudRate, port: slavePath)
      try Terminal.makeNonBlocking(master, port: slavePath)
      return (FileDescriptor(rawValue: master), slavePath)
    } catch {
      systemClose(master)
      throw error
    }
  }

  /// Opens the slave of a pseudo-terminal (or any terminal device libserialport cannot open) as a transport.
  ///
  /// `path` may be `/dev/pts/N` or a symbolic link to it; errors name `path` as given. The descriptor is opened
  /// non-blocking and without becoming the controlling terminal, locked exclusively (flock + TIOCEXCL, as for
  /// a real port), set to raw 8N1 at `baudRate` without flow control, then handed to a ``DescriptorChannel``,
  /// which clears the TIOCEXCL mark when it closes the descriptor (on a pseudo-terminal the mark would
  /// otherwise outlive it and lock non-root hosts out until the master closes).
  ///
  /// - Throws: ``SerialPortError`` with code ``SerialPortError/Code/noSuchPort`` when nothing is at `path`,
  ///   ``SerialPortError/Code/busy`` when another open holds it (naming the holder when it can be found,
  ///   see ``PortHolder``), ``SerialPortError/Code/permissionDenied``,
  ///   or ``SerialPortError/Code/notASerialPort`` when `path` is not a terminal.
  ///
  /// The corresponding C functions are `open`, `flock`, `ioctl(TIOCEXCL)`, `cfmakeraw` and `tcsetattr`.
  public static func openSlave(
    _ path: String, baudRate: Int = SerialPort.defaultBaudRate
  ) throws(SerialPortError) -> DescriptorChannel {
    let descriptor: CInt
    do throws(SerialPortError) {
      descriptor = try openTerminal(path)
    } catch {
      throw error.namingHolder(of: path)  // EBUSY: TIOCEXCL set by a holder, and we are not root
    }
    do throws(SerialPortError) {
      // Lock before touching the settings, so a second open never disturbs the line of the one that holds it.
      try Terminal.takeExclusiveAccess(descriptor, port: path)
      try Terminal.makeRaw(descriptor, baudRate: baudRate, port: path)
    } catch {
      systemClose(descriptor)
      throw error.namingHolder(of: path)
    }
    return try DescriptorChannel(exclusivelyHolding: descriptor, name: path)
  }

  /// Opens the slave without locking it, so that the master never sees a hang-up between host sessions.
  ///
  /// A real board stays up when the host closes its port; a pseudo-terminal master, by contrast, reads EIO as
  /// soon as the last slave descriptor closes. The virtual board keeps this descriptor for its whole life so
  /// that hosts can disconnect and reconnect. Nothing should read it. Two consequences to know: the board does
  /// not see a host leave (as with a real board over USB), and bytes it writes while no host is connected
  /// wait in the line (up to about 20 KiB, then its writes wait for room) for the next host, whose decoder
  /// resynchronises on the next frame delimiter.
  ///
  /// The corresponding C function is `open`.
  public static func holdOpen(slavePath: String) throws(SerialPortError) -> FileDescriptor {
    FileDescriptor(rawValue: try openTerminal(slavePath))
  }

  /// Whether `path`, once symbolic links are resolved, is the slave side of a pseudo-terminal.
  public static func isSlavePath(_ path: String) -> Bool {
    guard let resolved = resolvedPath(path) else { return false }
    #if canImport(Darwin)
      return resolved.hasPrefix("/dev/ttys")
    #else
      return resolved.hasPrefix("/dev/pts/")
    #endif
  }

  /// Opens a terminal device non-blocking, without making it our controlling terminal, close-on-exec.
  private static func openTerminal(_ path: String) throws(SerialPortError) -> CInt {
    let descriptor = systemOpen(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw .system("open", port: path) }
    guard isatty(descriptor) == 1 else {
      systemClose(descriptor)
      throw SerialPortError(code: .notASerialPort, port: path, function: "isatty", detail: "not a terminal")
    }
    return descriptor
  }
}
