import CSerialPort

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The termios and locking steps shared by every way of opening a terminal device.
enum Terminal {
  /// Takes the port for this open file description alone, so a second `callalert` (or a terminal program)
  /// cannot interleave bytes with ours.
  ///
  /// Two mechanisms, because each covers a hole in the other: `flock(LOCK_EX | LOCK_NB)` is advisory but
  /// binds every process that asks, root included (libserialport 0.1.2, minicom and pyserial's `exclusive`
  /// use it); `TIOCEXCL` makes the kernel refuse further open(2) calls with EBUSY, even from programs that
  /// never ask, but not from root. Debian's libserialport 0.1.1 does neither, so we do both ourselves.
  ///
  /// The corresponding C functions are `flock` and `ioctl(TIOCEXCL)`.
  static func takeExclusiveAccess(_ descriptor: CInt, port: String) throws(SerialPortError) {
    if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let number = errno
      if number == EWOULDBLOCK || number == EAGAIN {
        throw SerialPortError(code: .busy, port: port, function: "flock", systemErrorNumber: number)
      }
      throw .system("flock", port: port, errno: number)
    }
    // ENOTTY/EINVAL: kernels before 3.8 and some drivers lack TIOCEXCL; the flock alone still holds.
    if callalert_set_exclusive(descriptor) != 0, errno != ENOTTY, errno != EINVAL {
      throw .system("ioctl(TIOCEXCL)", port: port)
    }
  }

  /// Puts the terminal in raw mode at `baudRate`, 8 data bits, no parity, 1 stop bit, no flow control.
  ///
  /// Raw mode matters for a binary protocol: without it the line discipline would echo, translate CR/LF,
  /// swallow XON/XOFF bytes and treat 0x03 as an interrupt.
  ///
  /// The corresponding C functions are `tcgetattr`, `cfmakeraw`, `cfsetispeed`, `cfsetospeed` and `tcsetattr`.
  static func makeRaw(_ descriptor: CInt, baudRate: Int, port: String) throws(SerialPortError) {
    guard let speed = speed(for: baudRate) else {
      throw SerialPortError(
        code: .unsupportedConfiguration, port: port, function: "cfsetspeed", detail: "baud rate \(baudRate)")
    }
    var settings = termios()
    guard tcgetattr(descriptor, &settings) == 0 else { throw .system("tcgetattr", port: port) }
    cfmakeraw(&settings)
    // cfmakeraw leaves these alone: no software or hardware flow control, one stop bit, no modem control,
    // and a receiver that is on.
    settings.c_iflag &= ~tcflag_t(IXOFF | IXANY)
    settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
    settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
    guard cfsetispeed(&settings, speed) == 0, cfsetospeed(&settings, speed) == 0 else {
      throw .system("cfsetspeed", port: port)
    }
    guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else { throw .system("tcsetattr", port: port) }
  }

  /// Sets O_NONBLOCK (and close-on-exec, so a child process never inherits the port) on a descriptor.
  ///
  /// The corresponding C function is `fcntl`.
  static func makeNonBlocking(_ descriptor: CInt, port: String) throws(SerialPortError) {
    let flags = fcntl(descriptor, F_GETFL)
    guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw .system("fcntl(F_SETFL)", port: port)
    }
    let descriptorFlags = fcntl(descriptor, F_GETFD)
    guard descriptorFlags >= 0, fcntl(descriptor, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0 else {
      throw .system("fcntl(F_SETFD)", port: port)
    }
  }

  /// Makes a terminal's non-blocking reads report "no data" as EAGAIN instead of a 0-byte read.
  ///
  /// With VMIN = 0 and VTIME = 0, which libserialport's sp_open sets, Linux's n_tty returns 0 from read(2)
  /// when the buffer is empty, even with O_NONBLOCK: indistinguishable from a hang-up. VMIN = 1, VTIME = 0
  /// (what cfmakeraw sets) keeps 0 for end-of-file only. Does nothing to a descriptor that is not a terminal,
  /// nor to a pseudo-terminal master, whose termios calls act on the slave (the master's own reads never
  /// follow VMIN).
  ///
  /// The corresponding C functions are `tcgetattr` and `tcsetattr`.
  static func makeZeroByteReadMeanHangUp(_ descriptor: CInt, port: String) throws(SerialPortError) {
    guard isatty(descriptor) == 1, !isPseudoTerminalMaster(descriptor) else { return }
    var settings = termios()
    guard tcgetattr(descriptor, &settings) == 0 else { throw .system("tcgetattr", port: port) }
    let (minimum, time) = withUnsafeBytes(of: settings.c_cc) { ($0[Int(VMIN)], $0[Int(VTIME)]) }
    guard minimum == 0 || time != 0 else { return }
    withUnsafeMutableBytes(of: &settings.c_cc) {
      $0[Int(VMIN)] = 1
      $0[Int(VTIME)] = 0
    }
    guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else { throw .system("tcsetattr", port: port) }
  }

  /// Whether the descriptor is the master side of a pseudo-terminal (only masters can name their slave).
  static func isPseudoTerminalMaster(_ descriptor: CInt) -> Bool {
    var buffer = [CChar](repeating: 0, count: 128)
    return callalert_slave_path(descriptor, &buffer, buffer.count) == 0
  }

  /// The termios speed for a baud rate, or nil when the platform has none.
  ///
  /// Linux encodes speeds as `Bnnn` constants, not numbers; Darwin's speed_t is the number itself.
  static func speed(for baudRate: Int) -> speed_t? {
    #if canImport(Darwin)
      return baudRate > 0 ? speed_t(baudRate) : nil
    #else
      switch baudRate {
      case 1200: return speed_t(B1200)
      case 2400: return speed_t(B2400)
      case 4800: return speed_t(B4800)
      case 9600: return speed_t(B9600)
      case 19_200: return speed_t(B19200)
      case 38_400: return speed_t(B38400)
      case 57_600: return speed_t(B57600)
      case 115_200: return speed_t(B115200)
      case 230_400: return speed_t(B230400)
      case 460_800: return speed_t(B460800)
      case 500_000: return speed_t(B500000)
      case 921_600: return speed_t(B921600)
      case 1_000_000: return speed_t(B1000000)
      case 2_000_000: return speed_t(B2000000)
      default: return nil
      }
    #endif
  }
}
