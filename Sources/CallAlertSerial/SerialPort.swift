import CSerialPort
import CallAlertTransport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Opening serial ports by path.
public enum SerialPort {
  /// The board's baud rate unless told otherwise.
  public static let defaultBaudRate = 115_200

  /// Opens a serial port for exclusive use at `baudRate`, 8 data bits, no parity, 1 stop bit, no flow control,
  /// and returns the channel that reads and writes it.
  ///
  /// `path` may be a device (`/dev/ttyACM0`) or a symbolic link to one (`/dev/serial/by-id/usb-…`); errors
  /// name it as given. A pseudo-terminal slave (`/dev/pts/N`, as the virtual board prints) is opened by
  /// ``PseudoTerminal/openSlave(_:baudRate:)`` instead, because libserialport 0.1.1 cannot open one.
  ///
  /// For a real port the steps are: `sp_get_port_by_name` on the resolved path; `sp_open` read/write; the
  /// exclusive lock (`flock` + `TIOCEXCL`, which 0.1.1 does not take) before any setting changes;
  /// `sp_new_config` and the `sp_set_config_*` setters, `sp_set_config`; then the descriptor from
  /// `sp_get_port_handle` is duplicated, libserialport's copy is closed with `sp_close` and the struct freed
  /// with `sp_free_port`, and the duplicate goes to a ``DescriptorChannel``, which alone owns it from then on.
  /// The duplicate shares the open file description, so the flock lock survives `sp_close`.
  ///
  /// - Throws: ``SerialPortError`` whose description names the port: `no such port /dev/ttyACM9`,
  ///   `port /dev/ttyACM0 is busy, held by callalert run (PID 4242)` (see ``PortHolder``),
  ///   `permission denied on /dev/ttyACM0 (add yourself to the dialout group)`, an unsupported setting, or
  ///   the libserialport or system failure with its code and message.
  ///
  /// The corresponding C functions are `sp_get_port_by_name`, `sp_open`, `sp_get_port_handle`,
  /// `sp_new_config`, `sp_set_config_*`, `sp_set_config`, `sp_close` and `sp_free_port`.
  public static func open(
    _ path: String, baudRate: Int = defaultBaudRate
  ) throws(SerialPortError) -> DescriptorChannel {
    do throws(SerialPortError) {
      return try openUnnamed(path, baudRate: baudRate)
    } catch {
      // Only now, on the rare busy path, look for the holder: `/proc` is read for the error, never to open.
      throw error.namingHolder(of: path)
    }
  }

  private static func openUnnamed(_ path: String, baudRate: Int) throws(SerialPortError) -> DescriptorChannel {
    if PseudoTerminal.isSlavePath(path) {
      return try PseudoTerminal.openSlave(path, baudRate: baudRate)
    }
    let port = try LibSerialPort.Port(name: resolvedPath(path) ?? path, displayName: path)
    try port.open(SP_MODE_READ_WRITE)
    // From here on the port struct holds an open descriptor; on any throw, `port`'s deinit closes it.
    let handle = try port.handle()
    // 0.1.1's sp_open has already put the line in raw mode. If the holder is an unprivileged process with
    // TIOCEXCL set, sp_open failed with EBUSY before touching anything; otherwise the flock catches it here,
    // before our configuration can change the holder's baud rate.
    try Terminal.takeExclusiveAccess(handle, port: path)
    let configuration = try LibSerialPort.Configuration(port: path)
    try configuration.set(baudRate: baudRate, port: path)
    try port.setConfiguration(configuration)
    let owned = fcntl(handle, F_DUPFD_CLOEXEC, 0)
    guard owned >= 0 else { throw .system("fcntl(F_DUPFD_CLOEXEC)", port: path) }
    port.close()
    return try DescriptorChannel(exclusivelyHolding: owned, name: path)
  }
}
